//! `ptx-bench`: what ptx-opt costs, measured on real PTX.
//!
//! ptx-opt sits in a build between the compiler and ptxas, or in a JIT
//! before the driver; it must cost next to nothing there. This crate holds
//! the pieces shared by the criterion benchmarks (`benches/stages.rs`) and
//! the `ptx-bench` report (`src/main.rs`): where the corpus files are, how to
//! load them (`.gz` included), the [`Stage`]s that are measured (parse,
//! print, analyses, each pass, -O2 end to end), and [`scale`], which makes a
//! bigger input from a file by repeating its functions under new names, for
//! the linearity check.

#![warn(missing_docs)]

use ptx_ir::{Module, ModuleItem};
use std::collections::HashSet;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The directory of the public corpus (`/work/shared/corpus/public` beside the checkout).
pub fn public_corpus_dir() -> PathBuf {
    ptx_toolchain::workspace_root().join("../shared/corpus/public")
}

/// The largest file of the public corpus (3.6 MB of thrust/CUB device code).
pub fn largest_public_file() -> PathBuf {
    public_corpus_dir().join("nvcc-13.5__thrust_cub_device__sm_80.ptx")
}

/// The big benchmark file (CUB radix sort, 865 kernels, 54 MB uncompressed).
pub fn bench_file() -> PathBuf {
    ptx_toolchain::workspace_root().join("../shared/corpus/bench/nvcc-13.5__radix_sort_matrix_k3v3__sm_90.ptx.gz")
}

/// Every `.ptx` file of the public corpus, sorted by name.
pub fn public_corpus_files() -> io::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(public_corpus_dir())?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
        .collect();
    files.sort();
    Ok(files)
}

/// Reads a PTX file; a `.gz` file is decompressed with `gzip -dc`.
pub fn load(path: &Path) -> io::Result<String> {
    if path.extension().is_some_and(|x| x == "gz") {
        let out = std::process::Command::new("gzip").arg("-dc").arg(path).output()?;
        if !out.status.success() {
            let message = String::from_utf8_lossy(&out.stderr).into_owned();
            return Err(io::Error::other(format!("gzip -dc {}: {message}", path.display())));
        }
        String::from_utf8(out.stdout).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
    } else {
        std::fs::read_to_string(path)
    }
}

/// A short name for a file in reports: the file name without `.ptx`/`.gz`.
pub fn short_name(path: &Path) -> String {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("?");
    name.trim_end_matches(".gz").trim_end_matches(".ptx").to_string()
}

/// One measured stage of the pipeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stage {
    /// `ptx_opt::parse`: source to IR (grammar, lowering, limits).
    Parse,
    /// `ptx_opt::print` of an unchanged module (the source comes back verbatim).
    Print,
    /// The canonical printer (`--reformat`): every function printed from the IR.
    PrintCanonical,
    /// `ptx_opt::optimize` with no pass on one thread: what `ptx-opt FILE`
    /// costs (the input is parsed and verified in batches; the output is the
    /// input).
    ParsePrint,
    /// The same with `skip_verify` (`ptx-opt --no-verify FILE`): the input is
    /// only parsed, no module is kept.
    ParsePrintNoVerify,
    /// `ptx_opt::parse` then `ptx_opt::print`, keeping the whole module.
    ParsePrintModule,
    /// `ptx_analysis::FunctionAnalyses` (CFG, dominators, reaching
    /// definitions and def-use) of every function.
    Analyses,
    /// One registered pass alone, run by the pass manager on one thread.
    Pass(String),
    /// `ptx_opt::optimize` at -O2 on one thread: parse, passes, print, streamed
    /// in batches as `ptx-opt -O2 FILE` runs it.
    O2,
    /// [`Stage::ParsePrint`] on every core, as `ptx-opt FILE` runs by default
    /// (parsing beside verifying).
    ParsePrintAllCores,
    /// [`Stage::O2`] on every core, as `ptx-opt -O2 FILE` runs by default.
    O2AllCores,
}

impl Stage {
    /// Every stage, the passes of the registry included.
    pub fn all() -> Vec<Stage> {
        let mut stages = vec![
            Stage::Parse,
            Stage::Print,
            Stage::PrintCanonical,
            Stage::ParsePrint,
            Stage::ParsePrintNoVerify,
            Stage::ParsePrintModule,
            Stage::Analyses,
        ];
        // Each pass that runs without options (lower-ptx-version needs its version).
        let bare = ptx_opt::passes().into_iter().filter(|p| ptx_opt::parse_pipeline(p.name).is_ok());
        stages.extend(bare.map(|p| Stage::Pass(p.name.to_string())));
        stages.extend([Stage::O2, Stage::ParsePrintAllCores, Stage::O2AllCores]);
        stages
    }

