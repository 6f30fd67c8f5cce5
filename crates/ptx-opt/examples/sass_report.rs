//! Benchmark (not a test): what the `-O2` pipeline (or `--passes a,b`) does
//! to the machine code. For every public corpus file
//! (`../shared/corpus/public/*.ptx`) and every pass case
//! (`testdata/passes/*/*.ptx`), the module is compiled before and after the
//! passes with ptxas (default -O3) for its own `.target`, and each kernel's
//! non-NOP SASS instructions are counted with nvdisasm
//! (`ptx_toolchain::FunctionSass::non_nop`). Prints one row per kernel whose
//! count or PTX changed, then totals over every kernel compiled; exits 1 if
//! any kernel got longer or an output was rejected, 2 on a usage error.
//!
//! Skipped, not failures: pass cases marked `expect: error` (not valid PTX),
//! inputs ptxas rejects as they are, and cubins nvdisasm 13.5 cannot read
//! (`sm_70`/`sm_72`, compiled by CUDA 12.9's ptxas).
//!
//! ```text
//! scripts/sass-report.sh [--markdown] [--passes a,b] [PATH...]
//! cargo run --release -q -p ptx-opt --example sass_report -- [--markdown] [--passes a,b] [PATH...]
//! ```
//!
//! `--markdown` prints the table as Markdown (README, "SASS report");
//! `--passes combine-cvt-pack` is the report of that pass alone. PATHs
//! (`.ptx` files or folders of them) replace the default inputs. Files run
//! in parallel (ptxas is the slow part); the output is sorted by file, then
//! kernel.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use ptx_toolchain::{PtxasError, SassCounts, Toolchain};
use rayon::prelude::*;

const USAGE: &str = "usage: sass_report [--markdown] [--passes a,b] [PATH...]";

struct Args {
    markdown: bool,
    passes: Option<Vec<String>>,
    paths: Vec<PathBuf>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args { markdown: false, passes: None, paths: Vec::new() };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let passes = match a.as_str() {
            "--markdown" => {
                args.markdown = true;
                continue;
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0)
            }
            "--passes" => it.next().ok_or("--passes needs a list")?,
            s if s.starts_with("--passes=") => s["--passes=".len()..].to_owned(),
            s if s.starts_with('-') => return Err(format!("unknown option `{s}`")),
            _ => {
                args.paths.push(PathBuf::from(a));
                continue;
            }
        };
        let passes: Vec<String> =
            passes.split(',').map(str::trim).filter(|p| !p.is_empty()).map(String::from).collect();
        let known = ptx_opt::passes();
        if let Some(unknown) = passes.iter().find(|p| !known.iter().any(|k| k.name == p.as_str())) {
            return Err(format!("unknown pass `{unknown}` (registered: {})", names(&known)));
        }
        args.passes = Some(passes);
    }
    Ok(args)
}

/// `1 file`, `2 files`.
fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

fn names(passes: &[ptx_opt::PassDescription]) -> String {
    passes.iter().map(|p| p.name).collect::<Vec<_>>().join(", ")
}

/// One input: the file, and how it is named in the report.
struct Input {
    path: PathBuf,
    label: String,
}

fn ptx_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
        .collect();
    files.sort();
    Ok(files)
}

/// The public corpus (labelled by file name) and the pass cases (labelled by
/// their path in the repository), or the given paths as given, sorted.
fn inputs(paths: &[PathBuf]) -> Result<Vec<Input>, String> {
    let mut inputs = Vec::new();
    if paths.is_empty() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        for path in ptx_files(&root.join("../shared/corpus/public"))? {
            let label = path.file_name().unwrap_or_default().to_string_lossy().into_owned();
            inputs.push(Input { path, label });
        }
        let cases = root.join("testdata/passes");
        let mut folders: Vec<PathBuf> = std::fs::read_dir(&cases)
            .map_err(|e| format!("cannot read {}: {e}", cases.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_dir())
            .collect();
        folders.sort();
        for folder in folders {
            let pass = folder.file_name().unwrap_or_default().to_string_lossy().into_owned();
            for path in ptx_files(&folder)? {
                let case = path.file_name().unwrap_or_default().to_string_lossy().into_owned();
                inputs.push(Input { path, label: format!("testdata/passes/{pass}/{case}") });
            }
        }
        // The corpus, then the pass cases, each sorted.
        return Ok(inputs);
    }
    for p in paths {
        if p.is_dir() {
            for path in ptx_files(p)? {
                inputs.push(Input { label: path.display().to_string(), path });
            }
        } else {
            inputs.push(Input { path: p.clone(), label: p.display().to_string() });
        }
    }
    inputs.sort_by(|a, b| a.label.cmp(&b.label));
    Ok(inputs)
}

