//! The body scanner: the fast path through function bodies.
//!
//! Why: pest pays a rule call, a checkpoint and a queue entry for every
//! token, about 40 ns per byte of a body, which held the whole parser near
//! 20 MB/s. Nearly every statement of real PTX is an instruction whose
//! operands are registers, immediates, `[reg+offset]` addresses, vectors,
//! pairs and labels, or a label, or a brace, or a plain `.reg` declaration
//! (the grammar took about 7,000 instructions for each, and inline `asm`
//! blocks declare their own). This scanner reads those by hand and lowers
//! them as it reads, through the same `FunctionLowering` calls in the same
//! order as the grammar's path, so the module (interned names included) is
//! the one the grammar would give. Every other statement (other
//! declarations, directives, rarer operand forms) goes to the grammar, one
//! statement at a time (`body_statement`).
//!
//! What keeps it honest: the scanner takes a statement only when it can see
//! that the grammar parses that text the same way, and declines anything it
//! doubts, errors included; the grammar then decides. A declined statement
//! may already have interned some names, but only names that the grammar's
//! lowering of the same statement interns first, in the same order, so
//! nothing differs. When the grammar cannot parse a statement either, the
//! whole group of items goes back to the grammar, which gives the
//! diagnostics. `tests/corpus.rs` compares the module with the grammar's own
//! (`parse_reference`) on every corpus file, and the fuzz target does so on
//! its inputs.

use super::{FunctionLowering, Head, Literal, MAX_FUNCTION_REGS, MAX_REG_FAMILY, MAX_VECTOR};
use crate::{PtxParser, Rule};
use pest::{iterators::Pair, Parser};
use ptx_ir::{
    AddrBase, Address, AddressRest, Function, Guard, Inst, Operand, Operands, RegType, ScalarType, Span, Stmt,
};

/// Lowers a function of `group` (which starts at byte `base` of the
/// source) whose body opens at `group[open]`: its `head` read by the head
/// scanner or parsed by the grammar, its body by this scanner. None when
/// the body does not end the group, when the grammar cannot parse the head
/// or a statement the scanners declined, or when the function has errors:
/// the group then goes to the grammar whole. With the function, the number
/// of statements scanned and handed to the grammar, and whether the grammar
/// read the head.
pub(super) fn lower_function<'i>(
    head: Head<'i>,
    base: usize,
    group: &'i str,
    open: usize,
    later_words: bool,
) -> Option<(Function, (usize, usize, bool))> {
    let mut lowering = FunctionLowering::new(Span::default(), base, later_words);
    let (start, head_by_grammar) = match head {
        Head::Parsed(signature) => (lowering.parsed_signature(signature, 0)?, true),
        Head::At(at) if lowering.scan_signature(group, at, open).is_some() => (at, false),
        Head::At(at) => {
            let head = PtxParser::parse(Rule::head_alone, &group[at..open]).ok()?.next()?;
            (at + lowering.parsed_signature(head.into_inner().next()?, at)?, true)
        }
    };
    // Every instruction and declaration ends in a `;` (a comment may hold
    // more): sized once, the arena does not grow by doubling, which would
    // leave up to half of the largest functions' arenas unused.
    let statements = count_semicolons(&group.as_bytes()[open..]);
    lowering.func.insts.reserve(statements);
    let mut stmts = Vec::with_capacity(statements + statements / 8);
    let end = lowering.scan_body(group, open, &mut stmts)?;
    if skip_trivia(group.as_bytes(), end)? != group.len() {
        return None;
    }
    lowering.close_label_scope();
    lowering.func.set_body(Some(stmts));
    lowering.func.shrink_to_fit();
    lowering.func.span = Span::new(base + start, base + end);
    let counts = (lowering.scanned, lowering.handed_to_grammar, head_by_grammar);
    lowering.finish().ok().map(|f| (f, counts))
}

impl<'i> FunctionLowering<'i> {
    /// Lowers a `function_head` pair parsed from `group[at..]`; its start
    /// in that text. None for another pair.
    fn parsed_signature(&mut self, signature: Pair<'i, Rule>, at: usize) -> Option<usize> {
        if signature.as_rule() != Rule::function_head {
            return None;
        }
        let start = signature.as_span().start();
        // The pair's positions count from where its parse began.
        let outer = self.base;
        self.base += at;
        for part in signature.into_inner() {
            self.signature_part(part);
        }
        self.base = outer;
        Some(start)
    }

    fn span_at(&self, start: usize, end: usize) -> Span {
        Span::new(self.base + start, self.base + end)
    }

