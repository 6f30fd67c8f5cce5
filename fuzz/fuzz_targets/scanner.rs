//! Fuzz target `scanner`: the body scanner against the grammar.
//!
//! Why: the scanner (crates/ptx-parse/src/lower/body_scan.rs) reads function
//! bodies by hand for speed and must give exactly what the grammar alone
//! gives: the same module, down to spans and interned names, or the same
//! diagnostics. Any difference is a finding. Seed it with the pipeline
//! corpus (`fuzz/seed.sh`); it is cheap, so it runs many more inputs.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(source) = std::str::from_utf8(data) else { return };
    let scanned = format!("{:?}", ptx_parse::parse(source));
    let reference = format!("{:?}", ptx_parse::parse_reference(source));
    assert_eq!(scanned, reference, "the body scanner and the grammar disagree");
});
