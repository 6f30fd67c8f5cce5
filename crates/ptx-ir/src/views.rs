//! Typed views: read an instruction of a given kind by role instead of by
//! operand index. Each returns `None` if the instruction is not of that kind
//! or does not have the expected operand shape.

use crate::inst::{Address, Inst, Operand};
use crate::opcodes::Opcode;
use crate::types::{CmpOp, PrmtMode, Rounding, ScalarType, StateSpace};
use crate::words::Word;
use crate::Modifier;

/// `ld{.space}{.vN}.type d, [a]`
#[derive(Debug)]
pub struct Ld<'a> {
    /// Instruction type.
    pub ty: ScalarType,
    /// State space (None = generic).
    pub space: Option<StateSpace>,
    /// Vector width.
    pub vector: Option<u8>,
    /// Destination: a register or `{...}`.
    pub dst: &'a Operand,
    /// The address.
    pub addr: &'a Address,
}

/// `st{.space}{.vN}.type [a], b`
#[derive(Debug)]
pub struct St<'a> {
    /// Instruction type.
    pub ty: ScalarType,
    /// State space (None = generic).
    pub space: Option<StateSpace>,
    /// Vector width.
    pub vector: Option<u8>,
    /// The address.
    pub addr: &'a Address,
    /// Source: a register, immediate or `{...}`.
    pub src: &'a Operand,
}

/// `cvt{.rnd}{.ftz}{.sat}.dtype.atype d, a`
#[derive(Debug)]
pub struct Cvt<'a> {
    /// Destination type.
    pub dst_ty: ScalarType,
    /// Source type.
    pub src_ty: ScalarType,
    /// `.sat`
    pub sat: bool,
    /// `.ftz`
    pub ftz: bool,
    /// Rounding modifier.
    pub rounding: Option<Rounding>,
    /// Destination.
    pub dst: &'a Operand,
    /// Source.
    pub src: &'a Operand,
}

/// `cvt.pack.sat.convertType.abType d, a, b{, c}`
#[derive(Debug)]
pub struct CvtPack<'a> {
    /// The narrow type each input is saturated to.
    pub convert_ty: ScalarType,
    /// The input type (`.s32`).
    pub ab_ty: ScalarType,
    /// Destination.
    pub dst: &'a Operand,
    /// Goes to the upper part.
    pub a: &'a Operand,
    /// Goes to the lower part.
    pub b: &'a Operand,
    /// The already-packed lower bits (4-operand forms).
    pub c: Option<&'a Operand>,
}

/// `mov.type d, a`
#[derive(Debug)]
pub struct Mov<'a> {
    /// Instruction type.
    pub ty: ScalarType,
    /// Destination.
    pub dst: &'a Operand,
    /// Source.
    pub src: &'a Operand,
}

/// `prmt.b32{.mode} d, a, b, c`
#[derive(Debug)]
pub struct Prmt<'a> {
    /// The mode, or None for the generic form.
    pub mode: Option<PrmtMode>,
    /// Destination.
    pub dst: &'a Operand,
    /// Source a (bytes 0-3).
    pub a: &'a Operand,
    /// Source b (bytes 4-7).
    pub b: &'a Operand,
    /// Selector.
    pub selector: &'a Operand,
}

/// `setp.cmp{.boolop}.type p{|q}, a, b{, c}`
#[derive(Debug)]
pub struct Setp<'a> {
    /// Comparison.
    pub cmp: CmpOp,
    /// Operand type.
    pub ty: ScalarType,
    /// Destination (a register or `p|q`).
    pub dst: &'a Operand,
    /// First source.
    pub a: &'a Operand,
    /// Second source.
    pub b: &'a Operand,
    /// Predicate combined with the boolean op.
    pub c: Option<&'a Operand>,
}

/// `selp.type d, a, b, c`
#[derive(Debug)]
pub struct Selp<'a> {
    /// Instruction type.
    pub ty: ScalarType,
    /// Destination.
    pub dst: &'a Operand,
    /// Value when c is true.
    pub a: &'a Operand,
    /// Value when c is false.
    pub b: &'a Operand,
    /// The predicate.
    pub c: &'a Operand,
}

/// `bra{.uni} target`
#[derive(Debug)]
pub struct Bra<'a> {
    /// `.uni`
    pub uni: bool,
    /// The target (normally a label).
    pub target: &'a Operand,
}

/// `dp4a.atype.btype d, a, b, c` and `dp2a.mode.atype.btype d, a, b, c`
#[derive(Debug)]
pub struct Dot<'a> {
    /// `a`'s type (`.u32` or `.s32`): how its parts are extended.
    pub a_ty: ScalarType,
    /// `b`'s type.
    pub b_ty: ScalarType,
    /// For `dp2a`: true for `.hi` (bytes 2 and 3 of `b`), false for `.lo`;
    /// None for `dp4a`.
    pub hi: Option<bool>,
    /// Destination.
    pub dst: &'a Operand,
    /// Four bytes (`dp4a`) or two half-words (`dp2a`).
    pub a: &'a Operand,
    /// Four bytes.
    pub b: &'a Operand,
    /// The accumulator.
    pub c: &'a Operand,
}

