//! A changed function is written into its own source text (`ptx_ir::print`,
//! `splice.rs`): what the source still says is copied with its comments and
//! layout, rewritten instructions take their old place, new statements get
//! lines of their own, removed ones leave with their line. Checked on small
//! cases here, and over the public corpus: an edit that changes nothing
//! prints the source byte for byte, and whatever a pass does, the printed
//! text parses back to the module the pass made.

use crate::corpus;
use ptx_opt::ir::print::print_module_canonical;
use ptx_opt::ir::{BodyEdits, Function, InstId, Module, Span, Stmt};
use rayon::prelude::*;

const KERNEL: &str = "\
.version 8.0
.target sm_80
.address_size 64

// the module's comment
.visible .entry k(.param .u64 p)
{
\t.reg .b32 %r<4>;
\t.reg .b64 %rd<2>;
\tld.param.u64 %rd1, [p]; // load the pointer
\tmov.u32 %r1, 7;   // seven
\t/* a block comment
\t   over two lines */ mov.u32 %r2, 8;
$L_loop:
\tadd.s32 %r3, %r1, %r2; mov.u32 %r1, %r3; // two on a line
\t{
\t\t.reg .b32 %r<2>;
\t\tmov.u32 %r1, 1;
\t}
\tst.global.u32 [%rd1], %r3;
\tret;
}
";

/// The first function's instructions, in body order.
fn insts(func: &Function) -> Vec<InstId> {
    func.body().unwrap().iter().filter_map(|s| if let Stmt::Inst(id) = s { Some(*id) } else { None }).collect()
}

/// Parses `KERNEL`, edits its function, prints; checks that the text parses
/// back to the edited module.
fn edited(edit: impl FnOnce(&mut Function)) -> String {
    let mut module = ptx_opt::parse(KERNEL).unwrap();
    let f = module.functions.keys().next().unwrap();
    edit(&mut module.functions[f]);
    let printed = ptx_opt::print(&module);
    assert_parses_back(&module, &printed);
    printed
}

fn assert_parses_back(module: &Module, printed: &str) {
    let reparsed = ptx_opt::parse(printed).unwrap_or_else(|e| panic!("the output does not parse: {e:?}\n{printed}"));
    assert_eq!(print_module_canonical(&reparsed), print_module_canonical(module), "the output says something else");
}

/// The input with `from` replaced by `to` (once; it must be there).
fn input_with(from: &str, to: &str) -> String {
    assert_eq!(KERNEL.matches(from).count(), 1, "{from:?} is not in the input once");
    KERNEL.replacen(from, to, 1)
}

#[test]
fn a_removed_instruction_leaves_with_its_line_and_its_comments_stay() {
    let out = edited(|f| {
        let i = insts(f);
        let mut edits = BodyEdits::new();
        edits.remove(i[1]); // mov.u32 %r1, 7;   // seven
        edits.remove(i[2]); // the mov after the block comment
        edits.remove(i[4]); // the second of two on a line
        edits.apply(f);
    });
    let expected = input_with("\tmov.u32 %r1, 7;   // seven\n", "\t// seven\n");
    let expected = expected.replacen("   over two lines */ mov.u32 %r2, 8;\n", "   over two lines */\n", 1);
    let expected = expected.replacen("%r2; mov.u32 %r1, %r3; // two", "%r2; // two", 1);
    assert_eq!(out, expected);
}

#[test]
fn an_instruction_alone_on_its_line_leaves_no_blank_line() {
    let out = edited(|f| {
        let i = insts(f);
        let mut edits = BodyEdits::new();
        edits.remove(i[6]); // st.global.u32
        edits.apply(f);
    });
    assert_eq!(out, input_with("\tst.global.u32 [%rd1], %r3;\n", ""));
}

#[test]
fn an_instruction_rewritten_in_place_keeps_its_place_and_comment() {
    let out = edited(|f| {
        let i = insts(f);
        let seven = f.insts[i[1]].clone();
        let span = f.insts[i[4]].span;
        f.insts[i[4]] = seven.with_span(span);
    });
    assert_eq!(out, input_with("mov.u32 %r1, %r3; // two", "mov.u32 %r1, 7; // two"));
}

#[test]
fn new_instructions_go_on_lines_of_their_own() {
    let out = edited(|f| {
        let i = insts(f);
        let ret = f.insts[i[7]].clone().with_span(Span::default());
        let body = f.body().unwrap();
        let after_label = body.iter().position(|s| matches!(s, Stmt::Label(_))).unwrap() + 1;
        let inner = body.iter().position(|s| matches!(s, Stmt::ScopeOpen(_))).unwrap() + 2;
        let end = body.len();
        let mut edits = BodyEdits::new();
        edits.insert_before(f, i[1], ret.clone()); // after a commented line
        edits.insert_at(f, after_label, ret.clone()); // at a block's start
        edits.insert_after(f, i[3], ret.clone()); // between two on a line
        edits.insert_at(f, inner, ret.clone()); // in a nested scope, after its .reg
        edits.insert_at(f, end, ret.clone()); // at the end
        edits.insert_at(f, end, ret); // and again
        edits.apply(f);
    });
    let expected = KERNEL
        .replacen("// load the pointer\n", "// load the pointer\n\tret;\n", 1)
        .replacen("$L_loop:\n", "$L_loop:\n\tret;\n", 1)
        .replacen("%r2; mov.u32 %r1, %r3; // two on a line\n", "%r2;\n\tret; mov.u32 %r1, %r3; // two on a line\n", 1)
        .replacen("\t\t.reg .b32 %r<2>;\n", "\t\t.reg .b32 %r<2>;\n\t\tret;\n", 1)
        .replacen("\tret;\n}\n", "\tret;\n\tret;\n\tret;\n}\n", 1);
    assert_eq!(out, expected);
}

