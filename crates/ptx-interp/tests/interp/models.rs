//! Independent models written straight from the ISA text, on purpose along
//! a different code path than the interpreter: tables copied from the spec,
//! bit-by-bit loops from the pseudo-code, brute-force rounding.

/// The ISA 9.7.9.7 mode table, rows in the spec's order: for each mode and
/// selector value `c[1:0]`, the sources of d.b3, d.b2, d.b1, d.b0.
pub const PRMT_MODE_TABLE: &[(&str, [[u8; 4]; 4])] = &[
    ("f4e", [[3, 2, 1, 0], [4, 3, 2, 1], [5, 4, 3, 2], [6, 5, 4, 3]]),
    ("b4e", [[5, 6, 7, 0], [6, 7, 0, 1], [7, 0, 1, 2], [0, 1, 2, 3]]),
    ("rc8", [[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]]),
    ("ecl", [[3, 2, 1, 0], [3, 2, 1, 1], [3, 2, 2, 2], [3, 3, 3, 3]]),
    ("ecr", [[0, 0, 0, 0], [1, 1, 1, 0], [2, 2, 1, 0], [3, 2, 1, 0]]),
    ("rc16", [[1, 0, 1, 0], [3, 2, 3, 2], [1, 0, 1, 0], [3, 2, 3, 2]]),
];

/// Source byte `i` of `{b, a}` (bytes 0-3 from a, 4-7 from b).
fn source_byte(a: u32, b: u32, i: u8) -> u8 {
    if i < 4 {
        a.to_le_bytes()[i as usize]
    } else {
        b.to_le_bytes()[i as usize - 4]
    }
}

/// prmt per the spec text: generic form or a named mode.
pub fn prmt(a: u32, b: u32, c: u32, mode: Option<&str>) -> u32 {
    let mut out = [0u8; 4];
    match mode {
        None => {
            // "For each byte in the target register, a 4-bit selection value";
            // the 3 lsbs pick the byte, the msb replicates its sign.
            for (k, slot) in out.iter_mut().enumerate() {
                let nibble = (c >> (4 * k)) & 0xf;
                let byte = source_byte(a, b, (nibble & 0b0111) as u8);
                *slot = if nibble & 0b1000 == 0 {
                    byte
                } else if byte >= 0x80 {
                    0xff
                } else {
                    0x00
                };
            }
        }
        Some(m) => {
            let row = PRMT_MODE_TABLE.iter().find(|(n, _)| *n == m).expect("known mode").1[(c % 4) as usize];
            // The row lists d.b3 first.
            for (k, slot) in out.iter_mut().enumerate() {
                *slot = source_byte(a, b, row[3 - k]);
            }
        }
    }
    u32::from_le_bytes(out)
}

/// fns.b32 per ISA 9.7.1.17, its Semantics block line by line: a walk over
/// the bits from `base`, up for a positive offset, down for a negative one,
/// counting set bits. Only for `base` <= 31 (the ISA leaves the rest
/// undefined). The interpreter counts with popc/clz instead.
pub fn fns(mask: u32, base: u32, offset: i32) -> u32 {
    assert!(base <= 31, "fns is defined for base 0..=31 only");
    let bit = |pos: i64| (mask >> pos) & 1 == 1;
    let mut d = 0xffff_ffff;
    if offset == 0 {
        if bit(base as i64) {
            d = base;
        }
    } else {
        let mut pos = base as i64;
        let mut count = (offset as i64).abs() - 1;
        let inc = if offset > 0 { 1 } else { -1 };
        while (0..32).contains(&pos) {
            if bit(pos) {
                if count == 0 {
                    d = pos as u32;
                    break;
                } else {
                    count -= 1;
                }
            }
            pos += inc;
        }
    }
    d
}

/// Range of an integer type named like the ISA (`u8`, `s4`, ...).
pub fn range(ty: &str) -> (i64, i64) {
    let bits: u32 = ty[1..].parse().expect("width");
    if ty.starts_with('s') {
        (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
    } else {
        (0, (1i64 << bits) - 1)
    }
}

/// cvt.pack.sat per ISA 9.7.9.22 (with the saturation the text describes:
/// both inputs clamped to [MIN, MAX]; a goes above b; c fills the rest).
pub fn cvt_pack(convert: &str, a: i32, b: i32, c: u32) -> u32 {
    let (min, max) = range(convert);
    let size: u32 = convert[1..].parse().expect("width");
    let ta = (a as i64).clamp(min, max);
    let tb = (b as i64).clamp(min, max);
    let bit = |v: i64, i: u32| ((v >> i) & 1) as u32;
    let mut d = 0u32;
    for i in 0..size {
        d |= bit(tb, i) << i;
    }
    for i in size..2 * size {
        d |= bit(ta, i - size) << i;
    }
    if size != 16 {
        for i in 2 * size..32 {
            d |= ((c >> (i - 2 * size)) & 1) << i;
        }
    }
    d
}

/// Integer conversion per ISA cvt: with .sat the source value is clamped to
/// the destination range; without, it is sign/zero-extended by the source
/// type or chopped.
pub fn int_cvt(dst: &str, src: &str, value: u64, sat: bool) -> u64 {
    let sbits: u32 = src[1..].parse().unwrap();
    let dbits: u32 = dst[1..].parse().unwrap();
    let raw = value & if sbits == 64 { u64::MAX } else { (1 << sbits) - 1 };
    let math: i128 =
        if src.starts_with('s') && raw >> (sbits - 1) & 1 == 1 { raw as i128 - (1i128 << sbits) } else { raw as i128 };
    let dmask: u128 = if dbits == 64 { u64::MAX as u128 } else { (1u128 << dbits) - 1 };
    if sat {
        let (lo, hi): (i128, i128) = if dst.starts_with('s') {
            (-(1i128 << (dbits - 1)), (1i128 << (dbits - 1)) - 1)
        } else {
            (0, (1i128 << dbits) - 1)
        };
        (math.clamp(lo, hi) as u128 & dmask) as u64
    } else {
        (math as u128 & dmask) as u64
    }
}

// ---------------------------------------------------------------- float rounding by brute force

/// A rounding direction, with its PTX spellings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Dir {
    /// To nearest, ties to even.
    Nearest,
    /// Toward zero.
    Zero,
    /// Toward -infinity.
    Down,
    /// Toward +infinity.
    Up,
}

