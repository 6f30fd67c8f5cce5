//! `fold-prmt`: fold `prmt` whose selector is a known constant.
//!
//! `prmt.b32{.mode} d, a, b, c` picks four bytes out of `{b, a}` (PTX ISA
//! 9.7.9.7). Compilers build selectors as immediates or in registers set by
//! `mov`; once the selector is known, many permutes are simpler than they
//! look. In order, for each `prmt` whose selector is known:
//!
//! 1. both sources known constants: `mov.b32 d, IMM` (sign replication
//!    included);
//! 2. the permute copies all of `a` (or all of `b`) in order: `mov.b32 d, a`;
//! 3. a source is itself a `prmt` with a known selector whose sources still
//!    hold the same values here, and at most two distinct registers remain:
//!    one `prmt` straight from those registers;
//! 4. otherwise canonicalize: a mode becomes the equivalent generic selector,
//!    bits the instruction ignores are cleared, a register selector becomes
//!    an immediate.
//!
//! A selector is known if it is an immediate, or a register whose every
//! reaching definition is an unguarded `mov` of the same immediate. A guarded
//! definition, a load, a parameter, a loop-carried redefinition or anything
//! else makes it unknown. Rewrites never add instructions; afterwards the
//! `mov`s and inner `prmt`s left without uses are deleted (only those, and
//! only when nothing in the function reads what they write).

use crate::prmt_lanes::{self, Lane, Lanes};
use ptx_analysis::{DefSite, DefUse};
use ptx_ir::{
    Diagnostic, Function, Inst, InstId, IntImm, Modifier, Opcode, Operand, RegId, ScalarType,
};
use ptx_pass::{FunctionContext, FunctionPass, Preserves};
use cranelift_entity::EntityRef;
use rustc_hash::FxHashSet;

/// The pass.
pub struct FoldPrmt;

/// What to do with one `prmt`.
#[derive(Debug)]
enum Rewrite {
    /// `mov.b32 d, IMM`
    Constant(u32),
    /// `mov.b32 d, src`
    Copy(Operand),
    /// `prmt.b32 d, a, b, selector` (generic form)
    Prmt { a: Operand, b: Operand, selector: u32 },
}

/// A known 32-bit value of an operand at an instruction.
fn known_value(du: &DefUse, func: &Function, at: InstId, op: &Operand) -> Option<u32> {
    match op {
        Operand::Int(i) => Some(i.bits as u32),
        Operand::Reg(r) => known_register(du, func, at, *r).map(|v| v as u32),
        _ => None,
    }
}

/// The constant in `reg` just before `at`: every reaching definition is an
/// unguarded `mov` of the same immediate.
fn known_register(du: &DefUse, func: &Function, at: InstId, reg: RegId) -> Option<u64> {
    let defs = du.reaching_defs(at, reg);
    let unguarded = defs.iter().all(|d| match d {
        DefSite::Inst(i, _) => func.insts[*i].guard.is_none(),
        DefSite::Entry(_) => false,
    });
    if !unguarded {
        return None;
    }
    du.known_constant(at, reg)
}

/// The selector of a `prmt` at `at`, if known.
fn known_selector(du: &DefUse, func: &Function, at: InstId, op: &Operand) -> Option<u64> {
    match op {
        Operand::Int(i) => Some(i.bits),
        Operand::Reg(r) => known_register(du, func, at, *r),
        _ => None,
    }
}

/// A `prmt` source that is itself an unguarded `prmt` with a known selector,
/// reached by exactly that one definition, whose own sources hold the same
/// values at `outer`: returns its lanes and sources.
fn inner_prmt(du: &DefUse, func: &Function, outer: InstId, op: &Operand) -> Option<(Lanes, [Operand; 2])> {
    let Operand::Reg(reg) = op else { return None };
    let defs = du.reaching_defs(outer, *reg);
    let [DefSite::Inst(inner, _)] = defs.as_ref() else { return None };
    let inst = &func.insts[*inner];
    if inst.guard.is_some() || !du.kills(DefSite::Inst(*inner, *reg)) {
        return None;
    }
    let p = inst.as_prmt()?;
    let selector = known_selector(du, func, *inner, p.selector)?;
    let sources = [p.a.clone(), p.b.clone()];
    for source in &sources {
        match source {
            Operand::Reg(r) => {
                // The inner prmt must not overwrite its own source (d == a),
                // and nothing may redefine the source before `outer`.
                if *r == *reg || !du.value_unchanged_between(*r, *inner, outer) {
                    return None;
                }
            }
            Operand::Int(_) => {}
            _ => return None,
        }
    }
    Some((prmt_lanes::lanes(p.mode, selector), sources))
}

