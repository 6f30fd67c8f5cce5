//! `fold-dot-shuffles`: `dp4a`/`dp2a` read their source words directly when
//! the bytes fed to them are only a rearrangement of those words.
//!
//! `dp4a.atype.btype d, a, b, c` adds to `c` the four products of byte `i`
//! of `a` and byte `i` of `b` (each extended by its operand's type; PTX ISA
//! 9.7.1.23). A sum does not depend on the order of its terms, so if `a` is
//! the bytes of a register `x` in some order and `b` the bytes of `y` in the
//! same order, `dp4a d, x, y, c` computes the same value: every product is
//! the same pair of bytes, extended the same way (the types stay), and the
//! additions wrap modulo 2^32 in any order. NVRTC rebuilds both operands of
//! a plain int8 dot product as the same byte rotation (shr, cvt.u16,
//! shl.b16, or.b16, mov {lo,hi}); ptxas keeps that code (31 SASS
//! instructions where 17 do on sm_80).
//!
//! A chain of `dp4a`, each accumulating into the next (`c` of one is `d` of
//! the one before, read by nothing else), is one sum of byte products too:
//! when the products of the whole chain are exactly those of words
//! `(x1, y1), (x2, y2), ...` byte for byte, each `dp4a` of the chain is given
//! one pair. Only the final sum is observable, so the partial sums may
//! change. Each register must hold, at the `dp4a` that reads it, the value
//! the shuffle read (the byte analysis proves it, [`RegisterBytes`]).
//!
//! `dp2a.mode d, a, b, c` is not symmetric that way: it adds
//! `a.h0 * b[s] + a.h1 * b[s + 1]` with `s` = 0 (`.lo`) or 2 (`.hi`), so a
//! rearrangement keeps its meaning exactly when the half-word paired with
//! each byte is the same. The rule: if `a`'s half-words are the halves of
//! `x` and the bytes `b[s]`, `b[s + 1]` are bytes of `y` such that `x.h0`
//! meets `y[t]` and `x.h1` meets `y[t + 1]` with `t` = 0 or 2, then
//! `dp2a.(t = 0 ? lo : hi) d, x, y, c`. (Swapped halves of `a` with swapped
//! bytes of `b` qualify; so does `.lo` reading `y >> 16`, which is `.hi` of
//! `y`.) Anything else, byte and half-word pairs that differ, is left alone.
//!
//! Left alone as well: operands permuted differently, only one operand
//! permuted, a constant or unknown byte, a guarded link inside a chain (the
//! byte analysis and the chain follow unique unguarded definitions only),
//! an intermediate sum read elsewhere, and registers redefined between the
//! shuffle and the `dp4a`. The shuffle code left without readers is deleted.

use ptx_analysis::bytes::{self, Lane, RegisterBytes};
use ptx_analysis::Values;
use ptx_ir::{Inst, InstId, Modifier, Opcode, Operand, RegId, Word};
use ptx_pass::{Counter, Missed, Rewriter, Rule};

/// The pass.
pub struct FoldDotShuffles;

const DP4A: Counter = Counter::new("dp4a-unshuffled", "dp4a reading whole source words");
const DP2A: Counter = Counter::new("dp2a-unshuffled", "dp2a reading whole source words");
const CHAINS: Counter = Counter::new("chains-regrouped", "dp4a chains of two or more regrouped");
const DEAD: Counter = Counter::new("dead-deleted", "shuffle instructions left without readers deleted");

/// The four bytes of `op` at `at`, in registers valid there.
fn lanes(values: &Values, at: InstId, op: &Operand, visited: &mut Vec<InstId>) -> Vec<Lane<RegId>> {
    let mut sources = RegisterBytes::new(at);
    let lanes = bytes::operand_lanes(values, &mut sources, at, op, 4);
    visited.append(&mut sources.visited);
    lanes
}

/// What to change in one instruction.
struct Change {
    at: InstId,
    a: RegId,
    b: RegId,
    /// For dp2a: the new mode (true = `.hi`).
    hi: Option<bool>,
}

