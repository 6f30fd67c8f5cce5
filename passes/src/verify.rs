//! `verify`: the verifier (`ptx_verify`) as a pass, for pipelines that name
//! it (`--passes=verify`, or between two passes). It never changes the
//! module. The pass manager does not need it: it runs the verifier itself,
//! on the input and, with `--verify-each`, after every pass.

use ptx_ir::{Diagnostic, Module};
use ptx_pass::{Pass, PassContext, Preserves};

/// The registered `verify` pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct VerifyPass;

impl Pass for VerifyPass {
    fn name(&self) -> &'static str {
        "verify"
    }

    fn preserves(&self) -> Preserves {
        Preserves::All
    }

    fn run(&self, module: &mut Module, cx: &mut PassContext<'_>) -> Result<bool, Vec<Diagnostic>> {
        let verifier = ptx_verify::Verifier::new().accepting_newer_forms(cx.module.accept_newer_forms);
        verifier.verify(module).map(|()| false)
    }
}

/// Makes the registered `verify` pass.
pub fn create() -> Box<dyn Pass> {
    Box::new(VerifyPass)
}
