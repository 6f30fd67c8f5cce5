//! The printer: one statement per line, names, directive order, `.loc`,
//! debug sections and every modifier kept. What no pass changed is copied
//! from the source; a changed function whose layout is kept
//! ([`Function::keeps_layout`]) is written into its own source text
//! (`splice.rs`: comments and layout kept, new statements on lines of their
//! own); anything else is printed afresh, without comments.
//!
//! Printing is a fixpoint: parsing the output and printing again gives the
//! same text.

use crate::entities::Name;
use crate::inst::{AddrBase, ElementIndex, Inst, Modifier, Operand};
use crate::module::{DeclWord, Function, FunctionKind, Module, ModuleItem, RawDirective, RegDecl, Stmt, Variable};
use crate::opcodes::Opcode;
use std::fmt::Write;

mod splice;

/// Prints a whole module: parts unchanged since parsing come out byte for
/// byte as they were written, changed functions are printed afresh.
pub fn print_module(module: &Module) -> String {
    let mut out = String::with_capacity(module.source.as_ref().map_or(1 << 16, |s| s.len() + (1 << 12)));
    match &module.source {
        Some(source) => write_module_preserving(module, source, &mut out),
        None => write_module_canonical(module, &mut out),
    }
    out
}

/// Prints a whole module afresh, ignoring the source text: one statement
/// per line, comments dropped.
pub fn print_module_canonical(module: &Module) -> String {
    let mut out = String::with_capacity(1 << 16);
    write_module_canonical(module, &mut out);
    out
}

fn item_span(module: &Module, item: &ModuleItem) -> crate::Span {
    match item {
        ModuleItem::Variable(v) => v.span,
        ModuleItem::Function(f) => module.functions[*f].span,
        ModuleItem::Raw(r) => r.span,
    }
}

/// Appends the text of `source[range]` as `module` has it: the module is a
/// batch of a bigger one (`ptx_parse::parse_in_batches`) whose items all lie
/// in `range`, and printing the batches of a module one after the other
/// gives what [`print_module`] gives for the whole. False, with nothing
/// appended, if the module no longer has its source (a module-level change)
/// or `range` is not within it.
pub fn write_module_range(module: &Module, range: std::ops::Range<usize>, out: &mut impl PrintSink) -> bool {
    match &module.source {
        Some(source) if range.start <= range.end && range.end <= source.len() => {
            write_source_range(module, source, range, out);
            true
        }
        _ => false,
    }
}

/// Where [`write_module_range`] puts what it prints: text of the module's
/// source is handed over as a range of it, so that a sink may refer to the
/// source instead of copying it (`ptx_opt::OutputText`); new text is
/// appended to a string.
pub trait PrintSink {
    /// Appends `source[range]`; `source` is the module's source text.
    fn push_source(&mut self, source: &str, range: std::ops::Range<usize>);
    /// The string that new text is appended to.
    fn text(&mut self) -> &mut String;
}

impl PrintSink for String {
    fn push_source(&mut self, source: &str, range: std::ops::Range<usize>) {
        self.push_str(&source[range]);
    }

    fn text(&mut self) -> &mut String {
        self
    }
}

fn write_module_preserving(module: &Module, source: &str, out: &mut String) {
    write_source_range(module, source, 0..source.len(), out)
}

fn write_source_range(module: &Module, source: &str, range: std::ops::Range<usize>, out: &mut impl PrintSink) {
    let source = &source[..range.end];
    let mut copied_to = range.start;
    // Items a pass added before any item of the source wait for the header
    // (`.version` must come first): they go after its last line, or, if it
    // is not where this range starts, before the first item, or at the end.
    let mut waiting: Vec<&ModuleItem> = Vec::new();
    let mut copied_any = false;
    for item in &module.items {
        let span = item_span(module, item);
        let (start, end) = (span.start as usize, span.end as usize);
        let verbatim = match item {
            ModuleItem::Function(f) => module.functions[*f].is_pristine(),
            _ => true,
        };
        if span.is_synthetic() || start < copied_to || end > source.len() {
            if copied_any {
                // An item a pass added: after what came before, a blank line
                // between (the source goes on with a line break).
                let text = out.text();
                text.push_str("\n\n");
                write_added_item(module, item, text);
            } else {
                waiting.push(item);
            }
            continue;
        }
        copied_any = true;
        if verbatim && waiting.is_empty() {
            out.push_source(source, copied_to..end);
            copied_to = end;
            continue;
        }
        if !waiting.is_empty() {
            let split = header_end(&source[copied_to..start]).map_or(start, |n| copied_to + n);
            out.push_source(source, copied_to..split);
            write_waiting(module, &mut waiting, out.text());
            copied_to = split;
        }
        out.push_source(source, copied_to..start);
        if verbatim {
            out.push_source(source, start..end);
        } else {
            match item {
                ModuleItem::Function(f) => {
                    let func = &module.functions[*f];
                    if !splice::write_function_into_source(func, source, out) {
                        write_function_body_only(func, out.text());
                    }
                }
                _ => write_item(module, item, out.text()),
            }
        }
        copied_to = end;
    }
    let tail = copied_to.min(source.len());
    out.push_source(source, tail..source.len());
    write_waiting(module, &mut waiting, out.text());
}