/// Composes `outer` (over sources `[a, b]`) with inner permutes feeding its
/// sources; succeeds when at most two distinct source operands remain.
fn compose(outer: &Lanes, sources: [(&Operand, Option<&(Lanes, [Operand; 2])>); 2]) -> Option<Rewrite> {
    // Each result lane as (source operand, byte within it, sign).
    let mut picks: Vec<(Operand, u8, bool)> = Vec::with_capacity(4);
    for lane in outer {
        let (operand, inner) = sources[usize::from(lane.byte / 4)];
        let byte = lane.byte % 4;
        match inner {
            None => picks.push((operand.clone(), byte, lane.sign)),
            Some((inner_lanes, inner_sources)) => {
                let l = inner_lanes[usize::from(byte)];
                // Replicating the sign of a byte that is itself a sign
                // replication or a copy is the sign of the original byte.
                let sign = lane.sign || l.sign;
                picks.push((inner_sources[usize::from(l.byte / 4)].clone(), l.byte % 4, sign));
            }
        }
    }
    let mut distinct: Vec<Operand> = Vec::with_capacity(2);
    for (op, _, _) in &picks {
        if !distinct.contains(op) {
            distinct.push(op.clone());
        }
    }
    if distinct.len() > 2 {
        return None;
    }
    let a = distinct[0].clone();
    let b = distinct.get(1).cloned().unwrap_or_else(|| a.clone());
    let lanes: Lanes = std::array::from_fn(|i| {
        let (op, byte, sign) = &picks[i];
        let base = if *op == a { 0 } else { 4 };
        Lane { byte: base + byte, sign: *sign }
    });
    Some(Rewrite::Prmt { a, b, selector: prmt_lanes::generic_selector(&lanes) })
}

fn decide(du: &DefUse, func: &Function, id: InstId) -> Option<(Rewrite, &'static str)> {
    let inst = &func.insts[id];
    let p = inst.as_prmt()?;
    let selector = known_selector(du, func, id, p.selector)?;
    let lanes = prmt_lanes::lanes(p.mode, selector);
    if let (Some(a), Some(b)) = (known_value(du, func, id, p.a), known_value(du, func, id, p.b)) {
        return Some((Rewrite::Constant(prmt_lanes::evaluate(&lanes, a, b)), "folded to a constant"));
    }
    if prmt_lanes::is_identity_of_a(&lanes) {
        return Some((Rewrite::Copy(p.a.clone()), "folded to a copy"));
    }
    if prmt_lanes::is_identity_of_b(&lanes) {
        return Some((Rewrite::Copy(p.b.clone()), "folded to a copy"));
    }
    let inner_a = inner_prmt(du, func, id, p.a);
    let inner_b = inner_prmt(du, func, id, p.b);
    if inner_a.is_some() || inner_b.is_some() {
        if let Some(rewrite) = compose(&lanes, [(p.a, inner_a.as_ref()), (p.b, inner_b.as_ref())]) {
            return Some((rewrite, "merged with the prmt feeding it"));
        }
    }
    let generic = prmt_lanes::generic_selector(&lanes);
    let already_canonical = p.mode.is_none() && matches!(p.selector, Operand::Int(i) if i.bits == u64::from(generic));
    if already_canonical {
        return None;
    }
    let rewrite = Rewrite::Prmt { a: p.a.clone(), b: p.b.clone(), selector: generic };
    Some((rewrite, "selector canonicalized"))
}

fn apply(func: &mut Function, id: InstId, rewrite: Rewrite) -> Vec<RegId> {
    let inst = &func.insts[id];
    let (guard, span, dst) = (inst.guard, inst.span, inst.operands[0].clone());
    let mut replaced_sources: Vec<RegId> = Vec::new();
    for op in &inst.operands[1..] {
        op.for_each_reg(&mut |r, _| replaced_sources.push(r));
    }
    let mov = |src: Operand| Inst::new(Opcode::Mov, vec![Modifier::Type(ScalarType::B32)], vec![dst.clone(), src]);
    let mut new = match rewrite {
        Rewrite::Constant(v) => mov(Operand::Int(IntImm::new(u64::from(v)))),
        Rewrite::Copy(src) => mov(src),
        Rewrite::Prmt { a, b, selector } => Inst::new(
            Opcode::Prmt,
            vec![Modifier::Type(ScalarType::B32)],
            vec![dst, a, b, Operand::Int(IntImm::new(u64::from(selector)))],
        ),
    };
    new.guard = guard;
    new.span = span;
    func.insts[id] = new;
    replaced_sources
}

