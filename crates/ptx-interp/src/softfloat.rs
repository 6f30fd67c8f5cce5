//! Bit-exact binary floating point in software: decoding, correctly rounded
//! encoding in the four IEEE rounding directions, conversions between
//! f16/bf16/f32/f64 and integers, rounding to an integral value, and
//! add/mul/fma with any rounding mode.
//!
//! Why in software: PTX conversions and arithmetic take `.rz`, `.rm`, `.rp`
//! and the integer roundings `.rzi`, `.rmi`, `.rpi`, which the host's
//! floating point cannot express, and f16/bf16 have no host type at all.
//! Every value is taken apart into `sign, mant, exp` (value = mant * 2^exp,
//! exactly) and put back together by one function, [`round_pack`], so all
//! formats and modes share one rounding path.
//!
//! NaN results are the canonical NaN of the format (all exponent and
//! fraction bits set, sign clear: `0x7fff`, `0x7fffffff`, ...): NVIDIA GPUs
//! produce a canonical NaN and do not propagate payloads, and a checker that
//! compares bits needs one fixed answer.

/// A binary floating-point format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format {
    /// Width of the exponent field.
    pub exp_bits: u32,
    /// Width of the fraction field (the leading 1 is implicit).
    pub man_bits: u32,
}

/// IEEE binary16.
pub const F16: Format = Format { exp_bits: 5, man_bits: 10 };
/// bfloat16.
pub const BF16: Format = Format { exp_bits: 8, man_bits: 7 };
/// IEEE binary32.
pub const F32: Format = Format { exp_bits: 8, man_bits: 23 };
/// IEEE binary64.
pub const F64: Format = Format { exp_bits: 11, man_bits: 52 };

/// The rounding direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Round to nearest, ties to even (`.rn`, `.rni`).
    NearestEven,
    /// Round toward zero (`.rz`, `.rzi`).
    TowardZero,
    /// Round toward negative infinity (`.rm`, `.rmi`).
    Down,
    /// Round toward positive infinity (`.rp`, `.rpi`).
    Up,
}

impl Format {
    /// Total width in bits.
    pub fn bits(self) -> u32 {
        1 + self.exp_bits + self.man_bits
    }

    fn bias(self) -> i32 {
        (1 << (self.exp_bits - 1)) - 1
    }

    fn exp_all_ones(self) -> u64 {
        (1 << self.exp_bits) - 1
    }

    fn man_mask(self) -> u64 {
        (1 << self.man_bits) - 1
    }

    /// The sign bit.
    pub fn sign_mask(self) -> u64 {
        1 << (self.bits() - 1)
    }

    /// The canonical NaN (sign clear, every other bit set).
    pub fn canonical_nan(self) -> u64 {
        self.sign_mask() - 1
    }

    /// Signed zero.
    pub fn zero(self, negative: bool) -> u64 {
        if negative {
            self.sign_mask()
        } else {
            0
        }
    }

    /// Signed infinity.
    pub fn inf(self, negative: bool) -> u64 {
        self.zero(negative) | (self.exp_all_ones() << self.man_bits)
    }

    /// The largest finite value with the given sign.
    pub fn max_finite(self, negative: bool) -> u64 {
        self.zero(negative) | ((self.exp_all_ones() - 1) << self.man_bits) | self.man_mask()
    }

    /// The value 1.0.
    pub fn one(self) -> u64 {
        (self.bias() as u64) << self.man_bits
    }

    fn exp_field(self, bits: u64) -> u64 {
        (bits >> self.man_bits) & self.exp_all_ones()
    }

    /// True for NaNs.
    pub fn is_nan(self, bits: u64) -> bool {
        self.exp_field(bits) == self.exp_all_ones() && bits & self.man_mask() != 0
    }

    /// True for infinities.
    pub fn is_inf(self, bits: u64) -> bool {
        self.exp_field(bits) == self.exp_all_ones() && bits & self.man_mask() == 0
    }

    /// True for subnormal (denormal) values, zero excluded.
    pub fn is_subnormal(self, bits: u64) -> bool {
        self.exp_field(bits) == 0 && bits & self.man_mask() != 0
    }

    /// True if the sign bit is set.
    pub fn is_negative(self, bits: u64) -> bool {
        bits & self.sign_mask() != 0
    }

    /// Replaces a subnormal by a zero of the same sign (`.ftz`).
    pub fn flush(self, bits: u64) -> u64 {
        if self.is_subnormal(bits) {
            bits & self.sign_mask()
        } else {
            bits
        }
    }

