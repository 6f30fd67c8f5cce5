//! Dominators of a [`Cfg`], from `petgraph::algo::dominators::simple_fast`,
//! with a preorder/postorder numbering of the dominator tree so that
//! "does A dominate B" is answered in constant time.
//!
//! Only nodes reachable from entry have dominators; every query involving an
//! unreachable node answers `false` (the conservative answer for passes).

use crate::cfg::{Block, Cfg};
use petgraph::algo::dominators::{simple_fast, Dominators};
use petgraph::graph::NodeIndex;
use ptx_ir::InstId;

/// The dominator tree of a control-flow graph.
#[derive(Clone, Debug)]
pub struct DomTree {
    doms: Dominators<NodeIndex>,
    /// Per graph node: immediate dominator.
    idom: Vec<Option<NodeIndex>>,
    /// Per graph node: (preorder, postorder) number in the dominator tree, or
    /// None if unreachable.
    order: Vec<Option<(u32, u32)>>,
}

impl DomTree {
    /// Computes the dominators of `cfg` (rooted at its entry node).
    pub fn build(cfg: &Cfg) -> DomTree {
        let graph = cfg.graph();
        let n = graph.node_count();
        let doms = simple_fast(graph, cfg.entry());
        let mut idom = vec![None; n];
        let mut children: Vec<Vec<NodeIndex>> = vec![Vec::new(); n];
        for node in graph.node_indices() {
            if let Some(d) = doms.immediate_dominator(node) {
                idom[node.index()] = Some(d);
                children[d.index()].push(node);
            }
        }
        // Iterative DFS over the tree (functions can be deep; no recursion).
        let mut order = vec![None; n];
        let mut pre = 0u32;
        let mut post = 0u32;
        let mut stack: Vec<(NodeIndex, usize)> = vec![(cfg.entry(), 0)];
        let mut pre_of = vec![0u32; n];
        pre_of[cfg.entry().index()] = pre;
        pre += 1;
        while let Some(top) = stack.last_mut() {
            let (node, next) = *top;
            if let Some(&child) = children[node.index()].get(next) {
                top.1 += 1;
                pre_of[child.index()] = pre;
                pre += 1;
                stack.push((child, 0));
            } else {
                order[node.index()] = Some((pre_of[node.index()], post));
                post += 1;
                stack.pop();
            }
        }
        DomTree { doms, idom, order }
    }

    /// The petgraph dominators.
    pub fn dominators(&self) -> &Dominators<NodeIndex> {
        &self.doms
    }

    /// The immediate dominator of a node (None for entry and unreachable nodes).
    pub fn idom(&self, node: NodeIndex) -> Option<NodeIndex> {
        self.idom.get(node.index()).copied().flatten()
    }

    /// True if `a` dominates `b` (reflexive). False if either is unreachable.
    pub fn dominates(&self, a: NodeIndex, b: NodeIndex) -> bool {
        match (self.order.get(a.index()).copied().flatten(), self.order.get(b.index()).copied().flatten()) {
            (Some((pre_a, post_a)), Some((pre_b, post_b))) => pre_a <= pre_b && post_b <= post_a,
            _ => false,
        }
    }

    /// True if block `a` dominates block `b` (reflexive).
    pub fn block_dominates(&self, cfg: &Cfg, a: Block, b: Block) -> bool {
        self.dominates(cfg.node(a), cfg.node(b))
    }

    /// True if instruction `a` dominates instruction `b`: every path from
    /// entry to `b` executes `a` first (reflexive: `a` dominates itself).
    /// False for instructions outside the body or in unreachable blocks.
    pub fn inst_dominates(&self, cfg: &Cfg, a: InstId, b: InstId) -> bool {
        match (cfg.inst_pos(a), cfg.inst_pos(b)) {
            (Some(pa), Some(pb)) if pa.block == pb.block => {
                pa.index <= pb.index && self.dominates(cfg.node(pa.block), cfg.node(pb.block))
            }
            (Some(pa), Some(pb)) => self.block_dominates(cfg, pa.block, pb.block),
            _ => false,
        }
    }

    /// The dominator-tree (preorder, postorder) numbers of a node, if reachable.
    pub(crate) fn order(&self, node: NodeIndex) -> Option<(u32, u32)> {
        self.order.get(node.index()).copied().flatten()
    }
}
