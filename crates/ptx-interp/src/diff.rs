//! The equivalence checker: run every kernel of two modules on the same
//! invented inputs and compare every byte they leave in global memory.
//!
//! Inputs are inferred from the first module (A, "before") and used for
//! both. The check is a refinement check: when A itself misbehaves on an
//! input (memory fault, division by zero, no termination), that trial says
//! nothing and is skipped; when A completes and B does not, or B leaves
//! different bytes, the modules differ. A kernel for which no trial was
//! conclusive, or which uses an instruction the interpreter does not model,
//! cannot be checked, and the report says why.

use crate::error::{ErrorClass, InterpError};
use crate::inputs::{infer_params, make_args, ParamSpec};
use crate::machine::{run_function, KernelArgs, LaunchConfig, RunOutput};
use crate::program::{is_kernel, Program};
use cranelift_entity::EntityRef;
use ptx_ir::{Module, Operand};
use std::fmt;

/// Settings of a comparison.
#[derive(Clone, Debug)]
pub struct DiffOptions {
    /// Only this function (a kernel, or a device function run directly).
    pub kernel: Option<String>,
    /// Number of input sets per kernel.
    pub trials: u32,
    /// Seed of the inputs.
    pub seed: u64,
    /// Grid, block and step limit.
    pub launch: LaunchConfig,
    /// Size of each pointer argument's buffer, in bytes.
    pub buffer_size: usize,
}

impl Default for DiffOptions {
    fn default() -> DiffOptions {
        DiffOptions { kernel: None, trials: 6, seed: 0x5eed, launch: LaunchConfig::default(), buffer_size: 4096 }
    }
}

/// Which module.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The first module (before).
    A,
    /// The second module (after).
    B,
}

/// A byte that differs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// Trial number.
    pub trial: u32,
    /// The seed given to the checker (reproduce with it and `trials = trial + 1`).
    pub seed: u64,
    /// What differs: a buffer, a global variable, a thread's return value,
    /// or one side failing.
    pub what: String,
    /// Byte offset of the first difference.
    pub offset: Option<usize>,
    /// A's value there (the aligned 32-bit word, or the error).
    pub a: String,
    /// B's value there.
    pub b: String,
    /// How many bytes differ in `what`.
    pub differing_bytes: usize,
}

/// The outcome for one kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Every conclusive trial agreed.
    Equivalent,
    /// A trial disagreed.
    Different(Box<Difference>),
    /// One side uses something the interpreter does not model.
    Unsupported {
        /// Which side.
        side: Side,
        /// The error.
        error: InterpError,
    },
    /// A misbehaved on every trial, so nothing was compared.
    Inconclusive {
        /// A's first failure.
        reason: String,
    },
    /// The kernel is missing from B or its parameters differ.
    Mismatch {
        /// How.
        reason: String,
    },
}

/// The result for one kernel.
#[derive(Clone, Debug)]
pub struct KernelReport {
    /// The kernel's name.
    pub name: String,
    /// The verdict.
    pub verdict: Verdict,
    /// Trials run.
    pub trials: u32,
    /// Trials where A completed and B was compared.
    pub conclusive: u32,
    /// A's first failure on a skipped trial, if any.
    pub first_fault: Option<String>,
    /// Distinct instructions of A executed over all conclusive trials, and
    /// the number of instructions in the functions A entered.
    pub coverage: (usize, usize),
    /// The launch used (the default, or a larger block or more dynamic
    /// shared memory if A could not complete its first trial with the default).
    pub launch: LaunchConfig,
    /// Bytes per pointer argument's buffer (the default or a larger one).
    pub buffer_size: usize,
    /// A's first failure on a skipped trial, as an error value.
    pub fault: Option<InterpError>,
    /// A's failures on the skipped trials, by family ([`error_family`]),
    /// with their counts, most frequent first.
    pub failures: Vec<(String, u32)>,
    /// The most instructions A executed in one conclusive trial (the
    /// whole launch).
    pub executed: u64,
}

