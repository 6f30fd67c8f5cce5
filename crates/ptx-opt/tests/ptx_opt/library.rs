//! The facade as a library inside a JIT or a build service: the JIT example
//! (`examples/jit.rs`, compiled here as a module so it runs in CI), and eight
//! threads optimizing eight corpus files at once, which must give exactly the
//! single-threaded results (output text, counters and remarks).

use crate::corpus::{self, CorpusFile};
use ptx_opt::{Options, Remark};
use std::collections::BTreeMap;
use std::sync::Barrier;

#[path = "../../examples/jit.rs"]
mod jit;

#[test]
fn jit_example_optimizes_in_memory_and_reports_remarks() {
    let out = jit::optimize("kernel.ptx", jit::KERNEL).expect("the example kernel optimizes");
    assert_ne!(out.ptx, jit::KERNEL, "legalize-relaxed rewrites the relaxed ld and st");
    assert!(out.ptx.contains("cvt."), "explicit conversions:\n{}", out.ptx);
    assert_eq!(
        out.remarks.iter().map(|r| r.split(": remark:").next().unwrap_or_default()).collect::<Vec<_>>(),
        ["kernel.ptx:10:2", "kernel.ptx:12:2"],
        "{:#?}",
        out.remarks
    );
    assert!(out.remarks.iter().all(|r| r.contains("[legalize-relaxed] scale_bytes: ")), "{:#?}", out.remarks);
    // The output is valid PTX that the pass leaves alone the second time.
    let again = jit::optimize("out.ptx", &out.ptx).expect("the output parses");
    assert_eq!(again.ptx, out.ptx);
    assert!(again.remarks.is_empty());
}

#[test]
fn jit_example_renders_located_errors() {
    let errors = match jit::optimize("broken.ptx", jit::BROKEN) {
        Ok(_) => panic!("the broken kernel must not parse"),
        Err(errors) => errors,
    };
    assert_eq!(errors, ["broken.ptx:11:15: error: expected an operand, found ','"]);
    // Its main, as `cargo run --example jit` runs it, does not fail either.
    jit::main();
}

/// Eight corpus files that `legalize-relaxed` rewrites, from four compilers.
const FILES: [&str; 8] = [
    "clang-19__fp8_convert__sm_90.ptx",
    "clang-19__int4_pack_asm__sm_80.ptx",
    "clang-19__quant_int8__sm_80.ptx",
    "llc-14__vectors__sm_70.ptx",
    "llc-19__byte_interleave__sm_90.ptx",
    "nvrtc-12.4__mathlib__sm_86.ptx",
    "nvrtc-12.4__predicated__sm_70.ptx",
    "nvrtc-13.5__wmma_gemm__sm_90a.ptx",
];

/// Everything a run produces that must not depend on threads.
#[derive(Debug, PartialEq, Eq)]
struct RunResult {
    ptx: String,
    counters: Vec<BTreeMap<ptx_opt::Counter, u64>>,
    remarks: Vec<Remark>,
}

fn optimize(file: &CorpusFile, options: &Options) -> RunResult {
    let out = ptx_opt::optimize(&file.source, options).unwrap_or_else(|e| panic!("{}: {e}", file.name));
    RunResult {
        ptx: out.ptx,
        counters: out.run.passes.iter().map(|p| p.stats.counters.clone()).collect(),
        remarks: out.run.passes.into_iter().flat_map(|p| p.stats.remarks).collect(),
    }
}

#[test]
fn eight_threads_at_once_give_the_single_threaded_results() {
    let files: Vec<&CorpusFile> = FILES
        .iter()
        .map(|name| corpus::files().iter().find(|f| f.name == *name).unwrap_or_else(|| panic!("{name} not in corpus")))
        .collect();
    // One thread for everything, one file after another.
    let sequential = Options { threads: Some(1), ..Options::with_passes(["legalize-relaxed"]) };
    let expected: Vec<RunResult> = files.iter().map(|f| optimize(f, &sequential)).collect();
    for (file, result) in files.iter().zip(&expected) {
        assert!(!result.remarks.is_empty() && result.ptx != file.source, "{} is not rewritten", file.name);
    }
    // Eight threads started together, sharing one Options, each running its
    // file a few times; the rayon pool under them is shared too.
    let shared = Options::with_passes(["legalize-relaxed"]);
    let start = Barrier::new(files.len());
    let results: Vec<Vec<RunResult>> = std::thread::scope(|scope| {
        let handles: Vec<_> = files
            .iter()
            .map(|file| {
                let (shared, start) = (&shared, &start);
                scope.spawn(move || {
                    start.wait();
                    (0..3).map(|_| optimize(file, shared)).collect::<Vec<_>>()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("no thread panics")).collect()
    });
    for ((file, want), got) in files.iter().zip(&expected).zip(&results) {
        for (round, result) in got.iter().enumerate() {
            assert!(result == want, "{} differs in round {round} when run on eight threads", file.name);
        }
    }
}

#[test]
fn shared_text_keeps_the_allocation_and_says_where_utf8_fails() {
    let bytes: std::sync::Arc<[u8]> = std::sync::Arc::from(&b".version 8.0\n"[..]);
    let text = ptx_opt::shared_text(bytes.clone()).expect("UTF-8");
    assert_eq!(&*text, ".version 8.0\n");
    assert!(std::ptr::eq(text.as_ptr(), bytes.as_ptr()), "the same allocation, not a copy");
    drop(bytes);
    assert_eq!(std::sync::Arc::strong_count(&text), 1);

    let invalid: std::sync::Arc<[u8]> = std::sync::Arc::from(&b"ok\xff"[..]);
    assert_eq!(ptx_opt::shared_text(invalid).unwrap_err().valid_up_to(), 2);
}

#[test]
fn a_module_parsed_from_shared_text_keeps_that_text_and_prints_the_same() {
    let file = &corpus::files()[0];
    let text: std::sync::Arc<str> = std::sync::Arc::from(file.source.as_str());
    let shared = ptx_opt::parse_shared(text.clone()).expect("corpus parses");
    let kept = shared.source.as_ref().expect("a parsed module keeps its text");
    assert!(std::ptr::eq(kept.as_ptr(), text.as_ptr()), "the caller's allocation, not a copy");
    let copied = ptx_opt::parse(&file.source).expect("corpus parses");
    assert!(!std::ptr::eq(copied.source.as_ref().expect("kept").as_ptr(), text.as_ptr()));
    assert_eq!(ptx_opt::print(&shared), ptx_opt::print(&copied));
}
