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
use ptx_ir::{Diagnostic, FuncId, Function, Module, ModuleItem, Span, Variable};
use ptx_verify::Target;
pub use rewrite::{Checkpoint, GuardChoice, Rewriter};
pub use rules::{Missed, Rule, Saving};

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
    pub(crate) fn keep(self) -> Keep {
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
    declarations: Vec<Declaration>,
    pass: &'static str,
    function: String,
}

/// A module-level declaration a function pass asks for
/// ([`FunctionContext::declare`]): a variable (a per-kernel counter array),
/// or a function without a body (the `.extern .func` prototype of a function
/// the pass calls).
#[derive(Clone, Debug)]
pub enum Declaration {
    /// A module variable.
    Variable(Variable),
    /// A function declaration (no body).
    Function(Box<Function>),
}

impl Declaration {
    /// The name it declares.
    pub fn name(&self) -> &str {
        match self {
            Declaration::Variable(v) => &v.name,
            Declaration::Function(f) => &f.name,
        }
    }

    /// As printed: two declarations of a name agree if they print the same.
    fn text(&self) -> String {
        let mut out = String::new();
        match self {
            Declaration::Variable(v) => ptx_ir::print::write_variable(v, &mut out),
            Declaration::Function(f) => ptx_ir::print::write_function(f, &mut out),
        }
        out
    }
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
            declarations: Vec::new(),
            pass,
            function: function.to_string(),
        }
    }

    /// Asks for a module-level declaration. Declarations are added to the
    /// module after every function has run, in function order, each just
    /// before the first function that asked for it (printed there, the
    /// rest of the module from its source); the same declaration asked for
    /// twice is added once, and a name the module already declares
    /// differently is an error at the function (ask
    /// [`ModuleInfo::fresh_name`] for a name that cannot clash). A pass that declares says
    /// so ([`FunctionPass::declares`]), so that its pipeline is not
    /// streamed in batches (each would add its own copy).
    pub fn declare(&mut self, declaration: Declaration) {
        self.declarations.push(declaration);
    }

    /// The declarations asked for so far, taken out of the context.
    pub fn take_declarations(&mut self) -> Vec<Declaration> {
        std::mem::take(&mut self.declarations)
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
    /// The pipeline accepts instructions of a later PTX ISA than the
    /// description's (`ptx_verify::Verifier::accepting_newer_forms`): what
    /// the `verify` pass checks with.
    pub accept_newer_forms: bool,
    /// The names the module declares (variables and functions), sorted.
    declared: Vec<String>,
}

impl ModuleInfo {
    /// Extracts the header of a module and the names it declares.
    pub fn of(module: &Module) -> ModuleInfo {
        let mut declared: Vec<String> = module
            .items
            .iter()
            .filter_map(|item| match item {
                ModuleItem::Variable(v) => Some(v.name.clone()),
                ModuleItem::Function(f) => Some(module.functions[*f].name.clone()),
                ModuleItem::Raw(_) => None,
            })
            .collect();
        declared.sort_unstable();
        declared.dedup();
        ModuleInfo {
            target: Target::of(module),
            address_size: module.address_size,
            accept_newer_forms: false,
            declared,
        }
    }

    /// True if the module declares `name` (a variable or a function).
    pub fn declares(&self, name: &str) -> bool {
        self.declared.binary_search_by(|d| d.as_str().cmp(name)).is_ok()
    }

