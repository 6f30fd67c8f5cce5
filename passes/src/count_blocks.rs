//! `count-blocks`: count how often each basic block of each kernel runs.
//!
//! What NVBit and gpuocelot users write first: a profile of the kernel's
//! control flow, read back from device memory after the launch. For each
//! kernel (`.entry`) with `N` basic blocks the pass declares
//!
//! ```text
//! .global .align 8 .u64 __ptxopt_blocks_<kernel>[N];
//! ```
//!
//! (the kernel's name after the prefix, so a runtime finds the array by
//! name, `cuModuleGetGlobal`), and puts at the start of block `i` (after its
//! labels, before its first instruction)
//!
//! ```text
//! red.global.add.u64 [__ptxopt_blocks_<kernel>+8*i], 1;
//! ```
//!
//! Blocks are the control-flow graph's (`ptx_analysis::Cfg`), numbered in
//! body order from 0: a block starts at a label that code branches to and
//! after an instruction that ends one; a label that names a `.callprototype`,
//! `.calltargets` or `.branchtargets` list is not code. The increment is
//! unguarded even when the block's first instruction is guarded: it counts
//! the threads that reach the block, not those that run its first
//! instruction. A block without instructions (a label just before the end
//! of the body) gets its increment after its labels. `red` returns nothing,
//! so no register is needed; the increment is atomic, so every thread of
//! every block of the grid adds to the same array.
//!
//! Why it keeps the meaning: the pass adds one reduction to memory no code
//! of the module reads (a name of its own that the module does not declare:
//! declaring it differently is an error, as a clash) and changes no
//! register, no branch and no other memory. A kernel that already refers to
//! its array (an instrumented module run again) is left alone. Device
//! functions are not instrumented: their blocks run on behalf of whichever
//! kernel calls them.

use ptx_analysis::{BlockData, Cfg};
use ptx_ir::{
    AddrBase, Address, DeclWord, Diagnostic, Function, FunctionKind, Inst, Module, ModuleItem, Opcode, Operand,
    ScalarType, Span, StateSpace, Stmt, Variable, Word,
};
use ptx_pass::{Counter, Declaration, FunctionContext, FunctionPass, Preserves, Rewriter};

/// The pass.
pub struct CountBlocks;

const KERNELS: Counter = Counter::new("kernels", "kernels instrumented");
const BLOCKS: Counter = Counter::new("blocks", "basic blocks counted");

/// The name of the counter array of kernel `kernel`.
pub fn counter_array(kernel: &str) -> String {
    format!("__ptxopt_blocks_{kernel}")
}

/// `.global .align 8 .u64 NAME[blocks]`.
fn declaration(name: String, blocks: usize) -> Variable {
    Variable {
        linkage: Vec::new(),
        words: vec![DeclWord::Space(StateSpace::Global), DeclWord::Align(8), DeclWord::Type(ScalarType::U64)],
        name,
        dims: vec![Some(blocks as u64)],
        init: None,
        span: Span::default(),
    }
}

impl FunctionPass for CountBlocks {
    fn name(&self) -> &'static str {
        "count-blocks"
    }

    fn preserves(&self) -> Preserves {
        // Blocks gain an instruction: their instruction lists change.
        Preserves::Nothing
    }

    fn declares(&self) -> bool {
        true
    }

    fn run_on_function(&self, func: &mut Function, cx: &mut FunctionContext<'_>) -> Result<bool, Vec<Diagnostic>> {
        if func.kind != FunctionKind::Entry {
            return Ok(false);
        }
        let name = counter_array(&func.name);
        if func.names.find(&name).is_some() {
            cx.missed(func.span, format!("kernel {} already refers to {name}: left alone", func.name));
            return Ok(false);
        }
        let blocks: Vec<BlockData> = Cfg::build(func).blocks().map(|(_, b)| b.clone()).collect();
        cx.declare(Declaration::Variable(declaration(name.clone(), blocks.len())));
        let mut rw = Rewriter::new(func, cx);
        let array = rw.symbol(&name);
        for (i, block) in blocks.iter().enumerate() {
            let slot = Address::symbol(array, 8 * i as i64);
            rw.insert_at_block_start(block, Inst::red(Word::ADD, ScalarType::U64, slot, Operand::imm(1)).global());
        }
        rw.count(KERNELS, 1);
        rw.count(BLOCKS, blocks.len() as u64);
        Ok(rw.finish())
    }
}

/// The counters of one instrumented kernel, for a runtime that reads them
/// back ([`map`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelCounters {
    /// The kernel.
    pub kernel: String,
    /// Its counter array.
    pub array: String,
    /// Per block, in index order: where the block's first instruction of
    /// the input is (None for a block without one).
    pub blocks: Vec<Option<Span>>,
}

/// The counter arrays of a module `count-blocks` instrumented: for each
/// kernel with its array, which block each counter counts (read from the
/// increments themselves, so later passes do not matter).
pub fn map(module: &Module) -> Vec<KernelCounters> {
    let arrays: std::collections::BTreeMap<&str, u64> = module
        .items
        .iter()
        .filter_map(|item| match item {
            ModuleItem::Variable(v) => Some((v.name.as_str(), v.dims.first().copied().flatten()?)),
            _ => None,
        })
        .collect();
    let mut out = Vec::new();
    for func in module.functions.values().filter(|f| f.kind == FunctionKind::Entry && f.has_body()) {
        let array = counter_array(&func.name);
        let (Some(&len), Some(symbol)) = (arrays.get(array.as_str()), func.names.find(&array)) else { continue };
        // Sized by the increments found, not by the declaration (which the
        // input could make as large as it likes).
        let mut found: Vec<(usize, Option<Span>)> = Vec::new();
        for stmt in func.body().unwrap_or(&[]) {
            let Stmt::Inst(id) = stmt else { continue };
            let inst = &func.insts[*id];
            let slot = match inst.operands.first() {
                Some(Operand::Address(a)) if inst.opcode == Opcode::Red && a.base == AddrBase::Symbol(symbol) => {
                    a.offset
                }
                _ => continue,
            };
            // An increment has the span of the instruction it stands before
            // (none in a block without instructions).
            if let Some(index) = u64::try_from(slot / 8).ok().filter(|&i| i < len) {
                found.push((index as usize, (!inst.span.is_synthetic()).then_some(inst.span)));
            }
        }
        let mut blocks = vec![None; found.iter().map(|(i, _)| i + 1).max().unwrap_or(0)];
        for (index, span) in found {
            blocks[index] = span;
        }
        out.push(KernelCounters { kernel: func.name.clone(), array, blocks });
    }
    out
}