    /// Reads the body that opens at `text[open]`; the offset after its
    /// closing brace.
    fn scan_body(&mut self, text: &'i str, open: usize, out: &mut Vec<Stmt>) -> Option<usize> {
        let b = text.as_bytes();
        let mut depth = 0usize;
        let mut pos = open + 1;
        loop {
            pos = skip_trivia(b, pos)?;
            self.scanned += 1;
            match *b.get(pos)? {
                b'}' if depth == 0 => {
                    self.scanned -= 1;
                    return Some(pos + 1);
                }
                b'}' => {
                    self.scope_close(self.span_at(pos, pos + 1), out);
                    depth -= 1;
                    pos += 1;
                }
                b'{' => {
                    self.scope_open(self.span_at(pos, pos + 1), out);
                    depth += 1;
                    pos += 1;
                }
                first => {
                    let scanned = if first == b'.' && b[pos..].starts_with(b".reg") {
                        self.scan_reg_decl(text, pos, out)
                    } else {
                        self.scan_statement(text, pos, out)
                    };
                    pos = match scanned {
                        Some(end) => end,
                        None => {
                            self.scanned -= 1;
                            self.handed_to_grammar += 1;
                            self.grammar_statement(text, pos, out)?
                        }
                    }
                }
            }
        }
    }

    /// A label or an instruction at `text[start]`; None to decline.
    fn scan_statement(&mut self, text: &'i str, start: usize, out: &mut Vec<Stmt>) -> Option<usize> {
        let b = text.as_bytes();
        let first = b[start];
        if first != b'@' {
            // The grammar tries an instruction first, but no instruction
            // continues a name with a colon.
            let name_end = ident_end(b, start)?;
            let colon = skip_trivia(b, name_end)?;
            if b.get(colon) == Some(&b':') {
                self.label(&text[start..name_end], self.span_at(start, colon + 1), out);
                return Some(colon + 1);
            }
            if !first.is_ascii_alphabetic() {
                return None;
            }
        }
        self.scan_instruction(text, start, out)
    }

