//! A JIT compiler's use of ptx-opt: PTX generated in memory is optimized in
//! memory and handed on (to `cuModuleLoadData`, or `ptxas`), with what each
//! pass rewrote; PTX that does not parse gives diagnostics located by line
//! and column, rendered as compilers do. Nothing touches the file system.
//!
//! `cargo run -p ptx-opt --example jit` prints both. The test
//! `tests/ptx_opt/library.rs` compiles this very file as a module and checks
//! what it returns, so the example cannot rot.

use ptx_opt::{LineIndex, Options};

/// A kernel as a JIT might emit it: an 8-bit load into a 32-bit register and
/// a 32-bit register stored as a byte (PTX ISA 9.4.1 relaxed operands).
pub const KERNEL: &str = "\
.version 8.0
.target sm_80
.address_size 64

.visible .entry scale_bytes(.param .u64 data)
{
\t.reg .b32 %r<3>;
\t.reg .b64 %rd<2>;
\tld.param.u64 %rd1, [data];
\tld.global.u8 %r1, [%rd1];
\tshl.b32 %r2, %r1, 1;
\tst.global.u8 [%rd1], %r2;
\tret;
}
";

/// The same kernel with a mistake on line 11: an operand is missing.
pub const BROKEN: &str = "\
.version 8.0
.target sm_80
.address_size 64

.visible .entry scale_bytes(.param .u64 data)
{
\t.reg .b32 %r<3>;
\t.reg .b64 %rd<2>;
\tld.param.u64 %rd1, [data];
\tld.global.u8 %r1, [%rd1];
\tshl.b32 %r2, , 1;
\tst.global.u8 [%rd1], %r2;
\tret;
}
";

/// What the JIT gets back: the optimized PTX and one line per rewrite.
pub struct Optimized {
    /// The PTX to load.
    pub ptx: String,
    /// `NAME:LINE:COL: remark: [pass] function: message`, one per rewrite.
    pub remarks: Vec<String>,
}

/// Optimizes `ptx` (called `name` in messages) with the passes a JIT wants;
/// on failure returns the diagnostics as `NAME:LINE:COL: error: MESSAGE` lines.
pub fn optimize(name: &str, ptx: &str) -> Result<Optimized, Vec<String>> {
    // A named list; `Options::with_level(2)` runs the -O2 pipeline instead.
    let options = Options::with_passes(["legalize-relaxed"]);
    let index = LineIndex::new(ptx);
    let locate = |start: u32| index.line_col(ptx, start as usize);
    match ptx_opt::optimize(ptx, &options) {
        Ok(out) => {
            let remarks = out
                .run
                .passes
                .iter()
                .flat_map(|p| &p.stats.remarks)
                .map(|r| {
                    let (line, col) = locate(r.span.start);
                    format!("{name}:{line}:{col}: remark: [{}] {}: {}", r.pass, r.function, r.message)
                })
                .collect();
            Ok(Optimized { ptx: out.ptx, remarks })
        }
        Err(error) if error.diagnostics.is_empty() => Err(vec![format!("{name}: error: {error}")]),
        Err(error) => Err(error
            .diagnostics
            .iter()
            .map(|d| {
                let (line, col) = locate(d.span.start);
                format!("{name}:{line}:{col}: error: {}", d.message)
            })
            .collect()),
    }
}

/// Optimizes the kernel and prints it (remarks on standard error), then
/// shows the diagnostics of the broken one.
pub fn main() {
    match optimize("kernel.ptx", KERNEL) {
        Ok(out) => {
            for remark in &out.remarks {
                eprintln!("{remark}");
            }
            print!("{}", out.ptx);
        }
        Err(errors) => eprintln!("unexpected: {errors:?}"),
    }
    match optimize("broken.ptx", BROKEN) {
        Ok(_) => eprintln!("unexpected: broken.ptx was accepted"),
        Err(errors) => {
            for e in errors {
                eprintln!("{e}");
            }
        }
    }
}