/// Where the header of `gap` (the text before a module's first item) ends:
/// just after the line of its last `.version`, `.target` or
/// `.address_size` directive.
fn header_end(gap: &str) -> Option<usize> {
    let mut end = None;
    let mut at = 0;
    for line in gap.split_inclusive('\n') {
        at += line.len();
        let directive = line.trim_start();
        if [".version", ".target", ".address_size"].iter().any(|d| directive.starts_with(d)) {
            end = Some(at);
        }
    }
    end
}

/// Prints the items a pass added that waited for the header (see
/// `write_source_range`), each on its own lines after a blank line.
fn write_waiting(module: &Module, waiting: &mut Vec<&ModuleItem>, text: &mut String) {
    for item in waiting.drain(..) {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push('\n');
        write_added_item(module, item, text);
        text.push('\n');
    }
}

/// An item a pass added, without leading or trailing line breaks.
fn write_added_item(module: &Module, item: &ModuleItem, text: &mut String) {
    let mut item_text = String::new();
    write_item(module, item, &mut item_text);
    text.push_str(item_text.trim_matches('\n'));
}

/// A function printed in place of its source text (no leading blank line,
/// no trailing newline: the surrounding source supplies those).
fn write_function_body_only(func: &Function, out: &mut String) {
    let mut text = String::new();
    write_function(func, &mut text);
    out.push_str(text.trim_end_matches('\n'));
}

fn write_item(module: &Module, item: &ModuleItem, out: &mut String) {
    match item {
        ModuleItem::Variable(var) => {
            write_variable(var, out);
            out.push_str(";\n");
        }
        ModuleItem::Function(id) => {
            out.push('\n');
            write_function(&module.functions[*id], out);
        }
        ModuleItem::Raw(raw) => {
            write_raw(raw, out);
            out.push('\n');
        }
    }
}

fn write_module_canonical(module: &Module, out: &mut String) {
    let _ = writeln!(out, ".version {}.{}", module.version.0, module.version.1);
    let _ = writeln!(out, ".target {}", module.target.join(", "));
    if let Some(size) = module.address_size {
        let _ = writeln!(out, ".address_size {size}");
    }
    for item in &module.items {
        write_item(module, item, out);
    }
}

fn write_raw(raw: &RawDirective, out: &mut String) {
    out.push_str(&raw.text);
    if raw.semicolon {
        out.push(';');
    }
}

/// Appends a declaration (without the trailing `;`).
pub fn write_variable(var: &Variable, out: &mut String) {
    for l in &var.linkage {
        out.push('.');
        out.push_str(l);
        out.push(' ');
    }
    for (i, w) in var.words.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        match w {
            DeclWord::Space(s) => {
                let _ = write!(out, ".{s}");
            }
            DeclWord::Align(a) => {
                let _ = write!(out, ".align {a}");
            }
            DeclWord::Type(t) => {
                let _ = write!(out, ".{t}");
            }
            DeclWord::Vector(v) => {
                let _ = write!(out, ".v{v}");
            }
            DeclWord::Other(o) => out.push_str(o),
        }
    }
    out.push(' ');
    out.push_str(&var.name);
    for d in &var.dims {
        match d {
            Some(n) => {
                let _ = write!(out, "[{n}]");
            }
            None => out.push_str("[]"),
        }
    }
    if let Some(init) = &var.init {
        out.push_str(" = ");
        init.write_to(out);
    }
}

fn write_params(params: &[Variable], out: &mut String) {
    out.push('(');
    for (i, p) in params.iter().enumerate() {
        out.push_str(if i == 0 { "\n\t" } else { ",\n\t" });
        write_variable(p, out);
    }
    if !params.is_empty() {
        out.push('\n');
    }
    out.push(')');
}

