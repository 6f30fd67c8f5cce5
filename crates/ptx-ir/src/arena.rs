//! The arenas a function owns (registers, instructions, labels), with change
//! tracking.
//!
//! The printer copies a function's source text verbatim while the function is
//! as parsed (invariant 3 of ARCHITECTURE.md). An edit that forgot to say so
//! would be silently lost: the original text would be printed instead. An
//! [`Arena`] therefore records every mutable access (`arena[id] = ..`,
//! `get_mut`, `push`, ...) and [`Function::is_pristine`](crate::Function::is_pristine)
//! asks it, so a change made through the API is never printed stale.
//!
//! Beyond the one flag, an arena knows which of the entries it had when it
//! was marked unchanged were written since ([`Arena::is_original`]): the
//! printer copies the source text of a changed function's untouched
//! statements and prints only the rest afresh.
//!
//! An arena also knows which entries were removed from the function
//! ([`Arena::remove`]; `BodyEdits` does it for instructions it drops from
//! the body): iteration skips them, indexing still reads them (an id stays
//! valid).

use cranelift_entity::{EntityRef, PrimaryMap};
use std::ops::{Index, IndexMut};

/// A `PrimaryMap` that remembers whether it was changed and which entries
/// were removed.
#[derive(Clone, Debug)]
pub struct Arena<K: EntityRef, V> {
    items: PrimaryMap<K, V>,
    /// One bit per entry, allocated on the first removal.
    removed: Vec<u64>,
    /// One bit per entry written through a mutable access since
    /// [`Arena::mark_unchanged`], allocated on the first such write.
    written: Vec<u64>,
    /// How many entries the arena had at [`Arena::mark_unchanged`].
    original_len: usize,
    touched: bool,
}

fn bit_set(bits: &[u64], i: usize) -> bool {
    bits.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
}

fn set_bit(bits: &mut Vec<u64>, i: usize, len: usize) {
    if bits.len() <= i / 64 {
        bits.resize(len.div_ceil(64).max(i / 64 + 1), 0);
    }
    bits[i / 64] |= 1 << (i % 64);
}

impl<K: EntityRef, V> Default for Arena<K, V> {
    fn default() -> Self {
        Arena { items: PrimaryMap::new(), removed: Vec::new(), written: Vec::new(), original_len: 0, touched: false }
    }
}

impl<K: EntityRef, V> Arena<K, V> {
    /// An empty arena.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds an entry.
    pub fn push(&mut self, value: V) -> K {
        self.touched = true;
        self.items.push(value)
    }

    /// Reserves room for `n` more entries.
    pub fn reserve(&mut self, n: usize) {
        self.items.reserve(n);
    }

    /// Frees the room reserved beyond the entries (not a change).
    pub fn shrink_to_fit(&mut self) {
        self.items.shrink_to_fit();
    }

    /// The key the next `push` returns.
    pub fn next_key(&self) -> K {
        self.items.next_key()
    }

    /// Number of entries ever pushed (removed ones included): the bound of
    /// the key space, for tables indexed by key.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True if nothing was ever pushed.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The entry, if the key is in range (removed entries included).
    pub fn get(&self, k: K) -> Option<&V> {
        self.items.get(k)
    }

    /// Mutable access to an entry; counts as a change.
    pub fn get_mut(&mut self, k: K) -> Option<&mut V> {
        self.touched = true;
        self.note_written(k.index());
        self.items.get_mut(k)
    }

    fn note_written(&mut self, i: usize) {
        if i < self.original_len {
            set_bit(&mut self.written, i, self.original_len);
        }
    }

    /// True if `k` was removed from the function.
    pub fn is_removed(&self, k: K) -> bool {
        bit_set(&self.removed, k.index())
    }

    /// Marks `k` removed: iteration no longer yields it.
    pub fn remove(&mut self, k: K) {
        set_bit(&mut self.removed, k.index(), self.items.len());
        self.touched = true;
    }

    /// True if `k` is an entry the arena had when it was marked unchanged,
    /// neither written nor removed since: its source text still says what
    /// it is.
    pub fn is_original(&self, k: K) -> bool {
        let i = k.index();
        i < self.original_len && !bit_set(&self.written, i) && !bit_set(&self.removed, i)
    }

    /// True if `k` is one of the entries the arena had when it was marked
    /// unchanged (written or removed since, or not).
    pub fn is_from_source(&self, k: K) -> bool {
        k.index() < self.original_len
    }

    /// True if an entry the arena had when it was marked unchanged was
    /// written since (pushes and removals are not writes).
    pub fn any_original_written(&self) -> bool {
        self.written.iter().any(|&w| w != 0)
    }

