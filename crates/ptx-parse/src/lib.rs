//! `ptx-parse`: the pest grammar for PTX and its lowering into `ptx-ir`.
//!
//! [`parse`] turns source text into a [`Module`] or a list of
//! [`Diagnostic`]s with byte spans; it never panics and never prints.

#![warn(missing_docs)]

extern crate alloc;

mod errors;
mod lower;

pub use lower::{is_special_register, parse_int, MAX_FUNCTION_REGS, MAX_REG_FAMILY, MAX_VECTOR};
use pest::Parser;
use ptx_ir::{Diagnostic, Module, Span};

#[allow(missing_docs)]
mod grammar {
    /// The generated pest parser.
    #[derive(pest_derive::Parser)]
    #[grammar = "ptx.pest"]
    pub struct PtxParser;
}
pub use grammar::{PtxParser, Rule};

/// Deepest nesting of `{ }` accepted. pest's recursive descent has no depth
/// limit of its own, so deeper input would overflow the stack.
pub const MAX_NESTING: usize = 256;

/// Longest name or number accepted, in bytes: far above the longest C++
/// mangled names compilers emit (the public corpus peaks at 387, CUTLASS
/// kernels reach a few thousand), low enough to be a clear error instead of
/// megabytes of one token carried through every message.
pub const MAX_TOKEN_LEN: usize = 1 << 16;

/// Parses a PTX module.
pub fn parse(source: &str) -> Result<Module, Vec<Diagnostic>> {
    if source.len() >= u32::MAX as usize {
        return Err(vec![Diagnostic::new(Span::default(), "input is larger than 4 GiB")]);
    }
    errors::check_limits(source)?;
    let mut pairs = PtxParser::parse(Rule::file, source).map_err(|e| vec![errors::describe(source, &e)])?;
    let file = pairs.next().expect("the file rule produces one pair");
    lower::lower_file(file, source)
}
