//! Integration tests of the facade: the whole pipeline over real PTX, judged
//! by ptxas. One test binary; one module per concern.

mod corpus;
mod count_blocks;
mod custom_passes;
mod determinism;
mod generated_kernels;
mod isa_sweep;
mod layout;
mod legalize_relaxed;
mod library;
mod pass_cases;
mod pass_corpus;
mod round_trip;
mod streaming;
mod version;
