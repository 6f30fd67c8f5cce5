//! Fuzz target `pipeline`: arbitrary bytes through the whole of ptx-opt.
//!
//! Why: bad input must be an error, never a panic, a hang or lost output
//! (ARCHITECTURE.md, invariant 6). For every input that is UTF-8 this
//! parses it, then runs every registered pass alone, all of them in
//! registry order, and the -O2 pipeline, each with `verify_each`, and
//! prints the result both ways (source-preserving and canonical). Any panic, stack overflow, timeout or
//! out-of-memory is a finding. Beyond "no panic" it checks two invariants
//! that a fuzzer reaches cheaply: a module that parsed prints to text that
//! parses again, and canonical printing is a fixpoint; and it checks that the
//! streamed -O2 gives what the whole-module run gives.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ptx_opt::Options;

fuzz_target!(|data: &[u8]| {
    let Ok(source) = std::str::from_utf8(data) else { return };
    let Ok(module) = ptx_opt::parse(source) else { return };

    // Printing what parsed gives text that parses, and canonical printing
    // is a fixpoint.
    let printed = canonical(&module);
    let again = ptx_opt::parse(&printed).unwrap_or_else(|e| panic!("canonical print does not parse: {e}"));
    assert_eq!(printed, canonical(&again), "canonical printing is not a fixpoint");

    check_streaming(source);

    let names: Vec<&str> = ptx_opt::passes().iter().map(|p| p.name).collect();
    let mut runs: Vec<Vec<&str>> = names.iter().map(|n| vec![*n]).collect();
    runs.push(names.clone());
    runs.push(ptx_opt::pipeline(2).to_vec());
    for passes in runs {
        let mut m = module.clone();
        let options = Options { verify_each: true, ..Options::with_passes(passes.iter().copied()) };
        if ptx_opt::run_passes(&mut m, &options).is_err() {
            continue;
        }
        let text = ptx_opt::print(&m);
        if let Err(e) = ptx_opt::parse(&text) {
            panic!("output of {passes:?} does not parse: {e}");
        }
        let _ = canonical(&m);
    }
});

/// A streamed `optimize` (one group of items per batch) gives what the
/// whole-module run gives, or steps aside (ARCHITECTURE.md, invariant 10).
fn check_streaming(source: &str) {
    let options = Options::with_passes(ptx_opt::pipeline(2).iter().copied());
    let Ok(Some(streamed)) = ptx_opt::optimize_in_batches(source, &options, 1) else { return };
    let whole = ptx_opt::optimize_whole(source, &options).expect("what streams also runs whole");
    assert_eq!(streamed.ptx, whole.ptx, "streamed and whole -O2 print differently");
    let counters = |o: &ptx_opt::Output| -> Vec<String> {
        o.run.passes.iter().map(|p| format!("{:?} {:?}", p.stats.counters, p.stats.remarks)).collect()
    };
    assert_eq!(counters(&streamed), counters(&whole), "streamed and whole -O2 count differently");
}

fn canonical(module: &ptx_opt::Module) -> String {
    let mut m = module.clone();
    m.mark_changed();
    ptx_opt::ir::print::print_module_canonical(&m)
}
