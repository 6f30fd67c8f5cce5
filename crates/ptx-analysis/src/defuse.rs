//! Reaching definitions and the def-use graph of one function.
//!
//! **Definition sites.** Every register an instruction may write, as reported
//! by [`Inst::for_each_reg_access`] (`Def`, `UseDef`, `UseMayDef`), is one
//! definition site `(inst, reg)`; elements of vector and pair operands
//! (`{a, b}`, `p|q`) and call result lists `(r)` each define their register,
//! and sinks `_` define nothing. Every register also has an ENTRY
//! pseudo-definition: its value on entry (a `.reg` parameter's argument, or
//! undefined), so every use reachable from entry without a definition sees
//! ENTRY.
//!
//! **Kills.** Only an unguarded `Def` of the whole register (`%r`, not
//! `%v.x`) kills the other definitions of that register. Guarded definitions,
//! `UseMayDef` (unknown instructions), `UseDef` (accumulators such as
//! `wgmma.mma_async`, whose writes are asynchronous; also writes of one
//! component of a vector register, `%v.x`, which ptx-ir reports as
//! `UseDef`) may leave the old value in place, so they do not kill.
//! Over-approximating the reaching set like this is the safe direction for
//! every client.
//!
//! **Algorithm.** Classic bit-vector dataflow over basic blocks, iterated in
//! reverse postorder to a fixed point. Columns are only the *global*
//! definitions: those that reach the end of their own block (a definition
//! killed later in its block can only be seen inside it, which a linear scan
//! of the block resolves) plus the ENTRY definitions. Columns are grouped by
//! register, so a kill clears one contiguous range and "the definitions of
//! `%r` in this set" is one range scan. Cost: O(blocks × columns / 64) words
//! per pass, and a number of passes bounded by the loop nesting depth plus
//! two (after the first, a pass revisits only blocks whose predecessors
//! changed); every use is then resolved by one forward scan per block.
//! Memory: two bit rows per block (one kept for queries).
//!
//! **Queries at any point.** [`DefUse::reaching_defs`] at an instruction
//! that does not read the register cannot use the resolved uses. For it,
//! every register keeps its instruction definitions in body order with their
//! position and the latest kill before them in the same block, so the
//! definitions local to the block that precede the point are found by binary
//! search: O(log n) plus the size of the answer, instead of a scan from the
//! start of the block (quadratic for passes that query every instruction of
//! a block of hundreds of thousands).
//!
//! **Dead code.** Blocks unreachable from entry are seeded like entry's
//! successor (every register may hold anything), so their uses still see a
//! definition; nothing flows from them into reachable blocks (it never
//! executes), so dead code does not blur the answers for live code.

use crate::bits::{self, BitMatrix};
use crate::cfg::{Block, Cfg, CfgNode};
use crate::dom::DomTree;
use cranelift_entity::{EntityRef, SecondaryMap};
use petgraph::graph::{DiGraph, NodeIndex};
use ptx_ir::{Access, Function, Inst, InstId, Opcode, Operand, RegId};
use std::borrow::Cow;
use std::fmt;

/// A definition: an instruction writing a register, or the register's value
/// on function entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DefSite {
    /// The value on entry: a `.reg` parameter's argument, or undefined.
    Entry(RegId),
    /// `reg` written (or possibly written) by an instruction.
    Inst(InstId, RegId),
}

impl DefSite {
    /// The defined register.
    pub fn reg(self) -> RegId {
        match self {
            DefSite::Entry(r) | DefSite::Inst(_, r) => r,
        }
    }

    /// The defining instruction (None for ENTRY).
    pub fn inst(self) -> Option<InstId> {
        match self {
            DefSite::Entry(_) => None,
            DefSite::Inst(i, _) => Some(i),
        }
    }
}

/// Where in an instruction a register is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum UsePos {
    /// The guard predicate `@%p`.
    Guard,
    /// Operand number `n` (0-based, in source order).
    Operand(usize),
}

