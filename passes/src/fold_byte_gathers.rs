//! `fold-byte-gathers`: a 32-bit value assembled byte by byte from one or
//! two words becomes one `prmt` (or a `mov`, when it is a word rebuilt in
//! its own order).
//!
//! Swapping RGBA to BGRA, swapping the bytes of each half-word or
//! reassembling bytes a shuffle took apart is written with shifts, masks
//! and `or`s (or `mov {lo,hi}` of 16-bit pieces, `bfi`, chains of `prmt`),
//! and ptxas keeps most of them: NVRTC's RGBA-to-BGRA with shifts is 16 SASS
//! instructions on sm_80, one `prmt` makes it 12. The byte analysis
//! ([`ptx_analysis::bytes`]) says where each byte of the value comes from;
//! when every byte is a byte of at most two 32-bit registers that hold it
//! at this point, the sign of such a byte, or (with one register) a
//! constant, `prmt.b32 d, x, y, SEL` computes it exactly (PTX ISA
//! 9.7.9.7: a selector nibble picks one of the eight bytes of `{y, x}`,
//! with its msb the byte's sign replicated; a constant goes in `y` as an
//! immediate).
//!
//! The rewrite is kept only if it makes the function shorter by two or
//! more: the instructions that computed the pieces must be left without
//! readers and deleted; otherwise (a single mask or shift, pieces read
//! elsewhere, a lone `shl` + `or` that ptxas already makes one instruction)
//! it is undone. The `prmt` takes the replaced instruction's guard.

use ptx_analysis::bytes::{self, Lane, RegisterBytes};
use ptx_analysis::prmt;
use ptx_analysis::Values;
use ptx_ir::{Access, Function, Inst, InstId, Opcode, Operand, RegId, ScalarType};
use ptx_pass::{Counter, FunctionContext, Missed, Rewriter, Rule, Saving};
use std::borrow::Cow;

/// The pass.
pub struct FoldByteGathers {
    /// A gather is rewritten only when the function gets at least this
    /// many instructions shorter (option `min-saving=N`; default 2).
    pub min_saving: isize,
}

impl Default for FoldByteGathers {
    fn default() -> Self {
        FoldByteGathers { min_saving: 2 }
    }
}

/// The options of a pipeline text, `fold-byte-gathers<min-saving=N>`, for `--help`.
pub const OPTIONS: &str = "min-saving=N: rewrite a gather only when it removes at least N instructions (default 2)";

/// Makes the pass from the options of a pipeline text (`min-saving=N`).
pub fn create_with(options: &str) -> Result<Box<dyn ptx_pass::Pass>, String> {
    let mut pass = FoldByteGathers::default();
    for option in options.split(';').map(str::trim).filter(|o| !o.is_empty()) {
        match option.split_once('=').map(|(key, value)| (key.trim(), value)) {
            Some(("min-saving", n)) => {
                pass.min_saving = n
                    .trim()
                    .parse()
                    .ok()
                    .filter(|n: &isize| (0..=1000).contains(n))
                    .ok_or_else(|| format!("min-saving takes a number from 0 to 1000, not '{}'", n.trim()))?;
            }
            _ => return Err(format!("unknown option '{option}' (it takes {OPTIONS})")),
        }
    }
    Ok(Box::new(ptx_pass::PerFunction(pass)))
}

const GATHERS: Counter = Counter::new("gathers", "byte gathers made one prmt");
const COPIES: Counter = Counter::new("copies", "bytes of a word rebuilt in order made a mov");
const DEAD: Counter = Counter::new("dead-deleted", "pieces of the gathers left without readers deleted");

/// One gather to rewrite.
pub struct Plan {
    inst: Inst,
    copy: bool,
    /// The pieces: every instruction the byte analysis went through.
    visited: Vec<InstId>,
}

/// The instruction computing the value `root` writes as one `prmt` or `mov`.
fn plan_for(values: &Values, root: InstId) -> Option<Plan> {
    let func = values.function();
    let inst = values.inst(root);
    let dst = inst.operands.first()?.as_reg()?;
    if !func.regs[dst].ty.is_integer_word() {
        return None;
    }
    let mut whole = false;
    inst.for_each_reg_access(|i, r, a| whole |= i == 0 && r == dst && a == Access::Def);
    if !whole {
        return None;
    }
    let mut sources = RegisterBytes::new(root);
    let lanes = bytes::result_lanes(values, &mut sources, root, 4);
    let mut regs: Vec<RegId> = Vec::with_capacity(2);
    let mut constants = [0u8; 4];
    let mut has_constant = false;
    let mut picks = [prmt::Lane { byte: 0, sign: false }; 4];
    for (k, lane) in lanes.iter().enumerate() {
        let (reg, byte, sign) = match *lane {
            Lane::Byte(r, b) => (r, b, false),
            Lane::Sign(r, b) => (r, b, true),
            Lane::Const(c) => {
                constants[k] = c;
                has_constant = true;
                // Byte k of the immediate, at position 4 + k of {y, x}.
                picks[k] = prmt::Lane { byte: 4 + k as u8, sign: false };
                continue;
            }
            Lane::Unknown => return None,
        };
        if byte >= 4 || !func.regs[reg].ty.is_integer_word() {
            return None;
        }
        let index = match regs.iter().position(|&r| r == reg) {
            Some(i) => i,
            None => {
                regs.push(reg);
                regs.len() - 1
            }
        };
        picks[k] = prmt::Lane { byte: 4 * index as u8 + byte, sign };
    }
    if regs.is_empty() || regs.len() + usize::from(has_constant) > 2 {
        return None;
    }
    let x = regs[0];
    let copy = !has_constant && prmt::is_identity_of_a(&picks);
    let new = if copy {
        Inst::mov(ScalarType::B32, dst, x).build()
    } else {
        let y = match regs.get(1) {
            Some(&y) => Operand::Reg(y),
            None => Operand::imm(u64::from(u32::from_le_bytes(constants))),
        };
        Inst::prmt(dst, x, y, Operand::imm(u64::from(prmt::generic_selector(&picks)))).build()
    };
    // Nothing to gain where the instruction already is that.
    let same = inst.opcode == new.opcode && inst.operands == new.operands && inst.modifiers == new.modifiers;
    (!same).then_some(Plan { inst: new, copy, visited: sources.visited })
}

