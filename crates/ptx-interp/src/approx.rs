//! A model of the approximate math instructions (`ex2`, `lg2`, `sin`, `cos`,
//! `tanh`, `rsqrt`, and `rcp`/`sqrt`/`div` with `.approx` or `.full`).
//!
//! The hardware's results are within a few ulp of the real function and the
//! ISA does not pin them down bit for bit, so no interpreter can reproduce
//! them. The model is the real function's value rounded to nearest in the
//! instruction's format: exactly (softfloat) for `rcp`, `sqrt` and `div`;
//! for the transcendental functions through the host's f64 libm, whose
//! error (under one f64 ulp) is far below half an ulp of f16/bf16/f32, so
//! the rounded result is the correctly rounded one except for arguments
//! within about 2^-29 ulp of a rounding boundary. Both sides of a diff use
//! the same model, so a rewrite that keeps these instructions is checked
//! exactly; a rewrite that swaps an approximation for an IEEE operation
//! (or back) is not caught where the two agree, which the model makes
//! everywhere for `rcp`/`sqrt`/`div`.
//!
//! `.ftz` flushes subnormal inputs and results to zero of the same sign.
//! Every NaN result is the canonical NaN, as for the IEEE operations.

use crate::softfloat::{self as sf, Format, Mode};

/// Which approximate function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ApproxFn {
    /// 2^x.
    Ex2,
    /// log2(x).
    Lg2,
    /// sin(x), x in radians.
    Sin,
    /// cos(x), x in radians.
    Cos,
    /// tanh(x).
    Tanh,
    /// 1/sqrt(x).
    Rsqrt,
    /// 1/x.
    Rcp,
    /// sqrt(x).
    Sqrt,
}

fn finish(r: u64, fmt: Format, ftz: bool) -> u64 {
    if fmt.is_nan(r) {
        fmt.canonical_nan()
    } else if ftz {
        fmt.flush(r)
    } else {
        r
    }
}

fn through_host(x: u64, fmt: Format, f: impl Fn(f64) -> f64) -> u64 {
    sf::convert(f(sf::to_f64(x, fmt)).to_bits(), sf::F64, fmt, Mode::NearestEven)
}

/// The model of `f` applied to the `fmt` bit pattern `x`.
pub fn unary(f: ApproxFn, x: u64, fmt: Format, ftz: bool) -> u64 {
    let x = if ftz { fmt.flush(x) } else { x };
    if fmt.is_nan(x) {
        return fmt.canonical_nan();
    }
    let r = match f {
        ApproxFn::Rcp => sf::div(fmt.one(), x, fmt, Mode::NearestEven),
        ApproxFn::Sqrt => sf::sqrt(x, fmt, Mode::NearestEven),
        ApproxFn::Rsqrt if fmt == sf::F64 => {
            // Two roundings: the f64 model is within one ulp, not correctly rounded.
            sf::div(fmt.one(), sf::sqrt(x, fmt, Mode::NearestEven), fmt, Mode::NearestEven)
        }
        ApproxFn::Ex2 => through_host(x, fmt, f64::exp2),
        ApproxFn::Lg2 => through_host(x, fmt, f64::log2),
        ApproxFn::Sin => through_host(x, fmt, f64::sin),
        ApproxFn::Cos => through_host(x, fmt, f64::cos),
        ApproxFn::Tanh => through_host(x, fmt, f64::tanh),
        // The square root of a 24-bit significand is correctly rounded to
        // 53 bits, and the division adds one more rounding far below an
        // f32 ulp.
        ApproxFn::Rsqrt => through_host(x, fmt, |v| 1.0 / v.sqrt()),
    };
    finish(r, fmt, ftz)
}

/// The model of `div.approx` and `div.full`: a / b rounded to nearest.
pub fn div(a: u64, b: u64, fmt: Format, ftz: bool) -> u64 {
    let (a, b) = if ftz { (fmt.flush(a), fmt.flush(b)) } else { (a, b) };
    finish(sf::div(a, b, fmt, Mode::NearestEven), fmt, ftz)
}
