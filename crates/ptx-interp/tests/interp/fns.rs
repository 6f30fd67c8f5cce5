//! `fns.b32 d, mask, base, offset` (ISA 9.7.1.17, find the n-th set bit).
//!
//! The expected values of the tables were worked out by hand from the ISA
//! text (its Semantics block and its four examples), never by running the
//! interpreter. They were then confirmed on hardware: an NVIDIA H200
//! (sm_90, CUDA 13.0, nvcc/ptxas V13.0.88) ran `fns` through inline PTX
//! (`scripts/fns-hardware/fns.cu`) on
//!
//! - every base 0..=31 with every offset -40..=40 and 72 masks, plus
//!   4 194 304 seeded triples (half of them with offsets anywhere in the
//!   .s32 range): all 4 380 928 results equal to [`models::fns`], the ISA's
//!   bit loop;
//! - the ISA's four examples as written (immediates) and six rows of
//!   [`immediates_for_each_operand`] (an immediate mask, base, offset, and
//!   all three), with the expected values below;
//! - the 4096 triples of [`seeded_triples_match_the_isa_loop`], whose
//!   results hash to [`H200_DIGEST`].
//!
//! A base above 31 is undefined in the ISA; the interpreter stops there
//! (`InterpError::Undefined`), as on a division by zero. (The H200 gave
//! 0xffffffff for every such base tried, 32 up to 0xffffffff: one possible
//! outcome, not a meaning.)

use crate::harness::{check_table, eval, expect_cannot_model, map, Case};
use crate::models;
use ptx_interp::{ErrorClass, InterpError, SplitMix64};

/// Not found.
const NONE: u64 = 0xffff_ffff;

/// The ISA's examples, as written (immediates), then with registers.
#[test]
#[rustfmt::skip]
fn the_isa_examples() {
    check_table(&[
        Case { asm: "fns.b32 %r1, 0xaaaaaaaa, 3, 1;", inputs: &[], expect: &[("%r1", 3)], why: "ISA example: d = 3" },
        Case { asm: "fns.b32 %r1, 0xaaaaaaaa, 3, -1;", inputs: &[], expect: &[("%r1", 3)], why: "ISA example: d = 3" },
        Case { asm: "fns.b32 %r1, 0xaaaaaaaa, 2, 1;", inputs: &[], expect: &[("%r1", 3)], why: "ISA example: d = 3" },
        Case { asm: "fns.b32 %r1, 0xaaaaaaaa, 2, -1;", inputs: &[], expect: &[("%r1", 1)], why: "ISA example: d = 1" },
        Case { asm: "fns.b32 %r1, %r2, %r3, %r4;", inputs: &[("%r2", 0xaaaa_aaaa), ("%r3", 3), ("%r4", 1)], expect: &[("%r1", 3)], why: "ISA example in registers" },
        Case { asm: "fns.b32 %r1, %r2, %r3, %r4;", inputs: &[("%r2", 0xaaaa_aaaa), ("%r3", 3), ("%r4", 0xffff_ffff)], expect: &[("%r1", 3)], why: "ISA example in registers" },
        Case { asm: "fns.b32 %r1, %r2, %r3, %r4;", inputs: &[("%r2", 0xaaaa_aaaa), ("%r3", 2), ("%r4", 1)], expect: &[("%r1", 3)], why: "ISA example in registers" },
        Case { asm: "fns.b32 %r1, %r2, %r3, %r4;", inputs: &[("%r2", 0xaaaa_aaaa), ("%r3", 2), ("%r4", 0xffff_ffff)], expect: &[("%r1", 1)], why: "ISA example in registers" },
    ]);
}

/// One row of [`edge_cases`]: mask, base, offset (as .s32) in registers,
/// the expected d and why.
macro_rules! fns {
    ($mask:expr, $base:expr, $offset:expr => $want:expr, $why:literal) => {
        Case {
            asm: "fns.b32 %r1, %r2, %r3, %r4;",
            inputs: &[("%r2", $mask), ("%r3", $base), ("%r4", $offset as i32 as u32 as u64)],
            expect: &[("%r1", $want)],
            why: $why,
        }
    };
}