/// The `dp4a` before `link` in a chain: the unique unguarded definition of
/// `link`'s accumulator, a `dp4a` of the same types whose result nothing
/// else reads.
fn previous_link(values: &Values, link: InstId) -> Option<InstId> {
    let inst = values.inst(link);
    let dot = inst.as_dot()?;
    let (prev, prev_dot) = values.producer_as(link, dot.c, Inst::as_dot)?;
    let acc = prev_dot.dst.as_reg()?;
    let same = values.inst(prev).opcode == Opcode::Dp4a && (prev_dot.a_ty, prev_dot.b_ty) == (dot.a_ty, dot.b_ty);
    (same && values.readers(prev, acc) == [link]).then_some(prev)
}

/// The regrouping of a chain of `dp4a` (first to last), if its byte
/// products are exactly those of whole words.
fn plan_chain(values: &Values, links: &[InstId], visited: &mut Vec<InstId>) -> Option<Vec<Change>> {
    let func = values.function();
    // Per link, the (a, b) byte pairs; per register, the links it was read at.
    let mut groups: Vec<((RegId, RegId), u8)> = Vec::new();
    let mut seen_at: Vec<(RegId, usize)> = Vec::new();
    for (k, &link) in links.iter().enumerate() {
        let dot = values.inst(link).as_dot()?;
        let a = lanes(values, link, dot.a, visited);
        let b = lanes(values, link, dot.b, visited);
        for (la, lb) in a.into_iter().zip(b) {
            let (Lane::Byte(x, i), Lane::Byte(y, j)) = (la, lb) else { return None };
            if i != j || !func.regs[x].ty.is_integer_word() || !func.regs[y].ty.is_integer_word() {
                return None;
            }
            seen_at.extend([(x, k), (y, k)]);
            match groups.iter_mut().find(|(pair, _)| *pair == (x, y)) {
                Some((_, mask)) if *mask & (1 << i) != 0 => return None,
                Some((_, mask)) => *mask |= 1 << i,
                None => groups.push(((x, y), 1 << i)),
            }
        }
    }
    if groups.len() != links.len() || groups.iter().any(|(_, mask)| *mask != 0xf) {
        return None;
    }
    // A register may be read at link k if it was read there, or holds the
    // same value there as at a link where it was read.
    let valid = |reg: RegId, k: usize| {
        seen_at.iter().any(|&(r, j)| {
            r == reg
                && (j == k
                    || (j < k && values.unchanged_between(reg, links[j], links[k]))
                    || (j > k && values.unchanged_between(reg, links[k], links[j])))
        })
    };
    let mut free: Vec<(RegId, RegId)> = groups.into_iter().map(|(pair, _)| pair).collect();
    let mut changes = Vec::with_capacity(links.len());
    for (k, &link) in links.iter().enumerate() {
        let pick = free.iter().position(|&(x, y)| valid(x, k) && valid(y, k))?;
        let (x, y) = free.remove(pick);
        changes.push(Change { at: link, a: x, b: y, hi: None });
    }
    Some(changes)
}

/// The `dp2a` at `at` reading whole words, if its byte and half-word pairs
/// are those of two registers.
fn plan_dp2a(values: &Values, at: InstId, visited: &mut Vec<InstId>) -> Option<Change> {
    let func = values.function();
    let dot = values.inst(at).as_dot()?;
    let s = if dot.hi? { 2 } else { 0 };
    let a = lanes(values, at, dot.a, visited);
    let b = lanes(values, at, dot.b, visited);
    // Term m multiplies half-word m of `a` by byte s + m of `b`: which half
    // of which register meets which byte of which register.
    let mut x = None;
    let mut y = None;
    let mut byte_of_half: [Option<u8>; 2] = [None; 2];
    for m in 0..2 {
        let (Lane::Byte(xr, lo), Lane::Byte(xr2, hi)) = (a[2 * m], a[2 * m + 1]) else { return None };
        let Lane::Byte(yr, t) = b[s + m] else { return None };
        if xr != xr2 || lo % 2 != 0 || hi != lo + 1 || *x.get_or_insert(xr) != xr || *y.get_or_insert(yr) != yr {
            return None;
        }
        // Each half of x must meet exactly one byte.
        if byte_of_half[usize::from(lo / 2)].replace(t).is_some() {
            return None;
        }
    }
    let [Some(t), Some(t1)] = byte_of_half else { return None };
    let (x, y) = (x?, y?);
    if !(t == 0 || t == 2) || t1 != t + 1 || !func.regs[x].ty.is_integer_word() || !func.regs[y].ty.is_integer_word() {
        return None;
    }
    Some(Change { at, a: x, b: y, hi: Some(t == 2) })
}

