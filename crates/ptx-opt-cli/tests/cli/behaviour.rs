//! Command-line behaviour of `ptx-opt`: flags and exit codes (0 ok, 1 bad
//! input, 2 usage), the atomic `-o`, standard input, byte-identical output
//! when no pass runs, a quiet exit when the reader of standard output goes
//! away (and an unchanged exit status when that of standard error does), and
//! on every error no `-o` file created or touched.

use crate::{corpus_file, ptx_opt, stderr_of, testdata};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A small valid module from the parse testdata.
fn sample() -> (PathBuf, Vec<u8>) {
    let path = testdata("parse").join("registers.ptx");
    let bytes = std::fs::read(&path).expect("testdata/parse/registers.ptx is readable");
    (path, bytes)
}

/// The names in a directory, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("listable directory")
        .map(|e| e.expect("directory entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Runs `ptx-opt args` (in a scratch directory) and checks the exit status,
/// that standard output contains `stdout_has` (all of them) and standard
/// error contains `stderr_has`; an empty `stderr_has` means stderr is empty.
fn check(args: &[&str], status: i32, stdout_has: &[&str], stderr_has: &str) {
    let dir = tempfile::tempdir().expect("scratch directory");
    let output = ptx_opt(dir.path(), args, b"");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = stderr_of(&output);
    assert_eq!(output.status.code(), Some(status), "ptx-opt {args:?}\nstdout:\n{stdout}\nstderr:\n{stderr}");
    for needle in stdout_has {
        assert!(stdout.contains(needle), "ptx-opt {args:?}: stdout lacks {needle:?}:\n{stdout}");
    }
    if stdout_has.is_empty() {
        assert!(stdout.is_empty(), "ptx-opt {args:?}: unexpected stdout:\n{stdout}");
    }
    if stderr_has.is_empty() {
        assert!(stderr.is_empty(), "ptx-opt {args:?}: unexpected stderr:\n{stderr}");
    } else {
        assert!(stderr.contains(stderr_has), "ptx-opt {args:?}: stderr lacks {stderr_has:?}:\n{stderr}");
    }
}

#[test]
fn flags_and_usage_errors() {
    let help =
        ["Usage:", "-o <FILE>", "--passes <PIPELINE>", "-O <LEVEL>", "--list-passes", "--verify-each", "--reformat"];
    check(&["--help"], 0, &help, "");
    check(&["--help"], 0, &["Passes:", "-O0:", "-O2:"], "");
    check(&["--version"], 0, &[&format!("ptx-opt {}", env!("CARGO_PKG_VERSION"))], "");
    // Pass names are checked before the input is read: a missing file is not reached.
    check(&["--passes", "no-such-pass", "missing.ptx"], 2, &[], "unknown pass 'no-such-pass'");
    check(&["--print-after", "no-such-pass", "missing.ptx"], 2, &[], "unknown pass 'no-such-pass'");
    check(&["--passes", "verify", "-O1", "missing.ptx"], 2, &[], "cannot be combined");
    check(&["--threads", "0", "missing.ptx"], 2, &[], "--threads must be at least 1");
    // Regression: --threads=100000 spent minutes creating threads.
    for n in ["257", "100000", "18446744073709551615"] {
        check(&["--threads", n, "missing.ptx"], 2, &[], "--threads must be at most 256");
    }
    check(&["-O", "3"], 2, &[], "-O");
    check(&["--no-such-flag"], 2, &[], "--no-such-flag");
    check(&["missing.ptx"], 1, &[], "cannot read 'missing.ptx'");
}

#[test]
fn list_passes_prints_the_registry() {
    let dir = tempfile::tempdir().expect("scratch directory");
    let output = ptx_opt(dir.path(), &["--list-passes"], b"");
    assert_eq!(output.status.code(), Some(0));
    let stdout = String::from_utf8(output.stdout).expect("UTF-8 output");
    let names: Vec<&str> = stdout.lines().filter_map(|l| l.split_whitespace().next()).collect();
    let registry: Vec<&str> = ptx_opt::passes().iter().map(|p| p.name).collect();
    assert_eq!(names, registry);
    for pass in ptx_opt::passes() {
        assert!(stdout.contains(pass.description), "--list-passes lacks the description of {}", pass.name);
    }
}

#[test]
fn output_file_is_written() {
    let (input, bytes) = sample();
    let dir = tempfile::tempdir().expect("scratch directory");
    let out = dir.path().join("out.ptx");
    let output = ptx_opt(dir.path(), &[input.to_str().expect("UTF-8 path"), "-o", "out.ptx"], b"");
    assert_eq!(output.status.code(), Some(0), "{}", stderr_of(&output));
    assert!(output.stdout.is_empty(), "with -o nothing goes to standard output");
    assert_eq!(std::fs::read(&out).expect("-o file exists"), bytes);
    assert_eq!(listing(dir.path()), ["out.ptx"], "no temporary file is left behind");
}

#[test]
fn an_input_path_whose_size_is_unknown_is_read_whole() {
    // A file is read into an allocation of its size; a path whose size says
    // nothing (a pipe named as a file) is read on to its end.
    let (_, bytes) = sample();
    let dir = tempfile::tempdir().expect("scratch directory");
    for args in [&["/dev/stdin"][..], &["/dev/stdin", "-O2"], &[]] {
        let output = ptx_opt(dir.path(), args, &bytes);
        assert_eq!(output.status.code(), Some(0), "{args:?}: {}", stderr_of(&output));
        let expected = ptx_opt::optimize(std::str::from_utf8(&bytes).unwrap(), &cli_options(args)).unwrap().ptx;
        assert_eq!(String::from_utf8(output.stdout).unwrap(), expected, "{args:?}");
    }
}

/// Standard input of several megabytes (a pipe is read in chunks of
/// 1 MiB, copied into one allocation) and a file redirected to it (read
/// like a file) give the input back byte for byte.
#[test]
fn standard_input_larger_than_a_chunk_is_read_whole_from_a_pipe_or_a_file() {
    let (_, bytes) = sample();
    let mut big = bytes.clone();
    for i in 0..40_000 {
        big.extend_from_slice(format!("// padding line {i:06} {}\n", "x".repeat(60)).as_bytes());
    }
    assert!(big.len() > 3 << 20);
    let dir = tempfile::tempdir().expect("scratch directory");
    let output = ptx_opt(dir.path(), &[], &big);
    assert_eq!(output.status.code(), Some(0), "{}", stderr_of(&output));
    assert!(output.stdout == big, "a piped input comes back byte for byte");
    let path = dir.path().join("big.ptx");
    std::fs::write(&path, &big).expect("writable scratch directory");
    let output = Command::new(env!("CARGO_BIN_EXE_ptx-opt"))
        .current_dir(dir.path())
        .stdin(std::fs::File::open(&path).expect("readable"))
        .output()
        .expect("ptx-opt runs");
    assert_eq!(output.status.code(), Some(0), "{}", stderr_of(&output));
    assert!(output.stdout == big, "a redirected input comes back byte for byte");
}

fn cli_options(args: &[&str]) -> ptx_opt::Options {
    if args.contains(&"-O2") {
        ptx_opt::Options::with_level(2)
    } else {
        ptx_opt::Options::default()
    }
}

#[test]
fn parse_error_leaves_existing_output_untouched() {
    let dir = tempfile::tempdir().expect("scratch directory");
    let bad = testdata("parse-errors").join("missing-semicolon.ptx");
    std::fs::write(dir.path().join("existing.ptx"), "previous contents\n").expect("writable scratch directory");
    let before = listing(dir.path());
    let output = ptx_opt(dir.path(), &[bad.to_str().expect("UTF-8 path"), "-o", "existing.ptx"], b"");
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr_of(&output).contains("expected ';' after instruction"), "{}", stderr_of(&output));
    assert_eq!(std::fs::read_to_string(dir.path().join("existing.ptx")).expect("still there"), "previous contents\n");
    assert_eq!(listing(dir.path()), before, "no temporary file is left behind");
}

#[test]
fn output_equal_to_input_is_refused() {
    let (_, bytes) = sample();
    let dir = tempfile::tempdir().expect("scratch directory");
    std::fs::write(dir.path().join("in.ptx"), &bytes).expect("writable scratch directory");
    // The same file under two spellings.
    let output = ptx_opt(dir.path(), &["in.ptx", "-o", "./in.ptx"], b"");
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr_of(&output).contains("is the input file"), "{}", stderr_of(&output));
    assert!(output.stdout.is_empty());
    assert_eq!(std::fs::read(dir.path().join("in.ptx")).expect("input still there"), bytes);
    assert_eq!(listing(dir.path()), ["in.ptx"]);
}