impl KernelReport {
    /// Why the kernel was not checked conclusively, as a short key that
    /// groups kernels failing for the same reason (an opcode for an
    /// unsupported instruction, the kind of fault for an inconclusive one);
    /// `None` if it was checked.
    pub fn cause(&self) -> Option<String> {
        match &self.verdict {
            Verdict::Equivalent => None,
            Verdict::Different(_) => Some("different".into()),
            Verdict::Mismatch { .. } => Some("mismatch".into()),
            Verdict::Unsupported { error, .. } => Some(format!("unsupported: {}", error_family(error))),
            Verdict::Inconclusive { reason } => Some(format!(
                "inconclusive: {}",
                self.fault.as_ref().map(error_family).unwrap_or_else(|| reason.clone())
            )),
        }
    }
}

/// An error without its addresses and line numbers: the opcode (first
/// word) of an unsupported instruction, or the kind of a fault.
pub fn error_family(error: &InterpError) -> String {
    match error {
        InterpError::Unsupported { opcode, .. } => opcode.split('.').next().unwrap_or(opcode).to_string(),
        InterpError::Invalid { message, .. } => format!("invalid ({})", message.split(':').next().unwrap_or(message)),
        InterpError::MemoryFault { message, .. } => {
            let kind = ["out-of-bounds read", "out-of-bounds write", "misaligned", "read-only"]
                .into_iter()
                .find(|k| message.contains(k))
                .unwrap_or("other");
            let space = [".global", ".shared", ".local", ".const", ".param"]
                .into_iter()
                .find(|s| message.contains(s))
                .unwrap_or("");
            format!("memory fault ({kind} {space})")
        }
        InterpError::DivideByZero { .. } => "division by zero".into(),
        InterpError::Undefined { message, .. } => format!("undefined ({message})"),
        InterpError::StepLimit { .. } => "step limit".into(),
        InterpError::Deadlock { .. } => "deadlock".into(),
        InterpError::NoSuchFunction { .. } => "no such function".into(),
    }
}

/// The result of comparing two modules.
#[derive(Clone, Debug, Default)]
pub struct DiffReport {
    /// One entry per kernel, in A's order.
    pub kernels: Vec<KernelReport>,
}

impl DiffReport {
    /// True if there was at least one kernel and every kernel was checked
    /// and found equivalent.
    pub fn is_equivalent(&self) -> bool {
        !self.kernels.is_empty() && self.kernels.iter().all(|k| k.verdict == Verdict::Equivalent)
    }

    /// 0 equivalent, 1 different, 3 cannot check (unsupported, inconclusive,
    /// or no kernel at all).
    pub fn exit_code(&self) -> i32 {
        if self.kernels.iter().any(|k| matches!(k.verdict, Verdict::Different(_) | Verdict::Mismatch { .. })) {
            1
        } else if self.is_equivalent() {
            0
        } else {
            3
        }
    }
}

impl fmt::Display for DiffReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.kernels.is_empty() {
            return writeln!(f, "no kernels to compare");
        }
        for k in &self.kernels {
            write!(f, "kernel {}: ", k.name)?;
            match &k.verdict {
                Verdict::Equivalent => {
                    write!(
                        f,
                        "equivalent ({} trials, {} conclusive, {}/{} instructions covered, up to {} executed",
                        k.trials, k.conclusive, k.coverage.0, k.coverage.1, k.executed
                    )?;
                    if k.launch.step_limit != DiffOptions::default().launch.step_limit {
                        write!(f, ", step limit {}", k.launch.step_limit)?;
                    }
                    let b = k.launch.block;
                    if b != DiffOptions::default().launch.block {
                        write!(f, ", block {}x{}x{}", b[0], b[1], b[2])?;
                    }
                    let g = k.launch.grid;
                    if g != DiffOptions::default().launch.grid {
                        write!(f, ", grid {}x{}x{}", g[0], g[1], g[2])?;
                    }
                    if k.buffer_size != DiffOptions::default().buffer_size {
                        write!(f, ", {} KiB buffers", k.buffer_size / 1024)?;
                    }
                    writeln!(f, ")")?
                }
                Verdict::Different(d) => {
                    write!(f, "DIFFERENT in trial {} (seed {:#x}): {}", d.trial, d.seed, d.what)?;
                    if let Some(o) = d.offset {
                        write!(f, " at offset {o:#x}")?;
                    }
                    writeln!(f, ": A={} B={}", d.a, d.b)?;
                    if d.differing_bytes > 0 {
                        writeln!(f, "  {} bytes differ", d.differing_bytes)?;
                    }
                    writeln!(
                        f,
                        "  reproduce: ptx-interp diff A B --kernel {} --seed {:#x} --trials {} (inputs: ptx-interp run A --kernel {} --seed {:#x} --trial {})",
                        k.name,
                        d.seed,
                        d.trial + 1,
                        k.name,
                        d.seed,
                        d.trial
                    )?;
                }
                Verdict::Unsupported { side, error } => writeln!(f, "cannot check, {error} (in {side:?})")?,
                Verdict::Inconclusive { reason } => {
                    writeln!(f, "inconclusive: A failed on every one of {} trials, first: {reason}", k.trials)?;
                    let counts: Vec<String> = k.failures.iter().map(|(w, n)| format!("{n}x {w}")).collect();
                    writeln!(
                        f,
                        "  failures: {} (with block {}, {} KiB buffers)",
                        counts.join(", "),
                        k.launch.block[0],
                        k.buffer_size / 1024
                    )?;
                }
                Verdict::Mismatch { reason } => writeln!(f, "MISMATCH: {reason}")?,
            }
        }
        Ok(())
    }
}

