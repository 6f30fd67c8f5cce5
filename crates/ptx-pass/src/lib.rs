//! `ptx-pass`: the pass manager.
//!
//! A [`Pass`] transforms a module or, more often, one function at a time
//! ([`FunctionPass`]); function passes run in parallel across functions with
//! rayon, and every result is gathered in function order, so output does not
//! depend on the thread count. The [`PassManager`] runs a list of passes,
//! verifies the input and then the IR after each pass when asked (naming the
//! pass that broke the IR, or none if the input was already invalid),
//! collects per-pass statistics and timings, and records optimization remarks.

#![warn(missing_docs)]

mod manager;
mod rewrite;
pub mod rules;

pub use manager::{PassManager, PassManagerOptions, PassRecord, PassRun, PipelineError, PipelineErrorKind, Snapshot};
use ptx_analysis::Keep;
pub use ptx_analysis::{FunctionAnalyses, Values};
use ptx_ir::{Diagnostic, FuncId, Function, Module, Span};
use ptx_verify::Target;
pub use rewrite::{Checkpoint, GuardChoice, Rewriter};
pub use rules::{Missed, Rule};
use std::collections::BTreeMap;

/// What a pass leaves valid when it changes a function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Preserves {
    /// Nothing: every analysis is recomputed.
    Nothing,
    /// The control-flow graph (no labels, branches or terminators changed).
    Cfg,
    /// Everything (the pass only reads, like `verify`).
    All,
}

/// A counter of a pass (`--stats`): a stable id, unique within the pass,
/// that tests (`expect-stats: id=N`) and tools key on, and what it counts.
/// Declare one constant per counter in the pass's file:
///
/// ```
/// # use ptx_pass::Counter;
/// const FOLDED: Counter = Counter::new("folded-constant", "prmt folded to a constant");
/// assert_eq!(FOLDED.to_string(), "folded-constant");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Counter {
    /// Stable id: lower case words joined by `-`.
    pub id: &'static str,
    /// What it counts, for people.
    pub description: &'static str,
}

impl Counter {
    /// A counter.
    pub const fn new(id: &'static str, description: &'static str) -> Counter {
        Counter { id, description }
    }
}

impl std::fmt::Display for Counter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id)
    }
}

/// One optimization remark: a rewrite a pass made, where, and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Remark {
    /// The pass that made it.
    pub pass: &'static str,
    /// The source location of the rewritten instruction (may be synthetic).
    pub span: Span,
    /// The function it happened in.
    pub function: String,
    /// What changed, in words.
    pub message: String,
}

impl Preserves {
    fn keep(self) -> Keep {
        match self {
            Preserves::Nothing => Keep::Nothing,
            Preserves::Cfg => Keep::Cfg,
            Preserves::All => Keep::All,
        }
    }
}

/// The analyses of every function of a module, cached across passes and
/// dropped by what each pass says it preserves.
#[derive(Debug, Default)]
pub struct Analyses {
    per_function: Vec<FunctionAnalyses>,
}

impl Analyses {
    fn fit(&mut self, module: &Module) {
        self.per_function.resize_with(module.functions.len(), FunctionAnalyses::new);
    }

    /// The analyses of one function.
    pub fn function(&mut self, id: FuncId) -> &mut FunctionAnalyses {
        let i = id.as_u32() as usize;
        if self.per_function.len() <= i {
            self.per_function.resize_with(i + 1, FunctionAnalyses::new);
        }
        &mut self.per_function[i]
    }

    /// Drops what a change to every function invalidated.
    pub fn invalidate_all(&mut self, preserves: Preserves) {
        for a in &mut self.per_function {
            a.invalidate(preserves.keep());
        }
    }
}

/// What a pass gets besides the module: counters, remarks and analyses.
pub struct PassContext<'a> {
    /// Counters and remarks of this pass.
    pub stats: PassStats,
    /// Cached analyses (shared with the passes before and after).
    pub analyses: &'a mut Analyses,
    /// The module's header as passes see it: the target they gate on
    /// (the header's, or the one [`PassManagerOptions::target`] names).
    pub module: &'a ModuleInfo,
}

/// Per-function context handed to a function pass.
pub struct FunctionContext<'a> {
    /// The module's header and globals (read-only while functions run in parallel).
    pub module: &'a ModuleInfo,
    /// The function's cached analyses; computed on first use.
    pub analyses: &'a mut FunctionAnalyses,
    stats: BTreeMap<Counter, u64>,
    remarks: Vec<Remark>,
    missed: Vec<Remark>,
    pass: &'static str,
    function: String,
}

