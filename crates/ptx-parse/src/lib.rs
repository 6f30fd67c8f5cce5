//! `ptx-parse`: the pest grammar for PTX and its lowering into `ptx-ir`.
//!
//! [`parse`] turns source text into a [`Module`] or a list of
//! [`Diagnostic`]s with byte spans; it never panics and never prints.
//!
//! A module is parsed one group of top-level items at a time (see
//! `chunks.rs`), each group lowered as soon as it is parsed, so pest's token
//! queue never holds more than about one function. The body of a group's
//! last function is read by a hand-written scanner that hands the statements
//! it does not know to the grammar one at a time (`lower/body_scan.rs`);
//! when it cannot finish, the grammar parses the group. If a group does not
//! parse, the whole module is parsed in one go: diagnostics come from that
//! parse, exactly as if the module had never been cut.

#![warn(missing_docs)]

extern crate alloc;

mod chunks;
mod errors;
mod lower;

pub use lower::{is_special_register, parse_int, ScanCoverage, MAX_FUNCTION_REGS, MAX_REG_FAMILY, MAX_VECTOR};
use pest::{iterators::Pair, Parser};
use ptx_ir::{Diagnostic, Module, Span};
use std::sync::Arc;

#[allow(missing_docs)]
mod grammar {
    /// The generated pest parser.
    #[derive(pest_derive::Parser)]
    #[grammar = "ptx.pest"]
    pub struct PtxParser;
}
pub use grammar::{PtxParser, Rule};

/// Deepest nesting of `{ }` accepted. pest's recursive descent has no depth
/// limit of its own, so deeper input would overflow the stack.
pub const MAX_NESTING: usize = 256;

/// Longest name or number accepted, in bytes: far above the longest C++
/// mangled names compilers emit (the public corpus peaks at 387, CUTLASS
/// kernels reach a few thousand), low enough to be a clear error instead of
/// megabytes of one token carried through every message.
pub const MAX_TOKEN_LEN: usize = 1 << 16;

/// Parses a PTX module. The module keeps a copy of `source` (for verbatim
/// printing); [`parse_shared`] avoids the copy.
pub fn parse(source: &str) -> Result<Module, Vec<Diagnostic>> {
    if source.len() >= u32::MAX as usize {
        return Err(vec![Diagnostic::new(Span::default(), "input is larger than 4 GiB")]);
    }
    parse_shared(Arc::from(source))
}

/// Parses a PTX module that keeps `source` itself, without copying it.
pub fn parse_shared(source: Arc<str>) -> Result<Module, Vec<Diagnostic>> {
    if source.len() >= u32::MAX as usize {
        return Err(vec![Diagnostic::new(Span::default(), "input is larger than 4 GiB")]);
    }
    let lowering = lower::ModuleLowering::new(source.clone());
    parse_pieces(&source, lowering, || lower::ModuleLowering::new(source.clone()), Bodies::Scanned)
}

/// Parses `source` in batches of whole groups of items (about
/// `batch_bytes` of source each) and hands each to `on_batch` as a module of
/// its own, with the byte range of the source it covers (the ranges tile the
/// source), so a caller that works one function at a time never holds the
/// whole module. Each batch module keeps the whole source and the header.
///
/// A batch holds only its own items, but a function may name a variable or
/// function an earlier batch declared: the module-level names of each batch
/// are added to `declarations` before the batch is handed over, so whoever
/// checks a batch (the verifier's declaration check) asks `declarations`
/// about the rest of the source.
///
/// Returns false, and the caller should use [`parse`] instead (which gives
/// the module or the diagnostics), when anything goes wrong: a group that
/// does not parse on its own, an error in a batch, or `on_batch` returning
/// false. Batches already handed over are then to be thrown away.
pub fn parse_in_batches(
    source: &Arc<str>,
    batch_bytes: usize,
    declarations: &SourceDeclarations,
    mut on_batch: impl FnMut(Module, std::ops::Range<usize>) -> bool,
) -> bool {
    if source.len() >= u32::MAX as usize {
        return false;
    }
    let Ok(scan) = chunks::prescan(source) else { return false };
    let mut lowering = lower::ModuleLowering::new(source.clone());
    let mut batch_start = 0;
    for group in scan.groups(source.len()) {
        if !parse_group(source, &mut lowering, &group, Bodies::Scanned) {
            return false;
        }
        let end = group.range.end;
        if end - batch_start >= batch_bytes || end == source.len() {
            let Some(batch) = lowering.take_batch() else { return false };
            // Later batches may name what this one declares.
            declarations.declare_module(&batch);
            if !on_batch(batch, batch_start..end) {
                return false;
            }
            batch_start = end;
        }
    }
    true
}

