//! Integration tests of the facade: the whole pipeline over real PTX, judged
//! by ptxas. One test binary; one module per concern.

mod corpus;
mod count_blocks;
mod custom_passes;
mod determinism;
mod generated_kernels;
mod isa_sweep;
mod later_forms;
mod layout;
mod legalize_relaxed;
mod library;
mod pass_cases;
mod pass_corpus;
mod round_trip;
mod streaming;
mod version;

/// Whether a registered pass runs without options (`lower-ptx-version`
/// needs its version): the passes the tests that run every pass run bare.
pub fn runs_bare(pass: &str) -> bool {
    ptx_opt::parse_pipeline(pass).is_ok()
}
