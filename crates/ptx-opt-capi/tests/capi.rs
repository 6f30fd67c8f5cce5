//! The C API as C programs use it: `examples/c/optimize.c` and
//! `tests/c/api.c` are compiled with the system C compiler (`cc`, or `$CC`)
//! against the real `libptx_opt.a` and `libptx_opt.so` and run.
//!
//! Cargo does not build a crate's cdylib or staticlib for its integration
//! tests, so this test builds them itself, once per process: `cargo build -p
//! ptx-opt-capi` with the profile and target directory of the running test
//! binary (found from its own path, `target/<profile>/deps/capi-*`). That
//! works on a fresh clone and never uses a stale library. The expected output
//! is computed with the `ptx-opt` library directly, in this process.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn workspace_dir() -> PathBuf {
    crate_dir().join("../..")
}

fn corpus_file(name: &str) -> PathBuf {
    workspace_dir().join("../shared/corpus/public").join(name)
}

fn example_file() -> PathBuf {
    workspace_dir().join("testdata/examples/narrow_loads.ptx")
}

/// `target/<profile>` holding a freshly built `libptx_opt.a` and `libptx_opt.so`.
fn library_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let exe = std::env::current_exe().expect("the test binary knows its path");
        let profile_dir = exe.parent().and_then(Path::parent).expect("test binary in target/<profile>/deps");
        let target_dir = profile_dir.parent().expect("target/<profile> has a parent");
        let profile = match profile_dir.file_name().and_then(|n| n.to_str()) {
            Some("debug") => "dev".to_string(),
            Some(name) => name.to_string(),
            None => panic!("no profile directory in {}", exe.display()),
        };
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| env!("CARGO").into());
        let output = Command::new(cargo)
            .args(["build", "--offline", "-p", "ptx-opt-capi", "--profile", &profile, "--target-dir"])
            .arg(target_dir)
            .current_dir(workspace_dir())
            .output()
            .expect("cargo runs");
        assert!(
            output.status.success(),
            "cargo build -p ptx-opt-capi failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        for lib in ["libptx_opt.a", "libptx_opt.so"] {
            assert!(profile_dir.join(lib).is_file(), "{lib} was not built in {}", profile_dir.display());
        }
        // A program linked with -lptx_opt asks the loader for the SONAME, which
        // an installation links (scripts/install-capi.sh); here, beside the build.
        #[cfg(target_os = "linux")]
        match std::os::unix::fs::symlink("libptx_opt.so", profile_dir.join(soname())) {
            Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => panic!("SONAME link: {e}"),
            _ => {}
        }
        profile_dir.to_path_buf()
    })
}

/// The SONAME build.rs gives the shared library.
fn soname() -> String {
    match (env!("CARGO_PKG_VERSION_MAJOR"), env!("CARGO_PKG_VERSION_MINOR")) {
        ("0", minor) => format!("libptx_opt.so.0.{minor}"),
        (major, _) => format!("libptx_opt.so.{major}"),
    }
}

/// How a program is linked with the library.
#[derive(Clone, Copy, Debug)]
enum Link {
    Static,
    Shared,
}

/// Compiles one C file against the library into `dir`.
fn compile(source: &Path, link: Link, dir: &Path) -> PathBuf {
    let lib = library_dir();
    let name = source.file_stem().and_then(|s| s.to_str()).expect("C file name");
    let exe = dir.join(format!("{name}-{link:?}"));
    let cc = std::env::var_os("CC").unwrap_or_else(|| "cc".into());
    let mut command = Command::new(cc);
    command
        .args(["-std=c99", "-D_POSIX_C_SOURCE=200809L", "-Wall", "-Wextra", "-Werror", "-pedantic", "-I"])
        .arg(crate_dir().join("include"))
        .arg(source)
        .arg("-o")
        .arg(&exe);
    match link {
        Link::Static => command.arg(lib.join("libptx_opt.a")).args(["-lpthread", "-ldl", "-lm"]),
        Link::Shared => {
            command.arg("-L").arg(lib).arg("-lptx_opt").arg(format!("-Wl,-rpath,{}", lib.display())).arg("-lpthread")
        }
    };
    let output = command.output().expect("the C compiler (cc, or $CC) runs");
    assert!(output.status.success(), "cc {}:\n{}", source.display(), String::from_utf8_lossy(&output.stderr));
    exe
}

fn run(exe: &Path, args: &[&Path], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(exe);
    command.args(args);
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().unwrap_or_else(|e| panic!("{} runs: {e}", exe.display()))
}

