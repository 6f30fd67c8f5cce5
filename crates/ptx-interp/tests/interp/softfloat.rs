//! Floating-point arithmetic through the interpreter: round-to-nearest
//! against the host's IEEE operations, the directed roundings against
//! error-free transformations (TwoSum, exact products in f64), f16 against
//! exact f64 arithmetic rounded by brute force.

use crate::harness::map;
use ptx_interp::SplitMix64;

fn f32_operands(seed: u64, n: usize) -> Vec<f32> {
    let mut s = SplitMix64::new(seed);
    let mut v = vec![0.0, -0.0, 1.0, -1.0, f32::MAX, f32::MIN_POSITIVE, 1e-45, -1e-45, f32::INFINITY, 3.0, 0.1];
    while v.len() < n {
        let x = match s.below(3) {
            0 => f32::from_bits(s.next_u64() as u32),
            1 => (s.below(1 << 24) as f32 - 8e6) / (1 + s.below(1000)) as f32,
            _ => f32::from_bits((s.next_u64() as u32 & 0x807f_ffff) | (((100 + s.below(56)) as u32) << 23)),
        };
        if !x.is_nan() {
            v.push(x);
        }
    }
    v
}

fn next_toward(x: f32, up: bool) -> f32 {
    if x.is_infinite() && (x > 0.0) == up {
        return x;
    }
    if x == 0.0 {
        return if up { f32::from_bits(1) } else { -f32::from_bits(1) };
    }
    let b = x.to_bits();
    f32::from_bits(if (x > 0.0) == up { b + 1 } else { b - 1 })
}

/// Directed rounding of `s + t` where `s` is the round-to-nearest result
/// and `t` the exact error.
fn directed(s: f32, t: f32, mode: &str) -> f32 {
    if t == 0.0 || s.is_infinite() {
        return s;
    }
    let true_positive = s > 0.0 || (s == 0.0 && t > 0.0);
    match mode {
        "rm" => {
            if t < 0.0 {
                next_toward(s, false)
            } else {
                s
            }
        }
        "rp" => {
            if t > 0.0 {
                next_toward(s, true)
            } else {
                s
            }
        }
        _ => {
            // Toward zero.
            if true_positive == (t < 0.0) {
                next_toward(s, !true_positive)
            } else {
                s
            }
        }
    }
}

/// Knuth's TwoSum: s = fl(a+b) and the exact error.
fn two_sum(a: f32, b: f32) -> (f32, f32) {
    let s = a + b;
    let bb = s - a;
    let err = (a - (s - bb)) + (b - bb);
    (s, err)
}

fn canon(x: f32) -> u32 {
    if x.is_nan() {
        0x7fff_ffff
    } else {
        x.to_bits()
    }
}

#[test]
fn f32_add_sub_mul_round_to_nearest_match_the_host() {
    let xs = f32_operands(1, 300);
    let ys = f32_operands(2, 300);
    let records: Vec<Vec<u64>> =
        xs.iter().zip(&ys).map(|(a, b)| vec![a.to_bits() as u64, b.to_bits() as u64]).collect();
    let got = map(
        "add.f32 %f3, %f1, %f2;\n\tsub.rn.f32 %f4, %f1, %f2;\n\tmul.rn.f32 %f5, %f1, %f2;\n\tfma.rn.f32 %f6, %f1, %f2, %f1;",
        &["%f1", "%f2"],
        &["%f3", "%f4", "%f5", "%f6"],
        &records,
    )
    .unwrap();
    for ((a, b), out) in xs.iter().zip(&ys).zip(got) {
        assert_eq!(out[0] as u32, canon(a + b), "{a:e} + {b:e}");
        assert_eq!(out[1] as u32, canon(a - b), "{a:e} - {b:e}");
        assert_eq!(out[2] as u32, canon(a * b), "{a:e} * {b:e}");
        assert_eq!(out[3] as u32, canon(a.mul_add(*b, *a)), "fma {a:e} {b:e}");
    }
}

#[test]
fn f64_arithmetic_round_to_nearest_matches_the_host() {
    let mut s = SplitMix64::new(5);
    let mut records = Vec::new();
    for _ in 0..300 {
        let a = f64::from_bits(s.next_u64());
        let b = if s.below(2) == 0 { f64::from_bits(s.next_u64()) } else { (s.below(1000) as f64) / 7.0 };
        records.push(vec![a.to_bits(), b.to_bits()]);
    }
    let got = map(
        "add.rn.f64 %fd3, %fd1, %fd2;\n\tmul.rn.f64 %fd4, %fd1, %fd2;\n\tfma.rn.f64 %fd5, %fd1, %fd2, %fd2;\n\tdiv.rn.f64 %fd6, %fd1, %fd2;\n\tsqrt.rn.f64 %fd7, %fd1;",
        &["%fd1", "%fd2"],
        &["%fd3", "%fd4", "%fd5", "%fd6", "%fd7"],
        &records,
    )
    .unwrap();
    let c = |x: f64| if x.is_nan() { 0x7fff_ffff_ffff_ffff } else { x.to_bits() };
    for (rec, out) in records.iter().zip(got) {
        let (a, b) = (f64::from_bits(rec[0]), f64::from_bits(rec[1]));
        assert_eq!(out, vec![c(a + b), c(a * b), c(a.mul_add(b, b)), c(a / b), c(a.sqrt())], "{a:e} {b:e}");
    }
}