    /// `base`, or if the module declares it, the first of `base_1`,
    /// `base_2`, ... it does not: a name for a declaration to ask for
    /// ([`FunctionContext::declare`]) that cannot clash with the module's.
    /// (Two functions asking for the same name with different declarations
    /// still clash.)
    pub fn fresh_name(&self, base: &str) -> String {
        if !self.declares(base) {
            return base.to_string();
        }
        (1..).map(|n| format!("{base}_{n}")).find(|name| !self.declares(name)).expect("some suffix is free")
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
    /// True if the pass may ask for module declarations
    /// ([`FunctionContext::declare`]): its pipeline then runs on the whole
    /// module, not streamed in batches.
    fn declares(&self) -> bool {
        false
    }
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
        .iter_mut()
        .zip(cx.analyses.per_function.iter_mut())
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|((id, func), analyses)| {
            if !func.has_body() {
                return (id, Ok(false), BTreeMap::new(), Vec::new(), Vec::new(), Vec::new());
            }
            let mut fcx = FunctionContext::new(info, analyses, name, &func.name);
            let result = pass.run_on_function(func, &mut fcx);
            let missed = fcx.take_missed();
            let declarations = fcx.take_declarations();
            let (counters, remarks) = fcx.finish();
            if matches!(result, Ok(true)) {
                // A pass that says it changed the function through nothing
                // the IR tracks (a signature field) gets a fresh print; one
                // that edited through the arenas and editors keeps the
                // source layout around its edits.
                func.note_changed();
                analyses.invalidate(keep);
            }
            (id, result, counters, remarks, missed, declarations)
        })
        .collect();
    let stats = &mut cx.stats;
    let mut changed = false;
    let mut errors = Vec::new();
    let mut declared = Vec::new();
    for (id, result, counters, remarks, mut missed, declarations) in results {
        match result {
            Ok(c) => changed |= c,
            Err(mut e) => errors.append(&mut e),
        }
        stats.absorb(counters, remarks);
        stats.missed.append(&mut missed);
        if !declarations.is_empty() {
            declared.push((id, declarations));
        }
    }
    if errors.is_empty() && !declared.is_empty() {
        match add_declarations(module, name, declared) {
            Ok(added) => changed |= added,
            Err(mut e) => errors.append(&mut e),
        }
    }
    if errors.is_empty() {
        Ok(changed)
    } else {
        Err(errors)
    }
}

/// A name the module declares: an item of it, or a declaration just added.
enum Known {
    Item(usize),
    Added(String),
}

impl Known {
    /// The declaration as printed (a function without its body).
    fn text(&self, module: &Module) -> String {
        match self {
            Known::Added(text) => text.clone(),
            Known::Item(i) => match &module.items[*i] {
                ModuleItem::Variable(v) => Declaration::Variable(v.clone()).text(),
                ModuleItem::Function(f) => {
                    let mut head = module.functions[*f].clone();
                    head.set_body(None);
                    Declaration::Function(Box::new(head)).text()
                }
                ModuleItem::Raw(r) => r.text.clone(),
            },
        }
    }
}

/// Adds what functions asked to declare (see [`FunctionContext::declare`]):
/// each new name just before the first function that asked for it, in
/// function order. Returns whether anything was added.
fn add_declarations(
    module: &mut Module,
    pass: &str,
    declared: Vec<(FuncId, Vec<Declaration>)>,
) -> Result<bool, Vec<Diagnostic>> {
    // What the module declares by name: its text is worked out only for a
    // name a function asks for again.
    let mut known: BTreeMap<String, Known> = BTreeMap::new();
    for (i, item) in module.items.iter().enumerate() {
        let name = match item {
            ModuleItem::Variable(v) => v.name.clone(),
            ModuleItem::Function(f) => module.functions[*f].name.clone(),
            ModuleItem::Raw(_) => continue,
        };
        known.entry(name).or_insert(Known::Item(i));
    }
    let mut errors = Vec::new();
    let mut before: BTreeMap<FuncId, Vec<ModuleItem>> = BTreeMap::new();
    for (asker, declarations) in declared {
        for declaration in declarations {
            let text = declaration.text();
            let existing = known.get(declaration.name()).map(|k| k.text(module));
            match existing {
                Some(existing) if existing == text => continue,
                Some(_) => {
                    let what = match declaration {
                        Declaration::Variable(_) => "variable",
                        Declaration::Function(_) => "function",
                    };
                    let msg = format!(
                        "{pass}: function {} declares the {what} '{}', which the module declares differently",
                        module.functions[asker].name,
                        declaration.name()
                    );
                    errors.push(Diagnostic::new(module.functions[asker].span, msg));
                    continue;
                }
                None => {}
            }
            known.insert(declaration.name().to_string(), Known::Added(text));
            let item = match declaration {
                Declaration::Variable(mut v) => {
                    v.span = Span::default();
                    ModuleItem::Variable(v)
                }
                Declaration::Function(mut f) => {
                    f.span = Span::default();
                    f.set_body(None);
                    ModuleItem::Function(module.functions.push(*f))
                }
            };
            before.entry(asker).or_default().push(item);
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    if before.is_empty() {
        return Ok(false);
    }
    let items = std::mem::take(&mut module.items);
    for item in items {
        if let ModuleItem::Function(f) = item {
            if let Some(mut added) = before.remove(&f) {
                module.items.append(&mut added);
            }
        }
        module.items.push(item);
    }
    Ok(true)
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
        !self.0.declares()
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
