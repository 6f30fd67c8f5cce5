//! Rules and the driver that applies them.
//!
//! A rewrite is a [`Rule`]: which instructions it may root at, a `decide`
//! that looks at the function as it is and either returns a plan or says
//! why not ([`Missed`]), and a `build` that carries the plan out through a
//! [`Rewriter`]. [`apply`] is the one driver: it asks the rule about every
//! root, reports the misses, builds every plan, then offers the
//! instructions that fed a rewritten root to dead-code removal
//! ([`Rewriter::erase_dead`]) and counts what went. A rule is a
//! [`FunctionPass`]: a pass made of a rule is the rule and a registry line.
//!
//! Every decision is taken on the unchanged function (the value queries
//! describe the function as it was), then every plan is built: a rule whose
//! rewrites each compute the value their root computed keeps every other
//! decision valid. The driver does not yet own nested roots, rollback to a
//! saving threshold or a fixpoint: passes that need them keep their own
//! loop.

use crate::{Counter, FunctionContext, FunctionPass, Preserves, Rewriter};
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

    /// The counter of deleted feeders (see [`may_die`](Self::may_die)).
    fn dead_counter(&self) -> Option<Counter> {
        None
    }
}

/// Applies `rule` to `func`: decides at every root, reports the misses,
/// builds every plan, deletes the feeders left unread. Returns whether the
/// function changed.
pub fn apply<R: Rule + ?Sized>(rule: &R, func: &mut Function, cx: &mut FunctionContext<'_>) -> bool {
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
                plans.push((id, plan));
                if deletes {
                    feeders.extend(values.feeding(id).into_iter().filter(|&d| rule.may_die(&func.insts[d])));
                }
            }
            Err(Missed(Some(reason))) => missed.push((func.insts[id].span, reason)),
            Err(Missed(None)) => {}
        }
    }
    for (span, reason) in missed {
        cx.missed(span, reason);
    }
    if plans.is_empty() {
        return false;
    }
    let mut rw = Rewriter::new(func, cx).with_temp_tag(rule.temp_tag());
    for (id, plan) in plans {
        rule.build(&mut rw, id, plan);
    }
    if let Some(dead) = rule.dead_counter() {
        let deleted = rw.erase_dead(feeders);
        if deleted > 0 {
            rw.count(dead, deleted as u64);
        }
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
