//! Pass objects from outside the registry run through the facade exactly as
//! registered passes do: streamed or whole, on any number of threads, under
//! verify-each (which names them when they break the IR), with print-after,
//! counters, remarks and errors.

use ptx_opt::prelude::*;
use ptx_opt::{ErrorKind, Options};

const KERNEL: &str = "\
.version 8.0
.target sm_80
.address_size 64

.visible .entry k(.param .u64 p)
{
\t.reg .b32 %r<4>;
\t.reg .b64 %rd<2>;
\tld.param.u64 %rd1, [p];
\tld.global.u32 %r1, [%rd1];
\tadd.s32 %r2, %r1, 0;
\tst.global.u32 [%rd1], %r2;
\tret;
}

.visible .entry untouched()
{
\tret;
}
";

const ZERO_ADDS: Counter = Counter::new("zero-adds", "add of 0 made a mov");

/// `add.s32 d, x, 0` becomes `mov.s32 d, x`.
struct AddZero;

impl FunctionPass for AddZero {
    fn name(&self) -> &'static str {
        "add-zero"
    }
    fn preserves(&self) -> Preserves {
        Preserves::Cfg
    }
    fn run_on_function(&self, func: &mut Function, cx: &mut FunctionContext<'_>) -> Result<bool, Vec<Diagnostic>> {
        let values = cx.values(func);
        let found: Vec<InstId> = func
            .inst_ids()
            .filter(|&id| {
                let inst = &func.insts[id];
                inst.opcode == Opcode::Add
                    && inst.modifiers[..] == [Modifier::Type(ScalarType::S32)]
                    && values.known_value(id, &inst.operands[2]) == Some(0)
            })
            .collect();
        let mut rw = Rewriter::new(func, cx);
        for id in found {
            let (dst, src, span) = (rw.inst(id).operands[0].clone(), rw.inst(id).operands[1].clone(), rw.inst(id).span);
            rw.replace(id, Inst::mov(ScalarType::S32, dst, src));
            rw.count(ZERO_ADDS, 1);
            rw.remark(span, "add of 0 is a mov");
        }
        Ok(rw.finish())
    }
}

/// Writes a 64-bit register into a 32-bit `add`: the verifier rejects it.
struct Breaker;

impl FunctionPass for Breaker {
    fn name(&self) -> &'static str {
        "breaker"
    }
    fn run_on_function(&self, func: &mut Function, cx: &mut FunctionContext<'_>) -> Result<bool, Vec<Diagnostic>> {
        let Some(add) = func.inst_ids().find(|&id| func.insts[id].opcode == Opcode::Add) else { return Ok(false) };
        let wide = func.regs.keys().find(|&r| func.regs[r].ty.scalar == ScalarType::B64).expect("a .b64 register");
        let mut rw = Rewriter::new(func, cx);
        rw.modify(add, |inst| inst.operands[0] = Operand::Reg(wide));
        Ok(rw.finish())
    }
}

/// Refuses every function with a body.
struct Refuser;

impl FunctionPass for Refuser {
    fn name(&self) -> &'static str {
        "refuser"
    }
    fn run_on_function(&self, func: &mut Function, _: &mut FunctionContext<'_>) -> Result<bool, Vec<Diagnostic>> {
        Err(vec![Diagnostic::new(func.span, format!("{} refused", func.name))])
    }
}

#[test]
fn a_custom_pass_runs_like_a_registered_one() {
    let options = Options::with_passes(["fold-prmt"]).with_function_pass(AddZero);
    for threads in [None, Some(1), Some(3)] {
        let options = Options { threads, ..options.clone() };
        let out = ptx_opt::optimize(KERNEL, &options).unwrap();
        assert!(out.ptx.contains("\tmov.s32 %r2, %r1;\n"), "{}", out.ptx);
        // The function the pass did not change is printed as it was.
        assert!(out.ptx.ends_with(".visible .entry untouched()\n{\n\tret;\n}\n"), "{}", out.ptx);
        let record = &out.run.passes[1];
        assert_eq!((record.name, record.changed, record.stats.counter("zero-adds")), ("add-zero", true, Some(1)));
        assert_eq!(record.stats.remarks.len(), 1);
        assert_eq!(record.stats.remarks[0].function, "k");
        // Streamed (the default here) and whole-module runs agree.
        let whole = ptx_opt::optimize_whole(KERNEL, &options).unwrap();
        assert_eq!(whole.ptx, out.ptx);
        assert_eq!(format!("{:?}", whole.run.passes[1].stats), format!("{:?}", record.stats));
    }
}

#[test]
fn verify_each_and_print_after_see_custom_passes() {
    let options = Options { verify_each: true, print_after: vec!["add-zero".into()], ..Options::default() }
        .with_function_pass(AddZero);
    let out = ptx_opt::optimize(KERNEL, &options).unwrap();
    assert_eq!(out.run.snapshots.len(), 1);
    assert_eq!(out.run.snapshots[0].after, "add-zero");
    assert!(out.run.snapshots[0].text.contains("mov.s32 %r2, %r1;"));

    let broken =
        ptx_opt::optimize(KERNEL, &Options { verify_each: true, ..Options::default() }.with_function_pass(Breaker))
            .unwrap_err();
    assert_eq!(broken.kind, ErrorKind::BrokeIr("breaker".into()));
    assert!(!broken.diagnostics.is_empty());
}

#[test]
fn errors_of_custom_passes_name_them() {
    let err = ptx_opt::optimize(KERNEL, &Options::default().with_function_pass(Refuser)).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Pass("refuser".into()));
    let messages: Vec<&str> = err.diagnostics.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(messages, ["k refused", "untouched refused"]);
}