impl<'a> FunctionContext<'a> {
    /// A context for running `pass` on a function named `function`.
    pub fn new(
        module: &'a ModuleInfo,
        analyses: &'a mut FunctionAnalyses,
        pass: &'static str,
        function: &str,
    ) -> FunctionContext<'a> {
        FunctionContext {
            module,
            analyses,
            stats: BTreeMap::new(),
            remarks: Vec::new(),
            missed: Vec::new(),
            pass,
            function: function.to_string(),
        }
    }

    /// Adds `n` to `counter` of the running pass (`--stats`).
    pub fn count(&mut self, counter: Counter, n: u64) {
        *self.stats.entry(counter).or_default() += n;
    }

    /// The counters so far.
    pub fn counters(&self) -> impl Iterator<Item = (Counter, u64)> + '_ {
        self.stats.iter().map(|(c, n)| (*c, *n))
    }

    /// Number of remarks so far.
    pub fn remark_count(&self) -> usize {
        self.remarks.len()
    }

    /// Puts counters and remarks back as they were (a rolled-back rewrite).
    pub fn restore(&mut self, counters: Vec<(Counter, u64)>, remarks: usize) {
        self.stats = counters.into_iter().collect();
        self.remarks.truncate(remarks);
    }

    /// The value queries over `func` (see [`Values`]); builds the def-use
    /// chains on first use.
    pub fn values<'f>(&'f self, func: &'f Function) -> Values<'f> {
        self.analyses.values(func)
    }

    /// Records a remark about a rewrite at `span`.
    pub fn remark(&mut self, span: Span, message: impl Into<String>) {
        self.remarks.push(Remark { pass: self.pass, span, function: self.function.clone(), message: message.into() });
    }

    /// Records a missed remark: a rewrite the pass looked at (or a whole
    /// function it skipped) at `span` and did not make, with the reason
    /// (`-Rpass-missed`). Kept apart from the remarks of rewrites made
    /// ([`PassStats::missed`]); a rollback does not take them back.
    pub fn missed(&mut self, span: Span, reason: impl Into<String>) {
        self.missed.push(Remark { pass: self.pass, span, function: self.function.clone(), message: reason.into() });
    }

    /// The missed remarks so far, taken out of the context.
    pub fn take_missed(&mut self) -> Vec<Remark> {
        std::mem::take(&mut self.missed)
    }

    /// Consumes the context, returning its counters and remarks.
    pub fn finish(self) -> (BTreeMap<Counter, u64>, Vec<Remark>) {
        (self.stats, self.remarks)
    }
}

/// What a function pass can see of the module while it runs.
#[derive(Clone, Debug, Default)]
pub struct ModuleInfo {
    /// The `.version` and `.target` passes gate on (the header's, or the one
    /// `--target` names): ask it whether an instruction may be written
    /// (`target.allows(func, &inst)`) instead of comparing versions.
    pub target: Target,
    /// `.address_size`.
    pub address_size: Option<u32>,
}

impl ModuleInfo {
    /// Extracts the header of a module.
    pub fn of(module: &Module) -> ModuleInfo {
        ModuleInfo { target: Target::of(module), address_size: module.address_size }
    }
}

/// A transformation (or check) over a whole module.
pub trait Pass: Send + Sync {
    /// The name used on the command line (`--passes=NAME`).
    fn name(&self) -> &'static str;
    /// What the pass preserves when it changes something.
    fn preserves(&self) -> Preserves {
        Preserves::Nothing
    }
    /// Runs the pass; returns whether anything changed.
    fn run(&self, module: &mut Module, cx: &mut PassContext<'_>) -> Result<bool, Vec<Diagnostic>>;
    /// True if the pass drops stale analyses itself (per function); otherwise
    /// the manager drops, for every function, what the pass does not preserve.
    fn invalidates_analyses(&self) -> bool {
        false
    }
    /// True if the pass reads and changes one function at a time and sees
    /// nothing else of the module than its header ([`ModuleInfo`]): it then
    /// gives the same result on a module cut into batches of functions
    /// (`ptx_opt::optimize` streams such pipelines).
    fn function_local(&self) -> bool {
        false
    }
}

/// A pass that works on one function at a time, independent of the others.
pub trait FunctionPass: Send + Sync {
    /// The name used on the command line.
    fn name(&self) -> &'static str;
    /// What the pass preserves when it changes something.
    fn preserves(&self) -> Preserves {
        Preserves::Nothing
    }
    /// Runs on one function; returns whether it changed.
    fn run_on_function(&self, func: &mut Function, cx: &mut FunctionContext<'_>) -> Result<bool, Vec<Diagnostic>>;
}

/// Counters and remarks gathered while a pass runs.
#[derive(Clone, Debug, Default)]
pub struct PassStats {
    /// Counters (`--stats`), by id.
    pub counters: BTreeMap<Counter, u64>,
    /// Remarks, in function order.
    pub remarks: Vec<Remark>,
    /// Missed remarks (rewrites not made, and why), in function order.
    pub missed: Vec<Remark>,
}

impl PassStats {
    /// The value of the counter with id `id` (None if it never counted).
    pub fn counter(&self, id: &str) -> Option<u64> {
        self.counters.iter().find(|(c, _)| c.id == id).map(|(_, n)| *n)
    }