/// Edge cases, all in registers.
#[test]
#[rustfmt::skip]
fn edge_cases() {
    const A: u64 = 0xaaaa_aaaa; // the odd bits 1, 3, ..., 31
    check_table(&[
        // Offset 0: only bit `base` itself counts.
        fns!(A, 5, 0 => 5, "offset 0, mask[base] = 1: d = base"),
        fns!(A, 4, 0 => NONE, "offset 0, mask[base] = 0: not found, no search either side"),
        fns!(0x8000_0000, 31, 0 => 31, "offset 0 at base 31"),
        fns!(1, 0, 0 => 0, "offset 0 at base 0"),
        // Positive offsets count up from base, base included.
        fns!(A, 0, 3 => 5, "up from 0: set bits 1, 3, 5"),
        fns!(A, 0, 16 => 31, "the 16th set bit is the last"),
        fns!(A, 0, 17 => NONE, "only 16 set bits"),
        fns!(A, 31, 1 => 31, "base 31 set: offset 1 finds it"),
        fns!(A, 31, 2 => NONE, "nothing above bit 31"),
        fns!(A, 30, 1 => 31, "bit 30 clear, next set bit up is 31"),
        // Negative offsets count down from base, base included.
        fns!(A, 31, -1 => 31, "down from 31: 31"),
        fns!(A, 31, -2 => 29, "down from 31: 31, 29"),
        fns!(A, 31, -16 => 1, "the 16th set bit down is bit 1"),
        fns!(A, 31, -17 => NONE, "only 16 set bits below 31"),
        fns!(A, 0, -1 => NONE, "bit 0 clear, nothing below it"),
        fns!(A, 6, -3 => 1, "down from 6: 5, 3, 1"),
        fns!(A, 6, -4 => NONE, "down from 6: three set bits only"),
        fns!(1, 0, -1 => 0, "bit 0 set, found counting down"),
        fns!(1, 0, -2 => NONE, "counting down stops at bit 0"),
        fns!(1, 31, -1 => 0, "a long walk down to bit 0"),
        // Base 31 and base 0 with the other direction.
        fns!(1, 31, 1 => NONE, "up from 31 sees bit 31 only"),
        fns!(0x8000_0000, 0, 1 => 31, "a long walk up to bit 31"),
        fns!(0x8000_0000, 0, -1 => NONE, "down from 0 sees bit 0 only"),
        // Mask 0: never found.
        fns!(0, 5, 0 => NONE, "mask 0, offset 0"),
        fns!(0, 5, 1 => NONE, "mask 0, offset 1"),
        fns!(0, 5, -1 => NONE, "mask 0, offset -1"),
        fns!(0, 0, 32 => NONE, "mask 0, offset 32"),
        // All ones: d = base + offset - 1 up, base + offset + 1 down, while in 0..=31.
        fns!(NONE, 10, 0 => 10, "all ones, offset 0"),
        fns!(NONE, 10, 1 => 10, "all ones: first set bit up is base"),
        fns!(NONE, 10, 5 => 14, "all ones: 10 + 5 - 1"),
        fns!(NONE, 10, 22 => 31, "all ones: 10 + 22 - 1 = 31"),
        fns!(NONE, 10, 23 => NONE, "all ones: 32 would be needed"),
        fns!(NONE, 10, -5 => 6, "all ones: 10 - 5 + 1"),
        fns!(NONE, 10, -11 => 0, "all ones: 10 - 11 + 1 = 0"),
        fns!(NONE, 10, -12 => NONE, "all ones: -1 would be needed"),
        fns!(NONE, 0, 32 => 31, "all ones from 0: the 32nd is bit 31"),
        fns!(NONE, 31, -32 => 0, "all ones from 31: the 32nd down is bit 0"),
        // The far ends of .s32: never that many set bits (|MININT| = 2^31 is no overflow).
        fns!(NONE, 31, i32::MIN => NONE, "offset MININT: the 2^31st set bit down"),
        fns!(NONE, 0, i32::MAX => NONE, "offset MAXINT: the 2^31 - 1st set bit"),
        fns!(NONE, 0, -1 => 0, "all ones, offset -1 at base 0"),
    ]);
}

