//! `ptx-toolchain`: command-line access to the cached ptxas/nvdisasm, for scripts.
//!
//! ```text
//! ptx-toolchain fetch                                   download if needed, print the paths
//! ptx-toolchain which TARGET                            print the ptxas used for TARGET
//! ptx-toolchain target FILE                             print the .target (sm_XX) of a PTX file
//! ptx-toolchain compile FILE [--target sm_XX] [-o OUT] [-- PTXAS_OPTS...]
//! ptx-toolchain sass CUBIN                              SASS instruction counts per function
//! ```
//!
//! FILE, CUBIN and OUT may be `-` for stdin/stdout; `-o` defaults to `-`. `compile` takes the
//! target from the file's `.target` directive unless `--target` is given.
//!
//! Exit status: 0 success, 1 the tool rejected the input, 2 usage error, 3 the tool crashed
//! (killed by a signal), 4 any other error (download, I/O).

use std::io::{Read, Write};
use std::path::Path;
use std::process::ExitCode;

use ptx_toolchain::{target_of, PtxasError, Toolchain};

const USAGE: &str = "usage:
  ptx-toolchain fetch
  ptx-toolchain which TARGET
  ptx-toolchain target FILE
  ptx-toolchain compile FILE [--target sm_XX] [-o OUT] [-- PTXAS_OPTS...]
  ptx-toolchain sass CUBIN
(FILE, CUBIN and OUT may be '-' for stdin/stdout; -o defaults to '-')";

enum Failure {
    Usage(String),
    Tool(PtxasError),
    Other(String),
}

impl From<PtxasError> for Failure {
    fn from(e: PtxasError) -> Self {
        Failure::Tool(e)
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(msg)) => {
            eprintln!("ptx-toolchain: {msg}\n{USAGE}");
            ExitCode::from(2)
        }
        Err(Failure::Tool(e)) => {
            eprintln!("ptx-toolchain: {e}");
            match e {
                PtxasError::Rejected { .. } => ExitCode::from(1),
                PtxasError::Crashed { .. } => ExitCode::from(3),
                PtxasError::Io(_) => ExitCode::from(4),
            }
        }
        Err(Failure::Other(msg)) => {
            eprintln!("ptx-toolchain: {msg}");
            ExitCode::from(4)
        }
    }
}

fn toolchain() -> Result<Toolchain, Failure> {
    ptx_toolchain::ensure().map_err(|e| Failure::Other(e.to_string()))
}

fn read_input(path: &str) -> Result<Vec<u8>, Failure> {
    if path == "-" {
        let mut buf = Vec::new();
        std::io::stdin().read_to_end(&mut buf).map_err(|e| Failure::Other(format!("reading stdin: {e}")))?;
        Ok(buf)
    } else {
        std::fs::read(path).map_err(|e| Failure::Other(format!("reading {path}: {e}")))
    }
}

fn read_text(path: &str) -> Result<String, Failure> {
    String::from_utf8(read_input(path)?).map_err(|_| Failure::Other(format!("{path}: not UTF-8")))
}

fn write_output(path: &str, bytes: &[u8]) -> Result<(), Failure> {
    let r = if path == "-" {
        let mut out = std::io::stdout().lock();
        out.write_all(bytes).and_then(|()| out.flush())
    } else {
        std::fs::write(Path::new(path), bytes)
    };
    r.map_err(|e| Failure::Other(format!("writing {path}: {e}")))
}

fn one_arg<'a>(cmd: &str, rest: &'a [String]) -> Result<&'a str, Failure> {
    match rest {
        [x] => Ok(x),
        _ => Err(Failure::Usage(format!("`{cmd}` takes exactly one argument"))),
    }
}

fn run(args: &[String]) -> Result<(), Failure> {
    let Some((cmd, rest)) = args.split_first() else {
        return Err(Failure::Usage("missing subcommand".into()));
    };
    match cmd.as_str() {
        "fetch" => {
            if !rest.is_empty() {
                return Err(Failure::Usage("`fetch` takes no arguments".into()));
            }
            let tc = toolchain()?;
            println!("ptxas13={}", tc.ptxas13.display());
            println!("ptxas12={}", tc.ptxas12.display());
            println!("nvdisasm={}", tc.nvdisasm.display());
        }
        "which" => {
            let target = one_arg(cmd, rest)?;
            println!("{}", toolchain()?.ptxas_for_target(target).display());
        }
        "target" => {
            let file = one_arg(cmd, rest)?;
            let ptx = read_text(file)?;
            let t = target_of(&ptx).ok_or_else(|| Failure::Other(format!("{file}: no `.target sm_XX` directive")))?;
            println!("{t}");
        }
        "compile" => {
            let mut file = None;
            let mut target = None;
            let mut out = "-".to_owned();
            let mut opts: Vec<String> = Vec::new();
            let mut it = rest.iter();
            while let Some(a) = it.next() {
                match a.as_str() {
                    "--target" | "-t" => {
                        target = Some(it.next().ok_or_else(|| Failure::Usage("--target needs a value".into()))?.clone())
                    }
                    "-o" => out = it.next().ok_or_else(|| Failure::Usage("-o needs a value".into()))?.clone(),
                    "--" => {
                        opts.extend(it.by_ref().cloned());
                    }
                    s if s.starts_with("--target=") => target = Some(s["--target=".len()..].to_owned()),
                    s if file.is_none() && (s == "-" || !s.starts_with('-')) => file = Some(s.to_owned()),
                    s => return Err(Failure::Usage(format!("unexpected argument `{s}`"))),
                }
            }
            let file = file.ok_or_else(|| Failure::Usage("`compile` needs a FILE".into()))?;
            let ptx = read_text(&file)?;
            let target = match target {
                Some(t) => t,
                None => target_of(&ptx)
                    .ok_or_else(|| Failure::Other(format!("{file}: no `.target sm_XX` directive; pass --target")))?,
            };
            let opts: Vec<&str> = opts.iter().map(String::as_str).collect();
            let compiled = toolchain()?.compile_with_log(&ptx, &target, &opts)?;
            if !compiled.log.is_empty() {
                eprint!("{}", compiled.log);
            }
            write_output(&out, &compiled.cubin)?;
        }
        "sass" => {
            let file = one_arg(cmd, rest)?;
            let cubin = read_input(file)?;
            let counts = toolchain()?.sass_instruction_count(&cubin)?;
            let mut s = String::new();
            for f in &counts.functions {
                s.push_str(&format!("{}\t{}\t{}\n", f.name, f.instructions, f.slots));
            }
            s.push_str(&format!("TOTAL\t{}\t{}\n", counts.total(), counts.total_slots()));
            write_output("-", s.as_bytes())?;
        }
        "help" | "-h" | "--help" => println!("{USAGE}"),
        other => return Err(Failure::Usage(format!("unknown subcommand `{other}`"))),
    }
    Ok(())
}