    /// A `.reg` declaration at `text[start]` written plainly: `.reg`, a
    /// space, a scalar type, then names and `%r<N>` families, each followed
    /// at once by its `,` or the `;` (the grammar's item would take a space
    /// after it into its span). None to decline: `.align`, vectors, a count
    /// past the limits and anything else go to the grammar, which reports
    /// what is wrong.
    fn scan_reg_decl(&mut self, text: &'i str, start: usize, out: &mut Vec<Stmt>) -> Option<usize> {
        let b = text.as_bytes();
        let after_keyword = start + ".reg".len();
        if !matches!(b.get(after_keyword)?, b' ' | b'\t') {
            return None;
        }
        let mut pos = skip_trivia(b, after_keyword)?;
        if b.get(pos) != Some(&b'.') {
            return None;
        }
        let type_end = pos + 1 + b[pos + 1..].iter().take_while(|&&c| is_word_char(c)).count();
        let scalar = ScalarType::from_str(&text[pos + 1..type_end])?;
        pos = type_end;
        let mut items = Vec::new();
        let mut declared = self.func.regs.len();
        loop {
            pos = skip_trivia(b, pos)?;
            let item_start = pos;
            let mut end = ident_end(b, pos)?;
            let name = &text[item_start..end];
            let mut count = None;
            if b.get(end) == Some(&b'<') {
                let digits = end + 1 + b[end + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
                if digits == end + 1 || b.get(digits) != Some(&b'>') {
                    return None;
                }
                let n: u32 = text[end + 1..digits].parse().ok()?;
                if n > MAX_REG_FAMILY || n as usize + declared > MAX_FUNCTION_REGS {
                    return None;
                }
                count = Some(n);
                end = digits + 1;
            }
            declared += count.unwrap_or(1) as usize;
            items.push((name, count, self.span_at(item_start, end)));
            match *b.get(end)? {
                b',' => pos = end + 1,
                b';' => {
                    let decl = self.declare_items(RegType::scalar(scalar), None, items, self.span_at(start, end + 1));
                    out.push(Stmt::RegDecl(self.func.reg_decls.push(decl)));
                    return Some(end + 1);
                }
                _ => return None,
            }
        }
    }

    fn scan_instruction(&mut self, text: &'i str, start: usize, out: &mut Vec<Stmt>) -> Option<usize> {
        let b = text.as_bytes();
        let mut pos = start;
        let mut guard = None;
        if b[pos] == b'@' {
            pos += 1;
            let negated = b.get(pos) == Some(&b'!');
            if negated {
                pos += 1;
            }
            let end = ident_end(b, pos)?;
            // An undeclared guard is an error: the grammar's path reports it.
            let reg = self.lookup(&text[pos..end])?;
            guard = Some(Guard::new(reg, negated));
            pos = skip_trivia(b, end)?;
        }
        if !b.get(pos)?.is_ascii_alphabetic() {
            return None;
        }
        let opcode_end = opcode_end(b, pos);
        let (opcode, modifiers) = self.opcode(&text[pos..opcode_end])?;
        pos = skip_trivia(b, opcode_end)?;
        let mut operands = Operands::new();
        if b.get(pos) != Some(&b';') {
            loop {
                pos = self.scan_operand(text, pos, &mut operands)?;
                pos = skip_trivia(b, pos)?;
                match *b.get(pos)? {
                    b',' => pos = skip_trivia(b, pos + 1)?,
                    b';' => break,
                    _ => return None,
                }
            }
        }
        let end = pos + 1;
        let span = self.span_at(start, end);
        self.push_inst(Inst { guard, opcode, modifiers, operands, span }, out);
        Some(end)
    }

    /// One operand at `text[pos]`, pushed onto `ops`; the offset after it.
    fn scan_operand(&mut self, text: &'i str, pos: usize, ops: &mut Operands) -> Option<usize> {
        let b = text.as_bytes();
        match *b.get(pos)? {
            b'_' if is_sink(b, pos) => {
                let bar = skip_trivia(b, pos + 1)?;
                if b.get(bar) != Some(&b'|') {
                    ops.push(Operand::Sink);
                    return Some(pos + 1);
                }
                // `_|p`: a pair without its first half; `_|_` is the
                // grammar's error (ptxas: syntax error).
                let at = skip_trivia(b, bar + 1)?;
                if is_sink(b, at) {
                    return None;
                }
                let (second, end) = self.scan_name(text, at)?;
                ops.push(Operand::Pair(Box::new((Operand::Sink, second))));
                Some(end)
            }
            b'%' | b'$' | b'_' | b'a'..=b'z' | b'A'..=b'Z' => {
                let (first, end) = self.scan_name(text, pos)?;
                let bar = skip_trivia(b, end)?;
                if b.get(bar) != Some(&b'|') {
                    ops.push(first);
                    return Some(end);
                }
                // `p|q`: the second half is a name or the sink.
                let at = skip_trivia(b, bar + 1)?;
                let (second, end) = if is_sink(b, at) { (Operand::Sink, at + 1) } else { self.scan_name(text, at)? };
                ops.push(Operand::Pair(Box::new((first, second))));
                Some(end)
            }
            b'-' | b'0'..=b'9' => {
                let negative = b[pos] == b'-';
                let digits = pos + usize::from(negative);
                let (kind, end) = literal_end(b, digits)?;
                // A literal that starts a constant expression (`1 << 2`) is
                // the grammar's, before its spelling is interned: the
                // grammar interns the expression's instead.
                let ends_operand = |c: Option<&u8>| matches!(c, Some(b',' | b';' | b'}' | b')'));
                if !ends_operand(b.get(end)) && !ends_operand(b.get(skip_trivia(b, end)?)) {
                    return None;
                }
                let name = self.func.names.intern(&text[pos..end]);
                let operand = self.literal(kind, &text[digits..end], negative, name, Span::default())?;
                ops.push(operand);
                Some(end)
            }
            b'[' => self.scan_address(text, pos, ops),
            open @ (b'{' | b'(') => {
                let close = if open == b'{' { b'}' } else { b')' };
                // `(2) / 2` is a constant expression: the grammar's, before
                // the scanner interns the `2` inside.
                if open == b'(' && !parenthesis_ends_operand(b, pos)? {
                    return None;
                }
                let mut elements = Operands::new();
                let mut at = skip_trivia(b, pos + 1)?;
                if b.get(at) != Some(&close) {
                    loop {
                        at = self.scan_operand(text, at, &mut elements)?;
                        at = skip_trivia(b, at)?;
                        match *b.get(at)? {
                            b',' => at = skip_trivia(b, at + 1)?,
                            c if c == close => break,
                            _ => return None,
                        }
                    }
                }
                let elements = Box::new(elements.into_vec());
                ops.push(if open == b'(' {
                    self.made_parens = true;
                    Operand::Parens(elements)
                } else if elements.len() <= MAX_VECTOR {
                    Operand::Vector(elements)
                } else {
                    return None;
                });
                Some(at + 1)
            }
            b'!' => {
                let at = skip_trivia(b, pos + 1)?;
                let (operand, end) = self.scan_name(text, at)?;
                ops.push(Operand::Not(Box::new(operand)));
                Some(end)
            }
            _ => None,
        }
    }

    /// A `reg_or_symbol`: a name and an optional component (`%tid.x`).
    fn scan_name(&mut self, text: &'i str, pos: usize) -> Option<(Operand, usize)> {
        let b = text.as_bytes();
        let mut end = ident_end(b, pos)?;
        if b.get(end) == Some(&b'.') {
            // A selector (`.b3210`, `.h1`), then a component (`.x`); anything
            // else after the dot fails the grammar's instruction.
            let lanes = |from: usize| b[from..].iter().take_while(|c| (b'0'..=b'7').contains(c)).count();
            let selector = match b.get(end + 1) {
                Some(b'b') => lanes(end + 2).min(4),
                Some(b'h') => lanes(end + 2).min(2),
                _ => 0,
            };
            let component = matches!(b.get(end + 1), Some(b'x' | b'y' | b'z' | b'w' | b'r' | b'g' | b'b' | b'a'));
            let length = if selector > 0 {
                1 + selector
            } else if component {
                1
            } else {
                return None;
            };
            if b.get(end + 1 + length).is_some_and(|&c| is_word_char(c)) {
                return None;
            }
            end += 1 + length;
        }
        Some((self.name_operand(&text[pos..end]), end))
    }

    /// `[base]`, `[base+offset]` or `[base-offset]`; the forms with more
    /// operands after the base (`tex`, `suld`) go to the grammar.
    fn scan_address(&mut self, text: &'i str, pos: usize, ops: &mut Operands) -> Option<usize> {
        let b = text.as_bytes();
        let mut at = skip_trivia(b, pos + 1)?;
        let base = if b.get(at)?.is_ascii_digit() {
            let (end, value) = int_lit(text, at)?;
            let name = self.func.names.intern(&text[at..end]);
            at = end;
            AddrBase::Absolute(ptx_ir::IntImm { bits: value, text: Some(name) })
        } else {
            let (operand, end) = self.scan_name(text, at)?;
            at = end;
            match operand {
                Operand::Reg(r) => AddrBase::Reg(r),
                Operand::Symbol(n) | Operand::Special(n) => AddrBase::Symbol(n),
                _ => return None,
            }
        };
        at = skip_trivia(b, at)?;
        let mut offset = 0i64;
        let mut explicit_zero = false;
        // `+8`, `+-8`; `[a-8]` goes to the grammar, which rejects it as ptxas does.
        if b.get(at) == Some(&b'+') {
            let mut negative = false;
            at = skip_trivia(b, at + 1)?;
            if b.get(at) == Some(&b'-') {
                negative = true;
                at = skip_trivia(b, at + 1)?;
            }
            let (end, value) = int_lit(text, at)?;
            let value = i64::try_from(value).ok()?;
            offset = if negative { -value } else { value };
            explicit_zero = offset == 0;
            at = skip_trivia(b, end)?;
        }
        if b.get(at) != Some(&b']') {
            return None;
        }
        ops.push(Operand::Address(Box::new(Address {
            base,
            offset,
            explicit_zero,
            rest: AddressRest::new(),
            unified: false,
        })));
        Some(at + 1)
    }

    /// Hands the statement at `text[pos]` to the grammar; the offset after it.
    fn grammar_statement(&mut self, text: &'i str, pos: usize, out: &mut Vec<Stmt>) -> Option<usize> {
        // pest indexes the lines of all the text it is given, so it gets the
        // statement alone: up to the first `;`, or for `.loc`, which has
        // none, the end of the line and the whitespace and comments after it
        // (the grammar's `.loc` takes them: its optional tail skips them).
        // A statement cut short (a `;` in a string or a comment, a `.loc`
        // continued on the next line) leaves text that no statement starts
        // with, and the group goes to the grammar.
        let b = text.as_bytes();
        let rest = &b[pos..];
        let end = if rest.starts_with(b".loc") && rest.get(4).is_some_and(|c| c.is_ascii_whitespace()) {
            let line_end = rest.iter().position(|&c| c == b'\n').map_or(b.len(), |i| pos + i);
            skip_trivia(b, line_end)?
        } else {
            rest.iter().position(|&c| c == b';').map_or(b.len(), |i| pos + i + 1)
        };
        let pair = PtxParser::parse(Rule::body_statement, &text[pos..end]).ok()?.next()?;
        let end = pos + pair.as_span().end();
        let statement = pair.into_inner().next()?;
        let outer = self.base;
        self.base += pos;
        self.statement(statement, out);
        self.base = outer;
        Some(end)
    }
}

/// The offset after the whitespace and comments at `b[i]`, as the grammar's
/// `WHITESPACE` skips them (the module scan's skip); None at a block comment
/// that is never closed, where the grammar fails.
fn skip_trivia(b: &[u8], i: usize) -> Option<usize> {
    let end = crate::chunks::skip_trivia(b, i);
    (!b[end..].starts_with(b"/*")).then_some(end)
}

/// How many `;` `b` holds. Counted a byte-wide lane at a time, in runs of
/// up to 255 bytes whose counts fit a byte, which the compiler turns into
/// vector code; counting into a `usize` directly took 2.4 instructions a
/// byte.
fn count_semicolons(b: &[u8]) -> usize {
    b.chunks(255).map(|run| usize::from(run.iter().fold(0u8, |n, &c| n + u8::from(c == b';')))).sum()
}

/// `ident_char` of the grammar.
fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$'
}

