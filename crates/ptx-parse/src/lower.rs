//! Lowering: pest pairs -> `ptx_ir::Module`. Resolves register names through
//! nested scopes, classifies opcodes and modifiers, and resolves labels.

use crate::Rule;
use pest::iterators::Pair;
use ptx_ir::{
    AddrBase, Address, ArrayElement, Brace, DeclWord, Diagnostic, ElementIndex, FloatImm, FloatLit, Function,
    FunctionKind, Guard, InitValue, Initializer, Inst, InstId, IntImm, IntLit, LabelData, LabelId, Modifier, Modifiers,
    Module, ModuleItem, Name, Opcode, Operand, Operands, RawDirective, RegData, RegDecl, RegDeclItem, RegId, RegIndex,
    RegType, ScalarType, Span, StateSpace, Stmt, Variable, Word,
};
use rustc_hash::FxHashMap;
use std::sync::Arc;

mod body_scan;
mod const_expr;
mod head_scan;

/// The largest `%r<N>` family accepted: far above what compilers emit, low
/// enough that a typo cannot exhaust memory.
pub const MAX_REG_FAMILY: u32 = 1 << 20;

/// The most registers one function may declare in all: a family of
/// [`MAX_REG_FAMILY`] is fine, but many of them would exhaust memory.
pub const MAX_FUNCTION_REGS: usize = 1 << 22;

/// The most elements of a `{ }` vector operand: `wgmma` accumulators take up
/// to 128 registers; ptxas's ordinary vectors have at most 8.
pub const MAX_VECTOR: usize = 256;

/// The span of a pair parsed from text that starts at byte `base` of the source.
fn span_of(pair: &Pair<'_, Rule>, base: usize) -> Span {
    let s = pair.as_span();
    Span::new(base + s.start(), base + s.end())
}

/// Lowers a module parsed in pieces: the `file` pair of the first group of
/// items (with the header), then the `chunk` pair of each following group,
/// each with the offset of its text in the source, so every span is a byte
/// range of the whole source.
pub struct ModuleLowering {
    module: Module,
    errors: Vec<Diagnostic>,
    /// False to check functions and drop them at once (validation only).
    keep_functions: bool,
    coverage: ScanCoverage,
}

/// How much of a module the body scanner read (for tests and benchmarks).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScanCoverage {
    /// Body statements (instructions, labels, braces) the scanner read.
    pub scanned_statements: usize,
    /// Body statements it handed to the grammar (declarations, directives,
    /// rarer operand forms).
    pub grammar_statements: usize,
    /// Groups of items with a function body that the grammar parsed whole,
    /// because the scanner could not finish the body.
    pub grammar_groups: usize,
    /// Scanned functions whose head was parsed together with the items
    /// before it (`chunk_head`: the head twice) because the place where it
    /// starts was not plain to see.
    pub heads_parsed_with_items: usize,
    /// Scanned functions whose head the grammar read (the head scanner
    /// declined it, or it was parsed with the items).
    pub grammar_heads: usize,
}

/// The head of the last function of a group, for
/// [`ModuleLowering::add_scanned`].
pub enum Head<'i> {
    /// A `function_head` parsed with the items before it (`chunk_head`):
    /// its positions count from the group's start.
    Parsed(Pair<'i, Rule>),
    /// The head starts at this offset of the group and ends where the body
    /// opens: the head scanner reads it, or else the grammar
    /// (`head_alone`).
    At(usize),
}

impl ModuleLowering {
    /// Starts a module that keeps `source` for verbatim printing.
    pub fn new(source: Arc<str>) -> ModuleLowering {
        ModuleLowering {
            module: Module { source: Some(source), ..Module::default() },
            errors: Vec::new(),
            keep_functions: true,
            coverage: ScanCoverage::default(),
        }
    }

    /// Starts a validation: every check of [`ModuleLowering::new`], but each
    /// function is dropped as soon as it is lowered, so memory stays bounded
    /// by the largest function.
    pub fn validation() -> ModuleLowering {
        ModuleLowering {
            module: Module::default(),
            errors: Vec::new(),
            keep_functions: false,
            coverage: ScanCoverage::default(),
        }
    }

    /// Lowers the items of a `file` or `chunk` pair parsed from the source
    /// text starting at byte `base`.
    pub fn add(&mut self, pair: Pair<'_, Rule>, base: usize) {
        lower_items(pair, base, self.keep_functions, &mut self.module, &mut self.errors);
    }

    /// Lowers the items parsed from `group[..open]` (those of a `file_head`
    /// or `chunk_head`, or of `file_items` or `chunk_items`), where `group`
    /// starts at byte `base` of the source, and its last function: its
    /// `head`, and the body, which opens at `group[open]`, read by the body
    /// scanner. Returns false, having changed nothing, when the scanner
    /// cannot read the body to the end of the group or the function has
    /// errors: the caller then parses the group with the grammar alone.
    pub fn add_scanned<'i>(
        &mut self,
        items: Vec<Pair<'i, Rule>>,
        head: Head<'i>,
        base: usize,
        group: &'i str,
        open: usize,
    ) -> bool {
        // The header may be in this group, before the function.
        let version = items.iter().find_map(version_of).unwrap_or(self.module.version);
        let later_words = ptx_ir::newer_than_description(version);
        let with_items = matches!(head, Head::Parsed(_));
        let Some((function, counts)) = body_scan::lower_function(head, base, group, open, later_words) else {
            self.coverage.grammar_groups += 1;
            return false;
        };
        let (scanned, handed_to_grammar, head_by_grammar) = counts;
        self.coverage.heads_parsed_with_items += usize::from(with_items);
        self.coverage.grammar_heads += usize::from(head_by_grammar);
        self.coverage.scanned_statements += scanned;
        self.coverage.grammar_statements += handed_to_grammar;
        for item in items {
            lower_item(item, base, self.keep_functions, &mut self.module, &mut self.errors);
        }
        if self.keep_functions {
            let id = self.module.functions.push(function);
            self.module.items.push(ModuleItem::Function(id));
        }
        true
    }

    /// Hands over what was lowered so far as a module of its own (the
    /// header, which later batches keep, and the items since the last
    /// batch); None if anything had errors.
    pub fn take_batch(&mut self) -> Option<Module> {
        if !self.errors.is_empty() {
            return None;
        }
        let header = Module {
            source: self.module.source.clone(),
            version: self.module.version,
            target: self.module.target.clone(),
            address_size: self.module.address_size,
            ..Module::default()
        };
        Some(std::mem::replace(&mut self.module, header))
    }

    /// How much the body scanner read so far.
    pub fn coverage(&self) -> ScanCoverage {
        self.coverage
    }

    /// The module, or every diagnostic in source order.
    pub fn finish(self) -> Result<Module, Vec<Diagnostic>> {
        if self.errors.is_empty() {
            Ok(self.module)
        } else {
            Err(self.errors)
        }
    }
}

/// The (major, minor) of a `version` pair; None for any other pair, or
/// numbers too large.
fn version_of(pair: &Pair<'_, Rule>) -> Option<(u32, u32)> {
    if pair.as_rule() != Rule::version {
        return None;
    }
    let text = pair.clone().into_inner().next().map(|p| p.as_str()).unwrap_or("0.0");
    let (maj, min) = text.split_once('.').unwrap_or((text, "0"));
    Some((maj.parse().ok()?, min.parse().ok()?))
}

fn lower_items(file: Pair<'_, Rule>, base: usize, keep: bool, module: &mut Module, errors: &mut Vec<Diagnostic>) {
    for pair in file.into_inner() {
        lower_item(pair, base, keep, module, errors);
    }
}

