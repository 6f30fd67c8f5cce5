//! The byte-lane model of `prmt` (PTX ISA 9.7.9.7): the byte analysis
//! ([`crate::bytes`]) follows `prmt` with it, and passes that rewrite
//! permutes build selectors with it.
//!
//! Every `prmt` with a known selector is a map from the four result bytes to
//! the eight source bytes `{b, a}` (a = bytes 0-3, b = bytes 4-7), each byte
//! either copied or replaced by its sign (the generic form's selector msb).
//! The six modes are fixed maps chosen by the selector's two low bits, and
//! never sign-replicate, so each is equal to one generic selector.

use ptx_ir::PrmtMode;

/// Where one result byte comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Lane {
    /// Source byte 0-7 of `{b, a}`.
    pub byte: u8,
    /// Replicate the source byte's sign bit instead of copying it.
    pub sign: bool,
}

/// The four result lanes (index 0 = least significant byte).
pub type Lanes = [Lane; 4];

const fn copy(byte: u8) -> Lane {
    Lane { byte, sign: false }
}

/// The table of the six modes: `[mode][c[1:0]]` gives source bytes for
/// result bytes 3, 2, 1, 0 as printed in the ISA.
fn mode_table(mode: PrmtMode) -> [[u8; 4]; 4] {
    match mode {
        PrmtMode::F4e => [[3, 2, 1, 0], [4, 3, 2, 1], [5, 4, 3, 2], [6, 5, 4, 3]],
        PrmtMode::B4e => [[5, 6, 7, 0], [6, 7, 0, 1], [7, 0, 1, 2], [0, 1, 2, 3]],
        PrmtMode::Rc8 => [[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]],
        PrmtMode::Ecl => [[3, 2, 1, 0], [3, 2, 1, 1], [3, 2, 2, 2], [3, 3, 3, 3]],
        PrmtMode::Ecr => [[0, 0, 0, 0], [1, 1, 1, 0], [2, 2, 1, 0], [3, 2, 1, 0]],
        PrmtMode::Rc16 => [[1, 0, 1, 0], [3, 2, 3, 2], [1, 0, 1, 0], [3, 2, 3, 2]],
    }
}

/// The lanes of a `prmt` with the given mode and selector value.
pub fn lanes(mode: Option<PrmtMode>, selector: u64) -> Lanes {
    match mode {
        None => {
            let nibble = |i: u32| ((selector >> (4 * i)) & 0xf) as u8;
            std::array::from_fn(|i| {
                let n = nibble(i as u32);
                Lane { byte: n & 7, sign: n & 8 != 0 }
            })
        }
        Some(mode) => {
            let row = mode_table(mode)[(selector & 3) as usize];
            // The table lists result bytes 3, 2, 1, 0.
            [copy(row[3]), copy(row[2]), copy(row[1]), copy(row[0])]
        }
    }
}

/// The generic selector that implements `lanes` (bits above 15 clear).
pub fn generic_selector(lanes: &Lanes) -> u32 {
    lanes
        .iter()
        .enumerate()
        .map(|(i, l)| (u32::from(l.byte & 7) | if l.sign { 8 } else { 0 }) << (4 * i))
        .fold(0, |acc, n| acc | n)
}

/// Evaluates the permute on known sources.
pub fn evaluate(lanes: &Lanes, a: u32, b: u32) -> u32 {
    let source = (u64::from(b) << 32) | u64::from(a);
    lanes
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let byte = (source >> (8 * l.byte)) as u8;
            let value = if l.sign {
                if byte & 0x80 != 0 {
                    0xff
                } else {
                    0
                }
            } else {
                byte
            };
            u32::from(value) << (8 * i)
        })
        .fold(0, |acc, v| acc | v)
}

/// True if the lanes copy all four bytes of `a` in order (the identity on a).
pub fn is_identity_of_a(lanes: &Lanes) -> bool {
    lanes.iter().enumerate().all(|(i, l)| !l.sign && usize::from(l.byte) == i)
}

/// True if the lanes copy all four bytes of `b` in order.
pub fn is_identity_of_b(lanes: &Lanes) -> bool {
    lanes.iter().enumerate().all(|(i, l)| !l.sign && usize::from(l.byte) == i + 4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_match_the_isa_table_on_llvm_golden_inputs() {
        // a = 0x03020100, b = 0x07060504: byte k of {b, a} has value k, so
        // the result spells the source bytes chosen for each lane.
        let (a, b) = (0x0302_0100, 0x0706_0504);
        assert_eq!(evaluate(&lanes(Some(PrmtMode::F4e), 1), a, b), 0x0403_0201);
        assert_eq!(evaluate(&lanes(Some(PrmtMode::B4e), 0), a, b), 0x0506_0700);
        assert_eq!(evaluate(&lanes(Some(PrmtMode::Rc8), 2), a, b), 0x0202_0202);
        assert_eq!(evaluate(&lanes(Some(PrmtMode::Ecl), 1), a, b), 0x0302_0101);
        assert_eq!(evaluate(&lanes(Some(PrmtMode::Ecr), 2), a, b), 0x0202_0100);
        assert_eq!(evaluate(&lanes(Some(PrmtMode::Rc16), 3), a, b), 0x0302_0302);
    }

    #[test]
    fn generic_selector_round_trips_and_sign_replicates() {
        for sel in [0x3210u64, 0x7654, 0x0040, 0x4210, 0x8888, 0xfedc] {
            assert_eq!(u64::from(generic_selector(&lanes(None, sel))), sel);
        }
        assert_eq!(evaluate(&lanes(None, 0x8888), 0x80, 0), 0xffff_ffff);
        // Lane 0 is the (clear) sign of byte 0, lanes 1-3 copy byte 0.
        assert_eq!(evaluate(&lanes(None, 0x0008), 0x7f, 0), 0x7f7f_7f00);
        // Bits above 15 are ignored by the generic form.
        assert_eq!(lanes(None, 0xabcd_3210), lanes(None, 0x3210));
    }
}
