//! Dense bit rows in one flat allocation: one row per basic block, one column
//! per definition site. Rows are slices of `u64` words so the dataflow can
//! union, copy and compare whole rows word by word.

/// A `rows × cols` bit matrix.
#[derive(Clone, Debug, Default)]
pub struct BitMatrix {
    words: usize,
    data: Vec<u64>,
}

impl BitMatrix {
    /// An all-zero matrix.
    pub fn new(rows: usize, cols: usize) -> BitMatrix {
        let words = cols.div_ceil(64);
        BitMatrix { words, data: vec![0; rows * words] }
    }

    /// Words per row.
    pub fn row_words(&self) -> usize {
        self.words
    }

    /// One row.
    pub fn row(&self, r: usize) -> &[u64] {
        &self.data[r * self.words..(r + 1) * self.words]
    }

    /// One row, mutably.
    pub fn row_mut(&mut self, r: usize) -> &mut [u64] {
        &mut self.data[r * self.words..(r + 1) * self.words]
    }
}

/// `dst |= src`.
pub fn union_into(dst: &mut [u64], src: &[u64]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d |= *s;
    }
}

/// Sets bit `i`.
pub fn set(row: &mut [u64], i: usize) {
    row[i / 64] |= 1 << (i % 64);
}

/// True if bit `i` is set.
#[cfg(test)]
pub fn get(row: &[u64], i: usize) -> bool {
    row[i / 64] >> (i % 64) & 1 == 1
}

/// Clears bits `start..end`.
pub fn clear_range(row: &mut [u64], start: usize, end: usize) {
    let mut i = start;
    while i < end {
        let w = i / 64;
        let lo = i % 64;
        let hi = (end - w * 64).min(64);
        let mask = if hi - lo == 64 { u64::MAX } else { ((1u64 << (hi - lo)) - 1) << lo };
        row[w] &= !mask;
        i = w * 64 + hi;
    }
}

/// Calls `f` for every set bit in `start..end`, in increasing order.
pub fn for_each_set(row: &[u64], start: usize, end: usize, mut f: impl FnMut(usize)) {
    let mut i = start;
    while i < end {
        let w = i / 64;
        let lo = i % 64;
        let hi = (end - w * 64).min(64);
        let mut bits = row[w] >> lo;
        if hi - lo < 64 {
            bits &= (1u64 << (hi - lo)) - 1;
        }
        while bits != 0 {
            let t = bits.trailing_zeros() as usize;
            f(w * 64 + lo + t);
            bits &= bits - 1;
        }
        i = w * 64 + hi;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        let mut m = BitMatrix::new(2, 200);
        let row = m.row_mut(1);
        for i in [0, 3, 63, 64, 65, 127, 128, 199] {
            set(row, i);
        }
        let collect = |row: &[u64], s, e| {
            let mut v = Vec::new();
            for_each_set(row, s, e, |i| v.push(i));
            v
        };
        assert_eq!(collect(m.row(1), 0, 200), [0, 3, 63, 64, 65, 127, 128, 199]);
        assert_eq!(collect(m.row(1), 4, 128), [63, 64, 65, 127]);
        assert_eq!(collect(m.row(0), 0, 200), Vec::<usize>::new());
        clear_range(m.row_mut(1), 3, 128);
        assert_eq!(collect(m.row(1), 0, 200), [0, 128, 199]);
        clear_range(m.row_mut(1), 0, 200);
        assert!(!get(m.row(1), 199));
    }
}