    /// The stage's name in reports and on the command line.
    pub fn name(&self) -> String {
        match self {
            Stage::Parse => "parse".into(),
            Stage::Print => "print".into(),
            Stage::PrintCanonical => "print-canonical".into(),
            Stage::ParsePrint => "parse+print".into(),
            Stage::ParsePrintNoVerify => "parse+print-no-verify".into(),
            Stage::ParsePrintModule => "parse+print-module".into(),
            Stage::Analyses => "analyses".into(),
            Stage::Pass(p) => format!("pass:{p}"),
            Stage::O2 => "-O2".into(),
            Stage::ParsePrintAllCores => "parse+print-all-cores".into(),
            Stage::O2AllCores => "-O2-all-cores".into(),
        }
    }

    /// The stage of a name given by [`Stage::name`].
    pub fn from_name(name: &str) -> Option<Stage> {
        Some(match name {
            "parse" => Stage::Parse,
            "print" => Stage::Print,
            "print-canonical" => Stage::PrintCanonical,
            "parse+print" => Stage::ParsePrint,
            "parse+print-no-verify" => Stage::ParsePrintNoVerify,
            "parse+print-module" => Stage::ParsePrintModule,
            "analyses" => Stage::Analyses,
            "-O2" => Stage::O2,
            "parse+print-all-cores" => Stage::ParsePrintAllCores,
            "-O2-all-cores" => Stage::O2AllCores,
            other => Stage::Pass(other.strip_prefix("pass:")?.to_string()),
        })
    }
}

/// Options of one thread, as every measurement uses.
pub fn one_thread(options: ptx_opt::Options) -> ptx_opt::Options {
    ptx_opt::Options { threads: Some(1), ..options }
}

/// Parses or panics with the first diagnostic: benchmark inputs are valid.
/// The module shares the benchmark's text ([`ptx_opt::parse_shared`]), as a
/// JIT keeping its modules would: the text is in memory once.
pub fn parse_ok(source: &std::sync::Arc<str>) -> Module {
    match ptx_opt::parse_shared(source.clone()) {
        Ok(m) => m,
        Err(e) => panic!("benchmark input does not parse: {e}"),
    }
}

/// Computes the analyses of every function with a body; returns the number
/// of def-use nodes, so the work cannot be optimized away.
pub fn run_analyses(module: &Module) -> usize {
    let mut total = 0;
    for func in module.functions.values().filter(|f| f.has_body()) {
        let analyses = ptx_analysis::FunctionAnalyses::new();
        let cfg = analyses.cfg(func);
        let _ = analyses.dominators(func);
        let du = analyses.def_use(func);
        total += cfg.num_blocks() + du.use_sites().len();
    }
    total
}

/// Runs `stage` once on `source` and returns its time. `parsed` is a module
/// parsed from `source` for the stages that start from the IR (print,
/// analyses, passes); a pass consumes it, so the caller parses again.
pub fn run_stage(stage: &Stage, source: &std::sync::Arc<str>, parsed: &mut Option<Module>) -> Duration {
    let needs_module = matches!(stage, Stage::Print | Stage::PrintCanonical | Stage::Analyses | Stage::Pass(_));
    if needs_module && parsed.is_none() {
        *parsed = Some(parse_ok(source));
    }
    if !needs_module {
        // Freeing the previous run's module is not this run's work.
        *parsed = None;
    }
    let start = Instant::now();
    match stage {
        Stage::Parse => {
            let m = parse_ok(source);
            let elapsed = start.elapsed();
            *parsed = Some(m);
            return elapsed;
        }
        Stage::Print => {
            std::hint::black_box(ptx_opt::print(parsed.as_ref().expect("parsed above")));
        }
        Stage::PrintCanonical => {
            std::hint::black_box(ptx_ir::print::print_module_canonical(parsed.as_ref().expect("parsed above")));
        }
        Stage::ParsePrint | Stage::ParsePrintNoVerify => {
            let skip_verify = *stage == Stage::ParsePrintNoVerify;
            let options = one_thread(ptx_opt::Options { skip_verify, ..Default::default() });
            write_out(ptx_opt::optimize_text(source.clone(), &options), "benchmark input is not valid");
        }
        Stage::ParsePrintModule => {
            let m = parse_ok(source);
            std::hint::black_box(ptx_opt::print(&m));
        }
        Stage::Analyses => {
            std::hint::black_box(run_analyses(parsed.as_ref().expect("parsed above")));
        }
        Stage::Pass(name) => {
            let mut m = parsed.take().expect("parsed above");
            // The pass alone: the input is known to be valid.
            let options =
                one_thread(ptx_opt::Options { skip_verify: true, ..ptx_opt::Options::with_passes([name.as_str()]) });
            let run = ptx_opt::run_passes(&mut m, &options);
            let elapsed = start.elapsed();
            if let Err(e) = run {
                panic!("pass {name} failed: {e}");
            }
            return elapsed;
        }
        Stage::O2 | Stage::O2AllCores => {
            let options = ptx_opt::Options::with_level(2);
            let options = if *stage == Stage::O2 { one_thread(options) } else { options };
            write_out(ptx_opt::optimize_text(source.clone(), &options), "-O2 failed");
        }
        Stage::ParsePrintAllCores => write_out(
            ptx_opt::optimize_text(source.clone(), &ptx_opt::Options::default()),
            "benchmark input is not valid",
        ),
    }
    start.elapsed()
}

