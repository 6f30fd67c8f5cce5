//! `ptx-bench`: one report of what ptx-opt costs on real PTX.
//!
//! ```text
//! cargo run --release -p ptx-bench -- [OPTIONS] [FILE...]
//!   FILE...            PTX files (.ptx or .ptx.gz); default: the largest public
//!                      corpus file and the bench file
//!   --iters N          timed runs per stage (default 3; big inputs stop after 1 s)
//!   --stages a,b       only these stages (names as printed)
//!   --no-corpus        skip parse+print over all public corpus files
//!   --no-linearity     skip the 1x/4x/16x linearity check
//!   --linearity FILE   file for the linearity check (default: largest public file)
//!   --no-ptxas         skip the ptx-opt -O2 / ptxas comparison
//! ```
//!
//! Why this shape: every stage runs in a child process of this binary (on
//! one thread), so the peak resident set (`VmHWM`) reported for a stage is
//! that stage's own, not the largest of the whole run. Throughput is input
//! bytes over the best of the timed runs; the range of all runs is shown
//! because the machines this runs on are shared and noisy. The ptxas time
//! is measured in the same run on the same file, so the ratio compares like
//! with like; above 16 MB ptxas runs at -O0 (at -O3 it takes minutes), and
//! the report says so.

use ptx_bench::{load, scale, short_name, Stage};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

const MB: f64 = 1e6;

/// Inputs above this size are compiled by ptxas at -O0 for the comparison.
const PTXAS_O3_LIMIT: usize = 16 << 20;

struct Args {
    files: Vec<PathBuf>,
    iters: usize,
    stages: Option<Vec<String>>,
    corpus: bool,
    linearity: bool,
    linearity_file: Option<PathBuf>,
    ptxas: bool,
}

fn usage() -> ExitCode {
    eprintln!(
        "usage: ptx-bench [--iters N] [--stages a,b] [--no-corpus] [--no-linearity] [--linearity FILE] [--no-ptxas] [FILE...]"
    );
    ExitCode::from(2)
}

fn parse_args(mut raw: impl Iterator<Item = String>) -> Option<Args> {
    let mut args = Args {
        files: Vec::new(),
        iters: 3,
        stages: None,
        corpus: true,
        linearity: true,
        linearity_file: None,
        ptxas: true,
    };
    while let Some(a) = raw.next() {
        match a.as_str() {
            "--iters" => args.iters = raw.next()?.parse().ok().filter(|&n| n > 0)?,
            "--stages" => args.stages = Some(raw.next()?.split(',').map(str::to_string).collect()),
            "--no-corpus" => args.corpus = false,
            "--no-linearity" => args.linearity = false,
            "--linearity" => args.linearity_file = Some(PathBuf::from(raw.next()?)),
            "--no-ptxas" => args.ptxas = false,
            s if s.starts_with('-') => return None,
            _ => args.files.push(PathBuf::from(a)),
        }
    }
    if args.files.is_empty() {
        args.files = vec![ptx_bench::largest_public_file(), ptx_bench::bench_file()];
    }
    Some(args)
}

fn main() -> ExitCode {
    let mut raw = std::env::args().skip(1).peekable();
    if raw.peek().map(String::as_str) == Some("--child") {
        raw.next();
        return child(raw.collect());
    }
    let Some(args) = parse_args(raw) else { return usage() };
    match report(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ptx-bench: {e}");
            ExitCode::FAILURE
        }
    }
}

/// What a child measured.
struct Measured {
    bytes: usize,
    times: Vec<Duration>,
    peak_rss: u64,
    input_rss: u64,
    /// Instructions of the parsed module (the parse stage), else 0.
    insts: u64,
}

impl Measured {
    fn best(&self) -> Duration {
        self.times.iter().copied().min().unwrap_or_default()
    }

    fn worst(&self) -> Duration {
        self.times.iter().copied().max().unwrap_or_default()
    }

    fn mb_s(&self, t: Duration) -> f64 {
        self.bytes as f64 / MB / t.as_secs_f64().max(1e-9)
    }
}

