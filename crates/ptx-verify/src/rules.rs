//! The operand type rules of PTX ISA 9.4: when a register of declared type
//! `reg` may be used where an instruction expects type `instr`.
//!
//! Three relations, one per table of the ISA, plus the looser relation ptxas
//! applies to the elements of `ld`/`st` vectors:
//!
//! * [`agrees`]: Table 26, the rule for every typed instruction: same size;
//!   bit types agree with anything, signed and unsigned agree with each other
//!   and with bit types, floats only with the identical float type or a bit
//!   type ([`agrees_with_instruction_type`] adds ptxas's one exception).
//! * [`source_fits`] / [`dest_fits`]: Tables 27 and 28 (section 9.4.1), the
//!   relaxed rules of `ld`, `st` and `cvt`: the register may also be *wider*
//!   than the instruction type, except that float instruction types still
//!   need the exact float type (or a bit type) and integer instruction types
//!   never take a float register.
//! * [`vector_element_fits`]: the elements of `{a, b}` in `ld.vN`/`st.vN`,
//!   where ptxas is looser than either table (`{s32, s32}` is accepted by
//!   `ld.v2.f32`);
//! * [`immediate_fits`]: literals (`add.f32 d, a, 1` is an error, `1.0` or
//!   `0f3F800000` is not).
//!
//! Every relation was checked against ptxas 13.5 (`sm_90`, `.version 8.8`):
//! the 1472 cases of `shared/oracle/typecheck_oracle.tsv` plus probes of the
//! other instructions the verifier checks. Where ptxas is looser than the
//! tables the relation follows ptxas, so valid code is never rejected:
//!
//! * a `.f16x2` register passes for a 32-bit integer or a predicate where
//!   the operand has the instruction type (`add.u32 d, h2, b` and
//!   `mov.pred p, h2` are accepted, `shl.b32 d, a, h2` is not), and for a
//!   bit type under the relaxed rules;
//! * vector elements (see [`vector_element_fits`]).
//!
//! And where ptxas is stricter than the tables, so does the verifier: a
//! `cvt` involving a type no register can have (`.bf16`, `.tf32`,
//! `.e4m3x2`, ...) takes Table 26, not the relaxed tables, on both sides.

use ptx_ir::{ScalarType, TypeKind};

/// Table 26 (Type Checking Rules): may a register of type `reg` be an
/// operand of an instruction of type `instr`?
///
/// | instr \ reg | .bX  | .sX  | .uX  | .fX   |
/// |-------------|------|------|------|-------|
/// | .bX         | okay | okay | okay | okay  |
/// | .sX         | okay | okay | okay | inv   |
/// | .uX         | okay | okay | okay | inv   |
/// | .fX         | okay | inv  | inv  | exact |
///
/// The sizes must be equal in every case. `.pred` agrees only with `.pred`.
/// This is the rule for operands whose type the ISA fixes (shift amounts,
/// bit positions, predicates of `setp`/`selp`); operands typed by the
/// instruction type use [`agrees_with_instruction_type`].
pub fn agrees(instr: ScalarType, reg: ScalarType) -> bool {
    use TypeKind::*;
    if instr.kind() == Pred || reg.kind() == Pred {
        return instr == reg;
    }
    if instr.bits() != reg.bits() {
        return false;
    }
    match (instr.kind(), reg.kind()) {
        (Bits, _) => true,
        (Signed | Unsigned, Bits | Signed | Unsigned) => true,
        (Float, Bits) => true,
        (Float, Float) => instr == reg,
        _ => false,
    }
}

/// Table 26 for an operand whose type is the instruction type, with the
/// one exception ptxas makes: a `.f16x2` register is accepted by 32-bit
/// integer instruction types and by `.pred` ones (`add.s32 d, h2, b`,
/// `and.pred p, h2, q`), but not where the operand's type is fixed
/// (`shl.b32 d, a, h2` is rejected).
pub fn agrees_with_instruction_type(instr: ScalarType, reg: ScalarType) -> bool {
    agrees(instr, reg) || (reg == ScalarType::F16x2 && f16x2_passes_for(instr))
}

/// The instruction types a `.f16x2` register passes for, beyond Table 26.
fn f16x2_passes_for(instr: ScalarType) -> bool {
    instr.kind() == TypeKind::Pred || (!instr.is_float() && instr.bits() == 32)
}