/// Compares the kernels of `a` and `b` (or the one named in `opts`).
pub fn diff_modules(a: &Module, b: &Module, opts: &DiffOptions) -> DiffReport {
    let pa = Program::new(a);
    let pb = Program::new(b);
    let names: Vec<String> = match &opts.kernel {
        Some(k) => vec![k.clone()],
        None => a.functions.values().filter(|f| is_kernel(f) && f.has_body()).map(|f| f.name.clone()).collect(),
    };
    let mut report = DiffReport::default();
    for name in names {
        report.kernels.push(diff_kernel(&pa, &pb, &name, opts));
    }
    report
}

fn first_difference(what: &str, x: &[u8], y: &[u8]) -> Option<(String, Option<usize>, String, String, usize)> {
    if x == y {
        return None;
    }
    if x.len() != y.len() {
        return Some((what.to_string(), None, format!("{} bytes", x.len()), format!("{} bytes", y.len()), 0));
    }
    let first = x.iter().zip(y).position(|(p, q)| p != q)?;
    let count = x.iter().zip(y).filter(|(p, q)| p != q).count();
    let word = first & !3;
    let show = |v: &[u8]| {
        let end = (word + 4).min(v.len());
        let mut s = String::from("0x");
        for b in v[word..end].iter().rev() {
            s.push_str(&format!("{b:02x}"));
        }
        s
    };
    Some((what.to_string(), Some(first), show(x), show(y), count))
}

fn compare(a: &RunOutput, b: &RunOutput) -> Option<(String, Option<usize>, String, String, usize)> {
    for (i, (x, y)) in a.buffers.iter().zip(&b.buffers).enumerate() {
        if let Some(d) = first_difference(&format!("buffer {i} ({})", x.name), &x.data, &y.data) {
            return Some(d);
        }
    }
    for (name, x) in &a.globals {
        match b.globals.iter().find(|(n, _)| n == name) {
            Some((_, y)) => {
                if let Some(d) = first_difference(&format!("global variable {name}"), x, y) {
                    return Some(d);
                }
            }
            None => return Some((format!("global variable {name}"), None, "present".into(), "missing".into(), 0)),
        }
    }
    if a.printed != b.printed {
        // By line: the text is what a person compares (and a byte offset
        // could fall inside a character).
        let (mut x, mut y) = (a.printed.lines(), b.printed.lines());
        let (line, (x, y)) = std::iter::from_fn(|| Some((x.next(), y.next())))
            .enumerate()
            .find(|(_, (x, y))| x != y)
            .expect("different texts differ in a line");
        let show = |l: Option<&str>| l.map_or_else(|| "(nothing)".to_string(), |l| format!("{l:?}"));
        return Some((format!("printf output, line {}", line + 1), None, show(x), show(y), 1));
    }
    for (t, (x, y)) in a.returns.iter().zip(&b.returns).enumerate() {
        if let Some(d) = first_difference(&format!("return value of thread {t}"), x, y) {
            return Some(d);
        }
    }
    None
}