/// Each operand as an immediate in turn (mask 0xaaaaaaaa, base 2, offset -1
/// where a register holds it), the others in registers; all three at once;
/// decimal, hexadecimal and negative literals; an .f32 register as mask
/// (ptxas takes any 32-bit register there).
#[test]
#[rustfmt::skip]
fn immediates_for_each_operand() {
    const REGS: &[(&str, u64)] = &[("%r2", 0xaaaa_aaaa), ("%r3", 2), ("%r4", 0xffff_ffff)];
    check_table(&[
        Case { asm: "fns.b32 %r1, 0xaaaaaaaa, %r3, %r4;", inputs: REGS, expect: &[("%r1", 1)], why: "immediate mask: down from 2" },
        Case { asm: "fns.b32 %r1, %r2, 2, %r4;", inputs: REGS, expect: &[("%r1", 1)], why: "immediate base" },
        Case { asm: "fns.b32 %r1, %r2, %r3, -1;", inputs: REGS, expect: &[("%r1", 1)], why: "immediate negative offset" },
        Case { asm: "fns.b32 %r1, %r2, 31, -3;", inputs: REGS, expect: &[("%r1", 27)], why: "down from 31: 31, 29, 27" },
        Case { asm: "fns.b32 %r1, %r2, 0x1f, 0x2;", inputs: REGS, expect: &[("%r1", NONE)], why: "hex base and offset: nothing above 31" },
        Case { asm: "fns.b32 %r1, 0xffffffff, 10, -11;", inputs: &[], expect: &[("%r1", 0)], why: "all immediates: 10 - 11 + 1" },
        Case { asm: "fns.b32 %r1, 0, 5, 0;", inputs: &[], expect: &[("%r1", NONE)], why: "all immediates, mask 0" },
        Case { asm: "fns.b32 %r1, 4294967295, 0, 32;", inputs: &[], expect: &[("%r1", 31)], why: "decimal all-ones mask" },
        Case { asm: "fns.b32 %r1, %r2, %r3, 0;", inputs: REGS, expect: &[("%r1", NONE)], why: "immediate offset 0, bit 2 clear" },
        Case { asm: "fns.b32 %r1, %f2, %r3, %r4;", inputs: &[("%f2", 0xaaaa_aaaa), ("%r3", 2), ("%r4", 1)], expect: &[("%r1", 3)], why: "an .f32 register's bits as mask" },
    ]);
}

/// A base above 31 (as .u32: every negative .s32 base too) is undefined:
/// the run stops with `Undefined`, a fault of the program, in registers
/// and as an immediate.
#[test]
fn base_above_31_is_undefined() {
    for (asm, base) in [
        ("fns.b32 %r1, %r2, %r3, %r4;", 32u64),
        ("fns.b32 %r1, %r2, %r3, %r4;", 33),
        ("fns.b32 %r1, %r2, %r3, %r4;", 0x8000_0000),
        ("fns.b32 %r1, %r2, %r3, %r4;", 0xffff_ffff),
        ("fns.b32 %r1, %r2, 32, %r4;", 0),
        ("fns.b32 %r1, %r2, -1, %r4;", 0),
    ] {
        for offset in [0u64, 1, 0xffff_ffff] {
            let got = eval(asm, &[("%r2", 0xffff_ffff), ("%r3", base), ("%r4", offset)], &["%r1"]);
            match got {
                Err(e @ InterpError::Undefined { .. }) => assert_eq!(e.class(), ErrorClass::ProgramFault),
                other => panic!("{asm} base {base:#x} offset {offset:#x}: expected undefined, got {other:?}"),
            }
        }
    }
}

/// fns has one type, .b32, and no other modifier.
#[test]
fn other_types_and_modifiers_cannot_be_modelled() {
    expect_cannot_model("fns.u32 %r1, %r2, %r3, %r4;", &[]);
    expect_cannot_model("fns.b32.sat %r1, %r2, %r3, %r4;", &[]);
    expect_cannot_model("fns.b32 %r1, %r2, %r3;", &[]);
}

/// Every base with every offset -34..=34 and masks of every density.
#[test]
fn every_base_and_small_offset_match_the_isa_loop() {
    let masks = [0u32, u32::MAX, 0xaaaa_aaaa, 0x5555_5555, 1, 0x8000_0000, 0x8000_0001, 0x00ff_0000, 0x1234_5678];
    let mut records = Vec::new();
    for &mask in &masks {
        for base in 0..32u32 {
            for offset in -34..=34i32 {
                records.push(vec![mask as u64, base as u64, offset as u32 as u64]);
            }
        }
    }
    check_against_model(&records);
}

