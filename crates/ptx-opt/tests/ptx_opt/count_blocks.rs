//! `count-blocks` over the public corpus: ptxas accepts every instrumented
//! file and every kernel computes what it did (pass_corpus.rs), and each
//! block's count is the number of times the interpreter reached the block.

use crate::corpus;
use ptx_analysis::Cfg;
use ptx_interp::{infer_params, make_args, run_function, LaunchConfig, Program};
use ptx_ir::{FunctionKind, Stmt};
use rayon::prelude::*;

#[derive(Default)]
struct Tally {
    kernels: usize,
    blocks: usize,
    not_run: usize,
    wrong: Vec<String>,
}

/// For every kernel the interpreter runs on the public corpus (its first,
/// tame, trial of inputs, one block of threads): the instrumented kernel's
/// counter array holds, for each block with an instruction, how many times
/// a thread reached the block's first instruction in the original kernel.
#[test]
fn counts_are_the_block_entries_the_interpreter_sees() {
    let tallies: Vec<Tally> = corpus::files()
        .par_iter()
        .map(|file| {
            let mut tally = Tally::default();
            let before = ptx_opt::parse(&file.source).expect("corpus parses");
            let mut after = before.clone();
            ptx_opt::run_passes(&mut after, &ptx_opt::Options::with_passes(["count-blocks"])).expect("pass runs");
            let (prog_before, prog_after) = (Program::new(&before), Program::new(&after));
            let launch = LaunchConfig::default();
            for (id, func) in before.functions.iter().filter(|(_, f)| f.kind == FunctionKind::Entry && f.has_body()) {
                let specs = infer_params(&prog_before, id);
                let args = make_args(&specs, 0x5eed, 0, 4096);
                let Ok(original) = run_function(&prog_before, id, &args, &launch) else {
                    tally.not_run += 1;
                    continue;
                };
                let counted = prog_after.function(&func.name).map(|f| run_function(&prog_after, f, &args, &launch));
                let Some(Ok(counted)) = counted else {
                    tally.wrong.push(format!("{}: {}: the instrumented kernel does not run", file.name, func.name));
                    continue;
                };
                let array = format!("__ptxopt_blocks_{}", func.name);
                let Some((_, bytes)) = counted.globals.iter().find(|(n, _)| *n == array) else {
                    tally.wrong.push(format!("{}: {}: no {array}", file.name, func.name));
                    continue;
                };
                let counts: Vec<u64> =
                    bytes.chunks(8).map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes"))).collect();
                // The place of each instruction among the body's instructions.
                let place: std::collections::HashMap<_, _> = func
                    .body()
                    .unwrap_or(&[])
                    .iter()
                    .filter_map(|s| match s {
                        Stmt::Inst(i) => Some(*i),
                        _ => None,
                    })
                    .enumerate()
                    .map(|(pc, i)| (i, pc))
                    .collect();
                let reached = original.reached.get(id.as_u32() as usize).map(Vec::as_slice).unwrap_or(&[]);
                let cfg = Cfg::build(func);
                if counts.len() != cfg.num_blocks() {
                    tally.wrong.push(format!(
                        "{}: {}: {} counters for {} blocks",
                        file.name,
                        func.name,
                        counts.len(),
                        cfg.num_blocks()
                    ));
                    continue;
                }
                tally.kernels += 1;
                for (b, (_, block)) in cfg.blocks().enumerate() {
                    let Some(first) = block.insts.first() else { continue };
                    let expected = reached.get(place[first]).copied().unwrap_or(0);
                    tally.blocks += 1;
                    if counts[b] != expected {
                        tally.wrong.push(format!(
                            "{}: {}: block {b} counted {} times, reached {expected} times",
                            file.name, func.name, counts[b]
                        ));
                    }
                }
            }
            tally
        })
        .collect();
    let mut total = Tally::default();
    for t in tallies {
        total.kernels += t.kernels;
        total.blocks += t.blocks;
        total.not_run += t.not_run;
        total.wrong.extend(t.wrong);
    }
    eprintln!(
        "count-blocks: {} kernels, {} blocks checked against the interpreter; {} kernels it could not run",
        total.kernels, total.blocks, total.not_run
    );
    assert!(total.wrong.is_empty(), "{} wrong:\n{}", total.wrong.len(), total.wrong.join("\n"));
    assert!(total.kernels > 100 && total.blocks > 1000, "too little checked");
}
