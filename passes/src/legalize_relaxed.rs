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

use ptx_ir::{Inst, InstId, Opcode, Operand, RegId, ScalarType, TypeKind};
use ptx_pass::{Counter, Missed, Rewriter, Rule, Values};

/// The pass.
pub struct LegalizeRelaxed;

const LD_EXTENDED: Counter = Counter::new("ld-dst-extended", "ld destinations extended");
const ST_CHOPPED: Counter = Counter::new("st-src-chopped", "st sources chopped");
const CVT_CHOPPED: Counter = Counter::new("cvt-src-chopped", "cvt sources chopped");
const CVT_EXTENDED: Counter = Counter::new("cvt-dst-extended", "cvt destinations extended");
const B128_LEFT: Counter = Counter::new("b128-left-relaxed", "b128 operands left relaxed");

/// What to do with one register operand.
enum Verdict {
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
fn verdict(reg: ScalarType, ty: ScalarType) -> Verdict {
    if reg.bits() <= ty.bits() || ty.bits() < 8 || ty == ScalarType::Pred || reg == ScalarType::Pred {
        return Verdict::Keep;
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
        Verdict::Keep
    } else if reg.bits() > 64 {
        Verdict::Unsupported
    } else {
        Verdict::Rewrite
    }
}

fn int_type(bits: u32, signed: bool) -> ScalarType {
    let t = if signed { ScalarType::signed_of_bits(bits) } else { ScalarType::unsigned_of_bits(bits) };
    t.expect("register sizes handled here are 8, 16, 32 or 64 bits")
}

fn bit_type(bits: u32) -> ScalarType {
    ScalarType::unsigned_of_bits(bits).and_then(ScalarType::bit_type).expect("8..64-bit register")
}

/// Rewrites a source register wider than `ty`: returns the exact-size
/// register holding its low bits, computed just before `at` (under its
/// guard: a conversion that ran when `at` did not would be harmless here,
/// but the destination side needs it, and both sides read alike).
fn chop(rw: &mut Rewriter, at: InstId, src: RegId, ty: ScalarType) -> RegId {
    let reg_ty = rw.func().regs[src].ty.scalar;
    let (wide, narrow) = (reg_ty.bits(), ty.bits());
    let int_src = if reg_ty.is_float() {
        let bits = rw.temp(bit_type(wide));
        rw.insert_before(at, Inst::mov(bit_type(wide), bits, src));
        bits
    } else {
        src
    };
    let out = rw.temp(bit_type(narrow));
    rw.insert_before(at, Inst::cvt(int_type(narrow, false), int_type(wide, false), out, int_src));
    out
}

/// Rewrites a destination register wider than `ty`: returns the exact-size
/// register the instruction writes instead; the extension into `dst`
/// (sign-extended for a signed `ty`, zero-extended otherwise) is inserted
/// just after `at`, under its guard (an extension that ran when the load did
/// not would clobber the register).
fn extend(rw: &mut Rewriter, at: InstId, dst: RegId, ty: ScalarType) -> RegId {
    let reg_ty = rw.func().regs[dst].ty.scalar;
    let (wide, narrow) = (reg_ty.bits(), ty.bits());
    let exact = rw.temp(bit_type(narrow));
    let signed = ty.is_signed();
    if reg_ty.is_float() {
        let bits = rw.temp(bit_type(wide));
        // Inserted in order after `at`: cvt, then mov.
        rw.insert_after(at, Inst::cvt(int_type(wide, signed), int_type(narrow, signed), bits, exact));
        rw.insert_after(at, Inst::mov(bit_type(wide), dst, bits));
    } else {
        rw.insert_after(at, Inst::cvt(int_type(wide, signed), int_type(narrow, signed), dst, exact));
    }
    exact
}

/// The registers of a data operand (a register or a `{..}` vector of them)
/// with their element index; sinks and immediates are skipped.
fn elements(op: &Operand) -> Vec<(usize, RegId)> {
    match op {
        Operand::Reg(r) => vec![(0, *r)],
        Operand::Vector(elems) => elems.iter().enumerate().filter_map(|(i, e)| e.as_reg().map(|r| (i, r))).collect(),
        _ => Vec::new(),
    }
}

fn replace_element(op: &mut Operand, index: usize, reg: RegId) {
    match op {
        Operand::Reg(r) => *r = reg,
        Operand::Vector(elems) => elems[index] = Operand::Reg(reg),
        _ => {}
    }
}

/// Rewrites operand `operand` of `id` (a source if `is_dst` is false);
/// returns the number of registers rewritten and of `.b128` ones left.
fn legalize_operand(rw: &mut Rewriter, id: InstId, operand: usize, ty: ScalarType, is_dst: bool) -> (u64, u64) {
    let (mut rewritten, mut unsupported) = (0, 0);
    for (index, reg) in elements(&rw.inst(id).operands[operand]) {
        let reg_ty = rw.func().regs[reg].ty;
        if reg_ty.vector.is_some() {
            continue;
        }
        match verdict(reg_ty.scalar, ty) {
            Verdict::Keep => {}
            Verdict::Unsupported => unsupported += 1,
            Verdict::Rewrite => {
                let exact = if is_dst { extend(rw, id, reg, ty) } else { chop(rw, id, reg, ty) };
                rw.modify(id, |inst| replace_element(&mut inst.operands[operand], index, exact));
                rewritten += 1;
            }
        }
    }
    (rewritten, unsupported)
}

/// One operand to look at: (its index, the instruction type it must fit,
/// whether it is the destination, the counter).
pub struct Work(usize, ScalarType, bool, Counter);

impl Rule for LegalizeRelaxed {
    type Plan = Vec<Work>;

    fn name(&self) -> &'static str {
        "legalize-relaxed"
    }

    fn roots(&self) -> &[Opcode] {
        &[Opcode::Ld, Opcode::St, Opcode::Cvt]
    }

    fn temp_tag(&self) -> &'static str {
        "lr"
    }

    fn decide(&self, values: &Values<'_>, id: InstId) -> Result<Vec<Work>, Missed> {
        let inst = values.inst(id);
        let mut work = Vec::new();
        if let Some(ld) = inst.as_ld() {
            if inst.opcode == Opcode::Ld {
                work.push(Work(0, ld.ty, true, LD_EXTENDED));
            }
        } else if let Some(st) = inst.as_st() {
            work.push(Work(1, st.ty, false, ST_CHOPPED));
        } else if let Some(cvt) = inst.as_cvt() {
            work.push(Work(1, cvt.src_ty, false, CVT_CHOPPED));
            // cvt's relaxed destination: the result has the destination
            // format's size and is extended by its signedness.
            work.push(Work(0, cvt.dst_ty, true, CVT_EXTENDED));
        }
        if work.is_empty() {
            return Err(Missed::silently());
        }
        Ok(work)
    }

    fn build(&self, rw: &mut Rewriter<'_, '_, '_>, id: InstId, work: Vec<Work>) {
        let span = rw.inst(id).span;
        let mut unsupported = 0;
        for Work(operand, ty, is_dst, counter) in work {
            let (n, left) = legalize_operand(rw, id, operand, ty, is_dst);
            unsupported += left;
            if n > 0 {
                rw.count(counter, n);
                let what = if is_dst { "extended destination" } else { "chopped source" };
                rw.remark(span, format!("made {n} implicit {what} conversion(s) explicit"));
            }
        }
        if unsupported > 0 {
            rw.count(B128_LEFT, unsupported);
        }
    }
}
