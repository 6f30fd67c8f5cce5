//! The output of a run kept as pieces: ranges of the input for what no pass
//! changed, new text for the rest. A run on a large input then holds one
//! copy of the text, not two, until it is written out (`ptx-opt` writes it
//! piece by piece); [`OutputText::into_string`] gives the one string the
//! library's [`crate::Output`] has.

use ptx_ir::print::PrintSink;
use std::ops::Range;
use std::sync::Arc;

/// The printed module as pieces of the input and of new text (see the
/// module doc). Made by [`crate::optimize_text`].
#[derive(Clone, Debug)]
pub struct OutputText {
    input: Arc<str>,
    new_text: String,
    pieces: Vec<Piece>,
    /// Where in `new_text` the text not yet in `pieces` starts.
    recorded_to: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Piece {
    Input(Range<usize>),
    New(Range<usize>),
}

impl OutputText {
    /// An empty text whose unchanged parts will be ranges of `input`.
    pub(crate) fn new(input: Arc<str>) -> OutputText {
        OutputText { input, new_text: String::new(), pieces: Vec::new(), recorded_to: 0 }
    }

    /// The whole input, unchanged.
    pub(crate) fn unchanged(input: Arc<str>) -> OutputText {
        let mut text = OutputText::new(input);
        let whole = 0..text.input.len();
        text.push_piece(Piece::Input(whole));
        text
    }

    /// A text made elsewhere (a run of the whole module).
    pub(crate) fn from_string(input: Arc<str>, printed: String) -> OutputText {
        let mut text = OutputText::new(input);
        text.new_text = printed;
        text.record_new_text();
        text
    }

    /// Its length in bytes.
    pub fn len(&self) -> usize {
        self.slices().map(str::len).sum()
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Its pieces in order; written one after the other they are the text.
    pub fn slices(&self) -> impl Iterator<Item = &str> + '_ {
        let tail = &self.new_text[self.recorded_to..];
        self.pieces.iter().map(|piece| self.piece_text(piece)).chain((!tail.is_empty()).then_some(tail))
    }

    /// Writes it, piece by piece.
    pub fn write_to(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        self.slices().try_for_each(|slice| out.write_all(slice.as_bytes()))
    }

    /// The text as one string. When it is all new text (or all of the
    /// input, with no other holder of it) nothing is copied.
    pub fn into_string(mut self) -> String {
        self.record_new_text();
        match self.pieces.as_slice() {
            [] => String::new(),
            [Piece::New(range)] if *range == (0..self.new_text.len()) => self.new_text,
            _ => {
                let mut out = String::with_capacity(self.len());
                self.slices().for_each(|slice| out.push_str(slice));
                out
            }
        }
    }

    /// The same text with the `.version` line of its header saying
    /// `version` (a streamed run that lowers or raises it).
    pub(crate) fn with_version(mut self, version: crate::version::Version) -> OutputText {
        self.record_new_text();
        // The header is almost always the input's own first bytes: the value
        // is then replaced in place, and the rest stays pieces of the input.
        if let Some(Piece::Input(first)) = self.pieces.first().cloned() {
            if let Some(value) = crate::version::version_value(&self.input[first.clone()]) {
                let (start, end) = (first.start + value.start, first.start + value.end);
                let at = self.new_text.len();
                self.new_text.push_str(&format!("{}.{}", version.0, version.1));
                self.recorded_to = self.new_text.len();
                let pieces = [
                    Piece::Input(first.start..start),
                    Piece::New(at..self.new_text.len()),
                    Piece::Input(end..first.end),
                ];
                self.pieces.splice(0..1, pieces.into_iter().filter(|p| !matches!(p, Piece::Input(r) if r.is_empty())));
                return self;
            }
        }
        let input = self.input.clone();
        let text = self.into_string();
        let text = crate::version::reversion_text(&text, version).unwrap_or(text);
        OutputText::from_string(input, text)
    }

