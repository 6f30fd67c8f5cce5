//! The corpus survey: every public corpus kernel is compared with itself
//! (a deterministic interpreter must find it equivalent), and the number of
//! kernels the interpreter can check is counted per generator.

use ptx_interp::{diff_modules, DiffOptions, Verdict};
use std::collections::BTreeMap;
use std::path::PathBuf;

fn corpus_files() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/public");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
        .collect();
    files.sort();
    files
}

#[derive(Default, Debug, Clone, Copy)]
struct Tally {
    kernels: usize,
    equivalent: usize,
    unsupported: usize,
    inconclusive: usize,
    different: usize,
}

#[test]
fn every_supported_corpus_kernel_is_equivalent_to_itself() {
    let files = corpus_files();
    assert_eq!(files.len(), 227);
    // Two trials and a lower step limit keep the survey to a few minutes.
    let mut opts = DiffOptions { trials: 2, ..DiffOptions::default() };
    opts.launch.step_limit = 1_000_000;
    let results: Vec<(String, Vec<(String, Verdict)>)> = std::thread::scope(|s| {
        let chunks: Vec<&[PathBuf]> = files.chunks(files.len().div_ceil(2)).collect();
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                let opts = opts.clone();
                s.spawn(move || {
                    chunk
                        .iter()
                        .map(|path| {
                            let name = path.file_name().unwrap().to_string_lossy().to_string();
                            let text = std::fs::read_to_string(path).unwrap();
                            let module = ptx_parse::parse(&text).unwrap();
                            let report = diff_modules(&module, &module, &opts);
                            (name, report.kernels.into_iter().map(|k| (k.name, k.verdict)).collect())
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    let mut by_gen: BTreeMap<String, Tally> = BTreeMap::new();
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    let mut different = Vec::new();
    for (file, kernels) in &results {
        let generator = file.split("__").next().unwrap_or("?").to_string();
        let t = by_gen.entry(generator).or_default();
        for (kernel, verdict) in kernels {
            t.kernels += 1;
            match verdict {
                Verdict::Equivalent => t.equivalent += 1,
                Verdict::Unsupported { error, .. } => {
                    t.unsupported += 1;
                    let text = error.to_string();
                    let key = text.split(" at ").next().unwrap_or(&text).to_string();
                    *reasons.entry(key).or_default() += 1;
                }
                Verdict::Inconclusive { .. } => t.inconclusive += 1,
                Verdict::Different(_) | Verdict::Mismatch { .. } => {
                    t.different += 1;
                    different.push(format!("{file} {kernel}: {verdict:?}"));
                }
            }
        }
    }
    let mut total = Tally::default();
    println!("generator      kernels  supported  (equivalent  inconclusive)  unsupported");
    for (g, t) in &by_gen {
        println!(
            "{g:<14} {:>7}  {:>9}  ({:>10}  {:>12})  {:>11}",
            t.kernels,
            t.equivalent + t.inconclusive,
            t.equivalent,
            t.inconclusive,
            t.unsupported
        );
        total.kernels += t.kernels;
        total.equivalent += t.equivalent;
        total.inconclusive += t.inconclusive;
        total.unsupported += t.unsupported;
    }
    println!(
        "{:<14} {:>7}  {:>9}  ({:>10}  {:>12})  {:>11}",
        "total",
        total.kernels,
        total.equivalent + total.inconclusive,
        total.equivalent,
        total.inconclusive,
        total.unsupported
    );
    println!("unsupported, by reason:");
    let mut reasons: Vec<_> = reasons.into_iter().collect();
    reasons.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    for (r, n) in &reasons {
        println!("  {n:>4}  {r}");
    }
    assert!(different.is_empty(), "diff(A, A) must be equivalent:\n{}", different.join("\n"));
    // Floors: most compiler output is supported (measured figures minus a margin).
    let supported =
        |g: &str| by_gen.get(g).map(|t| (t.equivalent + t.inconclusive) as f64 / t.kernels as f64).unwrap_or(0.0);
    for (g, floor) in [("nvrtc-12.4", 0.75), ("nvrtc-13.5", 0.75), ("clang-19", 0.75), ("llc-14", 0.9), ("llc-19", 0.9)]
    {
        assert!(supported(g) >= floor, "{g}: only {:.0}% supported", 100.0 * supported(g));
    }
    // Measured 1439 of 1494 (96.3%) with these options on 2026-11-25 (1476
    // with diff's defaults, scripts/interp-coverage.sh).
    assert!(
        total.equivalent * 100 >= total.kernels * 93,
        "at least 93% of all kernels checked conclusively: {total:?}"
    );
}
