//! `ptx-isa`: the one description of the PTX instruction set.
//!
//! The description lives in `isa/*.ptxisa`, written in the ISA's own syntax
//! so that each syntax block can be checked line by line against its ISA
//! section ([`description`] has the notation). Everything else that knows
//! what an instruction is comes from it: the tables of [`model`] (opcodes,
//! forms, modifier words, what each form needs of `.version` and
//! `.target`), and the code generated from them in this crate and in
//! `ptx-ir`.

#![warn(missing_docs)]

pub mod description;
pub mod model;

pub use model::{Control, Effects, Isa, Shape};
