//! `ptx-opt`: the library facade. Parse PTX, run a pipeline, print.
//!
//! Everything is in memory and explicit: no environment variables, no global
//! state, nothing printed. Errors are data ([`Error`]) carrying byte spans;
//! [`LineIndex`] turns them into line and column. This is the crate a JIT
//! compiler or a build tool links; `ptx-opt-capi` wraps it for C and C++.
//!
//! ```
//! let ptx = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n";
//! let out = ptx_opt::optimize(ptx, &ptx_opt::Options::default()).unwrap();
//! assert!(out.ptx.contains(".entry k"));
//! ```
//!
//! The three steps can also be taken one at a time, keeping the [`Module`]
//! in between (to inspect it, or to run several pipelines on it):
//!
//! ```
//! # let ptx = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n";
//! let mut module = ptx_opt::parse(ptx)?;
//! let run = ptx_opt::run_passes(&mut module, &ptx_opt::Options::with_level(2))?;
//! let text = ptx_opt::print(&module);
//! // Nothing to rewrite in this kernel: the output is the input, byte for byte.
//! assert_eq!(text, ptx);
//! assert!(run.passes.iter().all(|p| !p.changed));
//! # Ok::<(), ptx_opt::Error>(())
//! ```
//!
//! Every public type is `Send + Sync` (checked at compile time below), so a
//! service may share [`Options`] between threads and optimize one module per
//! thread; calls share no mutable state.

#![deny(missing_docs)]

pub use dot::{dot_file_name, function_dots, Graph};
pub use output_text::OutputText;
pub use pipeline::parse_pipeline;
pub use ptx_analysis as analysis;
pub use ptx_ir as ir;
pub use ptx_ir::{Diagnostic, Module, Note, Span};
pub use render::{render_error, RenderOptions, DEFAULT_ERROR_LIMIT};
pub use report::{
    count_blocks_map_json, demangle, missed_remarks_json_lines, missed_remarks_text, remarks_json_lines, remarks_text,
    stats_json,
};

mod dot;
mod output_text;
mod pipeline;
mod render;
mod report;
pub mod version;
pub use ptx_pass as pass;
pub use ptx_pass::{Counter, PassRecord, PassRun, PassStats, Remark, Snapshot};
use ptx_pass::{FunctionPass, Pass};
use std::sync::Arc;

/// Everything a pass written outside this crate needs, in one import: the
/// pass traits, the rewriter, the value queries and the IR vocabulary.
/// A crate that depends on `ptx-opt` alone can write a pass and run it
/// with [`Options::with_function_pass`]; see `examples/custom-pass/` and
/// "How a pass is written" in ARCHITECTURE.md.
///
/// Every instruction family has a typed view and a builder ([`prelude::family`]):
///
/// ```
/// use ptx_opt::prelude::*;
/// let source = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n\
///               .reg .b64 %rd<4>;\nld.param.u64 %rd1, [p];\natom.global.add.u64 %rd2, [%rd1+8], 1;\nret;\n}\n";
/// let module = ptx_opt::parse(source)?;
/// let func = module.functions.values().next().unwrap();
/// let id = func.inst_ids().find(|&id| func.insts[id].opcode == Opcode::Atom).unwrap();
/// let atom = family::Atom::of(&func.insts[id]).expect("a form of atom");
/// assert_eq!((atom.space(), atom.op(), atom.ty()), (Some(Word::GLOBAL), Some(Word::ADD), Some(ScalarType::U64)));
/// assert_eq!(atom.a().map(|a| a.offset), Some(8));
///
/// // A new one from the generated builder: atom.global.add.u64 %rd2, [%rd1+16], %rd2.
/// let (Some(&Operand::Reg(rd2)), Some(&AddrBase::Reg(rd1))) = (atom.d(), atom.a().map(|a| &a.base)) else { panic!() };
/// let built: Inst = Inst::atom(Word::ADD, ScalarType::U64, rd2, Address::reg(rd1, 16), rd2).global().into();
/// assert_eq!(ptx_opt::ir::print::inst_to_string(func, &built), "atom.global.add.u64 %rd2, [%rd1+16], %rd2;");
/// # Ok::<(), ptx_opt::Error>(())
/// ```
pub mod prelude {
    pub use ptx_analysis::{Block, BlockData, Cfg, DefUse, DomTree, FunctionAnalyses, Values};
    /// A typed view (`family::Atom::of(&inst)`) and a builder (`Inst::atom(..)`,
    /// `family::AtomBuilder`) for every instruction family, generated from the
    /// description of the instruction set.
    #[doc(inline)]
    pub use ptx_ir::family;
    pub use ptx_ir::forms::FormView;
    pub use ptx_ir::{
        Access, AddrBase, Address, DeclWord, Diagnostic, Effects, FuncId, Function, FunctionKind, Guard, Inst, InstId,
        IntImm, Modifier, Module, ModuleItem, Name, Opcode, Operand, RegId, RegType, Rounding, ScalarType, Span,
        StateSpace, Stmt, TypeKind, Variable, Word,
    };
    pub use ptx_pass::{
        Checkpoint, Counter, Declaration, FunctionContext, FunctionPass, GuardChoice, Missed, ModuleInfo, Pass,
        PassContext, Preserves, Rewriter, Rule, Saving,
    };
}

/// One step of a pipeline: a registered pass, by name, or a pass object
/// made outside the registry (a JIT's own pass).
///
/// ```
/// use ptx_opt::PassSpec;
/// let named: PassSpec = "fold-prmt".into();
/// assert_eq!(named, "fold-prmt");
/// assert_eq!(named.name(), "fold-prmt");
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub enum PassSpec {
    /// A registered pass ([`passes`]).
    Named(String),
    /// A pass object; it runs exactly as a registered pass does.
    Object(Arc<dyn Pass>),
}

