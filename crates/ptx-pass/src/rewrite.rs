//! The rewriter: everything a function pass does to a function besides
//! deciding what to do.
//!
//! A pass decides its rewrites on the unchanged function (with
//! [`ptx_analysis::Values`]), then makes them through a [`Rewriter`]:
//!
//! ```text
//! let mut rw = Rewriter::new(func, cx);
//! rw.replace(id, Inst::mov(ScalarType::B32, dst, src));  // keeps the guard and span
//! rw.count(FOLDED, 1);
//! rw.remark(span, "prmt folded to a copy");
//! rw.erase_dead(candidates);                             // what the rewrite left unread
//! Ok(rw.finish())
//! ```
//!
//! The rewriter owns the bookkeeping every pass needs and none should write
//! again: replacing, inserting and erasing instructions (new ones inherit the
//! guard and source span of the instruction they replace or stand next to,
//! so they run exactly when it does and diagnostics point at its line);
//! fresh registers; counters with stable ids and remarks; dead-code removal
//! with one rule for every pass; and transactions: a rewrite can be rolled
//! back to a [`Checkpoint`] without copying the function.
//!
//! Insertions and erasures are recorded and applied in one linear sweep by
//! [`Rewriter::finish`] (applying them one at a time to the statement list
//! would be quadratic); replacements are made at once. Nothing is visible
//! in the function's body until `finish`.

use crate::{Counter, FunctionContext};
use ptx_analysis::BlockData;
use ptx_ir::{
    Access, Arena, BodyEdits, FreshRegs, Function, Guard, Inst, InstId, Name, RegId, ScalarType, Span, StateSpace, Stmt,
};

use std::collections::VecDeque;

/// Changes one function: replacements at once, insertions and erasures
/// recorded and applied in one sweep by [`finish`](Rewriter::finish).
pub struct Rewriter<'f, 'c, 'm> {
    func: &'f mut Function,
    cx: &'c mut FunctionContext<'m>,
    edits: BodyEdits,
    temps: Option<FreshRegs>,
    temp_tag: &'static str,
    /// Instructions erased (recorded in `edits` too), in order.
    erased: Vec<InstId>,
    /// Instructions inserted, in order.
    inserted: Vec<InstId>,
    /// Previous contents of replaced or modified instructions, in order.
    undo: Vec<(InstId, Inst)>,
    changed: bool,
}

/// The guard an inserted instruction runs under
/// ([`Rewriter::insert_before_guarded`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GuardChoice {
    /// The anchor's guard: the new instruction runs exactly when the
    /// anchor does (what [`Rewriter::insert_before`] does).
    Anchor,
    /// None: the new instruction runs whenever control reaches it.
    Unguarded,
    /// The instruction's own guard, as it was built.
    Own,
}

/// A point a [`Rewriter`] can roll back to ([`Rewriter::checkpoint`]).
#[derive(Debug)]
pub struct Checkpoint {
    insts: (usize, bool),
    regs: (usize, bool),
    erased: usize,
    inserted: usize,
    undo: usize,
    counters: Vec<(Counter, u64)>,
    remarks: usize,
    changed: bool,
}

fn arena_mark<K: cranelift_entity::EntityRef, V>(arena: &Arena<K, V>) -> (usize, bool) {
    (arena.len(), arena.is_touched())
}

impl<'f, 'c, 'm> Rewriter<'f, 'c, 'm> {
    /// A rewriter of `func`, counting into `cx`.
    pub fn new(func: &'f mut Function, cx: &'c mut FunctionContext<'m>) -> Self {
        Rewriter {
            func,
            cx,
            edits: BodyEdits::new(),
            temps: None,
            temp_tag: "tmp",
            erased: Vec::new(),
            inserted: Vec::new(),
            undo: Vec::new(),
            changed: false,
        }
    }

    /// Names fresh registers `%ptxopt_<tag>_<type>_<n>` (default tag `tmp`).
    pub fn with_temp_tag(mut self, tag: &'static str) -> Self {
        self.temp_tag = tag;
        self
    }

    /// The function as it is now (replacements made, insertions and
    /// erasures still pending).
    pub fn func(&self) -> &Function {
        self.func
    }

    /// The instruction `id` as it is now.
    pub fn inst(&self, id: InstId) -> &Inst {
        &self.func.insts[id]
    }

