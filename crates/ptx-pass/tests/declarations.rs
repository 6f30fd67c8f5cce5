//! Module declarations a function pass asks for (`FunctionContext::declare`):
//! added after the parallel phase in function order, each before the first
//! function that asked for it, the same one once, a clash an error at the
//! function; the rest of the module is printed from its source.

use ptx_analysis::Cfg;
use ptx_ir::{
    Address, DeclWord, Diagnostic, Function, FunctionKind, Inst, Module, Operand, ScalarType, Span, StateSpace,
    Variable, Word,
};
use ptx_pass::{Declaration, FunctionContext, FunctionPass, PassManager, PassManagerOptions, Preserves, Rewriter};
use ptx_verify::Verifier;

/// Counts each kernel's entries in its own `.global` variable and declares
/// an external function every function asks for; with `fresh`, the
/// variable's name is one the module does not declare yet.
struct CountEntries {
    fresh: bool,
}

fn counter_of(kernel: &str) -> Variable {
    Variable {
        linkage: Vec::new(),
        words: vec![DeclWord::Space(StateSpace::Global), DeclWord::Align(8), DeclWord::Type(ScalarType::U64)],
        name: format!("__count_{kernel}"),
        dims: vec![Some(1)],
        init: None,
        span: Span::default(),
    }
}

fn hook() -> Function {
    let mut f = Function::new(FunctionKind::Func, "__hook".to_string());
    f.linkage = vec!["extern".to_string()];
    f.params = Some(Vec::new());
    f
}

impl FunctionPass for CountEntries {
    fn name(&self) -> &'static str {
        "count-entries"
    }

    fn preserves(&self) -> Preserves {
        Preserves::Cfg
    }

    fn declares(&self) -> bool {
        true
    }

    fn run_on_function(&self, func: &mut Function, cx: &mut FunctionContext<'_>) -> Result<bool, Vec<Diagnostic>> {
        cx.declare(Declaration::Function(Box::new(hook())));
        if func.kind != FunctionKind::Entry {
            return Ok(false);
        }
        let mut counter = counter_of(&func.name);
        if self.fresh {
            counter.name = cx.module.fresh_name(&counter.name);
        }
        let name = counter.name.clone();
        cx.declare(Declaration::Variable(counter));
        let cfg = Cfg::build(func);
        let entry = cfg.blocks().next().map(|(_, b)| b.clone()).expect("a block");
        let mut rw = Rewriter::new(func, cx);
        let symbol = rw.symbol(&name);
        let red = Inst::red(Word::ADD, ScalarType::U64, Address::symbol(symbol, 0), Operand::imm(1)).global().build();
        rw.insert_at_block_start(&entry, red);
        Ok(rw.finish())
    }
}

const TWO_KERNELS: &str = "\
.version 8.0
.target sm_80
.address_size 64

// the first kernel
.visible .entry k1()
{
\tret;
}

// the second kernel
.visible .entry k2()
{
\tret;
}
";

fn run(src: &str) -> Result<String, Vec<Diagnostic>> {
    run_with(src, CountEntries { fresh: false })
}

fn run_with(src: &str, pass: CountEntries) -> Result<String, Vec<Diagnostic>> {
    let mut module: Module = ptx_parse::parse(src).expect("test input parses");
    let options = PassManagerOptions { verify_input: true, verify_each: true, ..Default::default() };
    let manager = PassManager::new(vec![Box::new(ptx_pass::PerFunction(pass))], Some(Verifier::new()), options);
    match manager.run(&mut module) {
        Ok(_) => Ok(ptx_ir::print::print_module(&module)),
        Err(e) => Err(e.diagnostics),
    }
}

#[test]
fn declarations_go_before_the_first_function_that_asks() {
    let out = run(TWO_KERNELS).expect("the pass runs and the output verifies");
    let expected = "\
.version 8.0
.target sm_80
.address_size 64

.extern .func __hook()
;

.global .align 8 .u64 __count_k1[1];

// the first kernel
.visible .entry k1()
{
\tred.global.add.u64 [__count_k1], 0x1;
\tret;
}

.global .align 8 .u64 __count_k2[1];

// the second kernel
.visible .entry k2()
{
\tred.global.add.u64 [__count_k2], 0x1;
\tret;
}
";
    assert_eq!(out, expected);
    assert!(ptx_parse::parse(&out).is_ok());
}

#[test]
fn a_name_the_module_declares_differently_is_an_error_at_the_function() {
    let src = TWO_KERNELS.replace("// the second kernel", ".global .u32 __count_k2;\n// the second kernel");
    let errors = run(&src).expect_err("a clash");
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0]
            .message
            .contains("function k2 declares the variable '__count_k2', which the module declares differently"),
        "{errors:?}"
    );
}

#[test]
fn a_fresh_name_steps_around_the_module_s_own() {
    let src = TWO_KERNELS
        .replace("// the second kernel", ".global .u32 __count_k2;\n.global .u32 __count_k2_1;\n// the second kernel");
    let out = run_with(&src, CountEntries { fresh: true }).expect("no clash with a fresh name");
    assert!(out.contains(".global .align 8 .u64 __count_k2_2[1];"), "{out}");
    assert!(out.contains("red.global.add.u64 [__count_k2_2], 0x1;"), "{out}");
    assert!(out.contains(".global .u32 __count_k2;\n.global .u32 __count_k2_1;"), "{out}");
    assert!(out.contains("[__count_k1], 0x1;"), "a name nobody declares stays as asked: {out}");
}
