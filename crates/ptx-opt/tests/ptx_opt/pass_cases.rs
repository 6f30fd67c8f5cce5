//! Data-driven pass tests. One test, [`pass_cases`], walks
//! `testdata/passes/<pass>/`: every folder must be named after a registered
//! pass and every registered pass must have a folder, so a new pass needs no
//! hand-written `#[test]` (and one without cases fails). Each `<case>.ptx` of
//! a folder is run through `<pass>` alone (the cases run in parallel, all
//! failures are reported together), and
//!
//! - ptxas accepts the output (for the input's own target);
//! - the reference interpreter finds input and output equivalent on every
//!   kernel (`ptx_interp::assert_equivalent`): every rewrite rule, and every
//!   trap a rule must not fall into, is shown to keep the meaning;
//! - running the pass again changes nothing;
//! - the expectation written in the first comment lines of the case holds:
//!   `// expect: unchanged` (the output is the input byte for byte),
//!   `// expect-stats: counter=N, counter=N` (exactly these counters) or
//!   `// expect: error` (the pass itself rejects the input, and so does
//!   ptxas);
//! - a case with a `// ptx-version: X.Y` line is run with
//!   `Options::ptx_version` asking for X.Y instead (the folder's pass is then
//!   what that runs: `lower-ptx-version`, with the version written after
//!   it); ptxas accepts the output at X.Y, and `expect: error` means the
//!   run refuses the version ([`ptx_opt::ErrorKind::NeedsVersion`]) and
//!   ptxas rejects the input written at X.Y;
//! - the snapshot `snapshots/<case>.snap` (insta) shows what the pass did:
//!   the counters (`// counter: N` lines, or `// (no rewrites)`), then a
//!   unified diff, with 3 lines of context, of each function the pass
//!   changed: the input's function printed canonically (one statement per
//!   line, comments dropped, as the printer prints a changed function)
//!   against the output's, so that only real changes show (or
//!   `// (no function changed)`, e.g. when a pass is gated off and only
//!   counts that it was). Functions are
//!   paired by name; a function added or removed is diffed against nothing
//!   (and what lies outside functions, if it changed, comes first). Hunk
//!   line numbers count within the function's canonical print. For example
//!   (`fold-prmt/a-equals-b`, its tabs shown as spaces):
//!
//!   ```text
//!   // copy: 1
//!   --- input: a_equals_b
//!   +++ output: a_equals_b
//!   @@ -10,7 +10,7 @@
//!        ld.global.u32 %r1, [%rd2];
//!        ld.global.u32 %r2, [%rd2+4];
//!        ld.global.u32 %r20, [%rd2+8];
//!   -    prmt.b32 %r3, %r1, %r1, 0x7654;
//!   +    mov.b32 %r3, %r1;
//!        st.global.u32 [%rd2+16], %r3;
//!        ret;
//!    }
//!   ```
//!
//!   An `expect: error` case's snapshot is the pass's diagnostics, one
//!   `LINE:COL: message` per line. An `expect: unchanged` case has no
//!   snapshot: the test fails if one exists, and if a snapshot has no case
//!   beside it.

use crate::corpus;
use ptx_opt::ir::print::{write_function, write_variable};
use ptx_opt::ir::ModuleItem;
use ptx_opt::version::PtxVersion;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

fn cases_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/passes")
}

enum Expectation {
    Unchanged,
    Error,
    Stats(BTreeMap<String, u64>),
    None,
}

fn expectation(source: &str) -> Result<Expectation, String> {
    for line in source.lines().take_while(|l| l.starts_with("//") || l.trim().is_empty()) {
        let line = line.trim_start_matches('/').trim();
        if line == "expect: unchanged" {
            return Ok(Expectation::Unchanged);
        }
        if line == "expect: error" {
            return Ok(Expectation::Error);
        }
        if let Some(list) = line.strip_prefix("expect-stats:") {
            let mut stats = BTreeMap::new();
            for kv in list.split(',') {
                let (k, v) = kv.split_once('=').ok_or(format!("expect-stats entries are name=N, not '{kv}'"))?;
                let v = v.trim().parse().map_err(|_| format!("expect-stats: '{v}' is not a count"))?;
                stats.insert(k.trim().to_string(), v);
            }
            return Ok(Expectation::Stats(stats));
        }
        if line.starts_with("expect") {
            return Err(format!("unknown expectation '{line}'"));
        }
    }
    Ok(Expectation::None)
}