impl PassSpec {
    /// A [`FunctionPass`] as a pipeline step. It runs one function at a
    /// time, in parallel, and is streamed with the rest of the pipeline.
    pub fn function_pass(pass: impl FunctionPass + 'static) -> PassSpec {
        PassSpec::Object(Arc::new(ptx_pass::PerFunction(pass)))
    }

    /// A module [`Pass`] as a pipeline step.
    pub fn module_pass(pass: impl Pass + 'static) -> PassSpec {
        PassSpec::Object(Arc::new(pass))
    }

    /// The pass's name (its command-line name when registered).
    pub fn name(&self) -> &str {
        match self {
            PassSpec::Named(n) => n,
            PassSpec::Object(p) => p.name(),
        }
    }
}

impl std::fmt::Debug for PassSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PassSpec::Named(n) => write!(f, "{n:?}"),
            PassSpec::Object(p) => write!(f, "<pass object {:?}>", p.name()),
        }
    }
}

impl From<&str> for PassSpec {
    fn from(name: &str) -> PassSpec {
        PassSpec::Named(name.to_string())
    }
}

impl From<String> for PassSpec {
    fn from(name: String) -> PassSpec {
        PassSpec::Named(name)
    }
}

impl From<&String> for PassSpec {
    fn from(name: &String) -> PassSpec {
        PassSpec::Named(name.clone())
    }
}

impl PartialEq<&str> for PassSpec {
    fn eq(&self, other: &&str) -> bool {
        matches!(self, PassSpec::Named(n) if n == other)
    }
}

