//! The rewriter: guards and spans carried over, dead-code removal's rule
//! (pure candidates only, `.reg` return parameters read by the caller,
//! partial writes kept), and rollback to an untouched function.

use ptx_ir::{Inst, InstId, Module, Operand, ScalarType, Span};
use ptx_pass::{Counter, FunctionAnalyses, FunctionContext, ModuleInfo, Rewriter};

const COUNTED: Counter = Counter::new("counted", "something counted");

/// Runs `edit` with a rewriter over the first function with a body of
/// `src`; returns the printed module and the counters.
fn rewrite(src: &str, edit: impl FnOnce(&mut Rewriter, &[InstId])) -> (String, Vec<(Counter, u64)>, bool) {
    let mut module: Module = ptx_parse::parse(src).expect("test input parses");
    let info = ModuleInfo::of(&module);
    let func = module.functions.values_mut().find(|f| f.has_body()).expect("a function with a body");
    let ids: Vec<InstId> = func.inst_ids().collect();
    let mut analyses = FunctionAnalyses::new();
    let name = func.name.clone();
    let mut cx = FunctionContext::new(&info, &mut analyses, "test", &name);
    let mut rw = Rewriter::new(func, &mut cx);
    edit(&mut rw, &ids);
    let changed = rw.finish();
    let (counters, _) = cx.finish();
    (ptx_ir::print::print_module(&module), counters.into_iter().collect(), changed)
}

const RETURNS: &str = "\
.version 8.0
.target sm_80
.address_size 64
.func (.reg .b32 %ret) f(.reg .b32 %a)
{
	.reg .b32 %t<3>;
	.reg .v2 .b32 %v;
	mov.b32 %t1, 5;
	mov.b32 %ret, %a;
	mov.b32 %v.x, %a;
	add.s32 %t2, %t1, 1;
	frobnicate.b32 %t0, %a;
	ret;
}
";

#[test]
fn dead_code_rule() {
    let (out, _, changed) = rewrite(RETURNS, |rw, ids| {
        // Candidates: every instruction. %t2 is unread, so its add goes,
        // and then %t1 is unread too; %ret is read by the caller; the
        // partial write of %v reads the rest of %v; an unknown opcode may
        // do anything; ret is not pure.
        assert_eq!(rw.erase_dead(ids.iter().copied()), 2);
    });
    assert!(changed);
    assert!(out.contains("mov.b32 %ret, %a;"), "{out}");
    assert!(out.contains("mov.b32 %v.x, %a;"), "{out}");
    assert!(!out.contains("%t1, 5") && !out.contains("add.s32"), "{out}");
    assert!(out.contains("frobnicate.b32 %t0, %a;"), "{out}");
    assert!(out.contains("ret;"), "{out}");
}

#[test]
fn only_candidates_are_erased() {
    let (out, _, changed) = rewrite(RETURNS, |rw, ids| {
        // The add alone: %t1 is then unread, but its mov is no candidate.
        assert_eq!(rw.erase_dead([ids[3]]), 1);
    });
    assert!(changed);
    assert!(out.contains("mov.b32 %t1, 5;") && !out.contains("add.s32"), "{out}");
}

const GUARDED: &str = "\
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p)
{
	.reg .pred %p1;
	.reg .b32 %r<4>;
	.reg .b64 %rd1;
	ld.param.u64 %rd1, [p];
	ld.global.u32 %r1, [%rd1];
	setp.eq.s32 %p1, %r1, 0;
	@%p1 add.s32 %r2, %r1, 1;
	st.global.u32 [%rd1], %r2;
	ret;
}
";

#[test]
fn new_instructions_take_the_guard_and_span() {
    let (out, _, _) = rewrite(GUARDED, |rw, ids| {
        let add = ids[3];
        let span = rw.inst(add).span;
        let t = rw.temp(ScalarType::B32);
        let before = rw.insert_before(add, Inst::mov(ScalarType::B32, t, Operand::imm(7)));
        let after = rw.insert_after(add, Inst::mov(ScalarType::B32, Operand::Reg(t), t));
        rw.replace(add, Inst::mov(ScalarType::B32, rw.inst(add).operands[0].clone(), t));
        for id in [before, after, add] {
            assert_eq!(rw.inst(id).span, span);
            assert_eq!(rw.inst(id).guard, rw.inst(add).guard);
            assert!(rw.inst(id).guard.is_some());
        }
        assert_ne!(span, Span::default());
    });
    assert!(out.contains("\t.reg .b32 %ptxopt_tmp_b32_0;\n"), "{out}");
    assert!(out.contains("@%p1 mov.b32 %ptxopt_tmp_b32_0, 0x7;\n\t@%p1 mov.b32 %r2, %ptxopt_tmp_b32_0;\n\t@%p1 mov.b32 %ptxopt_tmp_b32_0, %ptxopt_tmp_b32_0;"), "{out}");
}