    fn piece_text(&self, piece: &Piece) -> &str {
        match piece {
            Piece::Input(range) => &self.input[range.clone()],
            Piece::New(range) => &self.new_text[range.clone()],
        }
    }

    fn record_new_text(&mut self) {
        if self.recorded_to < self.new_text.len() {
            self.pieces.push(Piece::New(self.recorded_to..self.new_text.len()));
            self.recorded_to = self.new_text.len();
        }
    }

    fn push_piece(&mut self, piece: Piece) {
        match (self.pieces.last_mut(), piece) {
            (_, Piece::Input(range)) if range.is_empty() => {}
            // Consecutive ranges of the input are one piece: a run where no
            // pass fired is a single piece however many batches it took.
            (Some(Piece::Input(last)), Piece::Input(range)) if last.end == range.start => last.end = range.end,
            (_, piece) => self.pieces.push(piece),
        }
    }

    /// Where `slice` lies in the input, if it is a part of it.
    fn input_range_of(&self, slice: &str) -> Option<Range<usize>> {
        let input = self.input.as_bytes().as_ptr_range();
        let start = slice.as_ptr();
        let within = input.start <= start && start as usize + slice.len() <= input.end as usize;
        // Address arithmetic only to find the offset; both lie in one allocation.
        within.then(|| {
            let offset = start as usize - input.start as usize;
            offset..offset + slice.len()
        })
    }
}

impl PrintSink for OutputText {
    fn push_source(&mut self, source: &str, range: Range<usize>) {
        let slice = &source[range];
        match self.input_range_of(slice) {
            Some(in_input) => {
                self.record_new_text();
                self.push_piece(Piece::Input(in_input));
            }
            // A module parsed from another text than this output's input.
            None => self.new_text.push_str(slice),
        }
    }

    fn text(&mut self) -> &mut String {
        &mut self.new_text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_of_the_input_and_new_text_come_out_in_order() {
        let input: Arc<str> = Arc::from("abcdefgh");
        let mut text = OutputText::new(input.clone());
        text.push_source(&input, 0..2);
        text.push_source(&input, 2..3);
        text.text().push_str("XY");
        text.push_source(&input, 5..8);
        text.text().push('Z');
        let elsewhere = String::from("elsewhere");
        text.push_source(&elsewhere, 0..4);
        assert_eq!(text.slices().collect::<Vec<_>>(), ["abc", "XY", "fgh", "Zelse"]);
        assert_eq!(text.len(), 13);
        let mut written = Vec::new();
        text.write_to(&mut written).unwrap();
        assert_eq!(written, b"abcXYfghZelse");
        assert_eq!(text.into_string(), "abcXYfghZelse");
    }

    #[test]
    fn an_unchanged_input_is_one_piece() {
        let input: Arc<str> = Arc::from("line 1\nline 2\n");
        let mut text = OutputText::new(input.clone());
        for range in [0..3, 3..3, 3..9, 9..14] {
            text.push_source(&input, range);
        }
        assert_eq!(text.pieces, [Piece::Input(0..14)]);
        assert_eq!(OutputText::unchanged(input.clone()).pieces, [Piece::Input(0..14)]);
        assert_eq!(OutputText::from_string(input, "new".into()).into_string(), "new");
    }

    #[test]
    fn a_new_version_replaces_only_the_header_s_value() {
        let input: Arc<str> = Arc::from("// c\n.version 9.5\n.target sm_80\nbody\n");
        let text = OutputText::unchanged(input.clone()).with_version((7, 0));
        assert_eq!(text.slices().collect::<Vec<_>>(), ["// c\n.version ", "7.0", "\n.target sm_80\nbody\n"]);
        let printed = OutputText::from_string(input, ".version 9.5\nx\n".into()).with_version((8, 0));
        assert_eq!(printed.into_string(), ".version 8.0\nx\n");
    }
}
