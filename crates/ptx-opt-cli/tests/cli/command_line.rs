//! What users of `opt`, `wasm-opt` and `clang` type: `-o -`, `-passes=`,
//! the `-O` spellings, `--check` and its exit status 3, `--print-changed`,
//! `--filter-function` and the `--print-after` dumps.

use crate::{ptx_opt, stderr_of, testdata};
use std::path::PathBuf;
use std::process::Output;

/// A kernel the -O2 pipeline rewrites (two passes change it).
fn rewritten() -> PathBuf {
    testdata("examples").join("narrow_loads.ptx")
}

/// A kernel no pass changes.
fn untouched() -> PathBuf {
    testdata("parse").join("registers.ptx")
}

fn run(args: &[&str]) -> Output {
    let dir = tempfile::tempdir().expect("scratch directory");
    ptx_opt(dir.path(), args, b"")
}

fn stdout_of(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn path(p: &std::path::Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

#[test]
fn dash_output_is_standard_output() {
    let input = rewritten();
    let reference = run(&["-O2", path(&input)]);
    assert_eq!(reference.status.code(), Some(0), "{}", stderr_of(&reference));
    assert!(stdout_of(&reference).contains("cvt.pack.sat"));
    for spelling in [&["-o", "-"][..], &["-o-"][..]] {
        let dir = tempfile::tempdir().expect("scratch directory");
        let mut args = vec!["-O2", path(&input)];
        args.extend_from_slice(spelling);
        let output = ptx_opt(dir.path(), &args, b"");
        assert_eq!(output.status.code(), Some(0), "{args:?}: {}", stderr_of(&output));
        assert_eq!(output.stdout, reference.stdout, "{args:?}");
        assert!(std::fs::read_dir(dir.path()).unwrap().next().is_none(), "{args:?} created a file named '-'");
    }
}

#[test]
fn llvm_passes_spelling_is_accepted() {
    let input = rewritten();
    let llvm = run(&["-passes=combine-cvt-pack,dce", path(&input)]);
    let ours = run(&["--passes=combine-cvt-pack,dce", path(&input)]);
    assert_eq!(llvm.status.code(), Some(0), "{}", stderr_of(&llvm));
    assert_eq!(llvm.stdout, ours.stdout);
    let separate = run(&["-passes", "combine-cvt-pack,dce", path(&input)]);
    assert_eq!(separate.stdout, ours.stdout);
    let unknown = run(&["-passes=no-such-pass", path(&input)]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(stderr_of(&unknown).contains("unknown pass 'no-such-pass'"));
}

#[test]
fn optimization_level_spellings() {
    let input = rewritten();
    let o2 = run(&["-O2", path(&input)]);
    for alias in ["-O3", "-Os"] {
        let output = run(&[alias, path(&input)]);
        assert_eq!(output.status.code(), Some(0), "{alias}: {}", stderr_of(&output));
        assert_eq!(output.stdout, o2.stdout, "{alias} is -O2");
    }
    // A bare -O does not take the file name as its level.
    for args in [&["-O", path(&input)][..], &[path(&input), "-O"][..], &["-O", "2", path(&input)][..]] {
        let output = run(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(stderr_of(&output).contains("-O needs a level"), "{args:?}: {}", stderr_of(&output));
        assert!(output.stdout.is_empty());
    }
    for level in ["-O4", "-O5", "-Oz", "-Ofast"] {
        let output = run(&[level, path(&input)]);
        assert_eq!(output.status.code(), Some(2), "{level}");
        assert!(stderr_of(&output).contains("is not a level"), "{level}: {}", stderr_of(&output));
    }
    // After `--` a file may be called -O.
    let dash_o = run(&["--", "-O"]);
    assert_eq!(dash_o.status.code(), Some(1));
    assert!(stderr_of(&dash_o).contains("cannot read '-O'"), "{}", stderr_of(&dash_o));
}

#[test]
fn help_documents_exit_statuses_and_level_aliases() {
    let help = stdout_of(&run(&["--help"]));
    for needle in ["Exit status:", "  3  --check", "-O3 and -Os: -O2", "--check", "--print-changed"] {
        assert!(help.contains(needle), "--help lacks {needle:?}:\n{help}");
    }
}

#[test]
fn check_exits_3_naming_changed_functions_and_writes_nothing() {
    let input = rewritten();
    let dir = tempfile::tempdir().expect("scratch directory");
    let output = ptx_opt(dir.path(), &["--check", "-O2", path(&input)], b"");
    assert_eq!(output.status.code(), Some(3), "{}", stderr_of(&output));
    assert!(output.stdout.is_empty());
    assert_eq!(stderr_of(&output), format!("{}: would change function 'narrow_loads'\n", input.display()));
    assert!(std::fs::read_dir(dir.path()).unwrap().next().is_none());

    for (args, file) in [(&["--check", "-O2"][..], untouched()), (&["--check", "-O0"][..], rewritten())] {
        let mut args = args.to_vec();
        args.push(path(&file));
        let output = run(&args);
        assert_eq!(output.status.code(), Some(0), "{args:?}: {}", stderr_of(&output));
        assert!(output.stdout.is_empty() && output.stderr.is_empty(), "{args:?}");
    }
    // Invalid input is still 1, and --check writes no output file.
    let bad = run(&["--check", "-O2", path(&testdata("parse-errors").join("bad-token-hash.ptx"))]);
    assert_eq!(bad.status.code(), Some(1), "{}", stderr_of(&bad));
    let conflict = run(&["--check", "-O2", "-o", "out.ptx", path(&input)]);
    assert_eq!(conflict.status.code(), Some(2));
}

#[test]
fn print_changed_shows_a_diff_per_pass_and_function() {
    let input = rewritten();
    let output = run(&["-O2", "--print-changed", path(&input)]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr_of(&output));
    assert_eq!(output.stdout, run(&["-O2", path(&input)]).stdout, "the output is unaffected");
    let stderr = stderr_of(&output);
    insta::assert_snapshot!("print_changed_narrow_loads", stderr);
    // Only the passes that changed something print.
    let banners: Vec<&str> = stderr.lines().filter(|l| l.starts_with("// ***")).collect();
    assert_eq!(
        banners,
        ["// *** combine-cvt-pack changed narrow_loads ***", "// *** fold-byte-gathers changed narrow_loads ***"]
    );

    let unchanged = run(&["-O2", "--print-changed", path(&untouched())]);
    assert_eq!(unchanged.status.code(), Some(0));
    assert!(unchanged.stderr.is_empty(), "nothing changed, nothing printed: {}", stderr_of(&unchanged));

    let filtered = run(&["-O2", "--print-changed", "--filter-function=other", path(&input)]);
    assert!(filtered.stderr.is_empty(), "{}", stderr_of(&filtered));
}

#[test]
fn print_after_dumps_are_ptx_with_comment_banners() {
    let input = rewritten();
    let output = run(&["-O2", "--print-after=dce", path(&input)]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr_of(&output));
    let stderr = stderr_of(&output);
    let dump = stderr.strip_prefix("// *** IR after dce ***\n").expect("a comment banner first");
    assert_eq!(dump, stdout_of(&output), "the dump after the last pass is the output");
    // The dump is PTX the tool reads back.
    let again = ptx_opt(std::path::Path::new("."), &["-"], stderr.as_bytes());
    assert_eq!(again.status.code(), Some(0), "{}", stderr_of(&again));

    let one = run(&["-O2", "--print-after=dce", "--filter-function=narrow_loads", path(&input)]);
    let stderr = stderr_of(&one);
    assert!(stderr.starts_with("// *** IR after dce ***\n.visible .entry narrow_loads("), "{stderr}");
    assert!(!stderr.contains(".version"), "only the function: {stderr}");
    let none = run(&["-O2", "--print-after=dce", "--filter-function=nothing", path(&input)]);
    assert_eq!(stderr_of(&none), "// *** IR after dce ***\n");
}

#[test]
fn library_refuses_levels_that_do_not_exist() {
    let ptx = std::fs::read_to_string(untouched()).expect("readable");
    for level in [3u8, 5, 255] {
        let err = ptx_opt::optimize(&ptx, &ptx_opt::Options::with_level(level)).expect_err("no such level");
        assert_eq!(err.kind, ptx_opt::ErrorKind::UnknownLevel(level));
        assert!(ptx_opt::Options::try_with_level(level).is_err());
    }
    for level in 0..=ptx_opt::MAX_LEVEL {
        assert!(ptx_opt::optimize(&ptx, &ptx_opt::Options::with_level(level)).is_ok());
    }
}

#[test]
fn remarks_as_clang_text() {
    let input = rewritten();
    let output = run(&["-O2", "--remarks=-", "--remarks-format=text", path(&input)]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr_of(&output));
    let file = input.display();
    assert_eq!(
        stderr_of(&output),
        format!(
            "{file}:37:2: remark: 2 saturations packed with one cvt.pack.sat.s16 in 'narrow_loads' [combine-cvt-pack]\n\
             {file}:34:2: remark: byte gather made a copy in 'narrow_loads' [fold-byte-gathers]\n"
        )
    );
}

#[test]
fn remarks_name_mangled_functions_demangled() {
    let source =
        std::fs::read_to_string(rewritten()).expect("readable").replace("narrow_loads", "_Z12narrow_loadsPhPi");
    let dir = tempfile::tempdir().expect("scratch directory");
    let output =
        ptx_opt(dir.path(), &["-O2", "--remarks=-", "--remarks-format=text", "-o", "/dev/null"], source.as_bytes());
    assert_eq!(output.status.code(), Some(0), "{}", stderr_of(&output));
    let stderr = stderr_of(&output);
    assert!(
        stderr.contains(" in 'narrow_loads(unsigned char*, int*)' (_Z12narrow_loadsPhPi) [combine-cvt-pack]\n"),
        "{stderr}"
    );
    let json = ptx_opt(dir.path(), &["-O2", "--remarks=-", "-o", "/dev/null"], source.as_bytes());
    let first: serde_json::Value = serde_json::from_str(stderr_of(&json).lines().next().expect("a remark")).unwrap();
    assert_eq!(first["function"], "_Z12narrow_loadsPhPi");
    assert_eq!(first["demangled"], "narrow_loads(unsigned char*, int*)");
}

#[test]
fn stats_as_json() {
    let output = run(&["-O2", "--stats=json", path(&rewritten())]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr_of(&output));
    let stats: serde_json::Value = serde_json::from_str(&stderr_of(&output)).expect("one JSON object");
    let passes = stats["passes"].as_array().expect("a list of passes");
    let names: Vec<&str> = passes.iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names, ptx_opt::pipeline(2));
    assert_eq!(passes[0]["changed"], true);
    assert_eq!(passes[0]["counters"]["combined"], 1);
    // --stats alone is the table, and takes no argument after a space.
    let table = run(&["-O2", "--stats", path(&rewritten())]);
    assert_eq!(table.status.code(), Some(0), "{}", stderr_of(&table));
    assert!(stderr_of(&table).starts_with("=== ptx-opt statistics ===\n"));
}

#[test]
fn time_passes_lists_every_step_with_shares() {
    let output = run(&["-O2", "--time-passes", path(&rewritten())]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr_of(&output));
    assert_eq!(output.stdout, run(&["-O2", path(&rewritten())]).stdout);
    let stderr = stderr_of(&output);
    let rows: Vec<Vec<&str>> = stderr.lines().skip(1).map(|l| l.split_whitespace().collect()).collect();
    let steps: Vec<&str> = rows.iter().map(|r| r[0]).collect();
    let mut expected = vec!["parse", "verify"];
    expected.extend(ptx_opt::pipeline(2));
    expected.extend(["print", "total"]);
    assert_eq!(steps, expected, "{stderr}");
    let shares: Vec<f64> = rows.iter().map(|r| r[3].trim_end_matches('%').parse().expect("a percentage")).collect();
    let sum: f64 = shares[..shares.len() - 1].iter().sum();
    assert!((sum - 100.0).abs() < 1.0, "{stderr}");
    assert_eq!(rows.last().unwrap()[3], "100.0%");
    let unverified = run(&["-O1", "--no-verify", "--time-passes", path(&rewritten())]);
    let steps: Vec<String> =
        stderr_of(&unverified).lines().skip(1).map(|l| l.split_whitespace().next().unwrap().to_string()).collect();
    assert_eq!(steps, ["parse", "fold-prmt", "dce", "print", "total"]);
}

#[test]
fn version_names_the_commit() {
    let stdout = stdout_of(&run(&["--version"]));
    let commit = stdout
        .strip_prefix(&format!("ptx-opt {} (commit ", env!("CARGO_PKG_VERSION")))
        .and_then(|rest| rest.strip_suffix(")\n"))
        .unwrap_or_else(|| panic!("unexpected --version: {stdout}"));
    // A checkout gives a hexadecimal commit; a build outside one says so.
    assert!(commit == "unknown" || (commit.len() == 12 && commit.chars().all(|c| c.is_ascii_hexdigit())), "{stdout}");
}

#[test]
fn completions_and_man_page_for_packagers() {
    let bash = run(&["--completions=bash"]);
    assert_eq!(bash.status.code(), Some(0), "{}", stderr_of(&bash));
    let script = stdout_of(&bash);
    for flag in ["--passes", "--check", "--print-changed", "--remarks-format", "--color"] {
        assert!(script.contains(flag), "bash completion lacks {flag}");
    }
    // The script is valid bash.
    let dir = tempfile::tempdir().expect("scratch directory");
    let file = dir.path().join("ptx-opt.bash");
    std::fs::write(&file, &script).expect("writable");
    let syntax = std::process::Command::new("bash").arg("-n").arg(&file).output().expect("bash runs");
    assert!(syntax.status.success(), "{}", String::from_utf8_lossy(&syntax.stderr));
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        let output = run(&[&format!("--completions={shell}")]);
        assert_eq!(output.status.code(), Some(0), "{shell}");
        assert!(stdout_of(&output).contains("print-changed"), "{shell}");
    }
    assert_eq!(run(&["--completions=tcsh"]).status.code(), Some(2));

    let man = stdout_of(&run(&["--man"]));
    assert!(man.starts_with(".ie \\n(.g .ds Aq"), "{man}");
    for needle in [".TH ptx-opt 1", ".SH OPTIONS", "\\-\\-check", "\\-\\-error\\-limit"] {
        assert!(man.contains(needle), "man page lacks {needle}");
    }
    // Hidden from --help: they are for packagers.
    let help = stdout_of(&run(&["--help"]));
    assert!(!help.contains("--completions") && !help.contains("--man"), "{help}");
}

/// A kernel combine-cvt-pack would rewrite, on sm_70 (no cvt.pack there).
fn gated_off() -> PathBuf {
    testdata("passes").join("combine-cvt-pack").join("gated-off-below-sm72.ptx")
}

#[test]
fn pipeline_text_with_default_pipelines_and_pass_options() {
    let input = rewritten();
    let o2 = run(&["-O2", path(&input)]);
    for text in ["default<O2>", "default<O3>", " default<Os> ,", "-passes=default<O2>"] {
        let arg = if text.starts_with('-') { text.to_string() } else { format!("--passes={text}") };
        let output = run(&[&arg, path(&input)]);
        assert_eq!(output.status.code(), Some(0), "{text}: {}", stderr_of(&output));
        assert_eq!(output.stdout, o2.stdout, "{text} is -O2");
    }
    let mixed = run(&["--passes=legalize-relaxed,default<O1>", "--stats=json", path(&input)]);
    assert_eq!(mixed.status.code(), Some(0), "{}", stderr_of(&mixed));
    let stats: serde_json::Value = serde_json::from_str(&stderr_of(&mixed)).expect("JSON");
    let names: Vec<&str> = stats["passes"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["legalize-relaxed", "fold-prmt", "dce"]);

    // A pass option: fold-byte-gathers keeps a gather that saves fewer than
    // min-saving instructions (default 2) as it was.
    let trap = testdata("passes").join("fold-byte-gathers").join("trap-pieces-read-elsewhere.ptx");
    let original = std::fs::read(&trap).expect("readable");
    for (text, changes) in [
        ("fold-byte-gathers", false),
        ("fold-byte-gathers<min-saving=2>", false),
        ("fold-byte-gathers<min-saving=0>", true),
        ("fold-byte-gathers< min-saving = 0 ;>", true),
    ] {
        let output = run(&[&format!("--passes={text}"), path(&trap)]);
        assert_eq!(output.status.code(), Some(0), "{text}: {}", stderr_of(&output));
        assert_eq!(output.stdout != original, changes, "{text}");
        if changes {
            assert!(stdout_of(&output).contains("prmt.b32"), "{text}");
        }
    }
    // Bad texts: usage errors that say what is wrong.
    for (text, says) in [
        ("dce<aggressive>", "pass 'dce' takes no options"),
        ("fold-byte-gathers<min-saving=x>", "min-saving takes a number"),
        ("fold-byte-gathers<speed=2>", "unknown option 'speed=2'"),
        ("default<O9>", "default<...> takes a level"),
        ("default", "default<...> takes a level"),
        ("dce<", "'<' without '>'"),
        ("no-such-pass<x>", "unknown pass 'no-such-pass'"),
    ] {
        let output = run(&[&format!("--passes={text}"), path(&input)]);
        assert_eq!(output.status.code(), Some(2), "{text}");
        assert!(stderr_of(&output).contains(says), "{text}: {}", stderr_of(&output));
        assert!(output.stdout.is_empty());
    }
    // --help lists the options.
    let help = stdout_of(&run(&["--help"]));
    assert!(help.contains("options (fold-byte-gathers<...>): min-saving=N: "), "{help}");
    assert!(help.contains("default<O0|O1|O2|O3|Os>"), "{help}");
}

#[test]
fn target_overrides_what_the_passes_gate_on() {
    let input = gated_off();
    let original = std::fs::read_to_string(&input).expect("readable");
    // As written (sm_70) the pass is gated off: the output is the input.
    let plain = run(&["-O2", path(&input)]);
    assert_eq!(plain.status.code(), Some(0), "{}", stderr_of(&plain));
    assert_eq!(stdout_of(&plain), original);
    // Gating on sm_80 with the header as written would give PTX that ptxas
    // rejects ('cvt.pack requires .target sm_72'): an error, no output.
    let dir = tempfile::tempdir().expect("scratch directory");
    let refused = ptx_opt(dir.path(), &["-O2", "--target=sm_80", path(&input), "-o", "out.ptx"], b"");
    assert_eq!(refused.status.code(), Some(1), "{}", stderr_of(&refused));
    let stderr = stderr_of(&refused);
    assert!(stderr.contains("cvt.pack requires .target sm_72") && stderr.contains("--set-target"), "{stderr}");
    assert!(!dir.path().join("out.ptx").exists());
    // --set-target writes the target into the header; only that line changes
    // besides the rewrite.
    let set = run(&["-O2", "--target=sm_80", "--set-target", "--stats=json", path(&input)]);
    assert_eq!(set.status.code(), Some(0), "{}", stderr_of(&set));
    let out = stdout_of(&set);
    assert!(out.contains("\n.target sm_80\n") && out.contains("cvt.pack.sat.s16.s32"), "{out}");
    assert!(out.starts_with("// sm_70 has no cvt.pack"), "comments kept: {out}");
    let stats: serde_json::Value = serde_json::from_str(&stderr_of(&set)).expect("JSON");
    assert_eq!(stats["passes"][0]["counters"]["combined"], 1);
    // The same through the path that keeps the module (--time-passes,
    // --print-after): the same text, and dumps with the new header.
    let kept = run(&["-O2", "--target=sm_80", "--set-target", "--time-passes", "--print-after=dce", path(&input)]);
    assert_eq!(stdout_of(&kept), out);
    assert!(stderr_of(&kept).starts_with("// *** IR after dce ***\n// sm_70 has no cvt.pack"), "{}", stderr_of(&kept));
    assert!(stderr_of(&kept).contains("\n.target sm_80\n"), "{}", stderr_of(&kept));
    // --check counts a new .target as a change, even where no pass changes anything.
    let check = run(&["--check", "--target=sm_90", "--set-target", path(&input)]);
    assert_eq!(check.status.code(), Some(3), "{}", stderr_of(&check));
    assert!(stderr_of(&check).contains("would change '.target sm_70'"), "{}", stderr_of(&check));
    let same = run(&["--check", "--target=sm_70", "--set-target", path(&input)]);
    assert_eq!(same.status.code(), Some(0), "{}", stderr_of(&same));
    // A target below what the file says gates a pass off; a pass that does
    // not depend on the target is unaffected.
    let narrow = rewritten();
    let low = run(&["-O2", "--target=sm_70", "--stats=json", path(&narrow)]);
    assert_eq!(low.status.code(), Some(0), "{}", stderr_of(&low));
    let stats: serde_json::Value = serde_json::from_str(&stderr_of(&low)).expect("JSON");
    assert_eq!(stats["passes"][0]["counters"]["gated-off"], 1);
    assert!(!stdout_of(&low).contains("cvt.pack"));
    assert!(stdout_of(&low).contains(".target sm_80"), "the header stays as written");
    // Bad spellings and --set-target alone are usage errors.
    for args in [&["--target=sm80"][..], &["--target=compute_80"], &["--target=sm_9"], &["--set-target"]] {
        let mut all = args.to_vec();
        all.push(path(&input));
        let output = run(&all);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {}", stderr_of(&output));
        assert!(output.stdout.is_empty());
    }
    assert!(stderr_of(&run(&["--target=sm80", path(&input)])).contains("invalid target 'sm80'"));
}

#[test]
fn missed_remarks_with_the_reason_behind_a_flag() {
    let input = gated_off();
    let file = input.display().to_string();
    // Without the flag: only rewrites made (none here).
    let quiet = run(&["-O2", "--remarks=-", "--remarks-format=text", path(&input)]);
    assert_eq!(stderr_of(&quiet), "");
    let text = run(&["-O2", "--remarks=-", "--remarks-format=text", "--remarks-missed", path(&input)]);
    assert_eq!(text.status.code(), Some(0), "{}", stderr_of(&text));
    assert_eq!(
        stderr_of(&text),
        format!(
            "{file}:7:1: remark: missed: not run: cvt.pack.sat needs PTX 6.5 and sm_72, the module has PTX 8.0 and sm_70 \
             in 'gated_off_below_sm72' [combine-cvt-pack]\n"
        )
    );
    let json = run(&["-O2", "--remarks=-", "--remarks-missed", path(&input)]);
    let line: serde_json::Value = serde_json::from_str(stderr_of(&json).trim()).expect("one JSON line");
    assert_eq!(line["kind"], "missed");
    assert_eq!(line["pass"], "combine-cvt-pack");
    assert_eq!(line["line"], 7);
    assert!(line["message"].as_str().unwrap().contains("needs PTX 6.5 and sm_72"));
    // A site a pass looked at and left, with why; the rewrites made come first.
    let trap = testdata("passes").join("fold-byte-gathers").join("trap-pieces-read-elsewhere.ptx");
    let site =
        run(&["--passes=fold-byte-gathers", "--remarks=-", "--remarks-format=text", "--remarks-missed", path(&trap)]);
    assert!(
        stderr_of(&site)
            .contains(":24:2: remark: missed: byte gather left alone: one prmt would save fewer than 2 instructions"),
        "{}",
        stderr_of(&site)
    );
    let memory = testdata("passes").join("fold-prmt").join("trap-selector-from-memory.ptx");
    let prmt = run(&["-O2", "--remarks=-", "--remarks-format=text", "--remarks-missed", path(&memory)]);
    assert!(
        stderr_of(&prmt).contains(":21:2: remark: missed: prmt left alone: its selector is not a known constant in"),
        "{}",
        stderr_of(&prmt)
    );
    // The flag needs --remarks.
    let usage = run(&["-O2", "--remarks-missed", path(&input)]);
    assert_eq!(usage.status.code(), Some(2));
}

/// The README's usage section names every flag `--help` lists (and the
/// hidden ones for packagers), and the exit codes 0 to 3.
#[test]
fn readme_usage_documents_every_flag_and_exit_code() {
    let readme = std::fs::read_to_string(testdata("..").join("README.md")).expect("README.md");
    let start = readme.find("## Using it").expect("a usage section");
    let usage = &readme[start..start + readme[start..].find("\n## ").expect("a next section")];
    let help = stdout_of(&run(&["--help"]));
    // The flag lines of --help: "  -o <FILE>", "      --stats[=<FORMAT>]", "  -h, --help".
    let mut flags: Vec<String> = help
        .lines()
        .filter(|l| l.trim_start().starts_with('-') && !l.trim_start().starts_with("- "))
        .flat_map(|l| {
            l.split([',', ' '])
                .filter(|w| w.starts_with('-'))
                .map(|w| w.split(['=', '[', '<']).next().unwrap_or(w).trim_end_matches(':').to_string())
                .collect::<Vec<_>>()
        })
        .collect();
    flags.extend(["--completions".to_string(), "--man".to_string()]);
    assert!(flags.len() > 25, "{flags:?}");
    for flag in &flags {
        assert!(usage.contains(flag.as_str()), "README's usage section does not document {flag}");
    }
    for code in ["0 success", "1 invalid\ninput", "2\nusage", "3 `--check`"] {
        assert!(usage.contains(code), "README's exit codes lack {code:?}");
    }
}

/// Packaging: both licence files Cargo.toml names, and a version on every
/// path dependency (crates.io refuses a package whose path dependencies
/// have none).
#[test]
fn licences_and_versions_on_path_dependencies() {
    let root = testdata("..");
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).expect("Cargo.toml");
    assert!(manifest.contains("license = \"MIT OR Apache-2.0\""));
    for licence in ["LICENSE-MIT", "LICENSE-APACHE"] {
        assert!(root.join(licence).is_file(), "{licence}");
    }
    let manifests = [
        root.join("Cargo.toml"),
        root.join("crates/ptx-opt-capi/Cargo.toml"),
        root.join("examples/custom-pass/Cargo.toml"),
    ];
    for path in manifests {
        let text = std::fs::read_to_string(&path).expect("a manifest");
        for line in text.lines().filter(|l| l.contains("path = \"") && l.contains('{')) {
            assert!(line.contains("version = \""), "{}: a path dependency without a version: {line}", path.display());
        }
    }
}
