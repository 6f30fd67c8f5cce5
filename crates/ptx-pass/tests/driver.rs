//! The rule driver (`ptx_pass::rules::apply`): nested roots left to the
//! plan that covers them, the saving a plan must make (each alone, or all
//! together) with rollback and a missed remark, dead pieces and their
//! counter, and the bounded fixpoint.

use ptx_analysis::Values;
use ptx_ir::{Inst, InstId, Module, Opcode, Operand, RegId, ScalarType};
use ptx_pass::{Counter, FunctionAnalyses, FunctionContext, Missed, ModuleInfo, Rewriter, Rule, Saving};
use std::borrow::Cow;

const MERGED: Counter = Counter::new("merged", "adds of adds merged");
const DEAD: Counter = Counter::new("dead", "inner adds deleted");
const UNDONE: Counter = Counter::new("undone", "merges undone");

/// `add.u32 d, x, K` where `x` is `add.u32 x, y, J`: `add.u32 d, y, K+J`,
/// standing for the inner add.
struct MergeAdds {
    saving: Saving,
    rounds: usize,
}

struct Plan {
    source: RegId,
    sum: u64,
    inner: [InstId; 1],
}

fn constant_add(inst: &Inst) -> Option<(RegId, u64)> {
    (inst.opcode == Opcode::Add && inst.guard.is_none())
        .then(|| Some((inst.operands.get(1)?.as_reg()?, inst.operands.get(2)?.as_int()?)))?
}

impl Rule for MergeAdds {
    type Plan = Plan;

    fn name(&self) -> &'static str {
        "merge-adds"
    }

    fn roots(&self) -> &[Opcode] {
        &[Opcode::Add]
    }

    fn decide(&self, values: &Values<'_>, id: InstId) -> Result<Plan, Missed> {
        let (x, k) = constant_add(values.inst(id)).ok_or(Missed::silently())?;
        let inner = values.producer(id, x).ok_or(Missed::because("no single add feeds it"))?;
        let (source, j) = constant_add(values.inst(inner)).ok_or(Missed::silently())?;
        if !values.unchanged_between(source, inner, id) {
            return Err(Missed::because("the inner add's source changes before the root"));
        }
        Ok(Plan { source, sum: (k + j) & 0xffff_ffff, inner: [inner] })
    }

    fn covered<'p>(&self, plan: &'p Plan) -> &'p [InstId] {
        &plan.inner
    }

    fn saving(&self) -> Saving {
        self.saving
    }

    fn undone(&self, growth: isize) -> Cow<'static, str> {
        format!("merge undone at growth {growth}").into()
    }

    fn undone_counter(&self) -> Option<Counter> {
        Some(UNDONE)
    }

    fn dead_counter(&self) -> Option<Counter> {
        Some(DEAD)
    }

    fn rounds(&self) -> usize {
        self.rounds
    }

    fn build(&self, rw: &mut Rewriter<'_, '_, '_>, id: InstId, plan: Plan) {
        let dst = rw.inst(id).operands[0].clone();
        rw.replace(id, Inst::add(ScalarType::U32, dst, plan.source, Operand::imm(plan.sum)));
        rw.count(MERGED, 1);
    }
}

/// Runs `rule` over the one function of `src`: the function's instructions
/// as text, the counters, the missed remarks.
fn run(rule: &MergeAdds, src: &str) -> (Vec<String>, Vec<(&'static str, u64)>, Vec<String>) {
    let mut module: Module = ptx_parse::parse(src).expect("test input parses");
    let info = ModuleInfo::of(&module);
    let func = module.functions.values_mut().next().expect("a function");
    let mut analyses = FunctionAnalyses::new();
    let name = func.name.clone();
    let mut cx = FunctionContext::new(&info, &mut analyses, "merge-adds", &name);
    ptx_pass::rules::apply(rule, func, &mut cx);
    let missed = cx.take_missed().into_iter().map(|r| r.message).collect();
    let (counters, _) = cx.finish();
    let insts = func.inst_ids().map(|id| ptx_ir::print::inst_to_string(func, &func.insts[id])).collect();
    (insts, counters.into_iter().map(|(c, n)| (c.id, n)).collect(), missed)
}

fn kernel(body: &str) -> String {
    format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n\t.reg .pred %p<2>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<2>;\n\tld.param.u64 %rd1, [p];\n\tld.global.u32 %r1, [%rd1];\n{body}\tst.global.u32 [%rd1], %r4;\n\tret;\n}}\n"
    )
}

