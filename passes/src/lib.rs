//! The ptx-opt passes: one file per pass, and one registry.
//!
//! The registry below is the single list of passes. Each line gives the name
//! used on the command line (a stable contract), a one-line description and a
//! constructor; `--help` and `--list-passes` are generated from it. Keep it
//! alphabetical.

#![warn(missing_docs)]

pub mod combine_cvt_pack;
pub mod count_blocks;
pub mod dce;
pub mod fold_byte_gathers;
pub mod fold_dot_shuffles;
pub mod fold_prmt;
pub mod legalize_relaxed;
pub mod lower_ptx_version;
pub mod verify;

use ptx_pass::{PassInfo, PerFunction};

/// Every pass, alphabetically: one line each (kept so by `rustfmt::skip`).
#[rustfmt::skip]
pub const REGISTRY: &[PassInfo] = &[
    PassInfo { name: "combine-cvt-pack", description: "combine saturating conversions packed together into cvt.pack.sat (PTX 6.5+, sm_72+)", create: || Box::new(PerFunction(combine_cvt_pack::CombineCvtPack)), options: "", create_with: None },
    PassInfo { name: "count-blocks", description: "count how often each basic block of each kernel runs, in a .global .u64 array per kernel (__ptxopt_blocks_<kernel>)", create: || Box::new(PerFunction(count_blocks::CountBlocks)), options: "", create_with: None },
    PassInfo { name: "dce", description: "delete pure instructions whose results nothing reads", create: || Box::new(PerFunction(dce::Dce)), options: "", create_with: None },
    PassInfo { name: "fold-byte-gathers", description: "a 32-bit value gathered byte by byte from one or two words (shifts, masks, or, bfi, prmt chains) becomes one prmt or a mov", create: || Box::new(PerFunction(fold_byte_gathers::FoldByteGathers::default())), options: fold_byte_gathers::OPTIONS, create_with: Some(fold_byte_gathers::create_with) },
    PassInfo { name: "fold-dot-shuffles", description: "dp4a/dp2a (and dp4a chains) read whole source words instead of byte shuffles of them", create: || Box::new(PerFunction(fold_dot_shuffles::FoldDotShuffles)), options: "", create_with: None },
    PassInfo { name: "fold-prmt", description: "fold prmt whose selector is a known constant (to mov, a constant, one prmt, or a canonical selector)", create: || Box::new(PerFunction(fold_prmt::FoldPrmt)), options: "", create_with: None },
    PassInfo { name: "legalize-relaxed", description: "make the implicit truncations/extensions of ld, st and cvt explicit (ISA 9.4.1)", create: || Box::new(PerFunction(legalize_relaxed::LegalizeRelaxed)), options: "", create_with: None },
    PassInfo { name: "lower-ptx-version", description: "rewrite what needs a newer .version than to=X.Y into exactly equivalent older forms: cache hints dropped, cvt.pack.sat, abs.f16x2, set.u32.f16x2 expanded; --ptx-version and --cuda run it", create: lower_ptx_version::create, options: lower_ptx_version::OPTIONS, create_with: Some(lower_ptx_version::create_with) },
    PassInfo { name: "verify", description: "check operand types, declarations and labels (PTX ISA 9.4)", create: verify::create, options: "", create_with: None },
];

/// Looks up a pass by command-line name.
pub fn lookup(name: &str) -> Option<&'static PassInfo> {
    REGISTRY.iter().find(|p| p.name == name)
}

/// The default pipelines, by optimization level. `legalize-relaxed` is in
/// none of them: it makes PTX explicit for tools that translate it, and
/// ptxas performs those conversions itself.
pub fn pipeline(level: u8) -> &'static [&'static str] {
    match level {
        // -O0: parse and print; nothing is rewritten.
        0 => &[],
        // -O1: local folding only.
        1 => &[
            // Known prmt selectors: copies, constants, merged chains, canonical selectors.
            "fold-prmt",
            // Last: what the folds left without readers.
            "dce",
        ],
        // -O2: everything that pays off in SASS.
        _ => &[
            // First, while the packs are still in the compilers' shapes: saturations
            // packed together become cvt.pack.sat (gated on PTX 6.5 / sm_72).
            "combine-cvt-pack",
            // Byte shuffles feeding dp4a/dp2a: read the source words directly
            // (before fold-prmt, which would only canonicalize the shuffles' prmts).
            "fold-dot-shuffles",
            // Values gathered byte by byte from one or two words: one prmt.
            "fold-byte-gathers",
            // Then fold the prmts that are left, and delete their dead selector movs.
            "fold-prmt",
            // Last: what the rewrites left without readers.
            "dce",
        ],
    }
}