    /// Clamps to [0.0, 1.0]; NaN becomes +0.0 (`.sat` on float results).
    pub fn saturate(self, bits: u64) -> u64 {
        if self.is_nan(bits) {
            return 0;
        }
        if self.is_negative(bits) {
            return 0;
        }
        if bits > self.one() {
            return self.one();
        }
        bits
    }
}

/// A decoded floating-point value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value {
    /// Any NaN.
    Nan,
    /// Signed infinity (true = negative).
    Inf(bool),
    /// Signed zero (true = negative).
    Zero(bool),
    /// `(-1)^sign * mant * 2^exp`, mant > 0.
    Finite {
        /// True if negative.
        sign: bool,
        /// The integer significand.
        mant: u128,
        /// The power of two it is scaled by.
        exp: i32,
    },
}

/// Decodes `bits` of format `f` (bits above the format are ignored).
pub fn unpack(bits: u64, f: Format) -> Value {
    let sign = f.is_negative(bits);
    let e = f.exp_field(bits);
    let frac = bits & f.man_mask();
    let emin = 1 - f.bias();
    if e == f.exp_all_ones() {
        return if frac == 0 { Value::Inf(sign) } else { Value::Nan };
    }
    if e == 0 {
        if frac == 0 {
            return Value::Zero(sign);
        }
        return Value::Finite { sign, mant: frac as u128, exp: emin - f.man_bits as i32 };
    }
    Value::Finite { sign, mant: (frac | (1 << f.man_bits)) as u128, exp: e as i32 - f.bias() - f.man_bits as i32 }
}

/// Shifts `mant` right by `shift` bits, rounding the discarded bits (and the
/// `sticky` flag: nonzero bits below `mant`, worth less than one unit of it)
/// in direction `mode` for a value of sign `sign`. Returns the rounded
/// quotient and whether anything was discarded.
pub fn shift_right_round(mant: u128, shift: u32, sticky: bool, sign: bool, mode: Mode) -> (u128, bool) {
    let (n, guard, rest) = if shift == 0 {
        (mant, false, sticky)
    } else if shift > 128 {
        (0, false, mant != 0 || sticky)
    } else if shift == 128 {
        (0, mant >> 127 == 1, (mant << 1) != 0 || sticky)
    } else {
        let half = 1u128 << (shift - 1);
        (mant >> shift, mant & half != 0, mant & (half - 1) != 0 || sticky)
    };
    let inexact = guard || rest;
    let up = match mode {
        Mode::NearestEven => guard && (rest || n & 1 == 1),
        Mode::TowardZero => false,
        Mode::Down => sign && inexact,
        Mode::Up => !sign && inexact,
    };
    (n + up as u128, inexact)
}

/// Rounds `(-1)^sign * (mant + s) * 2^exp` (`s` in (0, 1) if `sticky`)
/// to `man_bits` fraction bits with minimum normal exponent `emin`,
/// ignoring overflow: returns `n, q` with the rounded value `n * 2^q`,
/// `n < 2^(man_bits+1)`, and `n < 2^man_bits` only for subnormals.
fn round_core(sign: bool, mant: u128, exp: i32, sticky: bool, man_bits: u32, emin: i32, mode: Mode) -> (u128, i32) {
    let m = man_bits as i32;
    let bitlen = 128 - mant.leading_zeros() as i32;
    let lead = exp.saturating_add(bitlen - 1);
    let mut q = (lead - m).max(emin - m);
    let shift = q as i64 - exp as i64;
    let mut n = if shift <= 0 {
        // Exact: at most man_bits + 1 significant bits.
        let n = mant << (-shift) as u32;
        if sticky {
            shift_right_round(n, 0, true, sign, mode).0
        } else {
            n
        }
    } else {
        shift_right_round(mant, shift.min(200) as u32, sticky, sign, mode).0
    };
    if n >> (m + 1) != 0 {
        n >>= 1;
        q += 1;
    }
    (n, q)
}

