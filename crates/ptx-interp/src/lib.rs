//! `ptx-interp`: a bit-precise reference interpreter of the ptx-ir IR, and an
//! equivalence checker built on it so that pass tests can ask "does the
//! rewritten kernel still compute the same bytes?".
//!
//! - [`Program`] prepares a module (symbols, labels, frames);
//!   [`run_function`] runs a kernel on a small grid with given arguments.
//! - [`diff_modules`] / [`assert_equivalent`] invent arguments (random
//!   buffers for pointers, random and edge-case scalars), run both modules
//!   and compare every output byte.
//! - Anything the interpreter does not model is an explicit
//!   [`InterpError::Unsupported`], never a guess; faults of the program are
//!   errors too. The library never prints and never panics on any input.
//!
//! Modelled: ld/st/ldu in every space (vectors, relaxed widths), vector
//! registers (`.reg .v2 .u32 t`: whole, and elements `t.x`), mov (pack,
//! unpack, addresses, special registers), cvt (all integer/float pairs,
//! every rounding, .sat, .ftz, .relu, .satfinite, f16/bf16/e4m3/e5m2 in
//! software), cvt.pack, prmt, integer and f16/bf16/f32/f64 arithmetic
//! (add/sub/mul/fma/div/sqrt/rcp in every IEEE rounding mode), logic,
//! shifts, bit-field operations (bfe, bfi, bfind, bmsk, szext, fns, popc,
//! clz, brev), SIMD video instructions, setp/set/selp/slct, branches,
//! calls (direct and indirect), bar/barrier (also
//! .red/.arrive), warp collectives (shfl, vote, match, redux, bar.warp;
//! activemask and vote/shfl without .sync take the lanes waiting there
//! together), atomics, cp.async, clocks (counters of their reads), and on a
//! documented model approximate math (`.approx`, `div.full`, ex2, lg2, sin,
//! cos, tanh, rsqrt: see [`approx`]), and tensor-core warp collectives:
//! `mma.sync` (f16/bf16/tf32/f64 and s8/u8/s4/u4 shapes, `.row.col`, the
//! fragment layouts of the ISA; floats as one exactly rounded dot product),
//! `ldmatrix`/`stmatrix` (`.m8n8.b16`, `.x1/.x2/.x4`, `.trans`),
//! `movmatrix`, `wmma.load/mma/store` (f16/bf16/s8/u8 m16n16k16, m32n8k16,
//! m8n32k16, tf32 m16n16k8, f64 m8n8k4; fragments in an interpreter layout,
//! the ISA leaves them unspecified) and `cvt.*.tf32.f32`. Not modelled
//! (reported): wgmma, tcgen05, other mma/wmma shapes (m8n8k4 f16, b1, fp8,
//! wmma s4/u4), cube and multisample textures, formatted
//! surface access. Textures and surfaces are read from a deterministic bound
//! model (see `texel_byte`): the same contents on both sides of a diff.
//!
//! Conventions where PTX leaves a choice open, fixed so that results are
//! deterministic and comparable:
//! - a register read before it is written reads as zero; shared and local
//!   memory start zeroed;
//! - every NaN a floating-point operation or conversion produces is the
//!   canonical NaN (`0x7fffffff` for f32); `neg`/`abs` flip/clear the sign bit;
//! - threads of a CTA run one after another between barriers and warp
//!   collectives, CTAs one after another (one valid schedule of a race-free
//!   program); a thread yields after 64 synchronizing accesses (atomics,
//!   volatile/relaxed/acquire loads) so that spin locks finish;
//! - legacy `mad.f32`/`mad.f64` with no rounding modifier is `fma.rn`
//!   (`fma.rn.ftz.f32` for a `.target sm_1x` module);
//! - `add`/`mul` without a rounding modifier round to nearest as written
//!   (ptxas may contract them into `fma`; the interpreter does not);
//! - the carry flag is the hardware's: `sub.cc` sets CF when there is no
//!   borrow and `subc` computes a + ~b + CF (ptxas's IADD3/IADD3.X);
//! - integer division by zero and `MININT / -1` are errors (PTX leaves the
//!   value unspecified), so a trial that reaches them is skipped; so is
//!   `fns` with a base above 31 (undefined in the ISA).

#![warn(missing_docs)]

pub mod approx;
pub mod diff;
pub mod error;
mod exec;
pub mod given;
pub mod inputs;
pub mod intops;
pub mod machine;
pub mod memory;
pub mod printf;
pub mod program;
pub mod rng;
pub mod softfloat;

pub use diff::{
    assert_equivalent, assert_equivalent_with, diff_modules, error_family, DiffOptions, DiffReport, KernelReport, Side,
    Verdict,
};
pub use error::{ErrorClass, InterpError, LineIndex};
pub use exec::texture::{texel_byte, SURF_WIDTH, TEX_DEPTH, TEX_HEIGHT, TEX_LAYERS, TEX_WIDTH};
pub use inputs::{infer_params, make_args, trial_seed, ParamKind, ParamSpec};
pub use machine::{run_function, Buffer, KernelArgs, LaunchConfig, RunOutput};
pub use program::Program;
pub use rng::SplitMix64;

use ptx_ir::Module;

/// Runs the function `name` of `module` with `args`.
pub fn run_kernel(
    module: &Module,
    name: &str,
    args: &KernelArgs,
    cfg: &LaunchConfig,
) -> Result<RunOutput, InterpError> {
    let prog = Program::new(module);
    let func = prog.function(name).ok_or_else(|| InterpError::NoSuchFunction { name: name.to_string() })?;
    run_function(&prog, func, args, cfg)
}