#[test]
fn reads_standard_input() {
    let (_, bytes) = sample();
    let dir = tempfile::tempdir().expect("scratch directory");
    for args in [&["-"][..], &[][..]] {
        let output = ptx_opt(dir.path(), args, &bytes);
        assert_eq!(output.status.code(), Some(0), "ptx-opt {args:?}: {}", stderr_of(&output));
        assert_eq!(output.stdout, bytes, "ptx-opt {args:?} echoes standard input");
    }
    // Diagnostics for standard input name it `<stdin>`.
    let bad = std::fs::read(testdata("parse-errors").join("missing-semicolon.ptx")).expect("readable");
    let output = ptx_opt(dir.path(), &["-"], &bad);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr_of(&output).starts_with("<stdin>:10:16: error: "), "{}", stderr_of(&output));
}

#[test]
fn no_passes_prints_a_corpus_file_byte_identically() {
    let input = corpus_file("nvrtc-13.5__device_funcs__sm_80__G.ptx");
    let bytes = std::fs::read(&input).expect("the shared corpus is beside the workspace");
    let dir = tempfile::tempdir().expect("scratch directory");
    let output = ptx_opt(dir.path(), &[input.to_str().expect("UTF-8 path")], b"");
    assert_eq!(output.status.code(), Some(0), "{}", stderr_of(&output));
    assert!(output.stdout == bytes, "output differs from the input");
}