/// A kernel (a `.text.<name>` section: a kernel or a function ptxas kept on
/// its own) and its non-NOP SASS instructions before and after.
struct Kernel {
    name: String,
    before: usize,
    after: usize,
    /// The passes changed the function's PTX.
    ptx_changed: bool,
}

enum Outcome {
    Compiled(Vec<Kernel>),
    Skipped(String),
    Failed(String),
}

/// The first line of a tool's message, for a one-line report.
fn first_line(e: &PtxasError) -> String {
    let text = e.to_string();
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let head = lines.next().unwrap_or("");
    match lines.next() {
        Some(next) if head.ends_with(':') => format!("{head} {next}"),
        _ => head.to_owned(),
    }
}

/// A pass case that states `expect: error` in its opening comment.
fn expects_error(source: &str) -> bool {
    source
        .lines()
        .map(str::trim)
        .take_while(|l| l.starts_with("//") || l.is_empty())
        .any(|l| l.trim_start_matches('/').trim() == "expect: error")
}

fn compile_and_count(tc: &Toolchain, ptx: &str, target: &str) -> Result<Result<SassCounts, PtxasError>, PtxasError> {
    let cubin = tc.compile(ptx, target, &[])?;
    Ok(tc.sass_instruction_count(&cubin))
}

fn report_file(tc: &Toolchain, options: &ptx_opt::Options, path: &Path) -> Outcome {
    let source = match std::fs::read_to_string(path) {
        Ok(s) => s,
        Err(e) => return Outcome::Failed(format!("cannot read: {e}")),
    };
    if expects_error(&source) {
        return Outcome::Skipped("expect: error (not valid PTX)".into());
    }
    let Some(target) = ptx_toolchain::target_of(&source) else {
        return Outcome::Skipped("no `.target sm_XX`".into());
    };
    let mut module = match ptx_opt::parse(&source) {
        Ok(m) => m,
        Err(e) => return Outcome::Failed(format!("does not parse: {e}")),
    };
    if let Err(e) = ptx_opt::run_passes(&mut module, options) {
        return Outcome::Failed(format!("the passes failed: {e}"));
    }
    let after = ptx_opt::print(&module);
    let changed: Vec<&str> =
        module.functions.values().filter(|f| f.has_body() && !f.is_pristine()).map(|f| f.name.as_str()).collect();
    // Unchanged output is the input byte for byte, and ptxas is deterministic.
    let same = after == source;
    let (before, after) = rayon::join(
        || compile_and_count(tc, &source, &target),
        || if same { None } else { Some(compile_and_count(tc, &after, &target)) },
    );
    let before = match before {
        Ok(Ok(counts)) => counts,
        Ok(Err(PtxasError::Rejected { .. })) => {
            return Outcome::Skipped(format!("nvdisasm cannot read {target} cubins"))
        }
        Ok(Err(e)) => return Outcome::Failed(format!("nvdisasm failed on the input's cubin: {}", first_line(&e))),
        Err(e) => return Outcome::Skipped(format!("ptxas rejects the input: {}", first_line(&e))),
    };
    let after = match after {
        None => before.clone(),
        Some(Ok(Ok(counts))) => counts,
        Some(Ok(Err(e))) => {
            return Outcome::Failed(format!("nvdisasm cannot read the output's cubin: {}", first_line(&e)))
        }
        Some(Err(e)) => return Outcome::Failed(format!("ptxas rejects the output: {}", first_line(&e))),
    };
    let after_by_name: BTreeMap<&str, usize> = after.functions.iter().map(|f| (f.name.as_str(), f.non_nop)).collect();
    let before_names: Vec<&str> = before.functions.iter().map(|f| f.name.as_str()).collect();
    if before.functions.len() != after.functions.len() || before_names.iter().any(|n| !after_by_name.contains_key(n)) {
        let after_names: Vec<&str> = after_by_name.keys().copied().collect();
        return Outcome::Failed(format!("the kernels differ: {before_names:?} before, {after_names:?} after"));
    }
    let mut kernels: Vec<Kernel> = before
        .functions
        .iter()
        .map(|f| Kernel {
            name: f.name.clone(),
            before: f.non_nop,
            after: after_by_name[f.name.as_str()],
            ptx_changed: changed.contains(&f.name.as_str()),
        })
        .collect();
    kernels.sort_by(|a, b| a.name.cmp(&b.name));
    Outcome::Compiled(kernels)
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let inputs = match inputs(&args.paths) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let tc = match ptx_toolchain::ensure() {
        Ok(tc) => tc,
        Err(e) => {
            eprintln!("cannot get ptxas and nvdisasm: {e}");
            return ExitCode::from(2);
        }
    };
    let (options, pipeline) = match &args.passes {
        Some(p) => (ptx_opt::Options::with_passes(p.iter().map(String::as_str)), p.join(",")),
        None => (ptx_opt::Options::with_level(2), format!("-O2 ({})", ptx_opt::pipeline(2).join(","))),
    };

    // Largest files first, so that the slowest ptxas runs do not come last.
    let mut order: Vec<usize> = (0..inputs.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(std::fs::metadata(&inputs[i].path).map(|m| m.len()).unwrap_or(0)));
    let mut outcomes: Vec<(usize, Outcome)> =
        order.into_par_iter().with_max_len(1).map(|i| (i, report_file(&tc, &options, &inputs[i].path))).collect();
    outcomes.sort_by_key(|(i, _)| *i);

    // Rows: kernels whose count or PTX changed. Totals: every kernel compiled.
    let mut rows: Vec<(&str, &Kernel)> = Vec::new();
    let (mut files, mut kernels, mut before, mut after, mut shorter, mut longer) = (0, 0, 0, 0, 0, 0);
    let mut skipped: Vec<(&str, &str)> = Vec::new();
    let mut failed: Vec<(&str, &str)> = Vec::new();
    for (i, outcome) in &outcomes {
        let label = inputs[*i].label.as_str();
        match outcome {
            Outcome::Compiled(ks) => {
                files += 1;
                for k in ks {
                    kernels += 1;
                    before += k.before;
                    after += k.after;
                    shorter += usize::from(k.after < k.before);
                    longer += usize::from(k.after > k.before);
                    if k.ptx_changed || k.after != k.before {
                        rows.push((label, k));
                    }
                }
            }
            Outcome::Skipped(why) => skipped.push((label, why)),
            Outcome::Failed(why) => failed.push((label, why)),
        }
    }
    let delta = |b: usize, a: usize| a as i64 - b as i64;
    let percent = if before == 0 { 0.0 } else { 100.0 * delta(before, after) as f64 / before as f64 };
    let summary = format!(
        "{} compiled in {}: {before} -> {after} non-NOP SASS instructions ({:+}, {percent:+.2}%), \
         {shorter} shorter, {longer} longer",
        plural(kernels, "kernel"),
        plural(files, "file"),
        delta(before, after)
    );

    if args.markdown {
        // The summary, then the table folded (it is long), ready to paste.
        let mut reasons: BTreeMap<&str, usize> = BTreeMap::new();
        for (_, why) in &skipped {
            *reasons.entry(why).or_default() += 1;
        }
        let skipped: Vec<String> = reasons.iter().map(|(why, n)| format!("{}, {why}", plural(*n, "file"))).collect();
        let skipped = if skipped.is_empty() { String::new() } else { format!(" Skipped: {}.", skipped.join("; ")) };
        println!("Pipeline `{pipeline}`: {summary}.{skipped}");
        for (file, why) in &failed {
            println!("\n**Failed** `{file}`: {why}");
        }
        println!();
        println!("<details><summary>The {} kernels whose PTX or SASS count changed</summary>", rows.len());
        println!();
        println!("| file | kernel | before | after | delta |");
        println!("|---|---|--:|--:|--:|");
        for (file, k) in &rows {
            println!("| `{file}` | `{}` | {} | {} | {:+} |", k.name, k.before, k.after, delta(k.before, k.after));
        }
        println!("| **all {kernels} kernels** | | **{before}** | **{after}** | **{:+}** |", delta(before, after));
        println!();
        println!("</details>");
    } else {
        let fw = rows.iter().map(|(f, _)| f.len()).max().unwrap_or(0).max(4);
        // Long (mangled C++) names overflow their column rather than widen it for every row.
        let kw = rows.iter().map(|(_, k)| k.name.len()).filter(|&n| n <= 48).max().unwrap_or(0).max(6);
        println!("pipeline: {pipeline}");
        println!("{:<fw$}  {:<kw$}  {:>7}  {:>7}  {:>6}", "file", "kernel", "before", "after", "delta");
        for (file, k) in &rows {
            println!("{file:<fw$}  {:<kw$}  {:>7}  {:>7}  {:>+6}", k.name, k.before, k.after, delta(k.before, k.after));
        }
        println!();
        for (file, why) in &skipped {
            println!("skipped {file}: {why}");
        }
        for (file, why) in &failed {
            println!("FAILED {file}: {why}");
        }
        println!("{summary}; {} skipped, {} failed", plural(skipped.len(), "file"), failed.len());
    }
    if longer > 0 || !failed.is_empty() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