/// The output of `legalize-relaxed` computed by the Rust library.
fn expected(path: &Path) -> String {
    let source = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    facade::optimize(&source, &facade::Options::with_passes(["legalize-relaxed"]))
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .ptx
}

/// A module with a parse error on line 7, column 15.
const BROKEN: &str =
    ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\t.reg .b32 %r<3>;\n\tadd.s32 %r1, , %r2;\n}\n";

/// The first diagnostic of `BROKEN` as the library reports it: line, column, message.
fn broken_diagnostic() -> (usize, usize, String) {
    let error = facade::parse(BROKEN).expect_err("BROKEN does not parse");
    let first = error.diagnostics.first().expect("a located diagnostic");
    let (line, col) = facade::LineIndex::new(BROKEN).line_col(BROKEN, first.span.start as usize);
    (line, col, first.message.clone())
}

#[test]
fn c_example_prints_what_the_library_prints() {
    let dir = tempfile::tempdir().expect("scratch directory");
    let source = workspace_dir().join("examples/c/optimize.c");
    let inputs = [
        example_file(),
        corpus_file("nvrtc-13.5__quant_int8__sm_100.ptx"),
        corpus_file("clang-19__fp8_convert__sm_90.ptx"),
    ];
    for link in [Link::Static, Link::Shared] {
        let exe = compile(&source, link, dir.path());
        for input in &inputs {
            let output = run(&exe, &[input], &[]);
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert_eq!(output.status.code(), Some(0), "{link:?} {}: {stderr}", input.display());
            assert!(stderr.is_empty(), "{link:?} {}: {stderr}", input.display());
            let want = expected(input);
            let original = std::fs::read_to_string(input).expect("readable input");
            assert_ne!(want, original, "{} should be rewritten by legalize-relaxed", input.display());
            assert!(
                output.stdout == want.as_bytes(),
                "{link:?} {}: output differs from the library's",
                input.display()
            );
        }
    }
}

#[test]
fn c_example_reports_errors_like_a_compiler() {
    let dir = tempfile::tempdir().expect("scratch directory");
    let exe = compile(&workspace_dir().join("examples/c/optimize.c"), Link::Static, dir.path());
    let broken = dir.path().join("broken.ptx");
    std::fs::write(&broken, BROKEN).expect("scratch file");
    let output = run(&exe, &[&broken], &[]);
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    let (line, col, message) = broken_diagnostic();
    assert_eq!((line, col), (7, 15));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        format!("{}:{line}:{col}: error: {message}\n", broken.display())
    );

    let output = run(&exe, &[&example_file(), Path::new("no-such-pass")], &[]);
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    assert!(String::from_utf8_lossy(&output.stderr).contains("unknown pass 'no-such-pass'"));
    let output = run(&exe, &[&example_file(), Path::new("dce<x>")], &[]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("pass 'dce' takes no options"));
}

/// `for_driver`: a module written for a CUDA release's driver, or for a PTX
/// version (lowered with remarks, or refused with each instruction named),
/// as the library writes it.
#[test]
fn c_example_lowers_a_module_for_the_driver_it_is_told() {
    use facade::version::PtxVersion;
    let dir = tempfile::tempdir().expect("scratch directory");
    let exe = compile(&workspace_dir().join("examples/c/for_driver.c"), Link::Static, dir.path());
    let cases = workspace_dir().join("testdata/passes/lower-ptx-version");
    let runs: [(&[&str], PathBuf, Option<PtxVersion>); 4] = [
        (&["12.4"], corpus_file("nvrtc-13.5__loops__sm_80.ptx"), PtxVersion::for_cuda("12.4")),
        (&["--ptx-version", "min"], corpus_file("nvrtc-13.5__loops__sm_80.ptx"), PtxVersion::parse("min")),
        (&["--ptx-version", "7.0"], cases.join("cache-hints-dropped.ptx"), PtxVersion::parse("7.0")),
        (&["--ptx-version", "7.0"], cases.join("policy-read-elsewhere.ptx"), PtxVersion::parse("7.0")),
    ];
    for (args, input, version) in runs {
        let mut all: Vec<&Path> = args.iter().map(Path::new).collect();
        all.push(&input);
        let output = run(&exe, &all, &[]);
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        let source = std::fs::read_to_string(&input).expect("readable");
        let options = facade::Options { ptx_version: version, ..Default::default() };
        let name = input.display().to_string();
        match facade::optimize(&source, &options) {
            Ok(want) => {
                assert_eq!(output.status.code(), Some(0), "{args:?}: {stderr}");
                assert_eq!(output.stdout, want.ptx.as_bytes(), "{args:?}");
                assert_ne!(want.ptx, source, "{args:?}: the version changes");
                assert_eq!(stderr, facade::remarks_text(&name, &source, &want.run), "{args:?}");
            }
            Err(e) => {
                assert_eq!(output.status.code(), Some(1), "{args:?}: {stderr}");
                assert!(output.stdout.is_empty());
                assert!(
                    stderr.contains(": error: 'createpolicy' needs PTX 7.4, --ptx-version asks for 7.0"),
                    "{stderr}"
                );
                assert_eq!(e.kind, facade::ErrorKind::NeedsVersion("7.0".into()));
            }
        }
    }
    let output = run(&exe, &[Path::new("twelve"), &example_file()], &[]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("not a CUDA release such as 12.4: 'twelve'"));
    let output = run(&exe, &[Path::new("--ptx-version"), Path::new("7.9"), &example_file()], &[]);
    assert_eq!(output.status.code(), Some(2));
}

