//! Pure bit-level semantics of the integer and data-movement instructions
//! (prmt, cvt.pack, bfe/bfi, funnel shifts, masks, saturating conversions),
//! written from the PTX ISA text. Values travel as `u128` bit patterns; the
//! width in bits says which low bits count.
//!
//! Kept apart from the executor so each rule is one small function that
//! reads like the ISA pseudo-code.

use ptx_ir::{PrmtMode, ScalarType};

/// All ones in the low `bits` bits.
pub fn mask(bits: u32) -> u128 {
    if bits >= 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    }
}

/// The low `bits` bits of `v`, sign-extended to i128.
pub fn sext(v: u128, bits: u32) -> i128 {
    if bits == 0 || bits >= 128 {
        return v as i128;
    }
    let shift = 128 - bits;
    ((v << shift) as i128) >> shift
}

/// Extends the low `from` bits of `v` to `to` bits: sign-extension when
/// `signed`, zero-extension otherwise (ISA 9.4.1, destination operands).
pub fn extend(v: u128, from: u32, to: u32, signed: bool) -> u128 {
    let v = v & mask(from);
    if signed && to > from {
        (sext(v, from) as u128) & mask(to)
    } else {
        v & mask(to)
    }
}

/// The value range of an integer type of `bits` bits.
pub fn int_range(signed: bool, bits: u32) -> (i128, i128) {
    if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

/// The integer value of the low `bits` bits, signed or not.
pub fn int_value(v: u128, bits: u32, signed: bool) -> i128 {
    if signed {
        sext(v, bits)
    } else {
        (v & mask(bits)) as i128
    }
}

/// Clamps `value` to the range of the integer type and returns its bits.
pub fn saturate(value: i128, signed: bool, bits: u32) -> u128 {
    let (min, max) = int_range(signed, bits);
    (value.clamp(min, max) as u128) & mask(bits)
}

/// The byte source index table of the special `prmt` modes (ISA 9.7.9.7),
/// indexed by mode and `c[1:0]`, listing the sources of d.b0..d.b3.
fn prmt_mode_sources(mode: PrmtMode, sel: u32) -> [u32; 4] {
    let s = sel & 3;
    match mode {
        PrmtMode::F4e => [s, s + 1, s + 2, s + 3],
        PrmtMode::B4e => [s, (s + 7) & 7, (s + 6) & 7, (s + 5) & 7],
        PrmtMode::Rc8 => [s; 4],
        PrmtMode::Ecl => [s, s.max(1), s.max(2), 3],
        PrmtMode::Ecr => [0, s.min(1), s.min(2), s],
        PrmtMode::Rc16 => {
            let lo = (s & 1) * 2;
            [lo, lo + 1, lo, lo + 1]
        }
    }
}

/// `prmt.b32{.mode} d, a, b, c`.
pub fn prmt(a: u32, b: u32, c: u32, mode: Option<PrmtMode>) -> u32 {
    let tmp = ((b as u64) << 32) | a as u64;
    let byte = |i: u32| ((tmp >> (8 * (i & 7))) & 0xff) as u32;
    let mut d = 0u32;
    match mode {
        None => {
            for k in 0..4 {
                let ctl = (c >> (4 * k)) & 0xf;
                let mut v = byte(ctl & 7);
                if ctl & 8 != 0 {
                    v = if v & 0x80 != 0 { 0xff } else { 0 };
                }
                d |= v << (8 * k);
            }
        }
        Some(m) => {
            for (k, src) in prmt_mode_sources(m, c).into_iter().enumerate() {
                d |= byte(src) << (8 * k);
            }
        }
    }
    d
}

/// `cvt.pack.sat.convertType.s32 d, a, b{, c}` (ISA 9.7.9.22): a and b are
/// clamped to the range of `convert`; b goes to the low bits, a above it, and
/// for the 8/4/2-bit forms the low bits of c fill the rest of d. Returns None
/// for a convert type the instruction does not have.
pub fn cvt_pack(convert: ScalarType, a: i32, b: i32, c: u32) -> Option<u32> {
    let size = match convert {
        ScalarType::U16 | ScalarType::S16 => 16,
        ScalarType::U8 | ScalarType::S8 => 8,
        ScalarType::U4 | ScalarType::S4 => 4,
        ScalarType::U2 | ScalarType::S2 => 2,
        _ => return None,
    };
    let signed = convert.is_signed();
    let ta = saturate(a as i128, signed, size) as u32;
    let tb = saturate(b as i128, signed, size) as u32;
    let td = (ta << size) | tb;
    if size == 16 {
        return Some(td);
    }
    Some(td | (c << (2 * size)))
}

/// `bfe.type d, a, b, c` for a `bits`-wide type.
pub fn bfe(a: u128, pos: u32, len: u32, bits: u32, signed: bool) -> u128 {
    let msb = bits - 1;
    let pos = pos & 0xff;
    let len = len & 0xff;
    let sbit = if !signed || len == 0 { 0 } else { (a >> (pos + len - 1).min(msb)) & 1 };
    let mut d = 0u128;
    for i in 0..bits {
        let bit = if i < len && pos + i <= msb { (a >> (pos + i)) & 1 } else { sbit };
        d |= bit << i;
    }
    d
}

/// `bfi.type f, a, b, c, d` for a `bits`-wide type.
pub fn bfi(a: u128, b: u128, pos: u32, len: u32, bits: u32) -> u128 {
    let msb = bits - 1;
    let pos = pos & 0xff;
    let len = len & 0xff;
    let mut f = b & mask(bits);
    let mut i = 0;
    while i < len && pos + i <= msb {
        let bit = (a >> i) & 1;
        f = (f & !(1u128 << (pos + i))) | (bit << (pos + i));
        i += 1;
    }
    f
}

/// `shl`: amounts of at least the width give 0.
pub fn shl(a: u128, amount: u32, bits: u32) -> u128 {
    if amount >= bits {
        0
    } else {
        (a << amount) & mask(bits)
    }
}

/// `shr`: amounts of at least the width give 0, or all sign bits when signed.
pub fn shr(a: u128, amount: u32, bits: u32, signed: bool) -> u128 {
    let amount = amount.min(bits);
    if signed {
        let v = sext(a, bits);
        let shifted = if amount >= 127 { v >> 127 } else { v >> amount };
        (shifted as u128) & mask(bits)
    } else if amount >= bits {
        0
    } else {
        (a & mask(bits)) >> amount
    }
}

/// `shf.{l,r}.{clamp,wrap}.b32 d, a, b, c`.
pub fn shf(a: u32, b: u32, c: u32, left: bool, clamp: bool) -> u32 {
    let n = if clamp { c.min(32) } else { c & 0x1f };
    let wide = ((b as u64) << 32) | a as u64;
    if left {
        ((wide << n) >> 32) as u32
    } else {
        (wide >> n) as u32
    }
}

/// `bmsk.{clamp,wrap}.b32 d, a, b`.
pub fn bmsk(a: u32, b: u32, clamp: bool) -> u32 {
    let a1 = a & 0x1f;
    let mut mask0 = u32::MAX << a1;
    let b1 = b & 0x1f;
    let sum = a1 + b1;
    let mut mask1 = if sum >= 32 { 0 } else { u32::MAX << sum };
    let sum_overflow = sum >= 32;
    let mut pos_overflow = false;
    let mut width_overflow = false;
    if clamp {
        if a >= 32 {
            pos_overflow = true;
            mask0 = 0;
        }
        if b >= 32 {
            width_overflow = true;
        }
    }
    if sum_overflow || pos_overflow || width_overflow {
        mask1 = 0;
    } else if b1 == 0 {
        mask1 = u32::MAX;
    }
    mask0 & !mask1
}

/// `szext.{clamp,wrap}.{u32,s32} d, a, b`.
pub fn szext(a: u32, b: u32, clamp: bool, signed: bool) -> u32 {
    let b1 = b & 0x1f;
    let too_large = b >= 32 && clamp;
    let m = if too_large { 0 } else { u32::MAX << b1 };
    let sign_pos = b1.wrapping_sub(1) & 0x1f;
    let sign_bit = if b1 == 0 || too_large || !signed { false } else { (a >> sign_pos) & 1 == 1 };
    (a & !m) | if sign_bit { m } else { 0 }
}

/// `bfind{.shiftamt}.type d, a`.
pub fn bfind(a: u128, bits: u32, signed: bool, shiftamt: bool) -> u32 {
    let msb = bits - 1;
    let mut a = a & mask(bits);
    if signed && (a >> msb) & 1 == 1 {
        a = !a & mask(bits);
    }
    if a == 0 {
        return u32::MAX;
    }
    let d = 127 - a.leading_zeros();
    if shiftamt {
        msb - d
    } else {
        d
    }
}

/// `fns.b32 d, mask, base, offset` (ISA 9.7.1.17) for `base` <= 31 (the
/// ISA leaves a larger base undefined; the executor reports it). Offset 0
/// asks whether bit `base` itself is set; offset n > 0 is the n-th set bit
/// counting up from `base` (base included), n < 0 the |n|-th counting down
/// from it; `u32::MAX` when there are not that many.
///
/// Written with population counts rather than the ISA's bit loop, which the
/// tests keep as the independent model.
pub fn fns(mask: u32, base: u32, offset: i32) -> u32 {
    debug_assert!(base <= 31, "fns base {base} out of range");
    if offset == 0 {
        return if (mask >> base) & 1 == 1 { base } else { u32::MAX };
    }
    let n = offset.unsigned_abs();
    if offset > 0 {
        // The set bits at or above base, lowest first: drop n - 1 of them.
        let mut bits = mask & (u32::MAX << base);
        if bits.count_ones() < n {
            return u32::MAX;
        }
        for _ in 1..n {
            bits &= bits - 1;
        }
        bits.trailing_zeros()
    } else {
        // The set bits at or below base, highest first.
        let mut bits = mask & (u32::MAX >> (31 - base));
        if bits.count_ones() < n {
            return u32::MAX;
        }
        for _ in 1..n {
            bits &= !(1u32 << (31 - bits.leading_zeros()));
        }
        31 - bits.leading_zeros()
    }
}

/// `lop3.b32`: bit i of `lut` is the result for inputs (a,b,c) = bits of i
/// (a weighs 4, b 2, c 1), which is what `F(0xF0, 0xCC, 0xAA)` encodes.
pub fn lop3(a: u32, b: u32, c: u32, lut: u8) -> u32 {
    let mut d = 0;
    for i in 0..32 {
        let idx = (((a >> i) & 1) << 2) | (((b >> i) & 1) << 1) | ((c >> i) & 1);
        d |= (((lut >> idx) & 1) as u32) << i;
    }
    d
}