impl PartialEq for PassSpec {
    fn eq(&self, other: &PassSpec) -> bool {
        match (self, other) {
            (PassSpec::Named(a), PassSpec::Named(b)) => a == b,
            (PassSpec::Object(a), PassSpec::Object(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

/// A shared pass object as the pass manager's `Box<dyn Pass>`.
struct SharedPass(Arc<dyn Pass>);

impl Pass for SharedPass {
    fn name(&self) -> &'static str {
        self.0.name()
    }
    fn preserves(&self) -> ptx_pass::Preserves {
        self.0.preserves()
    }
    fn run(&self, module: &mut Module, cx: &mut ptx_pass::PassContext<'_>) -> Result<bool, Vec<Diagnostic>> {
        self.0.run(module, cx)
    }
    fn invalidates_analyses(&self) -> bool {
        self.0.invalidates_analyses()
    }
    fn function_local(&self) -> bool {
        self.0.function_local()
    }
}

/// What to run: the passes, in order, and how.
///
/// The default runs no pass: the module is parsed and printed back, byte for
/// byte. Build one from an optimization level or from a list of pass names
/// (see [`passes`] for the registry), and add pass objects of your own with
/// [`Options::with_function_pass`]; the fields are public, so the other
/// switches are set directly.
///
/// ```
/// use ptx_opt::Options;
///
/// // The default pipeline of -O2, as the command line's `-O2`.
/// let o2 = Options::with_level(2);
/// assert_eq!(o2.passes, ptx_opt::pipeline(2));
///
/// // Named passes, as `--passes=legalize-relaxed --verify-each --threads=4`.
/// let options = Options { verify_each: true, threads: Some(4), ..Options::with_passes(["legalize-relaxed"]) };
/// assert_eq!(options.passes, ["legalize-relaxed"]);
/// ```
///
/// A name that is not registered is reported when the passes run, as
/// [`ErrorKind::UnknownPass`]:
///
/// ```
/// # let ptx = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n";
/// let err = ptx_opt::optimize(ptx, &ptx_opt::Options::with_passes(["no-such-pass"])).unwrap_err();
/// assert_eq!(err.kind, ptx_opt::ErrorKind::UnknownPass("no-such-pass".into()));
/// ```
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The passes, in order (empty: parse and print only).
    pub passes: Vec<PassSpec>,
    /// Do not verify the input. By default every run, with passes or
    /// without, checks its input with the verifier before anything else
    /// ([`ErrorKind::InvalidInput`] if it is invalid), as `opt` and
    /// `wasm-opt` do; this skips that check (`--no-verify`), leaving only
    /// what the parser rejects.
    pub skip_verify: bool,
    /// In a module whose `.version` is newer than the PTX ISA text of the
    /// description (9.1), accept an instruction with a word that text does
    /// not have (`--accept-newer-forms`): the parser makes it an unknown
    /// instruction (kept as written; every register it names may be read
    /// and written; never deleted) and ptxas judges its form. By default the
    /// verifier reports the word, as ptxas reports a word it does not know.
    pub accept_newer_forms: bool,
    /// Verify the input before the first pass ([`ErrorKind::InvalidInput`]
    /// if it is invalid) and the IR after each pass, naming the pass that
    /// broke it ([`ErrorKind::BrokeIr`]).
    pub verify_each: bool,
    /// Keep the printed module after these passes.
    pub print_after: Vec<String>,
    /// Keep the printed module after every pass.
    pub print_after_all: bool,
    /// Worker threads for function passes (None: rayon's default; at most
    /// [`MAX_THREADS`]).
    pub threads: Option<usize>,
    /// Print everything afresh (one statement per line, comments dropped)
    /// instead of keeping the text of unchanged parts.
    pub reformat: bool,
    /// The target the passes gate on (`sm_90`, `sm_90a`: `sm_` and a
    /// number, `a` or `f` after it), instead of the module's `.target`
    /// (`--target`). The module's header stays as written unless
    /// [`Options::set_target`]; the verifier checks the input against the
    /// header, and the output too: an instruction the header does not allow
    /// is [`ErrorKind::NeedsTarget`], never an output ptxas would reject.
    /// [`ErrorKind::InvalidTarget`] for a name of another form. Such a run
    /// streams (each batch's output checked against the header) unless
    /// [`Options::set_target`].
    pub target: Option<String>,
    /// Also write [`Options::target`] into the module's `.target` directive
    /// (its `sm_` entry; `--set-target`), so that the output declares what
    /// the passes assumed (ptxas rejects an instruction its `.target` does
    /// not allow); the input is then verified against it. The printed
    /// module differs from its source in that line alone ([`print()`]). Such
    /// a run is not streamed.
    pub set_target: bool,
    /// The `.version` to write (`--ptx-version`, `--cuda`): after the
    /// passes, the module is checked at it and its header's `.version` line
    /// says it (the only line that changes for that); where the module needs
    /// more, `lower-ptx-version` runs last and rewrites what has an exactly
    /// equivalent older form. [`ErrorKind::NeedsVersion`] if the module is
    /// still not valid at it, each diagnostic at an instruction that needs
    /// more. Streamed runs stay streamed.
    ///
    /// ```
    /// use ptx_opt::version::PtxVersion;
    /// let ptx = ".version 9.5\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n";
    /// let options = ptx_opt::Options { ptx_version: PtxVersion::for_cuda("12.4"), ..Default::default() };
    /// assert!(ptx_opt::optimize(ptx, &options).unwrap().ptx.starts_with(".version 8.4\n"));
    /// let options = ptx_opt::Options { ptx_version: PtxVersion::parse("min"), ..Default::default() };
    /// assert!(ptx_opt::optimize(ptx, &options).unwrap().ptx.starts_with(".version 7.0\n"));
    /// ```
    pub ptx_version: Option<version::PtxVersion>,
}

impl Options {
    /// Options running the named passes.
    pub fn with_passes<I: IntoIterator<Item = S>, S: Into<PassSpec>>(passes: I) -> Options {
        Options { passes: passes.into_iter().map(Into::into).collect(), ..Options::default() }
    }

    /// Adds a function pass of your own at the end of the pipeline. It gets
    /// what a registered pass gets: threads, streaming (function passes only
    /// see their function), verify-each, print-after (by its name),
    /// counters, remarks and errors.
    ///
    /// ```
    /// use ptx_opt::prelude::*;
    ///
    /// /// Counts `ret` instructions; changes nothing.
    /// struct CountRets;
    /// const RETS: Counter = Counter::new("rets", "ret instructions seen");
    ///
    /// impl FunctionPass for CountRets {
    ///     fn name(&self) -> &'static str {
    ///         "count-rets"
    ///     }
    ///     fn run_on_function(&self, func: &mut Function, cx: &mut FunctionContext<'_>) -> Result<bool, Vec<Diagnostic>> {
    ///         let n = func.inst_ids().filter(|&i| func.insts[i].opcode == Opcode::Ret).count();
    ///         cx.count(RETS, n as u64);
    ///         Ok(false)
    ///     }
    /// }
    ///
    /// # let ptx = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n";
    /// let options = ptx_opt::Options::with_level(2).with_function_pass(CountRets);
    /// let out = ptx_opt::optimize(ptx, &options)?;
    /// let mine = out.run.passes.last().unwrap();
    /// assert_eq!((mine.name, mine.stats.counter("rets")), ("count-rets", Some(1)));
    /// # Ok::<(), ptx_opt::Error>(())
    /// ```
    pub fn with_function_pass(mut self, pass: impl FunctionPass + 'static) -> Options {
        self.passes.push(PassSpec::function_pass(pass));
        self
    }

    /// Options running the steps of a pipeline text ([`parse_pipeline`]:
    /// `"legalize-relaxed,default<O2>"`, `"fold-byte-gathers<min-saving=1>"`).
    pub fn with_pipeline(text: &str) -> Result<Options, Error> {
        Ok(Options { passes: parse_pipeline(text)?, ..Options::default() })
    }

    /// These options with the passes gating on `target` ([`Options::target`]).
    pub fn with_target(self, target: impl Into<String>) -> Options {
        Options { target: Some(target.into()), ..self }
    }

    /// Adds a module pass of your own at the end of the pipeline.
    pub fn with_module_pass(mut self, pass: impl Pass + 'static) -> Options {
        self.passes.push(PassSpec::module_pass(pass));
        self
    }

    /// Options running the default pipeline of an optimization level (0 to
    /// [`MAX_LEVEL`]).
    ///
    /// A level that does not exist gives options whose every run fails with
    /// [`ErrorKind::UnknownLevel`] (their one step is named `-O<level>`,
    /// which no pass is called); [`Options::try_with_level`] reports it at
    /// once instead.
    ///
    /// ```
    /// # let ptx = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n";
    /// let err = ptx_opt::optimize(ptx, &ptx_opt::Options::with_level(5)).unwrap_err();
    /// assert_eq!(err.kind, ptx_opt::ErrorKind::UnknownLevel(5));
    /// assert!(ptx_opt::Options::try_with_level(3).is_err());
    /// ```
    pub fn with_level(level: u8) -> Options {
        match Options::try_with_level(level) {
            Ok(options) => options,
            Err(_) => Options::with_passes([format!("-O{level}")]),
        }
    }

    /// [`Options::with_level`], or [`ErrorKind::UnknownLevel`] for a level
    /// that does not exist.
    pub fn try_with_level(level: u8) -> Result<Options, Error> {
        if level > MAX_LEVEL {
            return Err(Error { kind: ErrorKind::UnknownLevel(level), diagnostics: Vec::new() });
        }
        Ok(Options::with_passes(ptx_passes::pipeline(level).iter().copied()))
    }
}

/// The result of [`optimize`]: the printed module and what each pass did.
///
/// `run` holds one [`PassRecord`] per pass, with its counters (the
/// command line's `--stats`), wall time and [`Remark`]s: one per rewrite, with
/// the span of the rewritten instruction in the input (a synthesized span,
/// `0..0`, for code that has no place in it).
///
/// ```
/// let ptx = "\
/// .version 8.0
/// .target sm_80
/// .address_size 64
/// .visible .entry k(.param .u64 p)
/// {
/// \t.reg .b32 %r<2>;
/// \t.reg .b64 %rd<2>;
/// \tld.param.u64 %rd1, [p];
/// \tld.global.u8 %r1, [%rd1];
/// \tst.global.u32 [%rd1], %r1;
/// \tret;
/// }
/// ";
/// let out = ptx_opt::optimize(ptx, &ptx_opt::Options::with_passes(["legalize-relaxed"]))?;
/// // The 8-bit load into a 32-bit register now goes through an explicit cvt.
/// assert!(out.ptx.contains("cvt."));
/// let record = &out.run.passes[0];
/// assert!(record.changed);
/// let remark = &record.stats.remarks[0];
/// let line_index = ptx_opt::LineIndex::new(ptx);
/// assert_eq!(line_index.line_col(ptx, remark.span.start as usize), (9, 2));
/// assert_eq!(remark.function, "k");
/// # Ok::<(), ptx_opt::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Output {
    /// The printed module.
    pub ptx: String,
    /// What each pass did.
    pub run: PassRun,
}

/// What went wrong. New kinds may be added: match with a `_` arm.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The input is not valid PTX.
    Parse,
    /// A pass name is not registered.
    UnknownPass(String),
    /// A pass reported errors (e.g. `verify` found invalid code).
    Pass(String),
    /// The verifier rejected the output of this pass: a bug in the pass.
    BrokeIr(String),
    /// The verifier rejected the input before the first pass ran (the
    /// diagnostics are those of the `verify` pass); see
    /// [`Options::skip_verify`].
    InvalidInput,
    /// The thread pool could not be created.
    Threads(String),
    /// An optimization level that has no pipeline ([`Options::with_level`]).
    UnknownLevel(u8),
    /// A pipeline text that does not parse, or options a pass does not
    /// take ([`parse_pipeline`]); the text says what is wrong.
    InvalidPipeline(String),
    /// A target that is not `sm_` and a number ([`Options::target`]).
    InvalidTarget(String),
    /// The passes, gating on [`Options::target`], wrote instructions the
    /// module's `.target` (given here) does not allow; the diagnostics are
    /// the verifier's. [`Options::set_target`] writes the target into the
    /// header.
    NeedsTarget(String),
    /// The module, after the passes, is not valid PTX at the `.version`
    /// [`Options::ptx_version`] asks for (given here): each diagnostic is at
    /// an instruction (or the `.target`) that needs more, naming what it
    /// needs.
    NeedsVersion(String),
}

/// An error with its diagnostics: data, never printed by the library.
///
/// Each [`Diagnostic`] carries a byte [`Span`] into the input and a message;
/// [`LineIndex`] turns the span into the line and column a person (or an
/// editor) wants. `Display` gives a one-line summary.
///
/// ```
/// let ptx = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\t.reg .b32 %r<3>;\n\tadd.s32 %r1, , %r2;\n}\n";
/// let err = ptx_opt::parse(ptx).unwrap_err();
/// assert_eq!(err.kind, ptx_opt::ErrorKind::Parse);
/// let index = ptx_opt::LineIndex::new(ptx);
/// let rendered: Vec<String> = err
///     .diagnostics
///     .iter()
///     .map(|d| {
///         let (line, col) = index.line_col(ptx, d.span.start as usize);
///         // The format of gcc and clang: `FILE:LINE:COL: error: MESSAGE`.
///         format!("kernel.ptx:{line}:{col}: error: {}", d.message)
///     })
///     .collect();
/// assert_eq!(rendered, ["kernel.ptx:7:15: error: expected an operand, found ','"]);
/// assert_eq!(index.line_text(ptx, 7), "\tadd.s32 %r1, , %r2;");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// The kind of failure.
    pub kind: ErrorKind,
    /// Located diagnostics (may be empty for usage errors).
    pub diagnostics: Vec<Diagnostic>,
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            ErrorKind::Parse => write!(f, "invalid PTX")?,
            ErrorKind::UnknownPass(p) => write!(f, "unknown pass '{p}'")?,
            ErrorKind::Pass(p) => write!(f, "pass '{p}' failed")?,
            ErrorKind::BrokeIr(p) => write!(f, "pass '{p}' produced invalid PTX")?,
            ErrorKind::InvalidInput => write!(f, "invalid input (rejected by the verifier)")?,
            ErrorKind::Threads(e) => write!(f, "cannot create thread pool: {e}")?,
            ErrorKind::UnknownLevel(l) => write!(f, "no optimization level {l} (levels are 0 to {MAX_LEVEL})")?,
            ErrorKind::InvalidPipeline(e) => write!(f, "invalid pipeline: {e}")?,
            ErrorKind::NeedsTarget(t) => write!(
                f,
                "the passes wrote what '.target {t}' does not allow (they gated on another target: set it in the output with --set-target)"
            )?,
            ErrorKind::InvalidTarget(t) => {
                write!(f, "invalid target '{t}' (expected sm_ and a number, as sm_80 or sm_90a)")?
            }
            ErrorKind::NeedsVersion(v) => write!(f, "the module cannot be written as PTX {v}")?,
        }
        if let Some(d) = self.diagnostics.first() {
            write!(f, ": {}", d.message)?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

/// Parses PTX text into a module. The module keeps a copy of the text (the
/// printer writes what no pass touched from it); [`parse_shared`] keeps the
/// caller's text instead.
pub fn parse(source: &str) -> Result<Module, Error> {
    ptx_parse::parse(source).map_err(|diagnostics| Error { kind: ErrorKind::Parse, diagnostics })
}

/// [`parse`] for a caller that holds its text in an `Arc`: the module shares
/// it, so the text is in memory once (a JIT keeping modules alive pays for
/// its text once, not twice).
pub fn parse_shared(source: Arc<str>) -> Result<Module, Error> {
    ptx_parse::parse_shared(source).map_err(|diagnostics| Error { kind: ErrorKind::Parse, diagnostics })
}

/// Prints a module as PTX.
///
/// A module printed from its source keeps the source's text, except for
/// what changed: functions, and a `.target` set since (as
/// [`Options::set_target`] does) or a `.version` (as `--ptx-version`
/// does), which rewrites that line alone.
pub fn print(module: &Module) -> String {
    let mut text = ptx_ir::print::print_module(module);
    if module.source.is_some() {
        if let Some(retargeted) = pipeline::retarget_text(&text, &module.target) {
            text = retargeted;
        }
        if let Some(reversioned) = version::reversion_text(&text, module.version) {
            text = reversioned;
        }
    }
    text
}

/// A registered pass: name and one-line description.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct PassDescription {
    /// Command-line name.
    pub name: &'static str,
    /// One-line description.
    pub description: &'static str,
    /// The options it takes in a pipeline text (`NAME<OPTIONS>`), in
    /// words; empty if none.
    pub options: &'static str,
}