fn lower_item(pair: Pair<'_, Rule>, base: usize, keep: bool, module: &mut Module, errors: &mut Vec<Diagnostic>) {
    let span_of = |pair: &Pair<'_, Rule>| span_of(pair, base);
    {
        match pair.as_rule() {
            Rule::version => match version_of(&pair) {
                Some(version) => module.version = version,
                None => {
                    let text = pair.as_str().trim_start_matches(".version").trim();
                    errors.push(Diagnostic::new(span_of(&pair), format!("version number '{text}' is too large")))
                }
            },
            Rule::target | Rule::target_again => {
                module.target = pair.into_inner().map(|p| p.as_str().to_string()).collect();
            }
            Rule::address_size => {
                let span = span_of(&pair);
                match pair.into_inner().next().map(|p| p.as_str().parse::<u32>()) {
                    Some(Ok(n @ (32 | 64))) => module.address_size = Some(n),
                    _ => errors.push(Diagnostic::new(span, ".address_size must be 32 or 64")),
                }
            }
            Rule::file_dir => module.items.push(ModuleItem::Raw(raw(&pair, base, "file", false))),
            Rule::module_directive => {
                let name = pair.as_str().trim_start_matches('.').split(|c: char| !c.is_alphanumeric()).next();
                let name = name.unwrap_or("").to_string();
                module.items.push(ModuleItem::Raw(raw(&pair, base, &name, true)));
            }
            Rule::section => module.items.push(ModuleItem::Raw(lower_section(pair, base))),
            Rule::variable_stmt => {
                let span = span_of(&pair);
                let var = pair.into_inner().next().expect("variable_stmt wraps a variable");
                match lower_variable(var, base) {
                    // The item's span includes the `;`, so verbatim printing covers it.
                    Ok(v) => module.items.push(ModuleItem::Variable(Variable { span, ..v })),
                    Err(e) => errors.push(e),
                }
            }
            Rule::function | Rule::last_prototype => {
                match lower_function(pair, base, ptx_ir::newer_than_description(module.version)) {
                    Ok(_) if !keep => {}
                    Ok(f) => {
                        let id = module.functions.push(f);
                        module.items.push(ModuleItem::Function(id));
                    }
                    Err(mut e) => errors.append(&mut e),
                }
            }
            Rule::EOI => {}
            other => errors.push(Diagnostic::new(span_of(&pair), format!("unexpected {other:?}"))),
        }
    }
}

/// A directive kept verbatim: the matched text without a trailing `;`.
fn raw(pair: &Pair<'_, Rule>, base: usize, name: &str, semicolon: bool) -> RawDirective {
    let written = pair.as_str().trim_end();
    let text = if semicolon { written.trim_end_matches(';').trim_end() } else { written };
    // The span ends where the directive does, not after the whitespace the
    // grammar looked past for more of it.
    let span = span_of(pair, base);
    let span = Span::new(span.start as usize, span.start as usize + written.len());
    RawDirective { name: name.to_string(), text: text.to_string(), semicolon, span }
}

fn lower_section(pair: Pair<'_, Rule>, base: usize) -> RawDirective {
    let span = span_of(&pair, base);
    let mut inner = pair.into_inner();
    let name = inner.next().map(|p| p.as_str()).unwrap_or("");
    let mut text = format!(".section\t{name}\n\t{{\n");
    for entry in inner {
        match entry.as_rule() {
            Rule::section_label => {
                text.push_str(entry.into_inner().next().map(|p| p.as_str()).unwrap_or(""));
                text.push_str(":\n");
            }
            _ => {
                let mut parts = entry.into_inner();
                text.push_str(parts.next().map(|p| p.as_str()).unwrap_or(""));
                text.push(' ');
                let items: Vec<String> =
                    parts.map(|p| p.as_str().split_whitespace().collect::<Vec<_>>().join("")).collect();
                text.push_str(&items.join(","));
                text.push('\n');
            }
        }
    }
    text.push_str("\t}");
    RawDirective { name: "section".into(), text, semicolon: false, span }
}

fn parse_dec_u64(pair: &Pair<'_, Rule>, base: usize) -> Result<u64, Diagnostic> {
    pair.as_str()
        .parse::<u64>()
        .map_err(|_| Diagnostic::new(span_of(pair, base), format!("number '{}' is too large", pair.as_str())))
}

fn decl_word_of(text: &str) -> DeclWord {
    let word = &text[1..];
    if let Some(t) = ScalarType::from_str(word) {
        return DeclWord::Type(t);
    }
    match word {
        "v2" => DeclWord::Vector(2),
        "v4" => DeclWord::Vector(4),
        "v8" => DeclWord::Vector(8),
        _ => DeclWord::Other(text.to_string()),
    }
}

fn lower_variable(pair: Pair<'_, Rule>, base: usize) -> Result<Variable, Diagnostic> {
    let span = span_of(&pair, base);
    let mut var =
        Variable { linkage: Vec::new(), words: Vec::new(), name: String::new(), dims: Vec::new(), init: None, span };
    for part in pair.into_inner() {
        match part.as_rule() {
            Rule::linkage => var.linkage.push(part.as_str()[1..].to_string()),
            Rule::state_space => {
                let text = &part.as_str()[1..];
                let (base, qualified) = match text.split_once("::") {
                    Some((b, _)) => (b, true),
                    None => (text, false),
                };
                match StateSpace::from_str(base) {
                    Some(s) if !qualified => var.words.push(DeclWord::Space(s)),
                    _ => var.words.push(DeclWord::Other(part.as_str().to_string())),
                }
            }
            Rule::align => {
                let n = part.into_inner().next().expect("align has a number");
                let n = parse_dec_u64(&n, base)?;
                let n = u32::try_from(n).map_err(|_| Diagnostic::new(span, "alignment too large"))?;
                var.words.push(DeclWord::Align(n));
            }
            Rule::attribute => {
                let attrs: Vec<&str> = part.into_inner().map(|p| p.as_str()).collect();
                var.words.push(DeclWord::Other(format!(".attribute({})", attrs.join(", "))));
            }
            Rule::dot_word => var.words.push(decl_word_of(part.as_str())),
            Rule::var_name => var.name = part.as_str().to_string(),
            Rule::dim => {
                let dim = match part.into_inner().next() {
                    Some(n) => Some(parse_dec_u64(&n, base)?),
                    None => None,
                };
                var.dims.push(dim);
            }
            Rule::initializer => {
                let text = collapse_spacing(part.as_str());
                var.init = Some(Initializer::spaced_as(init_value(part, base)?, &text));
            }
            _ => {}
        }
    }
    Ok(var)
}

/// The value of an `initializer` pair: a list, or an expression.
fn init_value(pair: Pair<'_, Rule>, base: usize) -> Result<InitValue, Diagnostic> {
    let span = span_of(&pair, base);
    let mut inner = pair.into_inner().peekable();
    match inner.peek().map(|p| p.as_rule()) {
        // `{}`
        None => Ok(InitValue::List(Vec::new())),
        Some(Rule::initializer) => Ok(InitValue::List(inner.map(|p| init_value(p, base)).collect::<Result<_, _>>()?)),
        Some(Rule::init_const) => {
            let expr = inner
                .next()
                .and_then(|p| p.into_inner().next())
                .ok_or_else(|| Diagnostic::new(span, "malformed initializer"))?;
            init_constant(expr, base)
        }
        Some(_) => init_expr(&mut inner, span, base),
    }
}