/// The kind a register type counts as under the relaxed rules: a `.f16x2`
/// register counts as a bit type with bit and integer instruction types
/// (ptxas accepts `ld.u8 h2, [a]` and `cvt.f32.u32 f, h2`).
fn relaxed_reg_kind(instr: ScalarType, reg: ScalarType) -> TypeKind {
    if reg == ScalarType::F16x2 && !instr.is_float() {
        TypeKind::Bits
    } else {
        reg.kind()
    }
}

/// Float instruction types that no register can be declared with (`.bf16`,
/// `.tf32`, `.e4m3x2`, ...). A `cvt` to or from one of them is checked by
/// Table 26 on both sides, as ptxas does: exactly the same-size bit
/// register for the format (`.b16` for `.bf16`), and no wider register for
/// the other type either (`cvt.rn.bf16x2.f32 d, a, b` rejects a `.b64` a).
pub fn is_register_less_format(instr: ScalarType) -> bool {
    use ScalarType::*;
    matches!(instr, Bf16 | Bf16x2 | Tf32 | E4m3 | E5m2 | E4m3x2 | E5m2x2 | E2m1x2 | E2m3x2 | E3m2x2 | Ue8m0x2)
}

/// The relaxed rule shared by Tables 27 and 28, whose valid cells are the
/// same (they differ only in what happens to the extra bits: chop for
/// sources, sign or zero extension for destinations).
fn fits_relaxed(instr: ScalarType, reg: ScalarType) -> bool {
    use TypeKind::*;
    if instr.kind() == Pred || reg.kind() == Pred {
        return false;
    }
    // Note 1 of both tables: the register is at least as wide as the type.
    if reg.bits() < instr.bits() {
        return false;
    }
    match (instr.kind(), relaxed_reg_kind(instr, reg)) {
        // Float instruction types: "the size must match exactly", unless the
        // register is a bit type.
        (Float, Float) => instr == reg,
        (Float, Bits) => true,
        (Float, _) => false,
        // Float registers: only with bit-size (or float) instruction types.
        (Bits, Float) => true,
        (_, Float) => false,
        // Bit and integer registers: any bit or integer instruction type.
        _ => true,
    }
}

/// Table 27 (Relaxed Type-checking Rules for Source Operands) of `ld`, `st`
/// and `cvt`: may a register of type `reg` be the source of an instruction
/// of type `instr`? Wider registers are truncated ("chop").
pub fn source_fits(instr: ScalarType, reg: ScalarType) -> bool {
    fits_relaxed(instr, reg)
}

/// Table 28 (Relaxed Type-checking Rules for Destination Operands) of `ld`
/// and `cvt`: may a register of type `reg` receive the result of an
/// instruction of type `instr`? Wider registers are sign- or zero-extended.
pub fn dest_fits(instr: ScalarType, reg: ScalarType) -> bool {
    fits_relaxed(instr, reg)
}

/// An element of a `{...}` vector operand of `ld.vN`/`st.vN`. ptxas's
/// rule differs from Tables 27/28 in one place, accepted here: an integer
/// element of exactly the size of a float instruction type
/// (`ld.v2.f32 {s32, s32}`). Otherwise: wide enough, float types exact or
/// bit-typed, integer types no floats.
pub fn vector_element_fits(instr: ScalarType, reg: ScalarType) -> bool {
    use TypeKind::*;
    if reg.kind() == Pred || reg.bits() < instr.bits() {
        return false;
    }
    match (instr.kind(), reg.kind()) {
        (Bits, _) => true,
        (Float, Bits) => true,
        (Float, Float) => instr == reg,
        (Float, _) => reg.bits() == instr.bits(),
        (_, Float) => false,
        _ => true,
    }
}

/// An element of a vector operand of `mov.vN` (ptxas 13.5): of the
/// instruction type's size exactly, then as [`vector_element_fits`]
/// (`mov.v2.f32` takes `.u32` elements, `mov.v2.u32` no `.f32` ones).
pub fn move_element_fits(instr: ScalarType, reg: ScalarType) -> bool {
    reg.bits() == instr.bits() && vector_element_fits(instr, reg)
}

/// A literal operand: an integer, or a float of 32 bits (`0f3F800000`) or
/// 64 bits (`0d3FF0000000000000`, and decimal `1.0`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Literal {
    /// `1`, `-1`, `0x10`
    Int,
    /// A float literal of this many bits.
    Float(u32),
}