/// One case: `testdata/passes/<pass>/<stem>.ptx`.
struct Case {
    pass: String,
    path: PathBuf,
}

impl Case {
    fn stem(&self) -> String {
        self.path.file_stem().unwrap().to_string_lossy().into_owned()
    }

    /// `pass/file.ptx`, for messages.
    fn label(&self) -> String {
        format!("{}/{}", self.pass, self.path.file_name().unwrap().to_string_lossy())
    }

    fn snapshot_dir(&self) -> PathBuf {
        self.path.parent().unwrap().join("snapshots")
    }

    fn snapshot_file(&self) -> PathBuf {
        self.snapshot_dir().join(format!("{}.snap", self.stem()))
    }
}

/// Diagnostics as `LINE:COL: message`, one per line.
fn render_diagnostics(source: &str, diagnostics: &[ptx_opt::Diagnostic]) -> String {
    let index = ptx_opt::LineIndex::new(source);
    let mut out = String::new();
    for d in diagnostics {
        let (line, col) = index.line_col(source, d.span.start as usize);
        out.push_str(&format!("{line}:{col}: {}\n", d.message));
    }
    out
}

fn describe_error(source: &str, e: &ptx_opt::Error) -> String {
    format!("{e}\n{}", render_diagnostics(source, &e.diagnostics))
}

/// The `// ptx-version: X.Y` of a case's leading comments, if it has one.
fn ptx_version_asked(source: &str) -> Result<Option<PtxVersion>, String> {
    let leading = source.lines().take_while(|l| l.starts_with("//") || l.trim().is_empty());
    let Some(asked) = leading.filter_map(|l| l.trim_start_matches('/').trim().strip_prefix("ptx-version:")).next()
    else {
        return Ok(None);
    };
    match PtxVersion::parse(asked.trim()) {
        Some(v @ PtxVersion::Exactly(_)) => Ok(Some(v)),
        _ => Err(format!("ptx-version: '{}' is not a version ptxas knows", asked.trim())),
    }
}

/// The input's `.version` line.
fn version_line(source: &str) -> Result<String, String> {
    let line = source.lines().find(|l| l.trim_start().starts_with(".version"));
    line.map(str::to_string).ok_or_else(|| "no .version line".to_string())
}

/// Runs one case; its snapshot, or None for an `expect: unchanged` case.
fn check_case(case: &Case) -> Result<Option<String>, String> {
    let name = case.label();
    let pass = case.pass.as_str();
    let source = std::fs::read_to_string(&case.path).map_err(|e| format!("{name}: {e}"))?;
    let expect = expectation(&source).map_err(|e| format!("{name}: {e}"))?;
    let target = ptx_toolchain::target_of(&source).ok_or(format!("{name}: no .target"))?;
    // Every run verifies its input first; the verifier's own cases are
    // about what `verify` as a pass reports, so that check is left to it.
    let asked = ptx_version_asked(&source).map_err(|e| format!("{name}: {e}"))?;
    let options = match asked {
        Some(version) => ptx_opt::Options { ptx_version: Some(version), ..ptx_opt::Options::default() },
        None => ptx_opt::Options { skip_verify: pass == "verify", ..ptx_opt::Options::with_passes([pass]) },
    };
    let result = ptx_opt::optimize(&source, &options);

    if let Expectation::Error = expect {
        let err = match result {
            Ok(_) => return Err(format!("{name}: expected {pass} to report errors, it accepted the input")),
            Err(e) => e,
        };
        let (kind, rejected_by_ptxas) = match asked {
            Some(PtxVersion::Exactly(v)) => {
                let at_version = source.replacen(&version_line(&source)?, &format!(".version {}.{}", v.0, v.1), 1);
                (ptx_opt::ErrorKind::NeedsVersion(format!("{}.{}", v.0, v.1)), at_version)
            }
            _ => (ptx_opt::ErrorKind::Pass(pass.to_string()), source.clone()),
        };
        if err.kind != kind || err.diagnostics.is_empty() {
            return Err(format!("{name}: expected {kind:?}, got {}", describe_error(&source, &err)));
        }
        if corpus::toolchain().compile(&rejected_by_ptxas, &target, &[]).is_ok() {
            return Err(format!("{name}: {pass} rejects the input but ptxas accepts it"));
        }
        return Ok(Some(render_diagnostics(&source, &err.diagnostics)));
    }

    let out = result.map_err(|e| format!("{name}: {}", describe_error(&source, &e)))?;
    let record = &out.run.passes[0];
    let counters: BTreeMap<String, u64> = record.stats.counters.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    match &expect {
        Expectation::Unchanged if record.changed || out.ptx != source => {
            return Err(format!("{name}: expected no change, got {counters:?}"))
        }
        Expectation::Stats(want) if *want != counters => {
            return Err(format!("{name}: expected counters {want:?}, got {counters:?}"))
        }
        _ => {}
    }
    corpus::toolchain()
        .compile(&out.ptx, &target, &[])
        .map_err(|e| format!("{name}: ptxas rejects the output: {e}\n{}", out.ptx))?;
    ptx_interp::assert_equivalent(&source, &out.ptx)
        .map_err(|report| format!("{name}: not shown equivalent:\n{report}\n--- after ---\n{}", out.ptx))?;
    let again = ptx_opt::optimize(&out.ptx, &options).map_err(|e| format!("{name}: output does not parse: {e}"))?;
    if again.ptx != out.ptx {
        return Err(format!("{name}: running {pass} again changes the output"));
    }
    if let Expectation::Unchanged = expect {
        return Ok(None);
    }

    let mut snapshot = String::new();
    for (k, v) in &counters {
        snapshot.push_str(&format!("// {k}: {v}\n"));
    }
    if counters.is_empty() {
        snapshot.push_str("// (no rewrites)\n");
    }
    let diff = changed_functions_diff(&source, &out.ptx).map_err(|e| format!("{name}: {e}"))?;
    if diff.is_empty() {
        snapshot.push_str("// (no function changed)\n");
    }
    snapshot.push_str(&diff);
    Ok(Some(snapshot))
}

