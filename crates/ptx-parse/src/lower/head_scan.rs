//! The head scanner: a function's signature read by hand, as the body
//! scanner reads its body.
//!
//! Why: pest pays about 240 instructions a byte for a name, and compilers
//! name parameters after the mangled function (`_ZN3cub..._param_0`), so
//! the parameter lists were a tenth of a parse of CUB kernels. The scanner
//! takes the heads compilers write: linkage words, `.entry` or `.func`, a
//! return list, the name, the parameters (`.param` or `.reg`, decl words,
//! `.align N`, a name and array dimensions) and performance directives
//! with their numbers, separated by whitespace only. Anything else (a
//! comment, a `.pragma` string, `.attribute(..)`, an initializer, a
//! number too large, a word it does not know) it declines, having changed
//! nothing, and the grammar reads the head (`head_alone`). It gives what
//! the grammar's lowering gives, spans and the order of declared registers
//! included: `tests/corpus.rs` compares the two on every corpus file.

use super::body_scan::{ident_end, is_word_char};
use super::{decl_word_of, FunctionLowering};
use ptx_ir::{DeclWord, FunctionKind, RawDirective, RegType, Span, StateSpace, Variable};

/// The performance directives of the grammar's `perf_name`.
const PERF_NAMES: [&str; 10] = [
    ".maxntid",
    ".reqntid",
    ".minnctapersm",
    ".maxnctapersm",
    ".maxnreg",
    ".maxclusterrank",
    ".reqnctapercluster",
    ".explicitcluster",
    ".noreturn",
    ".blocksareclusters",
];

/// The grammar's `linkage` words.
const LINKAGE: [&str; 4] = [".visible", ".extern", ".weak", ".common"];

/// A signature as read, before anything is lowered.
struct Head {
    linkage: Vec<String>,
    kind: FunctionKind,
    name: String,
    returns: Option<Vec<Variable>>,
    params: Option<Vec<Variable>>,
    attributes: Vec<RawDirective>,
}

impl FunctionLowering<'_> {
    /// Reads the signature in `text[start..end]` (`text` starts at
    /// `self.base` of the source) into the function, declaring its `.reg`
    /// parameters as the grammar's path does; None, having changed nothing,
    /// to decline.
    pub(super) fn scan_signature(&mut self, text: &str, start: usize, end: usize) -> Option<()> {
        let head = HeadReader { b: &text.as_bytes()[..end], text: &text[..end], base: self.base }.head(start)?;
        self.func.linkage = head.linkage;
        self.func.kind = head.kind;
        self.func.name = head.name;
        for list in [&head.returns, &head.params].into_iter().flatten() {
            for var in list {
                self.declare_register_parameter(var);
            }
        }
        self.func.returns = head.returns;
        self.func.params = head.params;
        self.func.attributes = head.attributes;
        Some(())
    }
}

struct HeadReader<'t> {
    b: &'t [u8],
    text: &'t str,
    base: usize,
}