fn diff_kernel(pa: &Program<'_>, pb: &Program<'_>, name: &str, opts: &DiffOptions) -> KernelReport {
    let mut report = KernelReport {
        name: name.to_string(),
        verdict: Verdict::Equivalent,
        trials: 0,
        conclusive: 0,
        first_fault: None,
        coverage: (0, 0),
        launch: opts.launch.clone(),
        buffer_size: opts.buffer_size,
        fault: None,
        failures: Vec::new(),
        executed: 0,
    };
    let Some(fa) = pa.function(name) else {
        report.verdict =
            Verdict::Unsupported { side: Side::A, error: InterpError::NoSuchFunction { name: name.into() } };
        return report;
    };
    let Some(fb) = pb.function(name) else {
        report.verdict = Verdict::Mismatch { reason: format!("B has no function {name} with a body") };
        return report;
    };
    if opts.buffer_size as u64 > crate::memory::MAX_VARIABLE_BYTES {
        let message = format!("buffer size {} is larger than {}", opts.buffer_size, crate::memory::MAX_VARIABLE_BYTES);
        report.verdict = Verdict::Unsupported { side: Side::A, error: InterpError::Invalid { message, line: 0 } };
        return report;
    }
    let specs = infer_params(pa, fa);
    let specs_b = infer_params(pb, fb);
    let sizes = |s: &[ParamSpec]| s.iter().map(|p| p.size).collect::<Vec<_>>();
    if sizes(&specs) != sizes(&specs_b) {
        report.verdict = Verdict::Mismatch { reason: "the parameter lists differ".into() };
        return report;
    }
    // Kernels written for a larger block (shared-memory sorts, block-wide
    // scans), for larger tensors or for more dynamic shared memory fault
    // with the defaults: pick the first shape with which A completes the
    // tame trial.
    let mut buffer_size = opts.buffer_size;
    let mut tame = make_args(&specs, opts.seed, 0, buffer_size);
    let mut launch = opts.launch.clone();
    let dims = block_dims_read(pa, fa);
    // A shape wins when A completes on it; so does one that reaches an
    // instruction the interpreter cannot model (the trials then say so).
    let completes = |args: &KernelArgs, cfg: &LaunchConfig| {
        run_function(pa, fa, args, cfg).err().is_none_or(|e| e.class() == ErrorClass::CannotModel)
    };
    let mut chosen = None;
    // A kernel that indexes by `%tid.y` (`.z`) is written for a 2D (3D)
    // block: it runs on the first such shape it completes on, and on the
    // 1D default only if none does (unless its `.reqntid` says otherwise).
    let one_dimensional = opts.launch.block[1] <= 1 && opts.launch.block[2] <= 1;
    if dims >= 2 && one_dimensional && pa.funcs[fa.index()].reqntid.is_none() {
        for &block in blocks_of_dims(dims) {
            let cfg = LaunchConfig { block, ..opts.launch.clone() };
            if completes(&tame, &cfg) {
                chosen = Some((cfg, buffer_size, tame.clone()));
                break;
            }
        }
    }
    let first = match chosen {
        Some(_) => None,
        None => run_function(pa, fa, &tame, &launch).err(),
    };
    let first_failed = first.as_ref().is_some_and(|e| e.class() != ErrorClass::CannotModel);
    // A long loop of work (not threads spinning on each other) that runs
    // out of steps in the tame trial gets a limit 16 times longer.
    if let Some(InterpError::StepLimit { spinning: false, .. }) = first {
        let longer = LaunchConfig { step_limit: opts.launch.step_limit.saturating_mul(16), ..opts.launch.clone() };
        if completes(&tame, &longer) {
            chosen = Some((longer, buffer_size, tame.clone()));
        }
    }
    let candidates = match (&first, &chosen) {
        (Some(e), None) => calibration_candidates(e, opts, dims, pa.max_dynamic_shared_bytes()),
        _ => Vec::new(),
    };
    for &(block, size, dynamic) in &candidates {
        let cfg = LaunchConfig { block, dynamic_shared_bytes: dynamic, ..opts.launch.clone() };
        let args = make_args(&specs, opts.seed, 0, size);
        if completes(&args, &cfg) {
            chosen = Some((cfg, size, args));
            break;
        }
    }
    // The tame inputs fail with every shape: before giving up, the other
    // trials' inputs, shape by shape (the default shape first), pick it.
    if chosen.is_none() && !candidates.is_empty() {
        let default = (opts.launch.block, opts.buffer_size, opts.launch.dynamic_shared_bytes);
        'shapes: for &(block, size, dynamic) in std::iter::once(&default).chain(&candidates) {
            let cfg = LaunchConfig { block, dynamic_shared_bytes: dynamic, ..opts.launch.clone() };
            for trial in 1..opts.trials {
                if completes(&make_args(&specs, opts.seed, trial, size), &cfg) {
                    chosen = Some((cfg, size, make_args(&specs, opts.seed, 0, size)));
                    break 'shapes;
                }
            }
        }
    }
    // Still failing: size the buffers from the addresses the kernel
    // touches. An out-of-bounds access just past a buffer (inside its
    // window) grows every buffer to cover it, up to MAX_FITTED_BUFFER.
    if chosen.is_none() && !candidates.is_empty() {
        for threads in [opts.launch.block[0], 128, 256] {
            let cfg = LaunchConfig { block: [threads, 1, 1], dynamic_shared_bytes: 64 * 1024, ..opts.launch.clone() };
            let mut size = opts.buffer_size;
            for _ in 0..8 {
                let args = make_args(&specs, opts.seed, 0, size);
                match run_function(pa, fa, &args, &cfg) {
                    Ok(_) => {
                        chosen = Some((cfg.clone(), size, args));
                        break;
                    }
                    Err(e) if e.class() == ErrorClass::CannotModel => {
                        chosen = Some((cfg.clone(), size, args));
                        break;
                    }
                    Err(e) => match buffer_overrun(&e, size) {
                        Some(needed) if needed <= MAX_FITTED_BUFFER => size = needed.next_power_of_two().max(size * 2),
                        _ => break,
                    },
                }
            }
            if chosen.is_some() {
                break;
            }
        }
    }
    // Still failing: one block. A block that waits for what an earlier
    // block publishes only when more work follows it (a decoupled
    // look-back scan whose size parameter says one tile) completes alone.
    if chosen.is_none() && first_failed && opts.launch.grid != [1, 1, 1] {
        let default = (opts.launch.block, opts.buffer_size, opts.launch.dynamic_shared_bytes);
        for &(block, size, dynamic) in std::iter::once(&default).chain(&candidates) {
            let cfg = LaunchConfig { grid: [1, 1, 1], block, dynamic_shared_bytes: dynamic, ..opts.launch.clone() };
            let args = make_args(&specs, opts.seed, 0, size);
            if completes(&args, &cfg) {
                chosen = Some((cfg, size, args));
                break;
            }
        }
    }
    if let Some((cfg, size, args)) = chosen {
        launch = cfg;
        buffer_size = size;
        tame = args;
    }
    report.launch = launch.clone();
    report.buffer_size = buffer_size;
    let mut seen: Vec<Vec<bool>> = Vec::new();
    for trial in 0..opts.trials + FALLBACK_FILLS.len() as u32 {
        let fill = trial.checked_sub(opts.trials).map(|k| FALLBACK_FILLS[k as usize]);
        if fill.is_some() && (report.conclusive > 0 || opts.trials == 0) {
            break;
        }
        report.trials += 1;
        let args = match fill {
            Some(byte) => {
                let mut args = tame.clone();
                for b in &mut args.buffers {
                    b.data.fill(byte);
                }
                args
            }
            None if trial == 0 => tame.clone(),
            None => make_args(&specs, opts.seed, trial, buffer_size),
        };
        let what = |w: String| match fill {
            Some(byte) => format!("{w} (tame scalars, buffers filled with {byte:#04x})"),
            None => w,
        };
        let oa = match run_function(pa, fa, &args, &launch) {
            Ok(o) => o,
            Err(e) if e.class() == ErrorClass::CannotModel => {
                report.verdict = Verdict::Unsupported { side: Side::A, error: e };
                return report;
            }
            Err(e) => {
                // A misbehaves on this input: anything B does refines it.
                let family = error_family(&e);
                match report.failures.iter_mut().find(|(f, _)| *f == family) {
                    Some((_, n)) => *n += 1,
                    None => report.failures.push((family, 1)),
                }
                report.first_fault.get_or_insert_with(|| e.to_string());
                report.fault.get_or_insert(e);
                continue;
            }
        };
        // B may legitimately take more steps than A (a rewrite that adds
        // instructions): it gets twice the limit before it counts as hung.
        let launch_b = LaunchConfig { step_limit: launch.step_limit.saturating_mul(2), ..launch.clone() };
        let rb = run_function(pb, fb, &args, &launch_b);
        for (i, v) in oa.coverage.iter().enumerate() {
            if seen.len() <= i {
                seen.resize(i + 1, Vec::new());
            }
            if seen[i].len() < v.len() {
                seen[i].resize(v.len(), false);
            }
            for (s, &b) in seen[i].iter_mut().zip(v) {
                *s |= b;
            }
        }
        let covered = seen.iter().map(|v| v.iter().filter(|&&b| b).count()).sum();
        let total =
            seen.iter().enumerate().filter(|(_, v)| v.iter().any(|&b| b)).map(|(i, _)| pa.funcs[i].code.len()).sum();
        report.coverage = (covered, total);
        let ob = match rb {
            Ok(o) => o,
            Err(e) if e.class() == ErrorClass::CannotModel => {
                report.verdict = Verdict::Unsupported { side: Side::B, error: e };
                return report;
            }
            Err(e) => {
                report.verdict = Verdict::Different(Box::new(Difference {
                    trial,
                    seed: opts.seed,
                    what: what("B failed where A completed".into()),
                    offset: None,
                    a: "completed".into(),
                    b: e.to_string(),
                    differing_bytes: 0,
                }));
                return report;
            }
        };
        report.conclusive += 1;
        report.executed = report.executed.max(oa.steps);
        if let Some((what_differs, offset, a, b, differing_bytes)) = compare(&oa, &ob) {
            report.verdict = Verdict::Different(Box::new(Difference {
                trial,
                seed: opts.seed,
                what: what(what_differs),
                offset,
                a,
                b,
                differing_bytes,
            }));
            return report;
        }
    }
    report.failures.sort_by_key(|f| std::cmp::Reverse(f.1));
    if report.conclusive == 0 {
        report.verdict =
            Verdict::Inconclusive { reason: report.first_fault.clone().unwrap_or_else(|| "no trials".into()) };
    }
    report
}

