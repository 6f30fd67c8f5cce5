//! The control-flow graph of one function.
//!
//! Basic blocks partition the body's statement list: a block starts at a
//! label (unless the block being built has no instruction yet, in which case
//! the label joins it) and at the first instruction after a terminator: an
//! instruction whose opcode's [`Control`] class (a column of the opcode
//! table) ends a block (`bra`, `brx.idx`, `ret`, `exit`, `trap`).
//! Non-instruction statements after a terminator (`}`, `.loc`, declarations)
//! stay in the terminated block, so the statement ranges are contiguous and
//! cover the whole body. Calls (`Control::Call`) and unknown opcodes do not
//! end blocks.
//!
//! The graph is a petgraph `DiGraph` with an entry node, an exit node and one
//! node per block. Edges, by the control class of the block's last
//! instruction:
//! - entry → first block;
//! - `Branch` (`bra L`) → the block of `L`; guarded, also the fall-through
//!   block;
//! - `IndirectBranch` (`brx.idx i, T`) → every label of the `.branchtargets`
//!   table `T` (guarded: also the fall-through). A table that cannot be
//!   resolved makes the edges conservative: every labelled block;
//! - unguarded `Return`/`Exit`/`Trap` (`ret`/`exit`/`trap`) → exit; guarded,
//!   also the fall-through;
//! - any other block → the next block, and the last block → exit.
//!
//! Successors of a block are de-duplicated, keeping the first edge kind. A
//! label that names a `.branchtargets` table, a `.calltargets` list or a
//! `.callprototype` names data, not code: it does not start a block and is
//! no branch target.

use cranelift_entity::{entity_impl, PrimaryMap, SecondaryMap};
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::{DfsPostOrder, EdgeRef};
use petgraph::Direction;
use ptx_ir::{Control, Function, InstId, LabelId, Operand, Stmt};
use std::fmt;
use std::ops::Range;

/// A basic block of a [`Cfg`]; numbered in body order from 0.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Block(u32);
entity_impl!(Block, "block");

/// What a basic block covers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockData {
    /// The body statements of the block (`func.body[stmts]`).
    pub stmts: Range<usize>,
    /// The instructions of the block, in order.
    pub insts: Vec<InstId>,
    /// The labels that name the block's start.
    pub labels: Vec<LabelId>,
}

/// A node of the control-flow graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CfgNode {
    /// The function entry (no instructions).
    Entry,
    /// The function exit (no instructions); `ret`, `exit`, `trap` and falling
    /// off the end lead here.
    Exit,
    /// A basic block.
    Block(Block),
}

impl fmt::Display for CfgNode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CfgNode::Entry => f.write_str("entry"),
            CfgNode::Exit => f.write_str("exit"),
            CfgNode::Block(b) => write!(f, "{b}"),
        }
    }
}

/// Why an edge exists.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EdgeKind {
    /// From the entry node to the first block.
    Entry,
    /// The target of a branch (`bra`, or one entry of a `brx.idx` table).
    Branch,
    /// A branch whose target could not be resolved: an edge to every labelled block.
    Unresolved,
    /// Execution continues with the next block (no terminator, or a guarded one).
    FallThrough,
    /// `ret`, `exit`, `trap`, or falling off the end of the function.
    Exit,
}

impl fmt::Display for EdgeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EdgeKind::Entry => "entry",
            EdgeKind::Branch => "branch",
            EdgeKind::Unresolved => "unresolved",
            EdgeKind::FallThrough => "fall",
            EdgeKind::Exit => "exit",
        })
    }
}

/// Where an instruction sits: its block and its index in the block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InstPos {
    /// The block.
    pub block: Block,
    /// The index in [`BlockData::insts`].
    pub index: usize,
}

/// The control-flow graph of one function. See the module documentation for
/// how blocks and edges are formed.
#[derive(Clone, Debug)]
pub struct Cfg {
    graph: DiGraph<CfgNode, EdgeKind>,
    entry: NodeIndex,
    exit: NodeIndex,
    blocks: PrimaryMap<Block, BlockData>,
    nodes: SecondaryMap<Block, Option<NodeIndex>>,
    label_block: SecondaryMap<LabelId, Option<Block>>,
    inst_pos: SecondaryMap<InstId, Option<InstPos>>,
    rpo: Vec<Block>,
    reachable: SecondaryMap<Block, bool>,
}