/// A constant expression of an initializer, as the literal of its value
/// spelled as written.
fn init_constant(pair: Pair<'_, Rule>, base: usize) -> Result<InitValue, Diagnostic> {
    let text: Box<str> = collapse_spacing(pair.as_str()).into();
    Ok(match const_expr::evaluate(pair, base)? {
        const_expr::Value::Int { bits, .. } => InitValue::Int(IntLit { bits, text: Some(text) }),
        const_expr::Value::Float(value) => {
            InitValue::Float(FloatLit { bits: value.to_bits(), single: false, text: Some(text) })
        }
        const_expr::Value::HexFloat { bits, single } => InitValue::Float(FloatLit { bits, single, text: Some(text) }),
    })
}

/// Terms joined by `+` and `-`, left to right.
fn init_expr<'i>(
    pairs: &mut impl Iterator<Item = Pair<'i, Rule>>,
    span: Span,
    base: usize,
) -> Result<InitValue, Diagnostic> {
    let mut value = init_term(pairs, span, base)?;
    while let Some(op) = pairs.next() {
        let rhs = init_term(pairs, span, base)?;
        value = match op.as_str() {
            "+" => InitValue::Add(Box::new((value, rhs))),
            _ => InitValue::Sub(Box::new((value, rhs))),
        };
    }
    Ok(value)
}

/// One term of an initializer expression; `span` is the initializer's.
fn init_term<'i>(
    pairs: &mut impl Iterator<Item = Pair<'i, Rule>>,
    span: Span,
    base: usize,
) -> Result<InitValue, Diagnostic> {
    let malformed = || Diagnostic::new(span, "malformed initializer");
    let pair = pairs.next().ok_or_else(malformed)?;
    match pair.as_rule() {
        Rule::neg => {
            let lit = pairs.next().filter(|p| p.as_rule() == Rule::int_lit).ok_or_else(malformed)?;
            // The sign, and one space if anything stood between it and the digits.
            let gap = if lit.as_span().start() > pair.as_span().end() { " " } else { "" };
            let text = format!("-{gap}{}", lit.as_str());
            let bits = init_int(&lit, base)?.wrapping_neg();
            Ok(InitValue::Int(IntLit { bits, text: Some(text.into()) }))
        }
        Rule::int_lit => Ok(InitValue::Int(int_lit(&pair, base)?)),
        Rule::float_hex => {
            let text = pair.as_str();
            let single = matches!(&text[1..2], "f" | "F");
            let bits = u64::from_str_radix(&text[2..], 16).map_err(|_| malformed())?;
            // `0f`/`0d` and upper-case digits print from the value.
            let canonical = text.as_bytes()[1].is_ascii_lowercase()
                && text.bytes().skip(2).all(|b| b.is_ascii_digit() || b.is_ascii_uppercase());
            Ok(InitValue::Float(FloatLit { bits, single, text: (!canonical).then(|| text.into()) }))
        }
        Rule::float_dec => {
            let text = pair.as_str();
            let Ok(value) = text.parse::<f64>() else {
                return Err(Diagnostic::new(span_of(&pair, base), format!("bad floating-point literal '{text}'")));
            };
            Ok(InitValue::Float(FloatLit { bits: value.to_bits(), single: false, text: Some(text.into()) }))
        }
        Rule::ident => Ok(InitValue::Symbol(pair.as_str().to_string())),
        Rule::cx_product => init_constant(pair, base),
        Rule::init_generic => {
            let name = pair.into_inner().next().ok_or_else(malformed)?;
            Ok(InitValue::Generic(name.as_str().to_string()))
        }
        Rule::init_mask => {
            let mut inner = pair.into_inner();
            let mask = inner.next().ok_or_else(malformed)?;
            let mask = int_lit(&mask, base)?;
            let value = init_expr(&mut inner, span, base)?;
            Ok(InitValue::Mask(Box::new((mask, value))))
        }
        Rule::init_member => {
            let mut inner = pair.into_inner();
            let name = inner.next().ok_or_else(malformed)?.as_str().to_string();
            let value = init_term(&mut inner, span, base)?;
            Ok(InitValue::Member(Box::new((name, value))))
        }
        _ => Err(malformed()),
    }
}

/// The value of an `int_lit` pair of an initializer.
fn init_int(pair: &Pair<'_, Rule>, base: usize) -> Result<u64, Diagnostic> {
    let text = pair.as_str();
    parse_int(text).ok_or_else(|| {
        Diagnostic::new(span_of(pair, base), format!("integer literal '{text}' does not fit in 64 bits"))
    })
}

/// An unsigned integer literal of an initializer, with its spelling unless
/// that is the decimal of its value.
fn int_lit(pair: &Pair<'_, Rule>, base: usize) -> Result<IntLit, Diagnostic> {
    let bits = init_int(pair, base)?;
    let text = pair.as_str();
    // Decimal digits without a leading zero print from the value.
    let canonical = text.bytes().all(|b| b.is_ascii_digit()) && (text == "0" || !text.starts_with('0'));
    Ok(IntLit { bits, text: (!canonical).then(|| text.into()) })
}

/// Removes comments and collapses whitespace in an initializer or a
/// constant expression: the text [`Initializer::spaced_as`] takes the
/// spacing of, and the spelling an expression's value keeps, so the
/// canonical printer writes it on one line, as written, and printing is a
/// fixpoint.
fn collapse_spacing(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut pending_space = false;
    while let Some(c) = chars.next() {
        if c == '/' && chars.peek() == Some(&'/') {
            for c in chars.by_ref() {
                if c == '\n' {
                    break;
                }
            }
            pending_space = true;
            continue;
        }
        if c == '/' && chars.peek() == Some(&'*') {
            chars.next();
            let mut prev = ' ';
            for c in chars.by_ref() {
                if prev == '*' && c == '/' {
                    break;
                }
                prev = c;
            }
            pending_space = true;
            continue;
        }
        if c.is_whitespace() {
            pending_space = true;
            continue;
        }
        if pending_space && !out.is_empty() {
            out.push(' ');
        }
        pending_space = false;
        out.push(c);
    }
    out
}

#[derive(Default)]
struct Scope {
    /// Registers declared by name, by their text.
    names: FxHashMap<Box<str>, RegId>,
    /// `%r<N>` families by their prefix (the first register and N), the
    /// prefixes of up to eight bytes (all that compilers write) packed into
    /// an integer: a register operand is looked up without hashing or
    /// comparing text.
    short_families: ShortFamilies,
    /// The families with longer prefixes.
    families: FxHashMap<Box<str>, (RegId, u32)>,
}

/// A family prefix of up to eight bytes as an integer (names hold no NUL,
/// so two prefixes give two integers).
fn packed_prefix(prefix: &str) -> Option<u64> {
    let b = prefix.as_bytes();
    if b.len() > 8 {
        return None;
    }
    // Byte by byte: a copy into an array and a load of it stalls on
    // store forwarding, which made this the parser's hottest line.
    Some(b.iter().rev().fold(0, |packed, &c| packed << 8 | u64::from(c)))
}

/// A scope's families with short prefixes ([`packed_prefix`]). A function
/// declares a handful (`%r`, `%rd`, `%f`, `%p`, ...): the first few are
/// compared in turn, which costs less than hashing the key; the rest, if
/// any, are hashed.
#[derive(Default)]
struct ShortFamilies {
    first: Vec<(u64, RegId, u32)>,
    rest: FxHashMap<u64, (RegId, u32)>,
}

/// Families [`ShortFamilies`] compares in turn.
const COMPARED_FAMILIES: usize = 16;

impl ShortFamilies {
    /// Declares the family `key`; false if the scope had it already (the
    /// new declaration then replaces it, as a map's insert does).
    fn insert(&mut self, key: u64, family: (RegId, u32)) -> bool {
        if let Some(known) = self.first.iter_mut().find(|(k, ..)| *k == key) {
            (known.1, known.2) = family;
            return false;
        }
        if self.first.len() < COMPARED_FAMILIES {
            self.first.push((key, family.0, family.1));
            return true;
        }
        self.rest.insert(key, family).is_none()
    }

