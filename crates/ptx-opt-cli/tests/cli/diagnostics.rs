//! Diagnostics as clang and rustc print them: `--color`, the caret under
//! the operand a message names, `note:` snippets, `--error-limit` with the
//! summary line, and control characters of the input escaped.

use crate::{ptx_opt, stderr_of};
use std::path::Path;

/// A kernel with `n` type errors, one per line, the first on line 9.
fn kernel_with_errors(n: usize) -> String {
    let mut ptx = String::from(
        ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<2>;\n\tmov.u64 %rd1, 0;\n",
    );
    for _ in 0..n {
        ptx.push_str("\tadd.s32 %r1, %rd1, %r2;\n");
    }
    ptx.push_str("\tret;\n}\n");
    ptx
}

fn run(args: &[&str], stdin: &str) -> (Option<i32>, String) {
    let output = ptx_opt(Path::new("."), args, stdin.as_bytes());
    assert!(output.stdout.is_empty());
    (output.status.code(), stderr_of(&output))
}

#[test]
fn caret_under_the_operand_and_summary() {
    let (status, stderr) = run(&["--color=never"], &kernel_with_errors(2));
    assert_eq!(status, Some(1));
    let one = "<stdin>:9:2: error: add.s32: operand 2 (%rd1) is .b64, which does not agree with type .s32 (PTX ISA 9.4, Table 26)\n  |\n9 | \tadd.s32 %r1, %rd1, %r2;\n  | \t             ^^^^\n";
    assert!(stderr.starts_with(one), "{stderr}");
    assert!(stderr.ends_with("error: aborting due to 2 errors\n"), "{stderr}");
}

#[test]
fn error_limit_shows_the_first_n() {
    let errors = |stderr: &str| stderr.lines().filter(|l| l.starts_with("<stdin>:")).count();
    let source = kernel_with_errors(25);
    let (status, stderr) = run(&[], &source);
    assert_eq!(status, Some(1));
    assert_eq!(errors(&stderr), 20, "clang's default limit: {stderr}");
    assert!(stderr.ends_with("note: 5 more errors not shown (error limit 20)\nerror: aborting due to 25 errors\n"));
    let (_, stderr) = run(&["--error-limit=3"], &source);
    assert_eq!(errors(&stderr), 3);
    let (_, stderr) = run(&["--error-limit=0"], &source);
    assert_eq!(errors(&stderr), 25);
    assert!(stderr.ends_with("\nerror: aborting due to 25 errors\n") && !stderr.contains("not shown"));
    let (status, _) = run(&["--error-limit=-1"], &source);
    assert_eq!(status, Some(2));
}

#[test]
fn colour_only_when_asked_or_on_a_terminal() {
    let source = kernel_with_errors(1);
    let (_, always) = run(&["--color=always"], &source);
    assert!(always.contains("\u{1b}[1m\u{1b}[31merror\u{1b}[0m"), "{always:?}");
    // Standard error is a pipe here: auto means no colour (a terminal: see
    // colour_on_a_terminal_unless_told_otherwise).
    for args in [&["--color=never"][..], &["--color=auto"][..], &[][..]] {
        let (_, plain) = run(args, &source);
        assert!(!plain.contains('\u{1b}'), "{args:?}: {plain:?}");
    }
    let (status, stderr) = run(&["--color=sometimes"], &source);
    assert_eq!(status, Some(2), "{stderr}");
}