    /// Live entries (not removed), in key order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (K, &V)> + '_ {
        self.items.iter().filter(move |(k, _)| !self.is_removed(*k))
    }

    /// Live entries, mutably; counts as a change.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (K, &mut V)> + '_ {
        self.touched = true;
        for i in 0..self.original_len {
            set_bit(&mut self.written, i, self.original_len);
        }
        let removed = &self.removed;
        self.items.iter_mut().filter(move |(k, _)| {
            let i = k.index();
            removed.get(i / 64).is_none_or(|w| w & (1 << (i % 64)) == 0)
        })
    }

    /// Keys of the live entries.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = K> + '_ {
        self.iter().map(|(k, _)| k)
    }

    /// Values of the live entries.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &V> + '_ {
        self.iter().map(|(_, v)| v)
    }

    /// Values of the live entries, mutably; counts as a change.
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut V> + '_ {
        self.iter_mut().map(|(_, v)| v)
    }

    /// Drops every entry from `len` on (entries pushed after the arena had
    /// `len` of them), for undoing an unfinished rewrite.
    pub fn truncate(&mut self, len: usize) {
        if len >= self.items.len() {
            return;
        }
        let kept: Vec<V> = std::mem::take(&mut self.items).into_iter().map(|(_, v)| v).take(len).collect();
        self.items = PrimaryMap::from_iter(kept);
        for i in len..self.removed.len() * 64 {
            self.removed[i / 64] &= !(1 << (i % 64));
        }
    }

    /// Undoes the pushes made since the arena had `len` entries and puts the
    /// change flag back to `touched` (a rolled-back rewrite leaves a
    /// function as pristine as it found it; the caller restores what it
    /// overwrote in place).
    pub fn rollback(&mut self, len: usize, touched: bool) {
        self.truncate(len);
        self.touched = touched;
        if !touched {
            self.written.clear();
        }
    }

    /// True if the arena was changed since it was built (or since
    /// [`Arena::mark_unchanged`]).
    pub fn is_touched(&self) -> bool {
        self.touched
    }

    /// Records that the arena matches its source from now on (the parser
    /// calls it once a function is lowered).
    pub fn mark_unchanged(&mut self) {
        self.touched = false;
        self.written = Vec::new();
        self.original_len = self.items.len();
    }
}

impl<K: EntityRef, V> Index<K> for Arena<K, V> {
    type Output = V;
    fn index(&self, k: K) -> &V {
        &self.items[k]
    }
}

impl<K: EntityRef, V> IndexMut<K> for Arena<K, V> {
    fn index_mut(&mut self, k: K) -> &mut V {
        self.touched = true;
        self.note_written(k.index());
        &mut self.items[k]
    }
}

impl<K: EntityRef, V> FromIterator<V> for Arena<K, V> {
    fn from_iter<I: IntoIterator<Item = V>>(iter: I) -> Self {
        Arena {
            items: PrimaryMap::from_iter(iter),
            removed: Vec::new(),
            written: Vec::new(),
            original_len: 0,
            touched: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::InstId;

    #[test]
    fn tracks_changes_and_removals() {
        let mut a: Arena<InstId, u32> = Arena::new();
        let x = a.push(1);
        let y = a.push(2);
        let z = a.push(3);
        a.mark_unchanged();
        let _ = a[x];
        assert!(!a.is_touched(), "reading is not a change");
        a[y] = 5;
        assert!(a.is_touched());
        a.mark_unchanged();
        a.remove(y);
        assert!(a.is_touched());
        assert_eq!(a.keys().collect::<Vec<_>>(), [x, z]);
        assert_eq!(a[y], 5, "a removed entry can still be read");
        a.truncate(1);
        assert_eq!(a.len(), 1);
        assert!(!a.is_removed(y));
        assert_eq!(a.push(7), y);
        assert_eq!(a.values().copied().collect::<Vec<_>>(), [1, 7]);
    }

    #[test]
    fn knows_which_original_entries_are_untouched() {
        let mut a: Arena<InstId, u32> = Arena::new();
        let x = a.push(1);
        let y = a.push(2);
        let z = a.push(3);
        a[x] = 9;
        a.mark_unchanged();
        assert!(a.is_original(x), "writes before mark_unchanged are the source's");
        a[y] = 5;
        a.remove(z);
        let w = a.push(4);
        assert!(a.is_original(x));
        assert!(!a.is_original(y), "written");
        assert!(!a.is_original(z), "removed");
        assert!(!a.is_original(w), "pushed since");
        assert!(a.any_original_written());
        a.rollback(3, false);
        assert!(a.is_original(y) && !a.any_original_written(), "a rollback to pristine forgets the writes");
        let _ = a.iter_mut().count();
        assert!(!a.is_original(x), "iter_mut may write any entry");
    }
}