/// Whether a literal may be an operand of type `t` (ptxas): integer types
/// take integer literals; `.f32` and `.f64` take float literals of either
/// size; bit types take integers, or a float literal of their own size
/// (`mov.b32 r, 0f3F800000`); predicates take integers; the other float
/// types (`.f16`, `.bf16x2`, ...) have no literals at all.
pub fn immediate_fits(t: ScalarType, literal: Literal) -> bool {
    match (t.kind(), literal) {
        (_, Literal::Int) => !t.is_float(),
        (TypeKind::Bits, Literal::Float(bits)) => t.bits() == bits,
        (TypeKind::Float, Literal::Float(_)) => matches!(t, ScalarType::F32 | ScalarType::F64),
        _ => false,
    }
}

/// True if `reg` may hold an address: a bit or integer register of at most
/// 64 bits (ptxas: "Use integer or bit only"). 32-bit registers are
/// accepted here: they are valid for `.shared` and 32-bit code, and whether
/// they are valid otherwise depends on the target.
pub fn can_hold_address(reg: ScalarType) -> bool {
    matches!(reg.kind(), TypeKind::Bits | TypeKind::Unsigned | TypeKind::Signed) && reg.bits() <= 64
}

/// The type twice as wide as `t`, of the same kind (`.s32` -> `.s64`): the
/// destination of `mul.wide` and `mad.wide`.
pub fn widened(t: ScalarType) -> Option<ScalarType> {
    let bits = t.bits() * 2;
    match t.kind() {
        TypeKind::Unsigned => ScalarType::unsigned_of_bits(bits),
        TypeKind::Signed => ScalarType::signed_of_bits(bits),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ScalarType::*;

    #[test]
    fn table_26_same_size_bits_ints_floats() {
        assert!(agrees(U32, B32) && agrees(U32, S32) && agrees(B32, F32));
        assert!(agrees(F16, B16) && agrees(F16, F16));
        assert!(!agrees(F32, U32) && !agrees(U32, F32) && !agrees(U32, U16) && !agrees(F16, Bf16));
        assert!(!agrees(B32, Pred) && agrees(Pred, Pred));
        assert!(agrees(Bf16, B16) && !agrees(Bf16, B32) && !agrees(Tf32, F32));
        // The .f16x2 register quirk: only where the instruction type decides.
        assert!(!agrees(U32, F16x2) && agrees(B32, F16x2) && agrees(F16x2, F16x2));
        assert!(agrees_with_instruction_type(U32, F16x2) && agrees_with_instruction_type(Pred, F16x2));
        assert!(!agrees_with_instruction_type(F32, F16x2) && !agrees_with_instruction_type(U16, F16x2));
    }

    #[test]
    fn tables_27_28_relaxed() {
        assert!(source_fits(U8, B64) && source_fits(B8, F32) && source_fits(F16, B32));
        assert!(!source_fits(U8, F16) && !source_fits(B32, F16) && !source_fits(F32, F64));
        assert!(dest_fits(S8, U64) && !dest_fits(U64, U32) && !dest_fits(F32, S32));
        assert!(dest_fits(U8, F16x2) && !dest_fits(F32, F16x2));
    }

    #[test]
    fn vector_elements_and_immediates() {
        assert!(vector_element_fits(F32, S32) && vector_element_fits(B16, F64) && vector_element_fits(U8, S64));
        assert!(!vector_element_fits(F32, S64) && !vector_element_fits(U8, F16) && !vector_element_fits(U32, F32));
        use Literal::{Float, Int};
        assert!(immediate_fits(F32, Float(64)) && immediate_fits(F64, Float(32)) && immediate_fits(U32, Int));
        assert!(immediate_fits(B32, Float(32)) && immediate_fits(B64, Int) && immediate_fits(Pred, Int));
        assert!(!immediate_fits(F32, Int) && !immediate_fits(F16, Float(32)) && !immediate_fits(S32, Float(32)));
        assert!(!immediate_fits(B64, Float(32)) && !immediate_fits(B32, Float(64)) && !immediate_fits(Pred, Float(32)));
    }

    #[test]
    fn widening() {
        assert_eq!(widened(S32), Some(S64));
        assert_eq!(widened(U16), Some(U32));
        assert_eq!(widened(U64), None);
        assert_eq!(widened(B32), None);
    }
}