/// Child process: `--child STAGE FILE SCALE ITERS`; FILE `@corpus` means
/// every public corpus file (stage parse+print only). Prints one `RESULT` line.
fn child(args: Vec<String>) -> ExitCode {
    let [stage, file, times, iters] = args.as_slice() else { return usage() };
    let (Some(stage), Ok(times), Ok(iters)) = (Stage::from_name(stage), times.parse::<usize>(), iters.parse::<usize>())
    else {
        return usage();
    };
    let sources: Vec<String> = if file == "@corpus" {
        let files = match ptx_bench::public_corpus_files() {
            Ok(f) => f,
            Err(e) => {
                eprintln!("ptx-bench: corpus: {e}");
                return ExitCode::FAILURE;
            }
        };
        files.iter().filter_map(|p| load(p).ok()).collect()
    } else {
        let source = match load(Path::new(file)) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("ptx-bench: {file}: {e}");
                return ExitCode::FAILURE;
            }
        };
        if times > 1 {
            match scale(&source, times) {
                Some(s) => vec![s],
                None => {
                    eprintln!("ptx-bench: {file} does not parse");
                    return ExitCode::FAILURE;
                }
            }
        } else {
            vec![source]
        }
    };
    // Shared as `ptx-opt` holds its input (`optimize_text`: no second copy).
    let sources: Vec<std::sync::Arc<str>> = sources.into_iter().map(std::sync::Arc::from).collect();
    let bytes: usize = sources.iter().map(|s| s.len()).sum();
    // Loading here copies the input (gzip's output, then the Arc) where
    // `ptx-opt` reads a file straight into its one copy.
    ptx_bench::reset_peak_memory();
    let input_rss = ptx_bench::memory().map_or(0, |(_, rss)| rss);
    let mut times = Vec::new();
    let mut first_run_peak = 0;
    let budget = Instant::now();
    let mut parsed: Vec<Option<ptx_ir::Module>> = sources.iter().map(|_| None).collect();
    while times.len() < iters && (times.is_empty() || budget.elapsed() < Duration::from_secs(1)) {
        let mut total = Duration::ZERO;
        for (source, parsed) in sources.iter().zip(parsed.iter_mut()) {
            total += ptx_bench::run_stage(&stage, source, parsed);
            if file == "@corpus" {
                *parsed = None;
            }
        }
        times.push(total);
        // The peak of one run, as `ptx-opt` has it: later runs in the same
        // process only add the allocator's fragmentation.
        if times.len() == 1 {
            first_run_peak = ptx_bench::memory().map_or(0, |(hwm, _)| hwm);
        }
    }
    let peak = first_run_peak;
    let times: Vec<String> = times.iter().map(|t| format!("{:.6}", t.as_secs_f64())).collect();
    // What the whole-module parse holds per instruction.
    let insts: usize = match stage {
        Stage::Parse => parsed.iter().flatten().map(instruction_count).sum(),
        _ => 0,
    };
    println!("RESULT {bytes} {peak} {input_rss} {} {insts}", times.join(","));
    ExitCode::SUCCESS
}

/// The instructions of a module, over all its functions.
fn instruction_count(module: &ptx_ir::Module) -> usize {
    module.functions.iter().map(|(_, f)| f.inst_ids().count()).sum()
}

fn run_child(stage: &Stage, file: &str, times: usize, iters: usize) -> Result<Measured, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut child = Command::new(exe);
    child.args(["--child", &stage.name(), file, &times.to_string(), &iters.to_string()]);
    if !matches!(stage, Stage::ParsePrintAllCores | Stage::O2AllCores) {
        child.env("RAYON_NUM_THREADS", "1");
    }
    let out = child.output().map_err(|e| e.to_string())?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout.lines().find_map(|l| l.strip_prefix("RESULT ")).ok_or_else(|| {
        format!("{} on {file}: child failed: {}", stage.name(), String::from_utf8_lossy(&out.stderr).trim())
    })?;
    let fields: Vec<&str> = line.split(' ').collect();
    let num = |i: usize| fields.get(i).and_then(|f| f.parse::<u64>().ok()).unwrap_or(0);
    let times = fields
        .get(3)
        .map(|t| t.split(',').filter_map(|x| x.parse::<f64>().ok()).map(Duration::from_secs_f64).collect())
        .unwrap_or_default();
    Ok(Measured { bytes: num(0) as usize, times, peak_rss: num(1), input_rss: num(2), insts: num(4) })
}

