//! `combine-cvt-pack`: combine saturating conversions whose results are
//! packed together into `cvt.pack.sat`.
//!
//! `cvt.pack.sat.s16.s32 d, a, b` saturates two `.s32` values to 16 bits and
//! packs them, `a` in the upper half (PTX ISA 9.7.9.22, whose pseudo-code
//! means: clamp to [MIN, MAX]); the 8-bit forms take a third operand `c`
//! whose low half fills the upper half of `d`, so two of them pack four
//! bytes. ptxas does not find this itself: on sm_80 two saturations and a
//! pack are three or more SASS instructions, `cvt.pack.sat` is one `I2IP`.
//!
//! Compilers saturate with `cvt.sat.T.s32` or with a clamp (`min.s32` then
//! `max.s32` with the type's bounds, in either order), and pack with
//! `mov.b32 d, {lo, hi}`, `prmt` chains, `shl`/`or`/`and`, `bfi`. Rather than
//! matching each idiom, the pass evaluates, byte by byte, what the value
//! written by a packing instruction is made of, following unique unguarded
//! definitions through moves, shifts, masks, `or`, `bfi`, `prmt` with known
//! selectors and integer widening/narrowing `cvt`s. If the four bytes are
//! exactly the saturated values in `cvt.pack` order, the instruction is
//! replaced by one (16-bit types, or 8-bit with zero upper half) or two
//! (four 8-bit values) `cvt.pack.sat`, reading the unsaturated sources.
//!
//! Only exact cases: the sources are `.s32` (a `.u32` or float source is a
//! different function), all saturations have the same type, nothing is
//! guarded, and every source still holds at the pack the value the
//! saturation read (otherwise the code is left alone). Saturations and pack
//! steps left without uses are deleted; if that does not happen enough to
//! keep the function from growing, the function is left as it was.
//! Gated by the module: PTX 6.5 and sm_72 or newer (or what the run's
//! target override says); when gated off the pass says so in its counters
//! and in a missed remark.

use ptx_analysis::bytes::{self, ByteSources, Lane};
use ptx_analysis::Values;
use ptx_ir::{Access, Function, Inst, InstId, Opcode, Operand, RegId, ScalarType};
use ptx_pass::{Counter, FunctionContext, Missed, Rewriter, Rule, Saving};
use ptx_verify::Target;
use std::borrow::Cow;

/// The pass.
pub struct CombineCvtPack;

const GATED_OFF: Counter = Counter::new("gated-off", "functions skipped: needs PTX 6.5 and sm_72");
const UNDONE: Counter = Counter::new("undone", "combinations undone: the saturations have other uses");
const COMBINED: Counter = Counter::new("combined", "packs combined into cvt.pack.sat");
const REMOVED: Counter = Counter::new("insts-removed", "instructions removed");

/// One saturation: `sat_ty(source)` computed by `at`, as a 32-bit value
/// (sign-extended for signed types, zero-extended for unsigned ones).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Saturation {
    ty: ScalarType,
    source: RegId,
    at: InstId,
}

/// The byte analysis' client: saturations are the sources of bytes (a
/// [`Lane::Byte`] names one by its index in `list`), and the instructions
/// the walk went through are remembered (candidates for deletion).
#[derive(Default)]
struct Saturations {
    list: Vec<Saturation>,
    visited: Vec<InstId>,
}

fn sat_bytes(ty: ScalarType) -> u8 {
    (ty.bits() / 8) as u8
}

impl Saturations {
    /// Byte `index` of the 32-bit extension of `sat`.
    fn byte(&mut self, sat: Saturation, index: u8) -> Lane<usize> {
        let width = sat_bytes(sat.ty);
        if index >= width && !sat.ty.is_signed() {
            return Lane::Const(0);
        }
        let id = match self.list.iter().position(|s| *s == sat) {
            Some(i) => i,
            None => {
                self.list.push(sat);
                self.list.len() - 1
            }
        };
        // Bytes above the type's width are all copies of its sign.
        if index < width {
            Lane::Byte(id, index)
        } else {
            Lane::Sign(id, width - 1)
        }
    }