/// Appends a function: header, attributes and body.
pub fn write_function(func: &Function, out: &mut String) {
    for l in &func.linkage {
        out.push('.');
        out.push_str(l);
        out.push(' ');
    }
    out.push_str(match func.kind {
        FunctionKind::Entry => ".entry ",
        FunctionKind::Func => ".func ",
    });
    if let Some(rets) = &func.returns {
        write_params(rets, out);
        out.push(' ');
    }
    out.push_str(&func.name);
    if let Some(params) = &func.params {
        write_params(params, out);
    }
    out.push('\n');
    for attr in &func.attributes {
        write_raw(attr, out);
        out.push('\n');
    }
    let Some(body) = func.body() else {
        out.push_str(";\n");
        return;
    };
    out.push_str("{\n");
    let mut depth = 1usize;
    for stmt in body {
        // `.reg .pred %p<0>;` declares nothing (ptxas accepts it); its item
        // has no register to take the name from, so it is not printed.
        if let Stmt::RegDecl(decl) = stmt {
            if func.reg_decls[*decl].items.iter().all(|item| item.count == Some(0)) {
                continue;
            }
        }
        if matches!(stmt, Stmt::ScopeClose(_)) {
            depth = depth.saturating_sub(1);
        }
        write_indent(stmt, depth, out);
        write_stmt(func, stmt, out);
        if matches!(stmt, Stmt::ScopeOpen(_)) {
            depth += 1;
        }
        out.push('\n');
    }
    out.push_str("}\n");
}

/// The tabs a statement `depth` scopes deep starts with (none for a label).
fn write_indent(stmt: &Stmt, depth: usize, out: &mut String) {
    if !matches!(stmt, Stmt::Label(_)) {
        for _ in 0..depth {
            out.push('\t');
        }
    }
}

/// One statement of a body, without indentation or line break.
fn write_stmt(func: &Function, stmt: &Stmt, out: &mut String) {
    match stmt {
        Stmt::Inst(id) => write_inst(func, &func.insts[*id], out),
        Stmt::Label(l) => {
            out.push_str(func.names.get(func.labels[*l].name));
            out.push(':');
        }
        Stmt::RegDecl(decl) => write_reg_decl(func, &func.reg_decls[*decl], out),
        Stmt::Variable(var) => {
            write_variable(&func.variables[*var], out);
            out.push(';');
        }
        Stmt::Raw(raw) => write_raw(&func.directives[*raw], out),
        Stmt::ScopeOpen(_) => out.push('{'),
        Stmt::ScopeClose(_) => out.push('}'),
    }
}

fn write_reg_decl(func: &Function, decl: &RegDecl, out: &mut String) {
    out.push_str(".reg ");
    if let Some(a) = decl.align {
        let _ = write!(out, ".align {a} ");
    }
    let _ = write!(out, "{} ", decl.ty);
    for (i, item) in decl.items.iter().filter(|item| item.count != Some(0)).enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        match item.count {
            Some(n) => {
                out.push_str(func.names.get(func.regs[item.first].name));
                let _ = write!(out, "<{n}>");
            }
            None => write_reg(func, item.first, out),
        }
    }
    out.push(';');
}

/// The text of an opcode.
pub fn opcode_text(func: &Function, op: Opcode) -> &str {
    match op {
        Opcode::Other(op) => func.names.opcode(op),
        known => known.known_name().unwrap_or("?"),
    }
}

/// Appends `.mod` for one modifier.
pub fn write_modifier(func: &Function, m: &Modifier, out: &mut String) {
    out.push('.');
    match m {
        Modifier::Type(t) => out.push_str(t.as_str()),
        Modifier::Space(_, Some(w)) => out.push_str(w.as_str()),
        Modifier::Space(s, None) => out.push_str(s.as_str()),
        Modifier::Rounding(r) => out.push_str(r.as_str()),
        Modifier::Cmp(c) => out.push_str(c.as_str()),
        Modifier::Prmt(p) => out.push_str(p.as_str()),
        Modifier::Vector(n) => {
            let _ = write!(out, "v{n}");
        }
        Modifier::Sat => out.push_str("sat"),
        Modifier::Ftz => out.push_str("ftz"),
        Modifier::Word(w) => out.push_str(w.as_str()),
        Modifier::Other(n) => out.push_str(func.names.get(*n)),
    }
}

