//! Integration tests of ptx-analysis: crafted PTX for each trap of reaching
//! definitions and CFG construction, rendered as text and compared with
//! inline snapshots; the queries passes use; the cache; DOT output; and every
//! public corpus file, checked against a naive instruction-level solver.

use ptx_analysis::{
    cfg_dot, defuse_dot, Cfg, CfgNode, DefSite, DefUse, DomTree, EdgeKind, FunctionAnalyses, Keep, UsePos,
};
use ptx_ir::print::inst_to_string;
use ptx_ir::{Function, InstId, Module, Operand, RegId};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::path::PathBuf;

const HEADER: &str = ".version 8.0\n.target sm_80\n.address_size 64\n";

/// Parses `src` (a snippet of functions) under a fixed header.
fn parse(src: &str) -> (Module, String) {
    let text = format!("{HEADER}{}", src.strip_prefix('\n').unwrap_or(src));
    let module = ptx_parse::parse(&text).unwrap_or_else(|e| panic!("parse error: {e:?}"));
    (module, text)
}

/// The snippet line (1-based, header excluded) of an instruction.
fn line_of(text: &str, func: &Function, inst: InstId) -> usize {
    let start = func.insts[inst].span.start as usize;
    text[..start].matches('\n').count() + 1 - HEADER.matches('\n').count()
}

fn def_text(text: &str, func: &Function, d: DefSite) -> String {
    match d {
        DefSite::Entry(_) => "entry".to_string(),
        DefSite::Inst(i, _) => line_of(text, func, i).to_string(),
    }
}

/// Renders, for every instruction that reads registers, the line, the
/// instruction and, per register read, the lines of its reaching
/// definitions (`entry` for the function-entry value).
fn reaching(src: &str) -> String {
    let (module, text) = parse(src);
    let mut out = String::new();
    for (_, func) in module.functions.iter().filter(|(_, f)| f.has_body()) {
        let _ = writeln!(out, "{}:", func.name);
        let cfg = Cfg::build(func);
        let du = DefUse::build(func, &cfg, &DomTree::build(&cfg));
        for inst in func.inst_ids() {
            let uses = du.uses_of_inst(inst);
            if uses.is_empty() {
                continue;
            }
            let _ = write!(out, "{:>3}: {:<40}", line_of(&text, func, inst), inst_to_string(func, &func.insts[inst]));
            let mut seen = BTreeSet::new();
            for u in uses {
                if !seen.insert(u.reg) {
                    continue;
                }
                let defs: Vec<String> =
                    du.reaching_defs(inst, u.reg).iter().map(|&d| def_text(&text, func, d)).collect();
                let _ = write!(out, " {} <- {};", func.reg_name(u.reg), defs.join(" "));
            }
            out.truncate(out.trim_end().len());
            out.push('\n');
        }
    }
    out
}

/// Renders the CFG of each function: per block its labels, the lines of its
/// first and last instruction, successors with edge kinds, and idom.
fn cfg_text(src: &str) -> String {
    let (module, text) = parse(src);
    let mut out = String::new();
    for (_, func) in module.functions.iter().filter(|(_, f)| f.has_body()) {
        let _ = writeln!(out, "{}:", func.name);
        let cfg = Cfg::build(func);
        let dom = DomTree::build(&cfg);
        let name = |n: petgraph::graph::NodeIndex| cfg.graph()[n].to_string();
        let succ = |n| {
            let mut v: Vec<_> =
                cfg.graph().edges(n).map(|e| (petgraph::visit::EdgeRef::target(&e), *e.weight())).collect();
            v.sort_by_key(|(t, _)| t.index());
            v.iter().map(|&(t, k)| format!("{} ({k})", name(t))).collect::<Vec<_>>().join(", ")
        };
        let _ = writeln!(out, "  entry -> {}", succ(cfg.entry()));
        for (b, data) in cfg.blocks() {
            let labels: Vec<&str> = data.labels.iter().map(|&l| func.names.get(func.labels[l].name)).collect();
            let lines = match (data.insts.first(), data.insts.last()) {
                (Some(&a), Some(&z)) => format!("lines {}-{}", line_of(&text, func, a), line_of(&text, func, z)),
                _ => "empty".to_string(),
            };
            let node = cfg.node(b);
            let idom = dom.idom(node).map_or("-".to_string(), name);
            let _ = writeln!(
                out,
                "  {b} [{}] {lines} -> {} | idom {idom}{}",
                labels.join(" "),
                succ(node),
                if cfg.is_reachable(b) { "" } else { " | unreachable" }
            );
        }
    }
    out
}

// ---------------------------------------------------------------- reaching

