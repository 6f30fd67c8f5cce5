//! Graphviz DOT of each function, for people: the control-flow graph, and
//! a def-use graph meant to be read at the size of real kernels.
//!
//! The def-use graph has one box per instruction, in program order, and one
//! edge from each instruction to each instruction that reads a value it
//! wrote, labelled with the register (`%r3`); values that come from outside
//! the function's instructions (parameters, registers read before any write)
//! leave one `ENTRY` node. One node per instruction rather than one per
//! definition and one per use keeps a 100-instruction kernel at about 100
//! boxes, which `dot` lays out top to bottom in the order of the code.

use crate::ir::print::inst_to_string;
use crate::ir::{Function, InstId, Module, Stmt};
use ptx_analysis::defuse::DefSite;
use ptx_analysis::{Cfg, DefUse, DomTree};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// Which graph [`function_dots`] draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Graph {
    /// Basic blocks and the edges between them.
    ControlFlow,
    /// Instructions and the values they pass to each other.
    DefUse,
}

/// One DOT `digraph` for each function with a body, with the function's
/// name, in module order.
pub fn function_dots(module: &Module, graph: Graph) -> Vec<(String, String)> {
    module
        .functions
        .values()
        .filter(|f| f.has_body())
        .map(|f| {
            let text = match graph {
                Graph::ControlFlow => ptx_analysis::cfg_dot(f),
                Graph::DefUse => defuse_dot(f),
            };
            (f.name.clone(), text)
        })
        .collect()
}

/// The def-use graph of one function (see the module documentation).
pub fn defuse_dot(func: &Function) -> String {
    let cfg = Cfg::build(func);
    let dom = DomTree::build(&cfg);
    let du = DefUse::build(func, &cfg, &dom);
    let order: Vec<InstId> = func
        .body()
        .unwrap_or_default()
        .iter()
        .filter_map(|s| match s {
            Stmt::Inst(id) => Some(*id),
            _ => None,
        })
        .collect();
    let node_of: BTreeMap<InstId, usize> = order.iter().enumerate().map(|(n, &id)| (id, n)).collect();
    // (from, to, register): from None is ENTRY. A set: an instruction that
    // reads a register twice gets one edge, and the order is fixed.
    let mut edges: BTreeSet<(Option<usize>, usize, String)> = BTreeSet::new();
    for site in du.use_sites() {
        let Some(&to) = node_of.get(&site.inst) else { continue };
        for def in du.reaching_defs_of_use(site) {
            let from = match *def {
                DefSite::Entry(_) => None,
                DefSite::Inst(inst, _) => match node_of.get(&inst) {
                    Some(&n) => Some(n),
                    None => continue,
                },
            };
            edges.insert((from, to, func.reg_name(def.reg()).to_string()));
        }
    }
    let mut out = String::new();
    let _ = writeln!(out, "digraph {} {{", quoted(&func.name));
    out.push_str("    graph [rankdir=TB];\n");
    // Courier, one of PostScript's standard fonts: every graphviz knows its
    // metrics (a build without fontconfig has no "monospace" and falls back
    // to Times metrics, with a warning).
    out.push_str("    node [shape=box, fontname=\"Courier\", fontsize=10];\n");
    out.push_str("    edge [fontname=\"Courier\", fontsize=9];\n");
    if edges.iter().any(|(from, _, _)| from.is_none()) {
        out.push_str("    entry [label=\"ENTRY\", shape=oval];\n");
    }
    for (n, &id) in order.iter().enumerate() {
        let text = func.insts.get(id).map_or_else(|| format!("<missing {id}>"), |i| inst_to_string(func, i));
        let _ = writeln!(out, "    i{n} [label={}];", quoted(&text));
    }
    for (from, to, reg) in &edges {
        let from = from.map_or_else(|| "entry".to_string(), |n| format!("i{n}"));
        let _ = writeln!(out, "    {from} -> i{to} [label={}];", quoted(reg));
    }
    out.push_str("}\n");
    out
}

/// A DOT string literal.
fn quoted(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A file name for a function's graph: the name's safe characters, cut to
/// stay within file-name limits (mangled C++ names run to hundreds of
/// characters), with a hash of the whole name when anything was changed, so
/// that two functions never share a file.
pub fn dot_file_name(function: &str, graph: Graph) -> String {
    let safe: String = function
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '$') { c } else { '_' })
        .collect();
    let suffix = match graph {
        Graph::ControlFlow => "cfg.dot",
        Graph::DefUse => "defuse.dot",
    };
    const KEEP: usize = 120;
    if safe == function && safe.len() <= KEEP && !safe.is_empty() {
        return format!("{safe}.{suffix}");
    }
    // FNV-1a: stable across runs and platforms, unlike std's hasher.
    let hash = function.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3));
    let cut: String = safe.chars().take(KEEP).collect();
    format!("{cut}-{hash:016x}.{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_are_safe_short_and_distinct() {
        assert_eq!(dot_file_name("kernel", Graph::ControlFlow), "kernel.cfg.dot");
        let long = format!("_ZN3cub{}E", "x".repeat(300));
        let name = dot_file_name(&long, Graph::DefUse);
        assert!(name.len() < 160 && name.ends_with(".defuse.dot"), "{name}");
        let odd = dot_file_name("a/b", Graph::DefUse);
        assert!(odd.starts_with("a_b-") && !odd.contains('/'), "{odd}");
        assert_ne!(dot_file_name("a/b", Graph::DefUse), dot_file_name("a_b", Graph::DefUse));
        assert_ne!(dot_file_name("..", Graph::DefUse), "...defuse.dot");
    }

    #[test]
    fn labels_are_quoted() {
        assert_eq!(quoted("a\"b\\c\u{1b}"), "\"a\\\"b\\\\c\"");
    }
}