impl fmt::Display for UsePos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UsePos::Guard => f.write_str("guard"),
            UsePos::Operand(n) => write!(f, "op {n}"),
        }
    }
}

/// A read of a register by an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UseSite {
    /// The reading instruction.
    pub inst: InstId,
    /// Guard or operand index.
    pub pos: UsePos,
    /// The register read.
    pub reg: RegId,
}

/// A node of the def-use graph ([`DefUse::graph`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DuNode {
    /// A definition site.
    Def(DefSite),
    /// A use site.
    Use(UseSite),
}

#[derive(Clone, Copy, Debug)]
struct DefRec {
    site: DefSite,
    /// An unguarded write of the whole register.
    kills: bool,
    /// For `mov` of an integer immediate: the value, truncated to the type.
    constant: Option<u64>,
}

type Span32 = (u32, u32);

/// One instruction definition in its register's list ([`DefUse::reg_defs`]).
#[derive(Clone, Copy, Debug)]
struct RegDef {
    /// The definition (index into `defs`).
    def: u32,
    /// Position of its instruction in `block_insts`.
    at: u32,
    /// The latest killing definition of the register at or before this one
    /// in the same block, as an index into the register's list ([`NO_KILL`]
    /// if none).
    last_kill: u32,
}

const NO_KILL: u32 = u32::MAX;

fn range((s, e): Span32) -> std::ops::Range<usize> {
    s as usize..e as usize
}

/// Reaching definitions and def-use chains of one function, with the queries
/// passes need. Self-contained once built: queries need neither the function
/// nor the CFG.
#[derive(Clone, Debug)]
pub struct DefUse {
    defs: Vec<DefRec>,
    uses: Vec<UseSite>,
    inst_defs: SecondaryMap<InstId, Span32>,
    inst_uses: SecondaryMap<InstId, Span32>,
    /// Per use: range of `use_defs`.
    use_defs_range: Vec<Span32>,
    use_defs: Vec<DefSite>,
    /// Per def: range of `def_uses`.
    def_uses_range: Vec<Span32>,
    def_uses: Vec<UseSite>,
    // What general queries need.
    block_insts: Vec<InstId>,
    block_range: Vec<Span32>,
    inst_pos: SecondaryMap<InstId, Option<(u32, u32)>>,
    /// Per register: its columns (ENTRY first). Empty for a register no
    /// instruction writes: ENTRY is then its only definition and reaches
    /// everywhere, so it needs no column (a `.reg %r<1048576>` that is
    /// hardly used must not cost a million columns in every block).
    reg_cols: Vec<Span32>,
    /// Column → def index.
    col_def: Vec<u32>,
    /// Per register `r`: `reg_defs[reg_defs_start[r]..reg_defs_start[r + 1]]`
    /// are its instruction definitions, in body order (`nregs + 1` entries).
    reg_defs_start: Vec<u32>,
    reg_defs: Vec<RegDef>,
    /// Per block: the global definitions reaching its start.
    ins: BitMatrix,
    /// Per block: dominator-tree numbering, if reachable.
    dom_order: Vec<Option<(u32, u32)>>,
    rounds: usize,
}