    fn get(&self, key: u64) -> Option<(RegId, u32)> {
        match self.first.iter().find(|(k, ..)| *k == key) {
            Some(&(_, first, count)) => Some((first, count)),
            None if self.rest.is_empty() => None,
            None => self.rest.get(&key).copied(),
        }
    }
}

impl Scope {
    /// The register `text` names in this scope; `family` is `text` split
    /// into a family prefix and index, if it ends in digits.
    fn find(&self, text: &str, family: Option<(&str, u32)>) -> Option<RegId> {
        // Compilers declare families; most scopes have no single names.
        if !self.names.is_empty() {
            if let Some(&r) = self.names.get(text) {
                return Some(r);
            }
        }
        let (prefix, i) = family?;
        let found = match packed_prefix(prefix) {
            Some(key) => self.short_families.get(key),
            None => self.families.get(prefix).copied(),
        };
        match found {
            Some((first, count)) if i < count => Some(RegId::from_u32(first.as_u32() + i)),
            _ => None,
        }
    }
}

/// Labels are scoped like registers: a label defined in a nested `{ }` block
/// (inline asm often reuses names such as `waitLoop`) is visible only there.
/// References may come before the definition, so each block resolves the
/// instructions it saw when it closes and hands the rest to its parent.
#[derive(Default)]
struct LabelScope {
    /// Each label with where it is defined (for the note of a duplicate).
    labels: FxHashMap<Name, (LabelId, Span)>,
    pending: Vec<InstId>,
}

struct FunctionLowering<'i> {
    /// Where the parsed text starts in the source.
    base: usize,
    func: Function,
    scopes: Vec<Scope>,
    label_scopes: Vec<LabelScope>,
    errors: Vec<Diagnostic>,
    /// Opcode words already classified (`ld.global.u32`): most instructions
    /// repeat an opcode seen before in the function.
    opcodes: FxHashMap<&'i str, (Opcode, Modifiers)>,
    /// Statements the body scanner read, and those it handed to the grammar.
    scanned: usize,
    handed_to_grammar: usize,
    /// A parenthesized operand was made since the last instruction was
    /// pushed: `push_inst` looks for `(1)` only then.
    made_parens: bool,
    /// The module's `.version` is newer than the description
    /// ([`ptx_ir::newer_than_description`]): an instruction with a word the
    /// description lacks is an unknown one.
    later_words: bool,
}

/// How many opcode texts a thread remembers whether their words fit a form
/// ([`words_fit_a_form`]) before it starts over.
const FITTING_TEXTS: usize = 4096;

thread_local! {
    /// Per opcode text (`ld.global.nc.v4.f32`): whether its words fit a form
    /// of the description, which depends on nothing else.
    static FITTING: std::cell::RefCell<FxHashMap<Box<str>, bool>> = Default::default();
}

/// [`ptx_ir::forms::words_fit_a_form`] of the instruction spelled `text`,
/// remembered by the thread across functions and modules: matched against
/// every form of the opcode, it cost a large module's parse 3% when asked
/// once per function.
fn words_fit_a_form(text: &str, opcode: Opcode, modifiers: &Modifiers) -> bool {
    FITTING.with(|fitting| {
        if let Some(&fits) = fitting.borrow().get(text) {
            return fits;
        }
        let fits = ptx_ir::forms::words_fit_a_form(opcode, modifiers);
        let mut fitting = fitting.borrow_mut();
        if fitting.len() >= FITTING_TEXTS {
            fitting.clear();
        }
        fitting.insert(text.into(), fits);
        fits
    })
}

fn lower_function<'i>(pair: Pair<'i, Rule>, base: usize, later_words: bool) -> Result<Function, Vec<Diagnostic>> {
    let mut lowering = FunctionLowering::new(span_of(&pair, base), base, later_words);
    let mut without_semicolon = pair.as_rule() == Rule::last_prototype;
    let mut body_pair = None;
    let mut signature_end = pair.as_span().start();
    for part in pair.into_inner() {
        match part.as_rule() {
            Rule::body => body_pair = Some(part),
            Rule::prototype_end => without_semicolon = true,
            _ => {
                signature_end = part.as_span().end();
                lowering.signature_part(part);
            }
        }
    }
    if without_semicolon {
        // The grammar skipped the whitespace and comments up to the next
        // directive; they are not the function's (a function printed afresh
        // replaces its span).
        lowering.func.span = Span::new(lowering.func.span.start as usize, base + signature_end);
        if lowering.func.kind == FunctionKind::Entry {
            let message =
                format!("'.entry {}' needs a body or a ';' (only a .func prototype may omit it)", lowering.func.name);
            lowering.error(lowering.func.span, message);
        }
    }
    if let Some(body) = body_pair {
        let count = body.clone().into_inner().len();
        lowering.func.insts.reserve(count);
        let mut stmts = Vec::with_capacity(count + 2);
        lowering.statements(body, &mut stmts);
        lowering.close_label_scope();
        lowering.func.set_body(Some(stmts));
        lowering.func.shrink_to_fit();
    }
    lowering.finish()
}

impl<'i> FunctionLowering<'i> {
    fn new(span: Span, base: usize, later_words: bool) -> FunctionLowering<'i> {
        let mut func = Function::new(FunctionKind::Func, String::new());
        func.span = span;
        FunctionLowering {
            base,
            func,
            scopes: vec![Scope::default()],
            label_scopes: vec![LabelScope::default()],
            errors: Vec::new(),
            opcodes: FxHashMap::default(),
            scanned: 0,
            handed_to_grammar: 0,
            made_parens: false,
            later_words,
        }
    }

    fn finish(mut self) -> Result<Function, Vec<Diagnostic>> {
        if self.errors.is_empty() {
            // As parsed: printed from its source text until something changes it.
            self.func.mark_unchanged();
            Ok(self.func)
        } else {
            Err(self.errors)
        }
    }

    /// One part of a function's signature (everything before the body).
    fn signature_part(&mut self, part: Pair<'i, Rule>) {
        let base = self.base;
        match part.as_rule() {
            Rule::linkage => self.func.linkage.push(part.as_str()[1..].to_string()),
            Rule::func_kind => {
                self.func.kind = if part.as_str() == ".entry" { FunctionKind::Entry } else { FunctionKind::Func }
            }
            Rule::return_list => self.func.returns = Some(self.params(part)),
            Rule::ident => self.func.name = part.as_str().to_string(),
            Rule::param_list => self.func.params = Some(self.params(part)),
            Rule::func_attr => {
                // The whole attribute: for `.pragma "..." ;` the only children are the strings.
                let attr = part;
                let semicolon = attr.as_str().trim_end().ends_with(';');
                let name = attr.as_str()[1..].split(|c: char| !c.is_alphanumeric() && c != '_').next().unwrap_or("");
                let mut directive = raw(&attr, base, name, semicolon);
                directive.text = directive.text.split_whitespace().collect::<Vec<_>>().join(" ");
                self.func.attributes.push(directive);
            }
            _ => {}
        }
    }
}

/// `%r12` → (`%r`, 12): a name that ends in digits (not all digits, no
/// leading zero, at most `u32::MAX`) as a family prefix and index.
fn split_family_index(text: &str) -> Option<(&str, u32)> {
    let b = text.as_bytes();
    // One pass from the end, the value built as the digits go by. An index
    // has at most ten digits (`u32::MAX`); an eleventh means a leading zero
    // or too large a number.
    let mut start = b.len();
    let mut index = 0u64;
    let mut scale = 1u64;
    while start > 0 && b[start - 1].is_ascii_digit() {
        if b.len() - start == 10 {
            return None;
        }
        start -= 1;
        index += u64::from(b[start] - b'0') * scale;
        scale *= 10;
    }
    let digits = b.len() - start;
    if digits == 0 || start == 0 || (digits > 1 && b[start] == b'0') {
        return None;
    }
    Some((&text[..start], u32::try_from(index).ok()?))
}