/// `word_char` of the grammar.
pub(super) fn is_word_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The end of the grammar's `ident` at `b[i]`, if one starts there.
pub(super) fn ident_end(b: &[u8], i: usize) -> Option<usize> {
    let first = *b.get(i)?;
    let rest = |from: usize| from + b[from..].iter().take_while(|&&c| is_ident_char(c)).count();
    match first {
        b'%' | b'_' | b'$' => Some(rest(i + 1)).filter(|&end| end > i + 1),
        c if c.is_ascii_alphabetic() => Some(rest(i + 1)),
        _ => None,
    }
}

/// True if the grammar's `sink` (`_` alone) is at `b[i]`.
fn is_sink(b: &[u8], i: usize) -> bool {
    b.get(i) == Some(&b'_') && !b.get(i + 1).is_some_and(|&c| is_ident_char(c))
}

/// The end of the grammar's `opcode` at `b[i]` (an ASCII letter).
fn opcode_end(b: &[u8], i: usize) -> usize {
    let words = |from: usize| from + b[from..].iter().take_while(|&&c| is_word_char(c)).count();
    let followed_by_word = |at: usize| b.get(at).is_some_and(|&c| is_word_char(c));
    let mut end = words(i + 1);
    while b.get(end) == Some(&b'.') && followed_by_word(end + 1) {
        end = words(end + 1);
        // `::word` (`.shared::cta`) or `:digits` (`.sp::2:4`).
        while b.get(end) == Some(&b':') {
            if b.get(end + 1) == Some(&b':') && followed_by_word(end + 2) {
                end = words(end + 2);
            } else if b.get(end + 1).is_some_and(u8::is_ascii_digit) {
                end += 1 + b[end + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
            } else {
                break;
            }
        }
    }
    end
}

/// The grammar's literal at `b[i]` (`float_hex | float_dec | int_lit`, in
/// that order): its kind and end. None when none matches or when a name
/// character or a dot follows it, which fails the grammar's instruction.
fn literal_end(b: &[u8], i: usize) -> Option<(Literal, usize)> {
    let count = |from: usize, f: fn(&u8) -> bool| b.get(from..).map_or(0, |s| s.iter().take_while(|c| f(c)).count());
    let hex = |from: usize| count(from, u8::is_ascii_hexdigit);
    let digits = |from: usize| count(from, u8::is_ascii_digit);
    let at = |k: usize| b.get(k).copied().unwrap_or(0);
    let (kind, end) = 'matched: {
        if at(i) == b'0' {
            match at(i + 1) {
                b'f' | b'F' if hex(i + 2) >= 8 => break 'matched (Literal::FloatHex, i + 10),
                b'd' | b'D' if hex(i + 2) >= 16 => break 'matched (Literal::FloatHex, i + 18),
                _ => {}
            }
        }
        let whole = digits(i);
        if whole == 0 {
            return None;
        }
        let exponent = |e: usize| {
            if !matches!(at(e), b'e' | b'E') {
                return None;
            }
            let sign = e + 1 + usize::from(matches!(at(e + 1), b'+' | b'-'));
            let n = digits(sign);
            (n > 0).then_some(sign + n)
        };
        let after = i + whole;
        if at(after) == b'.' {
            let fraction = after + 1 + digits(after + 1);
            break 'matched (Literal::FloatDec, exponent(fraction).unwrap_or(fraction));
        }
        if let Some(end) = exponent(after) {
            break 'matched (Literal::FloatDec, end);
        }
        let unsigned = |end: usize| if at(end) == b'U' { end + 1 } else { end };
        if at(i) == b'0' && matches!(at(i + 1), b'x' | b'X') && hex(i + 2) > 0 {
            break 'matched (Literal::Int, unsigned(i + 2 + hex(i + 2)));
        }
        let binary = count(i + 2, |c| matches!(c, b'0' | b'1'));
        if at(i) == b'0' && matches!(at(i + 1), b'b' | b'B') && binary > 0 {
            break 'matched (Literal::Int, unsigned(i + 2 + binary));
        }
        (Literal::Int, unsigned(after))
    };
    let next = at(end);
    (!(is_ident_char(next) || next == b'.')).then_some((kind, end))
}