impl DefUse {
    /// Computes reaching definitions and def-use chains of `func`, whose
    /// CFG and dominator tree are `cfg` and `dom`.
    pub fn build(func: &Function, cfg: &Cfg, dom: &DomTree) -> DefUse {
        let nregs = func.regs.len();
        let nblocks = cfg.num_blocks();
        let mut du = DefUse {
            defs: func.regs.keys().map(|r| DefRec { site: DefSite::Entry(r), kills: true, constant: None }).collect(),
            uses: Vec::new(),
            inst_defs: SecondaryMap::with_capacity(func.insts.len()),
            inst_uses: SecondaryMap::with_capacity(func.insts.len()),
            use_defs_range: Vec::new(),
            use_defs: Vec::new(),
            def_uses_range: Vec::new(),
            def_uses: Vec::new(),
            block_insts: Vec::new(),
            block_range: Vec::with_capacity(nblocks),
            inst_pos: SecondaryMap::with_capacity(func.insts.len()),
            reg_cols: Vec::new(),
            col_def: Vec::new(),
            reg_defs_start: Vec::new(),
            reg_defs: Vec::new(),
            ins: BitMatrix::default(),
            dom_order: cfg.blocks().map(|(b, _)| dom.order(cfg.node(b))).collect(),
            rounds: 0,
        };

        // 1. Definition and use sites, in body order.
        for (b, data) in cfg.blocks() {
            let start = du.block_insts.len() as u32;
            for (index, &id) in data.insts.iter().enumerate() {
                du.block_insts.push(id);
                du.inst_pos[id] = Some((b.as_u32(), index as u32));
                let Some(inst) = func.insts.get(id) else {
                    continue;
                };
                du.collect_sites(func, id, inst, nregs);
            }
            du.block_range.push((start, du.block_insts.len() as u32));
        }

        // 2. Per block: which definitions reach its end (global) and which
        //    registers it kills.
        let ndefs = du.defs.len();
        let mut global = vec![false; ndefs];
        global[..nregs].iter_mut().for_each(|g| *g = true);
        let mut seen = vec![0u32; nregs];
        let mut kills: Vec<Vec<u32>> = vec![Vec::new(); nblocks];
        for (b, block_kills) in kills.iter_mut().enumerate() {
            let stamp = b as u32 + 1;
            for &id in du.block_insts[range(du.block_range[b])].iter().rev() {
                for d in range(du.inst_defs[id]) {
                    let r = du.defs[d].site.reg().index();
                    if seen[r] != stamp {
                        global[d] = true;
                        if du.defs[d].kills {
                            seen[r] = stamp;
                            block_kills.push(r as u32);
                        }
                    }
                }
            }
        }

        // 3. Columns grouped by register, ENTRY first in each group; none
        //    for registers that no instruction writes.
        let mut written = vec![false; nregs];
        for d in nregs..ndefs {
            written[du.defs[d].site.reg().index()] = true;
        }
        for (r, &w) in written.iter().enumerate() {
            global[r] = w;
        }
        let mut count: Vec<u32> = written.iter().map(|&w| u32::from(w)).collect();
        for d in nregs..ndefs {
            if global[d] {
                count[du.defs[d].site.reg().index()] += 1;
            }
        }
        let mut next = 0u32;
        du.reg_cols = count
            .iter()
            .map(|&c| {
                let span = (next, next + c);
                next += c;
                span
            })
            .collect();
        let ncols = next as usize;
        let mut cursor: Vec<u32> = du.reg_cols.iter().map(|&(s, _)| s).collect();
        du.col_def = vec![0; ncols];
        let mut def_col = vec![u32::MAX; ndefs];
        for d in 0..ndefs {
            if global[d] {
                let r = du.defs[d].site.reg().index();
                du.col_def[cursor[r] as usize] = d as u32;
                def_col[d] = cursor[r];
                cursor[r] += 1;
            }
        }
        let mut gens: Vec<Vec<u32>> = vec![Vec::new(); nblocks];
        for (b, gen) in gens.iter_mut().enumerate() {
            for &id in &du.block_insts[range(du.block_range[b])] {
                gen.extend(range(du.inst_defs[id]).filter(|&d| global[d]).map(|d| def_col[d]));
            }
        }

        // 4. Fixed point in reverse postorder (unreachable blocks last).
        du.solve(cfg, &kills, &gens);

        // 5. Every use's reaching definitions, by a forward scan per block.
        du.resolve_uses();

        // 6. Per register, its definitions in body order (for queries at
        //    instructions that do not read it).
        du.index_reg_defs();
        du
    }

