//! `ptx-opt`: the command-line tool. Reads PTX, runs passes, writes PTX.
//!
//! This is the only place diagnostics are rendered and the only place that
//! prints. Exit codes: 0 ok, 1 bad input (or a pass found errors), 2 usage,
//! 3 `--check` found something to change.

mod changes;
mod render;

use clap::Parser;
use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

fn after_help() -> String {
    let mut s = String::from("Passes:\n");
    for p in ptx_opt::passes() {
        s.push_str(&format!("  {:<20} {}\n", p.name, p.description));
        if !p.options.is_empty() {
            s.push_str(&format!("  {:<20}   options ({}<...>): {}\n", "", p.name, p.options));
        }
    }
    for level in 0..=2u8 {
        let list = ptx_opt::pipeline(level);
        s.push_str(&format!(
            "\n-O{level}: {}",
            if list.is_empty() { "(no passes)".to_string() } else { list.join(",") }
        ));
    }
    s.push_str("\n-O3 and -Os: -O2\n");
    s.push_str("\nPipeline text (--passes): steps separated by commas; a step is NAME, NAME<OPTION;OPTION>\nor default<O0|O1|O2|O3|Os> (e.g. --passes='legalize-relaxed,default<O2>').\n");
    s.push_str(
        "\nExit status:\n  0  success (with --check: nothing would change)\n  1  invalid input, or a file that cannot be read or written\n  2  usage error\n  3  --check: the pipeline would change something\n",
    );
    s
}

/// The version and the commit built (build.rs; `unknown` outside a git checkout).
const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " (commit ", env!("PTX_OPT_COMMIT"), ")");

/// An LLVM-style rewriting pass framework for NVIDIA PTX.
#[derive(Parser, Debug)]
#[command(name = "ptx-opt", version = VERSION, about, after_help = after_help())]
struct Cli {
    /// Input PTX file (`-` or nothing: standard input).
    input: Option<PathBuf>,

    /// Output file (default, or `-`: standard output). Written to a temporary file and renamed
    /// (over the target of a symbolic link); special files such as /dev/null are written into.
    #[arg(short = 'o', value_name = "FILE")]
    output: Option<PathBuf>,

    /// The pipeline to run: comma-separated steps, each a pass name, a pass with options
    /// (NAME<OPTION;OPTION>, e.g. fold-byte-gathers<min-saving=1>) or a default pipeline
    /// (default<O2>); empty: parse and print only. LLVM's spelling -passes=TEXT works too.
    #[arg(long, value_name = "PIPELINE")]
    passes: Option<String>,

    /// Run the default pipeline of an optimization level: -O0, -O1, -O2; -O3 and -Os are
    /// aliases of -O2 (there is no more aggressive or smaller pipeline). The level is written
    /// attached (-O2): a bare -O is an error, as in opt, so it never takes the next argument.
    #[arg(short = 'O', value_name = "LEVEL", value_parser = parse_level)]
    level: Option<u8>,

    /// Exit 0 if the pipeline would change nothing, 3 (naming the changed functions on
    /// standard error) if it would change something; write no output.
    #[arg(long, conflicts_with_all = ["output", "emit"])]
    check: bool,

    /// After each pass that changed something, print a unified diff of each changed
    /// function to standard error.
    #[arg(long)]
    print_changed: bool,

    /// Restrict --print-changed, --print-after and the DOT graphs of --emit to this
    /// function (repeatable).
    #[arg(long, value_name = "NAME")]
    filter_function: Vec<String>,

    /// Run the verifier on the input, then after every pass; name the pass that broke the IR.
    #[arg(long)]
    verify_each: bool,

    /// Do not verify the input (by default every run does, with or without passes;
    /// invalid input is exit 1). Only what the parser rejects is then an error.
    #[arg(long, conflicts_with = "verify_each")]
    no_verify: bool,

