//! Each rewriting pass, and the -O2 pipeline, over the public corpus, judged
//! by ptxas (every changed file must still be accepted) and by the reference
//! interpreter: every kernel of every file the pass changed is run before
//! and after on the same inputs and must agree. Kernels the
//! interpreter cannot run (unsupported instructions, or inputs it cannot
//! make meaningful) are counted and reported, not silently passed.

use crate::corpus;
use ptx_interp::{DiffOptions, Verdict};
use rayon::prelude::*;

#[derive(Default)]
struct Tally {
    files_changed: usize,
    kernels_equivalent: usize,
    kernels_skipped: usize,
    different: Vec<String>,
}

fn check_pass(options: &ptx_opt::Options, label: &str) -> Tally {
    let results: Vec<Tally> = corpus::files()
        .par_iter()
        .map(|file| {
            let mut tally = Tally::default();
            let before = ptx_opt::parse(&file.source).expect("corpus parses");
            let mut after = before.clone();
            let run = ptx_opt::run_passes(&mut after, options).expect("pass runs");
            if !run.passes.iter().any(|p| p.changed) {
                return tally;
            }
            tally.files_changed = 1;
            if let Err(e) = corpus::toolchain().compile(&ptx_opt::print(&after), &file.target, &[]) {
                tally.different.push(format!("{}: {label}: ptxas rejects the output: {e}", file.name));
                return tally;
            }
            let opts = DiffOptions { trials: 2, ..DiffOptions::default() };
            let report = ptx_interp::diff_modules(&before, &after, &opts);
            for k in &report.kernels {
                match &k.verdict {
                    Verdict::Equivalent => tally.kernels_equivalent += 1,
                    Verdict::Unsupported { .. } | Verdict::Inconclusive { .. } => tally.kernels_skipped += 1,
                    Verdict::Different(_) | Verdict::Mismatch { .. } => {
                        tally.different.push(format!("{}: {label}: {}", file.name, report))
                    }
                }
            }
            tally
        })
        .collect();
    let mut total = Tally::default();
    for t in results {
        total.files_changed += t.files_changed;
        total.kernels_equivalent += t.kernels_equivalent;
        total.kernels_skipped += t.kernels_skipped;
        total.different.extend(t.different);
    }
    eprintln!(
        "{label}: changed {} files; interpreter: {} kernels equivalent, {} not checkable (unsupported/inconclusive)",
        total.files_changed, total.kernels_equivalent, total.kernels_skipped
    );
    total
}

fn assert_keeps_meaning(options: ptx_opt::Options, label: &str) {
    let tally = check_pass(&options, label);
    assert!(tally.different.is_empty(), "{label} changed the meaning:\n{}", tally.different.join("\n"));
    assert!(tally.files_changed == 0 || tally.kernels_equivalent > 0, "{label}: nothing could be checked");
}

#[test]
fn legalize_relaxed_keeps_corpus_meaning() {
    assert_keeps_meaning(ptx_opt::Options::with_passes(["legalize-relaxed"]), "legalize-relaxed");
}

#[test]
fn fold_prmt_keeps_corpus_meaning() {
    assert_keeps_meaning(ptx_opt::Options::with_passes(["fold-prmt"]), "fold-prmt");
}

#[test]
fn combine_cvt_pack_keeps_corpus_meaning() {
    assert_keeps_meaning(ptx_opt::Options::with_passes(["combine-cvt-pack"]), "combine-cvt-pack");
}

#[test]
fn o2_pipeline_keeps_corpus_meaning() {
    assert_keeps_meaning(ptx_opt::Options::with_level(2), "-O2");
}

#[test]
fn count_blocks_keeps_corpus_meaning() {
    assert_keeps_meaning(ptx_opt::Options::with_passes(["count-blocks"]), "count-blocks");
}