    fn index_reg_defs(&mut self) {
        let nregs = self.reg_cols.len();
        let mut start = vec![0u32; nregs + 1];
        for d in &self.defs[nregs..] {
            start[d.site.reg().index() + 1] += 1;
        }
        for r in 0..nregs {
            start[r + 1] += start[r];
        }
        let mut fill = start.clone();
        let mut reg_defs = vec![RegDef { def: 0, at: 0, last_kill: NO_KILL }; self.defs.len() - nregs];
        // Per register: (block stamp, latest kill in that block).
        let mut state = vec![(0u32, NO_KILL); nregs];
        for b in 0..self.block_range.len() {
            let stamp = b as u32 + 1;
            for k in range(self.block_range[b]) {
                for d in range(self.inst_defs[self.block_insts[k]]) {
                    let r = self.defs[d].site.reg().index();
                    let slot = fill[r];
                    fill[r] += 1;
                    if state[r].0 != stamp {
                        state[r] = (stamp, NO_KILL);
                    }
                    if self.defs[d].kills {
                        state[r].1 = slot - start[r];
                    }
                    reg_defs[slot as usize] = RegDef { def: d as u32, at: k as u32, last_kill: state[r].1 };
                }
            }
        }
        self.reg_defs_start = start;
        self.reg_defs = reg_defs;
    }

    fn collect_sites(&mut self, func: &Function, id: InstId, inst: &Inst, nregs: usize) {
        let d0 = self.defs.len();
        let u0 = self.uses.len();
        if let Some(g) = inst.guard {
            if g.reg().index() < nregs {
                self.uses.push(UseSite { inst: id, pos: UsePos::Guard, reg: g.reg() });
            }
        }
        let (defs, uses) = (&mut self.defs, &mut self.uses);
        inst.for_each_reg_access(|idx, reg, access| {
            if reg.index() >= nregs {
                return;
            }
            if access != Access::Def {
                let site = UseSite { inst: id, pos: UsePos::Operand(idx), reg };
                if !uses[u0..].contains(&site) {
                    uses.push(site);
                }
            }
            if access != Access::Use {
                let kills = access == Access::Def
                    && inst.guard.is_none()
                    && inst.operands.get(idx).is_some_and(|op| writes_whole(op, reg));
                match defs[d0..].iter_mut().find(|d| d.site.reg() == reg) {
                    Some(d) => d.kills |= kills,
                    None => defs.push(DefRec { site: DefSite::Inst(id, reg), kills, constant: None }),
                }
            }
        });
        for d in &mut self.defs[d0..] {
            d.constant = mov_immediate(func, inst, d.site.reg());
        }
        self.inst_defs[id] = (d0 as u32, self.defs.len() as u32);
        self.inst_uses[id] = (u0 as u32, self.uses.len() as u32);
    }

