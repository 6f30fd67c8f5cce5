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

use ptx_analysis::prmt::{self as prmt_lanes, Lane, Lanes};
use ptx_analysis::Values;
use ptx_ir::{Inst, InstId, Opcode, Operand, ScalarType};
use ptx_pass::{Counter, Missed, Rewriter, Rule};

/// The pass.
pub struct FoldPrmt;

const CONSTANT: Counter = Counter::new("constant", "prmt folded to a constant");
const COPY: Counter = Counter::new("copy", "prmt folded to a copy");
const MERGED: Counter = Counter::new("merged", "prmt merged with the prmt feeding it");
const CANONICAL: Counter = Counter::new("canonical-selector", "prmt selector canonicalized");
const DEAD: Counter = Counter::new("dead-deleted", "mov/prmt left without uses deleted");

/// What to do with one `prmt`.
#[derive(Debug)]
pub enum Rewrite {
    /// `mov.b32 d, IMM`
    Constant(u32),
    /// `mov.b32 d, src`
    Copy(Operand),
    /// `prmt.b32 d, a, b, selector` (generic form)
    Prmt {
        /// The first source.
        a: Operand,
        /// The second source.
        b: Operand,
        /// The generic selector.
        selector: u32,
    },
}

/// A prmt feeding another: its lanes and its two sources.
type InnerPrmt = (Lanes, [Operand; 2]);

/// A `prmt` source that is itself an unguarded `prmt` with a known selector,
/// the only definition reaching `outer`, whose own sources hold the same
/// values at `outer`: returns its lanes and sources.
fn inner_prmt(values: &Values, outer: InstId, op: &Operand) -> Option<InnerPrmt> {
    let (inner, p) = values.producer_as(outer, op, Inst::as_prmt)?;
    let selector = values.known_value(inner, p.selector)?;
    // The selector is baked in as a constant; the data sources must still
    // hold at `outer` (and not be the inner prmt's own result, d == a).
    if !values.operands_unchanged(inner, outer, &[p.a, p.b]) {
        return None;
    }
    Some((prmt_lanes::lanes(p.mode, selector), [p.a.clone(), p.b.clone()]))
}

/// Composes `outer` (over sources `[a, b]`) with inner permutes feeding its
/// sources; succeeds when at most two distinct source operands remain.
fn compose(outer: &Lanes, sources: [(&Operand, Option<&InnerPrmt>); 2]) -> Option<Rewrite> {
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
    // A merge that puts every byte back where it was is a copy (ptxas keeps
    // an identity PRMT).
    if prmt_lanes::is_identity_of_a(&lanes) {
        return Some(Rewrite::Copy(a));
    }
    Some(Rewrite::Prmt { a, b, selector: prmt_lanes::generic_selector(&lanes) })
}

fn decide(values: &Values, id: InstId) -> Option<(Rewrite, Counter)> {
    let p = values.inst(id).as_prmt()?;
    let selector = values.known_value(id, p.selector)?;
    let lanes = prmt_lanes::lanes(p.mode, selector);
    let known = |op| values.known_value(id, op).map(|v| v as u32);
    if let (Some(a), Some(b)) = (known(p.a), known(p.b)) {
        return Some((Rewrite::Constant(prmt_lanes::evaluate(&lanes, a, b)), CONSTANT));
    }
    if prmt_lanes::is_identity_of_a(&lanes) {
        return Some((Rewrite::Copy(p.a.clone()), COPY));
    }
    if prmt_lanes::is_identity_of_b(&lanes) {
        return Some((Rewrite::Copy(p.b.clone()), COPY));
    }
    let inner_a = inner_prmt(values, id, p.a);
    let inner_b = inner_prmt(values, id, p.b);
    if inner_a.is_some() || inner_b.is_some() {
        if let Some(rewrite) = compose(&lanes, [(p.a, inner_a.as_ref()), (p.b, inner_b.as_ref())]) {
            return Some((rewrite, MERGED));
        }
    }
    let generic = prmt_lanes::generic_selector(&lanes);
    let already_canonical = p.mode.is_none() && matches!(p.selector, Operand::Int(i) if i.bits == u64::from(generic));
    if already_canonical {
        return None;
    }
    Some((Rewrite::Prmt { a: p.a.clone(), b: p.b.clone(), selector: generic }, CANONICAL))
}

fn build(dst: Operand, rewrite: Rewrite) -> Inst {
    match rewrite {
        Rewrite::Constant(v) => Inst::mov(ScalarType::B32, dst, Operand::imm(u64::from(v))).build(),
        Rewrite::Copy(src) => Inst::mov(ScalarType::B32, dst, src).build(),
        Rewrite::Prmt { a, b, selector } => Inst::prmt(dst, a, b, Operand::imm(u64::from(selector))).build(),
    }
}

impl Rule for FoldPrmt {
    type Plan = (Rewrite, Counter);

    fn name(&self) -> &'static str {
        "fold-prmt"
    }

    fn roots(&self) -> &[Opcode] {
        &[Opcode::Prmt]
    }

    fn decide(&self, values: &Values<'_>, id: InstId) -> Result<(Rewrite, Counter), Missed> {
        decide(values, id).ok_or_else(|| {
            let known = values.inst(id).as_prmt().and_then(|p| values.known_value(id, p.selector)).is_some();
            Missed::because(if known {
                "prmt left alone: its selector is known, but no copy, constant or shorter prmt computes it"
            } else {
                "prmt left alone: its selector is not a known constant"
            })
        })
    }

    fn build(&self, rw: &mut Rewriter<'_, '_, '_>, id: InstId, (rewrite, counter): (Rewrite, Counter)) {
        let (span, dst) = (rw.inst(id).span, rw.inst(id).operands[0].clone());
        rw.replace(id, build(dst, rewrite));
        rw.count(counter, 1);
        rw.remark(span, counter.description);
    }

    /// The movs and prmts feeding a rewritten prmt may be left unread.
    fn may_die(&self, feeder: &Inst) -> bool {
        matches!(feeder.opcode, Opcode::Mov | Opcode::Prmt)
    }

    fn dead_counter(&self) -> Option<Counter> {
        Some(DEAD)
    }
}
