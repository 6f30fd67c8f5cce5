//! Batched body edits: passes record insertions and removals while they
//! look at the function, then apply them in one linear sweep. Applying edits
//! one at a time to the statement vector would be quadratic.

use crate::entities::InstId;
use crate::inst::Inst;
use crate::module::{Function, Stmt};
use cranelift_entity::EntityRef;
use rustc_hash::{FxHashMap, FxHashSet};

/// Pending edits to a function's body.
#[derive(Debug, Default)]
pub struct BodyEdits {
    before: FxHashMap<InstId, Vec<InstId>>,
    after: FxHashMap<InstId, Vec<InstId>>,
    /// Insertions before the statement at a body index (the body's length:
    /// at the end), for places no instruction marks (after a label that
    /// ends the body).
    at: FxHashMap<usize, Vec<InstId>>,
    removed: FxHashSet<InstId>,
}

impl BodyEdits {
    /// No edits yet.
    pub fn new() -> BodyEdits {
        BodyEdits::default()
    }

    /// Adds `inst` to the function's arena and schedules it just before
    /// `anchor` (after anything already scheduled there).
    pub fn insert_before(&mut self, func: &mut Function, anchor: InstId, inst: Inst) -> InstId {
        let id = func.insts.push(inst);
        self.before.entry(anchor).or_default().push(id);
        id
    }

    /// Adds `inst` and schedules it just after `anchor` (after anything
    /// already scheduled there).
    pub fn insert_after(&mut self, func: &mut Function, anchor: InstId, inst: Inst) -> InstId {
        let id = func.insts.push(inst);
        self.after.entry(anchor).or_default().push(id);
        id
    }

    /// Adds `inst` and schedules it just before the statement at index
    /// `position` of the body as it is now (`body.len()`: at the end), after
    /// anything already scheduled there.
    pub fn insert_at(&mut self, func: &mut Function, position: usize, inst: Inst) -> InstId {
        let id = func.insts.push(inst);
        self.at.entry(position).or_default().push(id);
        id
    }

    /// Schedules `inst` for removal from the body.
    pub fn remove(&mut self, inst: InstId) {
        self.removed.insert(inst);
    }

    /// True if `inst` is scheduled for removal.
    pub fn is_removed(&self, inst: InstId) -> bool {
        self.removed.contains(&inst)
    }

    /// Cancels the removal of `inst`.
    pub fn unremove(&mut self, inst: InstId) {
        self.removed.remove(&inst);
    }

    /// Cancels the insertion of every instruction whose id is `len` or more
    /// (those added to the arena after it had `len` entries).
    pub fn forget_insts_from(&mut self, len: usize) {
        for lists in [&mut self.before, &mut self.after] {
            lists.retain(|_, list| {
                list.retain(|id| id.index() < len);
                !list.is_empty()
            });
        }
        self.at.retain(|_, list| {
            list.retain(|id| id.index() < len);
            !list.is_empty()
        });
    }

    /// True if nothing is scheduled.
    pub fn is_empty(&self) -> bool {
        self.before.is_empty() && self.after.is_empty() && self.at.is_empty() && self.removed.is_empty()
    }

    /// Applies the edits in one pass over the body; marks the function changed
    /// if there were any. Removed instructions stay in the arena
    /// (their ids stay valid), marked removed: iteration skips them.
    pub fn apply(mut self, func: &mut Function) -> bool {
        if self.is_empty() {
            return false;
        }
        let Some(body) = func.body_for_instruction_edits().map(std::mem::take) else { return false };
        let mut out = Vec::with_capacity(body.len() + self.before.len() + self.after.len() + self.at.len());
        let len = body.len();
        for (position, stmt) in body.into_iter().enumerate() {
            if let Some(list) = self.at.remove(&position) {
                out.extend(list.into_iter().filter(|i| !self.removed.contains(i)).map(Stmt::Inst));
            }
            let Stmt::Inst(id) = stmt else {
                out.push(stmt);
                continue;
            };
            if let Some(list) = self.before.remove(&id) {
                out.extend(list.into_iter().filter(|i| !self.removed.contains(i)).map(Stmt::Inst));
            }
            if self.removed.contains(&id) {
                func.insts.remove(id);
            } else {
                out.push(Stmt::Inst(id));
            }
            if let Some(list) = self.after.remove(&id) {
                out.extend(list.into_iter().filter(|i| !self.removed.contains(i)).map(Stmt::Inst));
            }
        }
        // At the end, and past it (a position beyond the body is its end).
        let mut rest: Vec<(usize, Vec<InstId>)> = self.at.drain().filter(|(p, _)| *p >= len).collect();
        rest.sort_by_key(|(p, _)| *p);
        for (_, list) in rest {
            out.extend(list.into_iter().filter(|i| !self.removed.contains(i)).map(Stmt::Inst));
        }
        *func.body_for_instruction_edits().expect("the body taken above") = out;
        true
    }
}