    fn solve(&mut self, cfg: &Cfg, kills: &[Vec<u32>], gens: &[Vec<u32>]) {
        let nblocks = cfg.num_blocks();
        let ncols = self.col_def.len();
        let mut preds: Vec<Vec<u32>> = vec![Vec::new(); nblocks];
        let mut seeded = vec![false; nblocks];
        for (b, _) in cfg.blocks() {
            let reachable = cfg.is_reachable(b);
            seeded[b.index()] = !reachable;
            for p in cfg.predecessors(b) {
                match p {
                    CfgNode::Entry => seeded[b.index()] = true,
                    // Nothing flows from dead code into live code.
                    CfgNode::Block(p) if reachable && !cfg.is_reachable(p) => {}
                    CfgNode::Block(p) => preds[b.index()].push(p.as_u32()),
                    CfgNode::Exit => {}
                }
            }
            preds[b.index()].sort_unstable();
        }
        let mut order: Vec<usize> = cfg.reverse_postorder().iter().map(|b| b.index()).collect();
        order.extend(cfg.blocks().filter(|(b, _)| !cfg.is_reachable(*b)).map(|(b, _)| b.index()));

        let mut entry_row = vec![0u64; ncols.div_ceil(64)];
        for &(start, end) in &self.reg_cols {
            if start < end {
                bits::set(&mut entry_row, start as usize);
            }
        }
        let mut ins = BitMatrix::new(nblocks, ncols);
        let mut outs = BitMatrix::new(nblocks, ncols);
        let mut scratch = vec![0u64; ins.row_words()];
        let mut succs: Vec<Vec<u32>> = vec![Vec::new(); nblocks];
        for (b, ps) in preds.iter().enumerate() {
            for &p in ps {
                succs[p as usize].push(b as u32);
            }
        }
        // A block is recomputed only when a predecessor's OUT changed since
        // its last visit; every block is visited in the first pass.
        let mut dirty = vec![true; nblocks];
        while dirty.iter().any(|&d| d) {
            self.rounds += 1;
            for &b in &order {
                if !std::mem::take(&mut dirty[b]) {
                    continue;
                }
                if seeded[b] {
                    scratch.copy_from_slice(&entry_row);
                } else {
                    scratch.fill(0);
                }
                for &p in &preds[b] {
                    bits::union_into(&mut scratch, outs.row(p as usize));
                }
                ins.row_mut(b).copy_from_slice(&scratch);
                for &r in &kills[b] {
                    let (s, e) = self.reg_cols[r as usize];
                    bits::clear_range(&mut scratch, s as usize, e as usize);
                }
                for &c in &gens[b] {
                    bits::set(&mut scratch, c as usize);
                }
                if outs.row(b) != scratch.as_slice() {
                    outs.row_mut(b).copy_from_slice(&scratch);
                    for &s in &succs[b] {
                        dirty[s as usize] = true;
                    }
                }
            }
        }
        self.ins = ins;
    }

    fn resolve_uses(&mut self) {
        let nregs = self.reg_cols.len();
        // Per register: (block stamp, killed in this block so far) and the
        // definitions seen in this block since the last kill.
        let mut state = vec![(0u32, false); nregs];
        let mut local: Vec<Vec<u32>> = vec![Vec::new(); nregs];
        let mut use_def_idx: Vec<u32> = Vec::new();
        let mut tmp: Vec<u32> = Vec::new();
        self.use_defs_range = vec![(0, 0); self.uses.len()];
        for b in 0..self.block_range.len() {
            let stamp = b as u32 + 1;
            for k in range(self.block_range[b]) {
                let id = self.block_insts[k];
                for u in range(self.inst_uses[id]) {
                    let r = self.uses[u].reg.index();
                    tmp.clear();
                    let (st, killed) = state[r];
                    if !(st == stamp && killed) {
                        let (s, e) = self.reg_cols[r];
                        if s == e {
                            // Never written: ENTRY (def index r) reaches.
                            tmp.push(r as u32);
                        }
                        bits::for_each_set(self.ins.row(b), s as usize, e as usize, |c| tmp.push(self.col_def[c]));
                    }
                    if st == stamp {
                        tmp.extend_from_slice(&local[r]);
                    }
                    tmp.sort_unstable();
                    tmp.dedup();
                    let start = use_def_idx.len() as u32;
                    use_def_idx.extend_from_slice(&tmp);
                    self.use_defs_range[u] = (start, use_def_idx.len() as u32);
                }
                for d in range(self.inst_defs[id]) {
                    let r = self.defs[d].site.reg().index();
                    if state[r].0 != stamp {
                        state[r] = (stamp, false);
                        local[r].clear();
                    }
                    if self.defs[d].kills {
                        state[r].1 = true;
                        local[r].clear();
                    }
                    local[r].push(d as u32);
                }
            }
        }
        self.use_defs = use_def_idx.iter().map(|&d| self.defs[d as usize].site).collect();

        // Invert: def → uses, in use order (counting sort).
        let mut count = vec![0u32; self.defs.len() + 1];
        for &d in &use_def_idx {
            count[d as usize + 1] += 1;
        }
        for i in 1..count.len() {
            count[i] += count[i - 1];
        }
        self.def_uses_range = (0..self.defs.len()).map(|d| (count[d], count[d + 1])).collect();
        let mut fill = count;
        self.def_uses =
            vec![UseSite { inst: InstId::from_u32(0), pos: UsePos::Guard, reg: RegId::from_u32(0) }; use_def_idx.len()];
        for (u, &span) in self.use_defs_range.iter().enumerate() {
            for &d in &use_def_idx[range(span)] {
                self.def_uses[fill[d as usize] as usize] = self.uses[u];
                fill[d as usize] += 1;
            }
        }
    }

