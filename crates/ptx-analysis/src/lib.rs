//! `ptx-analysis`: the analyses passes build on, per function.
//!
//! - [`Cfg`]: basic blocks and the control-flow graph (petgraph), with an
//!   entry and an exit node, label → block and instruction → block maps.
//! - [`DomTree`]: dominators (`petgraph::algo::dominators::simple_fast`) with
//!   constant-time dominance queries.
//! - [`DefUse`]: reaching definitions (bit-vector dataflow) and def-use
//!   chains, with the queries passes need: [`DefUse::reaching_defs`],
//!   [`DefUse::uses_of`], [`DefUse::known_constant`],
//!   [`DefUse::value_unchanged_between`], [`DefUse::is_dead`].
//! - [`Values`]: the value queries rewrites are decided with (the sole
//!   reaching definition, forwardability, known constants), on top of
//!   [`DefUse`]; passes use these rather than reaching definitions.
//! - [`bytes`]: byte lanes, what each byte of a value is made of (through
//!   `mov {lo,hi}`, `prmt`, byte shifts, masks, `bfi`, integer `cvt`), and
//!   [`prmt`], the byte-lane model of `prmt` itself.
//! - [`FunctionAnalyses`]: a lazy cache of the three, invalidated by [`Keep`].
//! - [`cfg_dot`] / [`defuse_dot`]: Graphviz output for debugging.
//!
//! Every analysis is conservative where the IR is: unknown opcodes may read
//! and write all their registers, unresolvable branches may go to any label.
//! Nothing here panics on a function the parser accepted, and nothing
//! depends on hash-map iteration order.

#![warn(missing_docs)]

mod bits;
pub mod bytes;
pub mod cache;
pub mod cfg;
pub mod defuse;
pub mod dom;
pub mod dot;
pub mod prmt;
pub mod values;

pub use bytes::{ByteSources, Lane, RegisterBytes};
pub use cache::{FunctionAnalyses, Keep};
pub use cfg::{Block, BlockData, Cfg, CfgNode, EdgeKind, InstPos};
pub use defuse::{DefSite, DefUse, DuNode, UsePos, UseSite};
pub use dom::DomTree;
pub use dot::{cfg_dot, defuse_dot};
pub use values::Values;

#[cfg(test)]
mod tests {
    /// The pass manager moves analyses between rayon threads.
    #[test]
    fn analyses_are_send() {
        fn send<T: Send>() {}
        send::<crate::FunctionAnalyses>();
        send::<crate::DefUse>();
        send::<crate::Cfg>();
        send::<crate::DomTree>();
    }
}
