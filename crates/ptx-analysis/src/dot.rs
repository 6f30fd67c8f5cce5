//! Graphviz output of the CFG and the def-use graph, through
//! `petgraph::dot::Dot`. Node order is block order / definition order, so
//! the text is deterministic. Labels are multi-line, left-justified.

use crate::cfg::{Cfg, CfgNode};
use crate::defuse::{DefSite, DefUse, UseSite};
use crate::dom::DomTree;
use petgraph::dot::{Config, Dot};
use petgraph::graph::{DiGraph, NodeIndex};
use ptx_ir::print::inst_to_string;
use ptx_ir::{Function, InstId};
use std::fmt::Write;

/// The control-flow graph of `func` in DOT: one node per block listing its
/// labels and instructions, plus entry and exit; edges labelled with their
/// kind (`branch`, `fall`, `exit`, ...).
pub fn cfg_dot(func: &Function) -> String {
    let cfg = Cfg::build(func);
    let graph = cfg.graph().map(
        |_, node| match node {
            CfgNode::Entry | CfgNode::Exit => node.to_string(),
            CfgNode::Block(b) => {
                let data = cfg.block(*b);
                let mut label = format!("{b}\n");
                for &l in &data.labels {
                    let name = func.labels.get(l).map_or("<missing label>", |d| func.names.get(d.name));
                    let _ = writeln!(label, "{name}:");
                }
                for &i in &data.insts {
                    let _ = writeln!(label, "  {}", inst_text(func, i));
                }
                label
            }
        },
        |_, kind| kind.to_string(),
    );
    format!("{}", Dot::new(&graph))
}

/// The def-use graph of `func` in DOT: definitions (`%r3 @ add.s32 ...`, or
/// `%r3 @ ENTRY`) with an edge to every use they reach (`use %r3 @ ...`).
/// ENTRY definitions that reach no use are left out.
pub fn defuse_dot(func: &Function) -> String {
    let cfg = Cfg::build(func);
    let dom = DomTree::build(&cfg);
    let du = DefUse::build(func, &cfg, &dom);
    let mut graph: DiGraph<String, &str> = DiGraph::new();
    let mut def_node: Vec<(DefSite, NodeIndex)> = Vec::new();
    for d in du.def_sites() {
        if matches!(d, DefSite::Entry(_)) && du.is_dead(d) {
            continue;
        }
        let label = match d {
            DefSite::Entry(r) => format!("{} @ ENTRY", func.reg_name(r)),
            DefSite::Inst(i, r) => format!("{} @ {}", func.reg_name(r), inst_text(func, i)),
        };
        def_node.push((d, graph.add_node(label)));
    }
    // DefSite's order is ENTRY by register, then by InstId; sort for lookup.
    def_node.sort_by_key(|&(d, _)| d);
    for u in du.use_sites() {
        let UseSite { inst, pos, reg } = *u;
        let label = format!("use {} @ {} ({pos})", func.reg_name(reg), inst_text(func, inst));
        let n = graph.add_node(label);
        for d in du.reaching_defs_of_use(u) {
            if let Ok(k) = def_node.binary_search_by_key(d, |&(d, _)| d) {
                graph.add_edge(def_node[k].1, n, "");
            }
        }
    }
    format!("{}", Dot::with_config(&graph, &[Config::EdgeNoLabel]))
}

/// An instruction as text; a body that names a missing instruction (a broken
/// IR) shows as such instead of panicking.
fn inst_text(func: &Function, inst: InstId) -> String {
    func.insts.get(inst).map_or_else(|| format!("<missing {inst}>"), |i| inst_to_string(func, i))
}
