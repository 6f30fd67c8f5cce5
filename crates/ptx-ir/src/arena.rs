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
    touched: bool,
}

impl<K: EntityRef, V> Default for Arena<K, V> {
    fn default() -> Self {
        Arena { items: PrimaryMap::new(), removed: Vec::new(), touched: false }
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
        self.items.get_mut(k)
    }

    /// True if `k` was removed from the function.
    pub fn is_removed(&self, k: K) -> bool {
        let i = k.index();
        self.removed.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
    }

    /// Marks `k` removed: iteration no longer yields it.
    pub fn remove(&mut self, k: K) {
        let i = k.index();
        if self.removed.len() <= i / 64 {
            self.removed.resize(self.items.len().div_ceil(64).max(i / 64 + 1), 0);
        }
        self.removed[i / 64] |= 1 << (i % 64);
        self.touched = true;
    }

    /// Live entries (not removed), in key order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (K, &V)> + '_ {
        self.items.iter().filter(move |(k, _)| !self.is_removed(*k))
    }

    /// Live entries, mutably; counts as a change.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (K, &mut V)> + '_ {
        self.touched = true;
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
        &mut self.items[k]
    }
}

impl<K: EntityRef, V> FromIterator<V> for Arena<K, V> {
    fn from_iter<I: IntoIterator<Item = V>>(iter: I) -> Self {
        Arena { items: PrimaryMap::from_iter(iter), removed: Vec::new(), touched: true }
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
}
