//! Conversions: cvt.pack in every form and cvt between integer types with
//! and without .sat over the boundary values of every type; float-to-int,
//! int-to-float and float-to-float in every rounding mode against
//! brute-force models; .ftz, .sat, .relu, .satfinite and NaN handling.

use crate::harness::{eval, expect_cannot_model, map};
use crate::models;

const INT_TYPES: &[&str] = &["u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64"];

fn bits_of(t: &str) -> u32 {
    t[1..].parse().unwrap()
}

/// MIN-1, MIN, MAX, MAX+1 of every type, 0, 1, -1, and the 32/64-bit
/// extremes, as 64-bit patterns.
fn boundary_values() -> Vec<u64> {
    let mut v: Vec<i128> = vec![0, 1, -1, 2, -2];
    for t in INT_TYPES {
        let bits = bits_of(t);
        let (lo, hi): (i128, i128) = if t.starts_with('s') {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        } else {
            (0, (1i128 << bits) - 1)
        };
        v.extend([lo - 1, lo, lo + 1, hi - 1, hi, hi + 1]);
    }
    let mut out: Vec<u64> = v.into_iter().map(|x| x as u64).collect();
    out.sort();
    out.dedup();
    out
}

/// Sign- or zero-extension of a `bits`-wide pattern to 64 bits.
fn extend64(v: u64, bits: u32, signed: bool) -> u64 {
    if bits == 64 {
        return v;
    }
    let v = v & ((1 << bits) - 1);
    if signed && v >> (bits - 1) & 1 == 1 {
        v | !((1 << bits) - 1)
    } else {
        v
    }
}

#[test]
fn cvt_pack_all_forms_over_boundary_values() {
    let specials: Vec<i64> =
        vec![i32::MIN as i64, i32::MAX as i64, 0, -1, 1, 0x7fff, 0x8000, -0x8000, -0x8001, 0xffff, 0x10000];
    for convert in ["u16", "s16", "u8", "s8", "u4", "s4", "u2", "s2"] {
        let (min, max) = models::range(convert);
        let mut vals: Vec<i64> = vec![min - 1, min, min + 1, max - 1, max, max + 1];
        vals.extend(&specials);
        vals.retain(|v| (i32::MIN as i64..=i32::MAX as i64).contains(v));
        vals.sort();
        vals.dedup();
        let wide = convert.ends_with("16");
        let cs: &[u32] = if wide { &[0] } else { &[0, 0xffff_ffff, 0x1234_5678, 0x8000_0001] };
        let mut records = Vec::new();
        for &a in &vals {
            for &b in &vals {
                for &c in cs {
                    records.push(vec![a as i32 as u32 as u64, b as i32 as u32 as u64, c as u64]);
                }
            }
        }
        let asm = if wide {
            format!("cvt.pack.sat.{convert}.s32 %r1, %r2, %r3;")
        } else {
            format!("cvt.pack.sat.{convert}.s32.b32 %r1, %r2, %r3, %r4;")
        };
        let got = map(&asm, &["%r2", "%r3", "%r4"], &["%r1"], &records).expect("cvt.pack runs");
        for (rec, out) in records.iter().zip(got) {
            let want = models::cvt_pack(convert, rec[0] as u32 as i32, rec[1] as u32 as i32, rec[2] as u32);
            assert_eq!(out[0] as u32, want, "{asm} a={} b={} c={:#x}", rec[0] as i32, rec[1] as i32, rec[2]);
        }
    }
}

/// The ISA example chain: `%r7 = { %r5, %r6, %r8, %r9 }` bytes, high to low.
#[test]
fn cvt_pack_u8_chain_from_the_isa_example() {
    let got = eval(
        "cvt.pack.sat.u8.s32.b32 %r4, %r5, %r6, 0;\n\tcvt.pack.sat.u8.s32.b32 %r7, %r8, %r9, %r4;",
        &[("%r5", 0x11), ("%r6", 0x22), ("%r8", 0x33), ("%r9", 300)],
        &["%r4", "%r7"],
    )
    .unwrap();
    assert_eq!(got, vec![0x1122, 0x1122_33ff]);
}

#[test]
fn cvt_pack_needs_sat_and_the_right_operands() {
    expect_cannot_model("cvt.pack.u16.s32 %r1, %r2, %r3;", &[]);
    expect_cannot_model("cvt.pack.sat.u8.s32.b32 %r1, %r2, %r3;", &[]);
    expect_cannot_model("cvt.pack.sat.u16.s32 %r1, %r2, %r3, %r4;", &[]);
}

