//! What the generated builders (`crate::family`: `Inst::mov(ScalarType::B32,
//! dst, src)`, `Inst::atom(..)`, one per instruction family) leave to hand:
//! operands from registers and immediates, `Inst::cvt` between two types
//! and `Inst::cvt_pack_sat`, and the guard and span of a built instruction.
//!
//! A built instruction has no guard and a synthetic span; the rewriter
//! (`ptx_pass::Rewriter`) gives it the guard and span of the instruction it
//! replaces or is inserted next to.

use crate::entities::RegId;
use crate::inst::{Guard, Inst, IntImm, Modifier, Operand};
use crate::opcodes::Opcode;
use crate::types::ScalarType;
use crate::words::Word;
use crate::Span;

impl From<RegId> for Operand {
    fn from(reg: RegId) -> Operand {
        Operand::Reg(reg)
    }
}

impl Operand {
    /// An integer immediate made by a pass (printed in hexadecimal).
    pub fn imm(bits: u64) -> Operand {
        Operand::Int(IntImm::new(bits))
    }
}

impl Inst {
    /// `cvt.dst_ty.src_ty dst, src` (no rounding or saturation: the integer
    /// widening and narrowing conversions).
    pub fn cvt(dst_ty: ScalarType, src_ty: ScalarType, dst: impl Into<Operand>, src: impl Into<Operand>) -> Inst {
        Inst::new(Opcode::Cvt, vec![Modifier::Type(dst_ty), Modifier::Type(src_ty)], vec![dst.into(), src.into()])
    }

    /// `cvt.pack.sat.convert_ty.s32 dst, a, b` or, with `c`,
    /// `cvt.pack.sat.convert_ty.s32.b32 dst, a, b, c`: `a` saturated into the
    /// upper part, `b` into the lower (PTX ISA 9.7.9.22).
    pub fn cvt_pack_sat(
        convert_ty: ScalarType,
        dst: impl Into<Operand>,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
        c: Option<Operand>,
    ) -> Inst {
        let mut modifiers = vec![
            Modifier::Word(Word::PACK),
            Modifier::Sat,
            Modifier::Type(convert_ty),
            Modifier::Type(ScalarType::S32),
        ];
        let mut operands = vec![dst.into(), a.into(), b.into()];
        if let Some(c) = c {
            modifiers.push(Modifier::Type(ScalarType::B32));
            operands.push(c);
        }
        Inst::new(Opcode::Cvt, modifiers, operands)
    }

    /// The same instruction under `guard`.
    pub fn with_guard(mut self, guard: Option<Guard>) -> Inst {
        self.guard = guard;
        self
    }

    /// The same instruction at `span` of the source.
    pub fn with_span(mut self, span: Span) -> Inst {
        self.span = span;
        self
    }
}
