//! Parses each PTX file named on the command line twice, with the body
//! scanner (`ptx_parse::parse`) and with the grammar alone
//! (`ptx_parse::parse_reference`), and prints the files where the two
//! modules or diagnostics differ: the check of `tests/corpus.rs`, for PTX
//! outside the repository (held-out files, a fuzzer's finds).
//!
//! `cargo run --release -p ptx-parse --example scan_vs_grammar -- FILE...`

use std::process::ExitCode;

fn main() -> ExitCode {
    let (mut checked, mut differ) = (0, 0);
    for path in std::env::args().skip(1) {
        let Ok(source) = std::fs::read_to_string(&path) else {
            eprintln!("{path}: not readable as UTF-8 text");
            continue;
        };
        checked += 1;
        let scanned = format!("{:?}", ptx_parse::parse(&source));
        let reference = format!("{:?}", ptx_parse::parse_reference(&source));
        if scanned != reference {
            differ += 1;
            let at = scanned.bytes().zip(reference.bytes()).take_while(|(a, b)| a == b).count();
            let from = at.saturating_sub(120);
            println!("{path}: differs at byte {at}");
            println!("  scanner: {}", &scanned[from..(at + 120).min(scanned.len())]);
            println!("  grammar: {}", &reference[from..(at + 120).min(reference.len())]);
        }
    }
    println!("{checked} files, {differ} differ");
    if differ == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
