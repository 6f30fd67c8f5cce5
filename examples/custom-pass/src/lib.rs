//! `fold-int-identities`: integer algebraic identities with a known operand,
//! written outside ptx-opt against the `ptx-opt` facade alone.
//!
//! A JIT that specializes kernels (a size or stride baked in as `0` or `1`, a
//! mask that turns out to be all ones) leaves arithmetic that computes
//! nothing. With `x` any operand and the constant an immediate or a register
//! whose value [`Values::known_value`] proves at the instruction, each of these
//! becomes a `mov` of the instruction's type (counter in brackets):
//!
//! | instruction | becomes | counter |
//! |---|---|---|
//! | `add/sub/or/xor d, x, 0`, `add/or/xor d, 0, x` | `mov d, x` | `zero-operand` |
//! | `shl/shr d, x, 0` | `mov d, x` | `zero-shift` |
//! | `mul.lo d, x, 1`, `mul.lo d, 1, x` | `mov d, x` | `mul-one` |
//! | `and d, x, ALL_ONES`, `and d, ALL_ONES, x` | `mov d, x` | `and-all-ones` |
//! | `and d, x, 0`, `mul.lo d, x, 0` (either order) | `mov d, 0` | `annihilated` |
//!
//! Afterwards the `mov`s that fed a rewritten instruction (constants, mostly;
//! also the source of an `and d, x, 0`) and that nothing reads any more are
//! deleted (`dead-deleted`).
//!
//! # Why each rewrite is exact
//!
//! - **Wrap-around integer arithmetic.** On an n-bit integer type (`.bN`,
//!   `.uN`, `.sN`), `add`, `sub` and `mul.lo` compute modulo 2^n and never
//!   trap; signedness only matters to `.hi`, `.wide`, `.sat` and
//!   comparisons, none of which is rewritten. So `x + 0 = 0 + x = x - 0 = x`,
//!   `x * 1 = 1 * x = x` and `x * 0 = 0`, bit for bit, signed or not.
//! - **Bitwise operations** act on each bit alone: `x | 0 = x ^ 0 = x`,
//!   `x & ~0 = x`, `x & 0 = 0`.
//! - **Shifts by 0** return the source unchanged (`shr.s` has no bit to fill).
//!   The amount is a `.u32` whatever the instruction type, so it is compared
//!   in 32 bits.
//! - **Widths.** An instruction reads the low n bits of an immediate (ptxas
//!   truncates: `add.u32 x, 0x100000000` compiles to a copy, and so does a
//!   shift by `0x100000000`), so constants are compared after masking to the
//!   instruction type's width: `-1` is all ones for `and.b32`, `0xffff` is all
//!   ones for `and.b16` but not for `and.b32`. The destination and every
//!   register operand must be a scalar integer register of exactly that width
//!   (the shift amount: 32 bits), so the `mov` writes exactly the bits the
//!   instruction wrote; no implicit extension or truncation differs.
//! - **Operand order.** `sub` and the shifts are not commutative
//!   (`0 - x = -x`, `0 << x = 0`): only their second operand is looked at.
//! - **Only the plain forms.** The modifiers must be the type alone (and
//!   `.lo` for `mul`): `.sat` clamps, `.cc` writes the carry flag a later
//!   `addc` reads, `mul.hi` is the high half (`hi(x * 1)` is 0 or the sign,
//!   not `x`), `mul.wide` doubles the width, and anything unknown might mean
//!   anything. Floats are left alone (`-0.0 + 0.0 = +0.0`, `NaN * 0` is NaN,
//!   `0 * inf` is NaN), and so is `.pred`.
//!
//! # Why guards and known values are sound
//!
//! - The replacement takes the instruction's guard ([`Rewriter::replace`]):
//!   `@%p mov d, x` writes `d` exactly when `@%p add d, x, 0` did and leaves
//!   it alone otherwise.
//! - A register counts as a constant only if every definition reaching the
//!   instruction is an unguarded `mov` of the same immediate: a guarded `mov`
//!   may not run (the older value reaches), and a load, a parameter, the
//!   entry value, a redefinition in between or different values on different
//!   paths all make it unknown.
//! - The `mov` reads `x` where the instruction read it, so `x` holds the same
//!   value; every decision is taken on the unchanged function and each
//!   rewrite computes the value its instruction computed, so the decisions
//!   stay valid as the others are made.
//! - Dead-code removal is offered only the `mov`s whose writes reached a
//!   rewritten instruction, and [`Rewriter::erase_dead`] deletes one only
//!   when nothing in the function, as rewritten, reads what it writes.

use ptx_opt::prelude::*;

/// The pass, a rule (`ptx_opt::prelude::Rule`, which makes it a function
/// pass): `Options::with_function_pass(FoldIntIdentities)`.
#[derive(Clone, Copy, Debug, Default)]
pub struct FoldIntIdentities;

/// The pass's name (`print_after`, its record in `PassRun`).
pub const NAME: &str = "fold-int-identities";

