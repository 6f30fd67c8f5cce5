//! Entity handles (indices into a function's arenas) and the name table.

use cranelift_entity::{entity_impl, EntityRef};
use hashbrown::HashTable;
use rustc_hash::{FxHashMap, FxHasher};
use std::hash::{Hash, Hasher};
use std::num::{NonZeroU16, NonZeroU32};

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

/// A `.reg` declaration in a function's body ([`crate::Stmt::RegDecl`]).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RegDeclId(u32);
entity_impl!(RegDeclId, "regdecl");

/// A variable declared in a function's body ([`crate::Stmt::Variable`]).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VariableId(u32);
entity_impl!(VariableId, "var");

/// A directive kept verbatim in a function's body ([`crate::Stmt::Raw`]).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DirectiveId(u32);
entity_impl!(DirectiveId, "directive");

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
///
/// The strings sit end to end in one buffer and the index holds only their
/// [`Name`]s: interning makes no allocation per name. (Two boxed copies of
/// each string, in a list and as a map's keys, cost about 100 bytes a name
/// more: 12.7 MB for the 127,000 names of the 54 MB benchmark file.)
#[derive(Clone, Default)]
pub struct Names {
    /// Every interned string, end to end, in the order they were interned.
    text: String,
    /// Where each name's string ends in `text` (it starts where the one
    /// before ends).
    ends: Vec<u32>,
    /// The names, hashed by their strings.
    index: HashTable<Name>,
    /// The names of the opcodes the description does not know, in the
    /// order [`Names::intern_opcode`] met them, and the place of each.
    opcodes: Vec<Name>,
    opcode_index: FxHashMap<Name, OtherOpcode>,
}

impl std::fmt::Debug for Names {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries((0..self.ends.len()).map(|i| self.get(Name::new(i)))).finish()
    }
}

fn hash_text(text: &str) -> u64 {
    let mut hasher = FxHasher::default();
    text.hash(&mut hasher);
    hasher.finish()
}

/// The string of `name` in a [`Names`] buffer (a free function so that the
/// index can rehash while the buffer is borrowed beside it).
fn name_text<'a>(text: &'a str, ends: &[u32], name: Name) -> &'a str {
    let i = name.index();
    let start = if i == 0 { 0 } else { ends[i - 1] as usize };
    &text[start..ends[i] as usize]
}

/// An opcode the ISA description does not know ([`Opcode::Other`](crate::Opcode::Other)),
/// by its place among the unknown opcodes of its function
/// ([`Names::intern_opcode`], [`Names::opcode`]). Two bytes, where a
/// [`Name`] takes four, so that an opcode is four bytes and not eight: every
/// instruction has one.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OtherOpcode(NonZeroU16);

impl std::fmt::Debug for OtherOpcode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "other_opcode{}", self.0.get() - 1)
    }
}

/// Distinct unknown opcodes one function may have ([`OtherOpcode`]).
pub const MAX_OTHER_OPCODES: usize = u16::MAX as usize;

impl Names {
    /// Interns `text`.
    pub fn intern(&mut self, text: &str) -> Name {
        let hash = hash_text(text);
        let (buffer, ends) = (&self.text, &self.ends);
        if let Some(&name) = self.index.find(hash, |&n| name_text(buffer, ends, n) == text) {
            return name;
        }
        let name = Name::new(self.ends.len());
        self.text.push_str(text);
        // A function's names are fewer and shorter than its source text,
        // which the parser keeps below 4 GiB.
        self.ends.push(u32::try_from(self.text.len()).expect("names below 4 GiB"));
        let (buffer, ends) = (&self.text, &self.ends);
        self.index.insert_unique(hash, name, |&n| hash_text(name_text(buffer, ends, n)));
        name
    }

    /// The text of a name.
    pub fn get(&self, name: Name) -> &str {
        name_text(&self.text, &self.ends, name)
    }

    /// The name of `text`, if it was interned.
    pub fn find(&self, text: &str) -> Option<Name> {
        self.index.find(hash_text(text), |&n| self.get(n) == text).copied()
    }

    /// Frees the room reserved beyond what the table holds.
    pub fn shrink_to_fit(&mut self) {
        self.text.shrink_to_fit();
        self.ends.shrink_to_fit();
        let (buffer, ends) = (&self.text, &self.ends);
        self.index.shrink_to_fit(|&n| hash_text(name_text(buffer, ends, n)));
    }

    /// Interns `text` as an opcode the description does not know; None if
    /// the function has [`MAX_OTHER_OPCODES`] others already.
    pub fn intern_opcode(&mut self, text: &str) -> Option<OtherOpcode> {
        let name = self.intern(text);
        if let Some(&op) = self.opcode_index.get(&name) {
            return Some(op);
        }
        let place = u16::try_from(self.opcodes.len() + 1).ok().and_then(NonZeroU16::new)?;
        self.opcodes.push(name);
        self.opcode_index.insert(name, OtherOpcode(place));
        Some(OtherOpcode(place))
    }

    /// The text of an unknown opcode this interner made.
    pub fn opcode(&self, op: OtherOpcode) -> &str {
        self.get(self.opcodes[usize::from(op.0.get()) - 1])
    }
}