/// Every registered pass, alphabetically.
pub fn passes() -> Vec<PassDescription> {
    ptx_passes::REGISTRY
        .iter()
        .map(|p| PassDescription { name: p.name, description: p.description, options: p.options })
        .collect()
}

/// The highest optimization level; levels are 0 to this.
pub const MAX_LEVEL: u8 = 2;

/// The default pipeline of an optimization level (0 to [`MAX_LEVEL`]; a
/// higher level gives the pipeline of [`MAX_LEVEL`], [`Options::with_level`]
/// refuses it).
pub fn pipeline(level: u8) -> &'static [&'static str] {
    ptx_passes::pipeline(level)
}

/// Runs the passes of `options` on a parsed module.
pub fn run_passes(module: &mut Module, options: &Options) -> Result<PassRun, Error> {
    set_module_target(module, options)?;
    run_passes_as_written(module, options)
}

/// Writes [`Options::target`] into `module.target` when
/// [`Options::set_target`] asks.
fn set_module_target(module: &mut Module, options: &Options) -> Result<(), Error> {
    if let Some(target) = options.target.as_deref().filter(|_| options.set_target) {
        pipeline::check_target(target)?;
        pipeline::set_sm_target(&mut module.target, target);
    }
    Ok(())
}

/// [`run_passes`] on the module's header as it is.
fn run_passes_as_written(module: &mut Module, options: &Options) -> Result<PassRun, Error> {
    let passes = create_passes(options)?;
    let manager = ptx_pass::PassManager::new(
        passes,
        Some(verifier(options)),
        ptx_pass::PassManagerOptions {
            verify_input: !options.skip_verify,
            verify_each: options.verify_each,
            print_after: options.print_after.clone(),
            print_after_all: options.print_after_all,
            target: options.target.clone(),
        },
    );
    let run = || {
        let mut run = manager.run(module).map_err(|e| Error {
            kind: match e.kind {
                ptx_pass::PipelineErrorKind::Pass(p) => ErrorKind::Pass(p.into()),
                ptx_pass::PipelineErrorKind::BrokeIr(p) => ErrorKind::BrokeIr(p.into()),
                ptx_pass::PipelineErrorKind::InvalidInput => ErrorKind::InvalidInput,
            },
            diagnostics: e.diagnostics,
        })?;
        // Dumps (print_after) printed from the source: with the .target set.
        if options.set_target && module.source.is_some() {
            for snapshot in &mut run.snapshots {
                if let Some(text) = pipeline::retarget_text(&snapshot.text, &module.target) {
                    snapshot.text = text;
                }
            }
        }
        // Passes that gated on another target than the header's may have
        // written what the header does not allow (ptxas would reject it):
        // an error, never such an output.
        if options.target.is_some() && run.passes.iter().any(|p| p.changed) {
            if let Err(diagnostics) = verifier(options).verify(module) {
                return Err(Error { kind: ErrorKind::NeedsTarget(module.target.join(", ")), diagnostics });
            }
        }
        if let Some(version) = settle_version(module, options, &verifier(options))? {
            module.version = version;
        }
        Ok(run)
    };
    in_thread_pool(options, run)
}