    /// A saturation computed by `inst` (cvt.sat or a min/max clamp pair).
    fn saturation(&mut self, values: &Values, inst: InstId, depth: u32) -> Option<Saturation> {
        let func = values.function();
        let i = &func.insts[inst];
        if let Some(cvt) = i.as_cvt() {
            let ok = cvt.sat
                && cvt.src_ty == ScalarType::S32
                && matches!(cvt.dst_ty, ScalarType::S8 | ScalarType::U8 | ScalarType::S16 | ScalarType::U16)
                && cvt.rounding.is_none();
            let source = cvt.src.as_reg()?;
            if !ok || func.regs[source].ty.scalar.bits() != 32 || Some(source) == cvt.dst.as_reg() {
                return None;
            }
            return Some(Saturation { ty: cvt.dst_ty, source, at: inst });
        }
        // Clamp: outer(inner(x, bound1), bound2) with min/max.s32 in either order.
        let (outer_min, outer_bound, inner_reg) = clamp_step(values, inst)?;
        let inner = values.producer(inst, inner_reg)?;
        if depth == 0 {
            return None;
        }
        let (inner_min, inner_bound, source) = clamp_step(values, inner)?;
        if inner_min == outer_min || Some(source) == func.insts[inner].operands[0].as_reg() {
            return None;
        }
        let (lo, hi) = if outer_min { (inner_bound, outer_bound) } else { (outer_bound, inner_bound) };
        let ty = match (lo, hi) {
            (-128, 127) => ScalarType::S8,
            (0, 255) => ScalarType::U8,
            (-32768, 32767) => ScalarType::S16,
            (0, 65535) => ScalarType::U16,
            _ => return None,
        };
        if func.regs[source].ty.scalar.bits() != 32 {
            return None;
        }
        self.visited.push(inner);
        Some(Saturation { ty, source, at: inner })
    }
}

impl ByteSources for Saturations {
    type Source = usize;

    fn leaf(&mut self, values: &Values<'_>, def: InstId, width: usize, depth: u32) -> Option<Vec<Lane<usize>>> {
        let sat = self.saturation(values, def, depth)?;
        let func = values.function();
        // A 16-bit cvt.sat destination holds the low two bytes.
        let dst_bytes =
            func.insts[def].operands[0].as_reg().map_or(4, |r| (func.regs[r].ty.scalar.bits() / 8) as usize);
        Some(
            (0..width.min(dst_bytes).max(1))
                .map(|k| self.byte(sat, k as u8))
                .chain(std::iter::repeat(Lane::Unknown))
                .take(width)
                .collect(),
        )
    }

    fn opaque(&mut self, _: &Values<'_>, _: InstId, _: RegId) -> Option<usize> {
        None
    }

    fn visited(&mut self, def: InstId) {
        self.visited.push(def);
    }
}

/// `min.s32`/`max.s32 d, x, K` (or `K, x`): (is_min, K, x).
fn clamp_step(values: &Values, inst: InstId) -> Option<(bool, i64, RegId)> {
    let i = values.inst(inst);
    let is_min = match i.opcode {
        Opcode::Min => true,
        Opcode::Max => false,
        _ => return None,
    };
    if i.guard.is_some() || i.first_type() != Some(ScalarType::S32) || i.operands.len() != 3 || i.modifiers.len() != 1 {
        return None;
    }
    let bound = |op: &Operand| values.known_value(inst, op).map(|v| v as u32 as i32 as i64);
    match (&i.operands[1], &i.operands[2]) {
        (Operand::Reg(x), k) if bound(k).is_some() && values.known_reg(inst, *x).is_none() => {
            Some((is_min, bound(k)?, *x))
        }
        (k, Operand::Reg(x)) if bound(k).is_some() => Some((is_min, bound(k)?, *x)),
        _ => None,
    }
}

