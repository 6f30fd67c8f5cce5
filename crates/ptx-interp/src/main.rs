//! The `ptx-interp` command: run one kernel on invented inputs and print
//! its buffers, or check two PTX files for equivalence kernel by kernel.
//!
//! Exit codes: 0 success / equivalent, 1 different (or, for `run`, the
//! kernel faulted), 2 usage or unreadable input, 3 cannot check
//! (unsupported instruction or no conclusive trial).

use clap::{Parser, Subcommand};
use ptx_interp::given::GivenInputs;
use ptx_interp::{
    diff_modules, infer_params, make_args, run_function, DiffOptions, ErrorClass, LaunchConfig, ParamKind, Program,
};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "ptx-interp", about = "Reference interpreter and equivalence checker for PTX")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a kernel on invented inputs, or on given ones (--inputs/--input),
    /// and print its buffers as hex.
    ///
    /// Given inputs, one per line (a .run file, or each --input):
    ///   kernel NAME                      the kernel (instead of --kernel)
    ///   grid 2 | block 32,1,1             launch shape (x or x,y,z)
    ///   shared 8192                      bytes of dynamic shared memory
    ///   param NAME = 100 | -3 | 0x1f | 1.5  a scalar parameter (name or index)
    ///   buffer NAME = zero 256           a pointer parameter: 256 zero bytes
    ///   buffer NAME = u32 1 2 0x10       or elements (u8..u64, s8..s64, f32, f64)
    ///   expect NAME = u32 2 4 0x20       check the buffer's first elements after the run
    ///   expect NAME+16 = u8 7            ... or those from byte 16 on
    /// '#' starts a comment; a line ending in '\' goes on on the next.
    /// Every scalar parameter must be given; a pointer not named gets
    /// --buffer-size zero bytes. For f32/f64, 0x... is the
    /// bit pattern, anything else a number. Exit 1 if an expectation fails
    /// or the kernel faults, 2 for a bad line, 3 if it cannot be modelled.
    #[command(verbatim_doc_comment)]
    Run {
        /// The PTX file.
        file: String,
        /// The kernel (or device function) to run; by default the inputs'
        /// `kernel` line, or the module's only kernel.
        #[arg(long)]
        kernel: Option<String>,
        /// Input seed (decimal or 0x hex).
        #[arg(long, default_value = "0x5eed", value_parser = parse_seed)]
        seed: u64,
        /// Which trial's inputs to use (0 = tame values).
        #[arg(long, default_value_t = 0)]
        trial: u32,
        /// A file of given inputs (see above) instead of invented ones.
        #[arg(long)]
        inputs: Option<String>,
        /// One line of given inputs; repeatable, applied after --inputs.
        #[arg(long = "input")]
        input_lines: Vec<String>,
        #[command(flatten)]
        launch: LaunchArgs,
    },
    /// Check two PTX files for equivalence, kernel by kernel.
    Diff {
        /// Before.
        a: String,
        /// After.
        b: String,
        /// Only this kernel (or device function).
        #[arg(long)]
        kernel: Option<String>,
        /// Input sets per kernel.
        #[arg(long, default_value_t = 6)]
        trials: u32,
        /// Input seed (decimal or 0x hex).
        #[arg(long, default_value = "0x5eed", value_parser = parse_seed)]
        seed: u64,
        #[command(flatten)]
        launch: LaunchArgs,
    },
    /// Compare every kernel of each file with itself and count the kernels
    /// checked conclusively, grouped by why the others were not (the
    /// interpreter's coverage of a corpus; scripts/interp-coverage.sh).
    Coverage {
        /// PTX files.
        #[arg(required = true)]
        files: Vec<String>,
        /// Input sets per kernel.
        #[arg(long, default_value_t = 6)]
        trials: u32,
        /// Also list every kernel not checked conclusively.
        #[arg(long)]
        list: bool,
    },
}

#[derive(clap::Args)]
struct LaunchArgs {
    /// CTAs in x.
    #[arg(long, default_value_t = 2)]
    grid: u32,
    /// Threads per CTA in x (a kernel's .reqntid wins).
    #[arg(long, default_value_t = 32)]
    block: u32,
    /// Bytes per pointer argument buffer.
    #[arg(long, default_value_t = 4096)]
    buffer_size: usize,
    /// Instructions a launch may execute.
    #[arg(long, default_value_t = 4_000_000)]
    step_limit: u64,
    /// Bytes of dynamic shared memory (`.extern .shared x[]`; a .run file's
    /// `shared N` wins).
    #[arg(long, default_value_t = 4096)]
    dynamic_shared: u32,
}