/// The verifier `options` ask for. On a module whose passes gated on
/// [`Options::target`], its errors are what the header as written does not
/// allow.
fn verifier(options: &Options) -> ptx_verify::Verifier {
    ptx_verify::Verifier::new().accepting_newer_forms(options.accept_newer_forms)
}

fn create_passes(options: &Options) -> Result<Vec<Box<dyn ptx_pass::Pass>>, Error> {
    let mut passes: Vec<Box<dyn Pass>> = Vec::with_capacity(options.passes.len());
    if let Some(target) = &options.target {
        pipeline::check_target(target)?;
    }
    for spec in &options.passes {
        let pass: Box<dyn Pass> = match spec {
            PassSpec::Object(pass) => Box::new(SharedPass(pass.clone())),
            PassSpec::Named(step) => pipeline::create_named(step)?,
        };
        passes.push(pass);
    }
    if let Some(to) = options.ptx_version.and_then(version::PtxVersion::lowers_to) {
        passes.push(Box::new(ptx_pass::PerFunction(ptx_passes::lower_ptx_version::LowerPtxVersion { to })));
    }
    Ok(passes)
}

/// The `.version` [`Options::ptx_version`] has the module written with (the
/// header's own: None), or [`ErrorKind::NeedsVersion`].
fn settle_version(
    module: &Module,
    options: &Options,
    verifier: &ptx_verify::Verifier,
) -> Result<Option<version::Version>, Error> {
    let Some(request) = options.ptx_version else { return Ok(None) };
    let settled = request.settle(module, verifier).map_err(|((major, minor), diagnostics)| Error {
        kind: ErrorKind::NeedsVersion(format!("{major}.{minor}")),
        diagnostics,
    })?;
    Ok(settled.filter(|v| *v != module.version))
}

