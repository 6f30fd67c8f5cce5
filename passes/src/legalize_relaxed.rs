//! `legalize-relaxed`: make PTX's implicit operand conversions explicit.
//!
//! `ld`, `st` and `cvt` may name registers wider than the instruction type
//! (PTX ISA 9.4.1): a wider source is chopped to the instruction type, a wider
//! destination is sign-extended (signed instruction types) or zero-extended
//! (everything else). Tools that translate PTX get these implicit conversions
//! wrong, so this pass writes them out:
//!
//! ```text
//! ld.global.s8 %r1, [%rd1];        ld.global.s8 %t8, [%rd1];
//!                           ==>    cvt.s32.s8 %r1, %t8;
//! st.global.u16 [%rd1], %r2;       cvt.u16.u32 %t16, %r2;
//!                           ==>    st.global.u16 [%rd1], %t16;
//! ```
//!
//! Every operand ends up exactly the size of its instruction type. Float
//! registers cannot be `cvt` operands of an integer type, so they go through a
//! bit register with `mov` (`mov.b32 %f1, %t32`). A guarded instruction keeps
//! its guard on every instruction it becomes: a conversion that ran when the
//! load did not would clobber the register. Combinations the ISA marks
//! invalid (`inv`) are left for `verify` to report; `.b128` registers, which
//! `cvt` cannot produce, are left as they are and counted.

use ptx_ir::{
    BodyEdits, FreshRegs, Function, Guard, Inst, InstId, Modifier, Opcode, Operand, RegId, ScalarType, TypeKind,
};
use ptx_pass::{FunctionContext, FunctionPass, Preserves};

/// The pass.
pub struct LegalizeRelaxed;

/// How a wider destination register is filled from the exact-size result.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Extension {
    Zero,
    Sign,
}

/// What to do with one register operand.
enum Plan {
    /// Exact size (or not a case this pass handles): leave it.
    Keep,
    /// Valid relaxed operand: rewrite it.
    Rewrite,
    /// Relaxed but not expressible (a `.b128` register): leave it, count it.
    Unsupported,
}

/// Decides whether a register of type `reg` used with instruction type `ty`
/// is a relaxed operand this pass rewrites (ISA 9.4.1 Tables 27 and 28: the
/// same cells are valid for sources and destinations).
fn plan(reg: ScalarType, ty: ScalarType) -> Plan {
    if reg.bits() <= ty.bits() || ty.bits() < 8 || ty == ScalarType::Pred || reg == ScalarType::Pred {
        return Plan::Keep;
    }
    let valid = match (reg.kind(), ty.kind()) {
        // Bit-size registers go with any instruction type.
        (TypeKind::Bits, _) => true,
        // Integer registers go with bit-size and integer instruction types.
        (TypeKind::Signed | TypeKind::Unsigned, TypeKind::Bits | TypeKind::Signed | TypeKind::Unsigned) => true,
        // Float registers go with narrower bit-size instruction types only.
        (TypeKind::Float, TypeKind::Bits) => true,
        _ => false,
    };
    if !valid || ty.bit_type().is_none() {
        Plan::Keep
    } else if reg.bits() > 64 {
        Plan::Unsupported
    } else {
        Plan::Rewrite
    }
}

struct Rewriter<'f> {
    func: &'f mut Function,
    fresh: FreshRegs,
    edits: BodyEdits,
    unsupported: u64,
}

fn int_type(bits: u32, signed: bool) -> ScalarType {
    let t = if signed { ScalarType::signed_of_bits(bits) } else { ScalarType::unsigned_of_bits(bits) };
    t.expect("register sizes handled here are 8, 16, 32 or 64 bits")
}

fn conversion(dst_ty: ScalarType, src_ty: ScalarType, dst: RegId, src: RegId, guard: Option<Guard>) -> Inst {
    let mut inst = Inst::new(
        Opcode::Cvt,
        vec![Modifier::Type(dst_ty), Modifier::Type(src_ty)],
        vec![Operand::Reg(dst), Operand::Reg(src)],
    );
    inst.guard = guard;
    inst
}

fn bit_move(bits: u32, dst: RegId, src: RegId, guard: Option<Guard>) -> Inst {
    let ty = ScalarType::unsigned_of_bits(bits).and_then(ScalarType::bit_type).expect("8..64-bit move");
    let mut inst = Inst::new(Opcode::Mov, vec![Modifier::Type(ty)], vec![Operand::Reg(dst), Operand::Reg(src)]);
    inst.guard = guard;
    inst
}