#[test]
fn closed_stdout_pipe_exits_quietly() {
    // Larger than any pipe buffer, so ptx-opt is still writing when the reader is gone.
    let input = corpus_file("nvcc-13.5__thrust_cub_device__sm_80.ptx");
    assert!(std::fs::metadata(&input).expect("corpus file").len() > 1 << 20);
    let mut child = Command::new(env!("CARGO_BIN_EXE_ptx-opt"))
        .arg(&input)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ptx-opt starts");
    drop(child.stdout.take());
    let mut stderr = String::new();
    child.stderr.take().expect("stderr is piped").read_to_string(&mut stderr).expect("stderr readable");
    let status = child.wait().expect("ptx-opt exits");
    assert!(stderr.is_empty(), "expected a quiet exit, stderr:\n{stderr}");
    assert_eq!(status.code(), Some(0), "a closed pipe is not an error");
}

/// A module that parses but that the verifier rejects (a .b64 register as
/// the destination of a 32-bit add; ptxas rejects it too).
const REJECTED_BY_VERIFY: &str = ".version 8.0\n.target sm_80\n.address_size 64\n\n.visible .entry k()\n{\n\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<3>;\n\n\tadd.u32 %rd1, %r1, %r2;\n\tret;\n}\n";

#[test]
fn errors_never_create_or_touch_the_output_file() {
    let dir = tempfile::tempdir().expect("scratch directory");
    let bad_parse = testdata("parse-errors").join("missing-semicolon.ptx");
    std::fs::write(dir.path().join("rejected.ptx"), REJECTED_BY_VERIFY).expect("writable scratch directory");
    std::fs::write(dir.path().join("existing.ptx"), "previous contents\n").expect("writable scratch directory");
    let before = listing(dir.path());
    let cases: [(&str, &[&str]); 4] = [
        ("parse error", &[bad_parse.to_str().expect("UTF-8 path")]),
        ("verify error", &["rejected.ptx", "--passes=verify"]),
        ("verify-each error", &["rejected.ptx", "--passes=legalize-relaxed", "--verify-each"]),
        ("invalid UTF-8", &["-"]),
    ];
    for (what, args) in cases {
        for out in ["new.ptx", "existing.ptx"] {
            let mut all = args.to_vec();
            all.extend(["-o", out]);
            let output = ptx_opt(dir.path(), &all, b"\xff\xfe not PTX");
            assert_eq!(output.status.code(), Some(1), "{what} -o {out}: {}", stderr_of(&output));
            assert!(output.stdout.is_empty(), "{what}: nothing on standard output");
            assert_eq!(listing(dir.path()), before, "{what} -o {out}: no output or temporary file appears");
            assert_eq!(
                std::fs::read_to_string(dir.path().join("existing.ptx")).expect("still there"),
                "previous contents\n",
                "{what}: an existing output is untouched"
            );
        }
    }
}

