//! `dce`: delete the instructions whose results nothing reads.
//!
//! Compilers rarely leave dead code, but rewrites do: a pass that reads a
//! value from elsewhere leaves the instructions that computed it behind,
//! and other passes (here or in a JIT) may not clean up after themselves.
//! This is the rewriter's dead-code rule ([`Rewriter::erase_dead`]) over the
//! whole function: a pure instruction is deleted when no instruction of the
//! function reads any register it writes, repeatedly (a worklist: a dead
//! chain costs its length). Never deleted: anything with an effect (memory,
//! barriers, `.cc` carries, calls, control flow, unknown opcodes, loads,
//! which may fault or be volatile), writes of part of a register, and
//! writes of registers that are `.reg` return parameters (the caller reads
//! them).

use ptx_ir::{Diagnostic, Function, InstId};
use ptx_pass::{Counter, FunctionContext, FunctionPass, Preserves, Rewriter};

/// The pass.
pub struct Dce;

const DELETED: Counter = Counter::new("deleted", "instructions whose results nothing reads, deleted");

impl FunctionPass for Dce {
    fn name(&self) -> &'static str {
        "dce"
    }

    fn preserves(&self) -> Preserves {
        Preserves::Cfg
    }

    fn run_on_function(&self, func: &mut Function, cx: &mut FunctionContext<'_>) -> Result<bool, Vec<Diagnostic>> {
        let all: Vec<InstId> = func.inst_ids().collect();
        let mut rw = Rewriter::new(func, cx);
        let deleted = rw.erase_dead(all);
        if deleted > 0 {
            rw.count(DELETED, deleted as u64);
        }
        Ok(rw.finish())
    }
}