impl Cfg {
    /// Builds the graph of `func`. A declaration (no body) has no blocks and
    /// an edge from entry to exit.
    pub fn build(func: &Function) -> Cfg {
        let body: &[Stmt] = func.body().unwrap_or(&[]);
        let tables = BranchTables::new(func, body);
        let blocks = split_blocks(func, body, &tables);

        let mut graph = DiGraph::with_capacity(blocks.len() + 2, blocks.len() * 2 + 2);
        let entry = graph.add_node(CfgNode::Entry);
        let exit = graph.add_node(CfgNode::Exit);
        let mut nodes = SecondaryMap::with_capacity(blocks.len());
        for b in blocks.keys() {
            nodes[b] = Some(graph.add_node(CfgNode::Block(b)));
        }
        let mut label_block = SecondaryMap::with_capacity(func.labels.len());
        let mut inst_pos = SecondaryMap::with_capacity(func.insts.len());
        for (b, data) in blocks.iter() {
            for &l in &data.labels {
                label_block[l] = Some(b);
            }
            for (index, &i) in data.insts.iter().enumerate() {
                inst_pos[i] = Some(InstPos { block: b, index });
            }
        }

        let mut cfg = Cfg {
            graph,
            entry,
            exit,
            blocks,
            nodes,
            label_block,
            inst_pos,
            rpo: Vec::new(),
            reachable: SecondaryMap::new(),
        };
        cfg.add_edges(func, &tables);
        cfg.compute_rpo();
        cfg
    }

    fn add_edges(&mut self, func: &Function, tables: &BranchTables) {
        let first = self.blocks.keys().next();
        let first_node = first.map_or(self.exit, |b| self.node(b));
        self.graph.add_edge(self.entry, first_node, EdgeKind::Entry);

        let labelled: Vec<Block> = self.blocks.iter().filter(|(_, d)| !d.labels.is_empty()).map(|(b, _)| b).collect();
        let mut succs: Vec<(NodeIndex, EdgeKind)> = Vec::new();
        let keys: Vec<Block> = self.blocks.keys().collect();
        for (k, &b) in keys.iter().enumerate() {
            succs.clear();
            let next = keys.get(k + 1).map_or(self.exit, |&n| self.node(n));
            let last = self.blocks[b].insts.last().and_then(|&i| func.insts.get(i));
            let mut falls = true;
            if let Some(inst) = last {
                falls = !inst.is_terminator() || inst.guard.is_some();
                let to_blocks = |targets: Option<Vec<Block>>, succs: &mut Vec<(NodeIndex, EdgeKind)>| match targets {
                    Some(t) => succs.extend(t.into_iter().map(|b| (self.node(b), EdgeKind::Branch))),
                    None => succs.extend(labelled.iter().map(|&b| (self.node(b), EdgeKind::Unresolved))),
                };
                match inst.opcode.control() {
                    Control::Falls | Control::Call => {}
                    Control::Branch => {
                        let target = match inst.operands.first() {
                            Some(Operand::Label(l)) => self.label_block[*l].map(|b| vec![b]),
                            _ => None,
                        };
                        to_blocks(target, &mut succs);
                    }
                    Control::IndirectBranch => {
                        let targets = match inst.operands.get(1) {
                            Some(Operand::Label(t)) => tables.targets(*t).and_then(|labels| {
                                labels.iter().map(|&l| self.label_block[l]).collect::<Option<Vec<Block>>>()
                            }),
                            _ => None,
                        };
                        to_blocks(targets, &mut succs);
                    }
                    Control::Return | Control::Exit | Control::Trap => succs.push((self.exit, EdgeKind::Exit)),
                }
            }
            if falls {
                let kind = if next == self.exit { EdgeKind::Exit } else { EdgeKind::FallThrough };
                succs.push((next, kind));
            }
            let from = self.node(b);
            for (j, &(to, kind)) in succs.iter().enumerate() {
                if !succs[..j].iter().any(|&(t, _)| t == to) {
                    self.graph.add_edge(from, to, kind);
                }
            }
        }
    }

