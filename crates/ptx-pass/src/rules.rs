//! Rules and the driver that applies them.
//!
//! A rewrite is a [`Rule`]: which instructions it may root at, a `decide`
//! that looks at the function as it is and either returns a plan or says
//! why not ([`Missed`]), and a `build` that carries the plan out through a
//! [`Rewriter`]. [`apply`] is the one driver, and it owns the bookkeeping:
//!
//! - the gate and the cheap root test before any analysis is built;
//! - deciding at every root on the unchanged function, then building: a
//!   rule whose rewrites each compute the value their root computed keeps
//!   every other decision valid;
//! - nested roots: a root that another plan stands for
//!   ([`Rule::covered`]: the pieces its root replaces) is left to that plan;
//! - the saving a rewrite must make ([`Rule::saving`]): each plan, or all
//!   plans together, built under a checkpoint, their pieces deleted once
//!   unread, and rolled back (with a missed remark, [`Rule::undone`]) when
//!   the function is not shorter by enough;
//! - dead code: the pieces of built plans and the feeders the rule lets die
//!   ([`Rule::may_die`]), deleted once unread, counted in
//!   [`Rule::dead_counter`];
//! - missed remarks, and a bounded fixpoint ([`Rule::rounds`]): the rule
//!   runs again on what it made while it changes something.
//!
//! A rule is a [`FunctionPass`]: a pass made of a rule is the rule and a
//! registry line.

use crate::{Checkpoint, Counter, FunctionContext, FunctionPass, Preserves, Rewriter};
use ptx_analysis::Values;
use ptx_ir::{Diagnostic, Function, Inst, InstId, Opcode};
use std::borrow::Cow;

/// Why a rule left a root alone: a missed remark (`--remarks-missed`), or
/// nothing to say (the root is not the rule's business).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Missed(Option<Cow<'static, str>>);

impl Missed {
    /// Not the rule's business: no remark.
    pub const fn silently() -> Missed {
        Missed(None)
    }

    /// A rewrite the rule would have made but could not, and why.
    pub fn because(reason: impl Into<Cow<'static, str>>) -> Missed {
        Missed(Some(reason.into()))
    }

    /// The reason, if the miss is worth a remark.
    pub fn reason(&self) -> Option<&str> {
        self.0.as_deref()
    }
}

/// A rewrite: match (`roots`, `may_root`), check (`decide`), build.
pub trait Rule: Send + Sync {
    /// What `decide` found out, for `build`.
    type Plan;

    /// The pass's name (`--passes=`, counters, remarks).
    fn name(&self) -> &'static str;

    /// What the rewrites leave valid (default: the control-flow graph, as
    /// for rewrites of instructions that do not branch).
    fn preserves(&self) -> Preserves {
        Preserves::Cfg
    }

    /// The opcodes the rule roots at.
    fn roots(&self) -> &[Opcode];

    /// The tag of the registers `build` makes (`Rewriter::temp`:
    /// `%ptxopt_<tag>_<type>_<n>`).
    fn temp_tag(&self) -> &'static str {
        "tmp"
    }

    /// True if `inst` may root the rule: a cheap test on the instruction
    /// alone, before any analysis (default: its opcode is one of
    /// [`roots`](Self::roots)).
    fn may_root(&self, inst: &Inst) -> bool {
        self.roots().contains(&inst.opcode)
    }

    /// The plan for root `id`, decided on the function as it is before any
    /// rewrite, or why there is none.
    fn decide(&self, values: &Values<'_>, id: InstId) -> Result<Self::Plan, Missed>;

    /// Carries out `plan` at root `id`: replaces, inserts, counts, remarks.
    fn build(&self, rw: &mut Rewriter<'_, '_, '_>, id: InstId, plan: Self::Plan);

    /// True if `feeder`, an instruction whose result reached a rewritten
    /// root, may be deleted once nothing reads it (default: none may).
    fn may_die(&self, feeder: &Inst) -> bool {
        let _ = feeder;
        false
    }

    /// The counter of deleted feeders and pieces (see
    /// [`may_die`](Self::may_die), [`covered`](Self::covered)).
    fn dead_counter(&self) -> Option<Counter> {
        None
    }

    /// Whether the rule runs on `func` at all, asked before anything else
    /// (default: yes). A rule gated off by the target says so here, in its
    /// counters and a missed remark.
    fn enabled(&self, func: &Function, cx: &mut FunctionContext<'_>) -> bool {
        let _ = (func, cx);
        true
    }

    /// The instructions the plan's root stands for (default: none): they
    /// are deleted once nothing reads them, and a root among them is not
    /// rewritten on its own (the plan of an outer root covers it).
    fn covered<'p>(&self, plan: &'p Self::Plan) -> &'p [InstId] {
        let _ = plan;
        &[]
    }

    /// What a rewrite must save to be kept (default: nothing).
    fn saving(&self) -> Saving {
        Saving::Any
    }

    /// The missed remark at the root of a plan undone because the function
    /// would not get shorter by enough; `growth` is how much longer it
    /// would get (negative: shorter, by too little).
    fn undone(&self, growth: isize) -> Cow<'static, str> {
        format!("rewrite undone: the function would grow by {growth} instructions").into()
    }

    /// Counts the plans undone (with [`Saving::AllPlans`]).
    fn undone_counter(&self) -> Option<Counter> {
        None
    }

    /// Counts how many instructions shorter the kept plans made the
    /// function (with [`Saving::AllPlans`]).
    fn shrink_counter(&self) -> Option<Counter> {
        None
    }

    /// How many times the driver may run the rule on one function: again
    /// on what the last round made, while a round changes something
    /// (default 1).
    fn rounds(&self) -> usize {
        1
    }
}