/// Rounds `(-1)^sign * (mant + s) * 2^exp` to format `f` in direction
/// `mode`, where `s` is in (0, 1) if `sticky` is set and 0 otherwise.
/// Callers that set `sticky` give at least `man_bits + 3` significant bits.
pub fn round_pack(sign: bool, mant: u128, exp: i32, sticky: bool, f: Format, mode: Mode) -> u64 {
    if mant == 0 {
        if !sticky {
            return f.zero(sign);
        }
        // A nonzero value too small to matter except for directed rounding.
        return match mode {
            Mode::Up if !sign => 1,
            Mode::Down if sign => f.zero(true) | 1,
            _ => f.zero(sign),
        };
    }
    let m = f.man_bits as i32;
    let (n, q) = round_core(sign, mant, exp, sticky, f.man_bits, 1 - f.bias(), mode);
    let sign_bits = f.zero(sign);
    if n >> m == 0 {
        return sign_bits | n as u64;
    }
    let biased = q as i64 + m as i64 + f.bias() as i64;
    if biased >= f.exp_all_ones() as i64 {
        let toward_inf = match mode {
            Mode::NearestEven => true,
            Mode::TowardZero => false,
            Mode::Down => sign,
            Mode::Up => !sign,
        };
        return if toward_inf { f.inf(sign) } else { f.max_finite(sign) };
    }
    sign_bits | ((biased as u64) << m) | (n as u64 & f.man_mask())
}

/// The 8-bit float formats of `cvt` (`.e4m3`, `.e5m2`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fp8 {
    /// 4 exponent bits (bias 7), 3 fraction bits, no infinities, NaN = S.1111.111, max 448.
    E4m3,
    /// 5 exponent bits (bias 15), 2 fraction bits, IEEE-like, max 57344.
    E5m2,
}

/// Converts to an 8-bit float with `.satfinite` (overflow and infinities
/// give the largest finite value, NaN gives 0x7f) and optional `.relu`.
pub fn to_fp8(bits: u64, from: Format, kind: Fp8, mode: Mode, relu: bool) -> u8 {
    let (man_bits, bias, max) = match kind {
        Fp8::E4m3 => (3u32, 7i32, 0x7eu8),
        Fp8::E5m2 => (2u32, 15i32, 0x7bu8),
    };
    let r = match unpack(bits, from) {
        Value::Nan => return 0x7f,
        Value::Zero(s) | Value::Inf(s) if relu && s => 0,
        Value::Zero(s) => (s as u8) << 7,
        Value::Inf(s) => ((s as u8) << 7) | max,
        Value::Finite { sign, mant, exp } => {
            let (n, q) = round_core(sign, mant, exp, false, man_bits, 1 - bias, mode);
            let magnitude = if n >> man_bits == 0 {
                n as u8
            } else {
                let biased = q as i64 + man_bits as i64 + bias as i64;
                let code = (biased as u64) << man_bits | (n as u64 & ((1 << man_bits) - 1));
                if code > max as u64 {
                    max
                } else {
                    code as u8
                }
            };
            ((sign as u8) << 7) | magnitude
        }
    };
    if relu && r & 0x80 != 0 {
        0
    } else {
        r
    }
}

/// Converts an 8-bit float to f16 bits (exact; NaN gives the canonical NaN).
pub fn fp8_to_f16(byte: u8, kind: Fp8) -> u64 {
    let sign = byte & 0x80 != 0;
    let (man_bits, bias) = match kind {
        Fp8::E4m3 => (3u32, 7i32),
        Fp8::E5m2 => (2u32, 15i32),
    };
    let e = ((byte & 0x7f) >> man_bits) as i32;
    let frac = (byte & ((1 << man_bits) - 1)) as u128;
    let all_ones = (1 << (7 - man_bits)) - 1;
    match kind {
        Fp8::E4m3 if e == all_ones && frac == 7 => return F16.canonical_nan(),
        Fp8::E5m2 if e == all_ones => return if frac == 0 { F16.inf(sign) } else { F16.canonical_nan() },
        _ => {}
    }
    if e == 0 {
        return round_pack(sign, frac, 1 - bias - man_bits as i32, false, F16, Mode::NearestEven);
    }
    round_pack(sign, frac | (1 << man_bits), e - bias - man_bits as i32, false, F16, Mode::NearestEven)
}

/// Converts between float formats (exact when widening). NaN gives the
/// canonical NaN of `to`.
pub fn convert(bits: u64, from: Format, to: Format, mode: Mode) -> u64 {
    match unpack(bits, from) {
        Value::Nan => to.canonical_nan(),
        Value::Inf(s) => to.inf(s),
        Value::Zero(s) => to.zero(s),
        Value::Finite { sign, mant, exp } => round_pack(sign, mant, exp, false, to, mode),
    }
}

/// Converts an integer (`negative`, magnitude) to format `f`. Zero gives +0.0.
pub fn from_int(negative: bool, magnitude: u128, f: Format, mode: Mode) -> u64 {
    round_pack(negative && magnitude != 0, magnitude, 0, false, f, mode)
}