#[test]
fn f32_directed_rounding_of_add_and_mul() {
    let xs = f32_operands(3, 300);
    let ys = f32_operands(4, 300);
    let records: Vec<Vec<u64>> =
        xs.iter().zip(&ys).map(|(a, b)| vec![a.to_bits() as u64, b.to_bits() as u64]).collect();
    for mode in ["rz", "rm", "rp"] {
        let asm = format!("add.{mode}.f32 %f3, %f1, %f2;\n\tmul.{mode}.f32 %f4, %f1, %f2;");
        let got = map(&asm, &["%f1", "%f2"], &["%f3", "%f4"], &records).unwrap();
        for ((a, b), out) in xs.iter().zip(&ys).zip(got) {
            let (s, t) = two_sum(*a, *b);
            if s.is_finite() && t.is_finite() {
                assert_eq!(out[0] as u32, canon(directed(s, t, mode)), "add.{mode} {a:e} {b:e}");
            }
            let exact = *a as f64 * *b as f64;
            let p = exact as f32;
            if p.is_finite() && p != 0.0 {
                let err = if exact > p as f64 {
                    1.0
                } else if exact < p as f64 {
                    -1.0
                } else {
                    0.0
                };
                assert_eq!(out[1] as u32, canon(directed(p, err, mode)), "mul.{mode} {a:e} {b:e}");
            }
        }
    }
}

#[test]
fn f32_ftz_and_sat() {
    let tiny = f32::from_bits(0x0040_0000); // subnormal
    let records = vec![
        vec![tiny.to_bits() as u64, 1.0f32.to_bits() as u64],
        vec![1.5f32.to_bits() as u64, 1.0f32.to_bits() as u64],
        vec![(-3.0f32).to_bits() as u64, 1.0f32.to_bits() as u64],
        vec![0x7fc0_0000, 1.0f32.to_bits() as u64],
    ];
    let got = map(
        "mul.ftz.f32 %f3, %f1, %f2;\n\tmul.f32 %f4, %f1, %f2;\n\tadd.sat.f32 %f5, %f1, 0f00000000;",
        &["%f1", "%f2"],
        &["%f3", "%f4", "%f5"],
        &records,
    )
    .unwrap();
    assert_eq!(got[0], vec![0, tiny.to_bits() as u64, tiny.to_bits() as u64]);
    assert_eq!(got[1][2], 1.0f32.to_bits() as u64);
    assert_eq!(got[2][2], 0);
    assert_eq!(got[3][2], 0, "NaN saturates to +0");
}

fn decode_f16(b: u16) -> f64 {
    let s = if b >> 15 == 1 { -1.0 } else { 1.0 };
    let e = ((b >> 10) & 31) as i32;
    let m = (b & 1023) as f64;
    match e {
        0 => s * m * 2f64.powi(-24),
        31 => {
            if m == 0.0 {
                s * f64::INFINITY
            } else {
                f64::NAN
            }
        }
        _ => s * (1.0 + m / 1024.0) * 2f64.powi(e - 15),
    }
}

/// Nearest-even f16 of an exact value, by scanning all finite f16 values.
fn f16_nearest(v: f64) -> u16 {
    if v.is_nan() {
        return 0x7fff;
    }
    if v.abs() >= 65520.0 {
        return if v > 0.0 { 0x7c00 } else { 0xfc00 };
    }
    let mut best = 0u16;
    let mut best_d = f64::INFINITY;
    for b in 0..0x7c00u16 {
        let d = (decode_f16(b) - v.abs()).abs();
        if d < best_d || (d == best_d && b & 1 == 0) {
            best = b;
            best_d = d;
        }
    }
    if v.is_sign_negative() {
        best | 0x8000
    } else {
        best
    }
}

