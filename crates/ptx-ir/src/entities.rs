//! Entity handles (indices into a function's arenas) and the name table.

use cranelift_entity::{entity_impl, EntityRef, PrimaryMap};
use rustc_hash::FxHashMap;
use std::num::NonZeroU32;

/// A register of a function (one per declared name, `%r<4>` declares four).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RegId(u32);
entity_impl!(RegId, "reg");

/// An instruction of a function.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InstId(u32);
entity_impl!(InstId, "inst");

/// A label of a function.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LabelId(u32);
entity_impl!(LabelId, "label");

/// A function of a module.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FuncId(u32);
entity_impl!(FuncId, "func");

/// An interned string in a function's [`Names`] table.
///
/// Stored as its index plus one, so that an `Option<Name>` (the spelling
/// a literal may keep) is four bytes, not eight.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Name(NonZeroU32);

impl Name {
    /// The name with index `index`.
    pub fn from_u32(index: u32) -> Name {
        // A name table holds fewer names than its function's text has
        // bytes, and a source is below 4 GiB.
        Name(NonZeroU32::new(index.wrapping_add(1)).expect("fewer than u32::MAX names"))
    }

    /// The index.
    pub fn as_u32(self) -> u32 {
        self.0.get() - 1
    }
}

impl EntityRef for Name {
    fn new(index: usize) -> Name {
        Name::from_u32(u32::try_from(index).expect("fewer than u32::MAX names"))
    }

    fn index(self) -> usize {
        self.as_u32() as usize
    }
}

impl std::fmt::Display for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "name{}", self.as_u32())
    }
}

impl std::fmt::Debug for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

/// A function-local string interner: register names, labels, symbols and the
/// spellings of literals. Each function owns one, so functions can be
/// transformed in parallel without sharing mutable state.
#[derive(Clone, Debug, Default)]
pub struct Names {
    strings: PrimaryMap<Name, Box<str>>,
    index: FxHashMap<Box<str>, Name>,
}

impl Names {
    /// Interns `text`.
    pub fn intern(&mut self, text: &str) -> Name {
        if let Some(&name) = self.index.get(text) {
            return name;
        }
        let name = self.strings.push(text.into());
        self.index.insert(text.into(), name);
        name
    }

    /// The text of a name.
    pub fn get(&self, name: Name) -> &str {
        &self.strings[name]
    }

    /// The name of `text`, if it was interned.
    pub fn find(&self, text: &str) -> Option<Name> {
        self.index.get(text).copied()
    }
}