/// The canonical text of every function of `module`, keyed by name (a
/// second function of the same name, e.g. the definition after a
/// declaration, is `name#2`), in module order.
fn canonical_functions(module: &ptx_opt::Module) -> Vec<(String, String)> {
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    let mut out = Vec::new();
    for (_, func) in module.functions.iter() {
        let n = seen.entry(func.name.as_str()).or_default();
        *n += 1;
        let key = if *n == 1 { func.name.clone() } else { format!("{}#{n}", func.name) };
        let mut text = String::new();
        write_function(func, &mut text);
        out.push((key, text));
    }
    out
}

/// The canonical text of what a module holds outside its functions: header,
/// variables and directives.
fn canonical_outside_functions(module: &ptx_opt::Module) -> String {
    let mut out = format!(".version {}.{}\n.target {}\n", module.version.0, module.version.1, module.target.join(", "));
    if let Some(size) = module.address_size {
        out.push_str(&format!(".address_size {size}\n"));
    }
    for item in &module.items {
        match item {
            ModuleItem::Variable(var) => {
                write_variable(var, &mut out);
                out.push_str(";\n");
            }
            ModuleItem::Raw(raw) => {
                out.push_str(&raw.text);
                out.push_str(if raw.semicolon { ";\n" } else { "\n" });
            }
            ModuleItem::Function(_) => {}
        }
    }
    out
}

fn unified_diff(before: &str, after: &str, before_header: &str, after_header: &str) -> String {
    similar::TextDiff::configure()
        .algorithm(similar::Algorithm::Myers)
        .diff_lines(before, after)
        .unified_diff()
        .context_radius(3)
        .header(before_header, after_header)
        .to_string()
}

/// The unified diff of each function that differs between `before` and
/// `after`, both printed canonically; empty if none does. Functions are in
/// the input's order, those only the output has after them; what lies
/// outside functions (header, variables, directives) comes first if it
/// changed.
fn changed_functions_diff(before: &str, after: &str) -> Result<String, String> {
    let a = ptx_opt::parse(before).map_err(|e| format!("input does not parse: {e}"))?;
    let b = ptx_opt::parse(after).map_err(|e| format!("output does not parse: {e}"))?;
    let mut out = String::new();
    let (outside_a, outside_b) = (canonical_outside_functions(&a), canonical_outside_functions(&b));
    if outside_a != outside_b {
        out.push_str(&unified_diff(
            &outside_a,
            &outside_b,
            "input: (outside functions)",
            "output: (outside functions)",
        ));
    }
    let fa = canonical_functions(&a);
    let fb = canonical_functions(&b);
    let in_b: BTreeMap<&str, &str> = fb.iter().map(|(k, t)| (k.as_str(), t.as_str())).collect();
    let in_a: BTreeMap<&str, &str> = fa.iter().map(|(k, t)| (k.as_str(), t.as_str())).collect();
    for (key, text) in &fa {
        match in_b.get(key.as_str()) {
            Some(other) if *other == text => {}
            Some(other) => {
                out.push_str(&unified_diff(text, other, &format!("input: {key}"), &format!("output: {key}")))
            }
            None => {
                out.push_str(&unified_diff(text, "", &format!("input: {key}"), &format!("output: {key} (removed)")))
            }
        }
    }
    for (key, text) in &fb {
        if !in_a.contains_key(key.as_str()) {
            out.push_str(&unified_diff("", text, &format!("input: {key} (absent)"), &format!("output: {key}")));
        }
    }
    Ok(out)
}