#[test]
fn a_renamed_register_prints_the_function_afresh() {
    let out = edited(|f| {
        let r = f.regs.keys().next().unwrap();
        let name = f.names.intern("%renamed");
        f.regs[r].name = name;
        f.regs[r].index = None;
    });
    assert!(!out.contains("// seven"), "copied source text would name the old register:\n{out}");
    assert!(out.contains("%renamed"));
    assert!(out.contains("// the module's comment"), "the rest of the module is still its source");
}

#[test]
fn a_changed_declaration_prints_the_function_afresh() {
    let out = edited(|f| {
        let decl = f.reg_decls.keys().next().unwrap();
        f.reg_decls[decl].align = Some(8);
    });
    assert!(out.contains(".reg .align 8 .b32"), "copied source text would miss the new alignment:\n{out}");
    assert!(out.contains("// the module's comment"), "the rest of the module is still its source");
}

/// Inserts a copy of each function's first instruction and removes it
/// again: every function with a body counts as changed, and says what its
/// source says.
pub fn edit_changing_nothing(module: &mut Module) {
    for func in module.functions.values_mut().filter(|f| f.has_body()) {
        let Some(first) = insts(func).first().copied() else { continue };
        let mut edits = BodyEdits::new();
        let copy = func.insts[first].clone();
        let id = edits.insert_before(func, first, copy);
        edits.remove(id);
        edits.apply(func);
        assert!(!func.is_pristine() && func.keeps_layout(), "{}", func.name);
    }
}

/// An edit that changes nothing (an instruction inserted and removed again)
/// marks the function changed: the printer writes it into its source text,
/// which must give the source back byte for byte. Over every public corpus
/// file and every testdata input that parses (hand-written and
/// ISA-generated syntax: scopes, labels on their own, comments in odd
/// places) this checks that every statement's span is exactly its text.
#[test]
fn an_edit_that_changes_nothing_prints_every_file_as_its_source() {
    // Some parse-error inputs are not UTF-8: they cannot be modules.
    let testdata: Vec<(String, String)> = corpus::testdata_files("")
        .into_iter()
        .filter_map(|p| Some((p.display().to_string(), String::from_utf8(std::fs::read(&p).ok()?).ok()?)))
        .collect();
    let inputs: Vec<(&str, &str)> = corpus::files()
        .iter()
        .map(|f| (f.name.as_str(), f.source.as_str()))
        .chain(testdata.iter().map(|(n, s)| (n.as_str(), s.as_str())))
        .collect();
    let checked = std::sync::atomic::AtomicUsize::new(0);
    let failures: Vec<String> = inputs
        .par_iter()
        .filter_map(|&(name, source)| {
            let mut module = ptx_opt::parse(source).ok()?;
            checked.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            edit_changing_nothing(&mut module);
            let printed = ptx_opt::print(&module);
            (printed != source).then(|| {
                let at = printed.bytes().zip(source.bytes()).position(|(a, b)| a != b).unwrap_or(0);
                let from = at.saturating_sub(80);
                format!("{name}: differs at byte {at}: {:?}", &printed[from..(at + 80).min(printed.len())])
            })
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let checked = checked.into_inner();
    assert!(checked > corpus::files().len() + 100, "{checked} files checked");
}

/// count-blocks (an insertion in every block) and -O2 (every rewriting
/// pass: replacements, insertions, removals) over the corpus: the printed
/// text parses back to the module the passes made, and every comment of the
/// input is still in the output.
#[test]
fn whatever_a_pass_does_the_printed_text_parses_back_with_every_comment() {
    let pipelines = ["count-blocks", "default<O2>"];
    let changed = std::sync::atomic::AtomicUsize::new(0);
    let failures: Vec<String> = corpus::files()
        .par_iter()
        .flat_map(|file| pipelines.par_iter().map(move |p| (file, *p)))
        .filter_map(|(file, pipeline)| {
            let mut module = ptx_opt::parse(&file.source).expect("corpus parses");
            let options = ptx_opt::Options::with_pipeline(pipeline).expect("a pipeline");
            let run = ptx_opt::run_passes(&mut module, &options).expect("the pipeline runs");
            if !run.passes.iter().any(|p| p.changed) {
                return None;
            }
            changed.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let printed = ptx_opt::print(&module);
            let reparsed = match ptx_opt::parse(&printed) {
                Ok(m) => m,
                Err(e) => return Some(format!("{}: {pipeline}: the output does not parse: {e:?}", file.name)),
            };
            if print_module_canonical(&reparsed) != print_module_canonical(&module) {
                return Some(format!("{}: {pipeline}: the output parses to another module", file.name));
            }
            let kept: std::collections::HashSet<&str> = comments(&printed).collect();
            let lost = comments(&file.source).filter(|c| !kept.contains(c)).count();
            (lost > 0).then(|| format!("{}: {pipeline}: {lost} comment lines lost", file.name))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let changed = changed.into_inner();
    eprintln!("{changed} runs changed their file and were checked");
    assert!(changed > corpus::files().len(), "count-blocks changes every file with a kernel, -O2 many");
}

/// The `//` comments of `text`, each to the end of its line.
fn comments(text: &str) -> impl Iterator<Item = &str> {
    text.lines().filter_map(|l| l.find("//").map(|at| l[at..].trim_end()))
}