/// The largest buffer that fitting to the touched addresses gives a kernel.
const MAX_FITTED_BUFFER: usize = 4 << 20;

/// The buffer size an out-of-bounds global access needs: the access lies
/// in a buffer's window (above its end, below the next buffer), so a
/// buffer of the returned size would hold it.
fn buffer_overrun(error: &InterpError, size: usize) -> Option<usize> {
    let InterpError::MemoryFault { message, .. } = error else { return None };
    let rest = message.strip_prefix("out-of-bounds ")?;
    let (_, rest) = rest.split_once(" of ")?;
    let (bytes, rest) = rest.split_once(" bytes at .global address 0x")?;
    let bytes: u64 = bytes.parse().ok()?;
    let addr = u64::from_str_radix(rest.split_whitespace().next()?, 16).ok()?;
    let offset = addr.checked_sub(crate::memory::GLOBAL_BUFFER_BASE)? % crate::memory::GLOBAL_STRIDE;
    let needed = usize::try_from(offset + bytes).ok()?;
    (offset as usize >= size).then_some(needed)
}

/// When no trial completes, the tame scalars with every buffer filled with
/// one of these bytes: all zeros (empty tables, zero counts and offsets:
/// in-bounds indices) and all ones (-1, the empty-slot marker of hash
/// tables that spin until they find one).
const FALLBACK_FILLS: [u8; 2] = [0x00, 0xff];