#[test]
fn guarded_def_does_not_kill() {
    insta::assert_snapshot!(reaching(r#"
.visible .entry k(.param .u32 p)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<2>;
    ld.param.u32 %r1, [p];
    setp.eq.s32 %p1, %r1, 0;
    mov.u32 %r2, 0;
    @%p1 mov.u32 %r2, 1;
    add.s32 %r3, %r2, %r1;
    mov.u32 %r2, 7;
    add.s32 %r3, %r2, %r3;
    @!%p1 add.s32 %r3, %r3, 1;
    st.global.u32 [%rd1], %r3;
    ret;
}
"#), @r"
    k:
      7: setp.eq.s32 %p1, %r1, 0;                 %r1 <- 6;
      9: @%p1 mov.u32 %r2, 1;                     %p1 <- 7;
     10: add.s32 %r3, %r2, %r1;                   %r2 <- 8 9; %r1 <- 6;
     12: add.s32 %r3, %r2, %r3;                   %r2 <- 11; %r3 <- 10;
     13: @!%p1 add.s32 %r3, %r3, 1;               %p1 <- 7; %r3 <- 12;
     14: st.global.u32 [%rd1], %r3;               %rd1 <- entry; %r3 <- 12 13;
    ");
}

#[test]
fn if_else_join() {
    insta::assert_snapshot!(reaching(r#"
.visible .entry k(.param .u32 p)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    ld.param.u32 %r1, [p];
    setp.eq.s32 %p1, %r1, 0;
    @%p1 bra $ELSE;
    mov.u32 %r2, 1;
    bra.uni $JOIN;
$ELSE:
    mov.u32 %r2, 2;
$JOIN:
    add.s32 %r3, %r2, %r1;
    ret;
}
"#), @r"
    k:
      6: setp.eq.s32 %p1, %r1, 0;                 %r1 <- 5;
      7: @%p1 bra $ELSE;                          %p1 <- 6;
     13: add.s32 %r3, %r2, %r1;                   %r2 <- 8 11; %r1 <- 5;
    ");
}

#[test]
fn loop_defs_reach_the_header() {
    // Nested loops: the inner def of %r3 reaches the outer header only
    // through two back edges (more than one round of the dataflow).
    insta::assert_snapshot!(reaching(r#"
.visible .entry k()
{
    .reg .pred %p<3>;
    .reg .b32 %r<5>;
    .reg .b64 %rd<2>;
    mov.u32 %r1, 0;
    mov.u32 %r2, 0;
$OUTER:
    add.s32 %r4, %r3, 1;
    mov.u32 %r2, 0;
$INNER:
    add.s32 %r2, %r2, %r1;
    mov.u32 %r3, %r2;
    setp.lt.u32 %p1, %r2, 10;
    @%p1 bra $INNER;
    add.s32 %r1, %r1, 1;
    setp.lt.u32 %p2, %r1, 10;
    @%p2 bra $OUTER;
    st.global.u32 [%rd1], %r2;
    ret;
}
"#), @r"
    k:
      9: add.s32 %r4, %r3, 1;                     %r3 <- entry 13;
     12: add.s32 %r2, %r2, %r1;                   %r2 <- 10 12; %r1 <- 6 16;
     13: mov.u32 %r3, %r2;                        %r2 <- 12;
     14: setp.lt.u32 %p1, %r2, 10;                %r2 <- 12;
     15: @%p1 bra $INNER;                         %p1 <- 14;
     16: add.s32 %r1, %r1, 1;                     %r1 <- 6 16;
     17: setp.lt.u32 %p2, %r1, 10;                %r1 <- 16;
     18: @%p2 bra $OUTER;                         %p2 <- 17;
     19: st.global.u32 [%rd1], %r2;               %rd1 <- entry; %r2 <- 12;
    ");
}

#[test]
fn shadowed_registers_are_distinct() {
    insta::assert_snapshot!(reaching(r#"
.visible .entry k()
{
    .reg .b32 %r1;
    mov.u32 %r1, 1;
    {
        .reg .b32 %r1;
        mov.u32 %r1, 2;
        add.s32 %r1, %r1, 3;
    }
    {
        .reg .b32 %r1;
        add.s32 %r1, %r1, 5;
    }
    add.s32 %r1, %r1, 4;
    ret;
}
"#), @r"
    k:
      8: add.s32 %r1, %r1, 3;                     %r1 <- 7;
     12: add.s32 %r1, %r1, 5;                     %r1 <- entry;
     14: add.s32 %r1, %r1, 4;                     %r1 <- 4;
    ");
}

#[test]
fn vector_pair_and_sink_defs() {
    insta::assert_snapshot!(reaching(r#"
.visible .entry k()
{
    .reg .pred %p<3>;
    .reg .b32 %r<9>;
    .reg .b64 %rd<3>;
    .reg .v2 .b32 %v;
    mov.u32 %r1, 0;
    mov.u32 %r2, 0;
    ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd1];
    mov.b64 {%r5, %r6}, %rd2;
    ld.global.v2.u32 {%r7, _}, [%rd1];
    add.s32 %r8, %r1, %r2;
    add.s32 %r8, %r3, %r4;
    add.s32 %r8, %r5, %r6;
    add.s32 %r8, %r7, %r8;
    setp.lt.s32 %p1|%p2, %r1, %r2;
    selp.b32 %r8, %r1, %r2, %p2;
    mov.b32 %v.x, 5;
    mov.b32 %v.y, 6;
    mov.b64 %rd2, %v;
    ret;
}
"#), @r"
    k:
      9: ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd1]; %rd1 <- entry;
     10: mov.b64 {%r5, %r6}, %rd2;                %rd2 <- entry;
     11: ld.global.v2.u32 {%r7, _}, [%rd1];       %rd1 <- entry;
     12: add.s32 %r8, %r1, %r2;                   %r1 <- 9; %r2 <- 9;
     13: add.s32 %r8, %r3, %r4;                   %r3 <- 9; %r4 <- 9;
     14: add.s32 %r8, %r5, %r6;                   %r5 <- 10; %r6 <- 10;
     15: add.s32 %r8, %r7, %r8;                   %r7 <- 11; %r8 <- 14;
     16: setp.lt.s32 %p1|%p2, %r1, %r2;           %r1 <- 9; %r2 <- 9;
     17: selp.b32 %r8, %r1, %r2, %p2;             %r1 <- 9; %r2 <- 9; %p2 <- 16;
     18: mov.b32 %v.x, 5;                         %v <- entry;
     19: mov.b32 %v.y, 6;                         %v <- entry 18;
     20: mov.b64 %rd2, %v;                        %v <- entry 18 19;
    ");
}

#[test]
fn call_results_are_defs() {
    insta::assert_snapshot!(reaching(r#"
.func (.reg .b32 r) f(.reg .b32 a)
{
    add.s32 r, a, 1;
    ret;
}
.visible .entry k()
{
    .reg .b32 %r<4>;
    mov.u32 %r1, 3;
    mov.u32 %r2, 4;
    call.uni (%r2), f, (%r1);
    add.s32 %r3, %r2, %r1;
    ret;
}
"#), @r"
    f:
      3: add.s32 r, a, 1;                         a <- entry;
    k:
     11: call.uni (%r2), f, (%r1);                %r1 <- 9;
     12: add.s32 %r3, %r2, %r1;                   %r2 <- 11; %r1 <- 9;
    ");
}

#[test]
fn indirect_calls_read_the_pointer() {
    insta::assert_snapshot!(reaching(r#"
.visible .entry k()
{
    .reg .b64 %rd<3>;
    .reg .b32 %r<3>;
    prototype_0 : .callprototype ()_ (.param .b32 _);
    prototype_1 : .callprototype (.param .b32 _) _ (.param .b32 _);
    mov.u64 %rd1, f;
    mov.u32 %r1, 1;
    call %rd1, (%r1), prototype_0;
    call (%r2), %rd1, (%r1), prototype_1;
    add.s32 %r1, %r2, 1;
    ret;
}
"#), @r"
    k:
      9: call %rd1, (%r1), prototype_0;           %rd1 <- 7; %r1 <- 8;
     10: call (%r2), %rd1, (%r1), prototype_1;    %rd1 <- 7; %r1 <- 8;
     11: add.s32 %r1, %r2, 1;                     %r2 <- 10;
    ");
}

#[test]
fn unknown_instruction_may_read_and_write() {
    insta::assert_snapshot!(reaching(r#"
.visible .entry k()
{
    .reg .b32 %r<4>;
    mov.u32 %r1, 1;
    mov.u32 %r2, 2;
    foo.bar %r1, %r2;
    add.s32 %r3, %r1, %r2;
    ret;
}
"#), @r"
    k:
      6: foo.bar %r1, %r2;                        %r1 <- 4; %r2 <- 5;
      7: add.s32 %r3, %r1, %r2;                   %r1 <- 4 6; %r2 <- 5 6;
    ");
}

#[test]
fn brx_idx_and_early_exits() {
    insta::assert_snapshot!(reaching(r#"
.visible .entry k(.param .u32 p)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    ld.param.u32 %r1, [p];
    mov.u32 %r2, 0;
    setp.eq.s32 %p1, %r1, 9;
    @%p1 ret;
    mov.u32 %r2, 5;
    ts: .branchtargets $L1, $L2;
    brx.idx %r1, ts;
$L1:
    mov.u32 %r2, 1;
    exit;
    mov.u32 %r2, 8;
$L2:
    add.s32 %r3, %r2, 1;
    @%p1 exit;
    add.s32 %r3, %r2, %r3;
    ret;
    add.s32 %r3, %r3, %r1;
}
"#), @r"
    k:
      7: setp.eq.s32 %p1, %r1, 9;                 %r1 <- 5;
      8: @%p1 ret;                                %p1 <- 7;
     11: brx.idx %r1, ts;                         %r1 <- 5;
     17: add.s32 %r3, %r2, 1;                     %r2 <- 9;
     18: @%p1 exit;                               %p1 <- 7;
     19: add.s32 %r3, %r2, %r3;                   %r2 <- 9; %r3 <- 17;
     21: add.s32 %r3, %r3, %r1;                   %r3 <- entry; %r1 <- entry;
    ");
}

// ---------------------------------------------------------------- CFG

#[test]
fn cfg_shapes() {
    insta::assert_snapshot!(cfg_text(r#"
.visible .entry k(.param .u32 p)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    ld.param.u32 %r1, [p];
    setp.eq.s32 %p1, %r1, 9;
    @%p1 bra $L2;
    ts: .branchtargets $L1, $L2;
    brx.idx %r1, ts;
$L1:
$L1b:
    call.uni g, ();
    @%p1 trap;
    bra.uni $L1;
    exit;
$L2:
    @%p1 brx.idx %r1, ts;
    ret;
}
.func g()
{
    ret;
}
.func h()
{
}
"#), @r"
    k:
      entry -> block0 (entry)
      block0 [] lines 5-7 -> block1 (fall), block5 (branch) | idom entry
      block1 [] lines 9-9 -> block2 (branch), block5 (branch) | idom block0
      block2 [$L1 $L1b] lines 12-13 -> exit (exit), block3 (fall) | idom block0
      block3 [] lines 14-14 -> block2 (branch) | idom block2
      block4 [] lines 15-15 -> exit (exit) | idom - | unreachable
      block5 [$L2] lines 17-17 -> block2 (branch), block5 (branch), block6 (fall) | idom block0
      block6 [] lines 18-18 -> exit (exit) | idom block5
    g:
      entry -> block0 (entry)
      block0 [] lines 22-22 -> exit (exit) | idom entry
    h:
      entry -> block0 (entry)
      block0 [] empty -> exit (exit) | idom entry
    ");
}

/// A label naming a `.callprototype` or a `.calltargets` list names data:
/// a straight-line kernel that declares one is one block, and a label of
/// code after it still starts one.
#[test]
fn call_prototypes_and_targets_are_not_blocks() {
    insta::assert_snapshot!(cfg_text(r#"
.visible .entry k(.param .u64 p)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [p];
    mov.u32 %r1, 7;
    {
    .param .b32 param0;
    st.param.b32 [param0], %r1;
    .param .b32 retval0;
    proto: .callprototype (.param .b32 _) _ (.param .b32 _);
    call (retval0), %rd1, (param0), proto;
    ld.param.b32 %r2, [retval0];
    }
    targets: .calltargets g;
    call (retval0), %rd1, (param0), targets;
$L1:
    ret;
}
.func (.param .b32 r) g(.param .b32 a)
{
    ret;
}
"#), @r"
    k:
      entry -> block0 (entry)
      block0 [] lines 5-16 -> block1 (fall) | idom entry
      block1 [$L1] lines 18-18 -> exit (exit) | idom block0
    g:
      entry -> block0 (entry)
      block0 [] lines 22-22 -> exit (exit) | idom entry
    ");
}

#[test]
fn unresolvable_branch_table_goes_everywhere() {
    insta::assert_snapshot!(cfg_text(r#"
.visible .entry k(.param .u32 p)
{
    .reg .b32 %r<4>;
    ld.param.u32 %r1, [p];
    ts: .branchtargets $L1, $NOPE;
    brx.idx %r1, ts;
    mov.u32 %r2, 1;
$L1:
    ret;
$L2:
    ret;
}
"#), @r"
    k:
      entry -> block0 (entry)
      block0 [] lines 4-6 -> block2 (unresolved), block3 (unresolved) | idom entry
      block1 [] lines 7-7 -> block2 (fall) | idom - | unreachable
      block2 [$L1] lines 9-9 -> exit (exit) | idom block0
      block3 [$L2] lines 11-11 -> exit (exit) | idom block0
    ");
}

// ---------------------------------------------------------------- queries

fn analyze(src: &str) -> (Module, String, DefUse) {
    let (module, text) = parse(src);
    let func = module.functions.values().find(|f| f.has_body()).expect("a function with a body");
    let cfg = Cfg::build(func);
    let du = DefUse::build(func, &cfg, &DomTree::build(&cfg));
    (module.clone(), text, du)
}

/// The instruction on snippet line `line`.
fn inst_at(module: &Module, text: &str, line: usize) -> InstId {
    let func = module.functions.values().find(|f| f.has_body()).unwrap();
    func.inst_ids().find(|&i| line_of(text, func, i) == line).unwrap_or_else(|| panic!("no instruction on line {line}"))
}

fn reg(module: &Module, name: &str) -> RegId {
    let func = module.functions.values().find(|f| f.has_body()).unwrap();
    func.regs.keys().find(|&r| func.reg_name(r) == name).unwrap_or_else(|| panic!("no register {name}"))
}

const CONSTANTS: &str = r#"
.visible .entry k(.param .u32 p)
{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b16 %rs<2>;
    ld.param.u32 %r1, [p];
    setp.eq.s32 %p1, %r1, 0;
    mov.u32 %r2, 5;
    @%p1 mov.u32 %r2, 5;
    @%p1 mov.u32 %r3, 5;
    mov.b32 %r4, -1;
    @%p1 bra $ELSE;
    mov.u32 %r5, 0xffffffff;
    mov.u16 %rs1, 7;
    bra.uni $JOIN;
$ELSE:
    mov.u32 %r5, 4294967295;
    mov.u16 %rs1, 8;
$JOIN:
    add.s32 %r6, %r2, %r3;
    add.s32 %r6, %r4, %r5;
    cvt.u32.u16 %r7, %rs1;
    add.s32 %r6, %r1, %r7;
    {
        .reg .f32 %f1;
        mov.f32 %f1, 0;
        add.f32 %f1, %f1, 0f3F800000;
    }
    ret;
}
"#;

#[test]
fn known_constants() {
    let (m, text, du) = analyze(CONSTANTS);
    let at = |line| inst_at(&m, &text, line);
    // Unguarded mov 5 and guarded mov 5: both reach, same value.
    assert_eq!(du.known_constant(at(20), reg(&m, "%r2")), Some(5));
    // Only a guarded mov: ENTRY reaches as well.
    assert_eq!(du.known_constant(at(20), reg(&m, "%r3")), None);
    // -1 as .b32 is the 32-bit pattern; joins of equal values are constant.
    assert_eq!(du.known_constant(at(21), reg(&m, "%r4")), Some(0xffff_ffff));
    assert_eq!(du.known_constant(at(21), reg(&m, "%r5")), Some(0xffff_ffff));
    // A join of different values, and a loaded value, are not.
    assert_eq!(du.known_constant(at(22), reg(&m, "%rs1")), None);
    assert_eq!(du.known_constant(at(23), reg(&m, "%r1")), None);
    // A register the instruction does not read is answered too.
    assert_eq!(du.known_constant(at(23), reg(&m, "%r2")), Some(5));
    // Before its definitions, a register is unknown.
    assert_eq!(du.known_constant(at(8), reg(&m, "%r2")), None);
    // An integer literal moved into a float register is not its bits.
    assert_eq!(du.known_constant(at(27), reg(&m, "%f1")), None);
}

#[test]
fn uses_and_dead_defs() {
    let (m, text, du) = analyze(CONSTANTS);
    let func = m.functions.values().find(|f| f.has_body()).unwrap();
    let at = |line| inst_at(&m, &text, line);
    let r6 = reg(&m, "%r6");
    let show = |d: DefSite| -> String {
        let uses: Vec<String> = du
            .uses_of(d)
            .iter()
            .map(|u| format!("{}:{}", line_of(&text, func, u.inst), func.reg_name(u.reg)))
            .collect();
        uses.join(" ")
    };
    assert_eq!(show(DefSite::Inst(at(8), reg(&m, "%r2"))), "20:%r2");
    assert_eq!(show(DefSite::Inst(at(7), reg(&m, "%p1"))), "9:%p1 10:%p1 12:%p1");
    assert_eq!(show(DefSite::Entry(reg(&m, "%r3"))), "20:%r3");
    // The guard is a use of its own.
    let guard_uses: Vec<UsePos> = du.uses_of_inst(at(9)).iter().map(|u| u.pos).collect();
    assert_eq!(guard_uses, [UsePos::Guard]);
    let add_uses: Vec<UsePos> = du.uses_of_inst(at(20)).iter().map(|u| u.pos).collect();
    assert_eq!(add_uses, [UsePos::Operand(1), UsePos::Operand(2)]);
    assert!(du.is_dead(DefSite::Inst(at(20), r6)));
    assert!(du.is_dead(DefSite::Entry(r6)));
    assert!(!du.is_dead(DefSite::Inst(at(6), reg(&m, "%r1"))));
    // A site that is not a definition has no uses.
    assert!(du.is_dead(DefSite::Inst(at(20), reg(&m, "%r2"))));
}

#[test]
fn value_unchanged_between() {
    let (m, text, du) = analyze(
        r#"
.visible .entry k(.param .u32 p)
{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    ld.param.u32 %r1, [p];
    mov.u32 %r2, %r1;
    setp.eq.s32 %p1, %r1, 0;
    @%p1 bra $SKIP;
    add.s32 %r3, %r2, 1;
$SKIP:
    add.s32 %r4, %r2, 2;
    @%p1 mov.u32 %r1, 3;
    add.s32 %r5, %r2, %r1;
$LOOP:
    add.s32 %r6, %r2, %r1;
    @%p1 mov.u32 %r7, 1;
    add.s32 %r6, %r6, %r7;
    @%p1 bra $LOOP;
    ret;
}
"#,
    );
    let at = |line| inst_at(&m, &text, line);
    let (r1, r7) = (reg(&m, "%r1"), reg(&m, "%r7"));
    // %r1 copied on line 6: unchanged at line 9 and 11 (no def on the way).
    assert!(du.value_unchanged_between(r1, at(6), at(9)));
    assert!(du.value_unchanged_between(r1, at(6), at(11)));
    // A guarded def on line 12 intervenes before line 13 and the loop.
    assert!(du.value_unchanged_between(r1, at(6), at(12)));
    assert!(!du.value_unchanged_between(r1, at(6), at(13)));
    assert!(!du.value_unchanged_between(r1, at(6), at(15)));
    // Line 9 does not dominate line 11.
    assert!(!du.value_unchanged_between(r1, at(9), at(11)));
    // `from` itself may define the register; `to` may too.
    assert!(du.value_unchanged_between(r1, at(5), at(7)));
    assert!(du.value_unchanged_between(r1, at(12), at(15)));
    // Inside the loop: %r7 is defined on line 16, between 15 and 17 ...
    assert!(!du.value_unchanged_between(r7, at(15), at(17)));
    // ... and, around the back edge, between 17 and 15 of the next round,
    // but 17 does not dominate 15 anyway; 16 -> 17 is fine.
    assert!(!du.value_unchanged_between(r7, at(17), at(15)));
    assert!(du.value_unchanged_between(r7, at(16), at(17)));
    // A def inside the loop reaching back to the header: 15 -> 17 for %r6.
    assert!(!du.value_unchanged_between(reg(&m, "%r6"), at(15), at(18)));
    assert!(!du.value_unchanged_between(r1, at(15), at(15)));
}

// ---------------------------------------------------------------- cache

#[test]
fn cache_invalidation() {
    let (mut m, text) = parse(CONSTANTS);
    let func_id = m.functions.keys().next().unwrap();
    let mut cache = FunctionAnalyses::new();
    assert_eq!(cache.cached(), (false, false, false));
    let r2 = {
        let func = &m.functions[func_id];
        func.regs.keys().find(|&r| func.reg_name(r) == "%r2").unwrap()
    };
    let add = {
        let func = &m.functions[func_id];
        func.inst_ids().find(|&i| line_of(&text, func, i) == 20).unwrap()
    };
    assert_eq!(cache.def_use(&m.functions[func_id]).known_constant(add, r2), Some(5));
    assert_eq!(cache.cached(), (true, true, true));
    cache.invalidate(Keep::All);
    assert_eq!(cache.cached(), (true, true, true));

    // Change the unguarded `mov.u32 %r2, 5` to 6: the CFG's shape is kept.
    let func = &mut m.functions[func_id];
    let mov = func.inst_ids().find(|&i| line_of(&text, func, i) == 8).unwrap();
    func.insts[mov].operands[1] = Operand::Int(ptx_ir::IntImm::new(6));
    func.mark_changed();
    cache.invalidate(Keep::Cfg);
    assert_eq!(cache.cached(), (false, false, false));
    assert_eq!(cache.def_use(func).known_constant(add, r2), None);
    assert_eq!(cache.cached(), (true, true, true));

    // Remove the branch: the shape changes; a stale dominator tree must not
    // be reused even if the pass claims the CFG was kept.
    let bra = func.inst_ids().find(|&i| line_of(&text, func, i) == 12).unwrap();
    func.body_mut().unwrap().retain(|s| *s != ptx_ir::Stmt::Inst(bra));
    cache.invalidate(Keep::Cfg);
    let cfg = cache.cfg(func);
    let dom = cache.dominators(func);
    let fresh = DomTree::build(cfg);
    for n in cfg.graph().node_indices() {
        assert_eq!(dom.idom(n), fresh.idom(n));
    }
    cache.invalidate(Keep::Nothing);
    assert_eq!(cache.cached(), (false, false, false));
}

// ---------------------------------------------------------------- DOT

const SMALL: &str = r#"
.visible .entry k(.param .u32 p)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    ld.param.u32 %r1, [p];
    setp.eq.s32 %p1, %r1, 0;
$L:
    @%p1 add.s32 %r1, %r1, 1;
    @%p1 bra $L;
    ret;
}
"#;

#[test]
fn dot_output() {
    let (m, _) = parse(SMALL);
    let func = m.functions.values().next().unwrap();
    insta::assert_snapshot!(cfg_dot(func), @r#"
    digraph {
        0 [ label = "entry" ]
        1 [ label = "exit" ]
        2 [ label = "block0\l  ld.param.u32 %r1, [p];\l  setp.eq.s32 %p1, %r1, 0;\l" ]
        3 [ label = "block1\l$L:\l  @%p1 add.s32 %r1, %r1, 1;\l  @%p1 bra $L;\l" ]
        4 [ label = "block2\l  ret;\l" ]
        0 -> 2 [ label = "entry" ]
        2 -> 3 [ label = "fall" ]
        3 -> 3 [ label = "branch" ]
        3 -> 4 [ label = "fall" ]
        4 -> 1 [ label = "exit" ]
    }
    "#);
    insta::assert_snapshot!(defuse_dot(func), @r#"
    digraph {
        0 [ label = "%r1 @ ld.param.u32 %r1, [p];" ]
        1 [ label = "%p1 @ setp.eq.s32 %p1, %r1, 0;" ]
        2 [ label = "%r1 @ @%p1 add.s32 %r1, %r1, 1;" ]
        3 [ label = "use %r1 @ setp.eq.s32 %p1, %r1, 0; (op 1)" ]
        4 [ label = "use %p1 @ @%p1 add.s32 %r1, %r1, 1; (guard)" ]
        5 [ label = "use %r1 @ @%p1 add.s32 %r1, %r1, 1; (op 1)" ]
        6 [ label = "use %p1 @ @%p1 bra $L; (guard)" ]
        0 -> 3 [ ]
        1 -> 4 [ ]
        0 -> 5 [ ]
        2 -> 5 [ ]
        1 -> 6 [ ]
    }
    "#);
}

// ---------------------------------------------------------------- corpus

fn corpus_files() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/public");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
        .collect();
    files.sort();
    files
}

/// Reaching definitions computed the obvious way: a set of definition sites
/// per instruction (a plain bit vector over every site, no pruning), iterated
/// over an instruction-level graph until nothing changes. Uses the CFG for
/// successors and the def-use analysis only for which sites an instruction
/// defines and whether they kill.
struct Naive {
    /// The instructions, in block order.
    insts: Vec<InstId>,
    sites: Vec<DefSite>,
    /// Per register: its sites (indices into `sites`).
    of_reg: BTreeMap<RegId, Vec<usize>>,
    /// Per instruction: the sites reaching the point just before it.
    input: Vec<Vec<u64>>,
}

impl Naive {
    /// The definitions of `reg` reaching the point just before instruction
    /// number `n`.
    fn at(&self, n: usize, reg: RegId) -> BTreeSet<DefSite> {
        let Some(sites) = self.of_reg.get(&reg) else {
            return BTreeSet::new();
        };
        sites.iter().filter(|&&k| self.input[n][k / 64] >> (k % 64) & 1 == 1).map(|&k| self.sites[k]).collect()
    }
}

fn naive_solve(cfg: &Cfg, du: &DefUse) -> Naive {
    let insts: Vec<InstId> = cfg.blocks().flat_map(|(_, d)| d.insts.iter().copied()).collect();
    let index: BTreeMap<InstId, usize> = insts.iter().enumerate().map(|(n, &i)| (i, n)).collect();
    let sites: Vec<DefSite> = du.def_sites().collect();
    let site_index: BTreeMap<DefSite, usize> = sites.iter().enumerate().map(|(n, &d)| (d, n)).collect();
    let mut of_reg: BTreeMap<RegId, Vec<usize>> = BTreeMap::new();
    for (n, d) in sites.iter().enumerate() {
        of_reg.entry(d.reg()).or_default().push(n);
    }
    // The instructions where a block's execution starts (through empty blocks).
    let block_entry = |b: ptx_analysis::Block| -> Vec<usize> {
        let (mut out, mut stack, mut seen) = (Vec::new(), vec![b], BTreeSet::new());
        while let Some(b) = stack.pop() {
            if !seen.insert(b) {
                continue;
            }
            match cfg.block(b).insts.first() {
                Some(i) => out.push(index[i]),
                None => stack.extend(cfg.successors(b).filter_map(|(s, _)| match s {
                    CfgNode::Block(s) => Some(s),
                    _ => None,
                })),
            }
        }
        out
    };
    let mut succs: Vec<Vec<usize>> = vec![Vec::new(); insts.len()];
    for (b, d) in cfg.blocks() {
        for (k, i) in d.insts.iter().enumerate() {
            let n = index[i];
            if k + 1 < d.insts.len() {
                succs[n].push(n + 1);
                continue;
            }
            for (s, _) in cfg.successors(b) {
                // Dead code does not flow into live code.
                if let CfgNode::Block(s) = s {
                    if cfg.is_reachable(b) || !cfg.is_reachable(s) {
                        succs[n].extend(block_entry(s));
                    }
                }
            }
        }
    }
    let words = sites.len().div_ceil(64);
    let mut entry = vec![0u64; words];
    for (n, d) in sites.iter().enumerate() {
        if let DefSite::Entry(_) = d {
            entry[n / 64] |= 1 << (n % 64);
        }
    }
    let mut input = vec![vec![0u64; words]; insts.len()];
    // Seeds: where the first block starts, and the first instruction of every
    // unreachable block (treated as reachable from an unknown state).
    if let Some((b, _)) = cfg.blocks().next() {
        for n in block_entry(b) {
            input[n] = entry.clone();
        }
    }
    for (b, d) in cfg.blocks() {
        if let (false, Some(i)) = (cfg.is_reachable(b), d.insts.first()) {
            input[index[i]] = entry.clone();
        }
    }
    let mut changed = true;
    while changed {
        changed = false;
        for n in 0..insts.len() {
            let mut out = input[n].clone();
            for d in du.defs_of_inst(insts[n]) {
                if du.kills(d) {
                    for &k in &of_reg[&d.reg()] {
                        out[k / 64] &= !(1 << (k % 64));
                    }
                }
                let k = site_index[&d];
                out[k / 64] |= 1 << (k % 64);
            }
            for &s in &succs[n] {
                for (w, o) in input[s].iter_mut().zip(&out) {
                    changed |= *w | o != *w;
                    *w |= o;
                }
            }
        }
    }
    Naive { insts, sites, of_reg, input }
}

/// Checks [`DefUse::reaching_defs`] at points that do not read the register
/// (answered from the per-register definition index, not from the resolved
/// uses) against the naive solver: at every instruction, for the registers
/// it and its neighbours in the block define or read (just before, at and
/// just after a definition), and at the last instruction of each block for
/// every register the block defines or reads. Returns the number of queries.
fn check_queries_between_uses(cfg: &Cfg, du: &DefUse, naive: &Naive, what: &str) -> usize {
    let regs_of = |i: InstId, regs: &mut BTreeSet<RegId>| {
        regs.extend(du.defs_of_inst(i).map(|d| d.reg()));
        regs.extend(du.uses_of_inst(i).iter().map(|u| u.reg));
    };
    let mut checked = 0;
    let mut check = |n: usize, i: InstId, r: RegId| {
        let fast: Vec<DefSite> = du.reaching_defs(i, r).into_owned();
        assert!(fast.windows(2).all(|w| w[0] < w[1]), "{what}: not sorted: {fast:?}");
        assert_eq!(fast.into_iter().collect::<BTreeSet<_>>(), naive.at(n, r), "{what}: {i:?} {r:?}");
        checked += 1;
    };
    let mut n = 0;
    for (_, data) in cfg.blocks() {
        let mut all = BTreeSet::new();
        for (k, &i) in data.insts.iter().enumerate() {
            assert_eq!(naive.insts[n + k], i);
            let mut near = BTreeSet::new();
            for &j in &data.insts[k.saturating_sub(1)..(k + 2).min(data.insts.len())] {
                regs_of(j, &mut near);
            }
            for &r in &near {
                check(n + k, i, r);
            }
            all.extend(near);
        }
        if let Some(&last) = data.insts.last() {
            for &r in &all {
                check(n + data.insts.len() - 1, last, r);
            }
        }
        n += data.insts.len();
    }
    checked
}

#[test]
fn corpus_all_analyses() {
    let files = corpus_files();
    assert!(files.len() >= 200, "corpus not found: {} files", files.len());
    let (mut functions, mut uses, mut edges, mut compared, mut constants) = (0usize, 0usize, 0usize, 0usize, 0usize);
    let mut queries = 0usize;
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let module = ptx_parse::parse(&text).unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
        for func in module.functions.values().filter(|f| f.has_body()) {
            functions += 1;
            let cache = FunctionAnalyses::new();
            let cfg = cache.cfg(func);
            let du = cache.def_use(func);
            for u in du.use_sites() {
                uses += 1;
                let defs = du.reaching_defs_of_use(u);
                assert!(!defs.is_empty(), "{} {}: use without reaching def", path.display(), func.name);
                assert!(defs.iter().all(|d| d.reg() == u.reg));
                assert_eq!(&*du.reaching_defs(u.inst, u.reg), defs);
                for &d in defs {
                    edges += 1;
                    assert!(du.uses_of(d).contains(u));
                }
                if du.known_constant(u.inst, u.reg).is_some() {
                    constants += 1;
                }
            }
            // The block-level algorithm agrees with the naive solver on
            // functions small enough for it.
            if func.insts.len() <= 3000 {
                compared += 1;
                let naive = naive_solve(cfg, du);
                for (n, &inst) in naive.insts.iter().enumerate() {
                    for u in du.uses_of_inst(inst) {
                        let fast: BTreeSet<DefSite> = du.reaching_defs_of_use(u).iter().copied().collect();
                        assert_eq!(
                            fast,
                            naive.at(n, u.reg),
                            "{} {}: {}",
                            path.display(),
                            func.name,
                            inst_to_string(func, &func.insts[inst])
                        );
                    }
                }
                queries += check_queries_between_uses(cfg, du, &naive, &format!("{} {}", path.display(), func.name));
            }
            let dom = cache.dominators(func);
            for (b, _) in cfg.blocks() {
                if cfg.is_reachable(b) {
                    assert!(dom.dominates(cfg.entry(), cfg.node(b)));
                }
            }
            assert!(cfg.graph().edges(cfg.entry()).all(|e| *e.weight() == EdgeKind::Entry));
        }
    }
    // Figures, so a change in coverage shows up in the test output.
    eprintln!("{functions} functions, {uses} uses, {edges} def-use edges, {compared} checked against the naive solver ({queries} queries between uses), {constants} known constants");
    assert!(functions > 1000 && compared > 500 && constants > 0);
}

#[test]
fn corpus_dot_is_deterministic() {
    // DOT of a mid-sized corpus function twice: same text; labels escaped.
    let path = corpus_files().into_iter().find(|p| p.to_string_lossy().contains("llc-19")).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let module = ptx_parse::parse(&text).unwrap();
    let func = module.functions.values().filter(|f| f.has_body()).max_by_key(|f| f.insts.len()).unwrap();
    let a = cfg_dot(func);
    assert_eq!(a, cfg_dot(func));
    assert!(a.starts_with("digraph {") && a.contains("-> "));
    let b = defuse_dot(func);
    assert_eq!(b, defuse_dot(func));
}

/// Regression (robustness, issue 9): registers that no instruction writes
/// take no bit-vector column. Before, every declared register had an ENTRY
/// column in every block, so a one-line `.reg .b32 %a<1048576>, ...` and a
/// few thousand branches made the dataflow matrices gigabytes large.
#[test]
fn unwritten_registers_take_no_columns() {
    let mut body = String::from("\t.reg .b32 %big<1000000>;\n\t.reg .b32 %r<3>;\n\t.reg .pred %p<2>;\n");
    body.push_str("\tmov.u32 %r1, %big7;\n");
    for i in 0..50 {
        body.push_str(&format!(
            "\tsetp.eq.u32 %p1, %r1, {i};\n\t@%p1 bra L{i};\n\tadd.u32 %r1, %r1, %big{i};\nL{i}:\n"
        ));
    }
    let (module, _) = parse(&format!(".visible .entry k()\n{{\n{body}\tret;\n}}\n"));
    let func = module.functions.values().next().expect("one function");
    let cfg = Cfg::build(func);
    let du = DefUse::build(func, &cfg, &DomTree::build(&cfg));
    assert!(du.num_columns() < 200, "{} columns for a handful of written registers", du.num_columns());
    // The unwritten registers still read their function-entry value.
    let add = func.inst_ids().find(|&i| inst_to_string(func, &func.insts[i]).starts_with("add.u32")).expect("an add");
    let big3 = RegId::from_u32(3);
    assert_eq!(func.reg_name(big3), "%big3");
    assert_eq!(du.reaching_defs(add, big3).as_ref(), &[DefSite::Entry(big3)]);
    let read = du.uses_of_inst(add).iter().find(|u| func.reg_name(u.reg) == "%big0").expect("add reads %big0");
    assert_eq!(du.reaching_defs_of_use(read), &[DefSite::Entry(read.reg)]);
}

// ---------------------------------------------------------------- value queries

/// Every trap of the value queries in one kernel; line numbers are the
/// snippet's (1 = `.visible .entry`).
const TRAPS: &str = r#"
.visible .entry k(.param .u64 p)
{
    .reg .pred %p<3>;
    .reg .b32 %r<20>;
    .reg .v2 .b32 %v;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [p];
    ld.global.u32 %r1, [%rd1];
    setp.eq.s32 %p1, %r1, 0;
    add.s32 %r2, %r1, 1;
    @%p1 add.s32 %r3, %r1, 2;
    mov.b32 %r4, 0x3210;
    @%p1 bra $ELSE;
    add.s32 %r5, %r1, 1;
    bra.uni $JOIN;
$ELSE:
    mov.b32 %r5, 2;
$JOIN:
    mov.b32 %r6, 0;
$LOOP:
    add.s32 %r7, %r6, %r2;
    add.s32 %r8, %r2, %r3;
    add.s32 %r6, %r6, 1;
    setp.lt.s32 %p2, %r6, 4;
    @%p2 bra $LOOP;
    mov.b32 %r9, %r1;
    mov.b32 %r1, 7;
    add.s32 %r10, %r9, %r2;
    mov.b64 {%r11, %r12}, %rd1;
    mov.b32 %v.x, %r2;
    vabsdiff.s32.s32.s32.sat %r13.h0, %r1.b0, %r2.b2, %r13;
    prmt.b32 %r14, %r2, %r4, %r4;
    @%p1 mov.b32 %r15, 5;
    mov.b32 %r16, 5;
    @%p1 mov.b32 %r16, 5;
    add.s32 %r17, %r14, %r11;
    add.s32 %r17, %r13, %r16;
    add.s32 %r17, %r15, %r5;
    mov.b32 %r18, %v;
    ret;
}
"#;

#[test]
fn value_queries_sole_def_and_producer() {
    let (m, text, du) = analyze(TRAPS);
    let func = m.functions.values().find(|f| f.has_body()).unwrap();
    let values = ptx_analysis::Values::new(func, &du);
    let at = |line| inst_at(&m, &text, line);
    let r = |name| reg(&m, name);
    // An unguarded whole write reaching alone: the sole definition.
    assert_eq!(values.sole_def(at(21), r("%r2")), Some(at(10)));
    assert_eq!(values.producer(at(21), r("%r2")), Some(at(10)));
    // Guarded definition: the entry value may reach too.
    assert_eq!(values.sole_def(at(22), r("%r3")), None);
    // Definitions from two branches.
    assert_eq!(values.sole_def(at(39), r("%r5")), None);
    // Loop-carried: the init and the increment both reach the loop body.
    assert_eq!(values.sole_def(at(21), r("%r6")), None);
    // ... but right after the increment, it alone reaches.
    assert_eq!(values.sole_def(at(24), r("%r6")), Some(at(23)));
    // A whole write that is not the instruction's result (vector element).
    assert_eq!(values.sole_def(at(37), r("%r11")), Some(at(29)));
    assert_eq!(values.producer(at(37), r("%r11")), None);
    // Partial writes: a vector component, a byte/half selector.
    assert_eq!(values.sole_def(at(40), r("%v")), None);
    assert_eq!(values.sole_def(at(38), r("%r13")), None);
    // A guarded redefinition after an unguarded one.
    assert_eq!(values.sole_def(at(38), r("%r16")), None);
    // The typed view of the producer.
    let (def, prmt) = values.producer_as(at(37), &ptx_ir::Operand::Reg(r("%r14")), ptx_ir::Inst::as_prmt).unwrap();
    assert_eq!(def, at(32));
    assert_eq!(prmt.a, &ptx_ir::Operand::Reg(r("%r2")));
    assert!(values.producer_as(at(37), &ptx_ir::Operand::Reg(r("%r14")), ptx_ir::Inst::as_cvt).is_none());
}

#[test]
fn value_queries_forwarding() {
    let (m, text, du) = analyze(TRAPS);
    let func = m.functions.values().find(|f| f.has_body()).unwrap();
    let values = ptx_analysis::Values::new(func, &du);
    let at = |line| inst_at(&m, &text, line);
    // %r9 = %r1 (line 26); %r1 redefined on line 27, before the use on 28.
    assert!(!values.forwardable(at(26), at(28)));
    assert!(values.forwardable(at(26), at(27)));
    // add %r2 = %r1 + 1 (line 10) into the loop, where %r1 is unchanged.
    assert!(values.forwardable(at(10), at(22)));
    // Not past the redefinition of %r1 on line 27.
    assert!(!values.forwardable(at(10), at(28)));
    // Sources that are loop-carried: %r7 = %r6 + %r2 read again after the
    // loop, where %r6 has been incremented.
    assert!(!values.forwardable(at(21), at(26)));
    // A guarded definition is not forwarded.
    assert!(!values.forwardable(at(11), at(22)));
    // A definition that overwrites its own source cannot be redone later.
    assert!(!values.forwardable(at(23), at(24)));
    // Only the listed operands: the prmt's a and b, not its selector.
    let prmt = &func.insts[at(32)];
    assert!(values.operands_unchanged(at(32), at(37), &[&prmt.operands[1], &prmt.operands[2]]));
    // An address is never "unchanged" as an operand value.
    let ld = &func.insts[at(8)];
    assert!(!values.operands_unchanged(at(8), at(9), &[&ld.operands[1]]));
    // Does not dominate: a definition in one branch, a use after the join.
    assert!(values.forwardable(at(14), at(15)));
    assert!(!values.forwardable(at(14), at(39)));
}

#[test]
fn value_queries_known_values() {
    let (m, text, du) = analyze(TRAPS);
    let func = m.functions.values().find(|f| f.has_body()).unwrap();
    let values = ptx_analysis::Values::new(func, &du);
    let at = |line| inst_at(&m, &text, line);
    let r = |name| reg(&m, name);
    let reg_op = |name| ptx_ir::Operand::Reg(r(name));
    assert_eq!(values.known_value(at(32), &reg_op("%r4")), Some(0x3210));
    assert_eq!(values.known_value(at(32), &ptx_ir::Operand::imm(7)), Some(7));
    // Read at a type's width: -1 as a 16-bit operand.
    let minus_one = ptx_ir::Operand::imm(u64::MAX);
    assert_eq!(values.known_value_as(at(32), &minus_one, ptx_ir::ScalarType::U16), Some(0xffff));
    assert_eq!(values.known_value_as(at(32), &minus_one, ptx_ir::ScalarType::B64), Some(u64::MAX));
    // A guarded mov alone (entry value on the other path).
    assert_eq!(values.known_value(at(39), &reg_op("%r15")), None);
    // Unguarded mov 5 and guarded mov 5: the same value, but a guarded
    // definition makes it unknown (the rule passes rely on).
    assert_eq!(values.known_value(at(38), &reg_op("%r16")), None);
    // Different values from two branches.
    assert_eq!(values.known_value(at(39), &reg_op("%r5")), None);
    // Loop-carried: 0 on entry, then incremented.
    assert_eq!(values.known_value(at(21), &reg_op("%r6")), None);
    // A loaded value, a partially written register.
    assert_eq!(values.known_value(at(9), &reg_op("%r1")), None);
    assert_eq!(values.known_value(at(38), &reg_op("%r13")), None);
    // Redefined in between: the constant 7 after line 27.
    assert_eq!(values.known_value(at(31), &reg_op("%r1")), Some(7));
    // Dead-code candidates: what may have written the value read.
    assert_eq!(values.defs_reaching(at(39), r("%r5")), [at(14), at(17)]);
    assert_eq!(values.feeding(at(32)), [at(10), at(12), at(12)]);
}