/// Runs `run` on the thread pool `options.threads` asks for (rayon's global
/// pool if none).
fn in_thread_pool<T: Send>(options: &Options, run: impl FnOnce() -> Result<T, Error> + Send) -> Result<T, Error> {
    match options.threads {
        None => run(),
        Some(n) if n > MAX_THREADS => Err(Error {
            kind: ErrorKind::Threads(format!("{n} threads requested, at most {MAX_THREADS} allowed")),
            diagnostics: Vec::new(),
        }),
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .map_err(|e| Error { kind: ErrorKind::Threads(e.to_string()), diagnostics: Vec::new() })?
            .install(run),
    }
}

/// The most worker threads [`Options::threads`] may ask for. Far more than
/// useful (passes run one function per thread), and a bound because
/// creating tens of thousands of threads takes minutes.
pub const MAX_THREADS: usize = 256;

/// Verifies the input, runs the passes, prints.
///
/// The input is verified first (unless [`Options::skip_verify`]): an invalid
/// input is [`ErrorKind::InvalidInput`] with the verifier's diagnostics,
/// whatever the passes. With no pass (and no `reformat`) the output is the
/// input, byte for byte (an unchanged module prints as its source). With no
/// pass and `skip_verify`, the input is only parsed
/// ([`ptx_parse::validate`]: the same diagnostics as [`parse`]) and no IR is
/// kept.
///
/// A pipeline of passes that work one function at a time (all but
/// `verify`; no pass at all included), without `verify_each`,
/// `print_after` or `reformat`, is streamed: the module is parsed, verified,
/// optimized and printed in batches of about
/// [`STREAM_BATCH_BYTES`] of source, so memory stays bounded by a batch
/// instead of the whole module. The output, counters and remarks are those
/// of the whole-module run; whenever anything goes wrong (a parse error, a
/// pass error) the whole module is run instead, which gives the diagnostics.
pub fn optimize(source: &str, options: &Options) -> Result<Output, Error> {
    if parse_check_only(options) {
        let run = check_only(source, options)?;
        return Ok(Output { ptx: source.to_string(), run });
    }
    optimize_shared(Arc::from(source), options)
}

/// [`optimize`] of a source the caller hands over, which the module then
/// shares instead of copying (one copy of the input less in memory).
pub fn optimize_shared(source: Arc<str>, options: &Options) -> Result<Output, Error> {
    let (text, run) = optimize_text(source, options)?;
    Ok(Output { ptx: text.into_string(), run })
}

/// `bytes` as the shared text [`optimize_text`] takes, in the same
/// allocation: a caller that reads its input straight into an `Arc<[u8]>`
/// (as `ptx-opt` does a file) holds it once, where a `String` turned into
/// an `Arc<str>` is copied, and both copies are alive at once.
pub fn shared_text(bytes: Arc<[u8]>) -> Result<Arc<str>, std::str::Utf8Error> {
    std::str::from_utf8(&bytes)?;
    let raw = Arc::into_raw(bytes) as *const str;
    // SAFETY: `str` and `[u8]` have the same layout, the pointer comes from
    // `Arc::into_raw` of that same allocation, and the bytes were checked
    // to be UTF-8 above (an `Arc` never lets them change while shared).
    Ok(unsafe { Arc::from_raw(raw) })
}

/// [`optimize_shared`] with the output kept as pieces of the input and new
/// text ([`OutputText`]) instead of one string: what no pass changed is not
/// copied. `ptx-opt` writes its output this way, so that a run holds about
/// one copy of the text instead of two.
pub fn optimize_text(source: Arc<str>, options: &Options) -> Result<(OutputText, PassRun), Error> {
    if parse_check_only(options) {
        let run = check_only(&source, options)?;
        return Ok((OutputText::unchanged(source), run));
    }
    if let Some(streamed) = stream(&source, options, STREAM_BATCH_BYTES)? {
        return Ok(streamed);
    }
    let output = whole(source.clone(), options)?;
    Ok((OutputText::from_string(source, output.ptx), output.run))
}