/// Special registers (ISA 10) are listed in the IR, where passes can ask too.
pub use ptx_ir::special::is_special_register;

impl<'i> FunctionLowering<'i> {
    fn span(&self, pair: &Pair<'_, Rule>) -> Span {
        span_of(pair, self.base)
    }

    fn error(&mut self, span: Span, message: impl Into<String>) {
        self.errors.push(Diagnostic::new(span, message));
    }

    fn params(&mut self, list: Pair<'i, Rule>) -> Vec<Variable> {
        let mut out = Vec::new();
        for p in list.into_inner() {
            match lower_variable(p, self.base) {
                Ok(v) => {
                    // `.reg` parameters are registers inside the body.
                    self.declare_register_parameter(&v);
                    out.push(v)
                }
                Err(e) => self.errors.push(e),
            }
        }
        out
    }

    fn declare(&mut self, name: Name, ty: RegType, count: Option<u32>, span: Span) -> RegId {
        let first = match count {
            None => self.func.regs.push(RegData { ty, name, index: None }),
            Some(n) => {
                let first = self.func.regs.next_key();
                for i in 0..n {
                    self.func.regs.push(RegData { ty, name, index: Some(RegIndex::new(i)) });
                }
                first
            }
        };
        let text: Box<str> = self.func.names.get(name).into();
        let scope = self.scopes.last_mut().expect("a scope is open");
        let duplicate = match count {
            None => scope.names.insert(text, first).is_some(),
            Some(n) => match packed_prefix(&text) {
                Some(key) => !scope.short_families.insert(key, (first, n)),
                None => scope.families.insert(text, (first, n)).is_some(),
            },
        };
        if duplicate {
            let text = self.func.names.get(name).to_string();
            self.error(span, format!("register '{text}' is declared twice in the same scope"));
        }
        first
    }

    /// The register `text` names, innermost scope first.
    fn lookup(&self, text: &str) -> Option<RegId> {
        let family = split_family_index(text);
        self.scopes.iter().rev().find_map(|s| s.find(text, family))
    }

    fn statements(&mut self, block: Pair<'i, Rule>, out: &mut Vec<Stmt>) {
        for stmt in block.into_inner() {
            self.statement(stmt, out);
        }
    }

    fn statement(&mut self, stmt: Pair<'i, Rule>, out: &mut Vec<Stmt>) {
        {
            match stmt.as_rule() {
                Rule::scope => {
                    let span = self.span(&stmt);
                    let (open, close) = (span.start as usize, span.end as usize);
                    self.scope_open(Span::new(open, open + 1), out);
                    self.statements(stmt, out);
                    self.scope_close(Span::new(close - 1, close), out);
                }
                Rule::label => {
                    let span = self.span(&stmt);
                    let text = stmt.into_inner().next().expect("label has a name").as_str();
                    self.label(text, span, out);
                }
                Rule::reg_decl => {
                    if let Some(decl) = self.reg_decl(stmt) {
                        out.push(Stmt::RegDecl(self.func.reg_decls.push(decl)));
                    }
                }
                Rule::local_variable => {
                    // The statement's span, `;` included: a function written
                    // into its source text copies it whole.
                    let span = self.span(&stmt);
                    let var = stmt.into_inner().next().expect("local_variable wraps a variable");
                    match lower_variable(var, self.base) {
                        Ok(v) => out.push(Stmt::Variable(self.func.variables.push(Variable { span, ..v }))),
                        Err(e) => self.errors.push(e),
                    }
                }
                Rule::body_directive => {
                    let d = stmt.into_inner().next().expect("body_directive has one child");
                    let (name, semicolon) = match d.as_rule() {
                        Rule::loc => ("loc", false),
                        Rule::pragma => ("pragma", true),
                        Rule::callprototype => ("callprototype", true),
                        Rule::branchtargets => ("branchtargets", true),
                        Rule::body_target => ("target", false),
                        _ => ("calltargets", true),
                    };
                    let mut directive = raw(&d, self.base, name, semicolon);
                    // One line, single spaces: the canonical printer's form.
                    directive.text = directive.text.split_whitespace().collect::<Vec<_>>().join(" ");
                    out.push(Stmt::Raw(self.func.directives.push(directive)));
                }
                Rule::instruction => {
                    if let Some(inst) = self.instruction(stmt) {
                        self.push_inst(inst, out);
                    }
                }
                _ => {}
            }
        }
    }

    fn label(&mut self, text: &str, span: Span, out: &mut Vec<Stmt>) {
        let name = self.func.names.intern(text);
        let id = self.func.labels.push(LabelData { name, span });
        let scope = self.label_scopes.last_mut().expect("a label scope is open");
        if let Some((_, first)) = scope.labels.insert(name, (id, span)) {
            let duplicate = Diagnostic::new(span, format!("label '{text}' is defined twice"));
            self.errors.push(duplicate.with_note(first, "first defined here"));
        }
        out.push(Stmt::Label(id));
    }

    fn push_inst(&mut self, mut inst: Inst, out: &mut Vec<Stmt>) {
        // `(1)`, `((2))`: a parenthesized literal is a constant expression
        // (ptxas: `mov.u32 %r1, (1)` moves 1), but for `call`, whose
        // parentheses hold the argument and result lists.
        if std::mem::take(&mut self.made_parens) && inst.opcode != ptx_ir::Opcode::Call {
            for op in inst.operands.iter_mut() {
                if matches!(op, Operand::Parens(_)) {
                    if let Some(literal) = self.parenthesized_literal(op) {
                        *op = literal;
                    }
                }
            }
        }
        fn may_name_label(op: &Operand) -> bool {
            match op {
                Operand::Symbol(_) => true,
                Operand::Vector(ops) | Operand::Parens(ops) => ops.iter().any(may_name_label),
                _ => false,
            }
        }
        let may_name_label = inst.operands.iter().any(may_name_label);
        // Past three operands, pushes may have left room on the heap that
        // the module would keep.
        inst.operands.shrink_to_fit();
        let id = self.func.insts.push(inst);
        if may_name_label {
            self.label_scopes.last_mut().expect("a label scope is open").pending.push(id);
        }
        out.push(Stmt::Inst(id));
    }

    /// The literal inside `op` when `op` is one in parentheses, however
    /// deep, spelled with them.
    #[cold]
    fn parenthesized_literal(&mut self, op: &Operand) -> Option<Operand> {
        let mut depth = 0;
        let mut inner = op;
        while let Operand::Parens(ops) = inner {
            let [only] = ops.as_slice() else { return None };
            inner = only;
            depth += 1;
        }
        let text = match *inner {
            Operand::Int(i) => i.text?,
            Operand::Float(f) => f.text()?,
            _ => return None,
        };
        let spelled = format!("{}{}{}", "(".repeat(depth), self.func.names.get(text), ")".repeat(depth));
        let name = self.func.names.intern(&spelled);
        Some(match *inner {
            Operand::Int(i) => Operand::Int(IntImm { bits: i.bits, text: Some(name) }),
            Operand::Float(f) => Operand::Float(FloatImm::spelled(f.bits, f.single(), name)),
            _ => return None,
        })
    }

    fn scope_open(&mut self, brace: Span, out: &mut Vec<Stmt>) {
        out.push(Stmt::ScopeOpen(Brace::at(brace.start)));
        self.scopes.push(Scope::default());
        self.label_scopes.push(LabelScope::default());
    }