/// The regrouping of a chain (or one `dp2a`), found from its last link.
pub struct Plan {
    changes: Vec<Change>,
    chain: bool,
    /// The shuffle instructions the byte analysis went through.
    visited: Vec<InstId>,
}

/// True if the `dp4a` at `id` is a link before another: the whole chain is
/// planned from its last link.
fn feeds_next_link(values: &Values, id: InstId) -> bool {
    let Some(acc) = values.inst(id).operands.first().and_then(Operand::as_reg) else { return false };
    match values.readers(id, acc).as_slice() {
        [next] => values.inst(*next).opcode == Opcode::Dp4a && previous_link(values, *next) == Some(id),
        _ => false,
    }
}

/// Whether `change` leaves its instruction as it is.
fn changes_nothing(inst: &Inst, change: &Change) -> bool {
    let old_hi = inst.as_dot().and_then(|d| d.hi);
    inst.operands[1] == Operand::Reg(change.a) && inst.operands[2] == Operand::Reg(change.b) && old_hi == change.hi
}

impl Rule for FoldDotShuffles {
    type Plan = Plan;

    fn name(&self) -> &'static str {
        "fold-dot-shuffles"
    }

    fn roots(&self) -> &[Opcode] {
        &[Opcode::Dp4a, Opcode::Dp2a]
    }

    fn decide(&self, values: &Values<'_>, id: InstId) -> Result<Plan, Missed> {
        let mut visited = Vec::new();
        let (changes, chain) = if values.inst(id).opcode == Opcode::Dp2a {
            (vec![plan_dp2a(values, id, &mut visited).ok_or(Missed::silently())?], false)
        } else {
            if feeds_next_link(values, id) {
                return Err(Missed::silently());
            }
            let mut links = vec![id];
            while let Some(p) = previous_link(values, *links.last().expect("a link")) {
                links.push(p);
            }
            links.reverse();
            (plan_chain(values, &links, &mut visited).ok_or(Missed::silently())?, links.len() > 1)
        };
        if changes.iter().all(|c| changes_nothing(values.inst(c.at), c)) {
            return Err(Missed::silently());
        }
        Ok(Plan { changes, chain, visited })
    }

    fn covered<'p>(&self, plan: &'p Plan) -> &'p [InstId] {
        &plan.visited
    }

    fn dead_counter(&self) -> Option<Counter> {
        Some(DEAD)
    }

    fn build(&self, rw: &mut Rewriter<'_, '_, '_>, _root: InstId, plan: Plan) {
        for change in plan.changes {
            let inst = rw.inst(change.at);
            if changes_nothing(inst, &change) {
                continue;
            }
            let span = inst.span;
            rw.modify(change.at, |inst| {
                inst.operands[1] = Operand::Reg(change.a);
                inst.operands[2] = Operand::Reg(change.b);
                if let Some(hi) = change.hi {
                    inst.modifiers.edit(|list| {
                        for m in list {
                            if matches!(m, Modifier::Word(w) if *w == Word::LO || *w == Word::HI) {
                                *m = Modifier::Word(if hi { Word::HI } else { Word::LO });
                            }
                        }
                    });
                }
            });
            let (counter, what) = if change.hi.is_some() { (DP2A, "dp2a") } else { (DP4A, "dp4a") };
            rw.count(counter, 1);
            rw.remark(span, format!("{what} reads its source words directly"));
        }
        if plan.chain {
            rw.count(CHAINS, 1);
        }
    }
}
