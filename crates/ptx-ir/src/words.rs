//! The vocabulary of modifier words (`.uni`, `.wide`, `.L2::128B`, ...):
//! every word of the description of the instruction set
//! (`ptx_isa::WORDS`). Types, state spaces, rounding modes, comparisons and
//! prmt modes have their own enums in the IR; any other word of the
//! vocabulary is a [`Modifier::Word`](crate::Modifier::Word), and a word
//! not in it is still kept (as `Modifier::Other`), it just means nothing to
//! the passes.
//!
//! Code tests a word through its generated constant,
//! `inst.has_word(Word::WIDE)`: a misspelt or missing word is a compile
//! error, not a test that silently answers "no".

pub use ptx_isa::{Word, WORDS};