    fn scope_close(&mut self, brace: Span, out: &mut Vec<Stmt>) {
        self.close_label_scope();
        self.scopes.pop();
        out.push(Stmt::ScopeClose(Brace::at(brace.start)));
    }

    fn reg_decl(&mut self, pair: Pair<'i, Rule>) -> Option<RegDecl> {
        let span = self.span(&pair);
        let mut align = None;
        let mut vector = None;
        let mut scalar = None;
        let mut items = Vec::new();
        // Registers of the function so far, this declaration's included.
        let mut declared = self.func.regs.len();
        for part in pair.into_inner() {
            match part.as_rule() {
                Rule::align => {
                    let n = part.into_inner().next()?;
                    align = n.as_str().parse().ok();
                }
                Rule::vec_word => vector = part.as_str()[2..].parse().ok(),
                Rule::reg_type => {
                    let text = &part.as_str()[1..];
                    match ScalarType::from_str(text) {
                        Some(t) => scalar = Some(t),
                        None => {
                            self.error(self.span(&part), format!("unknown register type '.{text}'"));
                            return None;
                        }
                    }
                }
                Rule::reg_item => {
                    let item_span = self.span(&part);
                    let mut it = part.into_inner();
                    let name_text = it.next()?.as_str();
                    let count = match it.next() {
                        Some(n) => match n.as_str().parse::<u32>() {
                            Ok(c) if c as usize + declared > MAX_FUNCTION_REGS && c <= MAX_REG_FAMILY => {
                                self.error(
                                    self.span(&n),
                                    format!("function declares more than {MAX_FUNCTION_REGS} registers in all"),
                                );
                                return None;
                            }
                            Ok(c) if c <= MAX_REG_FAMILY => Some(c),
                            _ => {
                                self.error(
                                    self.span(&n),
                                    format!("register count '{}' is too large (limit {MAX_REG_FAMILY})", n.as_str()),
                                );
                                return None;
                            }
                        },
                        None => None,
                    };
                    declared += count.unwrap_or(1) as usize;
                    items.push((name_text, count, item_span));
                }
                _ => {}
            }
        }
        let ty = RegType { scalar: scalar?, vector };
        Some(self.declare_items(ty, align, items, span))
    }