/// Converts to an integer of `width` bits (signed or not), rounding in
/// `mode` and saturating to the integer range; NaN gives 0. Returns the
/// two's complement bit pattern in the low `width` bits.
pub fn to_int(bits: u64, f: Format, mode: Mode, signed: bool, width: u32) -> u64 {
    let (min, max): (i128, i128) =
        if signed { (-(1i128 << (width - 1)), (1i128 << (width - 1)) - 1) } else { (0, (1i128 << width) - 1) };
    let value: i128 = match unpack(bits, f) {
        Value::Nan | Value::Zero(_) => 0,
        Value::Inf(s) => {
            if s {
                min
            } else {
                max
            }
        }
        Value::Finite { sign, mant, exp } => {
            let magnitude: u128 = if exp >= 0 {
                let bitlen = 128 - mant.leading_zeros() as i32;
                if bitlen + exp > 100 {
                    1 << 100
                } else {
                    mant << exp
                }
            } else {
                shift_right_round(mant, (-exp).min(200) as u32, false, sign, mode).0
            };
            let magnitude = magnitude.min(1 << 100) as i128;
            if sign {
                -magnitude
            } else {
                magnitude
            }
        }
    };
    let clamped = value.clamp(min, max);
    let mask = if width >= 64 { u64::MAX } else { (1u64 << width) - 1 };
    (clamped as u64) & mask
}

/// Rounds to an integral value in the same format (`cvt.rni.f32.f32`).
pub fn round_to_integral(bits: u64, f: Format, mode: Mode) -> u64 {
    match unpack(bits, f) {
        Value::Nan => f.canonical_nan(),
        Value::Inf(_) | Value::Zero(_) => bits & (f.sign_mask() | (f.sign_mask() - 1)),
        Value::Finite { sign, mant, exp } => {
            if exp >= 0 {
                return bits;
            }
            let (n, _) = shift_right_round(mant, (-exp).min(200) as u32, false, sign, mode);
            round_pack(sign, n, 0, false, f, Mode::NearestEven)
        }
    }
}

/// An exact nonzero finite value.
#[derive(Clone, Copy, Debug)]
struct Exact {
    sign: bool,
    mant: u128,
    exp: i32,
}

impl Exact {
    fn lead(self) -> i32 {
        self.exp + (127 - self.mant.leading_zeros() as i32)
    }

    /// The significand moved so its top bit is bit 125.
    fn justified(self) -> u128 {
        self.mant << (self.mant.leading_zeros() - 2)
    }
}

/// Exact sum of two nonzero values with at most 106 significant bits each,
/// as `(sign, mant, exp, sticky)`; None for an exact zero.
fn exact_sum(x: Exact, y: Exact) -> Option<(bool, u128, i32, bool)> {
    let (big, small) = if (x.lead(), x.justified()) >= (y.lead(), y.justified()) { (x, y) } else { (y, x) };
    let big_m = big.justified();
    let exp = big.lead() - 125;
    let d = (big.lead() - small.lead()) as u32;
    let small_m = small.justified();
    let (small_s, sticky) = if d >= 128 {
        (0, true)
    } else if d == 0 {
        (small_m, false)
    } else {
        (small_m >> d, small_m & ((1u128 << d) - 1) != 0)
    };
    if big.sign == small.sign {
        return Some((big.sign, big_m + small_s, exp, sticky));
    }
    let mut diff = big_m - small_s;
    if sticky {
        diff -= 1;
    }
    if diff == 0 && !sticky {
        return None;
    }
    Some((big.sign, diff, exp, sticky))
}

fn zero_sum_sign(a: bool, b: bool, mode: Mode) -> bool {
    if a == b {
        a
    } else {
        mode == Mode::Down
    }
}

/// `a * b`, correctly rounded.
pub fn mul(a: u64, b: u64, f: Format, mode: Mode) -> u64 {
    match (unpack(a, f), unpack(b, f)) {
        (Value::Nan, _) | (_, Value::Nan) => f.canonical_nan(),
        (Value::Inf(_), Value::Zero(_)) | (Value::Zero(_), Value::Inf(_)) => f.canonical_nan(),
        (Value::Inf(s), Value::Inf(t))
        | (Value::Inf(s), Value::Finite { sign: t, .. })
        | (Value::Finite { sign: s, .. }, Value::Inf(t)) => f.inf(s ^ t),
        (Value::Zero(s), Value::Zero(t))
        | (Value::Zero(s), Value::Finite { sign: t, .. })
        | (Value::Finite { sign: s, .. }, Value::Zero(t)) => f.zero(s ^ t),
        (Value::Finite { sign: s, mant: m, exp: e }, Value::Finite { sign: t, mant: n, exp: g }) => {
            round_pack(s ^ t, m * n, e + g, false, f, mode)
        }
    }
}