#[test]
fn f16_and_f16x2_arithmetic_is_correctly_rounded() {
    let mut s = SplitMix64::new(9);
    let mut records = Vec::new();
    for _ in 0..120 {
        let a = (s.next_u64() & 0xffff) as u16;
        let b = (s.next_u64() & 0xffff) as u16;
        if decode_f16(a).is_nan() || decode_f16(b).is_nan() {
            continue;
        }
        records.push(vec![a as u64, b as u64, ((a as u64) << 16) | b as u64]);
    }
    let got = map(
        "add.rn.f16 %rs3, %rs1, %rs2;\n\tmul.rn.f16 %rs4, %rs1, %rs2;\n\tadd.rn.f16x2 %r2, %r1, %r1;",
        &["%rs1", "%rs2", "%r1"],
        &["%rs3", "%rs4", "%r2"],
        &records,
    )
    .unwrap();
    for (rec, out) in records.iter().zip(got) {
        let (a, b) = (decode_f16(rec[0] as u16), decode_f16(rec[1] as u16));
        let sum = a + b; // exact in f64
        let want_sum =
            if sum == 0.0 && a.is_sign_negative() && b.is_sign_negative() { 0x8000 } else { f16_nearest(sum) };
        let want_sum = if sum == 0.0 && !(a.is_sign_negative() && b.is_sign_negative()) { 0 } else { want_sum };
        assert_eq!(out[0] as u16, want_sum, "{a} + {b}");
        let prod = a * b;
        let want_prod = if prod == 0.0 {
            if (a.is_sign_negative()) != (b.is_sign_negative()) {
                0x8000
            } else {
                0
            }
        } else {
            f16_nearest(prod)
        };
        assert_eq!(out[1] as u16, want_prod, "{a} * {b}");
        let doubled = |x: f64| {
            if x == 0.0 {
                if x.is_sign_negative() {
                    0x8000
                } else {
                    0
                }
            } else {
                f16_nearest(2.0 * x)
            }
        };
        assert_eq!(out[2], ((doubled(a) as u64) << 16) | doubled(b) as u64, "f16x2 {a} {b}");
    }
}

#[test]
fn min_max_of_floats() {
    let nan = 0x7fc0_0000u64;
    let records = vec![
        vec![1.0f32.to_bits() as u64, 2.0f32.to_bits() as u64],
        vec![nan, 2.0f32.to_bits() as u64],
        vec![nan, nan],
        vec![0x8000_0000, 0],
    ];
    let got = map(
        "min.f32 %f3, %f1, %f2;\n\tmax.f32 %f4, %f1, %f2;\n\tmin.NaN.f32 %f5, %f1, %f2;",
        &["%f1", "%f2"],
        &["%f3", "%f4", "%f5"],
        &records,
    )
    .unwrap();
    let f = |x: f32| x.to_bits() as u64;
    assert_eq!(got[0], vec![f(1.0), f(2.0), f(1.0)]);
    assert_eq!(got[1], vec![f(2.0), f(2.0), 0x7fff_ffff], "one NaN: the other operand, unless .NaN");
    assert_eq!(got[2], vec![0x7fff_ffff, 0x7fff_ffff, 0x7fff_ffff]);
    assert_eq!(got[3], vec![0x8000_0000, 0, 0x8000_0000], "-0.0 < +0.0");
}

#[test]
fn division_and_square_root_in_every_direction() {
    use crate::models::{round16, round_f32, DIRS};
    let xs = f32_operands(21, 250);
    let ys = f32_operands(22, 250);
    let records: Vec<Vec<u64>> = xs
        .iter()
        .zip(&ys)
        .map(|(a, b)| {
            let h = |x: f32| crate::models::round16(x as f64, 5, 10, crate::models::Dir::Nearest) as u64;
            vec![a.to_bits() as u64, b.to_bits() as u64, h(*a), h(*b)]
        })
        .collect();
    for (dir, rnd, _) in DIRS {
        let asm = format!(
            "div.{rnd}.f32 %f3, %f1, %f2;\n\tsqrt.{rnd}.f32 %f4, %f1;\n\trcp.{rnd}.f32 %f5, %f2;\n\tdiv.{rnd}.f16 %rs3, %rs1, %rs2;\n\tsqrt.{rnd}.f16 %rs4, %rs1;"
        );
        let got = map(&asm, &["%f1", "%f2", "%rs1", "%rs2"], &["%f3", "%f4", "%f5", "%rs3", "%rs4"], &records).unwrap();
        for (rec, out) in records.iter().zip(got) {
            let (a, b) = (f32::from_bits(rec[0] as u32), f32::from_bits(rec[1] as u32));
            // The f64 quotient/root of f32 (or f16) operands is never exactly on a
            // rounding boundary of the narrow format unless it is exact there,
            // so rounding it again gives the correctly rounded narrow result.
            let q = a as f64 / b as f64;
            let want = |x: f64| if x.is_nan() { 0x7fff_ffff } else { round_f32(x, dir).to_bits() };
            assert_eq!(out[0] as u32, want(q), "div.{rnd} {a:e} / {b:e}");
            assert_eq!(out[1] as u32, want((a as f64).sqrt()), "sqrt.{rnd} {a:e}");
            assert_eq!(out[2] as u32, want(1.0 / b as f64), "rcp.{rnd} {b:e}");
            let (ha, hb) =
                (crate::models::decode16(rec[2] as u16, 5, 10), crate::models::decode16(rec[3] as u16, 5, 10));
            // round16 keeps the sign of zeros and maps NaN to the canonical NaN.
            assert_eq!(out[3] as u16, round16(ha / hb, 5, 10, dir), "div.{rnd}.f16 {ha:e} / {hb:e}");
            assert_eq!(out[4] as u16, round16(ha.sqrt(), 5, 10, dir), "sqrt.{rnd}.f16 {ha:e}");
        }
    }
}
