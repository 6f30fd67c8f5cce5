//! A per-function cache of analyses, computed lazily and dropped according
//! to what a transformation preserved.
//!
//! The pass manager (crates/ptx-pass) owns its own `Preserves` enum; this
//! crate cannot depend on it (ptx-pass will depend on this crate), so the
//! cache takes the small mirror [`Keep`]. The cache does not watch the
//! function: whoever changes it must call [`FunctionAnalyses::invalidate`]
//! before asking again.
//!
//! `Keep::Cfg` means the shape of the graph is unchanged (no label, branch
//! or terminator changed) while instructions may have been added or removed.
//! Blocks store statement ranges and instruction lists, so the CFG itself is
//! rebuilt (linear); the dominator tree is reused, but only if the rebuilt
//! graph really has the same shape, so a pass that claims too much cannot
//! make the cache answer wrongly.

use crate::cfg::Cfg;
use crate::defuse::DefUse;
use crate::dom::DomTree;
use crate::values::Values;
use ptx_ir::Function;
use std::cell::{Cell, OnceCell};
use std::fmt;

/// What a change to a function left valid (mirrors `ptx_pass::Preserves`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// Nothing: everything is recomputed on demand.
    Nothing,
    /// The control-flow graph's shape; the dominator tree stays valid.
    Cfg,
    /// Everything (the function was not changed).
    All,
}

type Shape = (usize, Vec<(u32, u32)>);

/// Lazily computed analyses of one function. Queries take `&self`, so a
/// pass can hold the CFG, the dominator tree and the def-use chains at once;
/// [`invalidate`](Self::invalidate) takes `&mut self`, so no answer can
/// outlive the change that made it stale.
#[derive(Default)]
pub struct FunctionAnalyses {
    cfg: OnceCell<Cfg>,
    dom: OnceCell<DomTree>,
    def_use: OnceCell<DefUse>,
    /// A dominator tree kept by `Keep::Cfg`, with the shape it belongs to.
    kept_dom: Cell<Option<(Shape, DomTree)>>,
}

impl FunctionAnalyses {
    /// An empty cache.
    pub fn new() -> FunctionAnalyses {
        FunctionAnalyses::default()
    }

    /// The control-flow graph of `func`.
    pub fn cfg(&self, func: &Function) -> &Cfg {
        self.cfg.get_or_init(|| Cfg::build(func))
    }

    /// The dominator tree of `func`'s CFG.
    pub fn dominators(&self, func: &Function) -> &DomTree {
        let cfg = self.cfg(func);
        self.dom.get_or_init(|| match self.kept_dom.take() {
            Some((shape, dom)) if shape == cfg.shape() => dom,
            _ => DomTree::build(cfg),
        })
    }

    /// Reaching definitions and def-use chains of `func`.
    pub fn def_use(&self, func: &Function) -> &DefUse {
        if let Some(du) = self.def_use.get() {
            return du;
        }
        let cfg = self.cfg(func);
        let dom = self.dominators(func);
        self.def_use.get_or_init(|| DefUse::build(func, cfg, dom))
    }

    /// The value queries over `func` (the def-use chains are built, and
    /// kept here, by the first query that needs them).
    pub fn values<'a>(&'a self, func: &'a Function) -> Values<'a> {
        Values::cached(func, self)
    }

    /// Drops what a change to the function invalidated.
    pub fn invalidate(&mut self, keep: Keep) {
        match keep {
            Keep::All => {}
            Keep::Cfg => {
                self.def_use.take();
                let cfg = self.cfg.take();
                // A tree computed on an older graph is already in kept_dom
                // unless dominators() consumed it.
                if let (Some(cfg), Some(dom)) = (cfg, self.dom.take()) {
                    self.kept_dom.set(Some((cfg.shape(), dom)));
                }
            }
            Keep::Nothing => {
                self.def_use.take();
                self.cfg.take();
                self.dom.take();
                self.kept_dom.set(None);
            }
        }
    }

    /// Which analyses are currently cached: (cfg, dominators, def-use).
    pub fn cached(&self) -> (bool, bool, bool) {
        (self.cfg.get().is_some(), self.dom.get().is_some(), self.def_use.get().is_some())
    }
}

impl fmt::Debug for FunctionAnalyses {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (cfg, dom, def_use) = self.cached();
        f.debug_struct("FunctionAnalyses").field("cfg", &cfg).field("dom", &dom).field("def_use", &def_use).finish()
    }
}
