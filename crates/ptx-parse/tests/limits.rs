//! Limits instead of crashes: inputs too big or too deep for the parser are
//! rejected with a clear message at the right place, and inputs just inside
//! each limit parse. The inputs are generated in memory (some are megabytes)
//! rather than kept in testdata/parse-errors, where the small ones live.

use ptx_parse::{parse, MAX_FUNCTION_REGS, MAX_NESTING, MAX_TOKEN_LEN, MAX_VECTOR};

const HEADER: &str = ".version 8.0\n.target sm_80\n.address_size 64\n";

/// A module with one kernel whose body is `body`.
fn kernel(body: &str) -> String {
    format!(
        "{HEADER}.visible .entry k(.param .u64 p)\n{{\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<4>;\n{body}\n\tret;\n}}\n"
    )
}

/// Parses `source`, expecting one error whose message contains `message` and
/// whose span starts at byte `at`.
fn rejects(source: &str, message: &str, at: usize) {
    match parse(source) {
        Ok(_) => panic!("accepted input that should hit the limit '{message}'"),
        Err(diags) => {
            let d = &diags[0];
            assert!(d.message.contains(message), "expected '{message}', got '{}'", d.message);
            assert_eq!(d.span.start as usize, at, "error for '{}' at the wrong place", d.message);
        }
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    for open in ["{", "(", "["] {
        let body = open.repeat(100_000);
        let source = kernel(&body);
        let first = source.find(&body).expect("body is in the source");
        // The kernel's own `{` is the first level.
        rejects(&source, &format!("deeper than {MAX_NESTING} levels"), first + MAX_NESTING - 1);
    }
    // Nesting inside comments and strings does not count.
    let source = kernel(&format!("\t// {}\n\t/* {} */", "{".repeat(100_000), "(".repeat(100_000)));
    parse(&source).expect("braces in comments are not nesting");
    // Just inside the limit: scopes nested MAX_NESTING - 1 deep (the body is one level).
    let depth = MAX_NESTING - 1;
    let source = kernel(&format!("{}{}", "{\n".repeat(depth), "}\n".repeat(depth)));
    parse(&source).expect("nesting within the limit parses");
}

#[test]
fn long_names_and_numbers_are_errors() {
    let long = "x".repeat(MAX_TOKEN_LEN + 1);
    let source = kernel(&format!("\t.reg .b32 %{long};"));
    rejects(&source, &format!("name is longer than {MAX_TOKEN_LEN} characters"), source.find("%x").unwrap());
    let source = kernel(&format!("{long}:"));
    rejects(&source, "name is longer", source.find(&long).unwrap());
    let digits = "9".repeat(MAX_TOKEN_LEN + 1);
    let source = kernel(&format!("\tmov.u32 %r1, {digits};"));
    rejects(&source, "number is longer", source.find(&digits).unwrap());
    // A long name inside the limit is fine, and so is a long string or comment.
    let name = format!("%{}", "y".repeat(MAX_TOKEN_LEN - 1));
    let source = kernel(&format!("\t.reg .b32 {name};\n\tmov.u32 {name}, 1;\n\t// {long}\n\t.pragma \"{long}\";"));
    parse(&source).expect("a name of MAX_TOKEN_LEN characters parses");
}

#[test]
fn numbers_beyond_64_bits_are_errors() {
    for (text, message) in [
        ("99999999999999999999", "does not fit in 64 bits"),
        ("0x1FFFFFFFFFFFFFFFF", "does not fit in 64 bits"),
        ("0b11111111111111111111111111111111111111111111111111111111111111111", "does not fit in 64 bits"),
        ("-18446744073709551616", "does not fit in 64 bits"),
    ] {
        let source = kernel(&format!("\tmov.u64 %rd1, {text};"));
        let at = source.find(text).unwrap();
        rejects(&source, message, at);
    }
    parse(&kernel("\tmov.u64 %rd1, 18446744073709551615;")).expect("u64::MAX parses");
    parse(&kernel("\tmov.u64 %rd1, 0xFFFFFFFFFFFFFFFF;")).expect("u64::MAX in hex parses");
}

#[test]
fn vector_arity_is_limited() {
    let vector = |n: usize| format!("{{{}}}", (0..n).map(|i| format!("%r{}", i % 4)).collect::<Vec<_>>().join(", "));
    let ok = kernel(&format!("\tmov.b32 {}, %r1;", vector(MAX_VECTOR)));
    parse(&ok).expect("a vector of MAX_VECTOR elements parses");
    let source = kernel(&format!("\tmov.b32 {}, %r1;", vector(MAX_VECTOR + 1)));
    rejects(&source, &format!("limit {MAX_VECTOR}"), source.find("{%r0").unwrap());
}

#[test]
fn register_totals_are_limited() {
    // Each family is within MAX_REG_FAMILY; together they are not. The
    // kernel declares 8 registers of its own, so the last family that fits
    // is one short of MAX_FUNCTION_REGS / 2^20.
    let full = MAX_FUNCTION_REGS / (1 << 20);
    let decls: String = (0..=full).map(|i| format!("\t.reg .b32 %f{i}_<1048576>;\n")).collect();
    let source = kernel(&decls);
    let over = format!("%f{}_<", full - 1);
    rejects(&source, "registers in all", source.find(&over).unwrap() + over.len());
    let source = kernel("\t.reg .pred %p<4294967296>;");
    rejects(&source, "is too large", source.find("4294967296").unwrap());
}