/// `a + b`, correctly rounded.
pub fn add(a: u64, b: u64, f: Format, mode: Mode) -> u64 {
    match (unpack(a, f), unpack(b, f)) {
        (Value::Nan, _) | (_, Value::Nan) => f.canonical_nan(),
        (Value::Inf(s), Value::Inf(t)) => {
            if s == t {
                f.inf(s)
            } else {
                f.canonical_nan()
            }
        }
        (Value::Inf(s), _) | (_, Value::Inf(s)) => f.inf(s),
        (Value::Zero(s), Value::Zero(t)) => f.zero(zero_sum_sign(s, t, mode)),
        (Value::Zero(_), Value::Finite { sign, mant, exp }) | (Value::Finite { sign, mant, exp }, Value::Zero(_)) => {
            round_pack(sign, mant, exp, false, f, mode)
        }
        (Value::Finite { sign: s, mant: m, exp: e }, Value::Finite { sign: t, mant: n, exp: g }) => {
            match exact_sum(Exact { sign: s, mant: m, exp: e }, Exact { sign: t, mant: n, exp: g }) {
                None => f.zero(mode == Mode::Down),
                Some((sign, mant, exp, sticky)) => round_pack(sign, mant, exp, sticky, f, mode),
            }
        }
    }
}

/// `a - b`, correctly rounded.
pub fn sub(a: u64, b: u64, f: Format, mode: Mode) -> u64 {
    if f.is_nan(b) {
        return f.canonical_nan();
    }
    add(a, b ^ f.sign_mask(), f, mode)
}

/// `a * b + c` with a single rounding.
pub fn fma(a: u64, b: u64, c: u64, f: Format, mode: Mode) -> u64 {
    let (ua, ub, uc) = (unpack(a, f), unpack(b, f), unpack(c, f));
    if matches!(ua, Value::Nan) || matches!(ub, Value::Nan) || matches!(uc, Value::Nan) {
        return f.canonical_nan();
    }
    let sign_of = |v: Value| match v {
        Value::Inf(s) | Value::Zero(s) => s,
        Value::Finite { sign, .. } => sign,
        Value::Nan => false,
    };
    let psign = sign_of(ua) ^ sign_of(ub);
    let a_inf = matches!(ua, Value::Inf(_));
    let b_inf = matches!(ub, Value::Inf(_));
    let a_zero = matches!(ua, Value::Zero(_));
    let b_zero = matches!(ub, Value::Zero(_));
    if (a_inf && b_zero) || (a_zero && b_inf) {
        return f.canonical_nan();
    }
    if a_inf || b_inf {
        if let Value::Inf(cs) = uc {
            if cs != psign {
                return f.canonical_nan();
            }
        }
        return f.inf(psign);
    }
    if let Value::Inf(cs) = uc {
        return f.inf(cs);
    }
    if a_zero || b_zero {
        return match uc {
            Value::Zero(cs) => f.zero(zero_sum_sign(psign, cs, mode)),
            Value::Finite { sign, mant, exp } => round_pack(sign, mant, exp, false, f, mode),
            _ => f.canonical_nan(),
        };
    }
    let (Value::Finite { mant: ma, exp: ea, .. }, Value::Finite { mant: mb, exp: eb, .. }) = (ua, ub) else {
        return f.canonical_nan();
    };
    let product = Exact { sign: psign, mant: ma * mb, exp: ea + eb };
    match uc {
        Value::Zero(_) => round_pack(psign, product.mant, product.exp, false, f, mode),
        Value::Finite { sign, mant, exp } => match exact_sum(product, Exact { sign, mant, exp }) {
            None => f.zero(mode == Mode::Down),
            Some((s, m, e, sticky)) => round_pack(s, m, e, sticky, f, mode),
        },
        _ => f.canonical_nan(),
    }
}