/// Every run verifies its input, as `opt` and `wasm-opt` do: with no pass,
/// at each level, streamed or not, the rejected input is exit 1 with the
/// located error `--passes=verify` gives, and no output file. `--no-verify`
/// leaves only the parser's checks (the input then goes through unchanged).
#[test]
fn input_is_verified_by_default_and_no_verify_skips_it() {
    let dir = tempfile::tempdir().expect("scratch directory");
    std::fs::write(dir.path().join("rejected.ptx"), REJECTED_BY_VERIFY).expect("writable scratch directory");
    let verify = ptx_opt(dir.path(), &["rejected.ptx", "--passes=verify"], b"");
    let expected = stderr_of(&verify);
    assert!(expected.starts_with("rejected.ptx:10:2: error: add.u32: "), "{expected}");
    for args in [&[][..], &["-O0"], &["-O1"], &["-O2"], &["--passes=fold-prmt"], &["--reformat"], &["--emit=cfg-dot"]] {
        let mut all = vec!["rejected.ptx", "-o", "out.ptx"];
        all.extend(args);
        let output = ptx_opt(dir.path(), &all, b"");
        assert_eq!(output.status.code(), Some(1), "{args:?}: {}", stderr_of(&output));
        assert_eq!(stderr_of(&output), expected, "{args:?}: the verifier's located errors");
        assert!(!dir.path().join("out.ptx").exists(), "{args:?}: no output file");
    }
    let output = ptx_opt(dir.path(), &["rejected.ptx", "--no-verify"], b"");
    assert_eq!(output.status.code(), Some(0), "--no-verify: {}", stderr_of(&output));
    assert_eq!(String::from_utf8_lossy(&output.stdout), REJECTED_BY_VERIFY, "--no-verify, no pass: unchanged");
    // (-O2's dce deletes the add whose result nothing reads.)
    let output = ptx_opt(dir.path(), &["rejected.ptx", "--no-verify", "-O2"], b"");
    assert_eq!(output.status.code(), Some(0), "--no-verify -O2: {}", stderr_of(&output));
    check(&["--no-verify", "--verify-each", "x.ptx"], 2, &[], "cannot be used with");
}

/// Regression: with `--verify-each`, input the verifier rejects was blamed
/// on the first pass (`... (after pass 'legalize-relaxed', which produced
/// invalid PTX)`). It is reported as `--passes=verify` reports it: the same
/// `FILE:LINE:COL: error:` lines and snippets, naming no pass, exit 1.
#[test]
fn verify_each_reports_invalid_input_not_the_first_pass() {
    let dir = tempfile::tempdir().expect("scratch directory");
    std::fs::write(dir.path().join("rejected.ptx"), REJECTED_BY_VERIFY).expect("writable scratch directory");
    let verify = ptx_opt(dir.path(), &["rejected.ptx", "--passes=verify"], b"");
    assert_eq!(verify.status.code(), Some(1), "{}", stderr_of(&verify));
    let expected = stderr_of(&verify);
    assert!(expected.starts_with("rejected.ptx:10:2: error: add.u32: "), "{expected}");
    for passes in ["legalize-relaxed", "combine-cvt-pack,fold-prmt", "verify"] {
        let output = ptx_opt(dir.path(), &["rejected.ptx", &format!("--passes={passes}"), "--verify-each"], b"");
        let stderr = stderr_of(&output);
        assert_eq!(output.status.code(), Some(1), "--passes={passes}: {stderr}");
        assert!(output.stdout.is_empty());
        assert!(!stderr.contains("after pass"), "--passes={passes}: a pass is blamed:\n{stderr}");
        assert_eq!(stderr, expected, "--passes={passes} --verify-each reports what --passes=verify does");
    }
}