/// `add/sub/or/xor` with a 0 operand made a copy.
pub const ZERO_OPERAND: Counter = Counter::new("zero-operand", "add/sub/or/xor of 0 made a copy");
/// `shl/shr` by 0 made a copy.
pub const ZERO_SHIFT: Counter = Counter::new("zero-shift", "shift by 0 made a copy");
/// `mul.lo` by 1 made a copy.
pub const MUL_ONE: Counter = Counter::new("mul-one", "mul.lo by 1 made a copy");
/// `and` with all ones made a copy.
pub const AND_ALL_ONES: Counter = Counter::new("and-all-ones", "and with all ones made a copy");
/// `and` with 0 or `mul.lo` by 0 made the constant 0.
pub const ANNIHILATED: Counter = Counter::new("annihilated", "and with 0 or mul.lo by 0 made a constant 0");
/// `mov`s (of constants, mostly) left without readers, deleted.
pub const DEAD: Counter = Counter::new("dead-deleted", "mov left without readers deleted");

/// What one instruction becomes: `mov.ty dst, src` (under its guard).
#[derive(Debug)]
pub struct Fold {
    ty: ScalarType,
    dst: Operand,
    src: Operand,
    counter: Counter,
}

/// The low `bits` bits.
fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// The instruction type if `inst` is one of the plain integer forms this
/// pass rewrites: its modifiers are exactly one integer or bit type of 16, 32
/// or 64 bits (preceded by `.lo` for `mul`). Any other modifier (`.sat`,
/// `.cc`, `.hi`, `.wide`, rounding, an unknown word) rules it out.
fn plain_int_type(inst: &Inst) -> Option<ScalarType> {
    let ty = match (inst.opcode, inst.modifiers.as_slice()) {
        (Opcode::Mul, [Modifier::Word(lo), Modifier::Type(t)]) if *lo == Word::LO => *t,
        (
            Opcode::Add | Opcode::Sub | Opcode::And | Opcode::Or | Opcode::Xor | Opcode::Shl | Opcode::Shr,
            [Modifier::Type(t)],
        ) => *t,
        _ => return None,
    };
    (ty.is_integer_like() && matches!(ty.bits(), 16 | 32 | 64)).then_some(ty)
}

/// True if `op` is an immediate or a scalar integer register of `bits` bits.
fn fits(func: &Function, op: &Operand, bits: u32) -> bool {
    match op {
        Operand::Int(_) => true,
        Operand::Reg(r) => {
            let ty = func.regs[*r].ty;
            ty.vector.is_none() && ty.scalar.is_integer_like() && ty.scalar.bits() == bits
        }
        _ => false,
    }
}

/// The rewrite of instruction `id`, if one applies.
fn decide(values: &Values, id: InstId) -> Option<Fold> {
    let func = values.function();
    let inst = values.inst(id);
    let ty = plain_int_type(inst)?;
    let [d, a, b] = inst.operands.as_slice() else { return None };
    let bits = ty.bits();
    let is_shift = matches!(inst.opcode, Opcode::Shl | Opcode::Shr);
    let b_bits = if is_shift { 32 } else { bits };
    if !(matches!(d, Operand::Reg(_)) && fits(func, d, bits) && fits(func, a, bits) && fits(func, b, b_bits)) {
        return None;
    }
    let ones = mask(bits);
    let ka = values.known_value(id, a).map(|v| v & ones);
    let kb = values.known_value(id, b).map(|v| v & mask(b_bits));
    let (src, counter) = match inst.opcode {
        Opcode::Add | Opcode::Or | Opcode::Xor if kb == Some(0) => (a, ZERO_OPERAND),
        Opcode::Add | Opcode::Or | Opcode::Xor if ka == Some(0) => (b, ZERO_OPERAND),
        Opcode::Sub if kb == Some(0) => (a, ZERO_OPERAND),
        Opcode::Shl | Opcode::Shr if kb == Some(0) => (a, ZERO_SHIFT),
        Opcode::Mul | Opcode::And if ka == Some(0) || kb == Some(0) => (&Operand::imm(0), ANNIHILATED),
        Opcode::Mul if kb == Some(1) => (a, MUL_ONE),
        Opcode::Mul if ka == Some(1) => (b, MUL_ONE),
        Opcode::And if kb == Some(ones) => (a, AND_ALL_ONES),
        Opcode::And if ka == Some(ones) => (b, AND_ALL_ONES),
        _ => return None,
    };
    Some(Fold { ty, dst: d.clone(), src: src.clone(), counter })
}

impl Rule for FoldIntIdentities {
    type Plan = Fold;

    fn name(&self) -> &'static str {
        NAME
    }

    fn roots(&self) -> &[Opcode] {
        &[Opcode::Add, Opcode::Sub, Opcode::Mul, Opcode::And, Opcode::Or, Opcode::Xor, Opcode::Shl, Opcode::Shr]
    }

    fn may_root(&self, inst: &Inst) -> bool {
        plain_int_type(inst).is_some()
    }

    fn decide(&self, values: &Values<'_>, id: InstId) -> Result<Fold, Missed> {
        decide(values, id).ok_or(Missed::silently())
    }

    fn build(&self, rw: &mut Rewriter<'_, '_, '_>, id: InstId, Fold { ty, dst, src, counter }: Fold) {
        let (span, opcode) = (rw.inst(id).span, rw.inst(id).opcode);
        rw.replace(id, Inst::mov(ty, dst, src));
        rw.count(counter, 1);
        rw.remark(span, format!("{opcode}.{ty}: {}", counter.description));
    }

    /// The `mov`s feeding a rewritten instruction may be left unread.
    fn may_die(&self, feeder: &Inst) -> bool {
        feeder.opcode == Opcode::Mov
    }

    fn dead_counter(&self) -> Option<Counter> {
        Some(DEAD)
    }
}
