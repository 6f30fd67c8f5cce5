//! `ptx-isa`: the one description of the PTX instruction set.
//!
//! The description lives in `isa/*.ptxisa`, written in the ISA's own syntax
//! so that each syntax block can be checked line by line against its ISA
//! section ([`description`] has the notation). Everything else that knows
//! what an instruction is comes from it: the tables of [`model`] ([`ISA`]:
//! opcodes, forms, modifier words, what each form needs of `.version` and
//! `.target`) and the [`Word`] vocabulary, generated into this crate by
//! [`codegen`], and the opcode enum, typed views and builders generated into
//! `ptx-ir`.

#![warn(missing_docs)]

pub mod codegen;
pub mod description;
pub mod model;

// Written by the generator ([`codegen`]), not by rustfmt.
#[rustfmt::skip]
mod generated {
    pub mod tables;
    pub mod words;
}

pub use generated::tables::ISA;
pub use generated::words::WORDS;
pub use model::{Control, Effects, Isa, Shape};

/// A modifier word of the description (`.wide`, `.L2::cache_hint`, `.u32`):
/// an index into [`WORDS`]. Code names a word by its generated constant
/// (`Word::WIDE`, `Word::L2__CACHE_HINT`), so a misspelt or missing word is
/// a compile error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Word(pub(crate) u16);

/// Slots of [`Word::lookup`]'s table: a power of two, at least twice the
/// vocabulary (checked by a test), so probes stay short and one is empty.
const LOOKUP_SLOTS: usize = 4096;
const NO_WORD: u16 = u16::MAX;

/// FNV-1a, folded to a slot of [`Word::lookup`]'s table.
fn lookup_hash(text: &str) -> usize {
    let h = text.bytes().fold(0x811c_9dc5_u32, |h, b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193));
    (h as usize) % LOOKUP_SLOTS
}

impl Word {
    /// Looks a word up (without the leading dot); for text read from input.
    pub fn lookup(text: &str) -> Option<Word> {
        // A hash table built on first use: the parser looks up every
        // modifier of every distinct opcode text of every function, and a
        // binary search over the vocabulary compares a dozen strings.
        static TABLE: std::sync::OnceLock<Box<[u16]>> = std::sync::OnceLock::new();
        let table = TABLE.get_or_init(|| {
            let mut table = vec![NO_WORD; LOOKUP_SLOTS].into_boxed_slice();
            for (i, w) in WORDS.iter().enumerate() {
                let mut at = lookup_hash(w);
                while table[at] != NO_WORD {
                    at = (at + 1) % LOOKUP_SLOTS;
                }
                table[at] = i as u16;
            }
            table
        });
        let mut at = lookup_hash(text);
        loop {
            let i = table[at];
            if i == NO_WORD {
                return None;
            }
            if WORDS[i as usize] == text {
                return Some(Word(i));
            }
            at = (at + 1) % LOOKUP_SLOTS;
        }
    }

    /// The word `text`, which must be in the vocabulary: in const context
    /// (`const W: Word = Word::known("wide");`) a word not in [`WORDS`]
    /// fails to compile. Prefer the generated constant (`Word::WIDE`).
    pub const fn known(text: &str) -> Word {
        let (mut lo, mut hi) = (0, WORDS.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            let c = compare(WORDS[mid].as_bytes(), text.as_bytes());
            if c == 0 {
                return Word(mid as u16);
            }
            if c < 0 {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        panic!("not a word of ptx_isa::WORDS")
    }

    /// The word's text, without its dot.
    pub fn as_str(self) -> &'static str {
        WORDS[self.0 as usize]
    }

    /// Its index in [`WORDS`] (and in [`ISA`]'s tables).
    pub fn index(self) -> u16 {
        self.0
    }

    /// The word at `index` of [`WORDS`].
    pub fn from_index(index: u16) -> Option<Word> {
        ((index as usize) < WORDS.len()).then_some(Word(index))
    }
}

/// Byte-wise comparison usable in const context: <0, 0 or >0.
const fn compare(a: &[u8], b: &[u8]) -> i32 {
    let mut i = 0;
    while i < a.len() && i < b.len() {
        if a[i] != b[i] {
            return a[i] as i32 - b[i] as i32;
        }
        i += 1;
    }
    a.len() as i32 - b.len() as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_finds_every_word_and_nothing_else() {
        assert!(WORDS.len() * 2 <= LOOKUP_SLOTS, "grow LOOKUP_SLOTS: {} words", WORDS.len());
        for (i, w) in WORDS.iter().enumerate() {
            assert_eq!(Word::lookup(w), Some(Word(i as u16)), "{w}");
            assert_eq!(
                Word::lookup(&format!("{w}x")),
                WORDS.binary_search(&&*format!("{w}x")).ok().map(|i| Word(i as u16))
            );
        }
        for text in ["", "bogus", "U32", "u32 ", ".u32"] {
            assert_eq!(Word::lookup(text), None, "{text:?}");
        }
    }
}