/// Runs ptx-opt with a pseudo-terminal as standard error (what `--color=auto`
/// looks at), the input on standard input; returns the exit status and what
/// the terminal showed.
#[cfg(unix)]
fn run_on_a_terminal(args: &[&str], env: &[(&str, &str)], stdin: &str) -> (Option<i32>, String) {
    use std::io::{Read, Write};
    use std::os::fd::{FromRawFd, OwnedFd};
    use std::process::{Command, Stdio};
    let (mut controller, mut terminal) = (-1, -1);
    // SAFETY: openpty writes two new descriptors into the two integers.
    let made = unsafe {
        libc::openpty(&mut controller, &mut terminal, std::ptr::null_mut(), std::ptr::null(), std::ptr::null())
    };
    assert_eq!(made, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: both descriptors were just opened and are owned here alone.
    let (controller, terminal) = unsafe { (OwnedFd::from_raw_fd(controller), OwnedFd::from_raw_fd(terminal)) };
    let mut command = Command::new(env!("CARGO_BIN_EXE_ptx-opt"));
    command.args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::from(terminal));
    for var in ["NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "TERM"] {
        command.env_remove(var);
    }
    command.env("TERM", "xterm-256color").envs(env.iter().copied());
    let mut child = command.spawn().expect("ptx-opt starts");
    // The parent's copy of the terminal end went into the Command; drop it so
    // that reading the controller ends (EIO) when ptx-opt exits.
    drop(command);
    let reader = std::thread::spawn(move || {
        let mut file = std::fs::File::from(controller);
        let mut shown = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            match file.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => shown.extend_from_slice(&buf[..n]),
            }
        }
        shown
    });
    let mut input = child.stdin.take().expect("stdin is piped");
    let _ = input.write_all(stdin.as_bytes());
    drop(input);
    let output = child.wait_with_output().expect("ptx-opt runs");
    assert!(output.stdout.is_empty());
    let shown = reader.join().expect("reader");
    // The terminal turns each "\n" into "\r\n" (onlcr).
    (output.status.code(), String::from_utf8_lossy(&shown).replace("\r\n", "\n"))
}

#[cfg(unix)]
#[test]
fn colour_on_a_terminal_unless_told_otherwise() {
    let source = kernel_with_errors(1);
    let (_, piped) = run(&[], &source);
    for args in [&["--color=auto"][..], &[][..]] {
        let (status, shown) = run_on_a_terminal(args, &[], &source);
        assert_eq!(status, Some(1));
        assert!(shown.contains("\u{1b}[1m\u{1b}[31merror\u{1b}[0m"), "{args:?}: {shown:?}");
        // The same text, coloured.
        let plain: String = strip_sgr(&shown);
        assert_eq!(plain, piped, "{args:?}");
    }
    // --color=never and NO_COLOR win over the terminal.
    for (args, env) in [(&["--color=never"][..], &[][..]), (&[][..], &[("NO_COLOR", "1")][..])] {
        let (status, shown) = run_on_a_terminal(args, env, &source);
        assert_eq!(status, Some(1));
        assert_eq!(shown, piped, "{args:?} {env:?}");
    }
}

/// Text without its SGR sequences (`ESC [ ... m`).
#[cfg(unix)]
fn strip_sgr(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            for d in chars.by_ref() {
                if d == 'm' {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[test]
fn duplicate_label_notes_where_it_was_first_defined() {
    let source =
        ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\nL1:\n\tbra.uni L1;\nL1:\n\tret;\n}\n";
    let (status, stderr) = run(&[], source);
    assert_eq!(status, Some(1));
    assert_eq!(
        stderr,
        "<stdin>:8:1: error: label 'L1' is defined twice\n  |\n8 | L1:\n  | ^^\n<stdin>:6:1: note: first defined here\n  |\n6 | L1:\n  | ^^\n"
    );
}

#[test]
fn control_characters_in_the_input_are_escaped() {
    // An ESC sequence that would clear the screen, a bell, and a right-to-left override.
    for evil in ["\u{1b}[2J\u{1b}[H", "\u{7}", "\u{202e}"] {
        let source =
            format!(".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{{\n\tret{evil};\n}}\n");
        for color in ["--color=never", "--color=always"] {
            let (status, stderr) = run(&[color], &source);
            assert_eq!(status, Some(1), "{evil:?}: {stderr}");
            // What the colours write, and nothing else, may be a control character.
            let mut text = stderr.clone();
            for sgr in ["\u{1b}[0m", "\u{1b}[1m", "\u{1b}[31m", "\u{1b}[32m", "\u{1b}[34m"] {
                text = text.replace(sgr, "");
            }
            let unsafe_char = |c: char| (c.is_control() && c != '\n' && c != '\t') || c == '\u{202e}';
            assert!(!text.chars().any(unsafe_char), "{evil:?} {color}: {stderr:?}");
            assert!(stderr.contains("\\u{"), "{evil:?} {color}: shown escaped: {stderr}");
        }
    }
}