fn stage_line(name: &str, m: &Measured) {
    let ms = |t: Duration| t.as_secs_f64() * 1e3;
    let times = if m.times.len() > 1 {
        format!("{:9.1} ms ({:.1}..{:.1}, {} runs)", ms(m.best()), ms(m.best()), ms(m.worst()), m.times.len())
    } else {
        format!("{:9.1} ms (1 run)", ms(m.best()))
    };
    println!(
        "  {name:<24} {times:<36} {:8.1} MB/s   peak RSS {:7.1} MB = {:5.2}x input ({:+.1} MB after loading)",
        m.mb_s(m.best()),
        m.peak_rss as f64 / MB,
        m.peak_rss as f64 / m.bytes.max(1) as f64,
        (m.peak_rss as f64 - m.input_rss as f64) / MB,
    );
    if m.insts > 0 {
        println!(
            "  {:<24} {} instructions: {:.0} bytes each after loading",
            "",
            m.insts,
            (m.peak_rss as f64 - m.input_rss as f64) / m.insts as f64
        );
    }
}

/// The stages to run for the options.
fn selected_stages(args: &Args) -> Vec<Stage> {
    Stage::all()
        .into_iter()
        .filter(|s| args.stages.as_ref().is_none_or(|names| names.iter().any(|n| *n == s.name())))
        .collect()
}

struct FileSummary {
    name: String,
    bytes: usize,
    parse_print: Option<Measured>,
    o2: Option<Measured>,
    parse_print_all_cores: Option<Measured>,
    o2_all_cores: Option<Measured>,
}

fn report(args: &Args) -> Result<(), String> {
    println!(
        "ptx-bench: one thread per stage (but the *-all-cores ones), each stage in its own process; MB/s = input bytes / best time"
    );
    println!("peak RSS = VmHWM of the stage's process after its first run (input text included)\n");
    let mut summaries = Vec::new();
    for path in &args.files {
        let file = path.to_str().ok_or("file name is not UTF-8")?;
        let bytes = load(path).map_err(|e| format!("{file}: {e}"))?.len();
        println!("{} ({:.2} MB)", short_name(path), bytes as f64 / MB);
        let mut summary = FileSummary {
            name: short_name(path),
            bytes,
            parse_print: None,
            o2: None,
            parse_print_all_cores: None,
            o2_all_cores: None,
        };
        for stage in selected_stages(args) {
            let m = run_child(&stage, file, 1, args.iters)?;
            stage_line(&stage.name(), &m);
            match stage {
                Stage::ParsePrint => summary.parse_print = Some(m),
                Stage::O2 => summary.o2 = Some(m),
                Stage::ParsePrintAllCores => summary.parse_print_all_cores = Some(m),
                Stage::O2AllCores => summary.o2_all_cores = Some(m),
                _ => {}
            }
        }
        if args.ptxas {
            ptxas_ratio(path, bytes, summary.o2.as_ref());
        }
        println!();
        summaries.push(summary);
    }
    let corpus = if args.corpus {
        let m = run_child(&Stage::ParsePrint, "@corpus", 1, args.iters)?;
        let count = ptx_bench::public_corpus_files().map(|f| f.len()).unwrap_or(0);
        println!("public corpus ({count} files, {:.2} MB)", m.bytes as f64 / MB);
        stage_line("parse+print (all files)", &m);
        println!();
        Some(m)
    } else {
        None
    };
    if args.linearity {
        let path = args.linearity_file.clone().unwrap_or_else(ptx_bench::largest_public_file);
        linearity(&path, args.iters)?;
    }
    println!("summary");
    for s in &summaries {
        let rate =
            |m: &Option<Measured>| m.as_ref().map_or("-".to_string(), |m| format!("{:.1} MB/s", m.mb_s(m.best())));
        let rss = |m: &Option<Measured>| {
            m.as_ref().map_or("-".to_string(), |m| format!("{:.2}x", m.peak_rss as f64 / s.bytes.max(1) as f64))
        };
        println!(
            "  {:<44} parse+print {:>12} (RSS {:>6})   -O2 {:>12} (RSS {:>6})",
            s.name,
            rate(&s.parse_print),
            rss(&s.parse_print),
            rate(&s.o2),
            rss(&s.o2)
        );
        if s.parse_print_all_cores.is_some() || s.o2_all_cores.is_some() {
            println!(
                "  {:<44} parse+print {:>12} (RSS {:>6})   -O2 {:>12} (RSS {:>6})",
                format!("  all {} cores", std::thread::available_parallelism().map_or(1, |n| n.get())),
                rate(&s.parse_print_all_cores),
                rss(&s.parse_print_all_cores),
                rate(&s.o2_all_cores),
                rss(&s.o2_all_cores)
            );
        }
    }
    if let Some(m) = &corpus {
        println!("  {:<44} parse+print {:>7.1} MB/s", "public corpus (all files)", m.mb_s(m.best()));
    }
    Ok(())
}

