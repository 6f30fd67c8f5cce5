//! Integration tests of the interpreter, in one test binary:
//!
//! - `prmt`: every generic selector and every mode against an independent
//!   model written from the ISA table, plus LLVM's constant-folding goldens;
//! - `cvt`: cvt.pack and cvt.sat over the boundary values of every convert
//!   type, float conversions in every rounding mode against brute-force
//!   models;
//! - `units`: one data-driven table per instruction family, expected values
//!   worked out by hand from the ISA text;
//! - `fns`: find n-th set bit, by hand from the ISA text and against the
//!   ISA's bit loop on seeded triples, anchored on results of an H200;
//! - `memory`, `control`: loads/stores in every space, calls, barriers,
//!   warp collectives, faults and limits;
//! - `corpus`: diff(A, A) over every public corpus kernel, with the number
//!   of supported kernels per generator;
//! - `given`: `ptx-interp run` with given inputs: the format's parser and
//!   errors, and the known-value cases of testdata/interp/known-values;
//! - `tensor`: mma, ldmatrix, stmatrix and movmatrix against reference
//!   matrix multiplies and the fragment layouts of the ISA's figures;
//! - `textures`: tex/tld4/txq/suld/sust against the bound texture model;
//! - `scheduling`: spin locks under the yielding scheduler, struct inputs
//!   and buffers sized from the addresses touched;
//! - `legacy`: mad.f32/f64 with no rounding modifier, module-scope .local;
//! - `mutations`: wrong rewrites of small kernels that the checker must
//!   catch;
//! - `typed_words`: the interpreter's source names modifier words and
//!   opcodes by their `ptx_ir` constants, never as strings.

mod approx;
mod byte_lanes;
mod cli;
mod control;
mod corpus;
mod cvt;
mod fns;
mod given;
mod harness;
mod legacy;
mod memory;
mod models;
mod mutations;
mod prmt;
mod robustness;
mod scheduling;
mod softfloat;
mod tensor;
mod textures;
mod typed_words;
mod units;