    /// Adds what the same pass gathered on later functions: counters are
    /// summed, remarks follow.
    pub fn absorb(&mut self, counters: BTreeMap<Counter, u64>, mut remarks: Vec<Remark>) {
        for (name, n) in counters {
            *self.counters.entry(name).or_default() += n;
        }
        self.remarks.append(&mut remarks);
    }
}

/// Runs a [`FunctionPass`] over every function with a body, in parallel, and
/// merges statistics and diagnostics in function order.
pub fn run_function_pass<P: FunctionPass + ?Sized>(
    pass: &P,
    module: &mut Module,
    cx: &mut PassContext<'_>,
) -> Result<bool, Vec<Diagnostic>> {
    use rayon::prelude::*;
    let info = cx.module;
    let name = pass.name();
    let keep = pass.preserves().keep();
    cx.analyses.fit(module);
    let results: Vec<_> = module
        .functions
        .values_mut()
        .zip(cx.analyses.per_function.iter_mut())
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|(func, analyses)| {
            if !func.has_body() {
                return (Ok(false), BTreeMap::new(), Vec::new(), Vec::new());
            }
            let mut fcx = FunctionContext::new(info, analyses, name, &func.name);
            let result = pass.run_on_function(func, &mut fcx);
            let missed = fcx.take_missed();
            let (counters, remarks) = fcx.finish();
            if matches!(result, Ok(true)) {
                func.mark_changed();
                analyses.invalidate(keep);
            }
            (result, counters, remarks, missed)
        })
        .collect();
    let stats = &mut cx.stats;
    let mut changed = false;
    let mut errors = Vec::new();
    for (result, counters, remarks, mut missed) in results {
        match result {
            Ok(c) => changed |= c,
            Err(mut e) => errors.append(&mut e),
        }
        stats.absorb(counters, remarks);
        stats.missed.append(&mut missed);
    }
    if errors.is_empty() {
        Ok(changed)
    } else {
        Err(errors)
    }
}

/// Adapts a [`FunctionPass`] to [`Pass`].
pub struct PerFunction<P>(pub P);

impl<P: FunctionPass> Pass for PerFunction<P> {
    fn name(&self) -> &'static str {
        self.0.name()
    }
    fn preserves(&self) -> Preserves {
        self.0.preserves()
    }
    fn run(&self, module: &mut Module, cx: &mut PassContext<'_>) -> Result<bool, Vec<Diagnostic>> {
        run_function_pass(&self.0, module, cx)
    }
    fn invalidates_analyses(&self) -> bool {
        true
    }
    fn function_local(&self) -> bool {
        true
    }
}

/// Makes a pass from the options of a pipeline text (`NAME<OPTIONS>`), or
/// says what is wrong with them.
pub type CreateWithOptions = fn(&str) -> Result<Box<dyn Pass>, String>;

/// A registry entry: one line per pass, which also drives `--help` and `--list-passes`.
#[derive(Clone, Copy)]
pub struct PassInfo {
    /// Command-line name.
    pub name: &'static str,
    /// One-line description.
    pub description: &'static str,
    /// Makes the pass.
    pub create: fn() -> Box<dyn Pass>,
    /// The options the pass takes in a pipeline text (`NAME<OPTIONS>`, as
    /// LLVM's `-passes=`), in words for `--help`; empty if it takes none.
    pub options: &'static str,
    /// Makes the pass with the options of a pipeline text (what is between
    /// `<` and `>`, options separated by `;`), or says what is wrong with
    /// them. None: the pass takes no options.
    pub create_with: Option<CreateWithOptions>,
}