/// What a rule's rewrites must save to be kept ([`Rule::saving`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Saving {
    /// Every plan is kept.
    Any,
    /// Each plan, built alone with its pieces deleted once unread, must make
    /// the function at least this many instructions shorter, or it is
    /// undone.
    EachPlan(isize),
    /// All plans, built together with their pieces deleted once unread,
    /// must make the function at least this many instructions shorter (0:
    /// not longer), or all are undone.
    AllPlans(isize),
}

/// Applies `rule` to `func` for up to [`Rule::rounds`] rounds (see the
/// module doc). Returns whether the function changed.
pub fn apply<R: Rule + ?Sized>(rule: &R, func: &mut Function, cx: &mut FunctionContext<'_>) -> bool {
    if !rule.enabled(func, cx) {
        return false;
    }
    let mut changed = false;
    for round in 0..rule.rounds().max(1) {
        if round > 0 {
            cx.analyses.invalidate(rule.preserves().keep());
        }
        if !apply_once(rule, func, cx) {
            break;
        }
        changed = true;
    }
    changed
}

fn apply_once<R: Rule + ?Sized>(rule: &R, func: &mut Function, cx: &mut FunctionContext<'_>) -> bool {
    let roots: Vec<InstId> = func.inst_ids().filter(|&id| rule.may_root(&func.insts[id])).collect();
    if roots.is_empty() {
        return false;
    }
    let values = cx.values(func);
    // Feeders are looked up only for a rule that deletes them: the lookup
    // builds the def-use chains, which a rule reading only its root needs not.
    let deletes = rule.dead_counter().is_some();
    let mut plans = Vec::new();
    let mut feeders = Vec::new();
    let mut missed = Vec::new();
    for id in roots {
        match rule.decide(&values, id) {
            Ok(plan) => {
                if deletes {
                    feeders.extend(values.feeding(id).into_iter().filter(|&d| rule.may_die(&func.insts[d])));
                }
                plans.push((id, plan));
            }
            Err(Missed(Some(reason))) => missed.push((func.insts[id].span, reason)),
            Err(Missed(None)) => {}
        }
    }
    for (span, reason) in missed {
        cx.missed(span, reason);
    }
    // A root that is a piece of another plan is done with it.
    let covered: rustc_hash::FxHashSet<InstId> =
        plans.iter().flat_map(|(_, plan)| rule.covered(plan).iter().copied()).collect();
    if !covered.is_empty() {
        plans.retain(|(id, _)| !covered.contains(id));
    }
    if plans.is_empty() {
        return false;
    }
    let mut rw = Rewriter::new(func, cx).with_temp_tag(rule.temp_tag());
    let mut dead = 0;
    match rule.saving() {
        Saving::Any => {
            for (id, plan) in plans {
                feeders.extend_from_slice(rule.covered(&plan));
                rule.build(&mut rw, id, plan);
            }
            dead = rw.erase_dead(feeders);
        }
        Saving::EachPlan(min) => {
            for (id, plan) in plans {
                let start = rw.checkpoint();
                let pieces = rule.covered(&plan).to_vec();
                let span = rw.inst(id).span;
                rule.build(&mut rw, id, plan);
                let deleted = rw.erase_dead(pieces);
                let growth = rw.growth_since(&start);
                if growth > -min {
                    rw.rollback(start);
                    rw.missed(span, rule.undone(growth));
                } else if let Some(counter) = rule.dead_counter() {
                    // Each kept plan reports its deletions, none included.
                    rw.count(counter, deleted as u64);
                }
            }
        }
        Saving::AllPlans(min) => {
            let start: Checkpoint = rw.checkpoint();
            let mut pieces = Vec::new();
            let mut undo = Vec::with_capacity(plans.len());
            for (id, plan) in plans {
                pieces.extend_from_slice(rule.covered(&plan));
                undo.push(rw.inst(id).span);
                rule.build(&mut rw, id, plan);
            }
            dead = rw.erase_dead(pieces);
            let growth = rw.growth_since(&start);
            if growth > -min {
                rw.rollback(start);
                if let Some(counter) = rule.undone_counter() {
                    rw.count(counter, undo.len() as u64);
                }
                for span in undo {
                    rw.missed(span, rule.undone(growth));
                }
                return rw.finish();
            }
            if let (Some(counter), true) = (rule.shrink_counter(), growth < 0) {
                rw.count(counter, (-growth) as u64);
            }
        }
    }
    if let (Some(counter), true) = (rule.dead_counter(), dead > 0) {
        rw.count(counter, dead as u64);
    }
    rw.finish()
}

/// A rule is a function pass: [`apply`] it.
impl<R: Rule> FunctionPass for R {
    fn name(&self) -> &'static str {
        Rule::name(self)
    }

    fn preserves(&self) -> Preserves {
        Rule::preserves(self)
    }

    fn run_on_function(&self, func: &mut Function, cx: &mut FunctionContext<'_>) -> Result<bool, Vec<Diagnostic>> {
        Ok(apply(self, func, cx))
    }
}