/// A replacement for one packing instruction.
pub struct Plan {
    /// The root's destination, which the last `cvt.pack` writes.
    dst: RegId,
    ty: ScalarType,
    /// (a, b, c) per `cvt.pack`, in order; `c` None for the 16-bit form, and
    /// `Some(None)`-like chaining is expressed by `chained`.
    packs: Vec<(RegId, RegId, Option<Operand>)>,
    /// The second pack reads the first pack's result as `c`.
    chained: bool,
    /// The saturations and pack steps the byte analysis went through.
    visited: Vec<InstId>,
}

/// Whether `func` has what a saturation (`Saturations::saturation`) is made
/// of: an integer `cvt.sat` from `.s32`, or both a `min.s32` and a
/// `max.s32` (a clamp).
fn may_saturate(func: &Function) -> bool {
    let (mut min, mut max) = (false, false);
    for id in func.inst_ids() {
        let inst = &func.insts[id];
        match inst.opcode {
            Opcode::Cvt if inst.as_cvt().is_some_and(|cvt| cvt.sat && cvt.src_ty == ScalarType::S32) => return true,
            Opcode::Min => min |= inst.first_type() == Some(ScalarType::S32),
            Opcode::Max => max |= inst.first_type() == Some(ScalarType::S32),
            _ => {}
        }
        if min && max {
            return true;
        }
    }
    false
}

fn plan_for(values: &Values, root: InstId, allow_8bit: bool) -> Option<Plan> {
    let func = values.function();
    let inst = &func.insts[root];
    if inst.guard.is_some() || inst.has_side_effects() {
        return None;
    }
    let dst = inst.operands.first()?.as_reg()?;
    if func.regs[dst].ty.scalar.bits() != 32 || func.regs[dst].ty.vector.is_some() {
        return None;
    }
    // The root must write its whole destination (a Def of operand 0).
    let mut whole = false;
    inst.for_each_reg_access(|i, r, a| whole |= i == 0 && r == dst && a == Access::Def);
    if !whole {
        return None;
    }
    let mut ev = Saturations::default();
    let bytes = bytes::result_lanes(values, &mut ev, root, 4);
    let parts: Vec<Option<(usize, u8)>> = bytes
        .iter()
        .map(|b| match *b {
            Lane::Byte(sat, index) => Some((sat, index)),
            _ => None,
        })
        .collect();
    let sats = ev.list.clone();
    let (ty, packs, chained) = match parts.as_slice() {
        // [b.0, b.1, a.0, a.1] of two 16-bit saturations.
        [Some((b, 0)), Some((b2, 1)), Some((a, 0)), Some((a2, 1))] if b == b2 && a == a2 => {
            let ty = sats[*a].ty;
            if sats[*b].ty != ty || !matches!(ty, ScalarType::S16 | ScalarType::U16) {
                return None;
            }
            (ty, vec![(*a, *b, None)], false)
        }
        // Four 8-bit saturations.
        [Some((s0, 0)), Some((s1, 0)), Some((s2, 0)), Some((s3, 0))] if allow_8bit => {
            let ty = sats[*s0].ty;
            if [s1, s2, s3].iter().any(|s| sats[**s].ty != ty) || !matches!(ty, ScalarType::S8 | ScalarType::U8) {
                return None;
            }
            (ty, vec![(*s3, *s2, Some(Operand::imm(0))), (*s1, *s0, None)], true)
        }
        // Two 8-bit saturations and a zero upper half.
        [Some((s0, 0)), Some((s1, 0)), None, None]
            if allow_8bit && bytes[2] == Lane::Const(0) && bytes[3] == Lane::Const(0) =>
        {
            let ty = sats[*s0].ty;
            if sats[*s1].ty != ty || !matches!(ty, ScalarType::S8 | ScalarType::U8) {
                return None;
            }
            (ty, vec![(*s1, *s0, Some(Operand::imm(0)))], false)
        }
        _ => return None,
    };
    // Every source must still hold, at the root, what its saturation read.
    let mut used: Vec<usize> = packs.iter().flat_map(|(a, b, _)| [*a, *b]).collect();
    used.sort_unstable();
    used.dedup();
    for s in &used {
        let Saturation { source, at, .. } = sats[*s];
        if !values.unchanged_between(source, at, root) {
            return None;
        }
    }
    let packs = packs.into_iter().map(|(a, b, c)| (sats[a].source, sats[b].source, c)).collect();
    Some(Plan { dst, ty, packs, chained, visited: ev.visited })
}