    fn compute_rpo(&mut self) {
        let mut dfs = DfsPostOrder::new(&self.graph, self.entry);
        let mut post = Vec::with_capacity(self.blocks.len());
        while let Some(n) = dfs.next(&self.graph) {
            if let CfgNode::Block(b) = self.graph[n] {
                post.push(b);
                self.reachable[b] = true;
            }
        }
        post.reverse();
        self.rpo = post;
    }

    /// The petgraph graph.
    pub fn graph(&self) -> &DiGraph<CfgNode, EdgeKind> {
        &self.graph
    }

    /// The entry node.
    pub fn entry(&self) -> NodeIndex {
        self.entry
    }

    /// The exit node.
    pub fn exit(&self) -> NodeIndex {
        self.exit
    }

    /// Number of basic blocks.
    pub fn num_blocks(&self) -> usize {
        self.blocks.len()
    }

    /// The blocks in body order.
    pub fn blocks(&self) -> impl ExactSizeIterator<Item = (Block, &BlockData)> + '_ {
        self.blocks.iter()
    }

    /// One block.
    pub fn block(&self, b: Block) -> &BlockData {
        &self.blocks[b]
    }

    /// The graph node of a block.
    pub fn node(&self, b: Block) -> NodeIndex {
        self.nodes[b].expect("every block has a node")
    }

    /// The graph node of a [`CfgNode`].
    pub fn node_of(&self, n: CfgNode) -> NodeIndex {
        match n {
            CfgNode::Entry => self.entry,
            CfgNode::Exit => self.exit,
            CfgNode::Block(b) => self.node(b),
        }
    }

    /// The block of a graph node (None for entry and exit).
    pub fn block_of_node(&self, n: NodeIndex) -> Option<Block> {
        match self.graph.node_weight(n) {
            Some(CfgNode::Block(b)) => Some(*b),
            _ => None,
        }
    }

    /// The block a label names, if the label is in the body.
    pub fn label_block(&self, l: LabelId) -> Option<Block> {
        self.label_block.get(l).copied().flatten()
    }

    /// The block of an instruction and its index there (None if the
    /// instruction is not in the body).
    pub fn inst_pos(&self, i: InstId) -> Option<InstPos> {
        self.inst_pos.get(i).copied().flatten()
    }

    /// The block of an instruction.
    pub fn inst_block(&self, i: InstId) -> Option<Block> {
        self.inst_pos(i).map(|p| p.block)
    }

    /// Successor nodes of a block, in edge insertion order.
    pub fn successors(&self, b: Block) -> impl Iterator<Item = (CfgNode, EdgeKind)> + '_ {
        let mut v: Vec<_> = self
            .graph
            .edges_directed(self.node(b), Direction::Outgoing)
            .map(|e| (self.graph[e.target()], *e.weight()))
            .collect();
        // petgraph lists a node's edges newest first.
        v.reverse();
        v.into_iter()
    }

    /// Predecessor nodes of a block (entry included), newest edge first.
    pub fn predecessors(&self, b: Block) -> impl Iterator<Item = CfgNode> + '_ {
        self.graph.neighbors_directed(self.node(b), Direction::Incoming).map(|n| self.graph[n])
    }

    /// The blocks reachable from entry, in reverse postorder.
    pub fn reverse_postorder(&self) -> &[Block] {
        &self.rpo
    }

    /// True if the block is reachable from entry.
    pub fn is_reachable(&self, b: Block) -> bool {
        self.reachable.get(b).copied().unwrap_or(false)
    }

    /// True if `other` has the same number of blocks and the same edges as
    /// `self`: the shape a dominator tree depends on.
    pub fn same_shape(&self, other: &Cfg) -> bool {
        self.shape() == other.shape()
    }

    /// The number of blocks and the edges (as node index pairs, in order).
    pub(crate) fn shape(&self) -> (usize, Vec<(u32, u32)>) {
        let edges = self.graph.edge_references().map(|e| (e.source().index() as u32, e.target().index() as u32));
        (self.blocks.len(), edges.collect())
    }
}