/// Parse+print and -O2 at 1x, 4x and 16x of a file's functions.
fn linearity(path: &Path, iters: usize) -> Result<(), String> {
    let file = path.to_str().ok_or("file name is not UTF-8")?;
    println!("linearity: {} with its functions repeated (renamed copies)", short_name(path));
    for stage in [Stage::ParsePrint, Stage::O2] {
        let mut base: Option<f64> = None;
        for times in [1, 4, 16] {
            let m = run_child(&stage, file, times, iters)?;
            let per_mb = m.best().as_secs_f64() / (m.bytes as f64 / MB);
            let base_per_mb = *base.get_or_insert(per_mb);
            println!(
                "  {:<12} {:>2}x {:8.1} MB {:9.1} ms {:8.1} MB/s   time/MB vs 1x: {:.2}   peak RSS {:.2}x input",
                stage.name(),
                times,
                m.bytes as f64 / MB,
                m.best().as_secs_f64() * 1e3,
                m.mb_s(m.best()),
                per_mb / base_per_mb,
                m.peak_rss as f64 / m.bytes.max(1) as f64,
            );
        }
    }
    println!();
    Ok(())
}

/// Children's user+system CPU time so far, from `/proc/self/stat`.
fn children_cpu() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let after_name = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = after_name.split(' ').collect();
    // Fields 16 and 17 of stat(5) (cutime, cstime), counted from the state field (3).
    let ticks: u64 = fields.get(13)?.parse::<u64>().ok()? + fields.get(14)?.parse::<u64>().ok()?;
    Some(Duration::from_secs_f64(ticks as f64 / 100.0))
}

/// Times ptxas on the file and prints ptx-opt -O2 time / ptxas time.
fn ptxas_ratio(path: &Path, bytes: usize, o2: Option<&Measured>) {
    let toolchain = match ptx_toolchain::cached() {
        Ok(t) => t,
        Err(e) => {
            println!("  ptxas: unavailable ({e})");
            return;
        }
    };
    let source = match load(path) {
        Ok(s) => s,
        Err(e) => {
            println!("  ptxas: cannot read {}: {e}", path.display());
            return;
        }
    };
    let Some(target) = ptx_toolchain::target_of(&source) else {
        println!("  ptxas: no .target in the file");
        return;
    };
    let level = if bytes > PTXAS_O3_LIMIT { "-O0" } else { "-O3" };
    let dir = std::env::temp_dir().join(format!("ptx-bench-{}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(&dir) {
        println!("  ptxas: {e}");
        return;
    }
    let input = dir.join("in.ptx");
    if let Err(e) = std::fs::write(&input, &source) {
        println!("  ptxas: {e}");
        return;
    }
    drop(source);
    let cpu_before = children_cpu();
    let start = Instant::now();
    let status = Command::new(toolchain.ptxas_for_target(&target))
        .arg(format!("-arch={target}"))
        .arg(level)
        .arg("-o")
        .arg(dir.join("out.cubin"))
        .arg(&input)
        .status();
    let wall = start.elapsed();
    let cpu = children_cpu().zip(cpu_before).map(|(a, b)| a.saturating_sub(b));
    let _ = std::fs::remove_dir_all(&dir);
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => {
            println!("  ptxas {level}: failed ({s})");
            return;
        }
        Err(e) => {
            println!("  ptxas: {e}");
            return;
        }
    }
    let note = if level == "-O0" { " (-O0: at -O3 ptxas takes minutes on a file this size)" } else { "" };
    let cpu_text = cpu.map_or(String::new(), |c| format!(", {:.2} s CPU", c.as_secs_f64()));
    println!("  ptxas {level}: {:.2} s wall{cpu_text}{note}", wall.as_secs_f64());
    if let Some(m) = o2 {
        println!(
            "  ptx-opt -O2 / ptxas {level} = {:.2} ms / {:.0} ms = {:.2}%",
            m.best().as_secs_f64() * 1e3,
            wall.as_secs_f64() * 1e3,
            100.0 * m.best().as_secs_f64() / wall.as_secs_f64()
        );
    }
}
