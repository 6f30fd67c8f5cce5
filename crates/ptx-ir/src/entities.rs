//! Entity handles (indices into a function's arenas) and the name table.

use cranelift_entity::{entity_impl, PrimaryMap};
use rustc_hash::FxHashMap;

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
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Name(u32);
entity_impl!(Name, "name");

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