pub const DIRS: [(Dir, &str, &str); 4] =
    [(Dir::Nearest, "rn", "rni"), (Dir::Zero, "rz", "rzi"), (Dir::Down, "rm", "rmi"), (Dir::Up, "rp", "rpi")];

/// A 16-bit format decoded independently: (exponent bits, fraction bits).
pub fn decode16(bits: u16, e: u32, m: u32) -> f64 {
    let sign = if bits >> 15 == 1 { -1.0 } else { 1.0 };
    let exp = ((bits >> m) & ((1 << e) - 1)) as i32;
    let frac = (bits & ((1 << m) - 1)) as f64;
    let bias = (1 << (e - 1)) - 1;
    if exp == (1 << e) - 1 {
        return if frac == 0.0 { sign * f64::INFINITY } else { f64::NAN };
    }
    if exp == 0 {
        sign * frac * 2f64.powi(1 - bias - m as i32)
    } else {
        sign * (1.0 + frac / 2f64.powi(m as i32)) * 2f64.powi(exp - bias)
    }
}

/// Rounds the exact value `v` to a 16-bit format by searching all its
/// positive finite values: the two neighbours, then the direction decides.
pub fn round16(v: f64, e: u32, m: u32, dir: Dir) -> u16 {
    if v.is_nan() {
        return 0x7fff;
    }
    let neg = v.is_sign_negative();
    if v.is_infinite() {
        // Infinity is exact in every format: no rounding happens.
        return (if neg { 0x8000 } else { 0 }) | ((((1u32 << e) - 1) << m) as u16);
    }
    let mag = v.abs();
    let sign_bit: u16 = if neg { 0x8000 } else { 0 };
    let inf = (((1u32 << e) - 1) << m) as u16;
    // Positive finite values are increasing with their bit patterns.
    let (mut lo, mut hi) = (0u16, inf - 1);
    if mag > decode16(hi, e, m) {
        let toward_zero = matches!(dir, Dir::Zero) || (dir == Dir::Down && !neg) || (dir == Dir::Up && neg);
        let max = decode16(inf - 1, e, m);
        let ulp = max - decode16(inf - 2, e, m);
        let to_inf = match dir {
            Dir::Nearest => mag >= max + ulp / 2.0,
            _ => !toward_zero,
        };
        return sign_bit | if to_inf { inf } else { inf - 1 };
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if decode16(mid, e, m) <= mag {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    if decode16(hi, e, m) <= mag {
        lo = hi;
    }
    let lo_v = decode16(lo, e, m);
    if lo_v == mag {
        return sign_bit | lo;
    }
    let up = lo + 1;
    let pick_up = match dir {
        Dir::Nearest => {
            let (dl, du) = (mag - lo_v, decode16(up, e, m) - mag);
            du < dl || (du == dl && up & 1 == 0)
        }
        Dir::Zero => false,
        Dir::Down => neg,
        Dir::Up => !neg,
    };
    sign_bit | if pick_up { up } else { lo }
}

/// The next representable f32 above/below (for bracketing).
pub fn f32_step(x: f32, up: bool) -> f32 {
    if x == 0.0 {
        return if up { f32::from_bits(1) } else { -f32::from_bits(1) };
    }
    let b = x.to_bits();
    let away = (x > 0.0) == up;
    f32::from_bits(if away { b + 1 } else { b - 1 })
}

/// Rounds an exact f64 to f32 in a direction, by bracketing around the
/// host's round-to-nearest result.
pub fn round_f32(v: f64, dir: Dir) -> f32 {
    let n = v as f32;
    if n.is_nan() || n as f64 == v {
        return n;
    }
    let (lo, hi) = if (n as f64) < v { (n, f32_step(n, true)) } else { (f32_step(n, false), n) };
    let hi = if hi.is_nan() { f32::INFINITY } else { hi };
    match dir {
        Dir::Nearest => n,
        Dir::Down => lo,
        Dir::Up => hi,
        Dir::Zero => {
            if v > 0.0 {
                lo
            } else {
                hi
            }
        }
    }
}
