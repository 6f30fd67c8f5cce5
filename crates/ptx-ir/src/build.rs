//! Builders for the instructions passes create, so a pass writes
//! `Inst::mov(ScalarType::B32, dst, src)` instead of assembling modifier and
//! operand vectors (and never spells a modifier word as a string).
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
    /// `mov.ty dst, src`
    pub fn mov(ty: ScalarType, dst: impl Into<Operand>, src: impl Into<Operand>) -> Inst {
        Inst::new(Opcode::Mov, vec![Modifier::Type(ty)], vec![dst.into(), src.into()])
    }

    /// `cvt.dst_ty.src_ty dst, src` (no rounding or saturation: the integer
    /// widening and narrowing conversions).
    pub fn cvt(dst_ty: ScalarType, src_ty: ScalarType, dst: impl Into<Operand>, src: impl Into<Operand>) -> Inst {
        Inst::new(Opcode::Cvt, vec![Modifier::Type(dst_ty), Modifier::Type(src_ty)], vec![dst.into(), src.into()])
    }

    /// `prmt.b32 dst, a, b, selector` (the generic form, immediate selector).
    pub fn prmt(dst: impl Into<Operand>, a: impl Into<Operand>, b: impl Into<Operand>, selector: u32) -> Inst {
        Inst::new(
            Opcode::Prmt,
            vec![Modifier::Type(ScalarType::B32)],
            vec![dst.into(), a.into(), b.into(), Operand::imm(u64::from(selector))],
        )
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