/// Deletes the candidate instructions (pure `mov`/`prmt` the fold left
/// behind) whose written registers nothing in the function reads; repeats
/// while deleting one frees another.
fn delete_dead(func: &mut Function, mut candidates: FxHashSet<InstId>) -> u64 {
    let body: Vec<InstId> = func.inst_ids().collect();
    let mut readers = vec![0u32; func.regs.len()];
    let count = |func: &Function, id: InstId, readers: &mut Vec<u32>, delta: i32| {
        let inst = &func.insts[id];
        if let Some(g) = inst.guard {
            readers[g.reg.index()] = readers[g.reg.index()].wrapping_add_signed(delta);
        }
        inst.for_each_reg_access(|_, r, access| {
            if access != ptx_ir::Access::Def {
                readers[r.index()] = readers[r.index()].wrapping_add_signed(delta);
            }
        });
    };
    for &id in &body {
        count(func, id, &mut readers, 1);
    }
    // `.reg` return parameters are read by the caller.
    for ret in func.returns.iter().flatten() {
        if ret.space() == Some(ptx_ir::StateSpace::Reg) {
            if let Some(name) = func.names.find(&ret.name) {
                for (r, data) in func.regs.iter() {
                    if data.name == name && data.index.is_none() {
                        readers[r.index()] += 1;
                    }
                }
            }
        }
    }
    let mut removed: FxHashSet<InstId> = FxHashSet::default();
    loop {
        let mut progress = false;
        let mut ordered: Vec<InstId> = candidates.iter().copied().collect();
        ordered.sort_unstable();
        for id in ordered {
            let inst = &func.insts[id];
            if !matches!(inst.opcode, Opcode::Mov | Opcode::Prmt) || inst.has_side_effects() {
                candidates.remove(&id);
                continue;
            }
            let mut dead = true;
            inst.for_each_reg_access(|_, r, access| {
                if access == ptx_ir::Access::Def && readers[r.index()] != 0 {
                    dead = false;
                }
            });
            if dead {
                count(func, id, &mut readers, -1);
                removed.insert(id);
                candidates.remove(&id);
                progress = true;
            }
        }
        if !progress {
            break;
        }
    }
    let n = removed.len() as u64;
    if n > 0 {
        let mut edits = ptx_ir::BodyEdits::new();
        for id in removed {
            edits.remove(id);
        }
        edits.apply(func);
    }
    n
}

impl FunctionPass for FoldPrmt {
    fn name(&self) -> &'static str {
        "fold-prmt"
    }

    fn preserves(&self) -> Preserves {
        Preserves::Cfg
    }

    fn run_on_function(&self, func: &mut Function, cx: &mut FunctionContext<'_>) -> Result<bool, Vec<Diagnostic>> {
        let prmts: Vec<InstId> = func.inst_ids().filter(|&id| func.insts[id].opcode == Opcode::Prmt).collect();
        if prmts.is_empty() {
            return Ok(false);
        }
        // Decide everything on the unchanged function, then rewrite: every
        // decision reads the values the original code computes, and each
        // rewrite keeps the value its prmt computed, so decisions stay valid.
        let du = cx.analyses.def_use(func);
        let decisions: Vec<(InstId, Rewrite, &'static str)> =
            prmts.iter().filter_map(|&id| decide(du, func, id).map(|(r, what)| (id, r, what))).collect();
        // The definitions feeding rewritten prmts may become dead.
        let mut candidates: FxHashSet<InstId> = FxHashSet::default();
        for (id, _, _) in &decisions {
            let inst = &func.insts[*id];
            inst.for_each_reg_access(|_, r, access| {
                if access != ptx_ir::Access::Def {
                    for d in du.reaching_defs(*id, r).iter() {
                        if let DefSite::Inst(i, _) = d {
                            candidates.insert(*i);
                        }
                    }
                }
            });
        }
        if decisions.is_empty() {
            return Ok(false);
        }
        for (id, rewrite, what) in decisions {
            let span = func.insts[id].span;
            apply(func, id, rewrite);
            cx.count(what, 1);
            cx.remark(span, format!("prmt {what}"));
        }
        let deleted = delete_dead(func, candidates);
        if deleted > 0 {
            cx.count("dead mov/prmt deleted", deleted);
        }
        func.mark_changed();
        Ok(true)
    }
}