    /// A `.reg` declaration of `items` (name, family count, span), their
    /// counts checked: registers made and named in order.
    fn declare_items(
        &mut self,
        ty: RegType,
        align: Option<u32>,
        items: Vec<(&'i str, Option<u32>, Span)>,
        span: Span,
    ) -> RegDecl {
        let items = items
            .into_iter()
            .map(|(text, count, item_span)| {
                let name = self.func.names.intern(text);
                RegDeclItem { first: self.declare(name, ty, count, item_span), count }
            })
            .collect();
        RegDecl { ty, align, items, span }
    }

    fn instruction(&mut self, pair: Pair<'i, Rule>) -> Option<Inst> {
        let span = self.span(&pair);
        let mut guard = None;
        let mut opcode = None;
        let parts = pair.into_inner();
        let mut operands = Operands::with_capacity(parts.len().saturating_sub(1));
        for part in parts {
            match part.as_rule() {
                Rule::guard => {
                    let mut negated = false;
                    let mut reg = None;
                    for g in part.into_inner() {
                        match g.as_rule() {
                            Rule::guard_not => negated = true,
                            _ => {
                                reg = self.lookup(g.as_str());
                                if reg.is_none() {
                                    self.error(
                                        self.span(&g),
                                        format!("guard '{}' is not a declared predicate register", g.as_str()),
                                    );
                                    return None;
                                }
                            }
                        }
                    }
                    guard = reg.map(|reg| Guard::new(reg, negated));
                }
                Rule::opcode => match self.opcode(part.as_str()) {
                    Some(known) => opcode = Some(known),
                    None => {
                        let message =
                            format!("more than {} distinct unknown opcodes in one function", ptx_ir::MAX_OTHER_OPCODES);
                        self.error(self.span(&part), message);
                        return None;
                    }
                },
                Rule::pair_second => self.join_pair(&mut operands, part)?,
                Rule::symbol_offset => self.join_offset(&mut operands, part)?,
                Rule::element_index => self.join_element(&mut operands, part)?,
                _ => operands.push(self.operand(part)?),
            }
        }
        let (opcode, modifiers) = opcode?;
        Some(Inst { guard, opcode, modifiers, operands, span })
    }

    /// The opcode and modifiers of an opcode word (`ld.global.u32`); None
    /// for an unknown opcode past the function's [`ptx_ir::MAX_OTHER_OPCODES`]
    /// others.
    fn opcode(&mut self, text: &'i str) -> Option<(Opcode, Modifiers)> {
        if let Some((op, mods)) = self.opcodes.get(text) {
            return Some((*op, mods.clone()));
        }
        let (op, mods) = self.classify_opcode(text)?;
        self.opcodes.insert(text, (op, mods.clone()));
        Some((op, mods))
    }

    fn classify_opcode(&mut self, text: &str) -> Option<(Opcode, Modifiers)> {
        let (name, words) = text.split_once('.').unwrap_or((text, ""));
        let opcode = match Opcode::from_name(name) {
            Some(known) => known,
            None => Opcode::Other(self.func.names.intern_opcode(name)?),
        };
        let modifiers = self.modifiers(words, opcode);
        // A word of a later ISA text, or known words no form of the
        // description combines, make a form the description does not know:
        // read as its opcode's forms, it might be misread (what it writes,
        // whether it may be deleted). An opcode that transfers control stays
        // known, so the control flow stays right (and the verifier reports
        // the word).
        let later_form = self.later_words
            && opcode.is_known()
            && opcode.control() == ptx_ir::Control::Falls
            && (modifiers.iter().any(|m| matches!(m, Modifier::Other(_)))
                || !words_fit_a_form(text, opcode, &modifiers));
        if later_form {
            let unknown = Opcode::Other(self.func.names.intern_opcode(name)?);
            return Some((unknown, self.modifiers(words, unknown)));
        }
        Some((opcode, modifiers))
    }

    /// The modifiers of `opcode` that the dotted `words` (`global.u32`) spell.
    fn modifiers(&mut self, words: &str, opcode: Opcode) -> Modifiers {
        words
            .split('.')
            .filter(|_| !words.is_empty())
            .map(|w| match Word::lookup(w) {
                Some(word) => Modifier::of_word(word, opcode),
                None => Modifier::Other(self.func.names.intern(w)),
            })
            .collect()
    }

    fn operand(&mut self, pair: Pair<'i, Rule>) -> Option<Operand> {
        Some(match pair.as_rule() {
            Rule::sink => Operand::Sink,
            Rule::reg_or_symbol => self.reg_or_symbol(pair),
            Rule::not_op => {
                let inner = pair.into_inner().next()?;
                let negated = match inner.as_rule() {
                    Rule::immediate => {
                        let span = self.span(&inner);
                        let literal = self.immediate(inner)?;
                        if !matches!(literal, Operand::Int(_)) {
                            self.error(
                                span,
                                "'!' negates a predicate or an integer constant, not a floating-point one",
                            );
                            return None;
                        }
                        literal
                    }
                    _ => self.reg_or_symbol(inner),
                };
                Operand::Not(Box::new(negated))
            }
            Rule::vector => {
                let inner = pair.clone().into_inner();
                // Elements: `p|q` is one element, parsed as two pairs.
                let len = inner.len() - inner.filter(|p| p.as_rule() == Rule::pair_second).count();
                if len > MAX_VECTOR {
                    self.error(self.span(&pair), format!("vector operand has {len} elements (limit {MAX_VECTOR})"));
                    return None;
                }
                Operand::Vector(Box::new(self.operand_list(pair)?.into_vec()))
            }
            Rule::parens => {
                self.made_parens = true;
                Operand::Parens(Box::new(self.operand_list(pair)?.into_vec()))
            }
            Rule::immediate => self.immediate(pair)?,
            Rule::const_expr => self.constant(pair)?,
            Rule::address => self.address(pair)?,
            other => {
                self.error(self.span(&pair), format!("unexpected {other:?} in operand"));
                return None;
            }
        })
    }

    /// The operands of a `vector` or `parens` pair.
    fn operand_list(&mut self, pair: Pair<'i, Rule>) -> Option<Operands> {
        let mut ops = Operands::with_capacity(pair.clone().into_inner().len());
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::pair_second => self.join_pair(&mut ops, p)?,
                Rule::symbol_offset => self.join_offset(&mut ops, p)?,
                Rule::element_index => self.join_element(&mut ops, p)?,
                _ => ops.push(self.operand(p)?),
            }
        }
        Some(ops)
    }

    /// `p|q`: the grammar gives `q` as a `pair_second` after the operand `p`.
    fn join_pair(&mut self, ops: &mut Operands, second: Pair<'i, Rule>) -> Option<()> {
        let b = self.operand(second.into_inner().next()?)?;
        let a = ops.pop()?;
        ops.push(Operand::Pair(Box::new((a, b))));
        Some(())
    }

    /// `var+16`: the grammar gives the offset after the operand `var`.
    fn join_offset(&mut self, ops: &mut Operands, offset: Pair<'i, Rule>) -> Option<()> {
        let span = self.span(&offset);
        let literal = self.offset_literal(offset.into_inner().next()?, "offset", span)?;
        match ops.pop()? {
            Operand::Symbol(name) => {
                ops.push(Operand::SymbolOffset(Box::new((name, literal))));
                Some(())
            }
            Operand::Reg(reg) => {
                ops.push(Operand::RegOffset(Box::new((reg, literal))));
                Some(())
            }
            _ => {
                self.error(span, "an offset '+N' can only follow a variable or a register");
                None
            }
        }
    }

    /// `arr[index]`: the grammar gives the index after the operand `arr`.
    fn join_element(&mut self, ops: &mut Operands, element: Pair<'i, Rule>) -> Option<()> {
        let span = self.span(&element);
        let array = match ops.pop()? {
            Operand::Symbol(name) => name,
            _ => {
                self.error(span, "only an array variable can be indexed ('arr[i]')");
                return None;
            }
        };
        let mut parts = element.into_inner();
        let first = parts.next()?;
        let index = if first.as_rule() != Rule::reg_or_symbol {
            ElementIndex::Literal(self.offset_literal(first, "array index", span)?)
        } else {
            let Operand::Reg(reg) = self.reg_or_symbol(first) else {
                self.error(span, "an array index is a constant, a register, or a register plus a constant");
                return None;
            };
            match parts.next() {
                None => ElementIndex::Reg(reg),
                Some(offset) => ElementIndex::RegPlus(reg, self.offset_literal(offset, "array index", span)?),
            }
        };
        ops.push(Operand::Element(Box::new(ArrayElement { array, index })));
        Some(())
    }

    /// A `signed_int` or a `const_expr` (an offset or an array index): the
    /// value and the text as written.
    fn offset_literal(&mut self, pair: Pair<'i, Rule>, what: &str, span: Span) -> Option<IntImm> {
        if pair.as_rule() == Rule::signed_int {
            return self.signed_literal(pair.as_str(), what, span);
        }
        let text = collapse_spacing(pair.as_str());
        let bits = self.integer_constant(pair, what, span)?;
        Some(IntImm { bits, text: Some(self.func.names.intern(&text)) })
    }

    /// The value of a `const_expr` that must be an integer (`what` it is,
    /// for the message); reports the expression's error or a value of
    /// another kind.
    fn integer_constant(&mut self, pair: Pair<'i, Rule>, what: &str, span: Span) -> Option<u64> {
        let text = pair.as_str();
        match const_expr::evaluate(pair, self.base) {
            Ok(const_expr::Value::Int { bits, .. }) => Some(bits),
            Ok(_) => {
                self.error(span, format!("{what} '{}' is not an integer", collapse_spacing(text)));
                None
            }
            Err(diagnostic) => {
                self.errors.push(diagnostic);
                None
            }
        }
    }

    /// A `signed_int` (an offset or an array index), its sign included:
    /// the value as written and the text.
    fn signed_literal(&mut self, text: &str, what: &str, span: Span) -> Option<IntImm> {
        let digits = text.strip_prefix('-').map_or(text, str::trim_start);
        let Some(value) = parse_int(digits) else {
            self.error(span, format!("{what} '{text}' does not fit in 64 bits"));
            return None;
        };
        let bits = if text.starts_with('-') { value.wrapping_neg() } else { value };
        Some(IntImm { bits, text: Some(self.func.names.intern(text)) })
    }

    fn reg_or_symbol(&mut self, pair: Pair<'i, Rule>) -> Operand {
        self.name_operand(pair.as_str())
    }

    /// A `reg_or_symbol`: a name (no `.` in it) and an optional component
    /// `.x`, split from the text instead of walking the inner pairs.
    fn name_operand(&mut self, full: &str) -> Operand {
        let (ident, component) = match full.bytes().position(|c| c == b'.') {
            Some(dot) => (&full[..dot], Some(&full[dot..])),
            None => (full, None),
        };
        if let Some(reg) = self.lookup(ident) {
            return match component {
                Some(c) if c.len() == 2 => Operand::RegComponent(reg, c.chars().nth(1).unwrap_or('x')),
                Some(selector) => Operand::RegSelect(reg, self.func.names.intern(&selector[1..])),
                None => Operand::Reg(reg),
            };
        }
        let name = self.func.names.intern(full);
        if is_special_register(ident) {
            Operand::Special(name)
        } else {
            Operand::Symbol(name)
        }
    }

    fn immediate(&mut self, pair: Pair<'i, Rule>) -> Option<Operand> {
        let span = self.span(&pair);
        let raw = pair.as_str();
        // The spelling without whitespace (`- 1` is kept as `-1`).
        let name = if raw.contains(char::is_whitespace) {
            self.func.names.intern(&raw.split_whitespace().collect::<String>())
        } else {
            self.func.names.intern(raw)
        };
        let mut negative = false;
        let mut lit = None;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::neg => negative = true,
                _ => lit = Some(p),
            }
        }
        let lit = lit?;
        let kind = match lit.as_rule() {
            Rule::int_lit => Literal::Int,
            Rule::float_hex => Literal::FloatHex,
            _ => Literal::FloatDec,
        };
        self.literal(kind, lit.as_str(), negative, name, span)
    }

    /// The immediate operand of a constant expression: its value, spelled as
    /// written.
    fn constant(&mut self, pair: Pair<'i, Rule>) -> Option<Operand> {
        let name = self.func.names.intern(&collapse_spacing(pair.as_str()));
        match const_expr::evaluate(pair, self.base) {
            Ok(const_expr::Value::Int { bits, .. }) => Some(Operand::Int(IntImm { bits, text: Some(name) })),
            Ok(const_expr::Value::Float(value)) => {
                Some(Operand::Float(FloatImm::spelled(value.to_bits(), false, name)))
            }
            Ok(const_expr::Value::HexFloat { bits, single }) => {
                Some(Operand::Float(FloatImm::spelled(bits, single, name)))
            }
            Err(diagnostic) => {
                self.errors.push(diagnostic);
                None
            }
        }
    }

    /// The immediate operand of a literal `text` of the given kind, spelled
    /// `name` in the source (with its sign); reports a literal out of range.
    fn literal(&mut self, kind: Literal, text: &str, negative: bool, name: Name, span: Span) -> Option<Operand> {
        match kind {
            Literal::Int => {
                let value = match parse_int(text) {
                    Some(v) => v,
                    None => {
                        self.error(span, format!("integer literal '{text}' does not fit in 64 bits"));
                        return None;
                    }
                };
                let bits = if negative { value.wrapping_neg() } else { value };
                Some(Operand::Int(IntImm { bits, text: Some(name) }))
            }
            Literal::FloatHex => {
                let s = text;
                let bits = u64::from_str_radix(&s[2..], 16).ok()?;
                let single = matches!(&s[1..2], "f" | "F");
                let bits = if negative {
                    if single {
                        bits ^ 0x8000_0000
                    } else {
                        bits ^ (1 << 63)
                    }
                } else {
                    bits
                };
                Some(Operand::Float(FloatImm::spelled(bits, single, name)))
            }
            Literal::FloatDec => {
                let v: f64 = match text.parse() {
                    Ok(v) => v,
                    Err(_) => {
                        self.error(span, format!("bad floating-point literal '{text}'"));
                        return None;
                    }
                };
                let v = if negative { -v } else { v };
                Some(Operand::Float(FloatImm::spelled(v.to_bits(), false, name)))
            }
        }
    }

    fn address(&mut self, pair: Pair<'i, Rule>) -> Option<Operand> {
        let mut base = None;
        let mut offset = 0i64;
        let mut explicit_zero = false;
        let mut rest = Operands::new();
        let mut unified = false;
        for part in pair.into_inner() {
            match part.as_rule() {
                Rule::int_lit if base.is_none() => {
                    let span = self.span(&part);
                    let Some(v) = parse_int(part.as_str()) else {
                        self.error(span, format!("address '{}' does not fit in 64 bits", part.as_str()));
                        return None;
                    };
                    let text = self.func.names.intern(part.as_str());
                    base = Some(AddrBase::Absolute(IntImm { bits: v, text: Some(text) }));
                }
                Rule::reg_or_symbol if base.is_none() => {
                    base = Some(match self.reg_or_symbol(part) {
                        Operand::Reg(r) => AddrBase::Reg(r),
                        Operand::Symbol(n) | Operand::Special(n) => AddrBase::Symbol(n),
                        Operand::RegComponent(..) | Operand::RegSelect(..) => {
                            self.error(Span::default(), "a vector component cannot be an address");
                            return None;
                        }
                        _ => return None,
                    });
                }
                Rule::addr_offset => {
                    offset = self.address_offset(part)?;
                    explicit_zero = offset == 0;
                }
                Rule::pair_second => self.join_pair(&mut rest, part)?,
                Rule::symbol_offset => self.join_offset(&mut rest, part)?,
                Rule::element_index => self.join_element(&mut rest, part)?,
                Rule::unified => unified = true,
                _ => rest.push(self.operand(part)?),
            }
        }
        Some(Operand::Address(Box::new(Address {
            base: base?,
            offset,
            explicit_zero,
            rest: rest.into_vec().into(),
            unified,
        })))
    }

    /// The value of an `addr_offset`: `+8`, `+-4`, or `+` and a constant
    /// expression (`+4*2`, `+(8)`).
    fn address_offset(&mut self, pair: Pair<'i, Rule>) -> Option<i64> {
        let span = self.span(&pair);
        let text = pair.as_str();
        let mut negative = false;
        let mut value = 0u64;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::neg => negative = true,
                // ptxas adds the expression's 64 bits to the address.
                Rule::const_expr => return self.integer_constant(p, "address offset", span).map(|bits| bits as i64),
                _ => match parse_int(p.as_str()) {
                    Some(v) => value = v,
                    None => {
                        self.error(span, format!("offset '{}' does not fit in 64 bits", p.as_str()));
                        return None;
                    }
                },
            }
        }
        let Ok(v) = i64::try_from(value) else {
            self.error(span, format!("offset '{text}' is out of range"));
            return None;
        };
        Some(if negative { -v } else { v })
    }

    /// Resolves the pending symbol operands of the innermost block against
    /// its labels; what stays unresolved goes to the enclosing block.
    fn close_label_scope(&mut self) {
        let scope = self.label_scopes.pop().expect("a label scope is open");
        fn visit(op: &mut Operand, labels: &FxHashMap<Name, (LabelId, Span)>, unresolved: &mut bool) {
            match op {
                Operand::Symbol(n) => match labels.get(n) {
                    Some(&(l, _)) => *op = Operand::Label(l),
                    None => *unresolved = true,
                },
                Operand::Vector(ops) | Operand::Parens(ops) => {
                    ops.iter_mut().for_each(|o| visit(o, labels, unresolved))
                }
                _ => {}
            }
        }
        let mut still_pending = Vec::new();
        for id in scope.pending {
            let mut unresolved = false;
            for op in &mut self.func.insts[id].operands {
                visit(op, &scope.labels, &mut unresolved);
            }
            if unresolved {
                still_pending.push(id);
            }
        }
        if let Some(parent) = self.label_scopes.last_mut() {
            parent.pending.append(&mut still_pending);
        }
    }
}