/// The pseudo-random triples of the hardware check: a mask of varied
/// density, a base in 0..=31, an offset that is 0 (1 in 8), anything in
/// .s32 (1 in 8) or in -34..=34. The generator is `ptx_interp::SplitMix64`,
/// which `scripts/fns-hardware/fns.cu` repeats bit for bit.
fn triple(rng: &mut SplitMix64) -> (u32, u32, i32) {
    let (a, b, c) = (rng.next_u64(), rng.next_u64(), rng.next_u64());
    let mask = match c & 3 {
        0 => a as u32,
        1 => (a & b) as u32,
        2 => (a | b) as u32,
        _ => (a & b & (b >> 32)) as u32,
    };
    let base = ((c >> 2) & 31) as u32;
    let offset = match (c >> 7) & 7 {
        0 => 0,
        1 => (c >> 32) as u32 as i32,
        _ => ((c >> 10) % 69) as i32 - 34,
    };
    (mask, base, offset)
}

/// The seed of [`seeded_triples_match_the_isa_loop`].
const SEED: u64 = 0xf125;

/// FNV-1a over 32-bit words (one xor and one multiply per result): the
/// digest the hardware check prints.
fn digest(results: &[u32]) -> u64 {
    results.iter().fold(0xcbf2_9ce4_8422_2325, |h, &d| (h ^ d as u64).wrapping_mul(0x0000_0100_0000_01b3))
}

/// The digest of the 4096 results of `fns` on an H200 for the triples of
/// [`SEED`] (see the module comment); the ISA loop gives the same.
const H200_DIGEST: u64 = 0xb40a_15e2_7f8c_6f9b;

/// 4096 seeded triples through the interpreter: each result equal to the
/// ISA's loop, and all of them together to what the H200 computed.
#[test]
fn seeded_triples_match_the_isa_loop() {
    let mut rng = SplitMix64::new(SEED);
    let triples: Vec<(u32, u32, i32)> = (0..4096).map(|_| triple(&mut rng)).collect();
    let records: Vec<Vec<u64>> = triples.iter().map(|&(m, b, o)| vec![m as u64, b as u64, o as u32 as u64]).collect();
    let got = check_against_model(&records);
    let model: Vec<u32> = triples.iter().map(|&(m, b, o)| models::fns(m, b, o)).collect();
    assert_eq!(digest(&model), H200_DIGEST, "the ISA loop no longer matches the hardware's results");
    assert_eq!(digest(&got), H200_DIGEST, "the interpreter does not match the hardware's results");
    // The triples reach every outcome: found above base, below it, at it
    // with offset 0, and not found.
    let mut outcomes = [0usize; 4];
    for (&(_, base, offset), &d) in triples.iter().zip(&got) {
        match (offset.signum(), d) {
            (_, u32::MAX) => outcomes[3] += 1,
            (1, d) if d > base => outcomes[0] += 1,
            (-1, d) if d < base => outcomes[1] += 1,
            (0, d) if d == base => outcomes[2] += 1,
            _ => {}
        }
    }
    assert!(outcomes.iter().all(|&n| n > 100), "outcomes up/down/at base/none: {outcomes:?}");
}

/// Runs `fns` on each record (mask, base, offset bits) and compares every
/// result with [`models::fns`]; returns the results.
fn check_against_model(records: &[Vec<u64>]) -> Vec<u32> {
    let out = map("fns.b32 %r1, %r2, %r3, %r4;", &["%r2", "%r3", "%r4"], &["%r1"], records).expect("fns runs");
    let mut bad = Vec::new();
    let mut got = Vec::with_capacity(records.len());
    for (rec, out) in records.iter().zip(out) {
        let (mask, base, offset) = (rec[0] as u32, rec[1] as u32, rec[2] as u32 as i32);
        let (d, want) = (out[0] as u32, models::fns(mask, base, offset));
        if d != want {
            bad.push(format!("mask {mask:#010x} base {base} offset {offset}: got {d:#x}, ISA loop {want:#x}"));
        }
        got.push(d);
    }
    assert!(bad.is_empty(), "{} of {} differ, e.g.\n{}", bad.len(), records.len(), bad[..bad.len().min(10)].join("\n"));
    got
}
