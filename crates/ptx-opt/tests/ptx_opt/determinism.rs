//! Determinism and idempotence over the public corpus.
//!
//! Why: ARCHITECTURE.md promises deterministic output (invariant 7: no hash
//! order reaches the output; parallel function passes merge in function
//! order), and a pipeline that has done its work must find nothing left to
//! do on its own output, or running ptx-opt twice in a build would keep
//! changing the code. So, for every public corpus file:
//!
//! - `-O2` and the pipeline of every registered rewriting pass, run on
//!   their own output, change nothing (twice == once);
//! - the largest file and the files with the most functions give the same
//!   output and the same statistics with 1 and with 4 worker threads.
//!
//! Only the library runs here (no ptxas), so the whole corpus stays cheap.

use crate::corpus::{files, CorpusFile};
use crate::runs_bare;
use ptx_opt::Options;

/// Every registered pass that rewrites (the verifier only checks).
fn rewriting_passes() -> Vec<&'static str> {
    let mut passes: Vec<&str> =
        ptx_opt::passes().iter().map(|p| p.name).filter(|&n| n != "verify" && n != "dce" && runs_bare(n)).collect();
    // Cleanup goes last, as in the -O pipelines: a pass that runs after dce
    // may leave code dead (legalize-relaxed extends a loaded value nobody
    // reads), which a second run's dce would then delete.
    passes.push("dce");
    passes
}

/// The pipelines checked: -O2, and every rewriting pass in registry order,
/// dce last.
fn pipelines() -> Vec<(String, Options)> {
    let all = rewriting_passes();
    vec![("-O2".to_string(), Options::with_level(2)), (all.join(","), Options::with_passes(all))]
}

/// Runs `check` on every corpus file, on two threads, and collects the
/// failures it reports.
fn for_each_file(check: impl Fn(&CorpusFile) -> Option<String> + Sync) -> Vec<String> {
    let files = files();
    let half = files.len().div_ceil(2);
    std::thread::scope(|s| {
        let workers: Vec<_> = files
            .chunks(half)
            .map(|chunk| {
                let check = &check;
                std::thread::Builder::new()
                    .stack_size(16 << 20)
                    .spawn_scoped(s, move || chunk.iter().filter_map(check).collect::<Vec<_>>())
                    .expect("a worker thread")
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().expect("worker finished")).collect()
    })
}

#[test]
fn pipelines_are_idempotent_on_the_corpus() {
    for (name, options) in pipelines() {
        let failures = for_each_file(|file| {
            let once = match ptx_opt::optimize(&file.source, &options) {
                Ok(out) => out.ptx,
                Err(e) => return Some(format!("{}: {name} failed: {e}", file.name)),
            };
            match ptx_opt::optimize(&once, &options) {
                Ok(out) if out.ptx == once => None,
                Ok(out) => {
                    let first = once.lines().zip(out.ptx.lines()).position(|(a, b)| a != b).unwrap_or(0);
                    Some(format!(
                        "{}: {name} changes its own output (first at line {}: {:?} -> {:?})",
                        file.name,
                        first + 1,
                        once.lines().nth(first).unwrap_or(""),
                        out.ptx.lines().nth(first).unwrap_or("")
                    ))
                }
                Err(e) => Some(format!("{}: {name} rejects its own output: {e}", file.name)),
            }
        });
        assert!(failures.is_empty(), "{} file(s):\n{}", failures.len(), failures.join("\n"));
    }
}

/// The largest corpus file and the four with the most functions.
fn thread_test_files() -> Vec<&'static CorpusFile> {
    let mut by_size: Vec<&CorpusFile> = files().iter().collect();
    by_size.sort_by_key(|f| std::cmp::Reverse(f.source.len()));
    let mut by_functions: Vec<&CorpusFile> = files().iter().collect();
    let functions = |f: &CorpusFile| f.source.matches(".entry").count() + f.source.matches(".func").count();
    by_functions.sort_by_key(|f| (std::cmp::Reverse(functions(f)), f.name.clone()));
    let mut chosen = vec![by_size[0]];
    for f in by_functions {
        if chosen.len() == 5 {
            break;
        }
        if !chosen.iter().any(|c| c.name == f.name) {
            chosen.push(f);
        }
    }
    chosen
}

#[test]
fn thread_count_does_not_change_the_output() {
    for file in thread_test_files() {
        for (name, options) in pipelines() {
            let run = |threads| {
                let options = Options { threads: Some(threads), ..options.clone() };
                let out = ptx_opt::optimize(&file.source, &options)
                    .unwrap_or_else(|e| panic!("{}: {name} with {threads} thread(s): {e}", file.name));
                let stats: Vec<_> = out
                    .run
                    .passes
                    .iter()
                    .map(|p| (p.name, p.changed, p.stats.counters.clone(), format!("{:?}", p.stats.remarks)))
                    .collect();
                (out.ptx, format!("{stats:?}"))
            };
            let (one, one_stats) = run(1);
            let (four, four_stats) = run(4);
            assert!(one == four, "{}: {name}: output with 1 thread differs from 4 threads", file.name);
            assert_eq!(one_stats, four_stats, "{}: {name}: statistics differ between 1 and 4 threads", file.name);
        }
    }
}

#[test]
fn absurd_thread_counts_are_an_error_not_a_stall() {
    // Regression: Some(100_000) spent minutes creating threads.
    let file = &files()[0];
    for threads in [ptx_opt::MAX_THREADS + 1, 100_000, usize::MAX] {
        let options = Options { threads: Some(threads), ..Options::with_level(2) };
        match ptx_opt::optimize(&file.source, &options) {
            Err(e) => assert!(matches!(e.kind, ptx_opt::ErrorKind::Threads(_)), "{threads}: {e}"),
            Ok(_) => panic!("{threads} threads accepted"),
        }
    }
    let options = Options { threads: Some(ptx_opt::MAX_THREADS), ..Options::with_level(2) };
    ptx_opt::optimize(&file.source, &options).expect("MAX_THREADS threads work");
}