#[test]
fn int_to_int_with_and_without_sat_over_boundaries() {
    let values = boundary_values();
    let records: Vec<Vec<u64>> = values.iter().map(|&v| vec![v]).collect();
    let mut bad = Vec::new();
    for dst in INT_TYPES {
        for src in INT_TYPES {
            for sat in [false, true] {
                let asm = format!("cvt{}.{dst}.{src} %rd1, %rd2;", if sat { ".sat" } else { "" });
                let got = map(&asm, &["%rd2"], &["%rd1"], &records).expect("cvt runs");
                for (v, out) in values.iter().zip(got) {
                    let want = models::int_cvt(dst, src, *v, sat);
                    // The 64-bit destination register holds the result extended by dst's signedness.
                    let want = extend64(want, bits_of(dst), dst.starts_with('s'));
                    if out[0] != want {
                        bad.push(format!("{asm} of {v:#x}: got {:#x}, want {want:#x}", out[0]));
                    }
                }
            }
        }
    }
    assert!(bad.is_empty(), "{} wrong:\n{}", bad.len(), bad[..bad.len().min(20)].join("\n"));
}

/// Destination register narrower types: cvt.s8.s32 into a 32-bit register
/// sign-extends; cvt.u8.s32 zero-extends (ISA 9.4.1 Table 28).
#[test]
fn int_cvt_destination_extension() {
    let got = eval("cvt.s8.s32 %r1, %r2;\n\tcvt.u8.s32 %r3, %r2;", &[("%r2", 0x1f0)], &["%r1", "%r3"]).unwrap();
    assert_eq!(got, vec![0xffff_fff0, 0xf0]);
}

// ---------------------------------------------------------------- floats

use crate::models::{decode16, f32_step, round16, round_f32, Dir, DIRS};

fn f32_samples() -> Vec<f32> {
    let mut v = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        1.5,
        2.5,
        -2.5,
        3.5,
        0.1,
        -0.1,
        65504.0,
        65519.0,
        65520.0,
        70000.0,
        -70000.0,
        5.960_464_5e-8,
        2.980_232_2e-8,
        2.980_233e-8,
        6.1e-5,
        6.097_555e-5,
        1e-40,
        -1e-40,
        3.0e38,
        f32::MAX,
        f32::MIN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        2147483520.0,
        2147483648.0,
        -2147483648.0,
        4294967040.0,
        4294967296.0,
        9.223_372e18,
        -9.223_372e18,
        1.844_674_4e19,
        255.5,
        256.0,
        -128.5,
        -129.0,
        127.5,
        32767.5,
        -32768.5,
        65535.5,
    ];
    let mut s = ptx_interp::SplitMix64::new(7);
    for _ in 0..400 {
        let b = s.next_u64() as u32;
        let f = f32::from_bits(b);
        if !f.is_nan() {
            v.push(f);
        }
        // Values near the 16-bit ranges, with random low bits.
        v.push(f32::from_bits((0x3800_0000 + (b % 0x0f00_0000)) ^ (b & 0x8000_0000)));
    }
    v
}