/// Whether `func` cuts bytes out of words anywhere (a byte-aligned shift,
/// a byte mask, a `prmt`, a `bfi`, a narrowing `cvt`, a `mov` into a vector
/// of halves): without pieces there is no gather, and no def-use analysis
/// is built for the function.
fn has_byte_pieces(func: &Function) -> bool {
    func.inst_ids().any(|id| {
        let inst = &func.insts[id];
        let imm = inst.operands.get(2).and_then(Operand::as_int);
        match inst.opcode {
            Opcode::Shl | Opcode::Shr => imm.is_some_and(|k| k % 8 == 0 && k > 0),
            Opcode::And => imm.is_some_and(|m| (0..4).all(|k| matches!((m >> (8 * k)) & 0xff, 0 | 0xff))),
            Opcode::Prmt | Opcode::Bfi => true,
            Opcode::Mov => inst.vector().is_none() && matches!(inst.operands.first(), Some(Operand::Vector(_))),
            Opcode::Cvt => {
                inst.as_cvt().is_some_and(|c| c.dst_ty.bits() < c.src_ty.bits() && c.dst_ty.is_integer_like())
            }
            _ => false,
        }
    })
}

impl Rule for FoldByteGathers {
    type Plan = Plan;

    fn name(&self) -> &'static str {
        "fold-byte-gathers"
    }

    fn roots(&self) -> &[Opcode] {
        &[Opcode::Or, Opcode::Bfi, Opcode::Prmt, Opcode::Mov]
    }

    /// Where gathers end: an `or`, `bfi` or `prmt` of 32 bits, or a `mov`
    /// of pieces. (A plain `mov` or a lone mask gathers nothing.)
    fn may_root(&self, inst: &Inst) -> bool {
        let word = inst.first_type().is_some_and(|t| t.bits() == 32 && t.is_integer_like());
        let gathers = match inst.opcode {
            Opcode::Or | Opcode::Bfi | Opcode::Prmt => word,
            // `mov.vN` moves whole elements: it gathers nothing.
            Opcode::Mov => inst.vector().is_none() && matches!(inst.operands.get(1), Some(Operand::Vector(_))),
            _ => false,
        };
        gathers && !inst.has_side_effects()
    }

    /// Most functions cut no bytes out of words, and then no analysis is built.
    fn enabled(&self, func: &Function, _: &mut FunctionContext<'_>) -> bool {
        has_byte_pieces(func)
    }

    fn decide(&self, values: &Values<'_>, id: InstId) -> Result<Plan, Missed> {
        plan_for(values, id).ok_or(Missed::silently())
    }

    fn covered<'p>(&self, plan: &'p Plan) -> &'p [InstId] {
        &plan.visited
    }

    /// Pieces read elsewhere make a prmt more and nothing less. And a
    /// gather of two instructions (a shift and an or) is one SASS
    /// instruction to ptxas already, which schedules it better than a PRMT
    /// (two Triton sm_90a matmuls got longer).
    fn saving(&self) -> Saving {
        Saving::EachPlan(self.min_saving)
    }

    fn undone(&self, _growth: isize) -> Cow<'static, str> {
        format!(
            "byte gather left alone: one prmt would save fewer than {} instructions (pieces read elsewhere, or a shift and an or that ptxas fuses)",
            self.min_saving
        )
        .into()
    }

    fn dead_counter(&self) -> Option<Counter> {
        Some(DEAD)
    }

    fn build(&self, rw: &mut Rewriter<'_, '_, '_>, id: InstId, plan: Plan) {
        let span = rw.inst(id).span;
        rw.replace(id, plan.inst);
        let (counter, what) = if plan.copy { (COPIES, "a copy") } else { (GATHERS, "one prmt") };
        rw.count(counter, 1);
        rw.remark(span, format!("byte gather made {what}"));
    }
}