/// Splits the body into blocks (see the module documentation).
fn split_blocks(func: &Function, body: &[Stmt], tables: &BranchTables) -> PrimaryMap<Block, BlockData> {
    let mut blocks = PrimaryMap::new();
    if !func.has_body() {
        return blocks;
    }
    let mut cur = BlockData { stmts: 0..0, insts: Vec::new(), labels: Vec::new() };
    let mut after_terminator = false;
    for (i, stmt) in body.iter().enumerate() {
        let split = match stmt {
            // A label naming a table or a prototype names data, not code.
            Stmt::Label(l) if tables.names_data(*l) => false,
            Stmt::Label(_) => !cur.insts.is_empty(),
            Stmt::Inst(_) => after_terminator,
            _ => false,
        };
        if split {
            cur.stmts.end = i;
            let next = BlockData { stmts: i..i, insts: Vec::new(), labels: Vec::new() };
            blocks.push(std::mem::replace(&mut cur, next));
            after_terminator = false;
        }
        match stmt {
            Stmt::Label(l) if !tables.names_data(*l) => cur.labels.push(*l),
            Stmt::Inst(id) => {
                cur.insts.push(*id);
                after_terminator = func.insts.get(*id).is_some_and(|inst| inst.is_terminator());
            }
            _ => {}
        }
    }
    cur.stmts.end = body.len();
    blocks.push(cur);
    blocks
}

/// The labels of a function that name data: a label directly followed by a
/// `.branchtargets L1, L2, ...`, `.calltargets f, g, ...` or
/// `.callprototype ...` directive (`.loc` lines may come between). Of the
/// `.branchtargets` tables, the targets too.
struct BranchTables {
    /// (table label, its targets), or None when a target name is not a label.
    tables: Vec<(LabelId, Option<Vec<LabelId>>)>,
    /// The labels of `.calltargets` lists and `.callprototype`s, sorted.
    call_data: Vec<LabelId>,
}

impl BranchTables {
    fn new(func: &Function, body: &[Stmt]) -> BranchTables {
        // Label names are scoped, so one name may belong to several labels;
        // a name then stands for all of them (more successors is safe).
        let mut by_name: Vec<(ptx_ir::Name, LabelId)> = func.labels.iter().map(|(l, d)| (d.name, l)).collect();
        by_name.sort();
        let resolve = |text: &str| -> Option<Vec<LabelId>> {
            let list = text.trim().strip_prefix(".branchtargets")?;
            let mut out = Vec::new();
            for name in list.split(',') {
                let name = func.names.find(name.trim())?;
                let start = by_name.partition_point(|&(n, _)| n < name);
                let same = by_name[start..].iter().take_while(|&&(n, _)| n == name);
                let before = out.len();
                out.extend(same.map(|&(_, l)| l));
                if out.len() == before {
                    return None;
                }
            }
            Some(out)
        };
        let (mut tables, mut call_data) = (Vec::new(), Vec::new());
        for (i, stmt) in body.iter().enumerate() {
            let Stmt::Label(l) = stmt else { continue };
            let directive =
                body[i + 1..].iter().find(|s| !matches!(s, Stmt::Raw(d) if func.directives[*d].name == "loc"));
            if let Some(Stmt::Raw(d)) = directive {
                let d = &func.directives[*d];
                match d.name.as_str() {
                    "branchtargets" => tables.push((*l, resolve(&d.text))),
                    "calltargets" | "callprototype" => call_data.push(*l),
                    _ => {}
                }
            }
        }
        // Sorted by label for lookup; a label naming two tables cannot happen
        // in valid PTX, and then the first one wins.
        tables.sort_by_key(|(l, _)| *l);
        call_data.sort();
        BranchTables { tables, call_data }
    }

    /// True if `label` names a table or a prototype, not code.
    fn names_data(&self, label: LabelId) -> bool {
        self.tables.binary_search_by_key(&label, |(l, _)| *l).is_ok() || self.call_data.binary_search(&label).is_ok()
    }

    fn targets(&self, table: LabelId) -> Option<&[LabelId]> {
        let i = self.tables.partition_point(|(l, _)| *l < table);
        self.tables.get(i).filter(|(l, _)| *l == table).and_then(|(_, t)| t.as_deref())
    }
}