impl HeadReader<'_> {
    fn span(&self, start: usize, end: usize) -> Span {
        Span::new(self.base + start, self.base + end)
    }

    /// The offset after the whitespace at `i` (comments are declined
    /// before: the grammar takes them into some spans and texts).
    fn skip_space(&self, mut i: usize) -> usize {
        while self.b.get(i).is_some_and(|c| matches!(c, b' ' | b'\t' | b'\r' | b'\n')) {
            i += 1;
        }
        i
    }

    /// The end of `word` at `i` if it is there as a whole word (the
    /// grammar's `~ !word_char`).
    fn keyword(&self, i: usize, word: &str) -> Option<usize> {
        let end = i + word.len();
        (self.b[i..].starts_with(word.as_bytes()) && !self.b.get(end).is_some_and(|&c| is_word_char(c))).then_some(end)
    }

    /// The end of the grammar's `dot_word` at `i`.
    fn dot_word_end(&self, i: usize) -> Option<usize> {
        let words = |from: usize| from + self.b[from..].iter().take_while(|&&c| is_word_char(c)).count();
        if self.b.get(i) != Some(&b'.') {
            return None;
        }
        let mut end = words(i + 1);
        if end == i + 1 {
            return None;
        }
        while self.b[end..].starts_with(b"::") && words(end + 2) > end + 2 {
            end = words(end + 2);
        }
        Some(end)
    }

    /// The end of the digits at `i` (the grammar's `dec_int`), if any.
    fn digits_end(&self, i: usize) -> Option<usize> {
        let end = i + self.b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        (end > i).then_some(end)
    }

    fn head(&self, start: usize) -> Option<Head> {
        if self.b[start..].iter().any(|&c| c == b'/' || c == b'"') {
            return None;
        }
        let mut pos = start;
        let mut linkage = Vec::new();
        loop {
            let word = LINKAGE.into_iter().find_map(|w| Some((w, self.keyword(pos, w)?)));
            let Some((word, end)) = word else { break };
            linkage.push(word[1..].to_string());
            pos = self.skip_space(end);
        }
        let (kind, end) = match (self.keyword(pos, ".entry"), self.keyword(pos, ".func")) {
            (Some(end), _) => (FunctionKind::Entry, end),
            (None, Some(end)) => (FunctionKind::Func, end),
            (None, None) => return None,
        };
        let (returns, pos) = self.optional_variables(self.skip_space(end))?;
        let name_end = ident_end(self.b, pos)?;
        let name = self.text[pos..name_end].to_string();
        let (params, mut pos) = self.optional_variables(self.skip_space(name_end))?;
        let mut attributes = Vec::new();
        while pos < self.b.len() {
            let (attribute, end) = self.perf_directive(pos)?;
            attributes.push(attribute);
            pos = self.skip_space(end);
        }
        Some(Head { linkage, kind, name, returns, params, attributes })
    }

    /// The parenthesized list of variables at `pos`, if one opens there,
    /// and where the next token starts.
    fn optional_variables(&self, pos: usize) -> Option<(Option<Vec<Variable>>, usize)> {
        if self.b.get(pos) != Some(&b'(') {
            return Some((None, pos));
        }
        let (list, end) = self.variables(pos)?;
        Some((Some(list), self.skip_space(end)))
    }

    /// A parenthesized list of variables at `open` (`(`), and the offset
    /// after its `)`.
    fn variables(&self, open: usize) -> Option<(Vec<Variable>, usize)> {
        let mut list = Vec::new();
        let mut pos = self.skip_space(open + 1);
        if self.b.get(pos) == Some(&b')') {
            return Some((list, pos + 1));
        }
        loop {
            let (var, end) = self.variable(pos)?;
            list.push(var);
            match self.b.get(end)? {
                b',' => pos = self.skip_space(end + 1),
                b')' => return Some((list, end + 1)),
                _ => return None,
            }
        }
    }

    /// A parameter at `start`, and where the next token starts: its span
    /// takes the whitespace after it, as the grammar's does (the optional
    /// dimensions and initializer are looked for past it).
    fn variable(&self, start: usize) -> Option<(Variable, usize)> {
        let space = [".param", ".reg"].into_iter().find_map(|s| Some((s, self.keyword(start, s)?)));
        let (space, end) = space?;
        if self.b[end..].starts_with(b"::") {
            return None;
        }
        let mut words = vec![DeclWord::Space(StateSpace::from_str(&space[1..])?)];
        let mut pos = self.skip_space(end);
        while self.b.get(pos) == Some(&b'.') {
            if self.keyword(pos, ".attribute").is_some() {
                return None;
            }
            // The grammar's `align` is `.align` and a number, whatever
            // follows the word: `.align8` is an alignment too.
            if self.b[pos..].starts_with(b".align") {
                let digits = self.skip_space(pos + ".align".len());
                if let Some(digits_end) = self.digits_end(digits) {
                    // A number too large is the grammar's error to give.
                    let n: u32 = self.text[digits..digits_end].parse().ok()?;
                    words.push(DeclWord::Align(n));
                    pos = self.skip_space(digits_end);
                    continue;
                }
            }
            let end = self.dot_word_end(pos)?;
            words.push(decl_word_of(&self.text[pos..end]));
            pos = self.skip_space(end);
        }
        let name_end = match ident_end(self.b, pos) {
            Some(end) => end,
            None if self.b.get(pos) == Some(&b'_') => pos + 1,
            None => return None,
        };
        let name = self.text[pos..name_end].to_string();
        let mut dims = Vec::new();
        pos = self.skip_space(name_end);
        while self.b.get(pos) == Some(&b'[') {
            let inside = self.skip_space(pos + 1);
            let (dim, close) = match self.digits_end(inside) {
                Some(end) => (Some(self.text[inside..end].parse::<u64>().ok()?), self.skip_space(end)),
                None => (None, inside),
            };
            if self.b.get(close) != Some(&b']') {
                return None;
            }
            dims.push(dim);
            pos = self.skip_space(close + 1);
        }
        if self.b.get(pos) == Some(&b'=') {
            return None;
        }
        let var = Variable { linkage: Vec::new(), words, name, dims, init: None, span: self.span(start, pos) };
        Some((var, pos))
    }

    /// A performance directive at `start` with its numbers, and the offset
    /// after it.
    fn perf_directive(&self, start: usize) -> Option<(RawDirective, usize)> {
        let (name, mut end) = PERF_NAMES.into_iter().find_map(|n| Some((n, self.keyword(start, n)?)))?;
        if let Some(first) = self.digits_end(self.skip_space(end)) {
            end = first;
            loop {
                let comma = self.skip_space(end);
                if self.b.get(comma) != Some(&b',') {
                    break;
                }
                end = self.digits_end(self.skip_space(comma + 1))?;
            }
        }
        let written = &self.text[start..end];
        let text = written.split_whitespace().collect::<Vec<_>>().join(" ");
        Some((RawDirective { name: name[1..].to_string(), text, semicolon: false, span: self.span(start, end) }, end))
    }
}

impl FunctionLowering<'_> {
    /// Declares a `.reg` parameter as a register of the body, as the
    /// grammar's path does for each parameter in turn.
    pub(super) fn declare_register_parameter(&mut self, var: &Variable) {
        if var.space() == Some(StateSpace::Reg) {
            if let Some(ty) = var.ty() {
                let rt = RegType { scalar: ty, vector: var.vector() };
                let name = self.func.names.intern(&var.name);
                self.declare(name, rt, None, var.span);
            }
        }
    }
}