/// The grammar's `int_lit` at `text[i]` (and nothing else, as in an
/// address): its end and value; None when it does not fit in 64 bits.
fn int_lit(text: &str, i: usize) -> Option<(usize, u64)> {
    match literal_end(text.as_bytes(), i)? {
        (Literal::Int, end) => Some((end, super::parse_int(&text[i..end])?)),
        _ => None,
    }
}

/// True if the parenthesis opening at `b[open]` closes before a `,` or `;`
/// (a list of operands, not the start of a constant expression); None for
/// one that does not close in the text.
fn parenthesis_ends_operand(b: &[u8], open: usize) -> Option<bool> {
    let mut depth = 0usize;
    for (i, &c) in b.iter().enumerate().skip(open) {
        match c {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(matches!(b.get(skip_trivia(b, i + 1)?), Some(b',' | b';')));
                }
            }
            b';' => return None,
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs of 255 bytes hold at most 255 `;`, which a byte counts; every
    /// length around a run's end counts as one byte at a time does.
    #[test]
    fn semicolons_are_counted_across_runs() {
        for len in [0, 1, 254, 255, 256, 509, 510, 511, 1000] {
            for text in [";".repeat(len), "a;b".repeat(len)] {
                let expected = text.bytes().filter(|&c| c == b';').count();
                assert_eq!(count_semicolons(text.as_bytes()), expected, "{len}");
            }
        }
    }

    #[test]
    fn literals_end_where_the_grammar_ends_them() {
        let cases: &[(&str, Option<(Literal, usize)>)] = &[
            ("0f3F800000,", Some((Literal::FloatHex, 10))),
            ("0d3FF0000000000000;", Some((Literal::FloatHex, 18))),
            ("0f3F80000;", None),
            ("0f3F8000000;", None),
            ("1.5]", Some((Literal::FloatDec, 3))),
            ("1.;", Some((Literal::FloatDec, 2))),
            ("1.5e-3,", Some((Literal::FloatDec, 6))),
            ("1.5e;", None),
            ("2e10}", Some((Literal::FloatDec, 4))),
            ("0x1F;", Some((Literal::Int, 4))),
            ("0xFFU;", Some((Literal::Int, 5))),
            ("0b101,", Some((Literal::Int, 5))),
            ("0x;", None),
            ("0b2;", None),
            ("017;", Some((Literal::Int, 3))),
            ("42U]", Some((Literal::Int, 3))),
            ("42", Some((Literal::Int, 2))),
            ("4a;", None),
            ("1.5.x", None),
        ];
        for (text, expected) in cases {
            assert_eq!(literal_end(text.as_bytes(), 0), *expected, "{text}");
        }
    }

    #[test]
    fn trivia_is_the_grammars_whitespace() {
        assert_eq!(skip_trivia(b" \t\r\n// c\n/* a ; b */ x", 0), Some(21));
        assert_eq!(skip_trivia(b"/* open", 0), None);
        // Vertical tab and form feed are not whitespace to the grammar.
        assert_eq!(skip_trivia(b"\x0b", 0), Some(0));
        assert_eq!(skip_trivia(b"/ x", 0), Some(0));
    }

    #[test]
    fn opcodes_end_where_the_grammar_ends_them() {
        for (text, end) in [
            ("ld.global.nc.v4.u32 ", 19),
            ("cp.async.bulk.shared::cluster.global [", 36),
            ("mov.u32.", 7),
            ("st.shared:: ", 9),
            ("ret;", 3),
        ] {
            assert_eq!(opcode_end(text.as_bytes(), 0), end, "{text}");
        }
    }
}