/// Nothing to do but to see that the input parses: no pass, no
/// verification, no reformatting.
fn parse_check_only(options: &Options) -> bool {
    options.passes.is_empty()
        && !options.reformat
        && options.skip_verify
        && !options.verify_each
        && !options.set_target
        && options.ptx_version.is_none()
}

/// [`optimize`] with nothing to do: the output is the input once it is
/// known to parse.
fn check_only(source: &str, options: &Options) -> Result<PassRun, Error> {
    ptx_parse::validate(source).map_err(|diagnostics| Error { kind: ErrorKind::Parse, diagnostics })?;
    // No pass to run; this still checks the options (`threads`) as a run does.
    run_passes(&mut Module::default(), options)
}

/// Source bytes per batch of a streamed pipeline (see [`optimize`]): small
/// enough that a batch's IR (about 10 bytes per byte of source) is a fraction
/// of the input, large enough to hold many functions for the thread pool.
pub const STREAM_BATCH_BYTES: usize = 64 << 10;

/// [`optimize`] in batches of about `batch_bytes`; None if the pipeline
/// cannot be streamed or anything went wrong (then run it whole).
#[doc(hidden)]
pub fn optimize_in_batches(source: &str, options: &Options, batch_bytes: usize) -> Result<Option<Output>, Error> {
    let streamed = stream(&Arc::from(source), options, batch_bytes)?;
    Ok(streamed.map(|(text, run)| Output { ptx: text.into_string(), run }))
}

fn stream(source: &Arc<str>, options: &Options, batch_bytes: usize) -> Result<Option<(OutputText, PassRun)>, Error> {
    let whole_module_needed = options.reformat
        || options.verify_each
        || options.print_after_all
        || !options.print_after.is_empty()
        || options.set_target;
    if whole_module_needed {
        return Ok(None);
    }
    let passes = create_passes(options)?;
    if !passes.iter().all(|p| p.function_local()) {
        return Ok(None);
    }
    // Each batch is verified before its passes run: a batch keeps the
    // header, the verifier's other checks are of one function at a time, and
    // what earlier batches declared the parser tells the verifier.
    let declarations = Arc::new(ptx_parse::SourceDeclarations::default());
    let verifier = {
        let declarations = declarations.clone();
        ptx_verify::Verifier::with_declarations_before(move |name, at| declarations.declared_before(name, at))
            .accepting_newer_forms(options.accept_newer_forms)
    };
    let manager = ptx_pass::PassManager::new(
        passes,
        Some(verifier.clone()),
        ptx_pass::PassManagerOptions {
            verify_input: !options.skip_verify,
            target: options.target.clone(),
            ..Default::default()
        },
    );
    // Called from a worker of the global pool (a caller's own parallel
    // loop), parsing would wait on that worker for processing the pool may
    // have no free worker left to run: such a run goes sequentially.
    let inside_global_pool = options.threads.is_none() && rayon::current_thread_index().is_some();
    in_thread_pool(options, || {
        let mut ptx = OutputText::new(source.clone());
        let mut run = PassRun::default();
        // The .version each batch may be written with (the header is the
        // first batch's, so it is set once all are known).
        let mut versions: Option<(version::Version, version::Version)> = None;
        // Verifies, optimizes and prints one batch; false on any error (the
        // whole-module run then reports it, in pass order).
        let mut process = |batch: &mut Module, range: std::ops::Range<usize>| {
            if retargets_in_a_body(batch) {
                return false;
            }
            match manager.run(batch) {
                // Passes that gated on another target than the header's: what
                // they wrote must be allowed by the header (as in the whole run).
                Ok(batch_run)
                    if options.target.is_some()
                        && batch_run.passes.iter().any(|p| p.changed)
                        && verifier.verify(batch).is_err() =>
                {
                    false
                }
                Ok(batch_run) => match settle_version(batch, options, &verifier) {
                    Ok(settled) => {
                        let (own, written) = (batch.version, settled.unwrap_or(batch.version));
                        versions = Some(versions.map_or((own, written), |(own, w)| (own, w.max(written))));
                        run.absorb(batch_run);
                        ptx_ir::print::write_module_range(batch, range, &mut ptx)
                    }
                    Err(_) => false,
                },
                Err(_) => false,
            }
        };
        let completed = if rayon::current_num_threads() > 1 && !inside_global_pool {
            parse_beside_processing(source, batch_bytes, &declarations, &mut process)
        } else {
            ptx_parse::parse_in_batches(source, batch_bytes, &declarations, |mut batch, range| {
                process(&mut batch, range)
            })
        };
        if !completed {
            return Ok(None);
        }
        // Every batch was checked at the version asked for (or gave the
        // lowest it allows): the module's is the newest of them (the
        // header's own, unless a version was asked for).
        match versions {
            Some((own, written)) if written != own => Ok(Some((ptx.with_version(written), run))),
            _ => Ok(Some((ptx, run))),
        }
    })
}

/// True if a function of `batch` has a `.target` directive in its body:
/// ptxas reads it as the target of the rest of the file, which the batches
/// after this one would not know, so such a module runs whole.
fn retargets_in_a_body(batch: &Module) -> bool {
    batch.functions.values().any(ptx_ir::Function::has_target_directive)
}