const CHAIN: &str = "\tadd.u32 %r2, %r1, 1;\n\tadd.u32 %r3, %r2, 2;\n\tadd.u32 %r4, %r3, 3;\n";

fn adds(insts: &[String]) -> Vec<&str> {
    insts.iter().filter(|i| i.starts_with("add")).map(String::as_str).collect()
}

#[test]
fn an_outer_root_covers_the_inner_one_and_the_fixpoint_finishes_the_chain() {
    // %r3's add is covered by %r4's plan: one merge, which leaves %r3's add
    // unread (deleted); %r2's add is still read.
    let once = MergeAdds { saving: Saving::Any, rounds: 1 };
    let (insts, counters, _) = run(&once, &kernel(CHAIN));
    assert_eq!(adds(&insts), ["add.u32 %r2, %r1, 1;", "add.u32 %r4, %r2, 0x5;"]);
    assert_eq!(counters, [("dead", 1), ("merged", 1)]);
    // A second round merges again; a third finds nothing and stops.
    let fixpoint = MergeAdds { saving: Saving::Any, rounds: 5 };
    let (insts, counters, _) = run(&fixpoint, &kernel(CHAIN));
    assert_eq!(adds(&insts), ["add.u32 %r4, %r1, 0x6;"]);
    assert_eq!(counters, [("dead", 2), ("merged", 2)]);
}

#[test]
fn a_plan_that_saves_too_little_is_undone_with_a_remark() {
    // %r2 is also read by the store of %r5: merging %r3 saves nothing.
    let body = "\tadd.u32 %r2, %r1, 1;\n\tadd.u32 %r4, %r2, 2;\n\tst.global.u32 [%rd1+4], %r2;\n\tadd.u32 %r6, %r1, 1;\n\tadd.u32 %r7, %r6, 3;\n\tst.global.u32 [%rd1+8], %r7;\n";
    let each = MergeAdds { saving: Saving::EachPlan(1), rounds: 1 };
    let (insts, counters, missed) = run(&each, &kernel(body));
    assert_eq!(
        adds(&insts),
        ["add.u32 %r2, %r1, 1;", "add.u32 %r4, %r2, 2;", "add.u32 %r7, %r1, 0x4;"],
        "the first merge undone, the second kept"
    );
    assert_eq!(counters, [("dead", 1), ("merged", 1)]);
    assert_eq!(missed, ["merge undone at growth 0"]);
}

#[test]
fn plans_that_together_save_too_little_are_all_undone() {
    let body = "\tadd.u32 %r2, %r1, 1;\n\tadd.u32 %r4, %r2, 2;\n\tst.global.u32 [%rd1+4], %r2;\n\tadd.u32 %r6, %r1, 1;\n\tadd.u32 %r7, %r6, 3;\n\tst.global.u32 [%rd1+8], %r7;\n";
    // Together they save one instruction: enough for 1, not for 2.
    let all = MergeAdds { saving: Saving::AllPlans(1), rounds: 1 };
    let (insts, counters, _) = run(&all, &kernel(body));
    assert_eq!(adds(&insts).len(), 3);
    assert_eq!(counters, [("dead", 1), ("merged", 2)]);
    let all = MergeAdds { saving: Saving::AllPlans(2), rounds: 1 };
    let (insts, counters, missed) = run(&all, &kernel(body));
    assert_eq!(adds(&insts).len(), 4, "everything undone");
    assert_eq!(counters, [("undone", 2)]);
    assert_eq!(missed, ["merge undone at growth -1", "merge undone at growth -1"]);
}

#[test]
fn misses_are_reported() {
    // Two definitions of %r1 reach the add (the guarded one may not run).
    let body = "\tsetp.eq.u32 %p1, %r1, 0;\n\t@%p1 add.u32 %r1, %r1, 7;\n\tadd.u32 %r4, %r1, 2;\n";
    let rule = MergeAdds { saving: Saving::Any, rounds: 3 };
    let (insts, counters, missed) = run(&rule, &kernel(body));
    assert_eq!(adds(&insts), ["add.u32 %r4, %r1, 2;"]);
    assert!(counters.is_empty());
    assert_eq!(missed, ["no single add feeds it"]);
}