/// The module-level variables and functions of a source parsed in batches
/// ([`parse_in_batches`]), with where each is first declared: what a batch
/// may name from the rest of the source. Shared between the parser, which
/// adds each batch's names before handing the batch over, and whoever checks
/// the batches (on another thread when the parser runs ahead). A name counts
/// as declared at a point only if it is declared before it, so names a
/// parser running ahead has already added do not leak backwards.
#[derive(Debug, Default)]
pub struct SourceDeclarations {
    first_declared_at: std::sync::RwLock<std::collections::HashMap<String, u32>>,
}

impl SourceDeclarations {
    /// Notes that `name` is declared at byte offset `at`.
    pub fn declare(&self, name: &str, at: u32) {
        let mut names = self.first_declared_at.write().unwrap_or_else(|e| e.into_inner());
        match names.get_mut(name) {
            Some(first) => *first = (*first).min(at),
            None => {
                names.insert(name.to_string(), at);
            }
        }
    }

    /// Notes the module-level variables and functions of `module` (a batch).
    pub fn declare_module(&self, module: &Module) {
        for item in &module.items {
            if let ptx_ir::ModuleItem::Variable(v) = item {
                self.declare(&v.name, v.span.start);
            }
        }
        for function in module.functions.values() {
            self.declare(&function.name, function.span.start);
        }
    }

    /// True if `name` is declared before byte offset `at`.
    pub fn declared_before(&self, name: &str, at: u32) -> bool {
        let names = self.first_declared_at.read().unwrap_or_else(|e| e.into_inner());
        names.get(name).is_some_and(|&first| first <= at)
    }
}

/// Parses a module with the grammar alone, without the body scanner: the
/// reference that tests compare [`parse`] with.
#[doc(hidden)]
pub fn parse_reference(source: &str) -> Result<Module, Vec<Diagnostic>> {
    let source: Arc<str> = Arc::from(source);
    let lowering = lower::ModuleLowering::new(source.clone());
    parse_pieces(&source, lowering, || lower::ModuleLowering::new(source.clone()), Bodies::Grammar)
}

/// How much of `source` the body scanner reads (statements scanned and
/// handed to the grammar, groups parsed by the grammar whole), for tests and
/// benchmarks; None when `source` does not parse.
#[doc(hidden)]
pub fn scan_coverage(source: &str) -> Option<ScanCoverage> {
    let mut coverage = None;
    parse_pieces_with(
        source,
        lower::ModuleLowering::validation(),
        lower::ModuleLowering::validation,
        Bodies::Scanned,
        |l| coverage = Some(l.coverage()),
    )
    .ok()?;
    coverage
}

/// Who reads function bodies.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Bodies {
    /// The body scanner, with the grammar for what it declines.
    Scanned,
    /// The grammar alone.
    Grammar,
}

/// Checks `source` exactly as [`parse`] does (the same diagnostics) without
/// building the module: each function is dropped once checked, so memory
/// stays bounded by the largest function. An unchanged module prints as its
/// source, so this is all that parsing and printing with no pass needs.
pub fn validate(source: &str) -> Result<(), Vec<Diagnostic>> {
    if source.len() >= u32::MAX as usize {
        return Err(vec![Diagnostic::new(Span::default(), "input is larger than 4 GiB")]);
    }
    parse_pieces(source, lower::ModuleLowering::validation(), lower::ModuleLowering::validation, Bodies::Scanned)
        .map(drop)
}

/// Parses and lowers `source` one group of items at a time into `lowering`;
/// if a group does not parse, parses the whole source into `whole()` instead.
fn parse_pieces(
    source: &str,
    lowering: lower::ModuleLowering,
    whole: impl FnOnce() -> lower::ModuleLowering,
    bodies: Bodies,
) -> Result<Module, Vec<Diagnostic>> {
    parse_pieces_with(source, lowering, whole, bodies, |_| {})
}

