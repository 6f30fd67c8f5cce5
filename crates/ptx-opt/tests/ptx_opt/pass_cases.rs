//! Data-driven pass tests: every `testdata/passes/<pass>/*.ptx` is run through
//! `<pass>` alone, and
//!
//! - the output is snapshotted beside the input (`snapshots/<case>.snap`:
//!   the rewrite counters, then the PTX after the pass);
//! - ptxas accepts the output (for the input's own target);
//! - the reference interpreter finds input and output equivalent on every
//!   kernel (`ptx_interp::assert_equivalent`): every rewrite rule, and every
//!   trap a rule must not fall into, is shown to keep the meaning;
//! - running the pass again changes nothing;
//! - the expectations written at the top of the case hold:
//!   `// expect: unchanged` (the pass must leave the code alone) or
//!   `// expect-stats: counter=N, counter=N` (exactly these counters).

use crate::corpus;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn cases_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/passes")
}

enum Expectation {
    Unchanged,
    Stats(BTreeMap<String, u64>),
    None,
}

fn expectation(source: &str) -> Expectation {
    for line in source.lines().take_while(|l| l.starts_with("//") || l.trim().is_empty()) {
        let line = line.trim_start_matches('/').trim();
        if line == "expect: unchanged" {
            return Expectation::Unchanged;
        }
        if let Some(list) = line.strip_prefix("expect-stats:") {
            let stats = list
                .split(',')
                .map(|kv| {
                    let (k, v) = kv.split_once('=').expect("expect-stats entries are name=N");
                    (k.trim().to_string(), v.trim().parse().expect("counter value"))
                })
                .collect();
            return Expectation::Stats(stats);
        }
    }
    Expectation::None
}

fn check_case(pass: &str, path: &Path) -> Result<String, String> {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let source = std::fs::read_to_string(path).unwrap();
    let options = ptx_opt::Options::with_passes([pass]);
    let out = ptx_opt::optimize(&source, &options).map_err(|e| format!("{name}: {e}"))?;
    let record = &out.run.passes[0];
    let counters: BTreeMap<String, u64> = record.stats.counters.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    match expectation(&source) {
        Expectation::Unchanged if record.changed || out.ptx != source => {
            return Err(format!("{name}: expected no change, got {counters:?}"))
        }
        Expectation::Stats(want) if want != counters => {
            return Err(format!("{name}: expected counters {want:?}, got {counters:?}"))
        }
        _ => {}
    }
    let target = ptx_toolchain::target_of(&source).ok_or(format!("{name}: no .target"))?;
    corpus::toolchain()
        .compile(&out.ptx, &target, &[])
        .map_err(|e| format!("{name}: ptxas rejects the output: {e}\n{}", out.ptx))?;
    ptx_interp::assert_equivalent(&source, &out.ptx)
        .map_err(|report| format!("{name}: not shown equivalent:\n{report}\n--- after ---\n{}", out.ptx))?;
    let again = ptx_opt::optimize(&out.ptx, &options).map_err(|e| format!("{name}: output does not parse: {e}"))?;
    if again.ptx != out.ptx {
        return Err(format!("{name}: running {pass} again changes the output"));
    }
    let mut snapshot = String::new();
    for (k, v) in &counters {
        snapshot.push_str(&format!("// {k}: {v}\n"));
    }
    if counters.is_empty() {
        snapshot.push_str("// (no rewrites)\n");
    }
    snapshot.push_str(&out.ptx);
    Ok(snapshot)
}

fn run_pass_cases(pass: &str) {
    let dir = cases_root().join(pass);
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no cases in {}", dir.display());
    let mut failures = Vec::new();
    for path in &paths {
        match check_case(pass, path) {
            Ok(snapshot) => {
                let mut settings = insta::Settings::clone_current();
                settings.set_snapshot_path(dir.join("snapshots"));
                settings.set_prepend_module_to_snapshot(false);
                settings.set_input_file(path);
                let case = path.file_stem().unwrap().to_string_lossy().into_owned();
                settings.bind(|| insta::assert_snapshot!(case, snapshot));
            }
            Err(e) => failures.push(e),
        }
    }
    assert!(failures.is_empty(), "{} of {} {pass} cases failed:\n{}", failures.len(), paths.len(), failures.join("\n\n"));
}

#[test]
fn legalize_relaxed_cases() {
    run_pass_cases("legalize-relaxed");
}

#[test]
fn combine_cvt_pack_cases() {
    run_pass_cases("combine-cvt-pack");
}

#[test]
fn fold_prmt_cases() {
    run_pass_cases("fold-prmt");
}

/// Every registered rewriting pass has a directory of cases.
#[test]
fn every_pass_has_cases() {
    for p in ptx_opt::passes() {
        if p.name == "verify" {
            continue;
        }
        assert!(cases_root().join(p.name).is_dir(), "testdata/passes/{} is missing", p.name);
    }
}