/// `optimize -v`: the version, the remarks (made and missed) and the counters.
#[test]
fn c_example_reports_what_the_run_did() {
    let dir = tempfile::tempdir().expect("scratch directory");
    let exe = compile(&workspace_dir().join("examples/c/optimize.c"), Link::Static, dir.path());
    let gated = workspace_dir().join("testdata/passes/combine-cvt-pack/gated-off-below-sm72.ptx");
    for (input, pipeline) in [(example_file(), "default<O2>"), (gated.clone(), "default<O2>")] {
        let output = run(&exe, &[Path::new("-v"), &input, Path::new(pipeline)], &[]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{stderr}");
        let options = facade::Options::with_pipeline(pipeline).expect("a pipeline");
        let source = std::fs::read_to_string(&input).expect("readable");
        let want = facade::optimize(&source, &options).expect("optimizes");
        assert_eq!(output.stdout, want.ptx.as_bytes());
        let name = input.display().to_string();
        let expected = format!(
            "ptx-opt {}: {} remarks\n{}{}{}",
            env!("CARGO_PKG_VERSION"),
            want.run.passes.iter().map(|p| p.stats.remarks.len()).sum::<usize>(),
            facade::remarks_text(&name, &source, &want.run),
            facade::missed_remarks_text(&name, &source, &want.run),
            facade::stats_json(&want.run)
        );
        assert_eq!(stderr, expected);
        if input == gated {
            assert!(stderr.contains(": remark: missed: not run: cvt.pack.sat needs PTX 6.5 and sm_72"), "{stderr}");
        } else {
            assert!(stderr.contains(": remark: ") && stderr.contains("\"changed\":true"), "{stderr}");
        }
    }
}

#[test]
fn c_api_contract_holds_from_c() {
    let dir = tempfile::tempdir().expect("scratch directory");
    let broken = dir.path().join("broken.ptx");
    std::fs::write(&broken, BROKEN).expect("scratch file");
    let (line, col, message) = broken_diagnostic();
    let (line, col) = (line.to_string(), col.to_string());
    let env =
        [("PTX_OPT_TEST_LINE", line.as_str()), ("PTX_OPT_TEST_COL", col.as_str()), ("PTX_OPT_TEST_MESSAGE", &message)];
    for link in [Link::Static, Link::Shared] {
        let exe = compile(&crate_dir().join("tests/c/api.c"), link, dir.path());
        let output = run(&exe, &[&example_file(), &broken], &env);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{link:?}:\n{stderr}");
        assert_eq!(String::from_utf8_lossy(&output.stdout), "ok\n", "{link:?}:\n{stderr}");
    }
}

#[test]
fn c_api_offers_what_the_command_line_offers() {
    let dir = tempfile::tempdir().expect("scratch directory");
    let source = crate_dir().join("tests/c/parity.c");
    for link in [Link::Static, Link::Shared] {
        let exe = compile(&source, link, dir.path());
        let output = run(&exe, &[&example_file()], &[]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{link:?}: {stderr}");
        assert_eq!(String::from_utf8_lossy(&output.stdout), "ok\n", "{link:?}: {stderr}");
    }
}

/// The value of `pkg-config --cflags --libs ptx_opt` for an installation,
/// from pkg-config when it is installed, else read from the .pc file the
/// way pkg-config reads it (variables substituted).
fn pkg_config_flags(pkgconfig_dir: &Path) -> Vec<String> {
    let from_tool = Command::new("pkg-config")
        .args(["--cflags", "--libs", "ptx_opt"])
        .env("PKG_CONFIG_PATH", pkgconfig_dir)
        .output();
    if let Ok(output) = from_tool {
        assert!(output.status.success(), "pkg-config: {}", String::from_utf8_lossy(&output.stderr));
        return String::from_utf8_lossy(&output.stdout).split_whitespace().map(String::from).collect();
    }
    let pc = std::fs::read_to_string(pkgconfig_dir.join("ptx_opt.pc")).expect("ptx_opt.pc");
    let mut vars: Vec<(String, String)> = Vec::new();
    let mut flags = Vec::new();
    for line in pc.lines() {
        let expand = |text: &str| vars.iter().fold(text.to_string(), |t, (k, v)| t.replace(&format!("${{{k}}}"), v));
        if let Some((key, value)) = line.split_once('=') {
            let value = expand(value);
            vars.push((key.to_string(), value));
        } else if let Some(value) = line.strip_prefix("Cflags: ").or_else(|| line.strip_prefix("Libs: ")) {
            flags.extend(expand(value).split_whitespace().map(String::from));
        }
    }
    flags
}

/// `pkg-config --cflags --libs ptx_opt` from the build tree (build.rs
/// writes `target/<profile>/pkgconfig/ptx_opt.pc`): a program compiled and
/// linked with those flags alone runs.
#[test]
fn pkg_config_works_from_the_build_tree() {
    let pkgconfig = library_dir().join("pkgconfig");
    let flags = pkg_config_flags(&pkgconfig);
    let include = format!("-I{}", crate_dir().join("include").display());
    assert!(flags.contains(&include), "{flags:?}");
    let dir = tempfile::tempdir().expect("scratch directory");
    let exe = dir.path().join("parity-pkg-config");
    let cc = std::env::var_os("CC").unwrap_or_else(|| "cc".into());
    let output = Command::new(cc)
        .args(["-std=c99", "-D_POSIX_C_SOURCE=200809L", "-Wall", "-Werror"])
        .arg(crate_dir().join("tests/c/parity.c"))
        .arg("-o")
        .arg(&exe)
        .args(&flags)
        .output()
        .expect("the C compiler (cc, or $CC) runs");
    assert!(output.status.success(), "cc with {flags:?}:\n{}", String::from_utf8_lossy(&output.stderr));
    // No library path at run time: the flags link the static library.
    let output = run(&exe, &[&example_file()], &[]);
    assert_eq!(String::from_utf8_lossy(&output.stdout), "ok\n", "{}", String::from_utf8_lossy(&output.stderr));
}

#[test]
fn installed_library_has_a_soname_and_a_pkg_config_file() {
    let prefix = tempfile::tempdir().expect("scratch directory");
    let output = Command::new("bash")
        .arg(workspace_dir().join("scripts/install-capi.sh"))
        .arg(prefix.path())
        .arg("--from")
        .arg(library_dir())
        .output()
        .expect("bash runs");
    assert!(output.status.success(), "install-capi.sh: {}", String::from_utf8_lossy(&output.stderr));
    let lib = prefix.path().join("lib");
    let version = env!("CARGO_PKG_VERSION");
    let real = std::fs::read(lib.join(format!("libptx_opt.so.{version}"))).expect("the versioned library");
    let soname = soname();
    // The SONAME is a string of the dynamic section: NUL-terminated, nothing longer.
    let needle = format!("{soname}\0");
    assert!(real.windows(needle.len()).any(|w| w == needle.as_bytes()), "no {soname} in the library");
    for link in [soname.as_str(), "libptx_opt.so"] {
        assert!(lib.join(link).is_file(), "{link} does not lead to the library");
    }
    let flags = pkg_config_flags(&lib.join("pkgconfig"));
    assert!(flags.iter().any(|f| f == "-lptx_opt"), "{flags:?}");
    // A program built as the README says, run without the build tree: it loads the SONAME.
    let exe = prefix.path().join("parity");
    let cc = std::env::var_os("CC").unwrap_or_else(|| "cc".into());
    let compiled = Command::new(cc)
        .args(["-std=c99", "-Wall", "-Werror"])
        .arg(crate_dir().join("tests/c/parity.c"))
        .args(&flags)
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("cc runs");
    assert!(compiled.status.success(), "cc: {}", String::from_utf8_lossy(&compiled.stderr));
    let output = run(&exe, &[&example_file()], &[]);
    assert_eq!(String::from_utf8_lossy(&output.stdout), "ok\n", "{}", String::from_utf8_lossy(&output.stderr));
}