impl Rule for CombineCvtPack {
    type Plan = Plan;

    fn name(&self) -> &'static str {
        "combine-cvt-pack"
    }

    fn roots(&self) -> &[Opcode] {
        &[Opcode::Mov, Opcode::Prmt, Opcode::Or, Opcode::Bfi]
    }

    fn temp_tag(&self) -> &'static str {
        "pack"
    }

    /// Gated by the target (what this pass writes, the target must allow);
    /// and every plan packs at least one saturation: most functions have
    /// none, and then the def-use analysis need not be built at all.
    fn enabled(&self, func: &Function, cx: &mut FunctionContext<'_>) -> bool {
        let target = &cx.module.target;
        let built = [ScalarType::U8, ScalarType::S16].map(|ty| {
            let c = (ty == ScalarType::U8).then(|| Operand::imm(0));
            Inst::cvt_pack_sat(ty, Operand::imm(0), Operand::imm(0), Operand::imm(0), c)
        });
        if let Some(inst) = built.iter().find(|inst| !target.allows(func, inst)) {
            let needs = Target::need_of(func, inst).map_or_else(|| "more".to_string(), Target::describe_need);
            let has = target.describe();
            cx.count(GATED_OFF, 1);
            cx.missed(func.span, format!("not run: cvt.pack.sat needs {needs}, the module has {has}"));
            return false;
        }
        may_saturate(func)
    }

    fn decide(&self, values: &Values<'_>, id: InstId) -> Result<Plan, Missed> {
        plan_for(values, id, true).ok_or(Missed::silently())
    }

    /// A root that is itself a step of another plan's chain is redundant:
    /// only the outermost packs are rewritten.
    fn covered<'p>(&self, plan: &'p Plan) -> &'p [InstId] {
        &plan.visited
    }

    /// Saturations with other uses stay, and the packs come on top.
    fn saving(&self) -> Saving {
        Saving::AllPlans(0)
    }

    fn undone(&self, growth: isize) -> Cow<'static, str> {
        format!("pack of saturations left alone: the function would grow by {growth} instructions (the saturations have other uses)").into()
    }

    fn undone_counter(&self) -> Option<Counter> {
        Some(UNDONE)
    }

    fn shrink_counter(&self) -> Option<Counter> {
        Some(REMOVED)
    }

    fn build(&self, rw: &mut Rewriter<'_, '_, '_>, root: InstId, plan: Plan) {
        let span = rw.inst(root).span;
        let mut previous: Option<RegId> = None;
        let count = plan.packs.len();
        for (k, (a, b, c)) in plan.packs.into_iter().enumerate() {
            let last = k + 1 == count;
            let d = if last { plan.dst } else { rw.temp(ScalarType::B32) };
            let c = if plan.chained && last { previous.map(Operand::Reg) } else { c };
            rw.insert_before(root, Inst::cvt_pack_sat(plan.ty, d, a, b, c));
            previous = Some(d);
        }
        rw.erase(root);
        rw.count(COMBINED, 1);
        rw.remark(span, format!("{} saturations packed with one cvt.pack.sat.{}", count * 2, plan.ty));
    }
}