/// Launch shapes (threads per block, buffer bytes, dynamic shared bytes) to
/// try when A's tame trial fails with `error`: larger buffers, larger blocks
/// and more dynamic shared memory for out-of-bounds accesses, larger blocks
/// for deadlocks and undefined collectives; nothing for misaligned accesses.
///
/// A kernel that reads `%tid.y` or `%ntid.y` (`dims` 2) or `.z` (3) is
/// written for a 2D or 3D block (a 16x16 tile indexed by both): its shapes
/// of those dimensions come first.
fn calibration_candidates(
    error: &InterpError,
    opts: &DiffOptions,
    dims: usize,
    max_dynamic: u32,
) -> Vec<([u32; 3], usize, u32)> {
    let blocks = blocks_of_dims(dims);
    let (buf, dynamic, big) = (opts.buffer_size, opts.launch.dynamic_shared_bytes, 64 * 1024);
    let sizes: &[(usize, u32)] = match error {
        InterpError::MemoryFault { message, .. } if message.contains("misaligned") => return Vec::new(),
        InterpError::MemoryFault { .. } => &[(buf, dynamic), (big, big as u32)],
        _ => &[(buf, dynamic)],
    };
    let shaped = blocks.iter().flat_map(|&b| sizes.iter().map(move |&(size, dynamic)| (b, size, dynamic)));
    let flat = calibration_threads(error, opts, max_dynamic)
        .into_iter()
        .map(|(threads, size, dynamic)| ([threads, 1, 1], size, dynamic));
    shaped.chain(flat).collect()
}

