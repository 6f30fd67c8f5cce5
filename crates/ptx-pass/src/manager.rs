//! Running a pipeline of passes.

use crate::{Analyses, ModuleInfo, Pass, PassContext, PassStats};
use ptx_ir::{Diagnostic, Module};
use ptx_verify::{Target, Verifier};
use std::time::{Duration, Instant};

/// Switches users of `opt` / `wasm-opt` expect.
#[derive(Clone, Debug, Default)]
pub struct PassManagerOptions {
    /// Run the verifier on the input before the first pass, even when there
    /// is no pass: an invalid input is reported as such, blaming no pass
    /// (`opt` and `wasm-opt` validate their input by default too).
    pub verify_input: bool,
    /// Run the verifier on the input, and after every pass, naming the pass
    /// that broke the IR.
    pub verify_each: bool,
    /// Print the module after the passes with these names.
    pub print_after: Vec<String>,
    /// Print the module after every pass.
    pub print_after_all: bool,
    /// The `sm_` target (`sm_90a`) passes gate on instead of the header's,
    /// with the module's `.version` (ptx-opt's `--target`): what they ask
    /// of [`ModuleInfo::target`]. The verifier still checks the module
    /// against its header, which is what ptxas reads.
    pub target: Option<String>,
}

/// The module as text after a pass (for `--print-after`).
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// The pass that just ran.
    pub after: &'static str,
    /// The printed module.
    pub text: String,
}

/// What one pass did.
#[derive(Clone, Debug)]
pub struct PassRecord {
    /// The pass.
    pub name: &'static str,
    /// Whether it changed the module.
    pub changed: bool,
    /// Wall time.
    pub time: Duration,
    /// Counters and remarks.
    pub stats: PassStats,
}

/// The outcome of a pipeline run.
#[derive(Clone, Debug, Default)]
pub struct PassRun {
    /// One record per pass, in order.
    pub passes: Vec<PassRecord>,
    /// Printed modules requested by `print_after`.
    pub snapshots: Vec<Snapshot>,
}

impl PassRun {
    /// Adds the run of the same pipeline over the next part of a module (a
    /// streamed pipeline): per pass, `changed` and times add up, counters
    /// are summed and remarks follow in order, as one run over the whole
    /// module gives them.
    pub fn absorb(&mut self, next: PassRun) {
        if self.passes.is_empty() {
            *self = next;
            return;
        }
        for (mine, theirs) in self.passes.iter_mut().zip(next.passes) {
            mine.changed |= theirs.changed;
            mine.time += theirs.time;
            let mut missed = theirs.stats.missed;
            mine.stats.absorb(theirs.stats.counters, theirs.stats.remarks);
            mine.stats.missed.append(&mut missed);
        }
        self.snapshots.extend(next.snapshots);
    }
}

/// Why a pipeline stopped.
#[derive(Clone, Debug)]
pub struct PipelineError {
    /// What failed.
    pub kind: PipelineErrorKind,
    /// The diagnostics.
    pub diagnostics: Vec<Diagnostic>,
}

/// What stopped a pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PipelineErrorKind {
    /// This pass reported errors (e.g. `verify` found invalid code).
    Pass(&'static str),
    /// With `verify_each`, the verifier rejected the IR this pass produced
    /// (a bug in that pass).
    BrokeIr(&'static str),
    /// The verifier rejected the input, before the first pass ran: no pass
    /// is to blame.
    InvalidInput,
}

/// Runs passes in order.
pub struct PassManager {
    passes: Vec<Box<dyn Pass>>,
    verifier: Option<Verifier>,
    options: PassManagerOptions,
}

impl PassManager {
    /// A pass manager over `passes`. `verifier` checks the input
    /// (`verify_input`) and the module after each pass (`verify_each`).
    pub fn new(passes: Vec<Box<dyn Pass>>, verifier: Option<Verifier>, options: PassManagerOptions) -> Self {
        PassManager { passes, verifier, options }
    }

    /// Runs every pass on `module`.
    ///
    /// With `verify_input` or `verify_each` (and a verifier), the input is
    /// verified first, pass or no pass, so that invalid input is reported as
    /// [`PipelineErrorKind::InvalidInput`] (with the verifier's diagnostics,
    /// as `--passes=verify` gives them) instead of being blamed on the first
    /// pass.
    pub fn run(&self, module: &mut Module) -> Result<PassRun, PipelineError> {
        let mut run = PassRun::default();
        let mut analyses = Analyses::default();
        if self.options.verify_input || self.options.verify_each {
            if let Some(verifier) = &self.verifier {
                verifier
                    .verify(module)
                    .map_err(|diagnostics| PipelineError { kind: PipelineErrorKind::InvalidInput, diagnostics })?;
            }
        }
        for pass in &self.passes {
            // Asked again before each pass: one may have declared names.
            let mut info = ModuleInfo::of(module);
            if let Some(sm) = &self.options.target {
                info.target = Target::retargeted(module, sm);
            }
            info.accept_newer_forms = self.verifier.as_ref().is_some_and(|v| v.accepts_newer_forms());
            let name = pass.name();
            let mut cx = PassContext { stats: PassStats::default(), analyses: &mut analyses, module: &info };
            let start = Instant::now();
            let changed = pass
                .run(module, &mut cx)
                .map_err(|diagnostics| PipelineError { kind: PipelineErrorKind::Pass(name), diagnostics })?;
            let time = start.elapsed();
            let stats = cx.stats;
            if changed && !pass.invalidates_analyses() {
                analyses.invalidate_all(pass.preserves());
            }
            run.passes.push(PassRecord { name, changed, time, stats });
            if self.options.verify_each {
                if let Some(verifier) = &self.verifier {
                    verifier
                        .verify(module)
                        .map_err(|diagnostics| PipelineError { kind: PipelineErrorKind::BrokeIr(name), diagnostics })?;
                }
            }
            if self.options.print_after_all || self.options.print_after.iter().any(|p| p == name) {
                run.snapshots.push(Snapshot { after: name, text: ptx_ir::print::print_module(module) });
            }
        }
        Ok(run)
    }
}