/// [`parse_pieces`], showing the lowering to `inspect` before it finishes.
fn parse_pieces_with(
    source: &str,
    mut lowering: lower::ModuleLowering,
    whole: impl FnOnce() -> lower::ModuleLowering,
    bodies: Bodies,
    inspect: impl FnOnce(&lower::ModuleLowering),
) -> Result<Module, Vec<Diagnostic>> {
    let scan = chunks::prescan(source)?;
    for group in scan.groups(source.len()) {
        if !parse_group(source, &mut lowering, &group, bodies) {
            return parse_whole(source, whole());
        }
    }
    inspect(&lowering);
    lowering.finish()
}

/// Parses and lowers one group of items, its last function's body with the
/// body scanner (if `bodies` says so). False when the group does not parse
/// on its own.
fn parse_group(source: &str, lowering: &mut lower::ModuleLowering, group: &chunks::Group, bodies: Bodies) -> bool {
    let (start, first, text) = (group.range.start, group.first, &source[group.range.clone()]);
    let scanned = bodies == Bodies::Scanned
        && group.last_open.is_some_and(|open| {
            let before_body = &source[start..open];
            if let Some((items, at)) = parse_items_before_head(before_body, first) {
                return lowering.add_scanned(items, lower::Head::At(at), start, text, open - start);
            }
            let rule = if first { Rule::file_head } else { Rule::chunk_head };
            match PtxParser::parse(rule, before_body).ok().and_then(|mut pairs| pairs.next()) {
                Some(whole) => {
                    let mut items = inner_items(whole);
                    match items.pop() {
                        Some(head) => lowering.add_scanned(items, lower::Head::Parsed(head), start, text, open - start),
                        None => false,
                    }
                }
                None => false,
            }
        });
    if scanned {
        return true;
    }
    let rule = if first { Rule::file } else { Rule::chunk };
    match PtxParser::parse(rule, text).ok().and_then(|mut pairs| pairs.next()) {
        Some(pair) => {
            lowering.add(pair, start);
            true
        }
        None => false,
    }
}

/// The items before the last function of a group (`text` ends where its
/// body opens), parsed without its head, and where the head starts; None
/// when the place is not plain to see or the items do not parse (the caller
/// then parses `text` whole). The items parse only when the cut is where
/// the whole parse ends them: an item cut short does not parse, and the
/// head must then start with its linkage or `.entry`/`.func`, which the
/// head scanner or the grammar's `head_alone` checks.
fn parse_items_before_head(text: &str, first: bool) -> Option<(Vec<Pair<'_, Rule>>, usize)> {
    let at = chunks::last_function_head(text)?;
    let rule = if first { Rule::file_items } else { Rule::chunk_items };
    let items = PtxParser::parse(rule, &text[..at]).ok()?.next()?;
    Some((inner_items(items), at))
}

/// The pairs inside `pair`, without the end of input.
fn inner_items(pair: Pair<'_, Rule>) -> Vec<Pair<'_, Rule>> {
    let mut items: Vec<Pair<'_, Rule>> = pair.into_inner().collect();
    if items.last().map(|p| p.as_rule()) == Some(Rule::EOI) {
        items.pop();
    }
    items
}

/// Parses the module in one piece, as [`parse`] does when the module cannot
/// be cut: for tests that compare the two.
#[doc(hidden)]
pub fn parse_uncut(source: &str) -> Result<Module, Vec<Diagnostic>> {
    chunks::prescan(source)?;
    let source: Arc<str> = Arc::from(source);
    parse_whole(&source, lower::ModuleLowering::new(source.clone()))
}

/// Parses the module in one piece: the reference for diagnostics, and the
/// way for input whose pieces do not parse on their own.
fn parse_whole(source: &str, mut lowering: lower::ModuleLowering) -> Result<Module, Vec<Diagnostic>> {
    let file = match PtxParser::parse(Rule::file, source) {
        Ok(mut pairs) => pairs.next(),
        Err(e) => return Err(vec![errors::describe(source, &e)]),
    };
    match file {
        Some(file) => lowering.add(file, 0),
        None => return Err(vec![Diagnostic::new(Span::default(), "the grammar produced no module")]),
    }
    lowering.finish()
}