/// The blocks of `dims` dimensions tried, most common first (none for 1).
fn blocks_of_dims(dims: usize) -> &'static [[u32; 3]] {
    match dims {
        3 => &[[8, 8, 4], [4, 4, 4], [16, 16, 1], [32, 8, 1]],
        2 => &[[16, 16, 1], [32, 8, 1], [8, 8, 1], [16, 8, 1], [32, 32, 1]],
        _ => &[],
    }
}

/// How many block dimensions `func` reads: 3 if it reads `%tid.z` or
/// `%ntid.z`, 2 for `.y`, else 1.
fn block_dims_read(prog: &Program<'_>, func: ptx_ir::FuncId) -> usize {
    let f = &prog.module.functions[func];
    let mut dims = 1;
    for id in f.inst_ids() {
        for op in &f.insts[id].operands {
            if let Operand::Special(n) = op {
                match f.names.get(*n) {
                    "%tid.z" | "%ntid.z" => dims = 3,
                    "%tid.y" | "%ntid.y" => dims = dims.max(2),
                    _ => {}
                }
            }
        }
    }
    dims
}

/// The one-dimensional candidates: (threads, buffer bytes, dynamic shared
/// bytes), the largest dynamic shared memory the target's maximum.
fn calibration_threads(error: &InterpError, opts: &DiffOptions, max_dynamic: u32) -> Vec<(u32, usize, u32)> {
    let block = opts.launch.block[0];
    let (buf, dynamic) = (opts.buffer_size, opts.launch.dynamic_shared_bytes);
    let big = 64 * 1024;
    match error {
        InterpError::MemoryFault { message, .. } if message.contains("misaligned") => Vec::new(),
        InterpError::MemoryFault { .. } => vec![
            (block, buf, big as u32),
            (block, big, dynamic),
            (block, big, big as u32),
            (128, buf, dynamic),
            (256, buf, dynamic),
            (128, big, big as u32),
            (256, big, big as u32),
            (block, 1 << 20, max_dynamic),
            (128, 1 << 20, max_dynamic),
            (512, buf, dynamic),
            // Code written for two warps (block-wide sorts of 64 threads).
            (64, buf, dynamic),
            (64, big, big as u32),
        ],
        // Larger blocks for block-wide algorithms; smaller ones for code
        // written for a partial warp (a membermask of 16 lanes).
        InterpError::Deadlock { .. } | InterpError::Undefined { .. } => vec![
            (128, buf, dynamic),
            (256, buf, dynamic),
            (64, buf, dynamic),
            (16, buf, dynamic),
            (8, buf, dynamic),
            (512, buf, dynamic),
        ],
        _ => Vec::new(),
    }
}

/// Parses two PTX texts and checks them with default options. Ok if every
/// kernel is equivalent; otherwise the readable report (or parse errors).
pub fn assert_equivalent(before_ptx: &str, after_ptx: &str) -> Result<DiffReport, String> {
    assert_equivalent_with(before_ptx, after_ptx, &DiffOptions::default())
}

/// [`assert_equivalent`] with options.
pub fn assert_equivalent_with(before_ptx: &str, after_ptx: &str, opts: &DiffOptions) -> Result<DiffReport, String> {
    let parse = |text: &str, which: &str| {
        ptx_parse::parse(text).map_err(|errs| {
            let msgs: Vec<String> = errs.iter().map(|d| d.message.clone()).collect();
            format!("{which} does not parse: {}", msgs.join("; "))
        })
    };
    let a = parse(before_ptx, "before")?;
    let b = parse(after_ptx, "after")?;
    let report = diff_modules(&a, &b, opts);
    if report.is_equivalent() {
        Ok(report)
    } else {
        Err(report.to_string())
    }
}
