//! `ptx-ir`: the typed intermediate representation of ptx-opt.
//!
//! A [`Module`] holds the header, top-level items and [`Function`]s. A function
//! owns its arenas (registers, instructions, labels, names) and a flat body of
//! [`Stmt`]s that keeps source order, nested scopes and verbatim directives.
//! Every register operand is a [`RegId`] resolved through the scopes at parse
//! time, so a register always knows its declared type.
//!
//! This crate knows nothing of pest, files or diagnostics rendering.

#![warn(missing_docs)]

pub mod arena;
pub mod build;
pub mod edit;
pub mod entities;
pub mod forms;
pub mod fresh;
// Written by the generator (`ptx_isa::codegen`), not by rustfmt.
#[rustfmt::skip]
mod generated {
    pub mod families;
    pub mod opcodes;
}
/// A typed view (`family::Atom::of(&inst)`) and a builder
/// (`Inst::atom(...)`, `family::AtomBuilder`) for every instruction family
/// (opcode) of the description, generated from its forms.
pub mod family {
    pub use crate::generated::families::*;
}
pub mod init;
pub mod inst;
pub mod module;
pub mod opcodes;
pub mod print;
pub mod special;
pub mod types;
pub mod views;
pub mod words;

pub use arena::Arena;
pub use edit::BodyEdits;
pub use entities::{
    DirectiveId, FuncId, InstId, LabelId, Name, Names, OtherOpcode, RegDeclId, RegId, VariableId, MAX_OTHER_OPCODES,
};
pub use fresh::FreshRegs;
pub use init::{FloatLit, InitValue, Initializer, IntLit};
pub use inst::{
    Access, AddrBase, Address, AddressRest, ArrayElement, ElementIndex, FloatImm, Guard, Inst, IntImm, Modifier,
    Modifiers, Operand, Operands, OperandsIntoIter,
};
pub use module::{
    Brace, DeclWord, Function, FunctionKind, LabelData, Module, ModuleItem, RawDirective, RegData, RegDecl,
    RegDeclItem, RegIndex, Stmt, Variable,
};
pub use opcodes::{
    is_later_form, is_of_later_isa, newer_than_description, Control, Effects, Opcode, OpcodeInfo, Shape,
};
pub use types::{CmpOp, PrmtMode, RegType, Rounding, ScalarType, StateSpace, TypeKind};
pub use words::Word;

/// A byte range into the source text the module was parsed from. Instructions
/// made by passes have an empty span at 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    /// Start byte offset.
    pub start: u32,
    /// End byte offset (exclusive).
    pub end: u32,
}

impl Span {
    /// A span from byte offsets.
    pub fn new(start: usize, end: usize) -> Span {
        Span { start: start as u32, end: end as u32 }
    }

    /// True for spans of synthesized code.
    pub fn is_synthetic(&self) -> bool {
        self.start == 0 && self.end == 0
    }
}

/// An error or warning tied to a place in the source. The IR and every pass
/// return these as data; only the CLI renders them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Where.
    pub span: Span,
    /// What, in words a person understands.
    pub message: String,
    /// Other places that explain this one (where a name was first defined).
    pub notes: Vec<Note>,
}

/// A second place a [`Diagnostic`] refers to, with why it matters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    /// Where.
    pub span: Span,
    /// Why this place matters ("first defined here").
    pub message: String,
}

impl Diagnostic {
    /// A diagnostic at `span`.
    pub fn new(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic { span, message: message.into(), notes: Vec::new() }
    }

    /// The diagnostic with a note about another place.
    pub fn with_note(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.notes.push(Note { span, message: message.into() });
        self
    }
}