    /// Replaces instruction `id` by `new`, which takes `id`'s guard and span.
    pub fn replace(&mut self, id: InstId, new: impl Into<Inst>) {
        let old = &self.func.insts[id];
        let new = new.into().with_guard(old.guard).with_span(old.span);
        let old = std::mem::replace(&mut self.func.insts[id], new);
        self.undo.push((id, old));
        self.changed = true;
    }

    /// Changes instruction `id` in place (an operand, a modifier).
    pub fn modify(&mut self, id: InstId, edit: impl FnOnce(&mut Inst)) {
        let old = self.func.insts[id].clone();
        edit(&mut self.func.insts[id]);
        self.undo.push((id, old));
        self.changed = true;
    }

    /// Inserts `inst` just before `anchor` (after anything already inserted
    /// there), under `anchor`'s guard and at its span.
    pub fn insert_before(&mut self, anchor: InstId, inst: impl Into<Inst>) -> InstId {
        let inst = self.like(anchor, inst.into());
        let id = self.edits.insert_before(self.func, anchor, inst);
        self.inserted.push(id);
        self.changed = true;
        id
    }

    /// Inserts `inst` just after `anchor` (after anything already inserted
    /// there), under `anchor`'s guard and at its span.
    pub fn insert_after(&mut self, anchor: InstId, inst: impl Into<Inst>) -> InstId {
        let inst = self.like(anchor, inst.into());
        let id = self.edits.insert_after(self.func, anchor, inst);
        self.inserted.push(id);
        self.changed = true;
        id
    }

    /// Inserts `inst` just before `anchor` (after anything already inserted
    /// there), at its span, under the guard `guard` chooses: the anchor's,
    /// none, or the one `inst` was built with. An unconditional counter
    /// before a guarded instruction is [`GuardChoice::Unguarded`].
    pub fn insert_before_guarded(&mut self, anchor: InstId, inst: impl Into<Inst>, guard: GuardChoice) -> InstId {
        let inst = self.guarded(anchor, inst.into(), guard);
        let id = self.edits.insert_before(self.func, anchor, inst);
        self.inserted.push(id);
        self.changed = true;
        id
    }

    /// Inserts `inst` at the start of `block` (a block of the function as it
    /// was when the rewriter was made, from its [`Cfg`](ptx_analysis::Cfg)):
    /// after its labels, before its first instruction, after anything
    /// already inserted there, under its own guard (none, unless it was
    /// built with one: the block's first instruction may be guarded, the
    /// start of the block is not). A block without instructions (a label
    /// just before the end of the body) takes it after its labels.
    pub fn insert_at_block_start(&mut self, block: &BlockData, inst: impl Into<Inst>) -> InstId {
        match block.insts.first() {
            Some(&first) => self.insert_before_guarded(first, inst, GuardChoice::Own),
            None => self.insert_in_empty_block(block, inst.into()),
        }
    }

    /// Inserts `inst` at the end of `block` (see
    /// [`insert_at_block_start`](Self::insert_at_block_start)): before the
    /// instruction that ends it (`bra`, `ret`, ..., guarded or not), else
    /// after its last instruction, after anything already inserted there,
    /// under its own guard.
    pub fn insert_at_block_end(&mut self, block: &BlockData, inst: impl Into<Inst>) -> InstId {
        let Some(&last) = block.insts.last() else { return self.insert_in_empty_block(block, inst.into()) };
        if self.func.insts[last].is_terminator() {
            return self.insert_before_guarded(last, inst, GuardChoice::Own);
        }
        let inst = self.guarded(last, inst.into(), GuardChoice::Own);
        let id = self.edits.insert_after(self.func, last, inst);
        self.inserted.push(id);
        self.changed = true;
        id
    }

    /// A block without instructions: after its last label, or at the end of
    /// its statements.
    fn insert_in_empty_block(&mut self, block: &BlockData, inst: Inst) -> InstId {
        let body = self.func.body().unwrap_or(&[]);
        let last_label = block.stmts.clone().rfind(|&i| matches!(body.get(i), Some(Stmt::Label(_))));
        let position = last_label.map_or(block.stmts.end, |i| i + 1);
        let id = self.edits.insert_at(self.func, position, inst);
        self.inserted.push(id);
        self.changed = true;
        id
    }

    /// The name `text` in the function's name table (interned if new), for
    /// operands that name a symbol: a variable a pass added to the module, a
    /// function it calls.
    pub fn symbol(&mut self, text: &str) -> Name {
        self.func.names.intern(text)
    }