/// What `ptx-opt` does with the output of a run: it writes the pieces out
/// (here to nowhere: the kernel's copy into a file is not ptx-opt's work).
fn write_out(result: Result<(ptx_opt::OutputText, ptx_opt::PassRun), ptx_opt::Error>, failure: &str) {
    match result {
        Ok((text, run)) => {
            let mut sink = std::io::sink();
            text.write_to(&mut sink).expect("writing to a sink cannot fail");
            std::hint::black_box((text, run));
        }
        Err(e) => panic!("{failure}: {e}"),
    }
}

/// A bigger input made from `source`: the module followed by `times - 1`
/// more copies of every function (definitions and the declarations of
/// functions the file defines), each copy with the file's function names
/// renamed (`f` becomes `f_x2` in the second copy), so calls stay within a
/// copy. `.extern` functions and variables are shared. `None` if `source`
/// does not parse.
pub fn scale(source: &str, times: usize) -> Option<String> {
    let module = ptx_opt::parse(source).ok()?;
    let defined: HashSet<&str> = module.functions.values().filter(|f| f.has_body()).map(|f| f.name.as_str()).collect();
    let items: Vec<&str> = module
        .items
        .iter()
        .filter_map(|item| match item {
            ModuleItem::Function(id) if defined.contains(module.functions[*id].name.as_str()) => {
                let span = module.functions[*id].span;
                source.get(span.start as usize..span.end as usize)
            }
            _ => None,
        })
        .collect();
    let copy_len: usize = items.iter().map(|t| t.len() + 2).sum();
    let mut out = String::with_capacity(source.len() + (copy_len + 64) * times.saturating_sub(1));
    out.push_str(source);
    for copy in 2..=times {
        let suffix = format!("_x{copy}");
        for text in &items {
            out.push('\n');
            rename_into(text, &defined, &suffix, &mut out);
            out.push('\n');
        }
    }
    Some(out)
}

/// Copies `text` to `out`, appending `suffix` to every identifier in `names`.
fn rename_into(text: &str, names: &HashSet<&str>, suffix: &str, out: &mut String) {
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'%');
    let bytes = text.as_bytes();
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        if !is_ident(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && is_ident(bytes[i]) {
            i += 1;
        }
        if names.contains(&text[start..i]) {
            out.push_str(&text[copied..i]);
            out.push_str(suffix);
            copied = i;
        }
    }
    out.push_str(&text[copied..]);
}

/// The process's peak resident set (`VmHWM`) and current one (`VmRSS`), in
/// bytes, from `/proc/self/status`; `None` where there is no procfs.
pub fn memory() -> Option<(u64, u64)> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let field = |key: &str| -> Option<u64> {
        let line = status.lines().find(|l| l.starts_with(key))?;
        let kb: u64 = line[key.len()..].trim().trim_end_matches("kB").trim().parse().ok()?;
        Some(kb * 1024)
    };
    Some((field("VmHWM:")?, field("VmRSS:")?))
}

/// Starts [`memory`]'s peak afresh from the current resident set (Linux:
/// `/proc/self/clear_refs`), so that a peak measured after loading an input
/// is that of the run, with the input held once as `ptx-opt` holds it, not
/// that of decompressing and copying it here; false where it cannot.
pub fn reset_peak_memory() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str = ".version 8.0\n.target sm_80\n.address_size 64\n\
        .func (.param .b32 r) f(.param .b32 a)\n{\n\t.reg .b32 %r<2>;\n\tld.param.b32 %r1, [a];\n\tst.param.b32 [r], %r1;\n\tret;\n}\n\
        .visible .entry k()\n{\n\t.param .b32 x;\n\tcall.uni (x), f, (x);\n\tret;\n}\n";

    #[test]
    fn scaled_input_parses_with_renamed_copies() {
        let scaled = scale(PTX, 3).expect("parses");
        let module = parse_ok(&std::sync::Arc::from(scaled.as_str()));
        let names: Vec<&str> = module.functions.values().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["f", "k", "f_x2", "k_x2", "f_x3", "k_x3"]);
        assert!(scaled.contains("call.uni (x), f_x3, (x);"));
        assert_eq!(scale(PTX, 1).as_deref(), Some(PTX));
    }

    #[test]
    fn stage_names_round_trip() {
        for stage in Stage::all() {
            assert_eq!(Stage::from_name(&stage.name()), Some(stage));
        }
    }
}