impl LaunchArgs {
    fn config(&self) -> LaunchConfig {
        LaunchConfig {
            grid: [self.grid, 1, 1],
            block: [self.block, 1, 1],
            step_limit: self.step_limit,
            dynamic_shared_bytes: self.dynamic_shared,
        }
    }
}

fn parse_seed(s: &str) -> Result<u64, String> {
    let r = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16),
        None => s.parse(),
    };
    r.map_err(|e| format!("bad seed '{s}': {e}"))
}

fn load(path: &str) -> Result<ptx_ir::Module, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    ptx_parse::parse(&text).map_err(|errs| {
        let msgs: Vec<String> = errs.iter().map(|d| d.message.clone()).collect();
        format!("{path}: does not parse: {}", msgs.join("; "))
    })
}

/// A module `.global` variable's contents as values of its declared type
/// (`.u64`: `3 0 7`), for a variable of a scalar type of 1 to 8 bytes and at
/// most 256 elements; None otherwise (printed as hex).
fn global_values(prog: &Program<'_>, name: &str, data: &[u8]) -> Option<(String, String)> {
    let var = prog.module.items.iter().find_map(|item| match item {
        ptx_ir::ModuleItem::Variable(v) if v.name == name => Some(v),
        _ => None,
    })?;
    let ty = var.ty()?;
    let width = ty.bytes() as usize;
    if !matches!(width, 1 | 2 | 4 | 8)
        || !data.len().is_multiple_of(width)
        || data.len() / width > 256
        || ty.bits() != width as u32 * 8
    {
        return None;
    }
    let values: Vec<String> = data
        .chunks(width)
        .map(|c| {
            let mut b = [0u8; 8];
            b[..width].copy_from_slice(c);
            let bits = u64::from_le_bytes(b);
            match ty {
                ptx_ir::ScalarType::F32 => f32::from_bits(bits as u32).to_string(),
                ptx_ir::ScalarType::F64 => f64::from_bits(bits).to_string(),
                t if t.is_signed() => ((bits << (64 - 8 * width)) as i64 >> (64 - 8 * width)).to_string(),
                t if t.is_integer_like() => bits.to_string(),
                _ => format!("{bits:#x}"),
            }
        })
        .collect();
    Some((ty.as_str().to_string(), values.join(" ")))
}

