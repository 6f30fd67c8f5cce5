//! `legalize-relaxed` over the public corpus: afterwards no ld/st/cvt operand
//! is wider than its instruction type, ptxas accepts every output, the pass
//! is idempotent, and (reported) how many files keep the identical cubin.

use crate::corpus::{self, CorpusFile};
use ptx_ir::{Function, Operand};
use rayon::prelude::*;

/// Register operands of ld/st/cvt still wider than their instruction type,
/// found independently of the pass's own rules.
fn relaxed_operands(func: &Function) -> Vec<String> {
    let mut found = Vec::new();
    let mut check = |op: &Operand, bits: u32, inst: &ptx_ir::Inst| {
        let regs: Vec<_> = match op {
            Operand::Reg(r) => vec![*r],
            Operand::Vector(v) => v.iter().filter_map(Operand::as_reg).collect(),
            _ => vec![],
        };
        for r in regs {
            if func.regs[r].ty.vector.is_none() && func.regs[r].ty.scalar.bits() > bits {
                found.push(format!("{}: {}", func.name, ptx_ir::print::inst_to_string(func, inst)));
            }
        }
    };
    for id in func.inst_ids() {
        let inst = &func.insts[id];
        if let (Some(ld), ptx_ir::Opcode::Ld) = (inst.as_ld(), inst.opcode) {
            check(ld.dst, ld.ty.bits(), inst);
        } else if let Some(st) = inst.as_st() {
            check(st.src, st.ty.bits(), inst);
        } else if let Some(cvt) = inst.as_cvt() {
            check(cvt.dst, cvt.dst_ty.bits(), inst);
            check(cvt.src, cvt.src_ty.bits(), inst);
        }
    }
    found
}

struct Outcome {
    rewrites: u64,
    identical_cubin: bool,
}

fn check(file: &CorpusFile) -> Result<Outcome, String> {
    let name = &file.name;
    let mut module = ptx_opt::parse(&file.source).map_err(|e| format!("{name}: {e}"))?;
    let options = ptx_opt::Options::with_passes(["legalize-relaxed"]);
    let run = ptx_opt::run_passes(&mut module, &options).map_err(|e| format!("{name}: {e}"))?;
    let rewrites: u64 = run.passes.iter().flat_map(|p| p.stats.counters.values()).sum();
    let left: Vec<String> = module.functions.values().flat_map(relaxed_operands).collect();
    if !left.is_empty() {
        return Err(format!("{name}: relaxed operands remain: {left:?}"));
    }
    let output = ptx_opt::print(&module);
    let again = ptx_opt::optimize(&output, &options).map_err(|e| format!("{name}: output does not parse: {e}"))?;
    if again.run.passes.iter().any(|p| p.changed) || again.ptx != output {
        return Err(format!("{name}: not idempotent"));
    }
    let cubin = corpus::toolchain()
        .compile(&output, &file.target, &[])
        .map_err(|e| format!("{name}: ptxas rejects the output: {e}"))?;
    Ok(Outcome { rewrites, identical_cubin: cubin == corpus::original_cubin(file) })
}

#[test]
fn legalize_relaxed_over_the_public_corpus() {
    let files = corpus::files();
    let results: Vec<Result<Outcome, String>> = files.par_iter().map(check).collect();
    let failures: Vec<&String> = results.iter().filter_map(|r| r.as_ref().err()).collect();
    assert!(failures.is_empty(), "{} files failed:\n{:#?}", failures.len(), failures);
    let outcomes: Vec<&Outcome> = results.iter().filter_map(|r| r.as_ref().ok()).collect();
    let touched = outcomes.iter().filter(|o| o.rewrites > 0).count();
    let rewrites: u64 = outcomes.iter().map(|o| o.rewrites).sum();
    let identical = outcomes.iter().filter(|o| o.identical_cubin).count();
    let identical_touched = outcomes.iter().filter(|o| o.identical_cubin && o.rewrites > 0).count();
    eprintln!(
        "legalize-relaxed: {rewrites} operands rewritten in {touched}/{} files; identical cubin for \
         {identical}/{} files ({identical_touched}/{touched} of the rewritten ones)",
        files.len(),
        files.len()
    );
    assert!(touched > 0, "the corpus has relaxed operands (n_narrow_ld in MANIFEST.tsv)");
}