#[test]
fn effects_are_never_erased() {
    let (out, _, changed) = rewrite(GUARDED, |rw, ids| {
        // The load's result is read; the store and ret have effects.
        assert_eq!(rw.erase_dead(ids.iter().copied()), 0);
    });
    assert!(!changed);
    assert_eq!(out, GUARDED);
}

#[test]
fn rollback_leaves_the_function_untouched() {
    let (out, counters, changed) = rewrite(GUARDED, |rw, ids| {
        rw.count(COUNTED, 1);
        let start = rw.checkpoint();
        let t = rw.temp(ScalarType::B16);
        rw.insert_before(ids[4], Inst::mov(ScalarType::B16, t, Operand::imm(1)));
        rw.replace(ids[3], Inst::mov(ScalarType::B32, Operand::Reg(t), t));
        rw.modify(ids[1], |inst| inst.operands.clear());
        rw.erase(ids[2]);
        rw.count(COUNTED, 5);
        rw.remark(Span::default(), "gone");
        assert_eq!(rw.growth_since(&start), 0);
        rw.rollback(start);
        assert_eq!(rw.inst_count(), ids.len());
    });
    assert!(!changed);
    // Byte for byte: the function still counts as unchanged.
    assert_eq!(out, GUARDED);
    assert_eq!(counters, [(COUNTED, 1)]);
}

const BLOCKS: &str = "\
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p)
{
\t.reg .pred %p<2>;
\t.reg .b32 %r<4>;
\t.reg .b64 %rd<3>;
\tld.param.u64 %rd1, [p];
\tmov.u32 %r1, %tid.x;
\tsetp.eq.u32 %p1, %r1, 0;
\t@%p1 bra $L_skip;
\t@%p1 add.s32 %r2, %r1, 1;
$L_skip:
\t@!%p1 mov.u32 %r3, 2;
\tbra.uni $L_end;
$L_end:
}
";

/// Block edits: at the start of each block (after its labels, unguarded
/// although the block's first instruction may be guarded, also in the
/// block a label right before `}` makes, which has no instruction) and at
/// its end (before the instruction that ends it, guarded or not; after the
/// last one otherwise). `insert_before_guarded` chooses the guard.
#[test]
fn block_starts_and_ends() {
    let (out, _, changed) = rewrite(BLOCKS, |rw, ids| {
        let cfg = ptx_analysis::Cfg::build(rw.func());
        let blocks: Vec<ptx_analysis::BlockData> = cfg.blocks().map(|(_, b)| b.clone()).collect();
        assert_eq!(blocks.len(), 4);
        let r3 = rw.inst(ids[5]).operands[0].clone();
        let mark = |n: u64| Inst::mov(ScalarType::U32, r3.clone(), Operand::imm(n)).build();
        for (i, block) in blocks.iter().enumerate() {
            rw.insert_at_block_end(block, mark(200 + i as u64));
            rw.insert_at_block_start(block, mark(100 + i as u64));
        }
        // Before the guarded add: under its guard, without one, with its own.
        rw.insert_before_guarded(ids[4], mark(1), ptx_pass::GuardChoice::Anchor);
        rw.insert_before_guarded(ids[4], mark(2), ptx_pass::GuardChoice::Unguarded);
    });
    assert!(changed);
    let body: Vec<&str> = out.lines().skip_while(|l| *l != "{").skip(4).map(str::trim).collect();
    assert_eq!(
        body,
        [
            "mov.u32 %r3, 0x64;",
            "ld.param.u64 %rd1, [p];",
            "mov.u32 %r1, %tid.x;",
            "setp.eq.u32 %p1, %r1, 0;",
            "mov.u32 %r3, 0xC8;",
            "@%p1 bra $L_skip;",
            "mov.u32 %r3, 0x65;",
            "@%p1 mov.u32 %r3, 0x1;",
            "mov.u32 %r3, 0x2;",
            "@%p1 add.s32 %r2, %r1, 1;",
            "mov.u32 %r3, 0xC9;",
            "$L_skip:",
            "mov.u32 %r3, 0x66;",
            "@!%p1 mov.u32 %r3, 2;",
            "mov.u32 %r3, 0xCA;",
            "bra.uni $L_end;",
            "$L_end:",
            "mov.u32 %r3, 0xCB;",
            "mov.u32 %r3, 0x67;",
            "}",
        ],
        "{out}"
    );
}

/// Symbols interned through the rewriter name what a pass added.
#[test]
fn symbols_interned_through_the_rewriter() {
    let (out, _, _) = rewrite(BLOCKS, |rw, ids| {
        let counters = rw.symbol("__ptxopt_counters");
        let rd2 = rw.inst(ids[0]).operands[0].clone();
        rw.insert_before(ids[1], Inst::mov(ScalarType::U64, rd2, Operand::Symbol(counters)).build());
    });
    assert!(out.contains("mov.u64 %rd1, __ptxopt_counters;"), "{out}");
}