fn hexdump(data: &[u8]) -> String {
    let mut out = String::new();
    for (i, row) in data.chunks(32).enumerate() {
        out.push_str(&format!("  {:06x}:", i * 32));
        for (j, b) in row.iter().enumerate() {
            if j % 4 == 0 {
                out.push(' ');
            }
            out.push_str(&format!("{b:02x}"));
        }
        out.push('\n');
    }
    out
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Run { file, kernel, seed, trial, inputs, input_lines, launch } => {
            let module = match load(&file) {
                Ok(m) => m,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            let prog = Program::new(&module);
            let given = match given_inputs(inputs.as_deref(), &input_lines) {
                Ok(g) => g,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            let kernel = match kernel.or_else(|| given.as_ref().and_then(|g| g.kernel.clone())) {
                Some(k) => k,
                None => {
                    let kernels: Vec<&str> = module
                        .functions
                        .values()
                        .filter(|f| f.has_body() && ptx_interp::program::is_kernel(f))
                        .map(|f| f.name.as_str())
                        .collect();
                    match kernels.as_slice() {
                        [one] => one.to_string(),
                        _ => {
                            eprintln!("error: {} kernels: name one with --kernel", kernels.len());
                            return ExitCode::from(2);
                        }
                    }
                }
            };
            let Some(func) = prog.function(&kernel) else {
                eprintln!("error: no function with a body named '{kernel}'");
                return ExitCode::from(2);
            };
            let specs = infer_params(&prog, func);
            let mut config = launch.config();
            let args = match &given {
                Some(g) => {
                    config.grid = g.grid.unwrap_or(config.grid);
                    config.block = g.block.unwrap_or(config.block);
                    config.dynamic_shared_bytes = g.dynamic_shared.unwrap_or(config.dynamic_shared_bytes);
                    match g.args(&specs, launch.buffer_size) {
                        Ok(a) => a,
                        Err(e) => {
                            eprintln!("error: {e}");
                            return ExitCode::from(2);
                        }
                    }
                }
                None => make_args(&specs, seed, trial, launch.buffer_size),
            };
            for (spec, bytes) in specs.iter().zip(&args.params) {
                let kind = match spec.kind {
                    ParamKind::Pointer => "pointer".to_string(),
                    ParamKind::Int { bits, .. } => format!("int{bits}"),
                    ParamKind::Float { bits } => format!("float{bits}"),
                    ParamKind::Bytes => "bytes".to_string(),
                };
                let hex: String = bytes.iter().rev().map(|b| format!("{b:02x}")).collect();
                println!("param {} ({kind}) = 0x{hex}", spec.name);
            }
            match run_function(&prog, func, &args, &config) {
                Ok(out) => {
                    for b in &out.buffers {
                        println!("buffer {} at {:#x}:", b.name, b.base);
                        print!("{}", hexdump(&b.data));
                    }
                    let problems = given.as_ref().map(|g| g.check(&specs, &out)).unwrap_or_default();
                    for (name, data) in &out.globals {
                        match global_values(&prog, name, data) {
                            Some((ty, values)) => println!("global {name} (.{ty}): {values}"),
                            None => {
                                println!("global {name}:");
                                print!("{}", hexdump(data));
                            }
                        }
                    }
                    if !out.printed.is_empty() {
                        println!("printf output:");
                        for line in out.printed.lines() {
                            println!("  {line}");
                        }
                    }
                    for (t, r) in out.returns.iter().enumerate() {
                        let hex: String = r.iter().map(|b| format!("{b:02x}")).collect();
                        println!("thread {t} returned {hex}");
                    }
                    println!("{} instructions executed, {}/{} covered", out.steps, out.covered, out.total_insts);
                    if let Some(g) = &given {
                        println!(
                            "{} of {} expectations met",
                            g.expectation_count() - problems.len().min(g.expectation_count()),
                            g.expectation_count()
                        );
                    }
                    for p in &problems {
                        eprintln!("expectation failed: {p}");
                    }
                    if problems.is_empty() {
                        ExitCode::SUCCESS
                    } else {
                        ExitCode::from(1)
                    }
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::from(if e.class() == ErrorClass::CannotModel { 3 } else { 1 })
                }
            }
        }
        Command::Diff { a, b, kernel, trials, seed, launch } => {
            let (ma, mb) = match (load(&a), load(&b)) {
                (Ok(x), Ok(y)) => (x, y),
                (Err(e), _) | (_, Err(e)) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            let opts = DiffOptions { kernel, trials, seed, launch: launch.config(), buffer_size: launch.buffer_size };
            let report = diff_modules(&ma, &mb, &opts);
            print!("{report}");
            ExitCode::from(report.exit_code() as u8)
        }
        Command::Coverage { files, trials, list } => coverage(&files, trials, list),
    }
}

/// `diff F F` over `files`: the count of conclusive kernels and a table of
/// the causes of the rest, most frequent first.
fn coverage(files: &[String], trials: u32, list: bool) -> ExitCode {
    let opts = DiffOptions { trials, ..DiffOptions::default() };
    let mut kernels = 0usize;
    let mut conclusive = 0usize;
    let mut causes: std::collections::BTreeMap<String, usize> = Default::default();
    let mut unreadable = 0usize;
    // Of the conclusive kernels: trials run and trials compared.
    let (mut trials_run, mut trials_compared) = (0u64, 0u64);
    for path in files {
        let module = match load(path) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("error: {e}");
                unreadable += 1;
                continue;
            }
        };
        for k in diff_modules(&module, &module, &opts).kernels {
            kernels += 1;
            match k.cause() {
                None => {
                    conclusive += 1;
                    trials_run += u64::from(k.trials);
                    trials_compared += u64::from(k.conclusive);
                }
                Some(cause) => {
                    if list {
                        println!("{path} {}: {cause}", k.name);
                    }
                    *causes.entry(cause).or_default() += 1;
                }
            }
        }
    }
    let percent = if kernels == 0 { 0.0 } else { 100.0 * conclusive as f64 / kernels as f64 };
    println!("files {}, kernels {kernels}, conclusive {conclusive} ({percent:.1}%)", files.len() - unreadable);
    let share = if trials_run == 0 { 0.0 } else { 100.0 * trials_compared as f64 / trials_run as f64 };
    println!("trials of the conclusive kernels: {trials_compared} of {trials_run} compared ({share:.1}%)");
    let mut rows: Vec<(String, usize)> = causes.into_iter().collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    for (cause, n) in rows {
        println!("{n:>6}  {cause}");
    }
    ExitCode::from(if unreadable > 0 { 2 } else { 0 })
}

/// The given inputs of `run`, if any: the file, then each line.
fn given_inputs(file: Option<&str>, lines: &[String]) -> Result<Option<GivenInputs>, String> {
    if file.is_none() && lines.is_empty() {
        return Ok(None);
    }
    let mut given = GivenInputs::default();
    if let Some(path) = file {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
        given.add_text(&text).map_err(|e| format!("{path}: {e}"))?;
    }
    for line in lines {
        given.add_text(line).map_err(|e| format!("--input '{line}': {e}"))?;
    }
    Ok(Some(given))
}