    fn def_index(&self, site: DefSite) -> Option<usize> {
        match site {
            DefSite::Entry(r) => (r.index() < self.reg_cols.len()).then_some(r.index()),
            DefSite::Inst(i, r) => range(self.inst_defs.get(i).copied()?).find(|&d| self.defs[d].site.reg() == r),
        }
    }

    /// Every definition site: the ENTRY definitions in register order, then
    /// the instructions' definitions in body order.
    pub fn def_sites(&self) -> impl ExactSizeIterator<Item = DefSite> + '_ {
        self.defs.iter().map(|d| d.site)
    }

    /// Every use site, in body order (guard first, then operands).
    pub fn use_sites(&self) -> &[UseSite] {
        &self.uses
    }

    /// The registers an instruction may write, as definition sites.
    pub fn defs_of_inst(&self, inst: InstId) -> impl Iterator<Item = DefSite> + '_ {
        let span = self.inst_defs.get(inst).copied().unwrap_or((0, 0));
        self.defs[range(span)].iter().map(|d| d.site)
    }

    /// The registers an instruction reads, as use sites.
    pub fn uses_of_inst(&self, inst: InstId) -> &[UseSite] {
        let span = self.inst_uses.get(inst).copied().unwrap_or((0, 0));
        &self.uses[range(span)]
    }

    /// True if the definition overwrites the whole register unconditionally
    /// (an unguarded `Def` of the whole register; ENTRY counts as one).
    pub fn kills(&self, def: DefSite) -> bool {
        self.def_index(def).is_some_and(|d| self.defs[d].kills)
    }

    /// The definitions of `reg` that reach the point just before `inst`
    /// (ENTRY included when the value may come from the function entry),
    /// sorted (ENTRY first, then by instruction). Borrowed when `inst` reads
    /// `reg`; computed otherwise, by binary search in the definitions of
    /// `reg` (O(log n) plus the size of the answer, whatever the size of the
    /// block). Empty for an instruction outside the body.
    pub fn reaching_defs(&self, inst: InstId, reg: RegId) -> Cow<'_, [DefSite]> {
        let span = self.inst_uses.get(inst).copied().unwrap_or((0, 0));
        if let Some(u) = range(span).find(|&u| self.uses[u].reg == reg) {
            return Cow::Borrowed(&self.use_defs[range(self.use_defs_range[u])]);
        }
        Cow::Owned(self.reaching_defs_scan(inst, reg))
    }

    /// The reaching definitions of one use site.
    pub fn reaching_defs_of_use(&self, site: &UseSite) -> &[DefSite] {
        let span = self.inst_uses.get(site.inst).copied().unwrap_or((0, 0));
        match range(span).find(|&u| self.uses[u] == *site) {
            Some(u) => &self.use_defs[range(self.use_defs_range[u])],
            None => &[],
        }
    }

    fn reaching_defs_scan(&self, inst: InstId, reg: RegId) -> Vec<DefSite> {
        let Some((b, index)) = self.inst_pos.get(inst).copied().flatten() else {
            return Vec::new();
        };
        let r = reg.index();
        if r >= self.reg_cols.len() {
            return Vec::new();
        }
        // The definitions of `reg` in this block before `inst`: those whose
        // position is in [block start, position of `inst`).
        let (block_start, _) = self.block_range[b as usize];
        let all = &self.reg_defs[self.reg_defs_start[r] as usize..self.reg_defs_start[r + 1] as usize];
        let lo = all.partition_point(|d| d.at < block_start);
        let hi = lo + all[lo..].partition_point(|d| d.at < block_start + index);
        // From the latest kill on, if there is one (it kills what came before).
        let last_kill = if hi > lo { all[hi - 1].last_kill } else { NO_KILL };
        let killed = last_kill != NO_KILL;
        let local = if killed { &all[last_kill as usize..hi] } else { &all[lo..hi] };
        let mut out = Vec::new();
        if !killed {
            let (s, e) = self.reg_cols[r];
            if s == e {
                // Never written: ENTRY (def index r) reaches.
                out.push(r as u32);
            }
            bits::for_each_set(self.ins.row(b as usize), s as usize, e as usize, |c| out.push(self.col_def[c]));
        }
        out.extend(local.iter().map(|d| d.def));
        out.sort_unstable();
        out.dedup();
        out.into_iter().map(|d| self.defs[d as usize].site).collect()
    }

    /// The uses a definition reaches, in body order (empty for a site that
    /// is not a definition).
    pub fn uses_of(&self, def: DefSite) -> &[UseSite] {
        match self.def_index(def) {
            Some(d) => &self.def_uses[range(self.def_uses_range[d])],
            None => &[],
        }
    }

    /// True if the definition reaches no use.
    pub fn is_dead(&self, def: DefSite) -> bool {
        self.uses_of(def).is_empty()
    }

    /// The value of `reg` just before `inst`, if it is a known integer
    /// constant: every reaching definition is a `mov` of an integer immediate
    /// into the whole register (integer, bit or predicate type), all with the
    /// same value (truncated to the `mov` type), and ENTRY does not reach. Guarded `mov`s are accepted: a
    /// guarded definition kills nothing, so when its guard is false the value
    /// comes from another reaching definition, which must be a `mov` of the
    /// same value too. Returns the value's bits, zero-extended to 64.
    pub fn known_constant(&self, inst: InstId, reg: RegId) -> Option<u64> {
        let defs = self.reaching_defs(inst, reg);
        let mut value = None;
        for &d in defs.iter() {
            let c = self.defs[self.def_index(d)?].constant?;
            if value.is_some_and(|v| v != c) {
                return None;
            }
            value = Some(c);
        }
        value
    }

    fn inst_dominates(&self, a: InstId, b: InstId) -> bool {
        let pos = |i: InstId| self.inst_pos.get(i).copied().flatten();
        let (Some((ba, ia)), Some((bb, ib))) = (pos(a), pos(b)) else {
            return false;
        };
        let (Some((pre_a, post_a)), Some((pre_b, post_b))) = (self.dom_order[ba as usize], self.dom_order[bb as usize])
        else {
            return false;
        };
        if ba == bb {
            ia <= ib
        } else {
            pre_a <= pre_b && post_b <= post_a
        }
    }

    /// True if no definition of `reg` (of any kind: guarded, partial or
    /// possible) can execute after `from` and before `to`, on any path from
    /// `from` to `to`: the value `reg` has just after `from` (its most recent
    /// execution) is the value it has just before `to`. Conservative: false
    /// whenever this cannot be shown, in particular if `from` does not
    /// dominate `to`, if `from == to`, or if a definition inside a loop could
    /// intervene.
    ///
    /// Proof sketch. We require (1) `from` strictly dominates `to`, and (2)
    /// every definition `d` of `reg` reaching `to` is ENTRY, `from` itself, or
    /// an instruction that strictly dominates `from`. Suppose some definition
    /// executes on a path P from `from` to `to` that does not pass `from`
    /// again; let `d` be the last one on P. Nothing on P after `d` writes
    /// `reg`, so `d` reaches `to` and by (2) `d` strictly dominates `from`.
    /// There is a path from entry to `d` avoiding `from` (otherwise `from`
    /// would dominate `d`, and with `d` dominating `from` they would be the
    /// same instruction). Followed by the rest of P, which avoids `from`, it
    /// reaches `to` without passing `from`, contradicting (1). Cost: one
    /// [`reaching_defs`](Self::reaching_defs) query plus the size of the
    /// reaching set.
    pub fn value_unchanged_between(&self, reg: RegId, from: InstId, to: InstId) -> bool {
        if from == to || !self.inst_dominates(from, to) {
            return false;
        }
        self.reaching_defs(to, reg).iter().all(|d| match *d {
            DefSite::Entry(_) => true,
            DefSite::Inst(i, _) => i == from || self.inst_dominates(i, from),
        })
    }

    /// The def-use graph: one node per definition site (in
    /// [`def_sites`](Self::def_sites) order), then one per use site (in
    /// [`use_sites`](Self::use_sites) order), and an edge from each
    /// definition to each use it reaches.
    pub fn graph(&self) -> DiGraph<DuNode, ()> {
        let mut g = DiGraph::with_capacity(self.defs.len() + self.uses.len(), self.use_defs.len());
        for d in &self.defs {
            g.add_node(DuNode::Def(d.site));
        }
        for u in &self.uses {
            g.add_node(DuNode::Use(*u));
        }
        let ndefs = self.defs.len();
        let mut idx: Vec<u32> = Vec::new();
        for (u, &span) in self.use_defs_range.iter().enumerate() {
            idx.clear();
            idx.extend(self.use_defs[range(span)].iter().filter_map(|&d| self.def_index(d)).map(|d| d as u32));
            for &d in &idx {
                g.add_edge(NodeIndex::new(d as usize), NodeIndex::new(ndefs + u), ());
            }
        }
        g
    }

    /// Passes over the blocks (in reverse postorder) the dataflow took to
    /// reach its fixed point; after the first, a pass visits only the blocks
    /// whose predecessors changed.
    pub fn rounds(&self) -> usize {
        self.rounds
    }

    /// Number of bit columns of the dataflow (global definitions).
    pub fn num_columns(&self) -> usize {
        self.col_def.len()
    }

    /// The block of an instruction, as the analysis saw it.
    pub fn inst_block(&self, inst: InstId) -> Option<Block> {
        self.inst_pos.get(inst).copied().flatten().map(|(b, _)| Block::from_u32(b))
    }
}