/// `a / b`, correctly rounded.
pub fn div(a: u64, b: u64, f: Format, mode: Mode) -> u64 {
    let (ua, ub) = (unpack(a, f), unpack(b, f));
    let sign_of = |v: Value| match v {
        Value::Inf(s) | Value::Zero(s) => s,
        Value::Finite { sign, .. } => sign,
        Value::Nan => false,
    };
    let sign = sign_of(ua) ^ sign_of(ub);
    match (ua, ub) {
        (Value::Nan, _) | (_, Value::Nan) => f.canonical_nan(),
        (Value::Inf(_), Value::Inf(_)) | (Value::Zero(_), Value::Zero(_)) => f.canonical_nan(),
        (Value::Inf(_), _) | (_, Value::Zero(_)) => f.inf(sign),
        (_, Value::Inf(_)) | (Value::Zero(_), _) => f.zero(sign),
        (Value::Finite { mant: ma, exp: ea, .. }, Value::Finite { mant: mb, exp: eb, .. }) => {
            // Put both top bits at bit 63; the quotient then has 62 or 63 bits.
            let (sa, sb) = (ma.leading_zeros() - 64, mb.leading_zeros() - 64);
            let (na, nb) = (ma << sa, mb << sb);
            let num = na << 62;
            let (q, r) = (num / nb, num % nb);
            let exp = (ea - sa as i32) - (eb - sb as i32) - 62;
            round_pack(sign, q, exp, r != 0, f, mode)
        }
    }
}

/// The integer square root of `n` and whether it was exact.
fn isqrt(n: u128) -> (u128, bool) {
    let mut rem = n;
    let mut root = 0u128;
    let mut bit = 1u128 << 126;
    while bit > n {
        bit >>= 2;
    }
    while bit != 0 {
        if rem >= root + bit {
            rem -= root + bit;
            root = (root >> 1) + bit;
        } else {
            root >>= 1;
        }
        bit >>= 2;
    }
    (root, rem == 0)
}

/// Square root, correctly rounded; negative numbers give NaN, -0 gives -0.
pub fn sqrt(a: u64, f: Format, mode: Mode) -> u64 {
    match unpack(a, f) {
        Value::Nan | Value::Finite { sign: true, .. } | Value::Inf(true) => f.canonical_nan(),
        Value::Inf(false) => f.inf(false),
        Value::Zero(s) => f.zero(s),
        Value::Finite { mant, exp, .. } => {
            // Scale to an even exponent and about 124 significant bits.
            let mut shift = 124 - (128 - mant.leading_zeros() as i32);
            if (exp - shift) % 2 != 0 {
                shift += 1;
            }
            let m = mant << shift;
            let (root, exact) = isqrt(m);
            round_pack(false, root, (exp - shift) / 2, !exact, f, mode)
        }
    }
}

/// The value as an f64 (exact for every format here); NaN stays NaN.
pub fn to_f64(bits: u64, f: Format) -> f64 {
    f64::from_bits(convert(bits, f, F64, Mode::NearestEven))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f16_known_values() {
        // 1.0, 65504 (max), 2^-24 (min subnormal), from the IEEE 754 layout.
        assert_eq!(convert(1.0f32.to_bits() as u64, F32, F16, Mode::NearestEven), 0x3c00);
        assert_eq!(convert(65504.0f32.to_bits() as u64, F32, F16, Mode::NearestEven), 0x7bff);
        assert_eq!(convert(65520.0f32.to_bits() as u64, F32, F16, Mode::NearestEven), 0x7c00);
        assert_eq!(convert(65520.0f32.to_bits() as u64, F32, F16, Mode::TowardZero), 0x7bff);
        assert_eq!(convert(2f32.powi(-24).to_bits() as u64, F32, F16, Mode::NearestEven), 0x0001);
        assert_eq!(convert(2f32.powi(-25).to_bits() as u64, F32, F16, Mode::NearestEven), 0x0000);
        assert_eq!(convert(2f32.powi(-25).to_bits() as u64, F32, F16, Mode::Up), 0x0001);
        assert_eq!(convert(0x0001, F16, F32, Mode::NearestEven), 2f32.powi(-24).to_bits() as u64);
    }

    #[test]
    fn round_to_integral_modes() {
        let v = (-2.5f64).to_bits();
        assert_eq!(f64::from_bits(round_to_integral(v, F64, Mode::NearestEven)), -2.0);
        assert_eq!(f64::from_bits(round_to_integral(v, F64, Mode::TowardZero)), -2.0);
        assert_eq!(f64::from_bits(round_to_integral(v, F64, Mode::Down)), -3.0);
        assert_eq!(f64::from_bits(round_to_integral(v, F64, Mode::Up)), -2.0);
        let tiny = (-0.25f64).to_bits();
        assert_eq!(round_to_integral(tiny, F64, Mode::NearestEven), (-0.0f64).to_bits());
    }
}