impl Rewriter<'_> {
    fn reg_type(&self, reg: RegId) -> Option<ScalarType> {
        let ty = self.func.regs[reg].ty;
        ty.vector.is_none().then_some(ty.scalar)
    }

    fn temp(&mut self, bits: u32) -> RegId {
        let ty = ScalarType::unsigned_of_bits(bits).and_then(ScalarType::bit_type).expect("8..64-bit temporary");
        self.fresh.make(self.func, ty)
    }

    /// Rewrites a source register wider than `ty`: returns the exact-size
    /// register holding its low bits, computed just before `at`.
    fn chop(&mut self, at: InstId, src: RegId, ty: ScalarType, guard: Option<Guard>) -> RegId {
        let reg_ty = self.func.regs[src].ty.scalar;
        let (wide, narrow) = (reg_ty.bits(), ty.bits());
        let int_src = if reg_ty.is_float() {
            let bits = self.temp(wide);
            let mov = bit_move(wide, bits, src, guard);
            self.edits.insert_before(self.func, at, mov);
            bits
        } else {
            src
        };
        let out = self.temp(narrow);
        let cvt = conversion(int_type(narrow, false), int_type(wide, false), out, int_src, guard);
        self.edits.insert_before(self.func, at, cvt);
        out
    }

    /// Rewrites a destination register wider than `ty`: returns the
    /// exact-size register the instruction writes instead; the extension into
    /// `dst` is scheduled just after `at`.
    fn extend(&mut self, at: InstId, dst: RegId, ty: ScalarType, ext: Extension, guard: Option<Guard>) -> RegId {
        let reg_ty = self.func.regs[dst].ty.scalar;
        let (wide, narrow) = (reg_ty.bits(), ty.bits());
        let exact = self.temp(narrow);
        let signed = ext == Extension::Sign;
        if reg_ty.is_float() {
            let bits = self.temp(wide);
            let cvt = conversion(int_type(wide, signed), int_type(narrow, signed), bits, exact, guard);
            let mov = bit_move(wide, dst, bits, guard);
            // Scheduled in order after `at`: cvt, then mov.
            self.edits.insert_after(self.func, at, cvt);
            self.edits.insert_after(self.func, at, mov);
        } else {
            let cvt = conversion(int_type(wide, signed), int_type(narrow, signed), dst, exact, guard);
            self.edits.insert_after(self.func, at, cvt);
        }
        exact
    }

    /// Applies `f` to every register of a data operand (a register or a `{..}`
    /// vector of them); sinks and immediates are skipped.
    fn each_element(op: &Operand, mut f: impl FnMut(usize, RegId)) {
        match op {
            Operand::Reg(r) => f(0, *r),
            Operand::Vector(elems) => {
                for (i, e) in elems.iter().enumerate() {
                    if let Operand::Reg(r) = e {
                        f(i, *r);
                    }
                }
            }
            _ => {}
        }
    }

    fn replace_element(op: &mut Operand, index: usize, reg: RegId) {
        match op {
            Operand::Reg(r) => *r = reg,
            Operand::Vector(elems) => elems[index] = Operand::Reg(reg),
            _ => {}
        }
    }

    /// Rewrites operand `operand` of `inst` (a source if `is_dst` is false);
    /// returns the number of registers rewritten.
    fn legalize_operand(&mut self, id: InstId, operand: usize, ty: ScalarType, is_dst: bool, ext: Extension) -> u64 {
        let guard = self.func.insts[id].guard;
        let mut targets = Vec::new();
        Self::each_element(&self.func.insts[id].operands[operand], |i, r| targets.push((i, r)));
        let mut rewritten = 0;
        for (index, reg) in targets {
            let Some(reg_ty) = self.reg_type(reg) else { continue };
            match plan(reg_ty, ty) {
                Plan::Keep => {}
                Plan::Unsupported => self.unsupported += 1,
                Plan::Rewrite => {
                    let exact = if is_dst {
                        self.extend(id, reg, ty, ext, guard)
                    } else {
                        self.chop(id, reg, ty, guard)
                    };
                    Self::replace_element(&mut self.func.insts[id].operands[operand], index, exact);
                    rewritten += 1;
                }
            }
        }
        rewritten
    }
}

fn extension_of(ty: ScalarType) -> Extension {
    if ty.is_signed() {
        Extension::Sign
    } else {
        Extension::Zero
    }
}

impl FunctionPass for LegalizeRelaxed {
    fn name(&self) -> &'static str {
        "legalize-relaxed"
    }

    fn preserves(&self) -> Preserves {
        Preserves::Cfg
    }

    fn run_on_function(&self, func: &mut Function, cx: &mut FunctionContext<'_>) -> Result<bool, Vec<ptx_ir::Diagnostic>> {
        let ids: Vec<InstId> = func.inst_ids().collect();
        let fresh = FreshRegs::new(func, "lr");
        let mut rw = Rewriter { func, fresh, edits: BodyEdits::new(), unsupported: 0 };
        for id in ids {
            let inst = &rw.func.insts[id];
            let span = inst.span;
            // (operand index, instruction type, is destination, extension, counter)
            let mut work: Vec<(usize, ScalarType, bool, Extension, &'static str)> = Vec::new();
            if let Some(ld) = inst.as_ld() {
                if inst.opcode == Opcode::Ld {
                    work.push((0, ld.ty, true, extension_of(ld.ty), "ld destinations extended"));
                }
            } else if let Some(st) = inst.as_st() {
                work.push((1, st.ty, false, Extension::Zero, "st sources chopped"));
            } else if let Some(cvt) = inst.as_cvt() {
                work.push((1, cvt.src_ty, false, Extension::Zero, "cvt sources chopped"));
                // cvt's relaxed destination: the result has the destination
                // format's size and is extended by its signedness.
                work.push((0, cvt.dst_ty, true, extension_of(cvt.dst_ty), "cvt destinations extended"));
            }
            for (operand, ty, is_dst, ext, counter) in work {
                let n = rw.legalize_operand(id, operand, ty, is_dst, ext);
                if n > 0 {
                    cx.count(counter, n);
                    let what = if is_dst { "extended destination" } else { "chopped source" };
                    cx.remark(span, format!("made {n} implicit {what} conversion(s) explicit"));
                }
            }
        }
        if rw.unsupported > 0 {
            cx.count("b128 operands left relaxed", rw.unsupported);
        }
        let Rewriter { func, fresh, edits, .. } = rw;
        let changed = edits.apply(func);
        fresh.declare(func);
        Ok(changed)
    }
}
