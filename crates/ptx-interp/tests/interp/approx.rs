//! The model of the approximate math instructions (`ptx_interp::approx`):
//! known values from the functions' definitions, the `.ftz` rules, every
//! f16 input against an independent rounding of the real function, and
//! correct rounding of f32 results on sampled inputs.

use crate::harness::eval;
use crate::models::{decode16, round16, Dir};
use ptx_interp::approx::{self, ApproxFn};
use ptx_interp::softfloat::{F16, F32};
use ptx_interp::SplitMix64;

const NAN32: u64 = 0x7fff_ffff;

/// Instruction, preloaded registers, expected result, where it comes from.
type KnownValue = (&'static str, &'static [(&'static str, u64)], u64, &'static str);

#[test]
#[rustfmt::skip]
fn known_values_through_instructions() {
    let cases: &[KnownValue] = &[
        ("ex2.approx.f32 %f1, %f2;", &[("%f2", 0x4040_0000)], 0x4100_0000, "2^3 = 8"),
        ("ex2.approx.ftz.f32 %f1, %f2;", &[("%f2", 0xff80_0000)], 0, "2^-inf = +0"),
        ("ex2.approx.f32 %f1, %f2;", &[("%f2", 0x7f80_0000)], 0x7f80_0000, "2^inf = inf"),
        ("ex2.approx.f32 %f1, %f2;", &[("%f2", 0xc302_0000)], 0x0008_0000, "2^-130: subnormal, kept"),
        ("ex2.approx.ftz.f32 %f1, %f2;", &[("%f2", 0xc302_0000)], 0, "2^-130 flushed by .ftz"),
        ("lg2.approx.f32 %f1, %f2;", &[("%f2", 0x4100_0000)], 0x4040_0000, "log2 8 = 3"),
        ("lg2.approx.f32 %f1, %f2;", &[("%f2", 0)], 0xff80_0000, "log2 0 = -inf"),
        ("lg2.approx.f32 %f1, %f2;", &[("%f2", 0xbf80_0000)], NAN32, "log2 -1 = NaN"),
        ("lg2.approx.f32 %f1, %f2;", &[("%f2", 1)], 0xc315_0000, "log2 2^-149 = -149 (subnormal input kept)"),
        ("lg2.approx.ftz.f32 %f1, %f2;", &[("%f2", 1)], 0xff80_0000, "flushed to 0: -inf"),
        ("sin.approx.f32 %f1, %f2;", &[("%f2", 0x8000_0000)], 0x8000_0000, "sin -0 = -0"),
        ("sin.approx.f32 %f1, %f2;", &[("%f2", 0x7f80_0000)], NAN32, "sin inf = NaN"),
        ("cos.approx.f32 %f1, %f2;", &[("%f2", 0)], 0x3f80_0000, "cos 0 = 1"),
        ("tanh.approx.f32 %f1, %f2;", &[("%f2", 0xff80_0000)], 0xbf80_0000, "tanh -inf = -1"),
        ("rsqrt.approx.f32 %f1, %f2;", &[("%f2", 0x4080_0000)], 0x3f00_0000, "1/sqrt 4 = 0.5"),
        ("rsqrt.approx.f32 %f1, %f2;", &[("%f2", 0x8000_0000)], 0xff80_0000, "1/sqrt -0 = -inf"),
        ("rsqrt.approx.f32 %f1, %f2;", &[("%f2", 0xbf80_0000)], NAN32, "1/sqrt -1 = NaN"),
        ("rcp.approx.f32 %f1, %f2;", &[("%f2", 0x4040_0000)], 0x3eaa_aaab, "1/3 rounded to nearest"),
        ("rcp.approx.f32 %f1, %f2;", &[("%f2", 0x0040_0000)], 0x7f00_0000, "1/2^-127 = 2^127"),
        ("rcp.approx.ftz.f32 %f1, %f2;", &[("%f2", 0x0040_0000)], 0x7f80_0000, ".ftz: 1/+0 = inf"),
        ("sqrt.approx.f32 %f1, %f2;", &[("%f2", 0x4000_0000)], 0x3fb5_04f3, "sqrt 2 rounded to nearest"),
        ("div.approx.f32 %f1, %f2, %f3;", &[("%f2", 0x3f80_0000), ("%f3", 0x4040_0000)], 0x3eaa_aaab, "1/3"),
        ("div.full.ftz.f32 %f1, %f2, %f3;", &[("%f2", 0x0000_0001), ("%f3", 0x4040_0000)], 0, "subnormal a flushed"),
        ("ex2.approx.f16 %rs1, %rs2;", &[("%rs2", 0x3c00)], 0x4000, "f16: 2^1 = 2"),
        ("ex2.approx.f16x2 %r1, %r2;", &[("%r2", 0x3c00_4000)], 0x4000_4400, "f16x2: per half, 2^1 | 2^2"),
        ("ex2.approx.ftz.bf16 %rs1, %rs2;", &[("%rs2", 0xc000)], 0x3e80, "bf16: 2^-2 = 0.25"),
        ("tanh.approx.f16 %rs1, %rs2;", &[("%rs2", 0)], 0, "tanh 0 = 0"),
    ];
    for (asm, inputs, want, why) in cases {
        let out = if asm.contains("%rs1") { "%rs1" } else if asm.contains("%r1") { "%r1" } else { "%f1" };
        let got = eval(asm, inputs, &[out]).unwrap_or_else(|e| panic!("{asm}: {e}"))[0];
        assert_eq!(got, *want, "{asm} ({why}): {got:#x} != {want:#x}");
    }
}

fn real(f: ApproxFn, x: f64) -> f64 {
    match f {
        ApproxFn::Ex2 => x.exp2(),
        ApproxFn::Lg2 => x.log2(),
        ApproxFn::Sin => x.sin(),
        ApproxFn::Cos => x.cos(),
        ApproxFn::Tanh => x.tanh(),
        ApproxFn::Rsqrt => 1.0 / x.sqrt(),
        ApproxFn::Rcp => 1.0 / x,
        ApproxFn::Sqrt => x.sqrt(),
    }
}

const ALL: [ApproxFn; 8] = [
    ApproxFn::Ex2,
    ApproxFn::Lg2,
    ApproxFn::Sin,
    ApproxFn::Cos,
    ApproxFn::Tanh,
    ApproxFn::Rsqrt,
    ApproxFn::Rcp,
    ApproxFn::Sqrt,
];

/// Every f16 input of every function is the real function's value rounded
/// to nearest by an independent rounding (the test models' search over
/// all f16 values), NaN canonical.
#[test]
fn every_f16_input_is_the_rounded_real_function() {
    for f in ALL {
        for x in 0..=u16::MAX {
            let got = approx::unary(f, x as u64, F16, false);
            let want = round16(real(f, decode16(x, 5, 10)), 5, 10, Dir::Nearest);
            assert_eq!(got, want as u64, "{f:?}({x:#06x})");
        }
    }
}

/// On f32 the result is the nearest f32 to the real value (checked in f64
/// against both neighbours), .ftz treats a subnormal input as a zero of
/// its sign and flushes subnormal results.
#[test]
fn f32_results_are_nearest_and_ftz_flushes() {
    let mut rng = SplitMix64::new(0xa9905);
    for f in ALL {
        for i in 0..20_000 {
            // Half the samples in [-64, 64] where results are interesting,
            // half arbitrary bit patterns.
            let x = if i % 2 == 0 {
                (rng.next_u64() as i64 % 64_000_000) as f32 / 1e6
            } else {
                f32::from_bits(rng.next_u64() as u32)
            };
            let got = f32::from_bits(approx::unary(f, x.to_bits() as u64, F32, false) as u32);
            let v = real(f, x as f64);
            if v.is_nan() {
                assert_eq!(got.to_bits() as u64, NAN32, "{f:?}({x:e})");
                continue;
            }
            if got.is_infinite() || got == 0.0 {
                assert!(got as f64 == v || (v.abs() as f32) == got.abs(), "{f:?}({x:e}) = {got:e}, real {v:e}");
                continue;
            }
            let err = (got as f64 - v).abs();
            for n in [f32::from_bits(got.to_bits() + 1), f32::from_bits(got.to_bits() - 1)] {
                assert!(err <= (n as f64 - v).abs(), "{f:?}({x:e}) = {got:e} but {n:e} is nearer to {v:e}");
            }
            // .ftz: subnormal inputs read as zero, subnormal results flush.
            let ftz = approx::unary(f, x.to_bits() as u64, F32, true);
            let expect = if x.is_subnormal() {
                approx::unary(f, (x.to_bits() & 0x8000_0000) as u64, F32, true)
            } else if got.is_subnormal() {
                (got.to_bits() & 0x8000_0000) as u64
            } else {
                got.to_bits() as u64
            };
            assert_eq!(ftz, expect, "{f:?}.ftz({x:e})");
        }
    }
}
