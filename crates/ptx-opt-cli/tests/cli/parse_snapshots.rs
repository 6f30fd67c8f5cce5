//! Snapshots of `testdata/parse/*.ptx`: hand-written modules covering the
//! grammar, each accepted by ptxas. For each file the snapshot holds the
//! canonical print and a dump of the typed IR per function: every register
//! with its id and declared type (an inner `.reg` that shadows an outer one
//! gets its own id), and every instruction with the registers it guards on,
//! defines and uses, as `Inst::for_each_reg_access` reports them.
//!
//! Beside the snapshot, each file is checked to print byte-identically when
//! unchanged and to reach a fixpoint when printed canonically.

use crate::{ptx_files, testdata};
use ptx_opt::ir::print::{inst_to_string, print_module, print_module_canonical};
use ptx_opt::ir::{Access, Function, FunctionKind};
use std::fmt::Write;

/// One line per register, then one line per instruction.
fn dump_function(func: &Function) -> String {
    let kind = match func.kind {
        FunctionKind::Entry => "entry",
        FunctionKind::Func => "func",
    };
    let body = if func.has_body() { "" } else { " (declaration, no body)" };
    let mut out = format!("{kind} {}{body}\n", func.name);
    for (reg, data) in func.regs.iter() {
        let _ = writeln!(out, "  {reg} {} {}", func.reg_name(reg), data.ty);
    }
    for id in func.inst_ids() {
        let inst = &func.insts[id];
        let mut accesses = Vec::new();
        if let Some(guard) = inst.guard {
            let not = if guard.negated() { "!" } else { "" };
            accesses.push(format!("guard {not}{} ({})", func.reg_name(guard.reg()), guard.reg()));
        }
        inst.for_each_reg_access(|_, reg, access| {
            let kind = match access {
                Access::Use => "use",
                Access::Def => "def",
                Access::UseDef => "use+def",
                Access::UseMayDef => "use+maydef",
            };
            accesses.push(format!("{kind} {} ({reg})", func.reg_name(reg)));
        });
        if accesses.is_empty() {
            accesses.push("no registers".to_string());
        }
        let _ = writeln!(out, "  {}\n      {}", inst_to_string(func, inst), accesses.join(", "));
    }
    out
}

/// Parses `source` and renders the snapshot; panics (failing the test) if it
/// does not parse, does not print back byte-identically, or if canonical
/// printing is not a fixpoint.
fn check(name: &str, source: &str) -> String {
    let module = ptx_opt::parse(source).unwrap_or_else(|e| panic!("{name} does not parse: {e}"));
    assert_eq!(print_module(&module), source, "{name}: an unchanged module must print byte-identically");
    let canonical = print_module_canonical(&module);
    let reparsed = ptx_opt::parse(&canonical).unwrap_or_else(|e| panic!("{name}: canonical print does not parse: {e}"));
    assert_eq!(print_module_canonical(&reparsed), canonical, "{name}: canonical printing is not a fixpoint");
    let mut out = String::from("=== canonical print\n");
    out.push_str(&canonical);
    out.push_str("=== typed IR\n");
    for (_, func) in module.functions.iter() {
        out.push_str(&dump_function(func));
    }
    out
}

#[test]
fn parse_testdata_snapshots() {
    let dir = testdata("parse");
    let files = ptx_files(&dir);
    assert!(files.len() >= 10, "expected at least 10 inputs in {}", dir.display());
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(dir.join("snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    for path in files {
        let name = path.file_stem().and_then(|s| s.to_str()).expect("UTF-8 file name").to_string();
        let source = std::fs::read_to_string(&path).expect("readable input");
        settings.set_input_file(&path);
        settings.bind(|| insta::assert_snapshot!(name.clone(), check(&name, &source)));
    }
}