/// [`ptx_parse::parse_in_batches`] with the parsing of the next batches on
/// this thread while another of the pool's threads runs `process` on the
/// batches already parsed, in order. Parsing is the larger part of a
/// streamed run and cannot be split over functions the way passes are;
/// this way a run on two cores takes about as long as parsing alone. At
/// most [`PIPELINED_BATCHES`] parsed batches wait, so memory stays bounded.
///
/// Processed batches go back to this thread to be freed: the allocator
/// keeps memory per thread, and freeing on the processing thread what the
/// parser allocated makes the two threads wait on each other's locks
/// (measured: the pipelined run was slower than the sequential one).
fn parse_beside_processing(
    source: &Arc<str>,
    batch_bytes: usize,
    declarations: &ptx_parse::SourceDeclarations,
    process: &mut (dyn FnMut(&mut Module, std::ops::Range<usize>) -> bool + Send),
) -> bool {
    let (to_process, parsed) = std::sync::mpsc::sync_channel::<(Module, std::ops::Range<usize>)>(PIPELINED_BATCHES);
    let (to_free, processed) = std::sync::mpsc::channel::<Module>();
    let mut processed_all = true;
    let mut parsed_all = false;
    // The parser runs on the calling thread, not on a worker: a worker
    // blocked on a full channel would be lost to the pool, and with as many
    // concurrent runs as workers no worker would be left to process.
    rayon::in_place_scope(|scope| {
        let processed_all = &mut processed_all;
        scope.spawn(move |_| {
            for (mut batch, range) in parsed {
                let ok = process(&mut batch, range);
                // The parser may have finished: then this thread frees it.
                let _ = to_free.send(batch);
                if !ok {
                    *processed_all = false;
                    // Dropping the receiver stops the parser at its next batch.
                    return;
                }
            }
        });
        // A send fails once processing has stopped.
        parsed_all = ptx_parse::parse_in_batches(source, batch_bytes, declarations, |batch, range| {
            processed.try_iter().for_each(drop);
            to_process.send((batch, range)).is_ok()
        });
        drop(to_process);
    });
    parsed_all && processed_all
}

/// Parsed batches that may wait for processing (see
/// [`parse_beside_processing`]).
const PIPELINED_BATCHES: usize = 2;

/// [`optimize`] on the whole module at once (no streaming), for tests that
/// compare the two.
#[doc(hidden)]
pub fn optimize_whole(source: &str, options: &Options) -> Result<Output, Error> {
    whole(Arc::from(source), options)
}

fn whole(source: Arc<str>, options: &Options) -> Result<Output, Error> {
    let mut module =
        ptx_parse::parse_shared(source).map_err(|diagnostics| Error { kind: ErrorKind::Parse, diagnostics })?;
    set_module_target(&mut module, options)?;
    let run = run_passes_as_written(&mut module, options)?;
    if options.reformat {
        module.mark_changed();
        return Ok(Output { ptx: ptx_ir::print::print_module_canonical(&module), run });
    }
    Ok(Output { ptx: print(&module), run })
}

/// The control-flow graph of every function with a body, in DOT (one
/// `digraph` per function, each preceded by a `// function NAME` comment).
pub fn cfg_dot(module: &Module) -> String {
    functions_dot(module, ptx_analysis::cfg_dot)
}

/// The def-use graph of every function with a body, in DOT: one box per
/// instruction, an edge labelled with the register from each definition to
/// each instruction it reaches ([`function_dots`] gives them one by one).
pub fn defuse_dot(module: &Module) -> String {
    functions_dot(module, dot::defuse_dot)
}

fn functions_dot(module: &Module, dot: fn(&ptx_ir::Function) -> String) -> String {
    let mut out = String::new();
    for func in module.functions.values().filter(|f| f.has_body()) {
        out.push_str("// function ");
        out.push_str(&func.name);
        out.push('\n');
        out.push_str(&dot(func));
        if !out.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

/// Maps byte offsets to 1-based line and column (columns count characters).
#[derive(Clone, Debug)]
pub struct LineIndex {
    line_starts: Vec<usize>,
}

impl LineIndex {
    /// Indexes `source`.
    pub fn new(source: &str) -> LineIndex {
        let mut line_starts = vec![0];
        line_starts.extend(source.bytes().enumerate().filter(|&(_, b)| b == b'\n').map(|(i, _)| i + 1));
        LineIndex { line_starts }
    }

    /// (line, column), both 1-based, of byte `offset` in `source`.
    pub fn line_col(&self, source: &str, offset: usize) -> (usize, usize) {
        let offset = offset.min(source.len());
        let line = self.line_starts.partition_point(|&s| s <= offset) - 1;
        let start = self.line_starts[line];
        let col = source.get(start..offset).map(|s| s.chars().count()).unwrap_or(offset - start) + 1;
        (line + 1, col)
    }

    /// The text of 1-based line `line`, without its newline.
    pub fn line_text<'s>(&self, source: &'s str, line: usize) -> &'s str {
        let start = self.line_starts.get(line - 1).copied().unwrap_or(source.len());
        let end = self.line_starts.get(line).map(|e| e - 1).unwrap_or(source.len());
        source.get(start..end.max(start)).unwrap_or("").trim_end_matches('\r')
    }
}

// Compile-time check: what a multi-threaded host shares or moves between
// threads is `Send + Sync`. `Module` is too: its source text is an
// `Arc<str>` and everything else is owned plain data.
const _: fn() = || {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Options>();
    assert_send_sync::<Output>();
    assert_send_sync::<Error>();
    assert_send_sync::<ErrorKind>();
    assert_send_sync::<Module>();
    assert_send_sync::<PassRun>();
    assert_send_sync::<Remark>();
    assert_send_sync::<Diagnostic>();
    assert_send_sync::<LineIndex>();
    assert_send_sync::<PassDescription>();
    assert_send_sync::<PassSpec>();
};