#[test]
fn f32_to_f16_and_bf16_in_every_direction() {
    let samples = f32_samples();
    let records: Vec<Vec<u64>> = samples.iter().map(|f| vec![f.to_bits() as u64]).collect();
    let mut bad = Vec::new();
    for (dir, rnd, _) in DIRS {
        for (ty, e, m) in [("f16", 5, 10), ("bf16", 8, 7)] {
            let asm = format!("cvt.{rnd}.{ty}.f32 %rs1, %f1;");
            let got = map(&asm, &["%f1"], &["%rs1"], &records).unwrap();
            for (f, out) in samples.iter().zip(got) {
                let want = round16(*f as f64, e, m, dir);
                if out[0] as u16 != want {
                    bad.push(format!("{asm} of {f:e} ({:#010x}): got {:#06x}, want {want:#06x}", f.to_bits(), out[0]));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{} wrong:\n{}", bad.len(), bad[..bad.len().min(20)].join("\n"));
}

#[test]
fn every_f16_and_bf16_widens_exactly() {
    let records: Vec<Vec<u64>> = (0..=u16::MAX).map(|b| vec![b as u64]).collect();
    for (ty, e, m) in [("f16", 5, 10), ("bf16", 8, 7)] {
        let got =
            map(&format!("cvt.f32.{ty} %f1, %rs1;\n\tcvt.f64.{ty} %fd1, %rs1;"), &["%rs1"], &["%f1", "%fd1"], &records)
                .unwrap();
        for (b, out) in (0..=u16::MAX).zip(got) {
            let want = decode16(b, e, m);
            let (f, d) = (f32::from_bits(out[0] as u32), f64::from_bits(out[1]));
            if want.is_nan() {
                assert_eq!((out[0], out[1]), (0x7fff_ffff, 0x7fff_ffff_ffff_ffff), "{ty} {b:#x}: canonical NaN");
            } else {
                assert_eq!(f as f64, want, "{ty} {b:#x} to f32");
                assert_eq!(f.is_sign_negative(), want.is_sign_negative(), "{ty} {b:#x} sign");
                assert_eq!(d, want, "{ty} {b:#x} to f64");
            }
        }
    }
}

#[test]
fn f64_to_f32_in_every_direction() {
    let mut samples: Vec<f64> = vec![
        0.1,
        -0.1,
        1.0 / 3.0,
        -2.0 / 3.0,
        1e-39,
        1e-46,
        -1e-46,
        1.5e-45,
        3.5e38,
        -3.5e38,
        1e300,
        f64::MAX,
        f64::MIN_POSITIVE,
    ];
    let mut s = ptx_interp::SplitMix64::new(11);
    for _ in 0..500 {
        let x = f64::from_bits(s.next_u64());
        if !x.is_nan() {
            samples.push(x);
        }
        samples.push((s.next_u64() >> 11) as f64 / (1u64 << 40) as f64 - 4096.0);
    }
    let records: Vec<Vec<u64>> = samples.iter().map(|f| vec![f.to_bits()]).collect();
    for (dir, rnd, _) in DIRS {
        let asm = format!("cvt.{rnd}.f32.f64 %f1, %fd1;");
        let got = map(&asm, &["%fd1"], &["%f1"], &records).unwrap();
        for (x, out) in samples.iter().zip(got) {
            let want = round_f32(*x, dir);
            assert_eq!(out[0] as u32, want.to_bits(), "{asm} of {x:e}");
        }
    }
}

/// float-to-int, model in f64: NaN gives 0, out-of-range values saturate.
fn f2i(x: f64, dir: Dir, dst: &str) -> u64 {
    if x.is_nan() {
        return 0;
    }
    let r = match dir {
        Dir::Nearest => x.round_ties_even(),
        Dir::Zero => x.trunc(),
        Dir::Down => x.floor(),
        Dir::Up => x.ceil(),
    };
    let bits = bits_of(dst);
    let (lo, hi): (i128, i128) = if dst.starts_with('s') {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    };
    let v = if r < lo as f64 {
        lo
    } else if r >= (hi + 1) as f64 {
        hi
    } else {
        r as i128
    };
    (v as u128 & if bits == 64 { u64::MAX as u128 } else { (1u128 << bits) - 1 }) as u64
}

#[test]
fn float_to_int_rounds_and_saturates() {
    let f32s = f32_samples();
    let mut bad = Vec::new();
    for (src, reg) in [("f32", "%f1"), ("f64", "%fd1")] {
        let records: Vec<Vec<u64>> = f32s
            .iter()
            .map(|f| vec![if src == "f32" { f.to_bits() as u64 } else { (*f as f64).to_bits() }])
            .chain([vec![if src == "f32" { 0x7fc0_0000 } else { f64::NAN.to_bits() }]])
            .collect();
        for (dir, _, irnd) in DIRS {
            for dst in INT_TYPES {
                let asm = format!("cvt.{irnd}.{dst}.{src} %rd1, {reg};");
                let got = map(&asm, &[reg], &["%rd1"], &records).unwrap();
                for (rec, out) in records.iter().zip(got) {
                    let x = if src == "f32" { f32::from_bits(rec[0] as u32) as f64 } else { f64::from_bits(rec[0]) };
                    let want = extend64(f2i(x, dir, dst), bits_of(dst), dst.starts_with('s'));
                    if out[0] != want {
                        bad.push(format!("{asm} of {x:e}: got {:#x}, want {want:#x}", out[0]));
                    }
                }
            }
        }
    }
    assert!(bad.is_empty(), "{} wrong:\n{}", bad.len(), bad[..bad.len().min(20)].join("\n"));
}

#[test]
fn f16_to_int_rounds_and_saturates() {
    let records: Vec<Vec<u64>> = (0..=u16::MAX).step_by(7).map(|b| vec![b as u64]).collect();
    for (dir, _, irnd) in DIRS {
        for dst in ["s8", "u8", "s16", "u32", "s64"] {
            let asm = format!("cvt.{irnd}.{dst}.f16 %rd1, %rs1;");
            let got = map(&asm, &["%rs1"], &["%rd1"], &records).unwrap();
            for (rec, out) in records.iter().zip(got) {
                let x = decode16(rec[0] as u16, 5, 10);
                let want = extend64(f2i(x, dir, dst), bits_of(dst), dst.starts_with('s'));
                assert_eq!(out[0], want, "{asm} of {x:e} ({:#x})", rec[0]);
            }
        }
    }
}

/// Exact integer value of an f32 that is integral.
fn int_of(f: f32) -> i128 {
    f as f64 as i128
}

#[test]
fn int_to_float_in_every_direction() {
    let mut values: Vec<i128> = boundary_values().into_iter().map(|v| v as i64 as i128).collect();
    values.extend([16_777_217, -16_777_217, 33_554_435, 2049, 2051, 65519, 65520, 65536 + 16, 1 << 40 | 1]);
    let mut s = ptx_interp::SplitMix64::new(3);
    for _ in 0..200 {
        values.push(s.next_u64() as i64 as i128 >> (s.below(60) as u32));
    }
    let mut bad = Vec::new();
    for src in ["s32", "u32", "s64", "u64"] {
        let bits = bits_of(src);
        let records: Vec<Vec<u64>> = values.iter().map(|v| vec![*v as u64]).collect();
        for (dir, rnd, _) in DIRS {
            let asm = format!("cvt.{rnd}.f32.{src} %f1, %rd1;\n\tcvt.{rnd}.f16.{src} %rs1, %rd1;");
            let got = map(&asm, &["%rd1"], &["%f1", "%rs1"], &records).unwrap();
            for (v, out) in values.iter().zip(got) {
                // The value the instruction sees: the source type's view of the low bits.
                let raw = (*v as u64) & if bits == 64 { u64::MAX } else { (1 << bits) - 1 };
                let exact: i128 = if src.starts_with('s') && raw >> (bits - 1) & 1 == 1 {
                    raw as i128 - (1i128 << bits)
                } else {
                    raw as i128
                };
                let n = exact as f32;
                let want32 = if int_of(n) == exact {
                    n
                } else {
                    let (lo, hi) = if int_of(n) < exact { (n, f32_step(n, true)) } else { (f32_step(n, false), n) };
                    match dir {
                        Dir::Nearest => n,
                        Dir::Down => lo,
                        Dir::Up => hi,
                        Dir::Zero => {
                            if exact > 0 {
                                lo
                            } else {
                                hi
                            }
                        }
                    }
                };
                if out[0] as u32 != want32.to_bits() {
                    bad.push(format!(
                        "cvt.{rnd}.f32.{src} of {exact}: got {:#x}, want {:#x}",
                        out[0],
                        want32.to_bits()
                    ));
                }
                let want16 = if exact.unsigned_abs() > 1 << 20 {
                    // Far beyond 65504: infinity or the largest finite value.
                    round16(if exact < 0 { -1e9 } else { 1e9 }, 5, 10, dir)
                } else {
                    round16(exact as f64, 5, 10, dir)
                };
                let want16 = if exact == 0 { 0 } else { want16 };
                if out[1] as u16 != want16 {
                    bad.push(format!("cvt.{rnd}.f16.{src} of {exact}: got {:#x}, want {want16:#x}", out[1]));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{} wrong:\n{}", bad.len(), bad[..bad.len().min(20)].join("\n"));
}

#[test]
fn float_rounding_to_integral_value() {
    let samples = f32_samples();
    let records: Vec<Vec<u64>> = samples.iter().map(|f| vec![f.to_bits() as u64, (*f as f64).to_bits()]).collect();
    for (dir, _, irnd) in DIRS {
        let asm = format!("cvt.{irnd}.f32.f32 %f2, %f1;\n\tcvt.{irnd}.f64.f64 %fd2, %fd1;");
        let got = map(&asm, &["%f1", "%fd1"], &["%f2", "%fd2"], &records).unwrap();
        for (f, out) in samples.iter().zip(got) {
            let r = |x: f64| match dir {
                Dir::Nearest => x.round_ties_even(),
                Dir::Zero => x.trunc(),
                Dir::Down => x.floor(),
                Dir::Up => x.ceil(),
            };
            let w = r(*f as f64);
            assert_eq!(out[0] as u32, (w as f32).to_bits(), "{asm} f32 of {f:e}");
            assert_eq!(out[1], w.to_bits(), "{asm} f64 of {f:e}");
        }
    }
}

#[test]
fn float_conversion_modifiers() {
    // .sat clamps to [0, 1] and sends NaN to +0; .ftz flushes f32 subnormals.
    let cases: &[(&str, u64, u64)] = &[
        ("cvt.sat.f32.f32 %f2, %f1;", 1.5f32.to_bits() as u64, 1.0f32.to_bits() as u64),
        ("cvt.sat.f32.f32 %f2, %f1;", (-0.25f32).to_bits() as u64, 0),
        ("cvt.sat.f32.f32 %f2, %f1;", 0x7fc0_0000, 0),
        ("cvt.sat.f32.f32 %f2, %f1;", 0.25f32.to_bits() as u64, 0.25f32.to_bits() as u64),
        ("cvt.ftz.f32.f32 %f2, %f1;", 0x0000_0001, 0),
        ("cvt.ftz.f32.f32 %f2, %f1;", 0x8000_0001, 0x8000_0000),
        ("cvt.f32.f32 %f2, %f1;", 0x8000_0001, 0x8000_0001),
        ("cvt.f32.f32 %f2, %f1;", 0xffc0_0001, 0x7fff_ffff),
        ("cvt.rpi.ftz.f32.f32 %f2, %f1;", 0x0000_0001, 0),
        ("cvt.rpi.f32.f32 %f2, %f1;", 0x0000_0001, 1.0f32.to_bits() as u64),
    ];
    for &(asm, input, want) in cases {
        let got = eval(asm, &[("%f1", input)], &["%f2"]).unwrap()[0];
        assert_eq!(got, want, "{asm} of {input:#x}");
    }
    // f32 subnormal to int with .ftz: treated as zero, so rounding up gives 0.
    let got =
        eval("cvt.rpi.ftz.s32.f32 %r1, %f1;\n\tcvt.rpi.s32.f32 %r2, %f1;", &[("%f1", 1)], &["%r1", "%r2"]).unwrap();
    assert_eq!(got, vec![0, 1]);
    // .relu and .satfinite on f32 -> f16.
    let got = eval(
        "cvt.rn.relu.f16.f32 %rs1, %f1;\n\tcvt.rn.satfinite.f16.f32 %rs2, %f2;\n\tcvt.rn.f16.f32 %rs3, %f2;",
        &[("%f1", (-3.0f32).to_bits() as u64), ("%f2", 1e6f32.to_bits() as u64)],
        &["%rs1", "%rs2", "%rs3"],
    )
    .unwrap();
    assert_eq!(got, vec![0, 0x7bff, 0x7c00]);
    // Packed: a goes to the upper half.
    let got = eval(
        "cvt.rn.f16x2.f32 %r1, %f1, %f2;",
        &[("%f1", 1.0f32.to_bits() as u64), ("%f2", (-2.0f32).to_bits() as u64)],
        &["%r1"],
    )
    .unwrap();
    assert_eq!(got, vec![0x3c00_c000]);
}

#[test]
fn conversions_that_need_a_rounding_mode_are_rejected_without_one() {
    expect_cannot_model("cvt.s32.f32 %r1, %f1;", &[]);
    expect_cannot_model("cvt.f32.s32 %f1, %r1;", &[]);
    expect_cannot_model("cvt.f32.f64 %f1, %fd1;", &[]);
    expect_cannot_model("cvt.rn.s32.f32 %r1, %f1;", &[]);
    expect_cannot_model("cvt.rm.tf32.f32 %r1, %f1;", &[]);
    expect_cannot_model("cvt.rn.e4m3x2.f32 %rs1, %f1, %f2;", &[]);
    expect_cannot_model("cvt.rz.satfinite.e4m3x2.f32 %rs1, %f1, %f2;", &[]);
    expect_cannot_model("cvt.rn.satfinite.e2m1x2.f32 %rc1, %f1, %f2;", &[]);
}

/// An 8-bit float decoded from the OCP FP8 layout: (exponent bits, fraction
/// bits); E4M3 has no infinities and only S.1111.111 as NaN.
fn decode8(byte: u8, e: u32, m: u32) -> f64 {
    let sign = if byte >> 7 == 1 { -1.0 } else { 1.0 };
    let exp = ((byte >> m) & ((1 << e) - 1)) as i32;
    let frac = (byte & ((1 << m) - 1)) as f64;
    let bias = (1 << (e - 1)) - 1;
    let all_ones = (1 << e) - 1;
    if e == 4 && exp == all_ones && frac == 7.0 {
        return f64::NAN;
    }
    if e == 5 && exp == all_ones {
        return if frac == 0.0 { sign * f64::INFINITY } else { f64::NAN };
    }
    if exp == 0 {
        sign * frac * 2f64.powi(1 - bias - m as i32)
    } else {
        sign * (1.0 + frac / 2f64.powi(m as i32)) * 2f64.powi(exp - bias)
    }
}

/// Round to nearest even with .satfinite, by scanning every code.
fn to8(v: f64, e: u32, m: u32) -> u8 {
    if v.is_nan() {
        return 0x7f;
    }
    let sign = if v.is_sign_negative() { 0x80 } else { 0 };
    let max = if e == 4 { 0x7e } else { 0x7b };
    if v.abs() >= decode8(max, e, m) {
        // .satfinite: beyond the largest finite value (infinities included).
        return sign | max;
    }
    let mut best = 0u8;
    let mut best_d = f64::INFINITY;
    for code in 0..0x80u8 {
        let x = decode8(code, e, m);
        if !x.is_finite() {
            continue;
        }
        let d = (x - v.abs()).abs();
        if d < best_d || (d == best_d && code & 1 == 0) {
            best = code;
            best_d = d;
        }
    }
    sign | best
}

#[test]
fn fp8_conversions_match_the_ocp_layouts() {
    let samples = f32_samples();
    let records: Vec<Vec<u64>> = samples
        .chunks(2)
        .filter(|c| c.len() == 2)
        .map(|c| vec![c[0].to_bits() as u64, c[1].to_bits() as u64])
        .collect();
    for (ty, e, m) in [("e4m3x2", 4, 3), ("e5m2x2", 5, 2)] {
        let asm = format!("cvt.rn.satfinite.{ty}.f32 %rs1, %f1, %f2;");
        let got = map(&asm, &["%f1", "%f2"], &["%rs1"], &records).unwrap();
        for (rec, out) in records.iter().zip(got) {
            let (a, b) = (f32::from_bits(rec[0] as u32) as f64, f32::from_bits(rec[1] as u32) as f64);
            let want = ((to8(a, e, m) as u64) << 8) | to8(b, e, m) as u64;
            assert_eq!(out[0], want, "{asm} of {a:e}, {b:e}");
        }
        // Every 8-bit code widens exactly to f16.
        let codes: Vec<Vec<u64>> = (0..=255u64).map(|c| vec![c | (c ^ 0x80) << 8]).collect();
        let got = map(&format!("cvt.rn.f16x2.{ty} %r1, %rs1;"), &["%rs1"], &["%r1"], &codes).unwrap();
        for (rec, out) in codes.iter().zip(got) {
            for (byte, half) in [(rec[0] as u8, out[0] as u16), ((rec[0] >> 8) as u8, (out[0] >> 16) as u16)] {
                let want = decode8(byte, e, m);
                if want.is_nan() {
                    assert_eq!(half, 0x7fff, "{ty} {byte:#x}");
                } else {
                    assert_eq!(decode16(half, 5, 10), want, "{ty} {byte:#x}");
                    assert_eq!(half >> 15 == 1, want.is_sign_negative(), "{ty} {byte:#x} sign");
                }
            }
        }
    }
    // From packed f16: the upper half goes to the upper byte; .relu zeroes negatives.
    let got = crate::harness::eval("cvt.rn.satfinite.relu.e4m3x2.f16x2 %rs1, %r1;", &[("%r1", 0x3c00_bc00)], &["%rs1"])
        .unwrap();
    assert_eq!(got[0], 0x3800, "1.0 is 0x38 in e4m3; -1.0 with .relu is 0");
}