#[test]
fn unwritable_output_is_an_error() {
    let (input, _) = sample();
    let dir = tempfile::tempdir().expect("scratch directory");
    let output = ptx_opt(dir.path(), &[input.to_str().expect("UTF-8 path"), "-o", "no-such-dir/out.ptx"], b"");
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr_of(&output).starts_with("ptx-opt: error: cannot write 'no-such-dir/out.ptx'"),
        "{}",
        stderr_of(&output)
    );
    assert!(output.stdout.is_empty());
    assert!(listing(dir.path()).is_empty(), "nothing is created");
}

/// A pipe whose reading end is already closed, so the first write to it
/// fails with EPIPE however small the output is.
fn closed_pipe() -> Stdio {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    Stdio::from(writer)
}

#[test]
fn small_output_into_a_closed_pipe_exits_quietly() {
    // Regression: `ptx-opt --list-passes | true` panicked in println!.
    let (input, _) = sample();
    for args in [&["--list-passes"][..], &[input.to_str().expect("UTF-8 path")][..]] {
        let output = Command::new(env!("CARGO_BIN_EXE_ptx-opt"))
            .args(args)
            .stdin(Stdio::null())
            .stdout(closed_pipe())
            .stderr(Stdio::piped())
            .output()
            .expect("ptx-opt runs");
        assert_eq!(output.status.code(), Some(0), "ptx-opt {args:?}: {}", stderr_of(&output));
        assert!(output.stderr.is_empty(), "ptx-opt {args:?}: {}", stderr_of(&output));
    }
}

#[test]
fn diagnostics_into_a_closed_pipe_keep_the_exit_status() {
    let bad = testdata("parse-errors").join("missing-semicolon.ptx");
    let cases: [(&[&str], i32); 3] =
        [(&[bad.to_str().expect("UTF-8 path")], 1), (&["missing.ptx"], 1), (&["--threads", "0", "x.ptx"], 2)];
    for (args, status) in cases {
        let output = Command::new(env!("CARGO_BIN_EXE_ptx-opt"))
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(closed_pipe())
            .output()
            .expect("ptx-opt runs");
        assert_eq!(output.status.code(), Some(status), "ptx-opt {args:?} with standard error closed");
        assert!(output.stdout.is_empty());
    }
}

#[test]
fn emits_control_flow_and_def_use_graphs() {
    let input = testdata("passes").join("fold-prmt").join("trap-selector-in-two-branches.ptx");
    let input = input.to_str().expect("UTF-8 path");
    // Two arms joining: the join block has two predecessors.
    check(
        &["--emit=cfg-dot", input],
        0,
        &["// function trap_selector_in_two_branches", "digraph {", "label = \"branch\"", "label = \"fall\""],
        "",
    );
    // Both movs of the selector reach the prmt.
    check(
        &["--emit=defuse-dot", input],
        0,
        &[
            "i7 [label=\"mov.u32 %r3, 0x3210;\"]",
            "i9 [label=\"mov.u32 %r3, 0x7654;\"]",
            "i7 -> i10 [label=\"%r3\"]",
            "i9 -> i10 [label=\"%r3\"]",
        ],
        "",
    );
    check(&["--emit=callgraph", input], 2, &[], "invalid value 'callgraph'");
}