    fn guarded(&self, anchor: InstId, inst: Inst, guard: GuardChoice) -> Inst {
        let a = &self.func.insts[anchor];
        let guard: Option<Guard> = match guard {
            GuardChoice::Anchor => a.guard,
            GuardChoice::Unguarded => None,
            GuardChoice::Own => inst.guard,
        };
        inst.with_guard(guard).with_span(a.span)
    }

    fn like(&self, anchor: InstId, inst: Inst) -> Inst {
        let a = &self.func.insts[anchor];
        inst.with_guard(a.guard).with_span(a.span)
    }

    /// Removes instruction `id` from the body.
    pub fn erase(&mut self, id: InstId) {
        if self.is_live(id) {
            self.edits.remove(id);
            self.erased.push(id);
            self.changed = true;
        }
    }

    fn is_live(&self, id: InstId) -> bool {
        !self.edits.is_removed(id)
    }

    /// A new register of type `ty`, declared by [`finish`](Self::finish).
    pub fn temp(&mut self, ty: ScalarType) -> RegId {
        let tag = self.temp_tag;
        let func = &mut *self.func;
        self.temps.get_or_insert_with(|| FreshRegs::new(func, tag)).make(func, ty)
    }

    /// Adds `n` to `counter` (`--stats`, `expect-stats`).
    pub fn count(&mut self, counter: Counter, n: u64) {
        self.cx.count(counter, n);
    }

    /// Records a remark about a rewrite at `span`.
    pub fn remark(&mut self, span: Span, message: impl Into<String>) {
        self.cx.remark(span, message);
    }

    /// Records a missed remark: a rewrite not made at `span`, and why
    /// ([`FunctionContext::missed`]).
    pub fn missed(&mut self, span: Span, reason: impl Into<String>) {
        self.cx.missed(span, reason);
    }

    /// Instructions in the body once the pending edits are applied.
    pub fn inst_count(&self) -> usize {
        self.func.inst_ids().count() + self.inserted.len() - self.erased.len()
    }

    /// Erases the `candidates` that compute nothing anyone reads, repeatedly
    /// (erasing one may leave another unread); returns how many it erased.
    ///
    /// The rule, the same for every pass: a candidate is erased when it is
    /// pure (no memory, control, carry or unknown effect) and no instruction
    /// of the function, as it is after the pending edits, reads any register
    /// it may write. A register named by a `.reg` return parameter is read by
    /// the caller, so its writes are never dead. A write of part of a
    /// register (`%v.x`) reads the rest, so it is never dead either. Only
    /// candidates are considered: code that was dead before the pass stays.
    pub fn erase_dead(&mut self, candidates: impl IntoIterator<Item = InstId>) -> usize {
        let live: Vec<InstId> =
            self.func.inst_ids().filter(|&id| self.is_live(id)).chain(self.inserted.iter().copied()).collect();
        let mut readers = vec![0u32; self.func.regs.len()];
        for &id in &live {
            count_reads(self.func, id, &mut readers, 1);
        }
        for reg in reg_return_registers(self.func) {
            readers[reg.index()] += 1;
        }
        let mut in_body = vec![false; self.func.insts.len()];
        for id in live {
            in_body[id.index()] = true;
        }
        let is_dead = |func: &Function, readers: &[u32], id: InstId| {
            let mut dead = true;
            func.insts[id].for_each_reg_access(|_, r, access| dead &= access == Access::Use || readers[r.index()] == 0);
            dead && !func.insts[id].has_side_effects()
        };
        let mut order: Vec<InstId> = candidates.into_iter().filter(|c| in_body[c.index()]).collect();
        // Usually nothing is dead: then that is all (no worklist to build).
        if !order.iter().any(|&id| is_dead(self.func, &readers, id)) {
            return 0;
        }
        order.sort_unstable();
        order.dedup();
        order.retain(|&id| !self.func.insts[id].has_side_effects());
        // Which candidates write each register, sorted by register: when the
        // last reader of a register goes, they are looked at again (a
        // worklist, so a long dead chain costs its length, not its length
        // squared).
        let mut writers: Vec<(u32, InstId)> = Vec::with_capacity(order.len());
        for &id in &order {
            self.func.insts[id].for_each_reg_access(|_, r, access| {
                if access != Access::Use {
                    writers.push((r.as_u32(), id));
                }
            });
        }
        writers.sort_unstable();
        let mut work: VecDeque<InstId> = order.into_iter().collect();
        let mut erased = 0;
        let mut freed = Vec::new();
        while let Some(id) = work.pop_front() {
            if !self.is_live(id) {
                continue;
            }
            if !is_dead(self.func, &readers, id) {
                continue;
            }
            freed.clear();
            count_reads(self.func, id, &mut readers, -1);
            let inst = &self.func.insts[id];
            freed.extend(inst.guard.map(|g| g.reg()));
            inst.for_each_reg_access(|_, r, access| {
                if access != Access::Def {
                    freed.push(r);
                }
            });
            self.erase(id);
            erased += 1;
            for &r in &freed {
                if readers[r.index()] == 0 {
                    let reg = r.as_u32();
                    let from = writers.partition_point(|&(w, _)| w < reg);
                    work.extend(writers[from..].iter().take_while(|&&(w, _)| w == reg).map(|&(_, i)| i));
                }
            }
        }
        erased
    }

