//! `--verify-each`: a pass that breaks the IR is named. The pass below is a
//! deliberately wrong rewrite (it retypes an `add.s32` as `add.f32`, which
//! the verifier rejects for its `.s32` registers); the manager must
//! stop after it and blame it, not a later pass or the input. And the
//! reverse: input that is already invalid is reported as invalid input,
//! with the diagnostics `verify` gives, not blamed on the first pass.

use ptx_ir::{Diagnostic, Function, Modifier, Opcode, ScalarType};
use ptx_pass::{FunctionContext, FunctionPass, PassManager, PassManagerOptions, PerFunction, PipelineErrorKind};

struct RetypeAdds;

impl FunctionPass for RetypeAdds {
    fn name(&self) -> &'static str {
        "retype-adds"
    }

    fn run_on_function(&self, func: &mut Function, _cx: &mut FunctionContext<'_>) -> Result<bool, Vec<Diagnostic>> {
        let mut changed = false;
        for inst in func.insts.values_mut() {
            if inst.opcode == Opcode::Add {
                inst.modifiers = vec![Modifier::Type(ScalarType::F32)].into();
                changed = true;
            }
        }
        Ok(changed)
    }
}

const INPUT: &str = ".version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 k_param_0)
{
	.reg .s32 %r<4>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [k_param_0];
	cvta.to.global.u64 %rd2, %rd1;
	ld.global.u32 %r1, [%rd2];
	add.s32 %r2, %r1, 1;
	st.global.u32 [%rd2], %r2;
	ret;
}
";

/// [`INPUT`] with a `.b64` register as the destination of a 32-bit add,
/// which the verifier (and ptxas) rejects: invalid before any pass runs.
fn invalid_input() -> String {
    let invalid = INPUT.replace("add.s32 %r2, %r1, 1;", "add.s32 %rd1, %r1, 1;");
    assert_ne!(invalid, INPUT);
    invalid
}

/// The pipeline of these tests: a correct pass, the broken one, a correct one.
fn pipeline() -> Vec<Box<dyn ptx_pass::Pass>> {
    vec![
        (ptx_passes::lookup("fold-prmt").unwrap().create)(),
        Box::new(PerFunction(RetypeAdds)),
        (ptx_passes::lookup("legalize-relaxed").unwrap().create)(),
    ]
}

fn run_on(input: &str, passes: Vec<Box<dyn ptx_pass::Pass>>, verify_each: bool) -> Result<(), ptx_pass::PipelineError> {
    let mut module = ptx_parse::parse(input).expect("input parses");
    let options = PassManagerOptions { verify_each, ..PassManagerOptions::default() };
    PassManager::new(passes, Some(ptx_verify::Verifier::new()), options).run(&mut module).map(|_| ())
}

fn run(verify_each: bool) -> Result<(), ptx_pass::PipelineError> {
    run_on(INPUT, pipeline(), verify_each)
}

#[test]
fn verify_each_names_the_pass_that_broke_the_ir() {
    let error = run(true).expect_err("the broken IR is caught");
    assert_eq!(error.kind, PipelineErrorKind::BrokeIr("retype-adds"));
    assert!(!error.diagnostics.is_empty());
    let line = crate::line_of(INPUT, error.diagnostics[0].span.start);
    assert_eq!(line, 11, "the diagnostic points at the retyped add: {:?}", error.diagnostics);
}

#[test]
fn without_verify_each_the_broken_ir_goes_through() {
    assert!(run(false).is_ok());
}

/// Regression: invalid input was blamed on the first pass ("after pass
/// 'fold-prmt', which produced invalid PTX"). The input is verified first
/// and reported as invalid, with exactly the diagnostics of `verify`.
#[test]
fn verify_each_reports_invalid_input_as_such() {
    let invalid = invalid_input();
    let verify = run_on(&invalid, vec![ptx_passes::verify::create()], false).expect_err("verify rejects it");
    assert_eq!(verify.kind, PipelineErrorKind::Pass("verify"));
    assert_eq!(crate::line_of(&invalid, verify.diagnostics[0].span.start), 11, "{:?}", verify.diagnostics);

    let error = run_on(&invalid, pipeline(), true).expect_err("the invalid input is caught");
    assert_eq!(error.kind, PipelineErrorKind::InvalidInput);
    assert_eq!(error.diagnostics, verify.diagnostics);

    // A single correct pass: still the input, not that pass.
    let legalize = vec![(ptx_passes::lookup("legalize-relaxed").unwrap().create)()];
    let error = run_on(&invalid, legalize, true).expect_err("the invalid input is caught");
    assert_eq!(error.kind, PipelineErrorKind::InvalidInput);
    assert_eq!(error.diagnostics, verify.diagnostics);

    // Without verify-each (nor verify_input) nothing checks the input; with
    // it, an empty pipeline still verifies its input (`--verify-each` at -O0).
    assert!(run_on(&invalid, vec![(ptx_passes::lookup("fold-prmt").unwrap().create)()], false).is_ok());
    let error = run_on(&invalid, Vec::new(), true).expect_err("-O0 --verify-each checks the input");
    assert_eq!(error.kind, PipelineErrorKind::InvalidInput);
    assert_eq!(error.diagnostics, verify.diagnostics);
}