/// Regressions: `-o` renamed its temporary file over whatever the path
/// named, so `-o /dev/null` (as root) replaced the device with a regular
/// file, `-o link.ptx` replaced the symbolic link instead of its target, and
/// every output got the temporary file's private mode 0600.
#[cfg(unix)]
#[test]
fn output_keeps_links_special_files_and_permissions() {
    use std::os::unix::fs::{FileTypeExt, PermissionsExt};
    let (input, bytes) = sample();
    let input = input.to_str().expect("UTF-8 path");
    let dir = tempfile::tempdir().expect("scratch directory");
    let mode = |name: &str| std::fs::metadata(dir.path().join(name)).expect("exists").permissions().mode() & 0o777;

    // A new file gets the mode any new file gets (0666 less the umask).
    std::fs::write(dir.path().join("reference"), "").expect("writable scratch directory");
    assert_eq!(ptx_opt(dir.path(), &[input, "-o", "new.ptx"], b"").status.code(), Some(0));
    assert_eq!(mode("new.ptx"), mode("reference"), "mode of a new output file");

    // An existing file keeps its mode.
    std::fs::write(dir.path().join("old.ptx"), "old").expect("writable scratch directory");
    std::fs::set_permissions(dir.path().join("old.ptx"), std::fs::Permissions::from_mode(0o640)).expect("chmod");
    assert_eq!(ptx_opt(dir.path(), &[input, "-o", "old.ptx"], b"").status.code(), Some(0));
    assert_eq!(mode("old.ptx"), 0o640, "an existing file keeps its mode");
    assert_eq!(std::fs::read(dir.path().join("old.ptx")).expect("readable"), bytes);

    // A symbolic link stays a link; the file it names gets the output.
    std::os::unix::fs::symlink("target.ptx", dir.path().join("link.ptx")).expect("symlink");
    std::fs::write(dir.path().join("target.ptx"), "old").expect("writable scratch directory");
    assert_eq!(ptx_opt(dir.path(), &[input, "-o", "link.ptx"], b"").status.code(), Some(0));
    let link = std::fs::symlink_metadata(dir.path().join("link.ptx")).expect("link exists");
    assert!(link.file_type().is_symlink(), "-o replaced the symbolic link");
    assert_eq!(std::fs::read(dir.path().join("target.ptx")).expect("readable"), bytes);

    // A FIFO (standing in for /dev/null and other special files) is written
    // into, not replaced.
    let fifo = dir.path().join("fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo runs");
    assert!(made.success(), "mkfifo");
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).expect("the FIFO is readable"))
    };
    assert_eq!(ptx_opt(dir.path(), &[input, "-o", "fifo"], b"").status.code(), Some(0));
    // Checked before joining: had the FIFO been replaced, the reader would
    // wait forever (it is then left behind and the test fails here).
    let kind = std::fs::symlink_metadata(&fifo).expect("still there").file_type();
    assert!(kind.is_fifo(), "-o replaced the FIFO with a {kind:?}");
    assert_eq!(reader.join().expect("reader finished"), bytes, "the output went through the FIFO");
    assert!(!listing(dir.path()).iter().any(|n| n.starts_with(".ptx-opt-")), "no temporary file is left behind");
}

/// `--count-blocks-map`: each instrumented kernel's array and, per counter,
/// the input line of its block's first instruction (null for a block
/// without one); a usage error without count-blocks in the pipeline.
#[test]
fn count_blocks_map_names_each_counter_s_block() {
    let input = testdata("passes").join("count-blocks").join("branches-and-guards.ptx");
    let input = input.to_str().expect("UTF-8 path");
    let dir = tempfile::tempdir().expect("scratch directory");
    let output =
        ptx_opt(dir.path(), &["--passes=count-blocks", "--count-blocks-map=map.json", "-o", "out.ptx", input], b"");
    assert_eq!(output.status.code(), Some(0), "{}", stderr_of(&output));
    let map = std::fs::read_to_string(dir.path().join("map.json")).expect("the map was written");
    assert_eq!(
        map,
        "{\"kernels\":[{\"kernel\":\"branches_and_guards\",\"array\":\"__ptxopt_blocks_branches_and_guards\",\"blocks\":[\
         {\"block\":0,\"line\":26},{\"block\":1,\"line\":32},{\"block\":2,\"line\":34},{\"block\":3,\"line\":40},\
         {\"block\":4,\"line\":null}]}]}\n"
    );
    let out = std::fs::read_to_string(dir.path().join("out.ptx")).expect("the output was written");
    assert!(out.contains(".global .align 8 .u64 __ptxopt_blocks_branches_and_guards[5];"), "{out}");

    let output = ptx_opt(dir.path(), &["-O2", "--count-blocks-map=other.json", input], b"");
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr_of(&output).contains("--count-blocks-map needs count-blocks"), "{}", stderr_of(&output));
    assert!(!dir.path().join("other.json").exists());
}