/// Appends one instruction (without indentation or newline).
pub fn write_inst(func: &Function, inst: &Inst, out: &mut String) {
    if let Some(g) = inst.guard {
        out.push('@');
        if g.negated() {
            out.push('!');
        }
        write_reg(func, g.reg(), out);
        out.push(' ');
    }
    out.push_str(opcode_text(func, inst.opcode));
    for m in &inst.modifiers {
        write_modifier(func, m, out);
    }
    for (i, op) in inst.operands.iter().enumerate() {
        out.push_str(if i == 0 { " " } else { ", " });
        write_operand(func, op, out);
    }
    out.push(';');
}

fn write_reg(func: &Function, reg: crate::RegId, out: &mut String) {
    let data = &func.regs[reg];
    out.push_str(func.names.get(data.name));
    if let Some(i) = data.index {
        let _ = write!(out, "{i}");
    }
}

fn write_name(func: &Function, name: Name, out: &mut String) {
    out.push_str(func.names.get(name));
}

/// Appends one operand.
pub fn write_operand(func: &Function, op: &Operand, out: &mut String) {
    match op {
        Operand::Reg(r) => write_reg(func, *r, out),
        Operand::RegComponent(r, c) => {
            write_reg(func, *r, out);
            out.push('.');
            out.push(*c);
        }
        Operand::RegSelect(r, selector) => {
            write_reg(func, *r, out);
            out.push('.');
            write_name(func, *selector, out);
        }
        Operand::Special(n) | Operand::Symbol(n) => write_name(func, *n, out),
        Operand::RegOffset(reg_offset) => {
            let (r, offset) = **reg_offset;
            write_reg(func, r, out);
            out.push('+');
            write_operand(func, &Operand::Int(offset), out);
        }
        Operand::SymbolOffset(symbol_offset) => {
            let (n, offset) = **symbol_offset;
            write_name(func, n, out);
            out.push('+');
            write_operand(func, &Operand::Int(offset), out);
        }
        Operand::Element(element) => {
            write_name(func, element.array, out);
            out.push('[');
            match element.index {
                ElementIndex::Literal(i) => write_operand(func, &Operand::Int(i), out),
                ElementIndex::Reg(r) => write_reg(func, r, out),
                ElementIndex::RegPlus(r, i) => {
                    write_reg(func, r, out);
                    out.push('+');
                    write_operand(func, &Operand::Int(i), out);
                }
            }
            out.push(']');
        }
        Operand::Label(l) => write_name(func, func.labels[*l].name, out),
        Operand::Int(i) => match i.text {
            Some(t) => write_name(func, t, out),
            None => {
                let bits = i.bits;
                let _ = write!(out, "0x{bits:X}");
            }
        },
        Operand::Float(f) => match f.text() {
            Some(t) => write_name(func, t, out),
            None if f.single() => {
                let _ = write!(out, "0f{:08X}", f.bits as u32);
            }
            None => {
                let bits = f.bits;
                let _ = write!(out, "0d{bits:016X}");
            }
        },
        Operand::Address(a) => {
            out.push('[');
            match &a.base {
                AddrBase::Reg(r) => write_reg(func, *r, out),
                AddrBase::Symbol(n) => write_name(func, *n, out),
                AddrBase::Absolute(i) => write_operand(func, &Operand::Int(*i), out),
            }
            if a.offset != 0 || a.explicit_zero {
                let _ = write!(out, "+{}", a.offset);
            }
            for op in &a.rest {
                out.push_str(", ");
                write_operand(func, op, out);
            }
            out.push(']');
            if a.unified {
                out.push_str(".unified");
            }
        }
        Operand::Vector(ops) => {
            out.push('{');
            for (i, op) in ops.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_operand(func, op, out);
            }
            out.push('}');
        }
        Operand::Parens(ops) => {
            out.push('(');
            for (i, op) in ops.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_operand(func, op, out);
            }
            out.push(')');
        }
        Operand::Pair(pair) => {
            write_operand(func, &pair.0, out);
            out.push('|');
            write_operand(func, &pair.1, out);
        }
        Operand::Not(op) => {
            out.push('!');
            write_operand(func, op, out);
        }
        Operand::Neg(op) => {
            out.push('-');
            write_operand(func, op, out);
        }
        Operand::Sink => out.push('_'),
    }
}

/// One instruction as text, for diagnostics and remarks.
pub fn inst_to_string(func: &Function, inst: &Inst) -> String {
    let mut s = String::new();
    write_inst(func, inst, &mut s);
    s
}