/// The case folders and their cases; problems with the layout go to
/// `failures`: a folder that names no pass, a pass without a folder, a
/// folder without cases, a snapshot without a case.
fn collect_cases(failures: &mut Vec<String>) -> Vec<Case> {
    let root = cases_root();
    let registered: Vec<&str> = ptx_opt::passes().iter().map(|p| p.name).collect();
    let mut folders: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", root.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    for pass in &registered {
        if !root.join(pass).is_dir() {
            failures.push(format!("pass {pass} has no cases: testdata/passes/{pass}/ is missing"));
        }
    }
    let mut cases = Vec::new();
    for folder in folders {
        let pass = folder.file_name().unwrap().to_string_lossy().into_owned();
        if !registered.contains(&pass.as_str()) {
            failures.push(format!("testdata/passes/{pass}/ names no registered pass (passes: {registered:?})"));
            continue;
        }
        let mut paths: Vec<PathBuf> = std::fs::read_dir(&folder)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
            .collect();
        paths.sort();
        if paths.is_empty() {
            failures.push(format!("testdata/passes/{pass}/ has no cases"));
        }
        if let Ok(snapshots) = std::fs::read_dir(folder.join("snapshots")) {
            let mut snapshots: Vec<PathBuf> =
                snapshots.map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|x| x == "snap")).collect();
            snapshots.sort();
            for snap in snapshots {
                let stem = snap.file_stem().unwrap().to_string_lossy();
                if !folder.join(format!("{stem}.ptx")).is_file() {
                    failures.push(format!(
                        "stale snapshot testdata/passes/{pass}/snapshots/{stem}.snap: there is no case {stem}.ptx"
                    ));
                }
            }
        }
        cases.extend(paths.into_iter().map(|path| Case { pass: pass.clone(), path }));
    }
    cases
}

/// Every case of every pass (see the module comment).
#[test]
fn pass_cases() {
    let mut failures = Vec::new();
    let cases = collect_cases(&mut failures);

    // ptxas and the interpreter are slow: run the cases on a few threads,
    // then compare the snapshots in case order on this one.
    let next = AtomicUsize::new(0);
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get() * 2).min(cases.len()).max(1);
    let mut results: Vec<(usize, Result<Option<String>, String>)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                s.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(case) = cases.get(i) else { break };
                        let result = std::panic::catch_unwind(|| check_case(case))
                            .unwrap_or_else(|_| Err(format!("{}: panicked (message above)", case.label())));
                        done.push((i, result));
                    }
                    done
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    results.sort_by_key(|(i, _)| *i);

    for (i, result) in results {
        let case = &cases[i];
        match result {
            Err(e) => failures.push(e),
            Ok(None) => {
                if case.snapshot_file().exists() {
                    failures.push(format!(
                        "{}: an `expect: unchanged` case stores no snapshot; delete testdata/passes/{}/snapshots/{}.snap",
                        case.label(),
                        case.pass,
                        case.stem()
                    ));
                }
            }
            Ok(Some(snapshot)) => {
                let mut settings = insta::Settings::clone_current();
                settings.set_snapshot_path(case.snapshot_dir());
                settings.set_prepend_module_to_snapshot(false);
                settings.set_input_file(&case.path);
                let stem = case.stem();
                let matched = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    settings.bind(|| insta::assert_snapshot!(stem, snapshot))
                }));
                if matched.is_err() {
                    failures.push(format!("{}: the snapshot differs (diff above)", case.label()));
                }
            }
        }
    }
    let passes = cases.iter().map(|c| c.pass.as_str()).collect::<std::collections::BTreeSet<_>>().len();
    assert!(
        failures.is_empty(),
        "{} problems in {} cases of {passes} passes:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
}