/// `--ptx-version`, `--cuda` and `--print-requirements` on an NVRTC file
/// that says `.version 9.5` and needs 7.0 (its `.target sm_80`): lowered
/// to the version asked for with only that line changed, refused below
/// what the target needs with a located error and no output file.
#[test]
fn ptx_version_lowers_the_version_line_or_refuses_with_nothing_written() {
    let dir = tempfile::tempdir().expect("scratch directory");
    let input = corpus_file("nvrtc-13.5__quant_int8__sm_80.ptx");
    let source = std::fs::read_to_string(&input).expect("corpus file");
    let input = input.to_str().expect("utf-8 path");
    let written = |out: &str| std::fs::read_to_string(dir.path().join(out)).expect("output written");
    let status = ptx_opt(dir.path(), &["--ptx-version=min", input, "-o", "min.ptx"], b"");
    assert!(status.status.success(), "{}", stderr_of(&status));
    assert_eq!(written("min.ptx"), source.replacen(".version 9.5", ".version 7.0", 1));
    let status = ptx_opt(dir.path(), &["--cuda=11.4", input, "-o", "cuda.ptx"], b"");
    assert!(status.status.success(), "{}", stderr_of(&status));
    assert_eq!(written("cuda.ptx"), source.replacen(".version 9.5", ".version 7.4", 1));
    let refused = ptx_opt(dir.path(), &["--ptx-version=6.5", input, "-o", "low.ptx"], b"");
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        stderr_of(&refused).contains(":10:1: error: '.target sm_80' needs PTX 7.0, --ptx-version asks for 6.5"),
        "{}",
        stderr_of(&refused)
    );
    assert!(!dir.path().join("low.ptx").exists(), "nothing is written");
    let usage = ptx_opt(dir.path(), &["--ptx-version=seven", input, "-o", "bad.ptx"], b"");
    assert_eq!(usage.status.code(), Some(2), "{}", stderr_of(&usage));
    let report = ptx_opt(dir.path(), &["--print-requirements=json", input, "-o", "same.ptx"], b"");
    assert!(stderr_of(&report).starts_with(
        "{\"module\":{\"version\":\"7.0\",\"because\":\".target sm_80\",\"written\":\"9.5\",\"target\":\"sm_80\"},\"functions\":[{\"function\":\"quantize_per_tensor_int8\",\"version\":\"6.0\",\"because\":\"memory model (PTX 6.0)\",\"line\":"
    ), "{}", stderr_of(&report));
    assert_eq!(written("same.ptx"), source, "a report changes nothing");

    // Below what the cache hints need, after -O2: they are dropped, with a
    // counter and a remark each; a policy still read is refused by name.
    let cases = testdata("passes/lower-ptx-version");
    let hints = cases.join("cache-hints-dropped.ptx");
    let lowered = ptx_opt(
        dir.path(),
        &["-O2", "--ptx-version=7.0", "--stats", "--remarks=-", hints.to_str().unwrap(), "-o", "hints.ptx"],
        b"",
    );
    assert!(lowered.status.success(), "{}", stderr_of(&lowered));
    let (err, out) = (stderr_of(&lowered), written("hints.ptx"));
    assert!(
        out.contains("\n.version 7.0\n") && !out.contains(".L2::cache_hint") && !out.contains("\tcreatepolicy"),
        "{out}"
    );
    assert!(err.contains("lower-ptx-version           8 hints-dropped"), "{err}");
    assert_eq!(err.matches("cache hints dropped (they change what caches keep, not values)").count(), 8, "{err}");
    let policy = cases.join("policy-read-elsewhere.ptx");
    let refused = ptx_opt(dir.path(), &["--cuda=11.0", policy.to_str().unwrap(), "-o", "policy.ptx"], b"");
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        stderr_of(&refused).contains(":18:2: error: 'createpolicy' needs PTX 7.4, --ptx-version asks for 7.0"),
        "{}",
        stderr_of(&refused)
    );
    assert!(!dir.path().join("policy.ptx").exists(), "nothing is written");
}