/// The three literal rules of the grammar.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Literal {
    /// `int_lit`: decimal, hex, octal or binary.
    Int,
    /// `float_hex`: `0f` and 8 hex digits, or `0d` and 16.
    FloatHex,
    /// `float_dec`: `1.5`, `1e-3`.
    FloatDec,
}

/// Parses a PTX integer literal (decimal, hex, octal, binary, optional `U`).
pub fn parse_int(text: &str) -> Option<u64> {
    let t = text.strip_suffix('U').unwrap_or(text);
    if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()
    } else if let Some(b) = t.strip_prefix("0b").or_else(|| t.strip_prefix("0B")) {
        u64::from_str_radix(b, 2).ok()
    } else if t.len() > 1 && t.starts_with('0') {
        u64::from_str_radix(&t[1..], 8).ok()
    } else {
        t.parse().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_register_name_splits_into_family_and_index() {
        let cases: &[(&str, Option<(&str, u32)>)] = &[
            ("%r12", Some(("%r", 12))),
            ("%r0", Some(("%r", 0))),
            ("%rd1a2", Some(("%rd1a", 2))),
            ("%f4294967295", Some(("%f", u32::MAX))),
            ("%f4294967296", None),
            ("%f9999999999", None),
            ("%r01", None),
            ("%r00000000001", None),
            ("%r10000000000", None),
            ("%r", None),
            ("12", None),
        ];
        for &(text, expected) in cases {
            assert_eq!(split_family_index(text), expected, "{text}");
        }
    }

    #[test]
    fn short_families_compare_the_first_and_hash_the_rest() {
        let mut families = ShortFamilies::default();
        let reg = RegId::from_u32;
        for key in 0..40u64 {
            assert!(families.insert(key, (reg(key as u32 * 10), 10)), "{key} is new");
        }
        assert!(!families.rest.is_empty());
        for key in 0..40u64 {
            assert_eq!(families.get(key), Some((reg(key as u32 * 10), 10)), "{key}");
        }
        assert_eq!(families.get(40), None);
        // A second declaration is reported and replaces the first, among the
        // compared ones and the hashed ones alike.
        assert!(!families.insert(3, (reg(1000), 2)));
        assert!(!families.insert(30, (reg(2000), 2)));
        assert_eq!(families.get(3), Some((reg(1000), 2)));
        assert_eq!(families.get(30), Some((reg(2000), 2)));
    }
}
