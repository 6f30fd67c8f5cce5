//! prmt: all 65536 generic selectors and every mode with every selector
//! value, through the interpreter, against the model built from the ISA
//! table; plus LLVM's `prmt-const-folding.ll` results as extra truth.

use crate::harness::{eval, module_text, run_grid, words};
use crate::models;

/// Source pairs: the identity bytes, sign-bit patterns, random words.
const PAIRS: &[(u32, u32)] = &[
    (0x0302_0100, 0x0706_0504),
    (0x8091_a2b3, 0xc4d5_e6f7),
    (0xf322_f100, 0x7766_5544),
    (0x0000_0000, 0xffff_ffff),
    (0x7f80_7f80, 0x807f_807f),
    (0xdead_beef, 0x0123_4567),
];

/// Every generic selector, 1024 per thread on 2 CTAs of 32 threads.
#[test]
fn generic_prmt_all_selectors_match_the_spec_model() {
    let body = "\tld.global.u32 %r1, [%rd15];\n\tld.global.u32 %r2, [%rd15+4];\n\
        \tmov.u32 %r3, %tid.x;\n\tmov.u32 %r4, %ctaid.x;\n\tmov.u32 %r5, %ntid.x;\n\tmad.lo.u32 %r6, %r4, %r5, %r3;\n\
        \tshl.b32 %r7, %r6, 10;\n\tadd.u32 %r8, %r7, 1024;\n\
        LOOP:\n\tprmt.b32 %r9, %r1, %r2, %r7;\n\tmul.wide.u32 %rd1, %r7, 4;\n\tadd.s64 %rd2, %rd14, %rd1;\n\
        \tst.global.u32 [%rd2], %r9;\n\tadd.u32 %r7, %r7, 1;\n\tsetp.lt.u32 %p1, %r7, %r8;\n\t@%p1 bra LOOP;";
    let text = module_text(body, "", "");
    for &(a, b) in PAIRS {
        let mut input = a.to_le_bytes().to_vec();
        input.extend(b.to_le_bytes());
        let out = run_grid(&text, &input, 2, 32, 65536 * 4).expect("prmt kernel runs");
        let got = words(&out.buffers[0].data);
        let mut bad = Vec::new();
        for (c, d) in got.iter().enumerate() {
            let want = models::prmt(a, b, c as u32, None);
            if *d != want {
                bad.push(format!("a={a:#010x} b={b:#010x} c={c:#06x}: got {d:#010x}, spec {want:#010x}"));
            }
        }
        assert!(bad.is_empty(), "{} selectors wrong, e.g.\n{}", bad.len(), bad[..bad.len().min(10)].join("\n"));
    }
}

/// Selector bits above 15 are ignored by the generic form.
#[test]
fn generic_prmt_ignores_high_selector_bits() {
    for c in [0x0001_3210u32, 0xffff_7654, 0x1234_ba98] {
        let got = eval(
            "prmt.b32 %r1, %r2, %r3, %r4;",
            &[("%r2", 0x8091_a2b3), ("%r3", 0xc4d5_e6f7), ("%r4", c as u64)],
            &["%r1"],
        )
        .unwrap()[0] as u32;
        assert_eq!(got, models::prmt(0x8091_a2b3, 0xc4d5_e6f7, c & 0xffff, None), "c={c:#x}");
    }
}

/// Every mode with selector values 0..8 (only c[1:0] counts) on every pair.
#[test]
fn prmt_modes_match_the_spec_table() {
    let mut bad = Vec::new();
    for (mode, _) in models::PRMT_MODE_TABLE {
        for &(a, b) in PAIRS {
            for c in 0..8u64 {
                let asm = format!("prmt.b32.{mode} %r1, %r2, %r3, %r4;");
                let got = eval(&asm, &[("%r2", a as u64), ("%r3", b as u64), ("%r4", c | 0xabc0)], &["%r1"]).unwrap()[0]
                    as u32;
                let want = models::prmt(a, b, c as u32, Some(mode));
                if got != want {
                    bad.push(format!("{mode} a={a:#x} b={b:#x} c={c}: got {got:#010x}, spec {want:#010x}"));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// LLVM `test/CodeGen/NVPTX/prmt-const-folding.ll` (llvm-project
/// 393638ff): the values llc folds each call to, inputs 0x03020100 /
/// 0x07060504. The single-input modes (ecl, ecr, rc8, rc16) only read a.
#[test]
fn prmt_matches_llvm_constant_folding_goldens() {
    let (a, b) = (0x0302_0100u64, 0x0706_0504u64);
    let golden: &[(&str, u64, u32)] = &[
        ("f4e", 0, 50462976),
        ("f4e", 1, 67305985),
        ("f4e", 2, 84148994),
        ("f4e", 3, 100992003),
        ("f4e", 4, 50462976),
        ("b4e", 0, 84281088),
        ("b4e", 1, 101122049),
        ("b4e", 2, 117440770),
        ("b4e", 3, 66051),
        ("b4e", 4, 84281088),
        ("ecl", 0, 50462976),
        ("ecl", 1, 50462977),
        ("ecl", 2, 50463234),
        ("ecl", 3, 50529027),
        ("ecr", 0, 0),
        ("ecr", 1, 16843008),
        ("ecr", 2, 33685760),
        ("ecr", 3, 50462976),
        ("rc8", 0, 0),
        ("rc8", 1, 16843009),
        ("rc8", 2, 33686018),
        ("rc8", 3, 50529027),
        ("rc8", 4, 0),
        ("rc16", 0, 16777472),
        ("rc16", 1, 50463490),
        ("rc16", 2, 16777472),
    ];
    for &(mode, c, want) in golden {
        let got = eval(&format!("prmt.b32.{mode} %r1, %r2, %r3, %r4;"), &[("%r2", a), ("%r3", b), ("%r4", c)], &["%r1"])
            .unwrap()[0] as u32;
        assert_eq!(got, want, "prmt.{mode} selector {c}");
    }
    let basic: &[(u64, u64, u64, u32)] = &[
        (0x0302_0100, 0x0706_0504, 0x0123, 66051),
        (0x0302_0100, 0x0706_0504, 0x7171, 117507841),
        (0x3322_1100, 0x7766_5544, 0x4567, 1146447479),
        (0x3322_1100, 0x7766_5544, 0xBA98, 0),
        (0xF322_F100, 0x7766_5544, 0xBA98, -16711936i32 as u32),
    ];
    for &(a, b, c, want) in basic {
        let got =
            eval("prmt.b32 %r1, %r2, %r3, %r4;", &[("%r2", a), ("%r3", b), ("%r4", c)], &["%r1"]).unwrap()[0] as u32;
        assert_eq!(got, want, "prmt {a:#x} {b:#x} {c:#x}");
    }
}

/// The model itself agrees with the goldens (so the exhaustive checks test
/// against something anchored outside this crate).
#[test]
fn model_agrees_with_llvm_goldens() {
    assert_eq!(models::prmt(0x0302_0100, 0x0706_0504, 3, Some("b4e")), 66051);
    assert_eq!(models::prmt(0xF322_F100, 0x7766_5544, 0xBA98, None), 0xFF00_FF00);
    assert_eq!(models::prmt(0x0302_0100, 0x0706_0504, 1, Some("rc16")), 50463490);
}