/// True if `op` names `reg` as a whole register in a written position
/// (directly, or as an element of `{..}`, `(..)` or `p|q`).
fn writes_whole(op: &Operand, reg: RegId) -> bool {
    match op {
        Operand::Reg(r) => *r == reg,
        Operand::Vector(ops) | Operand::Parens(ops) => ops.iter().any(|o| writes_whole(o, reg)),
        Operand::Pair(p) => writes_whole(&p.0, reg) || writes_whole(&p.1, reg),
        _ => false,
    }
}

/// The value a `mov` of an integer immediate writes into `reg`, truncated to
/// the instruction type (integer, bit and predicate types only).
fn mov_immediate(func: &Function, inst: &Inst, reg: RegId) -> Option<u64> {
    if inst.opcode != Opcode::Mov || inst.operands.len() != 2 || inst.vector().is_some() {
        return None;
    }
    if inst.operands[0] != Operand::Reg(reg) || func.regs.get(reg)?.ty.vector.is_some() {
        return None;
    }
    let bits = inst.operands[1].as_int()?;
    let ty = inst.first_type()?;
    // An integer literal in a float `mov` is not the register's bit pattern.
    if ty.is_float() {
        return None;
    }
    let width = ty.bits();
    Some(if width >= 64 { bits } else { bits & ((1u64 << width) - 1) })
}