    /// A point to come back to with [`rollback`](Self::rollback).
    pub fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            insts: arena_mark(&self.func.insts),
            regs: arena_mark(&self.func.regs),
            erased: self.erased.len(),
            inserted: self.inserted.len(),
            undo: self.undo.len(),
            counters: self.cx.counters().collect(),
            remarks: self.cx.remark_count(),
            changed: self.changed,
        }
    }

    /// How many instructions the body gained since `checkpoint` (negative
    /// if it lost some).
    pub fn growth_since(&self, checkpoint: &Checkpoint) -> isize {
        (self.inserted.len() - checkpoint.inserted) as isize - (self.erased.len() - checkpoint.erased) as isize
    }

    /// Undoes everything done since `checkpoint`: replacements, insertions,
    /// erasures, registers made, counters and remarks. The function is as it
    /// was, down to whether it counts as changed.
    pub fn rollback(&mut self, checkpoint: Checkpoint) {
        while self.undo.len() > checkpoint.undo {
            let (id, old) = self.undo.pop().expect("undo entries above the checkpoint");
            self.func.insts[id] = old;
        }
        for id in self.erased.drain(checkpoint.erased..) {
            self.edits.unremove(id);
        }
        self.inserted.truncate(checkpoint.inserted);
        self.edits.forget_insts_from(checkpoint.insts.0);
        self.func.insts.rollback(checkpoint.insts.0, checkpoint.insts.1);
        self.func.regs.rollback(checkpoint.regs.0, checkpoint.regs.1);
        if let Some(temps) = &mut self.temps {
            temps.forget_from(checkpoint.regs.0);
        }
        self.cx.restore(checkpoint.counters, checkpoint.remarks);
        self.changed = checkpoint.changed;
    }

    /// Applies the pending insertions and erasures in one sweep over the
    /// body, declares the registers made, and returns whether the function
    /// changed.
    pub fn finish(self) -> bool {
        let Rewriter { func, edits, temps, changed, .. } = self;
        edits.apply(func);
        if let Some(temps) = temps {
            temps.declare(func);
        }
        // Every edit above is tracked by the arenas and the body, and the
        // printer writes the function into its source text; a change none
        // of them saw can only be printed afresh.
        if changed {
            func.note_changed();
        }
        changed
    }
}

/// Adds `delta` to the reader count of every register `id` reads (its guard
/// included).
fn count_reads(func: &Function, id: InstId, readers: &mut [u32], delta: i32) {
    let inst = &func.insts[id];
    if let Some(g) = inst.guard {
        readers[g.reg().index()] = readers[g.reg().index()].wrapping_add_signed(delta);
    }
    inst.for_each_reg_access(|_, r, access| {
        if access != Access::Def {
            readers[r.index()] = readers[r.index()].wrapping_add_signed(delta);
        }
    });
}

/// The registers named by the function's `.reg` return parameters (the
/// caller reads them after `ret`).
fn reg_return_registers(func: &Function) -> Vec<RegId> {
    let mut out = Vec::new();
    for ret in func.returns.iter().flatten().filter(|r| r.space() == Some(StateSpace::Reg)) {
        if let Some(name) = func.names.find(&ret.name) {
            out.extend(func.regs.iter().filter(|(_, d)| d.name == name && d.index.is_none()).map(|(r, _)| r));
        }
    }
    out
}

use cranelift_entity::EntityRef;