    /// In a module whose .version is newer than PTX ISA 9.1 (the ISA text ptx-opt describes), keep an
    /// instruction with a word 9.1 does not have as an unknown instruction (written as it is, treated
    /// conservatively, its form left to ptxas) instead of reporting the word.
    #[arg(long)]
    accept_newer_forms: bool,

    /// Print the module to standard error after the named pass (repeatable).
    #[arg(long, value_name = "NAME")]
    print_after: Vec<String>,

    /// Print the module to standard error after every pass.
    #[arg(long)]
    print_after_all: bool,

    /// Print per-pass rewrite counters to standard error, as a table (--stats) or as
    /// one JSON object (--stats=json).
    #[arg(long, value_enum, value_name = "FORMAT", num_args = 0..=1, require_equals = true,
          default_missing_value = "text")]
    stats: Option<ReportFormat>,

    /// Print the wall time of parsing, verifying, each pass and printing to standard
    /// error, with shares of the total (the module is then processed whole, not streamed).
    #[arg(long)]
    time_passes: bool,

    /// Write optimization remarks to FILE (`-`: standard error), one per rewrite.
    #[arg(long, value_name = "FILE")]
    remarks: Option<PathBuf>,

    /// The remarks' format: json (JSON Lines: {"file","line","col","pass","function",
    /// "demangled","message"}) or text (clang's -Rpass lines: FILE:LINE:COL: remark: ...).
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = ReportFormat::Json)]
    remarks_format: ReportFormat,

    /// Also write missed remarks to the --remarks destination: rewrites a pass looked at and
    /// did not make, with the reason (clang's -Rpass-missed; JSON lines have "kind":"missed").
    #[arg(long, requires = "remarks")]
    remarks_missed: bool,

    /// Gate the passes on this target (sm_XX, e.g. sm_90 or sm_90a) instead of the input's
    /// .target; the input's .target stays as written unless --set-target.
    #[arg(long, value_name = "sm_XX")]
    target: Option<String>,

    /// With --target: also write that target into the output's .target directive (the input
    /// is then verified against it).
    #[arg(long, requires = "target")]
    set_target: bool,

    /// Worker threads for function passes (default: all cores).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,

    /// Write `.version X.Y` (lower or higher than the module's own): after the pipeline,
    /// instructions that need more and have an exactly equivalent older form are rewritten
    /// (pass lower-ptx-version: cache hints dropped, cvt.pack.sat expanded, ...; remarks),
    /// then the module must be valid PTX at X.Y for its .target; otherwise one located error
    /// per instruction that needs more, and no output. `min`: the lowest version the module
    /// as it is and its .target allow (never below 6.0 for memory instructions written for
    /// 6.0 or later).
    #[arg(long, value_name = "X.Y|min", conflicts_with = "cuda")]
    ptx_version: Option<String>,

    /// Lower `.version` to the newest PTX ISA version the driver of this CUDA release
    /// accepts (what nvidia-smi says, e.g. 12.4), if the module's is newer; rewrites and
    /// errors as for --ptx-version.
    #[arg(long, value_name = "MAJOR.MINOR")]
    cuda: Option<String>,

    /// Print to standard error, per function and for the module, the lowest .version it
    /// needs and the first instruction that forces it (--print-requirements=json: one
    /// JSON object).
    #[arg(long, value_enum, value_name = "FORMAT", num_args = 0..=1, require_equals = true,
          default_missing_value = "text")]
    print_requirements: Option<ReportFormat>,

    /// Print everything afresh (one statement per line, comments dropped)
    /// instead of keeping the text of unchanged parts.
    #[arg(long)]
    reformat: bool,

    /// What to write: the PTX, or (after the passes) each function's control-flow
    /// graph or def-use graph in Graphviz DOT.
    #[arg(long, value_enum, default_value_t = Emit::Ptx)]
    emit: Emit,

    /// With --emit=cfg-dot or defuse-dot: write one file per function into DIR
    /// (created if missing; FUNCTION.cfg.dot, FUNCTION.defuse.dot) instead of one stream.
    #[arg(long, value_name = "DIR", conflicts_with = "output")]
    dot_dir: Option<PathBuf>,

    /// With count-blocks in the pipeline: write, as JSON, each instrumented kernel's counter
    /// array and the input line of each counted block's first instruction, for a runtime that
    /// reads the counts back (written like the output: to a temporary file, then renamed).
    #[arg(long, value_name = "FILE")]
    count_blocks_map: Option<PathBuf>,

    /// List the registered passes and exit.
    #[arg(long)]
    list_passes: bool,

    /// Colour diagnostics: auto (when standard error is a terminal, and NO_COLOR is not
    /// set), always, never.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = ColorWhen::Auto)]
    color: ColorWhen,

    /// Show at most N errors (0: all), then a summary line.
    #[arg(long, value_name = "N", default_value_t = ptx_opt::DEFAULT_ERROR_LIMIT)]
    error_limit: usize,

    /// Print a completion script for SHELL (bash, zsh, fish, elvish, powershell) and exit.
    /// Hidden: for packagers (`ptx-opt --completions=bash > /usr/share/bash-completion/completions/ptx-opt`).
    #[arg(long, value_name = "SHELL", hide = true)]
    completions: Option<clap_complete::Shell>,

    /// Print the man page (roff) and exit. Hidden: for packagers (`ptx-opt --man > ptx-opt.1`).
    #[arg(long, hide = true)]
    man: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum ReportFormat {
    /// For people (and clang-style tools).
    Text,
    /// For programs.
    Json,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum ColorWhen {
    Auto,
    Always,
    Never,
}

impl Cli {
    fn render_options(&self) -> ptx_opt::RenderOptions {
        let color = match self.color {
            ColorWhen::Always => true,
            ColorWhen::Never => false,
            // anstream reads the terminal and NO_COLOR / CLICOLOR_FORCE / TERM=dumb.
            ColorWhen::Auto => anstream::AutoStream::choice(&io::stderr()) != anstream::ColorChoice::Never,
        };
        ptx_opt::RenderOptions::default().with_color(color).with_error_limit(self.error_limit)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Emit {
    /// PTX text.
    Ptx,
    /// Control-flow graphs in DOT.
    CfgDot,
    /// Def-use graphs in DOT.
    DefuseDot,
}

impl Emit {
    fn graph(self) -> Option<ptx_opt::Graph> {
        match self {
            Emit::Ptx => None,
            Emit::CfgDot => Some(ptx_opt::Graph::ControlFlow),
            Emit::DefuseDot => Some(ptx_opt::Graph::DefUse),
        }
    }
}

/// The graphs of the functions --filter-function lets through.
fn chosen_graphs(module: &ptx_opt::Module, graph: ptx_opt::Graph, cli: &Cli) -> Vec<(String, String)> {
    let mut dots = ptx_opt::function_dots(module, graph);
    if !cli.filter_function.is_empty() {
        dots.retain(|(name, _)| cli.filter_function.contains(name));
    }
    dots
}

/// Every chosen graph in one text, each after a `// function NAME` comment.
fn graphs(module: &ptx_opt::Module, graph: ptx_opt::Graph, cli: &Cli) -> String {
    chosen_graphs(module, graph, cli).into_iter().map(|(name, dot)| format!("// function {name}\n{dot}")).collect()
}

enum Failure {
    Usage(String),
    Input,
    Io(String),
    /// `--check` found something the pipeline would change.
    WouldChange,
}

fn main() -> ExitCode {
    let args = match llvm_spellings(std::env::args_os()) {
        Ok(args) => args,
        Err(message) => {
            let _ = writeln!(io::stderr(), "ptx-opt: error: {message}");
            return ExitCode::from(2);
        }
    };
    let cli = Cli::parse_from(args);
    match run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        // Not eprintln!: it panics when standard error is a closed pipe.
        Err(Failure::Usage(message)) => {
            let _ = writeln!(io::stderr(), "ptx-opt: error: {message}");
            ExitCode::from(2)
        }
        Err(Failure::Input) => ExitCode::from(1),
        Err(Failure::Io(message)) => {
            let _ = writeln!(io::stderr(), "ptx-opt: error: {message}");
            ExitCode::from(1)
        }
        Err(Failure::WouldChange) => ExitCode::from(3),
    }
}

/// Rewrites what users of `opt` type into this tool's spelling: `-passes=`
/// (one dash) is `--passes=`. A bare `-O` is refused here because clap would
/// otherwise take the next argument (`-O k.ptx`) as the level.
fn llvm_spellings(args: impl Iterator<Item = OsString>) -> Result<Vec<OsString>, String> {
    let mut out = Vec::new();
    let mut options_ended = false;
    for arg in args {
        if options_ended {
            out.push(arg);
            continue;
        }
        match arg.to_str() {
            Some("--") => options_ended = true,
            Some("-O") => return Err("-O needs a level written with it: -O0, -O1, -O2 (-O3 and -Os mean -O2)".into()),
            Some(a) if a == "-passes" || a.starts_with("-passes=") => {
                out.push(OsString::from(format!("-{a}")));
                continue;
            }
            _ => {}
        }
        out.push(arg);
    }
    Ok(out)
}

/// The -O levels: 0, 1, 2, and 3 and s as aliases of 2.
fn parse_level(text: &str) -> Result<u8, String> {
    match text {
        "0" => Ok(0),
        "1" => Ok(1),
        "2" | "3" | "s" => Ok(2),
        _ => Err(format!("'{text}' is not a level: -O0, -O1, -O2 (-O3 and -Os mean -O2)")),
    }
}

fn run(cli: &Cli) -> Result<(), Failure> {
    if let Some(shell) = cli.completions {
        let mut script = Vec::new();
        clap_complete::generate(shell, &mut <Cli as clap::CommandFactory>::command(), "ptx-opt", &mut script);
        return write_output(None, &String::from_utf8_lossy(&script));
    }
    if cli.man {
        let mut page = Vec::new();
        clap_mangen::Man::new(<Cli as clap::CommandFactory>::command())
            .render(&mut page)
            .map_err(|e| Failure::Io(format!("cannot render the man page: {e}")))?;
        return write_output(None, &String::from_utf8_lossy(&page));
    }
    if cli.list_passes {
        // Through write_output, which ends quietly on a closed pipe (println! panics).
        let list: String = ptx_opt::passes().iter().map(|p| format!("{:<20} {}\n", p.name, p.description)).collect();
        return write_output(None, &list);
    }
    if cli.passes.is_some() && cli.level.is_some() {
        return Err(Failure::Usage("--passes and -O cannot be combined".into()));
    }
    let passes: Vec<ptx_opt::PassSpec> = match (&cli.passes, cli.level) {
        (Some(text), _) => ptx_opt::parse_pipeline(text).map_err(|e| match e.kind {
            ptx_opt::ErrorKind::UnknownPass(name) => {
                Failure::Usage(format!("unknown pass '{name}' (see --list-passes)"))
            }
            _ => Failure::Usage(format!("--passes: {e}")),
        })?,
        (None, Some(level)) => ptx_opt::pipeline(level).iter().map(|&s| s.into()).collect(),
        (None, None) => Vec::new(),
    };
    for name in &cli.print_after {
        if !ptx_opt::passes().iter().any(|p| p.name == name) {
            return Err(Failure::Usage(format!("unknown pass '{name}' (see --list-passes)")));
        }
    }
    if let Some(target) = &cli.target {
        // The library's check, before the input is read.
        let probe = ptx_opt::Options { skip_verify: true, ..ptx_opt::Options::default() }.with_target(target.clone());
        if let Err(e) = ptx_opt::run_passes(&mut ptx_opt::Module::default(), &probe) {
            return Err(Failure::Usage(e.to_string()));
        }
    }
    if cli.count_blocks_map.is_some() && !passes.iter().any(|p| p.name() == "count-blocks") {
        return Err(Failure::Usage(
            "--count-blocks-map needs count-blocks in the pipeline (--passes=count-blocks)".into(),
        ));
    }
    if cli.dot_dir.is_some() && cli.emit.graph().is_none() {
        return Err(Failure::Usage("--dot-dir needs --emit=cfg-dot or --emit=defuse-dot".into()));
    }
    if cli.threads == Some(0) {
        return Err(Failure::Usage("--threads must be at least 1".into()));
    }
    if cli.threads.is_some_and(|n| n > ptx_opt::MAX_THREADS) {
        return Err(Failure::Usage(format!("--threads must be at most {}", ptx_opt::MAX_THREADS)));
    }
    let input_path = cli.input.as_deref().filter(|p| *p != Path::new("-"));
    let output_path = cli.output.as_deref().filter(|p| *p != Path::new("-"));
    if let (Some(input), Some(output)) = (input_path, output_path) {
        if same_file(input, output) {
            return Err(Failure::Usage(format!("output '{}' is the input file", output.display())));
        }
    }
    let remarks_path = cli.remarks.as_deref().filter(|p| *p != Path::new("-"));
    if let (Some(input), Some(remarks)) = (input_path, remarks_path) {
        if same_file(input, remarks) {
            return Err(Failure::Usage(format!("remarks file '{}' is the input file", remarks.display())));
        }
    }
    if let (Some(output), Some(remarks)) = (output_path, remarks_path) {
        if output == remarks || same_file(output, remarks) {
            return Err(Failure::Usage(format!("remarks file '{}' is the output file", remarks.display())));
        }
    }
    let (display_name, source) = read_input(input_path, &cli.render_options())?;

    let options = ptx_opt::Options {
        passes,
        target: cli.target.clone(),
        set_target: cli.set_target,
        skip_verify: cli.no_verify,
        accept_newer_forms: cli.accept_newer_forms,
        verify_each: cli.verify_each,
        print_after: cli.print_after.clone(),
        print_after_all: cli.print_after_all,
        threads: cli.threads,
        reformat: cli.reformat,
        ptx_version: requested_version(cli)?,
    };
    let render_options = cli.render_options();
    let fail = |e: ptx_opt::Error| {
        render::diagnostics(&display_name, &source, &e, &render_options);
        Failure::Input
    };
    // What needs the module itself, pass by pass or at the end, keeps one;
    // PTX out otherwise goes through the library's optimize, which streams
    // what it can and keeps no module when there is nothing to do.
    let keeps_module = cli.emit != Emit::Ptx
        || cli.check
        || cli.print_changed
        || !cli.filter_function.is_empty()
        || cli.time_passes
        || cli.count_blocks_map.is_some()
        || cli.print_requirements.is_some();
    let mut count_blocks_map = None;
    let mut times = render::Times::default();
    // --dot-dir: (path, DOT) of each function's graph, written instead of the text.
    let mut files: Vec<(PathBuf, String)> = Vec::new();
    let (run, text) = if keeps_module {
        let mut module = times.measure("parse", || ptx_opt::parse(&source)).map_err(fail)?;
        let original = cli.check.then(|| module.clone());
        let observers = changes::Observers {
            print_changed: cli.print_changed,
            print_after: &cli.print_after,
            print_after_all: cli.print_after_all,
            functions: &cli.filter_function,
        };
        let run = changes::run_stepwise(&mut module, &options, &observers, &mut times, &mut io::stderr().lock())
            .map_err(fail)?;
        if let Some(original) = original {
            let changed = changes::changed_functions(&original, &module);
            let retargeted = original.target != module.target;
            if changed.is_empty() && !retargeted {
                return Ok(());
            }
            let mut stderr = io::stderr().lock();
            if retargeted {
                let _ = writeln!(stderr, "{display_name}: would change '.target {}'", original.target.join(", "));
            }
            for change in &changed {
                let _ = writeln!(stderr, "{display_name}: would change function '{}'", change.name);
            }
            return Err(Failure::WouldChange);
        }
        if let Some(format) = cli.print_requirements {
            let report = ptx_opt::version::requirements_report(&module, &source, format == ReportFormat::Json);
            let _ = io::stderr().lock().write_all(report.as_bytes());
        }
        let text = times.measure("print", || match cli.emit {
            Emit::Ptx if cli.reformat => {
                module.mark_changed();
                ptx_opt::ir::print::print_module_canonical(&module)
            }
            Emit::Ptx => ptx_opt::print(&module),
            Emit::CfgDot => graphs(&module, ptx_opt::Graph::ControlFlow, cli),
            Emit::DefuseDot => graphs(&module, ptx_opt::Graph::DefUse, cli),
        });
        if cli.count_blocks_map.is_some() {
            count_blocks_map = Some(ptx_opt::count_blocks_map_json(&module, &source));
        }
        let text = Text::Whole(text);
        if let (Some(dir), Some(graph)) = (&cli.dot_dir, cli.emit.graph()) {
            files = chosen_graphs(&module, graph, cli)
                .into_iter()
                .map(|(name, dot)| (dir.join(ptx_opt::dot_file_name(&name, graph)), dot))
                .collect();
        }
        (run, text)
    } else {
        // The input is handed over, not copied again, and what no pass
        // changed is written from it (optimize_text).
        let (text, run) = ptx_opt::optimize_text(source.clone(), &options).map_err(fail)?;
        (run, Text::Pieces(text))
    };
    let mut stderr = io::stderr().lock();
    for snap in &run.snapshots {
        let _ = writeln!(stderr, "// *** IR after {} ***", snap.after);
        let _ = stderr.write_all(snap.text.as_bytes());
    }
    match cli.stats {
        Some(ReportFormat::Text) => render::stats(&mut stderr, &run),
        Some(ReportFormat::Json) => {
            let _ = stderr.write_all(ptx_opt::stats_json(&run).as_bytes());
        }
        None => {}
    }
    if cli.time_passes {
        render::times(&mut stderr, &times);
    }
    let remarks = || {
        let (mut text, missed) = match cli.remarks_format {
            ReportFormat::Json => (
                ptx_opt::remarks_json_lines(&display_name, &source, &run),
                ptx_opt::missed_remarks_json_lines(&display_name, &source, &run),
            ),
            ReportFormat::Text => (
                ptx_opt::remarks_text(&display_name, &source, &run),
                ptx_opt::missed_remarks_text(&display_name, &source, &run),
            ),
        };
        if cli.remarks_missed {
            text.push_str(&missed);
        }
        text
    };
    if cli.remarks.is_some() && remarks_path.is_none() {
        let _ = stderr.write_all(remarks().as_bytes());
    }
    drop(stderr);
    if let Some(path) = remarks_path {
        write_output(Some(path), &remarks())?;
    }
    if let (Some(path), Some(map)) = (&cli.count_blocks_map, &count_blocks_map) {
        write_output(Some(path), map)?;
    }
    if let Some(dir) = &cli.dot_dir {
        std::fs::create_dir_all(dir).map_err(|e| Failure::Io(format!("cannot create '{}': {e}", dir.display())))?;
        for (path, dot) in &files {
            write_output(Some(path), dot)?;
        }
        return Ok(());
    }
    match &text {
        Text::Whole(text) => write_output(output_path, text),
        Text::Pieces(text) => write_pieces(output_path, &text.slices().collect::<Vec<_>>()),
    }
}

/// What a run prints: one string, or pieces of the input and new text.
enum Text {
    Whole(String),
    Pieces(ptx_opt::OutputText),
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

fn read_input(path: Option<&Path>, render_options: &ptx_opt::RenderOptions) -> Result<(String, Arc<str>), Failure> {
    let (name, bytes) = match path {
        Some(p) => {
            let bytes = read_file(p).map_err(|e| Failure::Io(format!("cannot read '{}': {e}", p.display())))?;
            (p.display().to_string(), bytes)
        }
        None => {
            let bytes = read_stdin().map_err(|e| Failure::Io(format!("cannot read standard input: {e}")))?;
            ("<stdin>".to_string(), bytes)
        }
    };
    match ptx_opt::shared_text(bytes.clone()) {
        Ok(text) => Ok((name, text)),
        Err(e) => {
            let offset = e.valid_up_to();
            let text = String::from_utf8_lossy(&bytes).into_owned();
            let diag = ptx_opt::Diagnostic::new(ptx_opt::Span::new(offset, offset + 1), "input is not valid UTF-8");
            let err = ptx_opt::Error { kind: ptx_opt::ErrorKind::Parse, diagnostics: vec![diag] };
            render::diagnostics(&name, &text, &err, render_options);
            Err(Failure::Input)
        }
    }
}

/// Standard input, in the allocation the library shares, held once: a
/// redirected file (`< f.ptx`) is read like a file; a pipe, whose size is
/// unknown until its end, in chunks that are copied into the shared
/// allocation and freed one by one once it is made (a `Vec` grown to the
/// size and then copied into an `Arc` would hold the text twice).
fn read_stdin() -> io::Result<Arc<[u8]>> {
    const CHUNK: usize = 1 << 20;
    let mut stdin = io::stdin().lock();
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        let file = std::fs::File::from(stdin.as_fd().try_clone_to_owned()?);
        if file.metadata().is_ok_and(|m| m.is_file()) {
            return read_whole(file);
        }
    }
    let mut chunks = Vec::new();
    let mut total = 0;
    loop {
        let mut chunk = Vec::with_capacity(CHUNK);
        (&mut stdin).take(CHUNK as u64).read_to_end(&mut chunk)?;
        if chunk.is_empty() {
            break;
        }
        total += chunk.len();
        chunks.push(chunk);
    }
    let mut shared = Arc::<[u8]>::new_uninit_slice(total);
    let buffer = Arc::get_mut(&mut shared).expect("a new allocation has no other holder");
    let mut at = 0;
    for chunk in chunks {
        for (slot, &byte) in buffer[at..at + chunk.len()].iter_mut().zip(&chunk) {
            slot.write(byte);
        }
        at += chunk.len();
    }
    debug_assert_eq!(at, total);
    // SAFETY: the chunks hold `total` bytes in all, and each was written
    // to its own range of the `total` slots, so every slot is initialized.
    Ok(unsafe { shared.assume_init() })
}

/// A file's bytes, read straight into the allocation the library shares
/// (`ptx_opt::shared_text`), so that the input is in memory once: reading
/// it into a `Vec` and then copying that into an `Arc` would hold it twice
/// (the peak of a run on a large file). What the size did not foretell (a
/// pipe, a file still growing) is read on and copied.
fn read_file(path: &Path) -> io::Result<Arc<[u8]>> {
    read_whole(std::fs::File::open(path)?)
}

/// [`read_file`] of an open file.
fn read_whole(mut file: std::fs::File) -> io::Result<Arc<[u8]>> {
    let expected = usize::try_from(file.metadata()?.len()).unwrap_or(0);
    let mut bytes: Arc<[u8]> = std::iter::repeat_n(0, expected).collect();
    let buffer = Arc::get_mut(&mut bytes).expect("a new allocation has no other holder");
    let mut filled = 0;
    while filled < expected {
        match file.read(&mut buffer[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let mut rest = Vec::new();
    file.read_to_end(&mut rest)?;
    if filled == expected && rest.is_empty() {
        return Ok(bytes);
    }
    let mut all = bytes[..filled].to_vec();
    all.extend_from_slice(&rest);
    Ok(Arc::from(all))
}

fn write_output(path: Option<&Path>, text: &str) -> Result<(), Failure> {
    write_pieces(path, &[text])
}

/// Writes `pieces` one after the other, to standard output (`None`) or
/// atomically to `path`: a temporary file beside it, renamed over it once
/// complete.
fn write_pieces(path: Option<&Path>, pieces: &[&str]) -> Result<(), Failure> {
    let write_all = |out: &mut dyn Write| pieces.iter().try_for_each(|piece| out.write_all(piece.as_bytes()));
    match path {
        None => {
            let mut out = io::stdout().lock();
            match write_all(&mut out).and_then(|_| out.flush()) {
                Ok(()) => Ok(()),
                // A closed pipe (`ptx-opt x.ptx | head`) ends quietly.
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
                Err(e) => Err(Failure::Io(format!("cannot write standard output: {e}"))),
            }
        }
        Some(path) => {
            let fail = |e: io::Error| Failure::Io(format!("cannot write '{}': {e}", path.display()));
            let existing = std::fs::metadata(path).ok();
            // Not a regular file (`-o /dev/null`, a FIFO): write into it.
            // Renaming over it would replace the device node itself.
            if existing.as_ref().is_some_and(|m| !m.is_file()) {
                let file = std::fs::OpenOptions::new().write(true).open(path).map_err(fail)?;
                let mut out = io::BufWriter::new(file);
                return write_all(&mut out).and_then(|_| out.flush()).map_err(fail);
            }
            // A symbolic link stays one: the file it points to is replaced.
            let target = match existing {
                Some(_) => path.canonicalize().map_err(fail)?,
                None => path.to_path_buf(),
            };
            let dir = match target.parent() {
                Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
                _ => PathBuf::from("."),
            };
            let mut builder = tempfile::Builder::new();
            builder.prefix(".ptx-opt-");
            // The permissions of a file created normally (0666 less the
            // umask), not tempfile's private 0600; those of the file replaced.
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                builder.permissions(std::fs::Permissions::from_mode(0o666));
            }
            let mut tmp = builder.tempfile_in(&dir).map_err(fail)?;
            if let Some(m) = &existing {
                tmp.as_file().set_permissions(m.permissions()).map_err(fail)?;
            }
            let mut out = io::BufWriter::new(tmp.as_file_mut());
            write_all(&mut out).and_then(|_| out.flush()).map_err(fail)?;
            drop(out);
            tmp.as_file().sync_all().map_err(fail)?;
            tmp.persist(&target).map_err(|e| fail(e.error))?;
            Ok(())
        }
    }
}

/// The `.version` `--ptx-version` or `--cuda` asks the output to be
/// written with.
fn requested_version(cli: &Cli) -> Result<Option<ptx_opt::version::PtxVersion>, Failure> {
    use ptx_opt::version::PtxVersion;
    if let Some(cuda) = &cli.cuda {
        return PtxVersion::for_cuda(cuda)
            .map(Some)
            .ok_or_else(|| Failure::Usage(format!("--cuda takes a CUDA release such as 12.4, not '{cuda}'")));
    }
    let Some(asked) = cli.ptx_version.as_deref() else { return Ok(None) };
    PtxVersion::parse(asked).map(Some).ok_or_else(|| {
        let known: Vec<String> = ptx_opt::version::known_versions().map(|(a, b)| format!("{a}.{b}")).collect();
        Failure::Usage(format!(
            "--ptx-version takes min or a version ptxas knows ({}), not '{asked}'",
            known.join(", ")
        ))
    })
}