fn address(op: &Operand) -> Option<&Address> {
    match op {
        Operand::Address(a) => Some(a),
        _ => None,
    }
}

impl Inst {
    /// Views an `ld` (also `ldu`).
    pub fn as_ld(&self) -> Option<Ld<'_>> {
        if !matches!(self.opcode, Opcode::Ld | Opcode::Ldu) || self.operands.len() < 2 {
            return None;
        }
        Some(Ld {
            ty: self.types().last()?,
            space: self.space(),
            vector: self.vector(),
            dst: &self.operands[0],
            addr: address(&self.operands[1])?,
        })
    }

    /// Views an `st`.
    pub fn as_st(&self) -> Option<St<'_>> {
        if self.opcode != Opcode::St || self.operands.len() < 2 {
            return None;
        }
        Some(St {
            ty: self.types().last()?,
            space: self.space(),
            vector: self.vector(),
            addr: address(&self.operands[0])?,
            src: &self.operands[1],
        })
    }

    /// True for `cvt.pack`.
    pub fn is_cvt_pack(&self) -> bool {
        self.opcode == Opcode::Cvt && self.has_word(Word::PACK)
    }

    /// Views a plain `cvt` (not `cvt.pack`, not the packed-float forms with
    /// more than one source).
    pub fn as_cvt(&self) -> Option<Cvt<'_>> {
        if self.opcode != Opcode::Cvt || self.is_cvt_pack() || self.operands.len() != 2 {
            return None;
        }
        let mut types = self.types();
        let dst_ty = types.next()?;
        let src_ty = types.next()?;
        if types.next().is_some() {
            return None;
        }
        Some(Cvt {
            dst_ty,
            src_ty,
            sat: self.is_sat(),
            ftz: self.is_ftz(),
            rounding: self.rounding(),
            dst: &self.operands[0],
            src: &self.operands[1],
        })
    }

    /// Views a `cvt.pack`.
    pub fn as_cvt_pack(&self) -> Option<CvtPack<'_>> {
        if !self.is_cvt_pack() || !(3..=4).contains(&self.operands.len()) {
            return None;
        }
        let mut types = self.types();
        Some(CvtPack {
            convert_ty: types.next()?,
            ab_ty: types.next()?,
            dst: &self.operands[0],
            a: &self.operands[1],
            b: &self.operands[2],
            c: self.operands.get(3),
        })
    }

    /// Views a `mov`.
    pub fn as_mov(&self) -> Option<Mov<'_>> {
        if self.opcode != Opcode::Mov || self.operands.len() != 2 {
            return None;
        }
        Some(Mov { ty: self.first_type()?, dst: &self.operands[0], src: &self.operands[1] })
    }

    /// Views a `prmt`.
    pub fn as_prmt(&self) -> Option<Prmt<'_>> {
        if self.opcode != Opcode::Prmt || self.operands.len() != 4 {
            return None;
        }
        let mode = self.modifiers.iter().find_map(|m| match m {
            Modifier::Prmt(p) => Some(*p),
            _ => None,
        });
        Some(Prmt {
            mode,
            dst: &self.operands[0],
            a: &self.operands[1],
            b: &self.operands[2],
            selector: &self.operands[3],
        })
    }

    /// Views a `setp`.
    pub fn as_setp(&self) -> Option<Setp<'_>> {
        if self.opcode != Opcode::Setp || !(3..=4).contains(&self.operands.len()) {
            return None;
        }
        Some(Setp {
            cmp: self.cmp()?,
            ty: self.types().last()?,
            dst: &self.operands[0],
            a: &self.operands[1],
            b: &self.operands[2],
            c: self.operands.get(3),
        })
    }

    /// Views a `selp`.
    pub fn as_selp(&self) -> Option<Selp<'_>> {
        if self.opcode != Opcode::Selp || self.operands.len() != 4 {
            return None;
        }
        Some(Selp {
            ty: self.first_type()?,
            dst: &self.operands[0],
            a: &self.operands[1],
            b: &self.operands[2],
            c: &self.operands[3],
        })
    }

    /// Views a `dp4a` or a `dp2a`.
    pub fn as_dot(&self) -> Option<Dot<'_>> {
        if !matches!(self.opcode, Opcode::Dp4a | Opcode::Dp2a) || self.operands.len() != 4 {
            return None;
        }
        let mut types = self.types();
        let (a_ty, b_ty) = (types.next()?, types.next()?);
        if types.next().is_some() {
            return None;
        }
        let hi = match self.opcode {
            Opcode::Dp2a if self.has_word(Word::HI) => Some(true),
            Opcode::Dp2a if self.has_word(Word::LO) => Some(false),
            Opcode::Dp2a => return None,
            _ => None,
        };
        Some(Dot {
            a_ty,
            b_ty,
            hi,
            dst: &self.operands[0],
            a: &self.operands[1],
            b: &self.operands[2],
            c: &self.operands[3],
        })
    }

    /// Views a `bra`.
    pub fn as_bra(&self) -> Option<Bra<'_>> {
        if self.opcode != Opcode::Bra || self.operands.len() != 1 {
            return None;
        }
        Some(Bra { uni: self.has_word(Word::UNI), target: &self.operands[0] })
    }
}
