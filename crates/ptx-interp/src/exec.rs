//! The semantics of each instruction: one thread executes one instruction
//! of its innermost frame against registers and memory.
//!
//! Every handler first checks the instruction's modifiers against the ones
//! it models; anything else (a rounding mode it does not implement, an
//! unknown qualifier) is `Unsupported`, so the interpreter never guesses.
//! Operand reads chop registers to the instruction type and writes extend to
//! the register width by the type's signedness (ISA 9.4.1). Registers never
//! written read as zero (deterministic; PTX leaves them undefined).

use crate::approx::{self, ApproxFn};
use crate::error::InterpError;
use crate::intops::{self, extend, int_value, mask, saturate};
use crate::machine::{
    frame_floor, Coverage, CtaState, Frame, LaunchInfo, LaunchMem, ResultDest, Status, Thread, MAX_CALL_DEPTH,
};
use crate::memory::{from_bytes, from_generic, to_bytes, to_generic, FUNCTION_BASE, PARAM_STACK_BASE, WINDOW_SIZE};
use crate::program::{Binding, Formal, FuncInfo, Program};
use crate::softfloat::{self as sf, Format, Mode};
use cranelift_entity::EntityRef;
use ptx_ir::{
    AddrBase, Address, CmpOp, FloatImm, FuncId, Function, Inst, IntImm, Modifier, Opcode, Operand, RegId, Rounding,
    ScalarType, StateSpace, Word,
};

mod tensor;
pub(crate) mod texture;
use tensor::TensorOp;

type R<T> = Result<T, InterpError>;

/// Where an instruction is.
#[derive(Clone, Copy)]
pub(crate) struct At<'p> {
    pub func: &'p Function,
    pub info: &'p FuncInfo,
    pub pc: usize,
    pub inst: &'p Inst,
}

/// What to do after an instruction.
enum Flow {
    Next,
    Jump(usize),
    /// The thread now waits or the frames changed; the pc is already right.
    Stay,
}

/// One thread's view of the machine while it executes.
pub(crate) struct Ctx<'a, 'p> {
    pub prog: &'a Program<'p>,
    pub mem: &'a mut LaunchMem,
    pub cta: &'a mut CtaState,
    pub thread: &'a mut Thread,
    pub launch: &'a LaunchInfo,
    pub coverage: &'a mut Coverage,
}

/// Inputs of one lane to a warp collective.
#[derive(Clone, Debug)]
pub(crate) struct WarpIn {
    pub kind: WarpKind,
    pub mask: u32,
    pub a: u128,
    pub b: u32,
    pub c: u32,
    pub pred: bool,
    pub line: u32,
    /// No membermask operand (`activemask`, `vote` and `shfl` without
    /// `.sync`): the members are the lanes of the warp that wait at this
    /// instruction together, which the scheduler fills into `mask`.
    pub implicit: bool,
    /// Fragment registers or a matrix row (tensor-core instructions).
    pub v: Vec<u64>,
}

/// Result of a warp collective for one lane.
#[derive(Clone, Debug)]
pub(crate) struct WarpOut {
    pub d: u128,
    pub p: Option<bool>,
    /// Fragment registers or a matrix row (tensor-core instructions).
    pub v: Vec<u64>,
}

/// The clock model: the first read of `%clock64` returns `CLOCK_START +
/// CLOCK_STEP`, each later read of any clock by the thread one step more;
/// `%globaltimer` counts nanoseconds of the same ticks.
const CLOCK_START: u64 = 1 << 20;
const CLOCK_STEP: u64 = 64;
const GLOBALTIMER_NS_PER_TICK: u64 = 32;

/// The warp collectives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WarpKind {
    Shfl(ShflMode),
    VoteAll,
    VoteAny,
    VoteUni,
    VoteBallot,
    MatchAny,
    MatchAll,
    Redux(ReduxOp, bool),
    WarpSync,
    ActiveMask,
    Tensor(TensorOp),
}

/// `shfl` modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ShflMode {
    Up,
    Down,
    Bfly,
    Idx,
}

/// `redux.sync` operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ReduxOp {
    Add,
    Min,
    Max,
    And,
    Or,
    Xor,
}

// Modifier classes a handler accepts.
const F_ROUND: u16 = 1;
const F_SAT: u16 = 2;
const F_FTZ: u16 = 4;
const F_SPACE: u16 = 8;
const F_VEC: u16 = 16;
const F_CMP: u16 = 32;
const F_PRMT: u16 = 64;
const F_MEM: u16 = 128;

/// Memory-ordering and cache qualifiers: meaningless to a sequential
/// interpreter that performs every access immediately. The cache-level
/// words are every `L1::*` and `L2::*` word of the vocabulary (a unit test
/// below keeps the list complete).
const MEMORY_HINTS: &[Word] = &[
    Word::NC,
    Word::CA,
    Word::CG,
    Word::CS,
    Word::LU,
    Word::CV,
    Word::WB,
    Word::WT,
    Word::WEAK,
    Word::VOLATILE,
    Word::RELAXED,
    Word::ACQUIRE,
    Word::RELEASE,
    Word::ACQ_REL,
    Word::CTA,
    Word::GPU,
    Word::SYS,
    Word::CLUSTER,
    Word::MMIO,
    Word::ALIGNED,
    Word::L1__EVICT_FIRST,
    Word::L1__EVICT_LAST,
    Word::L1__EVICT_NORMAL,
    Word::L1__EVICT_UNCHANGED,
    Word::L1__NO_ALLOCATE,
    Word::L2__64B,
    Word::L2__128B,
    Word::L2__256B,
    Word::L2__CACHE_HINT,
    Word::L2__EVICT_FIRST,
    Word::L2__EVICT_LAST,
    Word::L2__EVICT_NORMAL,
    Word::L2__EVICT_UNCHANGED,
];

fn float_format(t: ScalarType) -> Option<Format> {
    match t {
        ScalarType::F16 => Some(sf::F16),
        ScalarType::Bf16 => Some(sf::BF16),
        ScalarType::F32 => Some(sf::F32),
        ScalarType::F64 => Some(sf::F64),
        _ => None,
    }
}

/// The lane format of a float instruction type: (format, lanes, lane bits).
fn float_lanes(t: ScalarType) -> Option<(Format, u32, u32)> {
    match t {
        ScalarType::F16 => Some((sf::F16, 1, 16)),
        ScalarType::F16x2 => Some((sf::F16, 2, 16)),
        ScalarType::Bf16 => Some((sf::BF16, 1, 16)),
        ScalarType::Bf16x2 => Some((sf::BF16, 2, 16)),
        ScalarType::F32 => Some((sf::F32, 1, 32)),
        ScalarType::F64 => Some((sf::F64, 1, 64)),
        _ => None,
    }
}

fn float_mode(r: Rounding) -> Option<Mode> {
    match r {
        Rounding::Rn => Some(Mode::NearestEven),
        Rounding::Rz => Some(Mode::TowardZero),
        Rounding::Rm => Some(Mode::Down),
        Rounding::Rp => Some(Mode::Up),
        _ => None,
    }
}

fn int_mode(r: Rounding) -> Option<Mode> {
    match r {
        Rounding::Rni => Some(Mode::NearestEven),
        Rounding::Rzi => Some(Mode::TowardZero),
        Rounding::Rmi => Some(Mode::Down),
        Rounding::Rpi => Some(Mode::Up),
        _ => None,
    }
}

fn bits_type(bits: u32) -> Option<ScalarType> {
    match bits {
        1 => Some(ScalarType::Pred),
        8 => Some(ScalarType::B8),
        16 => Some(ScalarType::B16),
        32 => Some(ScalarType::B32),
        64 => Some(ScalarType::B64),
        128 => Some(ScalarType::B128),
        _ => None,
    }
}

fn int_type(bits: u32, signed: bool) -> Option<ScalarType> {
    if signed {
        ScalarType::signed_of_bits(bits)
    } else {
        ScalarType::unsigned_of_bits(bits)
    }
}

impl<'a, 'p> Ctx<'a, 'p> {
    // ------------------------------------------------------------ plumbing

    fn frame(&self) -> &Frame {
        self.thread.frames.last().expect("a running thread has a frame")
    }

    fn frame_mut(&mut self) -> &mut Frame {
        self.thread.frames.last_mut().expect("a running thread has a frame")
    }

    fn unsupported(&self, at: &At<'_>) -> InterpError {
        self.prog.unsupported(at.func, at.inst)
    }

    fn unsupported_because(&self, at: &At<'_>, why: &str) -> InterpError {
        self.prog.unsupported_because(at.func, at.inst, why)
    }

    fn invalid(&self, at: &At<'_>, what: &str) -> InterpError {
        self.prog.invalid(at.func, at.inst, what)
    }

    fn line(&self, at: &At<'_>) -> u32 {
        self.prog.line_of(at.inst)
    }

    fn modifier_text(&self, at: &At<'_>, m: &Modifier) -> String {
        let mut s = String::new();
        ptx_ir::print::write_modifier(at.func, m, &mut s);
        s
    }

    /// Errors unless every modifier is a type or in the accepted classes/words.
    /// A word the description does not know (`Modifier::Other`) is never
    /// accepted.
    fn check(&self, at: &At<'_>, words: &[Word], flags: u16) -> R<()> {
        for m in &at.inst.modifiers {
            let ok = match m {
                Modifier::Type(_) => true,
                Modifier::Space(..) => flags & F_SPACE != 0,
                Modifier::Rounding(_) => flags & F_ROUND != 0,
                Modifier::Cmp(_) => flags & F_CMP != 0,
                Modifier::Prmt(_) => flags & F_PRMT != 0,
                Modifier::Vector(_) => flags & F_VEC != 0,
                Modifier::Sat => flags & F_SAT != 0,
                Modifier::Ftz => flags & F_FTZ != 0,
                Modifier::Word(w) => words.contains(w) || (flags & F_MEM != 0 && MEMORY_HINTS.contains(w)),
                Modifier::Other(_) => false,
            };
            if !ok {
                let text = self.modifier_text(at, m);
                return Err(self.unsupported_because(at, &format!("modifier {text}")));
            }
        }
        Ok(())
    }

    /// True if the instruction has the modifier word `w` (as a
    /// `Modifier::Word`: not a type, space, rounding, ... spelt the same).
    fn word(at: &At<'_>, w: Word) -> bool {
        at.inst.has_word(w)
    }

    fn types(at: &At<'_>) -> Vec<ScalarType> {
        at.inst.types().collect()
    }

    fn one_type(&self, at: &At<'_>) -> R<ScalarType> {
        let t = Self::types(at);
        match t.as_slice() {
            [t] => Ok(*t),
            _ => Err(self.invalid(at, "expected exactly one instruction type")),
        }
    }

    fn ops(&self, at: &At<'_>, n: usize) -> R<()> {
        if at.inst.operands.len() == n {
            Ok(())
        } else {
            Err(self.invalid(at, &format!("expected {n} operands")))
        }
    }

    fn op<'x>(&self, at: &At<'x>, i: usize) -> R<&'x Operand> {
        at.inst.operands.get(i).ok_or_else(|| self.invalid(at, "missing operand"))
    }

    fn reg_bits(&self, at: &At<'_>, r: RegId) -> R<u32> {
        let ty = at.func.regs.get(r).ok_or_else(|| self.invalid(at, "unknown register"))?.ty;
        if ty.vector.is_some() {
            return Err(self.unsupported_because(at, "vector register"));
        }
        Ok(ty.scalar.bits())
    }

    fn reg_value(&self, r: RegId) -> u128 {
        self.frame().regs.get(r.index()).copied().unwrap_or(0)
    }

    /// A vector register (`.reg .v2 .u32 t`) keeps its elements side by
    /// side in its slot, element `i` at bit `i * element bits` (ptxas caps
    /// a vector at 128 bits, the width of a slot). That is the order in
    /// which `mov.b64 %rd, t` packs them, as it packs `{t.x, t.y}`: the
    /// whole register reads and writes as one value of all its bits. The
    /// element width and count of `r`; None for a scalar register.
    fn vector_shape(&self, at: &At<'_>, r: RegId) -> R<Option<(u32, u32)>> {
        let ty = at.func.regs.get(r).ok_or_else(|| self.invalid(at, "unknown register"))?.ty;
        let Some(n) = ty.vector else { return Ok(None) };
        let element = ty.scalar.bits();
        if element * n as u32 > 128 || ty.scalar == ScalarType::Pred {
            return Err(self.invalid(at, "vector register wider than 128 bits or of predicates"));
        }
        Ok(Some((element, n as u32)))
    }

    /// The shift and width of element `c` (`x y z w`, or `r g b a`) of
    /// vector register `r`.
    fn element(&self, at: &At<'_>, r: RegId, c: char) -> R<(u32, u32)> {
        let Some((element, n)) = self.vector_shape(at, r)? else {
            return Err(self.invalid(at, "a component of a scalar register"));
        };
        let index = match c {
            'x' | 'r' => 0,
            'y' | 'g' => 1,
            'z' | 'b' => 2,
            'w' | 'a' => 3,
            _ => n,
        };
        if index >= n {
            return Err(self.invalid(at, &format!("component .{c} of a vector of {n} elements")));
        }
        Ok((index * element, element))
    }

    /// The whole of vector register `r` read or written as a value of type
    /// `ty`: only as all its bits at once (`mov.b64 %rd, t`); an instruction
    /// of another width names elements.
    fn whole_vector(&self, at: &At<'_>, r: RegId, ty: ScalarType) -> R<Option<u32>> {
        match self.vector_shape(at, r)? {
            None => Ok(None),
            Some((element, n)) if element * n == ty.bits() => Ok(Some(element * n)),
            Some(_) => Err(self.invalid(at, "a vector register where a scalar of another width is expected")),
        }
    }

    /// The operands that name each element of `op`: the elements of `{a, b}`,
    /// `t.x, t.y, ...` of a vector register `t`, or `op` alone. What a
    /// vector `ld`/`st` of `n` elements moves.
    fn elements_of<'x>(&self, at: &At<'_>, op: &'x Operand) -> R<Vec<std::borrow::Cow<'x, Operand>>> {
        use std::borrow::Cow;
        Ok(match op {
            Operand::Vector(ops) => ops.iter().map(Cow::Borrowed).collect(),
            Operand::Reg(r) => match self.vector_shape(at, *r)? {
                Some((_, n)) => ['x', 'y', 'z', 'w'][..n as usize]
                    .iter()
                    .map(|&c| Cow::Owned(Operand::RegComponent(*r, c)))
                    .collect(),
                None => vec![Cow::Borrowed(op)],
            },
            other => vec![Cow::Borrowed(other)],
        })
    }

    /// The value of a source operand, in the low `ty.bits()` bits.
    fn value(&self, at: &At<'_>, op: &Operand, ty: ScalarType) -> R<u128> {
        let bits = ty.bits();
        match op {
            Operand::Reg(r) => {
                if self.whole_vector(at, *r, ty)?.is_none() {
                    self.reg_bits(at, *r)?;
                }
                Ok(self.reg_value(*r) & mask(bits))
            }
            Operand::RegComponent(r, c) => {
                let (shift, width) = self.element(at, *r, *c)?;
                Ok((self.reg_value(*r) >> shift) & mask(width) & mask(bits))
            }
            // ptxas reads any constant other than 0 as true (`mov.pred %p, 2`).
            Operand::Int(i) if ty == ScalarType::Pred => Ok((i.bits != 0) as u128),
            Operand::Int(i) => {
                if ty.is_float() {
                    if i.bits == 0 {
                        Ok(0)
                    } else {
                        Err(self.unsupported_because(at, "integer literal for a floating-point type"))
                    }
                } else {
                    Ok((i.bits as i64 as i128 as u128) & mask(bits))
                }
            }
            Operand::Float(f) => self.float_literal(at, f, ty),
            Operand::Special(n) => Ok(self.special(at, at.func.names.get(*n))? & mask(bits)),
            // The one predefined constant of PTX.
            Operand::Symbol(n) if at.func.names.get(*n) == "WARP_SZ" => Ok(32 & mask(bits)),
            Operand::Symbol(n) => {
                let (_, addr) = self.symbol(at, *n)?;
                Ok(addr as u128 & mask(bits))
            }
            Operand::RegOffset(reg_offset) if !ty.is_float() => {
                let (r, offset) = **reg_offset;
                self.reg_bits(at, r)?;
                Ok((self.reg_value(r) as u64).wrapping_add(offset.bits) as u128 & mask(bits))
            }
            Operand::SymbolOffset(symbol_offset) => {
                let (n, offset) = **symbol_offset;
                let (_, addr) = self.symbol(at, n)?;
                Ok(addr.wrapping_add(offset.bits) as u128 & mask(bits))
            }
            // `!1`, `!0`: C's logical not of an integer constant, whatever the type.
            Operand::Not(inner) => match &**inner {
                Operand::Int(i) => {
                    self.value(at, &Operand::Int(ptx_ir::IntImm { bits: (i.bits == 0) as u64, text: None }), ty)
                }
                _ if ty == ScalarType::Pred => Ok((self.value(at, inner, ty)? == 0) as u128),
                _ => Err(self.invalid(at, "'!' of a register that is no predicate")),
            },
            _ => Err(self.invalid(at, "unexpected operand kind")),
        }
    }

    fn float_literal(&self, at: &At<'_>, f: &FloatImm, ty: ScalarType) -> R<u128> {
        let v = match (ty, f.single()) {
            (ScalarType::F32, true) => f.bits & 0xffff_ffff,
            (ScalarType::F32, false) => sf::convert(f.bits, sf::F64, sf::F32, Mode::NearestEven),
            (ScalarType::F64, true) => sf::convert(f.bits, sf::F32, sf::F64, Mode::NearestEven),
            (ScalarType::F64, false) => f.bits,
            (t, true) if !t.is_float() && t.bits() == 32 => f.bits & 0xffff_ffff,
            (t, false) if !t.is_float() && t.bits() == 64 => f.bits,
            _ => return Err(self.unsupported_because(at, "floating-point literal of this width")),
        };
        Ok(v as u128)
    }

    fn pred(&self, at: &At<'_>, op: &Operand) -> R<bool> {
        match op {
            Operand::Reg(r) => Ok(self.reg_value(*r) & 1 != 0),
            Operand::Not(inner) => Ok(!self.pred(at, inner)?),
            Operand::Int(i) => Ok(i.bits != 0),
            _ => Err(self.invalid(at, "expected a predicate")),
        }
    }

    /// Writes `v` (of type `ty`) to a destination, extending to the register.
    fn write(&mut self, at: &At<'_>, op: &Operand, v: u128, ty: ScalarType) -> R<()> {
        match op {
            Operand::Reg(r) => {
                let rb = match self.whole_vector(at, *r, ty)? {
                    Some(bits) => bits,
                    None => self.reg_bits(at, *r)?,
                };
                let ext = extend(v, ty.bits(), rb, ty.is_signed());
                let slot = self.frame_mut().regs.get_mut(r.index());
                if let Some(s) = slot {
                    *s = ext;
                }
                Ok(())
            }
            // An element: extended to the element width, the others kept.
            Operand::RegComponent(r, c) => {
                let (shift, width) = self.element(at, *r, *c)?;
                let ext = extend(v, ty.bits(), width, ty.is_signed());
                if let Some(s) = self.frame_mut().regs.get_mut(r.index()) {
                    *s = (*s & !(mask(width) << shift)) | (ext << shift);
                }
                Ok(())
            }
            Operand::Sink => Ok(()),
            _ => Err(self.invalid(at, "destination must be a register")),
        }
    }

    fn write_pred(&mut self, at: &At<'_>, op: &Operand, v: bool) -> R<()> {
        match op {
            Operand::Reg(_) | Operand::Sink => self.write(at, op, v as u128, ScalarType::Pred),
            _ => Err(self.invalid(at, "destination must be a predicate")),
        }
    }

    fn special(&self, at: &At<'_>, name: &str) -> R<u128> {
        let (base, comp) = match name.split_once('.') {
            Some((b, c)) => (b, Some(c)),
            None => (name, None),
        };
        let dim = || -> R<usize> {
            match comp {
                Some("x") => Ok(0),
                Some("y") => Ok(1),
                Some("z") => Ok(2),
                _ => Err(self.unsupported_because(at, &format!("special register {name}"))),
            }
        };
        let t = &*self.thread;
        let l = self.launch;
        let lane = t.linear % 32;
        let v: u64 = match base {
            "%tid" => t.tid[dim()?] as u64,
            "%ntid" => l.block[dim()?] as u64,
            "%ctaid" => l.ctaid[dim()?] as u64,
            "%nctaid" => l.grid[dim()?] as u64,
            "%laneid" => lane as u64,
            "%lanemask_eq" => 1u64 << lane,
            "%lanemask_lt" => (1u64 << lane) - 1,
            "%lanemask_le" => (2u64 << lane) - 1,
            "%lanemask_gt" => !((2u64 << lane) - 1) & 0xffff_ffff,
            "%lanemask_ge" => !((1u64 << lane) - 1) & 0xffff_ffff,
            "%dynamic_smem_size" => l.dynamic_shared as u64,
            // Without a cluster launch every CTA is a cluster of one.
            "%is_explicit_cluster" => 0,
            "%cluster_ctarank" => 0,
            "%cluster_nctarank" => 1,
            "%cluster_ctaid" => {
                dim()?;
                0
            }
            "%cluster_nctaid" => {
                dim()?;
                1
            }
            "%clusterid" => l.ctaid[dim()?] as u64,
            "%nclusterid" => l.grid[dim()?] as u64,
            // Clocks tick once per read of any of them by this thread, so
            // both sides of a diff that read them in the same order see the
            // same values, whatever else they execute in between.
            "%clock" | "%clock64" | "%globaltimer" | "%globaltimer_lo" | "%globaltimer_hi" => {
                let tick = t.clock_reads.get() + 1;
                t.clock_reads.set(tick);
                let cycles = CLOCK_START + CLOCK_STEP * tick;
                match base {
                    "%clock" => cycles & 0xffff_ffff,
                    "%clock64" => cycles,
                    "%globaltimer_hi" => (cycles * GLOBALTIMER_NS_PER_TICK) >> 32,
                    "%globaltimer_lo" => (cycles * GLOBALTIMER_NS_PER_TICK) & 0xffff_ffff,
                    _ => cycles * GLOBALTIMER_NS_PER_TICK,
                }
            }
            _ => return Err(self.unsupported_because(at, &format!("special register {name}"))),
        };
        Ok(v as u128)
    }

    /// The space and in-space address of a symbol (functions get a code address).
    fn symbol(&self, at: &At<'_>, name: ptx_ir::Name) -> R<(Option<StateSpace>, u64)> {
        match at.info.bindings.get(&(at.pc as u32, name)) {
            Some(Binding::Frame(i)) => {
                let var = &at.info.frame_vars[*i];
                Ok((Some(var.space), self.frame().var_addr.get(*i).copied().unwrap_or(0)))
            }
            Some(Binding::Static(i)) => Ok((Some(self.prog.statics[*i].space), self.launch.static_addr[*i])),
            Some(Binding::Function(f)) => Ok((None, FUNCTION_BASE + 16 * f.index() as u64)),
            None => Err(self.invalid(at, &format!("unknown symbol '{}'", at.func.names.get(name)))),
        }
    }

    /// `at`'s instruction with each `arr[i]` (ISA 6.4.2) written as the
    /// address it names now, `[arr+offset]` with `i` scaled by the element
    /// size (a register index read as it is at this step).
    fn elements_resolved(&self, at: &At<'_>) -> R<Inst> {
        let mut inst = at.inst.clone();
        for op in inst.operands.iter_mut() {
            let Operand::Element(element) = op else { continue };
            let element_size = match at.info.bindings.get(&(at.pc as u32, element.array)) {
                Some(Binding::Frame(i)) => at.info.frame_vars[*i].element,
                Some(Binding::Static(i)) => self.prog.statics[*i].element,
                _ => None,
            };
            let Some(size) = element_size else {
                return Err(self.unsupported_because(at, "element of an array that is not one-dimensional scalars"));
            };
            let base = match element.index.reg() {
                Some(r) => {
                    let bits = self.reg_bits(at, r)?;
                    (self.reg_value(r) & mask(bits)) as u64
                }
                None => 0,
            };
            let offset = base.wrapping_add(element.index.constant()).wrapping_mul(size);
            *op = match at.inst.opcode {
                // `mov d, arr[i]`, `cvta`: the address as a value (where the
                // forms take a variable's address, `avar`).
                Opcode::Mov | Opcode::Cvta => {
                    Operand::SymbolOffset(Box::new((element.array, IntImm { bits: offset, text: None })))
                }
                // Everywhere else an element stands where `[a]` would.
                _ => Operand::Address(Box::new(Address::symbol(element.array, offset as i64))),
            };
        }
        Ok(inst)
    }

    // ------------------------------------------------------------ memory

    /// Resolves an address operand to (space, in-space address).
    fn address(&self, at: &At<'_>, a: &Address, space: Option<StateSpace>) -> R<(StateSpace, u64)> {
        if !a.rest.is_empty() {
            return Err(self.unsupported_because(at, "address with extra operands"));
        }
        let (var_space, base) = match &a.base {
            AddrBase::Reg(r) => {
                let bits = self.reg_bits(at, *r)?;
                (None, (self.reg_value(*r) & mask(bits)) as u64)
            }
            AddrBase::Symbol(n) => {
                let (s, addr) = self.symbol(at, *n)?;
                match s {
                    Some(s) => (Some(s), addr),
                    None => return Err(self.invalid(at, "a function is not data")),
                }
            }
            AddrBase::Absolute(i) => (None, i.bits),
        };
        let addr = base.wrapping_add(a.offset as u64);
        match (space, var_space) {
            (Some(s), Some(vs)) if s != vs => {
                Err(self.invalid(at, &format!("variable of .{} space accessed as .{}", vs.as_str(), s.as_str())))
            }
            (Some(s), _) => Ok((s, addr)),
            (None, Some(vs)) => Ok((vs, addr)),
            (None, None) => Ok(from_generic(addr)),
        }
    }

    fn fault(&self, at: &At<'_>, space: StateSpace, addr: u64, len: u64, what: &str) -> InterpError {
        for (s, lo, hi, why) in &self.mem.opaque {
            if *s == space && addr < *hi && addr + len > *lo {
                return InterpError::Unsupported { opcode: format!("access to {why}"), line: self.line(at) };
            }
        }
        InterpError::MemoryFault {
            message: format!("{what} of {len} bytes at .{} address {addr:#x}", space.as_str()),
            line: self.line(at),
        }
    }

    fn read_bytes(&self, at: &At<'_>, space: StateSpace, addr: u64, len: u64) -> R<Vec<u8>> {
        let seg = match space {
            StateSpace::Global => &self.mem.global,
            StateSpace::Const => &self.mem.constant,
            StateSpace::Shared => &self.cta.shared,
            StateSpace::Local => &self.thread.local,
            StateSpace::Param if addr >= PARAM_STACK_BASE => &self.thread.param,
            StateSpace::Param => &self.mem.kernel_param,
            _ => return Err(self.unsupported_because(at, "state space")),
        };
        seg.read(addr, len).map(|b| b.to_vec()).ok_or_else(|| self.fault(at, space, addr, len, "out-of-bounds read"))
    }

    fn write_bytes(&mut self, at: &At<'_>, space: StateSpace, addr: u64, bytes: &[u8]) -> R<()> {
        let seg = match space {
            StateSpace::Global => &mut self.mem.global,
            StateSpace::Const => &mut self.mem.constant,
            StateSpace::Shared => &mut self.cta.shared,
            StateSpace::Local => &mut self.thread.local,
            StateSpace::Param if addr >= PARAM_STACK_BASE => &mut self.thread.param,
            StateSpace::Param => &mut self.mem.kernel_param,
            _ => return Err(self.unsupported_because(at, "state space")),
        };
        match seg.write(addr, bytes) {
            Ok(()) => Ok(()),
            Err(true) => Err(self.fault(at, space, addr, bytes.len() as u64, "write to read-only memory")),
            Err(false) => Err(self.fault(at, space, addr, bytes.len() as u64, "out-of-bounds write")),
        }
    }

    /// A memory instruction has `n` operands, plus a cache policy only with
    /// `.L2::cache_hint`.
    fn check_hint_operand(&self, at: &At<'_>, n: usize) -> R<()> {
        let len = at.inst.operands.len();
        if len == n || (len == n + 1 && Self::word(at, Word::L2__CACHE_HINT)) {
            Ok(())
        } else {
            Err(self.invalid(at, "operand count"))
        }
    }

    fn check_align(&self, at: &At<'_>, space: StateSpace, addr: u64, align: u64) -> R<()> {
        if align > 1 && addr & (align - 1) != 0 {
            return Err(InterpError::MemoryFault {
                message: format!(
                    "misaligned access at .{} address {addr:#x} (needs {align}-byte alignment)",
                    space.as_str()
                ),
                line: self.line(at),
            });
        }
        Ok(())
    }

    // ------------------------------------------------------------ frames

    /// Pushes a frame for `func`. `args` are the bytes of each formal
    /// parameter; for a kernel, `kernel_params` gives where its params live.
    pub(crate) fn enter(
        &mut self,
        func: FuncId,
        args: &[Vec<u8>],
        kernel_params: &[(usize, u64)],
        results: Vec<ResultDest>,
    ) -> R<()> {
        let prog = self.prog;
        let f = &prog.module.functions[func];
        let info = &prog.funcs[func.index()];
        if self.thread.frames.len() >= MAX_CALL_DEPTH {
            return Err(InterpError::Undefined { message: format!("call depth exceeds {MAX_CALL_DEPTH}"), line: 0 });
        }
        if let Some(v) = info.frame_vars.iter().find(|v| v.size > crate::memory::MAX_VARIABLE_BYTES) {
            return Err(InterpError::Unsupported {
                opcode: format!("{} bytes of .{} variable {}", v.size, v.space.as_str(), v.name),
                line: 0,
            });
        }
        let local_mark = self.thread.local.len();
        let param_mark = self.thread.param.len();
        let mut var_addr = Vec::with_capacity(info.frame_vars.len());
        for (i, v) in info.frame_vars.iter().enumerate() {
            if let Some(&(_, addr)) = kernel_params.iter().find(|(k, _)| *k == i) {
                var_addr.push(addr);
                continue;
            }
            let seg = if v.space == StateSpace::Local { &mut self.thread.local } else { &mut self.thread.param };
            var_addr.push(seg.push(frame_floor(v.space), v.size, v.align, &v.name));
        }
        let mut regs = vec![0u128; f.regs.len()];
        if kernel_params.is_empty() {
            for (formal, bytes) in info.params.iter().zip(args) {
                match formal {
                    Formal::Mem(i) => {
                        let size = info.frame_vars[*i].size as usize;
                        let mut b = bytes.clone();
                        b.resize(size, 0);
                        let _ = self.thread.param.write(var_addr[*i], &b);
                    }
                    Formal::Reg(r, ty) => {
                        if let Some(slot) = regs.get_mut(r.index()) {
                            *slot = from_bytes(bytes) & mask(ty.bits());
                        }
                    }
                    Formal::Unresolved => {
                        return Err(InterpError::Unsupported { opcode: format!("parameters of {}", f.name), line: 0 })
                    }
                }
            }
        }
        self.thread.frames.push(Frame { func, pc: 0, regs, var_addr, local_mark, param_mark, results });
        Ok(())
    }

    /// Pops the innermost frame, delivering its return values.
    fn leave(&mut self) -> R<()> {
        let Some(frame) = self.thread.frames.pop() else { return Ok(()) };
        let info = &self.prog.funcs[frame.func.index()];
        let mut values = Vec::new();
        for formal in &info.returns {
            match formal {
                Formal::Mem(i) => {
                    let size = info.frame_vars[*i].size;
                    let bytes =
                        self.thread.param.read(frame.var_addr[*i], size).map(|b| b.to_vec()).unwrap_or_default();
                    values.push(bytes);
                }
                Formal::Reg(r, ty) => {
                    let v = frame.regs.get(r.index()).copied().unwrap_or(0);
                    values.push(to_bytes(v, ty.bytes() as usize));
                }
                Formal::Unresolved => values.push(Vec::new()),
            }
        }
        self.thread.local.truncate(frame.local_mark);
        self.thread.param.truncate(frame.param_mark);
        if self.thread.frames.is_empty() {
            self.thread.returned = Some(values.concat());
            self.thread.status = Status::Exited;
            return Ok(());
        }
        for (dest, bytes) in frame.results.iter().zip(&values) {
            match *dest {
                ResultDest::Mem(addr, size) => {
                    let n = (size as usize).min(bytes.len());
                    let _ = self.thread.param.write(addr, &bytes[..n]);
                }
                ResultDest::Reg(r, ty) => {
                    let caller = self.frame_mut();
                    if let Some(slot) = caller.regs.get_mut(r.index()) {
                        *slot = from_bytes(bytes) & mask(ty.bits());
                    }
                }
            }
        }
        self.frame_mut().pc += 1;
        Ok(())
    }

    // ------------------------------------------------------------ stepping

    /// Executes one instruction of the thread.
    pub(crate) fn step(&mut self) -> R<()> {
        let prog = self.prog;
        let Some(frame) = self.thread.frames.last() else {
            self.thread.status = Status::Exited;
            return Ok(());
        };
        let (fid, pc) = (frame.func, frame.pc);
        let info = &prog.funcs[fid.index()];
        let func = &prog.module.functions[fid];
        let Some(&iid) = info.code.get(pc) else {
            // Falling off the end of a body returns.
            return self.leave();
        };
        self.coverage.mark(fid.index(), pc, info.code.len());
        let inst = &func.insts[iid];
        let at = At { func, info, pc, inst };
        if let Some(g) = inst.guard {
            let v = self.reg_value(g.reg()) & 1 != 0;
            if v == g.negated() {
                self.frame_mut().pc += 1;
                return Ok(());
            }
        }
        match self.exec(&at)? {
            Flow::Next => self.frame_mut().pc += 1,
            Flow::Jump(t) => self.frame_mut().pc = t,
            Flow::Stay => {}
        }
        Ok(())
    }

    fn exec(&mut self, at: &At<'_>) -> R<Flow> {
        use Opcode::*;
        if at.inst.operands.iter().any(|op| matches!(op, Operand::Element(_))) {
            let inst = self.elements_resolved(at)?;
            return self.exec(&At { inst: &inst, ..*at });
        }
        match at.inst.opcode {
            Ld | Ldu => self.exec_ld(at),
            St => self.exec_st(at),
            Mov => self.exec_mov(at),
            Cvt => self.exec_cvt(at),
            Cvta => self.exec_cvta(at),
            Prmt => self.exec_prmt(at),
            Add | Sub => self.exec_add_sub(at),
            Addc | Subc => self.exec_addc(at),
            Mul => self.exec_mul(at),
            Mad | Madc => self.exec_mad(at),
            Mul24 | Mad24 => self.exec_mul24(at),
            Fma => self.exec_fma(at),
            Div => self.exec_div(at),
            Rem => self.exec_rem(at),
            Min | Max => self.exec_min_max(at),
            Abs | Neg => self.exec_abs_neg(at),
            And | Or | Xor => self.exec_logic(at),
            Not | Cnot => self.exec_not(at),
            Shl | Shr => self.exec_shift(at),
            Shf => self.exec_shf(at),
            Bfe => self.exec_bfe(at),
            Bfi => self.exec_bfi(at),
            Bfind => self.exec_bfind(at),
            Bmsk => self.exec_bmsk(at),
            Szext => self.exec_szext(at),
            Popc | Clz | Brev => self.exec_bitcount(at),
            Fns => self.exec_fns(at),
            Lop3 => self.exec_lop3(at),
            Dp4a | Dp2a => self.exec_dp(at),
            Sad => self.exec_sad(at),
            Setp | Set => self.exec_setp(at),
            Selp => self.exec_selp(at),
            Slct => self.exec_slct(at),
            Sqrt | Rcp => self.exec_sqrt_rcp(at),
            Ex2 => self.exec_approx(at, ApproxFn::Ex2),
            Lg2 => self.exec_approx(at, ApproxFn::Lg2),
            Sin => self.exec_approx(at, ApproxFn::Sin),
            Cos => self.exec_approx(at, ApproxFn::Cos),
            Tanh => self.exec_approx(at, ApproxFn::Tanh),
            Rsqrt => self.exec_approx(at, ApproxFn::Rsqrt),
            Copysign => self.exec_copysign(at),
            Testp => self.exec_testp(at),
            Bra => self.exec_bra(at),
            Call => self.exec_call(at),
            Ret => {
                self.check(at, &[Word::UNI], 0)?;
                self.leave()?;
                Ok(Flow::Stay)
            }
            Exit => {
                self.check(at, &[], 0)?;
                self.thread.frames.clear();
                self.thread.status = Status::Exited;
                Ok(Flow::Stay)
            }
            Trap => Err(InterpError::Undefined { message: "trap executed".into(), line: self.line(at) }),
            Bar | Barrier => self.exec_bar(at),
            Shfl | Vote | Match | Redux | Activemask => self.exec_warp(at),
            Ldmatrix | Mma | Movmatrix | Stmatrix | Wmma => self.exec_tensor(at),
            Atom | Red => self.exec_atom(at),
            Vadd2 | Vsub2 | Vavrg2 | Vabsdiff2 | Vmin2 | Vmax2 | Vset2 | Vadd4 | Vsub4 | Vavrg4 | Vabsdiff4 | Vmin4
            | Vmax4 | Vset4 => self.exec_video_simd(at),
            Vshl | Vshr => self.exec_video_shift(at),
            Isspacep => self.exec_isspacep(at),
            Cp => self.exec_cp(at),
            // Ordering and hints: every access is performed at once, in order.
            Membar | Fence | Nanosleep | Prefetch | Prefetchu | Griddepcontrol | Pmevent => Ok(Flow::Next),
            // A cache line's eviction priority: what caches keep, not values.
            Applypriority => Ok(Flow::Next),
            Createpolicy => {
                // The policy is an opaque hint only consumed by cache hints.
                self.write(at, self.op(at, 0)?, 0, ScalarType::B64)?;
                Ok(Flow::Next)
            }
            Tex | Tld4 | Txq | Suld | Sust | Suq => self.exec_texture(at),
            // Not interpreted: an instruction of these reports "unsupported".
            Alloca | Brkpt | Brx | Clusterlaunchcontrol | Discard | Elect | Getctarank | Istypep | Mapa | Mbarrier
            | Multimem | Setmaxnreg | Stackrestore | Stacksave | Sured | Tcgen05 | Tensormap | Vabsdiff | Vadd
            | Vmad | Vmax | Vmin | Vset | Vsub | Wgmma => Err(self.unsupported(at)),
            Other(_) => Err(self.unsupported(at)),
        }
    }

    // ------------------------------------------------------------ data movement

    fn exec_ld(&mut self, at: &At<'_>) -> R<Flow> {
        self.check(at, &[], F_SPACE | F_VEC | F_MEM)?;
        let v = at.inst.as_ld().ok_or_else(|| self.invalid(at, "malformed ld"))?;
        self.check_hint_operand(at, 2)?;
        if v.ty == ScalarType::Pred || !matches!(v.ty.bits(), 8 | 16 | 32 | 64 | 128) {
            return Err(self.unsupported_because(at, "load type"));
        }
        let n = v.vector.unwrap_or(1) as u64;
        let elem = v.ty.bytes() as u64;
        let dsts = self.elements_of(at, v.dst)?;
        if dsts.len() as u64 != n {
            return Err(self.invalid(at, "vector width does not match the destination"));
        }
        let (space, addr) = self.address(at, v.addr, v.space)?;
        self.check_align(at, space, addr, elem * n)?;
        let bytes = self.read_bytes(at, space, addr, elem * n)?;
        for (i, d) in dsts.iter().enumerate() {
            let chunk = &bytes[i * elem as usize..(i + 1) * elem as usize];
            self.write(at, d, from_bytes(chunk), v.ty)?;
        }
        Ok(Flow::Next)
    }

    fn exec_st(&mut self, at: &At<'_>) -> R<Flow> {
        self.check(at, &[], F_SPACE | F_VEC | F_MEM)?;
        let v = at.inst.as_st().ok_or_else(|| self.invalid(at, "malformed st"))?;
        self.check_hint_operand(at, 2)?;
        if v.ty == ScalarType::Pred || !matches!(v.ty.bits(), 8 | 16 | 32 | 64 | 128) {
            return Err(self.unsupported_because(at, "store type"));
        }
        let n = v.vector.unwrap_or(1) as u64;
        let elem = v.ty.bytes() as u64;
        let srcs = self.elements_of(at, v.src)?;
        if srcs.len() as u64 != n {
            return Err(self.invalid(at, "vector width does not match the source"));
        }
        let (space, addr) = self.address(at, v.addr, v.space)?;
        self.check_align(at, space, addr, elem * n)?;
        // Check the whole range first so a faulting store writes nothing.
        self.read_bytes(at, space, addr, elem * n)?;
        for (i, s) in srcs.iter().enumerate() {
            if matches!(**s, Operand::Sink) {
                continue;
            }
            let value = self.value(at, s, v.ty)?;
            self.write_bytes(at, space, addr + i as u64 * elem, &to_bytes(value, elem as usize))?;
        }
        Ok(Flow::Next)
    }

    fn exec_mov(&mut self, at: &At<'_>) -> R<Flow> {
        self.check(at, &[], F_VEC)?;
        let v = at.inst.as_mov().ok_or_else(|| self.invalid(at, "malformed mov"))?;
        if let Some(n) = at.inst.vector() {
            // `mov.v2.u32 u, t`: element by element (vector registers or braces).
            let (dsts, srcs) = (self.elements_of(at, v.dst)?, self.elements_of(at, v.src)?);
            if dsts.len() != n as usize || srcs.len() != n as usize {
                return Err(self.invalid(at, "vector width does not match the operands"));
            }
            let values = srcs.iter().map(|s| self.value(at, s, v.ty)).collect::<R<Vec<_>>>()?;
            for (d, value) in dsts.iter().zip(values) {
                self.write(at, d, value, v.ty)?;
            }
            return Ok(Flow::Next);
        }
        match (v.dst, v.src) {
            (Operand::Vector(ds), src) => {
                let eb = v.ty.bits() / ds.len().max(1) as u32;
                let et = bits_type(eb).ok_or_else(|| self.invalid(at, "vector element width"))?;
                let value = self.value(at, src, v.ty)?;
                for (i, d) in ds.iter().enumerate() {
                    self.write(at, d, (value >> (i as u32 * eb)) & mask(eb), et)?;
                }
            }
            (dst, Operand::Vector(ss)) => {
                let eb = v.ty.bits() / ss.len().max(1) as u32;
                let et = bits_type(eb).ok_or_else(|| self.invalid(at, "vector element width"))?;
                let mut value = 0u128;
                for (i, s) in ss.iter().enumerate() {
                    value |= self.value(at, s, et)? << (i as u32 * eb);
                }
                self.write(at, dst, value, v.ty)?;
            }
            (dst, src) => {
                let value = self.value(at, src, v.ty)?;
                self.write(at, dst, value, v.ty)?;
            }
        }
        Ok(Flow::Next)
    }

    fn exec_cvta(&mut self, at: &At<'_>) -> R<Flow> {
        self.check(at, &[Word::TO], F_SPACE)?;
        self.ops(at, 2)?;
        let ty = self.one_type(at)?;
        let space = at.inst.space().ok_or_else(|| self.invalid(at, "cvta needs a state space"))?;
        let src = self.op(at, 1)?;
        let to = Self::word(at, Word::TO);
        let value = match src {
            Operand::Symbol(n) => {
                let (s, addr) = self.symbol(at, *n)?;
                if s != Some(space) {
                    return Err(self.invalid(at, "variable of another state space"));
                }
                addr
            }
            other => self.value(at, other, ty)? as u64,
        };
        let result = if to {
            let (s, addr) = from_generic(value);
            if s != space {
                return Err(InterpError::Undefined {
                    message: format!("generic address {value:#x} is not in the .{} window", space.as_str()),
                    line: self.line(at),
                });
            }
            addr
        } else {
            match to_generic(space, value) {
                Some(g) if value < WINDOW_SIZE || space == StateSpace::Global => g,
                _ => {
                    return Err(InterpError::Undefined {
                        message: format!(".{} address {value:#x} has no generic address", space.as_str()),
                        line: self.line(at),
                    })
                }
            }
        };
        self.write(at, self.op(at, 0)?, result as u128, ty)?;
        Ok(Flow::Next)
    }

    fn exec_isspacep(&mut self, at: &At<'_>) -> R<Flow> {
        self.check(at, &[], F_SPACE)?;
        self.ops(at, 2)?;
        let space = at.inst.space().ok_or_else(|| self.invalid(at, "isspacep needs a state space"))?;
        let a = self.value(at, self.op(at, 1)?, ScalarType::U64)? as u64;
        let (s, _) = from_generic(a);
        // The param window lies inside the global window (ISA isspacep).
        let r = s == space || (space == StateSpace::Global && s == StateSpace::Param);
        self.write_pred(at, self.op(at, 0)?, r)?;
        Ok(Flow::Next)
    }

    fn exec_prmt(&mut self, at: &At<'_>) -> R<Flow> {
        self.check(at, &[], F_PRMT)?;
        let v = at.inst.as_prmt().ok_or_else(|| self.invalid(at, "malformed prmt"))?;
        let a = self.value(at, v.a, ScalarType::B32)? as u32;
        let b = self.value(at, v.b, ScalarType::B32)? as u32;
        let c = self.value(at, v.selector, ScalarType::B32)? as u32;
        self.write(at, v.dst, intops::prmt(a, b, c, v.mode) as u128, ScalarType::B32)?;
        Ok(Flow::Next)
    }

    // ------------------------------------------------------------ conversions

    fn exec_cvt(&mut self, at: &At<'_>) -> R<Flow> {
        if at.inst.is_cvt_pack() {
            return self.exec_cvt_pack(at);
        }
        self.check(at, &[Word::RELU, Word::SATFINITE], F_ROUND | F_SAT | F_FTZ)?;
        let types = Self::types(at);
        let fp8 = |t: &ScalarType| matches!(t, ScalarType::E4m3x2 | ScalarType::E5m2x2);
        if types.len() == 2 && (fp8(&types[0]) || fp8(&types[1])) {
            return self.exec_cvt_fp8(at, types[0], types[1]);
        }
        if types == [ScalarType::Tf32, ScalarType::F32] {
            return self.exec_cvt_tf32(at);
        }
        if at.inst.operands.len() == 3 && types.len() == 2 && matches!(types[0], ScalarType::F16x2 | ScalarType::Bf16x2)
        {
            return self.exec_cvt_x2(at, types[0], types[1]);
        }
        let c = at.inst.as_cvt().ok_or_else(|| self.unsupported(at))?;
        let (dt, st) = (c.dst_ty, c.src_ty);
        let relu = Self::word(at, Word::RELU);
        let satfinite = Self::word(at, Word::SATFINITE);
        for t in [dt, st] {
            if t.is_integer_like() && !matches!(t.bits(), 8 | 16 | 32 | 64) {
                return Err(self.unsupported_because(at, "conversion types"));
            }
        }
        let src = self.value(at, c.src, st)?;
        let result = match (float_format(dt), float_format(st)) {
            (None, None) => {
                if !dt.is_integer_like() || !st.is_integer_like() || dt == ScalarType::Pred {
                    return Err(self.unsupported_because(at, "conversion types"));
                }
                if c.rounding.is_some() || c.ftz || relu || satfinite {
                    return Err(self.invalid(at, "modifier on an integer-to-integer conversion"));
                }
                let (db, sb) = (dt.bits(), st.bits());
                if c.sat {
                    saturate(int_value(src, sb, st.is_signed()), dt.is_signed(), db)
                } else {
                    extend(src, sb, db.max(sb), st.is_signed()) & mask(db)
                }
            }
            (Some(df), None) => {
                if !st.is_integer_like() {
                    return Err(self.unsupported_because(at, "conversion types"));
                }
                let mode = c
                    .rounding
                    .and_then(float_mode)
                    .ok_or_else(|| self.invalid(at, "integer-to-float conversion needs .rn, .rz, .rm or .rp"))?;
                if relu || satfinite {
                    return Err(self.unsupported_because(at, "modifier on an integer-to-float conversion"));
                }
                let v = int_value(src, st.bits(), st.is_signed());
                let mut r = sf::from_int(v < 0, v.unsigned_abs(), df, mode);
                if c.ftz && dt == ScalarType::F32 {
                    r = df.flush(r);
                }
                if c.sat {
                    r = df.saturate(r);
                }
                r as u128
            }
            (None, Some(sfmt)) => {
                if !dt.is_integer_like() || dt == ScalarType::Pred {
                    return Err(self.unsupported_because(at, "conversion types"));
                }
                let mode = c
                    .rounding
                    .and_then(int_mode)
                    .ok_or_else(|| self.invalid(at, "float-to-integer conversion needs .rni, .rzi, .rmi or .rpi"))?;
                if relu || satfinite {
                    return Err(self.unsupported_because(at, "modifier on a float-to-integer conversion"));
                }
                let mut bits = src as u64;
                if c.ftz && st == ScalarType::F32 {
                    bits = sfmt.flush(bits);
                }
                // Float-to-integer conversions saturate whether or not .sat is given.
                sf::to_int(bits, sfmt, mode, dt.is_signed(), dt.bits()) as u128
            }
            (Some(df), Some(sfmt)) => {
                let mut bits = src as u64;
                if c.ftz && st == ScalarType::F32 {
                    bits = sfmt.flush(bits);
                }
                let widening = df.man_bits >= sfmt.man_bits && df.exp_bits >= sfmt.exp_bits;
                let mut r = if dt == st {
                    match c.rounding {
                        Some(r) => match int_mode(r) {
                            Some(m) => sf::round_to_integral(bits, sfmt, m),
                            None => {
                                return Err(self.invalid(at, "same-type float conversion takes an integer rounding"))
                            }
                        },
                        None => {
                            if sfmt.is_nan(bits) {
                                sfmt.canonical_nan()
                            } else {
                                bits
                            }
                        }
                    }
                } else if widening {
                    match c.rounding.map(|r| (int_mode(r), float_mode(r))) {
                        Some((Some(m), _)) => {
                            sf::convert(sf::round_to_integral(bits, sfmt, m), sfmt, df, Mode::NearestEven)
                        }
                        Some((None, Some(_))) | None => sf::convert(bits, sfmt, df, Mode::NearestEven),
                        Some((None, None)) => return Err(self.unsupported_because(at, "rounding modifier")),
                    }
                } else {
                    match c.rounding {
                        Some(r) => match float_mode(r) {
                            Some(m) => sf::convert(bits, sfmt, df, m),
                            None => {
                                return Err(self.unsupported_because(at, "rounding modifier of a narrowing conversion"))
                            }
                        },
                        None => return Err(self.invalid(at, "narrowing float conversion needs .rn, .rz, .rm or .rp")),
                    }
                };
                if satfinite && df.is_inf(r) {
                    r = df.max_finite(df.is_negative(r));
                }
                if relu && !df.is_nan(r) && df.is_negative(r) {
                    r = 0;
                }
                if c.ftz && dt == ScalarType::F32 {
                    r = df.flush(r);
                }
                if c.sat {
                    r = df.saturate(r);
                }
                r as u128
            }
        };
        self.write(at, c.dst, result, dt)?;
        Ok(Flow::Next)
    }

    /// `cvt.frnd{.relu}{.satfinite}.f16x2.f32 d, a, b` (and `.bf16x2`).
    fn exec_cvt_x2(&mut self, at: &At<'_>, dt: ScalarType, st: ScalarType) -> R<Flow> {
        if st != ScalarType::F32 || at.inst.is_ftz() || at.inst.is_sat() {
            return Err(self.unsupported(at));
        }
        let df = if dt == ScalarType::F16x2 { sf::F16 } else { sf::BF16 };
        let mode = at
            .inst
            .rounding()
            .and_then(float_mode)
            .ok_or_else(|| self.invalid(at, "conversion to a packed half needs .rn, .rz, .rm or .rp"))?;
        let relu = Self::word(at, Word::RELU);
        let satfinite = Self::word(at, Word::SATFINITE);
        let conv = |bits: u64| {
            let mut r = sf::convert(bits, sf::F32, df, mode);
            if satfinite && df.is_inf(r) {
                r = df.max_finite(df.is_negative(r));
            }
            if relu && !df.is_nan(r) && df.is_negative(r) {
                r = 0;
            }
            r
        };
        let a = self.value(at, self.op(at, 1)?, ScalarType::F32)? as u64;
        let b = self.value(at, self.op(at, 2)?, ScalarType::F32)? as u64;
        let d = (conv(a) << 16) | conv(b);
        self.write(at, self.op(at, 0)?, d as u128, ScalarType::B32)?;
        Ok(Flow::Next)
    }

    /// Conversions to and from packed 8-bit floats (`.e4m3x2`, `.e5m2x2`).
    fn exec_cvt_fp8(&mut self, at: &At<'_>, dt: ScalarType, st: ScalarType) -> R<Flow> {
        if at.inst.is_ftz() || at.inst.is_sat() || at.inst.rounding() != Some(Rounding::Rn) {
            return Err(self.unsupported_because(at, "8-bit float conversions are modelled with .rn only"));
        }
        let kind = |t: ScalarType| if t == ScalarType::E4m3x2 { sf::Fp8::E4m3 } else { sf::Fp8::E5m2 };
        let relu = Self::word(at, Word::RELU);
        let satfinite = Self::word(at, Word::SATFINITE);
        let n = at.inst.operands.len();
        let d: u128 = match (dt, st) {
            (ScalarType::E4m3x2 | ScalarType::E5m2x2, ScalarType::F32) if n == 3 => {
                if !satfinite {
                    return Err(self.invalid(at, "conversion to an 8-bit float needs .satfinite"));
                }
                let a = self.value(at, self.op(at, 1)?, ScalarType::F32)? as u64;
                let b = self.value(at, self.op(at, 2)?, ScalarType::F32)? as u64;
                let c = |x| sf::to_fp8(x, sf::F32, kind(dt), Mode::NearestEven, relu) as u128;
                (c(a) << 8) | c(b)
            }
            (ScalarType::E4m3x2 | ScalarType::E5m2x2, ScalarType::F16x2) if n == 2 => {
                if !satfinite {
                    return Err(self.invalid(at, "conversion to an 8-bit float needs .satfinite"));
                }
                let a = self.value(at, self.op(at, 1)?, ScalarType::B32)? as u64;
                let c = |x| sf::to_fp8(x, sf::F16, kind(dt), Mode::NearestEven, relu) as u128;
                (c(a >> 16 & 0xffff) << 8) | c(a & 0xffff)
            }
            (ScalarType::F16x2, ScalarType::E4m3x2 | ScalarType::E5m2x2) if n == 2 => {
                if satfinite {
                    return Err(self.invalid(at, ".satfinite on a widening conversion"));
                }
                let a = self.value(at, self.op(at, 1)?, ScalarType::B16)? as u64;
                let c = |x: u64| {
                    let h = sf::fp8_to_f16(x as u8, kind(st));
                    (if relu && !sf::F16.is_nan(h) && sf::F16.is_negative(h) { 0 } else { h }) as u128
                };
                (c(a >> 8) << 16) | c(a & 0xff)
            }
            _ => return Err(self.unsupported_because(at, "8-bit float conversion form")),
        };
        let dty = if dt == ScalarType::F16x2 { ScalarType::B32 } else { ScalarType::B16 };
        self.write(at, self.op(at, 0)?, d, dty)?;
        Ok(Flow::Next)
    }

    fn exec_cvt_pack(&mut self, at: &At<'_>) -> R<Flow> {
        self.check(at, &[Word::PACK], F_SAT)?;
        let p = at.inst.as_cvt_pack().ok_or_else(|| self.invalid(at, "malformed cvt.pack"))?;
        if !at.inst.is_sat() {
            return Err(self.invalid(at, "cvt.pack requires .sat"));
        }
        if p.ab_ty != ScalarType::S32 {
            return Err(self.invalid(at, "cvt.pack inputs must be .s32"));
        }
        let wide = matches!(p.convert_ty, ScalarType::U16 | ScalarType::S16);
        if wide == p.c.is_some() {
            return Err(self.invalid(at, "operand c is required exactly for the 8-, 4- and 2-bit forms"));
        }
        let a = self.value(at, p.a, ScalarType::S32)? as u32 as i32;
        let b = self.value(at, p.b, ScalarType::S32)? as u32 as i32;
        let c = match p.c {
            Some(c) => self.value(at, c, ScalarType::B32)? as u32,
            None => 0,
        };
        let d = intops::cvt_pack(p.convert_ty, a, b, c).ok_or_else(|| self.unsupported(at))?;
        self.write(at, p.dst, d as u128, ScalarType::U32)?;
        Ok(Flow::Next)
    }

    // ------------------------------------------------------------ integer arithmetic

    fn int_type_checked(&self, at: &At<'_>, t: ScalarType) -> R<u32> {
        if t.is_integer_like() && matches!(t.bits(), 16 | 32 | 64) {
            Ok(t.bits())
        } else {
            Err(self.unsupported_because(at, "instruction type"))
        }
    }

    fn src3(&self, at: &At<'_>, ty: ScalarType) -> R<(u128, u128)> {
        Ok((self.value(at, self.op(at, 1)?, ty)?, self.value(at, self.op(at, 2)?, ty)?))
    }

    fn exec_add_sub(&mut self, at: &At<'_>) -> R<Flow> {
        let is_sub = at.inst.opcode == Opcode::Sub;
        let halves = Self::word(at, Word::U16X2) || Self::word(at, Word::S16X2);
        if halves {
            self.check(at, &[Word::U16X2, Word::S16X2], 0)?;
            self.ops(at, 3)?;
            let (a, b) = self.src3(at, ScalarType::B32)?;
            let mut d = 0u128;
            for k in 0..2 {
                let (x, y) = ((a >> (16 * k)) & 0xffff, (b >> (16 * k)) & 0xffff);
                let r = if is_sub { x.wrapping_sub(y) } else { x + y } & 0xffff;
                d |= r << (16 * k);
            }
            self.write(at, self.op(at, 0)?, d, ScalarType::B32)?;
            return Ok(Flow::Next);
        }
        let t = self.one_type(at)?;
        if float_lanes(t).is_some() {
            return self.float_binary(at, t, if is_sub { FOp::Sub } else { FOp::Add });
        }
        self.check(at, &[Word::CC], F_SAT)?;
        self.ops(at, 3)?;
        let bits = self.int_type_checked(at, t)?;
        let (a, b) = self.src3(at, t)?;
        let cc = Self::word(at, Word::CC);
        let d = if at.inst.is_sat() {
            if t != ScalarType::S32 {
                return Err(self.invalid(at, ".sat applies only to .s32"));
            }
            let (x, y) = (int_value(a, 32, true), int_value(b, 32, true));
            saturate(if is_sub { x - y } else { x + y }, true, 32)
        } else if is_sub {
            // The hardware subtracts by adding the complement plus one
            // (IADD3 d, CF, a, -b), so CF is the carry of that addition:
            // set when there is no borrow.
            if cc {
                self.thread.carry = a >= b;
            }
            a.wrapping_sub(b) & mask(bits)
        } else {
            let s = a + b;
            if cc {
                self.thread.carry = s >> bits != 0;
            }
            s & mask(bits)
        };
        self.write(at, self.op(at, 0)?, d, t)?;
        Ok(Flow::Next)
    }

    fn exec_addc(&mut self, at: &At<'_>) -> R<Flow> {
        self.check(at, &[Word::CC], 0)?;
        self.ops(at, 3)?;
        let t = self.one_type(at)?;
        let bits = self.int_type_checked(at, t)?;
        let (a, b) = self.src3(at, t)?;
        let cin = self.thread.carry as u128;
        let cc = Self::word(at, Word::CC);
        let d = if at.inst.opcode == Opcode::Subc {
            // d = a + ~b + CF (IADD3.X d, a, ~b, CF), carry out as for addc:
            // CF = 1 means "no borrow", whichever instruction set it.
            let s = a + (!b & mask(bits)) + cin;
            if cc {
                self.thread.carry = s >> bits != 0;
            }
            s & mask(bits)
        } else {
            let s = a + b + cin;
            if cc {
                self.thread.carry = s >> bits != 0;
            }
            s & mask(bits)
        };
        self.write(at, self.op(at, 0)?, d, t)?;
        Ok(Flow::Next)
    }

    /// The full product of two integers of `bits` bits, as a 2*bits pattern.
    fn wide_product(a: u128, b: u128, bits: u32, signed: bool) -> u128 {
        if signed {
            (int_value(a, bits, true).wrapping_mul(int_value(b, bits, true)) as u128) & mask(2 * bits)
        } else {
            (a & mask(bits)).wrapping_mul(b & mask(bits)) & mask(2 * bits)
        }
    }

    fn mul_mode(at: &At<'_>) -> Word {
        if Self::word(at, Word::WIDE) {
            Word::WIDE
        } else if Self::word(at, Word::HI) {
            Word::HI
        } else {
            Word::LO
        }
    }

    fn exec_mul(&mut self, at: &At<'_>) -> R<Flow> {
        let t = self.one_type(at)?;
        if float_lanes(t).is_some() {
            return self.float_binary(at, t, FOp::Mul);
        }
        self.check(at, &[Word::LO, Word::HI, Word::WIDE], 0)?;
        self.ops(at, 3)?;
        let bits = self.int_type_checked(at, t)?;
        let (a, b) = self.src3(at, t)?;
        let p = Self::wide_product(a, b, bits, t.is_signed());
        let (d, dt) = match Self::mul_mode(at) {
            Word::WIDE => {
                if bits == 64 {
                    return Err(self.invalid(at, "mul.wide of 64-bit values"));
                }
                (p, int_type(2 * bits, t.is_signed()).unwrap_or(t))
            }
            Word::HI => ((p >> bits) & mask(bits), t),
            _ => (p & mask(bits), t),
        };
        self.write(at, self.op(at, 0)?, d, dt)?;
        Ok(Flow::Next)
    }

    fn exec_mad(&mut self, at: &At<'_>) -> R<Flow> {
        let t = self.one_type(at)?;
        if float_lanes(t).is_some() && at.inst.opcode == Opcode::Mad {
            return self.exec_fma(at);
        }
        self.check(at, &[Word::LO, Word::HI, Word::WIDE, Word::CC], F_SAT)?;
        self.ops(at, 4)?;
        let bits = self.int_type_checked(at, t)?;
        let (a, b) = self.src3(at, t)?;
        let signed = t.is_signed();
        let p = Self::wide_product(a, b, bits, signed);
        let madc = at.inst.opcode == Opcode::Madc;
        let cin = if madc { self.thread.carry as u128 } else { 0 };
        let cc = Self::word(at, Word::CC);
        let mode = Self::mul_mode(at);
        let (d, dt) = if mode == Word::WIDE {
            if bits == 64 || madc || cc {
                return Err(self.unsupported_because(at, "mad.wide form"));
            }
            let dt = int_type(2 * bits, signed).unwrap_or(t);
            let c = self.value(at, self.op(at, 3)?, dt)?;
            ((p + c) & mask(2 * bits), dt)
        } else {
            let c = self.value(at, self.op(at, 3)?, t)?;
            let part = if mode == Word::HI { (p >> bits) & mask(bits) } else { p & mask(bits) };
            if at.inst.is_sat() {
                if !(mode == Word::HI && t == ScalarType::S32) {
                    return Err(self.invalid(at, ".sat applies only to mad.hi.s32"));
                }
                let s = int_value(part, 32, true) + int_value(c, 32, true);
                (saturate(s, true, 32), t)
            } else {
                let s = part + c + cin;
                if cc {
                    self.thread.carry = s >> bits != 0;
                }
                (s & mask(bits), t)
            }
        };
        self.write(at, self.op(at, 0)?, d, dt)?;
        Ok(Flow::Next)
    }

    fn exec_mul24(&mut self, at: &At<'_>) -> R<Flow> {
        self.check(at, &[Word::LO, Word::HI], 0)?;
        let is_mad = at.inst.opcode == Opcode::Mad24;
        self.ops(at, if is_mad { 4 } else { 3 })?;
        let t = self.one_type(at)?;
        if !matches!(t, ScalarType::U32 | ScalarType::S32) {
            return Err(self.unsupported_because(at, "instruction type"));
        }
        let (a, b) = self.src3(at, t)?;
        let signed = t.is_signed();
        let p = (int_value(a, 24, signed) * int_value(b, 24, signed)) as u128;
        let part = if Self::word(at, Word::HI) { (p >> 16) & mask(32) } else { p & mask(32) };
        let d = if is_mad { (part + self.value(at, self.op(at, 3)?, t)?) & mask(32) } else { part };
        self.write(at, self.op(at, 0)?, d, t)?;
        Ok(Flow::Next)
    }

    fn exec_div(&mut self, at: &At<'_>) -> R<Flow> {
        let t = self.one_type(at)?;
        if float_lanes(t).is_some() {
            return self.float_div(at, t);
        }
        self.check(at, &[], 0)?;
        self.ops(at, 3)?;
        let bits = self.int_type_checked(at, t)?;
        let (a, b) = self.src3(at, t)?;
        let (x, y) = (int_value(a, bits, t.is_signed()), int_value(b, bits, t.is_signed()));
        if y == 0 {
            return Err(InterpError::DivideByZero { line: self.line(at) });
        }
        let (min, _) = intops::int_range(t.is_signed(), bits);
        if t.is_signed() && x == min && y == -1 {
            return Err(InterpError::Undefined { message: "signed division overflow".into(), line: self.line(at) });
        }
        self.write(at, self.op(at, 0)?, (x / y) as u128 & mask(bits), t)?;
        Ok(Flow::Next)
    }

    fn exec_rem(&mut self, at: &At<'_>) -> R<Flow> {
        self.check(at, &[], 0)?;
        self.ops(at, 3)?;
        let t = self.one_type(at)?;
        let bits = self.int_type_checked(at, t)?;
        let (a, b) = self.src3(at, t)?;
        let (x, y) = (int_value(a, bits, t.is_signed()), int_value(b, bits, t.is_signed()));
        if y == 0 {
            return Err(InterpError::DivideByZero { line: self.line(at) });
        }
        let (min, _) = intops::int_range(t.is_signed(), bits);
        if t.is_signed() && x == min && y == -1 {
            return Err(InterpError::Undefined { message: "signed division overflow".into(), line: self.line(at) });
        }
        self.write(at, self.op(at, 0)?, (x % y) as u128 & mask(bits), t)?;
        Ok(Flow::Next)
    }

    fn exec_min_max(&mut self, at: &At<'_>) -> R<Flow> {
        let is_max = at.inst.opcode == Opcode::Max;
        let halves = Self::word(at, Word::U16X2) || Self::word(at, Word::S16X2);
        if halves {
            self.check(at, &[Word::U16X2, Word::S16X2, Word::RELU], 0)?;
            self.ops(at, 3)?;
            let signed = Self::word(at, Word::S16X2);
            let relu = Self::word(at, Word::RELU);
            if relu && !signed {
                return Err(self.invalid(at, ".relu applies to .s16x2 and .s32"));
            }
            let (a, b) = self.src3(at, ScalarType::B32)?;
            let mut d = 0u128;
            for k in 0..2 {
                let x = int_value(a >> (16 * k), 16, signed);
                let y = int_value(b >> (16 * k), 16, signed);
                let mut r = if is_max { x.max(y) } else { x.min(y) };
                if relu {
                    r = r.max(0);
                }
                d |= ((r as u128) & 0xffff) << (16 * k);
            }
            self.write(at, self.op(at, 0)?, d, ScalarType::B32)?;
            return Ok(Flow::Next);
        }
        let t = self.one_type(at)?;
        if float_lanes(t).is_some() {
            return self.float_min_max(at, t, is_max);
        }
        self.check(at, &[Word::RELU], 0)?;
        self.ops(at, 3)?;
        let bits = self.int_type_checked(at, t)?;
        let relu = Self::word(at, Word::RELU);
        if relu && t != ScalarType::S32 {
            return Err(self.invalid(at, ".relu applies to .s16x2 and .s32"));
        }
        let (a, b) = self.src3(at, t)?;
        let (x, y) = (int_value(a, bits, t.is_signed()), int_value(b, bits, t.is_signed()));
        let mut r = if is_max { x.max(y) } else { x.min(y) };
        if relu {
            r = r.max(0);
        }
        self.write(at, self.op(at, 0)?, r as u128 & mask(bits), t)?;
        Ok(Flow::Next)
    }

    fn exec_abs_neg(&mut self, at: &At<'_>) -> R<Flow> {
        let t = self.one_type(at)?;
        let is_neg = at.inst.opcode == Opcode::Neg;
        self.ops(at, 2)?;
        if let Some((fmt, lanes, lb)) = float_lanes(t) {
            self.check(at, &[], F_FTZ)?;
            let ftz = at.inst.is_ftz();
            let a = self.value(at, self.op(at, 1)?, t)?;
            let mut d = 0u128;
            for k in 0..lanes {
                let mut x = ((a >> (k * lb)) & mask(lb)) as u64;
                if ftz {
                    x = fmt.flush(x);
                }
                let r = if is_neg { x ^ fmt.sign_mask() } else { x & !fmt.sign_mask() };
                d |= (r as u128) << (k * lb);
            }
            self.write(at, self.op(at, 0)?, d, t)?;
            return Ok(Flow::Next);
        }
        self.check(at, &[], 0)?;
        let bits = self.int_type_checked(at, t)?;
        let a = self.value(at, self.op(at, 1)?, t)?;
        let x = int_value(a, bits, true);
        let r = if is_neg { -x } else { x.abs() };
        self.write(at, self.op(at, 0)?, r as u128 & mask(bits), t)?;
        Ok(Flow::Next)
    }

    fn exec_logic(&mut self, at: &At<'_>) -> R<Flow> {
        self.check(at, &[], 0)?;
        self.ops(at, 3)?;
        let t = self.one_type(at)?;
        if !(t == ScalarType::Pred || (t.is_integer_like() && matches!(t.bits(), 16 | 32 | 64))) {
            return Err(self.unsupported_because(at, "instruction type"));
        }
        let (a, b) = if t == ScalarType::Pred {
            (self.pred(at, self.op(at, 1)?)? as u128, self.pred(at, self.op(at, 2)?)? as u128)
        } else {
            self.src3(at, t)?
        };
        let d = match at.inst.opcode {
            Opcode::And => a & b,
            Opcode::Or => a | b,
            _ => a ^ b,
        };
        self.write(at, self.op(at, 0)?, d, t)?;
        Ok(Flow::Next)
    }

    fn exec_not(&mut self, at: &At<'_>) -> R<Flow> {
        self.check(at, &[], 0)?;
        self.ops(at, 2)?;
        let t = self.one_type(at)?;
        if !(t == ScalarType::Pred || (t.is_integer_like() && matches!(t.bits(), 16 | 32 | 64))) {
            return Err(self.unsupported_because(at, "instruction type"));
        }
        let a = if t == ScalarType::Pred {
            self.pred(at, self.op(at, 1)?)? as u128
        } else {
            self.value(at, self.op(at, 1)?, t)?
        };
        let d = if at.inst.opcode == Opcode::Cnot {
            if t == ScalarType::Pred {
                return Err(self.invalid(at, "cnot of a predicate"));
            }
            (a == 0) as u128
        } else {
            !a & mask(t.bits())
        };
        self.write(at, self.op(at, 0)?, d, t)?;
        Ok(Flow::Next)
    }

    fn exec_shift(&mut self, at: &At<'_>) -> R<Flow> {
        self.check(at, &[], 0)?;
        self.ops(at, 3)?;
        let t = self.one_type(at)?;
        let bits = self.int_type_checked(at, t)?;
        let a = self.value(at, self.op(at, 1)?, t)?;
        let amount = self.value(at, self.op(at, 2)?, ScalarType::U32)? as u32;
        let d = if at.inst.opcode == Opcode::Shl {
            intops::shl(a, amount, bits)
        } else {
            intops::shr(a, amount, bits, t.is_signed())
        };
        self.write(at, self.op(at, 0)?, d, t)?;
        Ok(Flow::Next)
    }

    fn exec_shf(&mut self, at: &At<'_>) -> R<Flow> {
        self.check(at, &[Word::L, Word::R, Word::CLAMP, Word::WRAP], 0)?;
        self.ops(at, 4)?;
        let left = Self::word(at, Word::L);
        if left == Self::word(at, Word::R) || Self::word(at, Word::CLAMP) == Self::word(at, Word::WRAP) {
            return Err(self.invalid(at, "shf needs one of .l/.r and one of .clamp/.wrap"));
        }
        let (a, b) = self.src3(at, ScalarType::B32)?;
        let c = self.value(at, self.op(at, 3)?, ScalarType::U32)? as u32;
        let d = intops::shf(a as u32, b as u32, c, left, Self::word(at, Word::CLAMP));
        self.write(at, self.op(at, 0)?, d as u128, ScalarType::B32)?;
        Ok(Flow::Next)
    }

    fn exec_bfe(&mut self, at: &At<'_>) -> R<Flow> {
        self.check(at, &[], 0)?;
        self.ops(at, 4)?;
        let t = self.one_type(at)?;
        if !matches!(t.bits(), 32 | 64) || !t.is_integer_like() {
            return Err(self.unsupported_because(at, "instruction type"));
        }
        let a = self.value(at, self.op(at, 1)?, t)?;
        let pos = self.value(at, self.op(at, 2)?, ScalarType::U32)? as u32;
        let len = self.value(at, self.op(at, 3)?, ScalarType::U32)? as u32;
        let d = intops::bfe(a, pos, len, t.bits(), t.is_signed());
        self.write(at, self.op(at, 0)?, d, t)?;
        Ok(Flow::Next)
    }

    fn exec_bfi(&mut self, at: &At<'_>) -> R<Flow> {
        self.check(at, &[], 0)?;
        self.ops(at, 5)?;
        let t = self.one_type(at)?;
        if !matches!(t.bits(), 32 | 64) || !t.is_integer_like() {
            return Err(self.unsupported_because(at, "instruction type"));
        }
        let (a, b) = self.src3(at, t)?;
        let pos = self.value(at, self.op(at, 3)?, ScalarType::U32)? as u32;
        let len = self.value(at, self.op(at, 4)?, ScalarType::U32)? as u32;
        self.write(at, self.op(at, 0)?, intops::bfi(a, b, pos, len, t.bits()), t)?;
        Ok(Flow::Next)
    }

    fn exec_bfind(&mut self, at: &At<'_>) -> R<Flow> {
        self.check(at, &[Word::SHIFTAMT], 0)?;
        self.ops(at, 2)?;
        let t = self.one_type(at)?;
        if !matches!(t, ScalarType::U32 | ScalarType::S32 | ScalarType::U64 | ScalarType::S64) {
            return Err(self.unsupported_because(at, "instruction type"));
        }
        let a = self.value(at, self.op(at, 1)?, t)?;
        let d = intops::bfind(a, t.bits(), t.is_signed(), Self::word(at, Word::SHIFTAMT));
        self.write(at, self.op(at, 0)?, d as u128, ScalarType::U32)?;
        Ok(Flow::Next)
    }

    fn exec_bmsk(&mut self, at: &At<'_>) -> R<Flow> {
        self.check(at, &[Word::CLAMP, Word::WRAP], 0)?;
        self.ops(at, 3)?;
        let (a, b) = self.src3(at, ScalarType::U32)?;
        let d = intops::bmsk(a as u32, b as u32, Self::word(at, Word::CLAMP));
        self.write(at, self.op(at, 0)?, d as u128, ScalarType::B32)?;
        Ok(Flow::Next)
    }

    fn exec_szext(&mut self, at: &At<'_>) -> R<Flow> {
        self.check(at, &[Word::CLAMP, Word::WRAP], 0)?;
        self.ops(at, 3)?;
        let t = self.one_type(at)?;
        let (a, b) = self.src3(at, ScalarType::U32)?;
        let d = intops::szext(a as u32, b as u32, Self::word(at, Word::CLAMP), t == ScalarType::S32);
        self.write(at, self.op(at, 0)?, d as u128, t)?;
        Ok(Flow::Next)
    }

    fn exec_bitcount(&mut self, at: &At<'_>) -> R<Flow> {
        self.check(at, &[], 0)?;
        self.ops(at, 2)?;
        let t = self.one_type(at)?;
        if !matches!(t.bits(), 32 | 64) || !t.is_integer_like() {
            return Err(self.unsupported_because(at, "instruction type"));
        }
        let a = self.value(at, self.op(at, 1)?, t)?;
        let bits = t.bits();
        let (d, dt) = match at.inst.opcode {
            Opcode::Popc => (a.count_ones() as u128, ScalarType::U32),
            Opcode::Clz => ((a.leading_zeros() - (128 - bits)) as u128, ScalarType::U32),
            _ => (a.reverse_bits() >> (128 - bits), t),
        };
        self.write(at, self.op(at, 0)?, d, dt)?;
        Ok(Flow::Next)
    }

    /// `fns.b32 d, mask, base, offset`: mask is read as .b32, base as .u32
    /// and offset as .s32 (registers or immediates). The ISA leaves a base
    /// above 31 undefined; read as .u32 that takes in every negative .s32
    /// base too, and the run stops there as on a division by zero.
    fn exec_fns(&mut self, at: &At<'_>) -> R<Flow> {
        self.check(at, &[], 0)?;
        self.ops(at, 4)?;
        if self.one_type(at)? != ScalarType::B32 {
            return Err(self.unsupported_because(at, "instruction type"));
        }
        let mask_v = self.value(at, self.op(at, 1)?, ScalarType::B32)? as u32;
        let base = self.value(at, self.op(at, 2)?, ScalarType::U32)? as u32;
        let offset = self.value(at, self.op(at, 3)?, ScalarType::S32)? as u32 as i32;
        if base > 31 {
            return Err(InterpError::Undefined {
                message: format!("fns with base {base} (as .u32): the ISA defines only 0 to 31"),
                line: self.line(at),
            });
        }
        self.write(at, self.op(at, 0)?, intops::fns(mask_v, base, offset) as u128, ScalarType::B32)?;
        Ok(Flow::Next)
    }

    fn exec_lop3(&mut self, at: &At<'_>) -> R<Flow> {
        self.check(at, &[Word::AND, Word::OR], 0)?;
        let boolop = if Self::word(at, Word::AND) {
            Some(true)
        } else if Self::word(at, Word::OR) {
            Some(false)
        } else {
            None
        };
        self.ops(at, if boolop.is_some() { 6 } else { 5 })?;
        let (a, b) = self.src3(at, ScalarType::B32)?;
        let c = self.value(at, self.op(at, 3)?, ScalarType::B32)?;
        let lut = match self.op(at, 4)? {
            Operand::Int(i) if i.bits <= 255 => i.bits as u8,
            _ => return Err(self.invalid(at, "immLut must be an integer constant 0..255")),
        };
        let d = intops::lop3(a as u32, b as u32, c as u32, lut);
        match (self.op(at, 0)?, boolop) {
            (Operand::Pair(p), Some(is_and)) => {
                let q = self.pred(at, self.op(at, 5)?)?;
                let p_val = if is_and { d != 0 && q } else { d != 0 || q };
                self.write(at, &p.0, d as u128, ScalarType::B32)?;
                self.write_pred(at, &p.1, p_val)?;
            }
            (dst, None) => self.write(at, dst, d as u128, ScalarType::B32)?,
            _ => return Err(self.invalid(at, "lop3 with a boolean op writes d|p")),
        }
        Ok(Flow::Next)
    }

    fn exec_dp(&mut self, at: &At<'_>) -> R<Flow> {
        let dp2 = at.inst.opcode == Opcode::Dp2a;
        self.check(at, if dp2 { &[Word::LO, Word::HI] } else { &[] }, 0)?;
        self.ops(at, 4)?;
        let types = Self::types(at);
        let [ta, tb] = types.as_slice() else { return Err(self.invalid(at, "dp4a/dp2a take two types")) };
        let (sa, sb) = (ta.is_signed(), tb.is_signed());
        let (a, b) = self.src3(at, ScalarType::B32)?;
        let ct = if sa || sb { ScalarType::S32 } else { ScalarType::U32 };
        let c = int_value(self.value(at, self.op(at, 3)?, ct)?, 32, ct.is_signed());
        let vb: Vec<i128> = (0..4).map(|i| int_value(b >> (8 * i), 8, sb)).collect();
        let mut d = c;
        if dp2 {
            let sel = if Self::word(at, Word::HI) { 2 } else { 0 };
            for i in 0..2 {
                d += int_value(a >> (16 * i), 16, sa) * vb[sel + i];
            }
        } else {
            for (i, y) in vb.iter().enumerate() {
                d += int_value(a >> (8 * i), 8, sa) * y;
            }
        }
        self.write(at, self.op(at, 0)?, d as u128 & mask(32), ct)?;
        Ok(Flow::Next)
    }

    fn exec_sad(&mut self, at: &At<'_>) -> R<Flow> {
        self.check(at, &[], 0)?;
        self.ops(at, 4)?;
        let t = self.one_type(at)?;
        let bits = self.int_type_checked(at, t)?;
        let (a, b) = self.src3(at, t)?;
        let c = self.value(at, self.op(at, 3)?, t)?;
        let (x, y) = (int_value(a, bits, t.is_signed()), int_value(b, bits, t.is_signed()));
        let d = (c as i128 + (x - y).abs()) as u128 & mask(bits);
        self.write(at, self.op(at, 0)?, d, t)?;
        Ok(Flow::Next)
    }

    /// The SIMD video instructions `vop2`/`vop4` (and `vset2`/`vset4`)
    /// with the default byte/half-word selectors and mask.
    fn exec_video_simd(&mut self, at: &At<'_>) -> R<Flow> {
        use Opcode::*;
        let op = at.inst.opcode;
        let is_set = matches!(op, Vset2 | Vset4);
        self.check(at, &[Word::ADD], if is_set { F_CMP } else { F_SAT })?;
        self.ops(at, 4)?;
        let types = Self::types(at);
        let (dt, ta, tb) = match (is_set, types.as_slice()) {
            (false, [d, a, b]) => (*d, *a, *b),
            (true, [a, b]) => (ScalarType::U32, *a, *b),
            _ => return Err(self.invalid(at, "instruction types")),
        };
        for t in [dt, ta, tb] {
            if !matches!(t, ScalarType::U32 | ScalarType::S32) {
                return Err(self.unsupported_because(at, "instruction type"));
            }
        }
        let lanes = if matches!(op, Vadd2 | Vsub2 | Vavrg2 | Vabsdiff2 | Vmin2 | Vmax2 | Vset2) { 2 } else { 4 };
        let lb = 32 / lanes;
        let accumulate = Self::word(at, Word::ADD);
        let sat = at.inst.is_sat();
        if sat && accumulate {
            return Err(self.invalid(at, "saturation cannot be used with the accumulate operation"));
        }
        let (a, b) = self.src3(at, ScalarType::B32)?;
        let c = self.value(at, self.op(at, 3)?, ScalarType::B32)?;
        let cmp =
            if is_set { Some(at.inst.cmp().ok_or_else(|| self.invalid(at, "missing comparison"))?) } else { None };
        let mut merged = 0u128;
        let mut sum = int_value(c, 32, true);
        for i in 0..lanes {
            let va = int_value(a >> (i * lb), lb, ta.is_signed());
            let vb = int_value(b >> (i * lb), lb, tb.is_signed());
            let mut t: i128 = match op {
                Vadd2 | Vadd4 => va + vb,
                Vsub2 | Vsub4 => va - vb,
                Vavrg2 | Vavrg4 => {
                    if va + vb >= 0 {
                        (va + vb + 1) >> 1
                    } else {
                        (va + vb) >> 1
                    }
                }
                Vabsdiff2 | Vabsdiff4 => (va - vb).abs(),
                Vmin2 | Vmin4 => va.min(vb),
                Vmax2 | Vmax4 => va.max(vb),
                _ => {
                    let r = match cmp {
                        Some(CmpOp::Eq) => va == vb,
                        Some(CmpOp::Ne) => va != vb,
                        Some(CmpOp::Lt) => va < vb,
                        Some(CmpOp::Le) => va <= vb,
                        Some(CmpOp::Gt) => va > vb,
                        Some(CmpOp::Ge) => va >= vb,
                        _ => return Err(self.invalid(at, "vset comparison")),
                    };
                    r as i128
                }
            };
            if sat {
                let (lo, hi) = intops::int_range(dt.is_signed(), lb);
                t = t.clamp(lo, hi);
            }
            sum += t;
            merged |= ((t as u128) & mask(lb)) << (i * lb);
        }
        let d = if accumulate { (sum as u128) & mask(32) } else { merged };
        self.write(at, self.op(at, 0)?, d, ScalarType::B32)?;
        Ok(Flow::Next)
    }

    /// `vshl`/`vshr` on whole words, with `.clamp`/`.wrap`, optional `.sat`
    /// or a secondary `.add`/`.min`/`.max`.
    fn exec_video_shift(&mut self, at: &At<'_>) -> R<Flow> {
        self.check(at, &[Word::CLAMP, Word::WRAP, Word::ADD, Word::MIN, Word::MAX], F_SAT)?;
        let types = Self::types(at);
        let [dt, ta, tb] = types.as_slice() else { return Err(self.invalid(at, "instruction types")) };
        if !matches!(dt, ScalarType::U32 | ScalarType::S32)
            || !matches!(ta, ScalarType::U32 | ScalarType::S32)
            || *tb != ScalarType::U32
        {
            return Err(self.unsupported_because(at, "instruction type"));
        }
        let op2 = [Word::ADD, Word::MIN, Word::MAX].into_iter().find(|&w| Self::word(at, w));
        self.ops(at, if op2.is_some() { 4 } else { 3 })?;
        let clamp = Self::word(at, Word::CLAMP);
        if clamp == Self::word(at, Word::WRAP) {
            return Err(self.invalid(at, "one of .clamp or .wrap is required"));
        }
        if at.inst.is_sat() && op2.is_some() {
            return Err(self.unsupported_because(at, ".sat with a secondary operation"));
        }
        let (a, b) = self.src3(at, ScalarType::B32)?;
        let va = int_value(a, 32, ta.is_signed());
        let mut n = b as u32;
        n = if clamp { n.min(32) } else { n & 0x1f };
        let tmp: i128 = if at.inst.opcode == Opcode::Vshl { va << n } else { va >> n };
        let d = match op2 {
            None if at.inst.is_sat() => saturate(tmp, dt.is_signed(), 32),
            None => (tmp as u128) & mask(32),
            Some(w) => {
                let c = self.value(at, self.op(at, 3)?, ScalarType::B32)?;
                let low = int_value(tmp as u128, 32, dt.is_signed());
                let vc = int_value(c, 32, dt.is_signed());
                let r = match w {
                    Word::ADD => low + vc,
                    Word::MIN => low.min(vc),
                    _ => low.max(vc),
                };
                (r as u128) & mask(32)
            }
        };
        self.write(at, self.op(at, 0)?, d, ScalarType::B32)?;
        Ok(Flow::Next)
    }

    // ------------------------------------------------------------ comparisons

    fn compare(&self, at: &At<'_>, cmp: CmpOp, t: ScalarType, a: u128, b: u128, ftz: bool) -> R<bool> {
        if let Some(fmt) = float_format(t) {
            let (mut x, mut y) = (a as u64, b as u64);
            if ftz {
                x = fmt.flush(x);
                y = fmt.flush(y);
            }
            let (x, y) = (sf::to_f64(x, fmt), sf::to_f64(y, fmt));
            let unordered = x.is_nan() || y.is_nan();
            return Ok(match cmp {
                CmpOp::Eq => x == y,
                CmpOp::Ne => !unordered && x != y,
                CmpOp::Lt => x < y,
                CmpOp::Le => x <= y,
                CmpOp::Gt => x > y,
                CmpOp::Ge => x >= y,
                CmpOp::Equ => unordered || x == y,
                CmpOp::Neu => unordered || x != y,
                CmpOp::Ltu => unordered || x < y,
                CmpOp::Leu => unordered || x <= y,
                CmpOp::Gtu => unordered || x > y,
                CmpOp::Geu => unordered || x >= y,
                CmpOp::Num => !unordered,
                CmpOp::Nan => unordered,
                _ => return Err(self.invalid(at, "unsigned comparison of floats")),
            });
        }
        if !t.is_integer_like() || !matches!(t.bits(), 16 | 32 | 64) {
            return Err(self.unsupported_because(at, "comparison type"));
        }
        let bits = t.bits();
        let (su, sv) = (int_value(a, bits, true), int_value(b, bits, true));
        let (uu, uv) = (a & mask(bits), b & mask(bits));
        let signed = t.is_signed();
        Ok(match cmp {
            CmpOp::Eq => uu == uv,
            CmpOp::Ne => uu != uv,
            CmpOp::Lt => {
                if signed {
                    su < sv
                } else {
                    uu < uv
                }
            }
            CmpOp::Le => {
                if signed {
                    su <= sv
                } else {
                    uu <= uv
                }
            }
            CmpOp::Gt => {
                if signed {
                    su > sv
                } else {
                    uu > uv
                }
            }
            CmpOp::Ge => {
                if signed {
                    su >= sv
                } else {
                    uu >= uv
                }
            }
            CmpOp::Lo => uu < uv,
            CmpOp::Ls => uu <= uv,
            CmpOp::Hi => uu > uv,
            CmpOp::Hs => uu >= uv,
            _ => return Err(self.invalid(at, "floating-point comparison of integers")),
        })
    }

    fn exec_setp(&mut self, at: &At<'_>) -> R<Flow> {
        self.check(at, &[Word::AND, Word::OR, Word::XOR], F_CMP | F_FTZ)?;
        let is_set = at.inst.opcode == Opcode::Set;
        let cmp = at.inst.cmp().ok_or_else(|| self.invalid(at, "missing comparison"))?;
        let types = Self::types(at);
        let (dt, t) = match (is_set, types.as_slice()) {
            (false, [t]) => (ScalarType::Pred, *t),
            (true, [d, s]) => (*d, *s),
            _ => return Err(self.invalid(at, "instruction types")),
        };
        let boolop = [Word::AND, Word::OR, Word::XOR].into_iter().find(|&w| Self::word(at, w));
        let n = at.inst.operands.len();
        if n != if boolop.is_some() { 4 } else { 3 } {
            return Err(self.invalid(at, "operand count"));
        }
        let ftz = at.inst.is_ftz();
        let (a, b) = self.src3(at, t)?;
        if let ScalarType::F16x2 | ScalarType::Bf16x2 = t {
            return self.packed_setp(at, cmp, (dt, t), (a, b), boolop);
        }
        let r = self.compare(at, cmp, t, a, b, ftz)?;
        let combine = |x: bool, c: bool| match boolop {
            Some(Word::AND) => x && c,
            Some(Word::OR) => x || c,
            Some(_) => x ^ c,
            None => x,
        };
        let c = match boolop {
            Some(_) => self.pred(at, self.op(at, 3)?)?,
            None => false,
        };
        if is_set {
            let v = combine(r, c);
            let d = match dt {
                ScalarType::F32 => {
                    if v {
                        sf::F32.one() as u128
                    } else {
                        0
                    }
                }
                ScalarType::U32 | ScalarType::S32 => {
                    if v {
                        0xffff_ffff
                    } else {
                        0
                    }
                }
                _ => return Err(self.unsupported_because(at, "set destination type")),
            };
            self.write(at, self.op(at, 0)?, d, dt)?;
            return Ok(Flow::Next);
        }
        match self.op(at, 0)? {
            Operand::Pair(p) => {
                self.write_pred(at, &p.0, combine(r, c))?;
                self.write_pred(at, &p.1, combine(!r, c))?;
            }
            d => self.write_pred(at, d, combine(r, c))?,
        }
        Ok(Flow::Next)
    }

    /// `setp`/`set` on f16x2 or bf16x2: each half compared on its own;
    /// setp writes the low half's result to its first predicate and the
    /// high half's to the second, set writes per half 1.0 (float result) or
    /// all ones (integer result), or zero.
    fn packed_setp(
        &mut self,
        at: &At<'_>,
        cmp: CmpOp,
        (dt, t): (ScalarType, ScalarType),
        (a, b): (u128, u128),
        boolop: Option<Word>,
    ) -> R<Flow> {
        let half = if t == ScalarType::F16x2 { ScalarType::F16 } else { ScalarType::Bf16 };
        let c = match boolop {
            Some(_) => self.pred(at, self.op(at, 3)?)?,
            None => false,
        };
        let combine = |x: bool| match boolop {
            Some(Word::AND) => x && c,
            Some(Word::OR) => x || c,
            Some(_) => x ^ c,
            None => x,
        };
        let mut r = [false; 2];
        for (k, slot) in r.iter_mut().enumerate() {
            let lane = |v: u128| (v >> (16 * k)) & 0xffff;
            *slot = combine(self.compare(at, cmp, half, lane(a), lane(b), at.inst.is_ftz())?);
        }
        if dt == ScalarType::Pred {
            let Operand::Pair(p) = self.op(at, 0)? else {
                return Err(self.invalid(at, "setp on a packed type writes a predicate pair p|q"));
            };
            self.write_pred(at, &p.0, r[0])?;
            self.write_pred(at, &p.1, r[1])?;
            return Ok(Flow::Next);
        }
        let true_half = match dt {
            ScalarType::F16x2 => sf::F16.one(),
            ScalarType::Bf16x2 => sf::BF16.one(),
            ScalarType::U32 | ScalarType::S32 => 0xffff,
            _ => return Err(self.unsupported_because(at, "set destination type")),
        } as u128;
        let d = r.iter().enumerate().map(|(k, &v)| if v { true_half << (16 * k) } else { 0 }).sum();
        self.write(at, self.op(at, 0)?, d, dt)?;
        Ok(Flow::Next)
    }

    fn exec_selp(&mut self, at: &At<'_>) -> R<Flow> {
        self.check(at, &[], 0)?;
        let v = at.inst.as_selp().ok_or_else(|| self.invalid(at, "malformed selp"))?;
        let c = self.pred(at, v.c)?;
        let d = self.value(at, if c { v.a } else { v.b }, v.ty)?;
        self.write(at, v.dst, d, v.ty)?;
        Ok(Flow::Next)
    }

    fn exec_slct(&mut self, at: &At<'_>) -> R<Flow> {
        self.check(at, &[], F_FTZ)?;
        self.ops(at, 4)?;
        let types = Self::types(at);
        let [dt, ct] = types.as_slice() else { return Err(self.invalid(at, "slct takes two types")) };
        let c = self.value(at, self.op(at, 3)?, *ct)?;
        let take_a = match ct {
            ScalarType::S32 => int_value(c, 32, true) >= 0,
            ScalarType::F32 => {
                let mut x = c as u64;
                if at.inst.is_ftz() {
                    x = sf::F32.flush(x);
                }
                sf::to_f64(x, sf::F32) >= 0.0
            }
            _ => return Err(self.invalid(at, "slct selector type")),
        };
        let d = self.value(at, self.op(at, if take_a { 1 } else { 2 })?, *dt)?;
        self.write(at, self.op(at, 0)?, d, *dt)?;
        Ok(Flow::Next)
    }

    // ------------------------------------------------------------ floating point

    fn float_binary(&mut self, at: &At<'_>, t: ScalarType, op: FOp) -> R<Flow> {
        self.check(at, &[], F_ROUND | F_SAT | F_FTZ)?;
        self.ops(at, 3)?;
        let (fmt, lanes, lb) = float_lanes(t).ok_or_else(|| self.unsupported(at))?;
        let mode = match at.inst.rounding() {
            None => Mode::NearestEven,
            Some(r) => float_mode(r).ok_or_else(|| self.unsupported_because(at, "rounding modifier"))?,
        };
        let (ftz, sat) = (at.inst.is_ftz(), at.inst.is_sat());
        let (a, b) = self.src3(at, t)?;
        let mut d = 0u128;
        for k in 0..lanes {
            let mut x = ((a >> (k * lb)) & mask(lb)) as u64;
            let mut y = ((b >> (k * lb)) & mask(lb)) as u64;
            if ftz {
                x = fmt.flush(x);
                y = fmt.flush(y);
            }
            let mut r = match op {
                FOp::Add => sf::add(x, y, fmt, mode),
                FOp::Sub => sf::sub(x, y, fmt, mode),
                FOp::Mul => sf::mul(x, y, fmt, mode),
            };
            if ftz {
                r = fmt.flush(r);
            }
            if sat {
                r = fmt.saturate(r);
            }
            d |= (r as u128) << (k * lb);
        }
        self.write(at, self.op(at, 0)?, d, t)?;
        Ok(Flow::Next)
    }

    fn exec_fma(&mut self, at: &At<'_>) -> R<Flow> {
        self.check(at, &[Word::RELU], F_ROUND | F_SAT | F_FTZ)?;
        self.ops(at, 4)?;
        let t = self.one_type(at)?;
        let (fmt, lanes, lb) = float_lanes(t).ok_or_else(|| self.unsupported_because(at, "instruction type"))?;
        // Legacy `mad.f32`/`mad.f64` with no rounding modifier (PTX ISA
        // 3.1 and earlier; the ISA's errata: it defaults to mad.rn): a
        // fused multiply-add rounded to nearest. For a `.target sm_1x`
        // file, mad.f32 flushes subnormals too ("implemented as
        // fma.rn.ftz.f32" when compiled for sm_20 and later; ptxas 13
        // emits FFMA.FTZ for sm_13, FFMA for sm_20).
        let legacy = at.inst.rounding().is_none()
            && at.inst.opcode == Opcode::Mad
            && matches!(t, ScalarType::F32 | ScalarType::F64);
        let mode = match at.inst.rounding() {
            None if legacy => sf::Mode::NearestEven,
            r => r
                .ok_or_else(|| self.invalid(at, "fma needs a rounding modifier"))
                .and_then(|r| float_mode(r).ok_or_else(|| self.unsupported_because(at, "rounding modifier")))?,
        };
        let legacy_ftz = legacy && t == ScalarType::F32 && self.prog.targets_sm_1x();
        let (ftz, sat, relu) = (at.inst.is_ftz() || legacy_ftz, at.inst.is_sat(), Self::word(at, Word::RELU));
        let (a, b) = self.src3(at, t)?;
        let c = self.value(at, self.op(at, 3)?, t)?;
        let mut d = 0u128;
        for k in 0..lanes {
            let lane = |v: u128| {
                let x = ((v >> (k * lb)) & mask(lb)) as u64;
                if ftz {
                    fmt.flush(x)
                } else {
                    x
                }
            };
            let mut r = sf::fma(lane(a), lane(b), lane(c), fmt, mode);
            if ftz {
                r = fmt.flush(r);
            }
            if sat {
                r = fmt.saturate(r);
            }
            if relu && !fmt.is_nan(r) && fmt.is_negative(r) {
                r = 0;
            }
            d |= (r as u128) << (k * lb);
        }
        self.write(at, self.op(at, 0)?, d, t)?;
        Ok(Flow::Next)
    }

    /// `div` with a rounding modifier (IEEE division, any direction).
    fn float_div(&mut self, at: &At<'_>, t: ScalarType) -> R<Flow> {
        if Self::word(at, Word::APPROX) || Self::word(at, Word::FULL) {
            return self.approx_div(at, t);
        }
        self.check(at, &[], F_ROUND | F_FTZ)?;
        self.ops(at, 3)?;
        let (fmt, lanes, lb) = float_lanes(t).ok_or_else(|| self.unsupported_because(at, "instruction type"))?;
        let mode = at
            .inst
            .rounding()
            .and_then(float_mode)
            .ok_or_else(|| self.unsupported_because(at, "only IEEE division (.rn, .rz, .rm, .rp) is modelled"))?;
        let ftz = at.inst.is_ftz();
        let (a, b) = self.src3(at, t)?;
        let mut d = 0u128;
        for k in 0..lanes {
            let lane = |v: u128| {
                let x = ((v >> (k * lb)) & mask(lb)) as u64;
                if ftz {
                    fmt.flush(x)
                } else {
                    x
                }
            };
            let mut r = sf::div(lane(a), lane(b), fmt, mode);
            if ftz {
                r = fmt.flush(r);
            }
            d |= (r as u128) << (k * lb);
        }
        self.write(at, self.op(at, 0)?, d, t)?;
        Ok(Flow::Next)
    }

    /// The approximate functions, on the model of [`crate::approx`].
    fn exec_approx(&mut self, at: &At<'_>, f: ApproxFn) -> R<Flow> {
        self.check(at, &[Word::APPROX], F_FTZ)?;
        if !Self::word(at, Word::APPROX) {
            return Err(self.invalid(at, "an approximate function needs .approx"));
        }
        self.ops(at, 2)?;
        let t = self.one_type(at)?;
        let (fmt, lanes, lb) = float_lanes(t).ok_or_else(|| self.unsupported_because(at, "instruction type"))?;
        let ftz = at.inst.is_ftz();
        let a = self.value(at, self.op(at, 1)?, t)?;
        let mut d = 0u128;
        for k in 0..lanes {
            let x = ((a >> (k * lb)) & mask(lb)) as u64;
            d |= (approx::unary(f, x, fmt, ftz) as u128) << (k * lb);
        }
        self.write(at, self.op(at, 0)?, d, t)?;
        Ok(Flow::Next)
    }

    /// `div.approx` and `div.full`, on the model of [`crate::approx`].
    fn approx_div(&mut self, at: &At<'_>, t: ScalarType) -> R<Flow> {
        self.check(at, &[Word::APPROX, Word::FULL], F_FTZ)?;
        self.ops(at, 3)?;
        let (fmt, lanes, lb) = float_lanes(t).ok_or_else(|| self.unsupported_because(at, "instruction type"))?;
        let ftz = at.inst.is_ftz();
        let (a, b) = self.src3(at, t)?;
        let mut d = 0u128;
        for k in 0..lanes {
            let lane = |v: u128| ((v >> (k * lb)) & mask(lb)) as u64;
            d |= (approx::div(lane(a), lane(b), fmt, ftz) as u128) << (k * lb);
        }
        self.write(at, self.op(at, 0)?, d, t)?;
        Ok(Flow::Next)
    }

    /// `sqrt` and `rcp` with a rounding modifier (IEEE, any direction).
    fn exec_sqrt_rcp(&mut self, at: &At<'_>) -> R<Flow> {
        if Self::word(at, Word::APPROX) {
            let f = if at.inst.opcode == Opcode::Sqrt { ApproxFn::Sqrt } else { ApproxFn::Rcp };
            return self.exec_approx(at, f);
        }
        self.check(at, &[], F_ROUND | F_FTZ)?;
        self.ops(at, 2)?;
        let t = self.one_type(at)?;
        let (fmt, lanes, lb) = float_lanes(t).ok_or_else(|| self.unsupported_because(at, "instruction type"))?;
        let mode = at
            .inst
            .rounding()
            .and_then(float_mode)
            .ok_or_else(|| self.unsupported_because(at, "only the IEEE forms (.rn, .rz, .rm, .rp) are modelled"))?;
        let ftz = at.inst.is_ftz();
        let sqrt = at.inst.opcode == Opcode::Sqrt;
        let a = self.value(at, self.op(at, 1)?, t)?;
        let mut d = 0u128;
        for k in 0..lanes {
            let mut x = ((a >> (k * lb)) & mask(lb)) as u64;
            if ftz {
                x = fmt.flush(x);
            }
            let mut r = if sqrt { sf::sqrt(x, fmt, mode) } else { sf::div(fmt.one(), x, fmt, mode) };
            if ftz {
                r = fmt.flush(r);
            }
            d |= (r as u128) << (k * lb);
        }
        self.write(at, self.op(at, 0)?, d, t)?;
        Ok(Flow::Next)
    }

    fn float_min_max(&mut self, at: &At<'_>, t: ScalarType, is_max: bool) -> R<Flow> {
        self.check(at, &[Word::NA_N, Word::RELU, Word::XORSIGN, Word::ABS], F_FTZ)?;
        self.ops(at, 3)?;
        let (fmt, lanes, lb) = float_lanes(t).ok_or_else(|| self.unsupported(at))?;
        let (ftz, nan, relu) = (at.inst.is_ftz(), Self::word(at, Word::NA_N), Self::word(at, Word::RELU));
        let xorsign = Self::word(at, Word::XORSIGN);
        if xorsign != Self::word(at, Word::ABS) {
            return Err(self.invalid(at, ".xorsign and .abs go together"));
        }
        let (a, b) = self.src3(at, t)?;
        let mut d = 0u128;
        for k in 0..lanes {
            let mut x = ((a >> (k * lb)) & mask(lb)) as u64;
            let mut y = ((b >> (k * lb)) & mask(lb)) as u64;
            if ftz {
                x = fmt.flush(x);
                y = fmt.flush(y);
            }
            // .xorsign.abs: compare magnitudes, the sign is the xor of the signs.
            let sign_xor = (x ^ y) & fmt.sign_mask();
            if xorsign {
                x &= !fmt.sign_mask();
                y &= !fmt.sign_mask();
            }
            let mut r = float_min_or_max(fmt, x, y, is_max, nan);
            if xorsign && !fmt.is_nan(r) {
                r |= sign_xor;
            }
            if relu && !fmt.is_nan(r) && fmt.is_negative(r) {
                r = 0;
            }
            d |= (r as u128) << (k * lb);
        }
        self.write(at, self.op(at, 0)?, d, t)?;
        Ok(Flow::Next)
    }

    fn exec_copysign(&mut self, at: &At<'_>) -> R<Flow> {
        self.check(at, &[], 0)?;
        self.ops(at, 3)?;
        let t = self.one_type(at)?;
        let fmt = match t {
            ScalarType::F32 | ScalarType::F64 => float_format(t).unwrap_or(sf::F32),
            _ => return Err(self.unsupported_because(at, "instruction type")),
        };
        let (a, b) = self.src3(at, t)?;
        let s = fmt.sign_mask() as u128;
        self.write(at, self.op(at, 0)?, (b & !s) | (a & s), t)?;
        Ok(Flow::Next)
    }

    fn exec_testp(&mut self, at: &At<'_>) -> R<Flow> {
        const OPS: [Word; 6] =
            [Word::FINITE, Word::INFINITE, Word::NUMBER, Word::NOTANUMBER, Word::NORMAL, Word::SUBNORMAL];
        self.check(at, &OPS, 0)?;
        self.ops(at, 2)?;
        let t = self.one_type(at)?;
        let fmt = match t {
            ScalarType::F32 | ScalarType::F64 => float_format(t).unwrap_or(sf::F32),
            _ => return Err(self.unsupported_because(at, "instruction type")),
        };
        let op = OPS.into_iter().find(|&w| Self::word(at, w)).ok_or_else(|| self.invalid(at, "missing test"))?;
        let x = self.value(at, self.op(at, 1)?, t)? as u64;
        let (nan, inf, sub) = (fmt.is_nan(x), fmt.is_inf(x), fmt.is_subnormal(x));
        let r = match op {
            Word::FINITE => !nan && !inf,
            Word::INFINITE => inf,
            Word::NUMBER => !nan,
            Word::NOTANUMBER => nan,
            // Zeros count as normal numbers.
            Word::NORMAL => !nan && !inf && !sub,
            _ => sub,
        };
        self.write_pred(at, self.op(at, 0)?, r)?;
        Ok(Flow::Next)
    }

    // ------------------------------------------------------------ control flow

    fn exec_bra(&mut self, at: &At<'_>) -> R<Flow> {
        self.check(at, &[Word::UNI], 0)?;
        let v = at.inst.as_bra().ok_or_else(|| self.invalid(at, "malformed bra"))?;
        match v.target {
            Operand::Label(l) => {
                let pc = at.info.label_pc.get(l).copied().ok_or_else(|| self.invalid(at, "unknown label"))?;
                Ok(Flow::Jump(pc))
            }
            _ => Err(self.unsupported_because(at, "branch target that is not a label")),
        }
    }

    fn exec_call(&mut self, at: &At<'_>) -> R<Flow> {
        self.check(at, &[Word::UNI], 0)?;
        let ops = &at.inst.operands;
        let (results, rest): (&[Operand], &[Operand]) = match ops.first() {
            Some(Operand::Parens(r)) => (r, &ops[1..]),
            _ => (&[], &ops[..]),
        };
        let target = rest.first().ok_or_else(|| self.invalid(at, "call without a target"))?;
        let args: &[Operand] = match rest.get(1) {
            Some(Operand::Parens(a)) => a,
            _ => &[],
        };
        let callee = match target {
            Operand::Symbol(n) => match at.info.bindings.get(&(at.pc as u32, *n)) {
                Some(Binding::Function(f)) => *f,
                _ => return Err(self.invalid(at, "call target is not a function")),
            },
            Operand::Reg(r) => {
                let v = self.reg_value(*r) as u64;
                let idx = v.wrapping_sub(FUNCTION_BASE) / 16;
                if v < FUNCTION_BASE || (v - FUNCTION_BASE) & 15 != 0 || idx as usize >= self.prog.funcs.len() {
                    return Err(InterpError::Undefined {
                        message: format!("indirect call to {v:#x}, which is not a function"),
                        line: self.line(at),
                    });
                }
                FuncId::from_u32(idx as u32)
            }
            _ => return Err(self.invalid(at, "call target")),
        };
        let cf = &self.prog.module.functions[callee];
        if !cf.has_body() && cf.name == "__assertfail" {
            // The CUDA runtime's assert: it aborts the kernel.
            return Err(InterpError::Undefined {
                message: "assertion failed (__assertfail)".into(),
                line: self.line(at),
            });
        }
        if !cf.has_body() && cf.name == "vprintf" {
            return self.exec_vprintf(at, results, args);
        }
        if !cf.has_body() {
            return Err(self.unsupported_because(at, &format!("call of {}, which has no body", cf.name)));
        }
        let cinfo = &self.prog.funcs[callee.index()];
        if args.len() != cinfo.params.len() || results.len() != cinfo.returns.len() {
            return Err(self.invalid(
                at,
                &format!("{} takes {} arguments and {} results", cf.name, cinfo.params.len(), cinfo.returns.len()),
            ));
        }
        let mut arg_bytes = Vec::with_capacity(args.len());
        for (arg, formal) in args.iter().zip(&cinfo.params) {
            let size = match formal {
                Formal::Mem(i) => cinfo.frame_vars[*i].size,
                Formal::Reg(_, ty) => ty.bytes() as u64,
                Formal::Unresolved => return Err(self.unsupported_because(at, "callee parameters")),
            };
            let bytes = match arg {
                Operand::Symbol(n) => {
                    let (space, addr) = self.symbol(at, *n)?;
                    let space = space.ok_or_else(|| self.invalid(at, "a function as an argument"))?;
                    self.read_bytes(at, space, addr, size)?
                }
                other => {
                    let ty = match formal {
                        Formal::Reg(_, ty) => *ty,
                        _ => int_type(size as u32 * 8, false).ok_or_else(|| self.invalid(at, "argument size"))?,
                    };
                    to_bytes(self.value(at, other, ty)?, size as usize)
                }
            };
            arg_bytes.push(bytes);
        }
        let mut dests = Vec::with_capacity(results.len());
        for (res, formal) in results.iter().zip(&cinfo.returns) {
            dests.push(match res {
                Operand::Symbol(n) => {
                    let (space, addr) = self.symbol(at, *n)?;
                    if space != Some(StateSpace::Param) {
                        return Err(self.invalid(at, "call result must be a .param variable or a register"));
                    }
                    let size = match formal {
                        Formal::Mem(i) => cinfo.frame_vars[*i].size,
                        Formal::Reg(_, ty) => ty.bytes() as u64,
                        Formal::Unresolved => 0,
                    };
                    ResultDest::Mem(addr, size)
                }
                Operand::Reg(r) => {
                    let bits = self.reg_bits(at, *r)?;
                    ResultDest::Reg(*r, bits_type(bits).unwrap_or(ScalarType::B32))
                }
                _ => return Err(self.invalid(at, "call result")),
            });
        }
        self.enter(callee, &arg_bytes, &[], dests).map_err(|e| e.with_line(self.line(at)))?;
        Ok(Flow::Stay)
    }

    /// `call vprintf, (format, args)`: the format string and the argument
    /// buffer are generic addresses; the text goes to the thread's output,
    /// the result (if asked for) is the number of arguments.
    fn exec_vprintf(&mut self, at: &At<'_>, results: &[Operand], args: &[Operand]) -> R<Flow> {
        if args.len() != 2 || results.len() > 1 {
            return Err(self.invalid(at, "vprintf takes a format and an argument buffer"));
        }
        let pointer = |this: &Self, op: &Operand| -> R<u64> {
            match op {
                Operand::Symbol(n) => {
                    let (space, addr) = this.symbol(at, *n)?;
                    let space = space.ok_or_else(|| this.invalid(at, "a function as an argument"))?;
                    Ok(from_bytes(&this.read_bytes(at, space, addr, 8)?) as u64)
                }
                other => Ok(this.value(at, other, ScalarType::U64)? as u64),
            }
        };
        let format_at = pointer(self, &args[0])?;
        let args_at = pointer(self, &args[1])?;
        let c_string = |this: &Self, generic: u64| -> R<Vec<u8>> {
            let (space, addr) = from_generic(generic);
            let mut bytes = Vec::new();
            while bytes.len() < 4096 {
                let b = this.read_bytes(at, space, addr + bytes.len() as u64, 1)?[0];
                if b == 0 {
                    return Ok(bytes);
                }
                bytes.push(b);
            }
            Err(this.unsupported_because(at, "a printf string longer than 4096 bytes"))
        };
        let format = c_string(self, format_at)?;
        let fault = std::cell::RefCell::new(None);
        let read_arg = |offset: u64, len: u64| -> Result<u64, String> {
            let (space, addr) = from_generic(args_at + offset);
            match self.read_bytes(at, space, addr, len) {
                Ok(bytes) => Ok(from_bytes(&bytes) as u64),
                Err(e) => {
                    let message = e.to_string();
                    *fault.borrow_mut() = Some(e);
                    Err(message)
                }
            }
        };
        let read_string =
            |generic: u64| -> Result<Vec<u8>, String> { c_string(self, generic).map_err(|e| e.to_string()) };
        let formatted = crate::printf::format(&format, read_arg, read_string);
        let (text, count) = match formatted {
            Ok(done) => done,
            Err(message) => {
                return Err(fault.into_inner().unwrap_or_else(|| self.unsupported_because(at, &message)));
            }
        };
        self.thread.printed.push_str(&text);
        match results.first() {
            Some(Operand::Symbol(n)) => {
                let (space, addr) = self.symbol(at, *n)?;
                let space = space.ok_or_else(|| self.invalid(at, "call result"))?;
                self.write_bytes(at, space, addr, &count.to_le_bytes())?;
            }
            Some(Operand::Reg(r)) => {
                let bits = self.reg_bits(at, *r)?;
                self.write(at, &Operand::Reg(*r), u128::from(count), bits_type(bits).unwrap_or(ScalarType::B32))?;
            }
            Some(_) => return Err(self.invalid(at, "call result")),
            None => {}
        }
        Ok(Flow::Next)
    }

    // ------------------------------------------------------------ synchronization

    fn exec_bar(&mut self, at: &At<'_>) -> R<Flow> {
        self.check(
            at,
            &[
                Word::SYNC,
                Word::ARRIVE,
                Word::RED,
                Word::POPC,
                Word::AND,
                Word::OR,
                Word::ALIGNED,
                Word::CTA,
                Word::WARP,
            ],
            0,
        )?;
        if Self::word(at, Word::WARP) {
            return self.exec_warp(at);
        }
        let red = Self::word(at, Word::RED);
        let arrive = Self::word(at, Word::ARRIVE);
        let n = at.inst.operands.len();
        let (id_op, count_op) = if red {
            if !(3..=4).contains(&n) {
                return Err(self.invalid(at, "operand count"));
            }
            (self.op(at, 1)?, if n == 4 { Some(self.op(at, 2)?) } else { None })
        } else {
            if !(1..=2).contains(&n) {
                return Err(self.invalid(at, "operand count"));
            }
            (self.op(at, 0)?, if n == 2 { Some(self.op(at, 1)?) } else { None })
        };
        let id = self.value(at, id_op, ScalarType::U32)? as u32;
        if id >= 16 {
            return Err(InterpError::Undefined { message: format!("barrier {id} out of range"), line: self.line(at) });
        }
        let count = match count_op {
            Some(op) => Some(self.value(at, op, ScalarType::U32)? as u32),
            None => None,
        };
        if arrive {
            if count.is_none() {
                return Err(self.invalid(at, "bar.arrive needs a thread count"));
            }
            self.cta.arrivals[id as usize] += 1;
            return Ok(Flow::Next);
        }
        if red {
            let c = self.pred(at, self.op(at, n - 1)?)?;
            self.thread.red_pred = c;
        }
        self.thread.status = Status::Barrier { id, count };
        Ok(Flow::Stay)
    }

    /// Completes this thread's barrier wait; `popc/all/any` are the
    /// reduction of the waiting threads' predicates for `bar.red`.
    pub(crate) fn barrier_finish(&mut self, popc: u32, all: bool, any: bool) -> R<()> {
        let prog = self.prog;
        let frame = self.frame();
        let info = &prog.funcs[frame.func.index()];
        let func = &prog.module.functions[frame.func];
        let Some(&iid) = info.code.get(frame.pc) else { return Ok(()) };
        let inst = &func.insts[iid];
        let at = At { func, info, pc: frame.pc, inst };
        if Self::word(&at, Word::RED) {
            let d = self.op(&at, 0)?;
            if Self::word(&at, Word::POPC) {
                self.write(&at, d, popc as u128, ScalarType::U32)?;
            } else if Self::word(&at, Word::AND) {
                self.write_pred(&at, d, all)?;
            } else {
                self.write_pred(&at, d, any)?;
            }
        }
        self.thread.status = Status::Ready;
        self.frame_mut().pc += 1;
        Ok(())
    }

    fn warp_kind(&self, at: &At<'_>) -> R<WarpKind> {
        let sync = Self::word(at, Word::SYNC);
        let kind = match at.inst.opcode {
            Opcode::Shfl => {
                self.check(at, &[Word::SYNC, Word::UP, Word::DOWN, Word::BFLY, Word::IDX], 0)?;
                let mode = if Self::word(at, Word::UP) {
                    ShflMode::Up
                } else if Self::word(at, Word::DOWN) {
                    ShflMode::Down
                } else if Self::word(at, Word::BFLY) {
                    ShflMode::Bfly
                } else if Self::word(at, Word::IDX) {
                    ShflMode::Idx
                } else {
                    return Err(self.invalid(at, "shfl mode"));
                };
                WarpKind::Shfl(mode)
            }
            Opcode::Vote => {
                self.check(at, &[Word::SYNC, Word::ALL, Word::ANY, Word::UNI, Word::BALLOT], 0)?;
                if Self::word(at, Word::BALLOT) {
                    WarpKind::VoteBallot
                } else if Self::word(at, Word::ALL) {
                    WarpKind::VoteAll
                } else if Self::word(at, Word::ANY) {
                    WarpKind::VoteAny
                } else if Self::word(at, Word::UNI) {
                    WarpKind::VoteUni
                } else {
                    return Err(self.invalid(at, "vote mode"));
                }
            }
            Opcode::Match => {
                self.check(at, &[Word::SYNC, Word::ANY, Word::ALL], 0)?;
                if Self::word(at, Word::ANY) {
                    WarpKind::MatchAny
                } else if Self::word(at, Word::ALL) {
                    WarpKind::MatchAll
                } else {
                    return Err(self.invalid(at, "match mode"));
                }
            }
            Opcode::Redux => {
                self.check(at, &[Word::SYNC, Word::ADD, Word::MIN, Word::MAX, Word::AND, Word::OR, Word::XOR], 0)?;
                let t = self.one_type(at)?;
                if !matches!(t, ScalarType::U32 | ScalarType::S32 | ScalarType::B32) {
                    return Err(self.unsupported_because(at, "instruction type"));
                }
                let op = [
                    (Word::ADD, ReduxOp::Add),
                    (Word::MIN, ReduxOp::Min),
                    (Word::MAX, ReduxOp::Max),
                    (Word::AND, ReduxOp::And),
                    (Word::OR, ReduxOp::Or),
                    (Word::XOR, ReduxOp::Xor),
                ]
                .into_iter()
                .find(|&(w, _)| Self::word(at, w))
                .map(|(_, o)| o)
                .ok_or_else(|| self.invalid(at, "redux operation"))?;
                WarpKind::Redux(op, t == ScalarType::S32)
            }
            Opcode::Bar | Opcode::Barrier => {
                self.check(at, &[Word::WARP, Word::SYNC], 0)?;
                WarpKind::WarpSync
            }
            Opcode::Activemask => {
                self.check(at, &[], 0)?;
                WarpKind::ActiveMask
            }
            Opcode::Mma | Opcode::Ldmatrix | Opcode::Stmatrix | Opcode::Movmatrix | Opcode::Wmma => {
                WarpKind::Tensor(self.tensor_op(at)?)
            }
            _ => return Err(self.unsupported(at)),
        };
        let implicit_ok = matches!(
            kind,
            WarpKind::ActiveMask
                | WarpKind::Shfl(_)
                | WarpKind::VoteAll
                | WarpKind::VoteAny
                | WarpKind::VoteUni
                | WarpKind::VoteBallot
        );
        if !sync && !implicit_ok {
            return Err(self.unsupported_because(at, "warp collective without .sync"));
        }
        Ok(kind)
    }

    /// Operands of a warp collective, and whether its members are implicit
    /// (no membermask operand).
    fn warp_operands(&self, at: &At<'_>, kind: WarpKind) -> (usize, bool) {
        let implicit = kind == WarpKind::ActiveMask || !Self::word(at, Word::SYNC);
        let explicit = match kind {
            WarpKind::Tensor(_) => return (0, false),
            WarpKind::Shfl(_) => 5,
            WarpKind::WarpSync => 1,
            WarpKind::ActiveMask => 2,
            _ => 3,
        };
        (explicit - implicit as usize, implicit)
    }

    fn exec_warp(&mut self, at: &At<'_>) -> R<Flow> {
        let kind = self.warp_kind(at)?;
        let (expected, implicit) = self.warp_operands(at, kind);
        self.ops(at, expected)?;
        if let WarpKind::Shfl(_) = kind {
            if Self::types(at) != [ScalarType::B32] {
                return Err(self.unsupported_because(at, "instruction type"));
            }
        }
        if let WarpKind::MatchAny | WarpKind::MatchAll = kind {
            let t = self.one_type(at)?;
            if !matches!(t, ScalarType::B32 | ScalarType::B64) {
                return Err(self.unsupported_because(at, "instruction type"));
            }
        }
        let mask_v =
            if implicit { u32::MAX } else { self.value(at, self.op(at, expected - 1)?, ScalarType::B32)? as u32 };
        if mask_v & (1 << (self.thread.linear % 32)) == 0 {
            return Err(InterpError::Undefined {
                message: "executing thread is not in membermask".into(),
                line: self.line(at),
            });
        }
        self.thread.status = Status::Warp;
        Ok(Flow::Stay)
    }

    fn current_at(&self) -> Option<At<'a>> {
        let prog: &'a Program<'p> = self.prog;
        let frame = self.thread.frames.last()?;
        let info: &'a FuncInfo = &prog.funcs[frame.func.index()];
        let func: &'a Function = &prog.module.functions[frame.func];
        let inst = &func.insts[*info.code.get(frame.pc)?];
        Some(At { func, info, pc: frame.pc, inst })
    }

    /// This waiting lane's inputs to its warp collective.
    pub(crate) fn warp_input(&self) -> R<WarpIn> {
        let at = self.current_at().ok_or(InterpError::Deadlock { message: "waiting thread has no frame".into() })?;
        let kind = self.warp_kind(&at)?;
        let line = self.line(&at);
        let (count, implicit) = self.warp_operands(&at, kind);
        let mut w = WarpIn { kind, mask: 0, a: 0, b: 0, c: 0, pred: false, line, implicit, v: Vec::new() };
        let mask_of = |ctx: &Self| -> R<u32> {
            if implicit {
                Ok(0)
            } else {
                Ok(ctx.value(&at, ctx.op(&at, count - 1)?, ScalarType::B32)? as u32)
            }
        };
        match kind {
            WarpKind::Shfl(_) => {
                w.a = self.value(&at, self.op(&at, 1)?, ScalarType::B32)?;
                w.b = self.value(&at, self.op(&at, 2)?, ScalarType::B32)? as u32;
                w.c = self.value(&at, self.op(&at, 3)?, ScalarType::B32)? as u32;
                w.mask = mask_of(self)?;
            }
            WarpKind::VoteAll | WarpKind::VoteAny | WarpKind::VoteUni | WarpKind::VoteBallot => {
                w.pred = self.pred(&at, self.op(&at, 1)?)?;
                w.mask = mask_of(self)?;
            }
            WarpKind::ActiveMask => {}
            WarpKind::MatchAny | WarpKind::MatchAll | WarpKind::Redux(..) => {
                let t = self.one_type(&at)?;
                w.a = self.value(&at, self.op(&at, 1)?, t)?;
                w.mask = self.value(&at, self.op(&at, 2)?, ScalarType::B32)? as u32;
            }
            WarpKind::WarpSync => {
                w.mask = self.value(&at, self.op(&at, 0)?, ScalarType::B32)? as u32;
            }
            WarpKind::Tensor(op) => {
                // The whole warp takes part.
                w.mask = u32::MAX;
                w.v = self.tensor_input(&at, op)?;
            }
        }
        Ok(w)
    }

    /// Writes this lane's result of its warp collective and moves on.
    pub(crate) fn warp_finish(&mut self, out: WarpOut) -> R<()> {
        let at = self.current_at().ok_or(InterpError::Deadlock { message: "waiting thread has no frame".into() })?;
        let kind = self.warp_kind(&at)?;
        let d = self.op(&at, 0)?;
        match kind {
            WarpKind::Shfl(_) | WarpKind::MatchAll => match d {
                Operand::Pair(p) => {
                    self.write(&at, &p.0, out.d, ScalarType::B32)?;
                    self.write_pred(&at, &p.1, out.p.unwrap_or(false))?;
                }
                d => self.write(&at, d, out.d, ScalarType::B32)?,
            },
            WarpKind::VoteAll | WarpKind::VoteAny | WarpKind::VoteUni => self.write_pred(&at, d, out.d != 0)?,
            WarpKind::VoteBallot | WarpKind::MatchAny | WarpKind::ActiveMask => {
                self.write(&at, d, out.d, ScalarType::B32)?
            }
            WarpKind::Redux(_, signed) => {
                self.write(&at, d, out.d, if signed { ScalarType::S32 } else { ScalarType::U32 })?
            }
            WarpKind::WarpSync => {}
            WarpKind::Tensor(op) => self.tensor_finish(&at, op, &out.v)?,
        }
        self.thread.status = Status::Ready;
        self.frame_mut().pc += 1;
        Ok(())
    }

    // ------------------------------------------------------------ atomics and async copies

    fn exec_atom(&mut self, at: &At<'_>) -> R<Flow> {
        const OPS: [Word; 10] = [
            Word::AND,
            Word::OR,
            Word::XOR,
            Word::CAS,
            Word::EXCH,
            Word::ADD,
            Word::INC,
            Word::DEC,
            Word::MIN,
            Word::MAX,
        ];
        let mut words: Vec<Word> = OPS.to_vec();
        words.push(Word::NOFTZ);
        self.check(at, &words, F_SPACE | F_MEM | F_VEC)?;
        let is_red = at.inst.opcode == Opcode::Red;
        let t = self.one_type(at)?;
        let op = OPS.into_iter().find(|&w| Self::word(at, w)).ok_or_else(|| self.invalid(at, "atomic operation"))?;
        let base = if is_red { 0 } else { 1 };
        let nsrc = if op == Word::CAS { 2 } else { 1 };
        if at.inst.operands.len() != base + 1 + nsrc {
            // A trailing cache-policy operand is a hint.
            if !(Self::word(at, Word::L2__CACHE_HINT) && at.inst.operands.len() == base + 2 + nsrc) {
                return Err(self.invalid(at, "operand count"));
            }
        }
        let Operand::Address(addr) = self.op(at, base)? else { return Err(self.invalid(at, "atomic address")) };
        if !matches!(t.bits(), 16 | 32 | 64) {
            return Err(self.unsupported_because(at, "atomic type"));
        }
        // The vector forms (PTX 8.1): `.add` of `.f32` in twos and fours,
        // `.add`/`.min`/`.max` of halves (`.v2` to `.v8`) and packed
        // halves (`.v2`, `.v4`), global memory only; each element is an
        // atomic of its own.
        let elements = at.inst.vector().unwrap_or(1) as u64;
        if elements > 1 {
            let allowed = match t {
                ScalarType::F32 => op == Word::ADD && elements <= 4,
                ScalarType::F16 | ScalarType::Bf16 => matches!(op, Word::ADD | Word::MIN | Word::MAX),
                ScalarType::F16x2 | ScalarType::Bf16x2 => {
                    matches!(op, Word::ADD | Word::MIN | Word::MAX) && elements <= 4
                }
                _ => false,
            };
            if !allowed {
                return Err(self.invalid(at, "vector atomic operation or type"));
            }
        }
        let (space, a) = self.address(at, addr, at.inst.space())?;
        if !matches!(space, StateSpace::Global | StateSpace::Shared) || (elements > 1 && space != StateSpace::Global) {
            return Err(InterpError::Undefined {
                message: if elements > 1 {
                    "vector atomic outside global memory"
                } else {
                    "atomic outside global/shared memory"
                }
                .into(),
                line: self.line(at),
            });
        }
        let len = t.bytes() as u64;
        self.check_align(at, space, a, len * elements)?;
        // The sources: one value, or the elements of `{b0, b1, ..}`.
        let b_ops: Vec<&Operand> = match (elements, self.op(at, base + 1)?) {
            (1, op) => vec![op],
            (n, Operand::Vector(v)) if v.len() as u64 == n => v.iter().collect(),
            _ => return Err(self.invalid(at, "vector atomic operand")),
        };
        let d_ops: Vec<&Operand> = match (elements, is_red, self.op(at, 0)?) {
            (_, true, _) => Vec::new(),
            (1, false, op) => vec![op],
            (n, false, Operand::Vector(v)) if v.len() as u64 == n => v.iter().collect(),
            _ => return Err(self.invalid(at, "vector atomic operand")),
        };
        let bits = t.bits();
        let mut olds = Vec::with_capacity(b_ops.len());
        for (i, b_op) in b_ops.iter().enumerate() {
            let at_elem = a + i as u64 * len;
            let old = from_bytes(&self.read_bytes(at, space, at_elem, len)?);
            let b = self.value(at, b_op, t)?;
            let new = if let Some((fmt, lanes, lane_bits)) = float_lanes(t) {
                // min/max of floats exist only in the vector forms.
                let modelled = match op {
                    Word::ADD | Word::EXCH => true,
                    Word::MIN | Word::MAX => elements > 1,
                    _ => false,
                };
                if !modelled {
                    return Err(self.unsupported_because(at, "floating-point atomic operation"));
                }
                if op == Word::EXCH {
                    b
                } else {
                    let flush = t == ScalarType::F32 && space == StateSpace::Global;
                    if t != ScalarType::F32 && t != ScalarType::F64 && !Self::word(at, Word::NOFTZ) {
                        return Err(self.invalid(at, "half-precision atomic requires .noftz"));
                    }
                    // Each lane of a packed type on its own: sums rounded to
                    // nearest even, subnormals kept (.noftz); min and max
                    // as `min`/`max` of the type.
                    let mut r = 0u128;
                    for k in 0..lanes {
                        let lane = |v: u128| ((v >> (k * lane_bits)) & mask(lane_bits)) as u64;
                        let (mut x, mut y) = (lane(old), lane(b));
                        if flush {
                            x = fmt.flush(x);
                            y = fmt.flush(y);
                        }
                        let mut v = match op {
                            Word::ADD => sf::add(x, y, fmt, Mode::NearestEven),
                            _ => float_min_or_max(fmt, x, y, op == Word::MAX, false),
                        };
                        if flush {
                            v = fmt.flush(v);
                        }
                        r |= u128::from(v) << (k * lane_bits);
                    }
                    r
                }
            } else {
                let signed = t.is_signed();
                let (x, y) = (int_value(old, bits, signed), int_value(b, bits, signed));
                match op {
                    Word::AND => old & b,
                    Word::OR => old | b,
                    Word::XOR => old ^ b,
                    Word::EXCH => b,
                    Word::CAS => {
                        let c = self.value(at, self.op(at, base + 2)?, t)?;
                        if old == b {
                            c
                        } else {
                            old
                        }
                    }
                    Word::ADD => (old + b) & mask(bits),
                    Word::MIN => x.min(y) as u128 & mask(bits),
                    Word::MAX => x.max(y) as u128 & mask(bits),
                    Word::INC => {
                        if old >= b {
                            0
                        } else {
                            old + 1
                        }
                    }
                    _ => {
                        if old == 0 || old > b {
                            b
                        } else {
                            old - 1
                        }
                    }
                }
            };
            self.write_bytes(at, space, at_elem, &to_bytes(new, len as usize))?;
            olds.push(old);
        }
        for (d, old) in d_ops.into_iter().zip(olds) {
            if !matches!(d, Operand::Sink) {
                self.write(at, d, old, t)?;
            }
        }
        Ok(Flow::Next)
    }

    /// `cp.async` (performed at once: waiting for it is then a no-op).
    fn exec_cp(&mut self, at: &At<'_>) -> R<Flow> {
        self.check(
            at,
            &[
                Word::ASYNC,
                Word::CA,
                Word::CG,
                Word::COMMIT_GROUP,
                Word::WAIT_GROUP,
                Word::WAIT_ALL,
                Word::L2__64B,
                Word::L2__128B,
                Word::L2__256B,
                Word::L2__CACHE_HINT,
            ],
            F_SPACE,
        )?;
        if !Self::word(at, Word::ASYNC) {
            return Err(self.unsupported(at));
        }
        if Self::word(at, Word::COMMIT_GROUP) || Self::word(at, Word::WAIT_GROUP) || Self::word(at, Word::WAIT_ALL) {
            return Ok(Flow::Next);
        }
        let spaces: Vec<StateSpace> = at
            .inst
            .modifiers
            .iter()
            .filter_map(|m| match m {
                Modifier::Space(s, _) => Some(*s),
                _ => None,
            })
            .collect();
        if spaces != [StateSpace::Shared, StateSpace::Global] {
            return Err(self.unsupported_because(at, "cp.async form"));
        }
        let n = at.inst.operands.len();
        if !(3..=5).contains(&n) {
            return Err(self.invalid(at, "operand count"));
        }
        let (Operand::Address(dst), Operand::Address(src)) = (self.op(at, 0)?, self.op(at, 1)?) else {
            return Err(self.invalid(at, "cp.async addresses"));
        };
        let size = self.value(at, self.op(at, 2)?, ScalarType::U32)? as u64;
        if !matches!(size, 4 | 8 | 16) {
            return Err(self.invalid(at, "cp-size must be 4, 8 or 16"));
        }
        let mut src_size = size;
        if n >= 4 {
            let extra = self.op(at, 3)?;
            let is_pred = matches!(extra, Operand::Reg(r) if at.func.regs[*r].ty.scalar == ScalarType::Pred);
            if is_pred {
                if self.pred(at, extra)? {
                    src_size = 0;
                }
            } else if !(n == 4 && Self::word(at, Word::L2__CACHE_HINT)) {
                src_size = self.value(at, extra, ScalarType::U32)? as u64;
            }
        }
        let (ds, da) = self.address(at, dst, Some(StateSpace::Shared))?;
        let (ss, sa) = self.address(at, src, Some(StateSpace::Global))?;
        self.check_align(at, ds, da, size)?;
        self.check_align(at, ss, sa, size)?;
        let mut bytes = if src_size > 0 { self.read_bytes(at, ss, sa, src_size.min(size))? } else { Vec::new() };
        bytes.resize(size as usize, 0);
        self.write_bytes(at, ds, da, &bytes)?;
        Ok(Flow::Next)
    }
}

/// Float binary operations.
#[derive(Clone, Copy)]
enum FOp {
    Add,
    Sub,
    Mul,
}

/// `min`/`max` of two floats of `fmt`: a NaN loses to a number (with
/// `nan`, it wins, as the canonical NaN); -0.0 is smaller than +0.0.
fn float_min_or_max(fmt: sf::Format, x: u64, y: u64, is_max: bool, nan: bool) -> u64 {
    let (xn, yn) = (fmt.is_nan(x), fmt.is_nan(y));
    if xn && yn || (nan && (xn || yn)) {
        fmt.canonical_nan()
    } else if xn {
        y
    } else if yn {
        x
    } else {
        let (fx, fy) = (sf::to_f64(x, fmt), sf::to_f64(y, fmt));
        if fx == fy {
            if is_max == fmt.is_negative(x) {
                y
            } else {
                x
            }
        } else if (fx > fy) == is_max {
            x
        } else {
            y
        }
    }
}

/// Computes a warp collective for the lanes in `members` (a bit per lane of
/// the warp; `width` lanes exist). Errors name undefined behaviour.
pub(crate) fn warp_compute(
    inputs: &[(usize, WarpIn)],
    members: u32,
    width: u32,
) -> Result<Vec<(usize, WarpOut)>, String> {
    if let Some((_, WarpIn { kind: WarpKind::Tensor(op), .. })) = inputs.first() {
        return tensor::compute(*op, inputs);
    }
    let by_lane = |lane: u32| inputs.iter().find(|(l, _)| *l as u32 == lane).map(|(_, w)| w);
    let mut outs = Vec::with_capacity(inputs.len());
    for (lane, w) in inputs {
        let lane = *lane as u32;
        let group = w.mask & members;
        let out = match w.kind {
            WarpKind::Shfl(mode) => {
                let bval = w.b & 0x1f;
                let cval = w.c & 0x1f;
                let segmask = (w.c >> 8) & 0x1f;
                let max_lane = (lane & segmask) | (cval & !segmask);
                let min_lane = lane & segmask;
                let (j, pval) = match mode {
                    ShflMode::Up => {
                        let j = lane as i64 - bval as i64;
                        (j, j >= max_lane as i64)
                    }
                    ShflMode::Down => {
                        let j = (lane + bval) as i64;
                        (j, j <= max_lane as i64)
                    }
                    ShflMode::Bfly => {
                        let j = (lane ^ bval) as i64;
                        (j, j <= max_lane as i64)
                    }
                    ShflMode::Idx => {
                        let j = (min_lane | (bval & !segmask)) as i64;
                        (j, j <= max_lane as i64)
                    }
                };
                let src = if pval { j as u32 } else { lane };
                if src >= width {
                    return Err(format!("shfl reads lane {src}, which does not exist"));
                }
                let d = match by_lane(src) {
                    Some(s) if group & (1 << src) != 0 || src == lane => s.a,
                    _ => return Err(format!("shfl reads lane {src}, which does not take part")),
                };
                WarpOut { d, p: Some(pval), v: Vec::new() }
            }
            WarpKind::VoteBallot | WarpKind::VoteAll | WarpKind::VoteAny | WarpKind::VoteUni => {
                let mut ballot = 0u32;
                for (l, x) in inputs {
                    if group & (1 << *l) != 0 && x.pred {
                        ballot |= 1 << *l;
                    }
                }
                let d = match w.kind {
                    WarpKind::VoteBallot => ballot,
                    WarpKind::VoteAll => (ballot == group) as u32,
                    WarpKind::VoteAny => (ballot != 0) as u32,
                    _ => (ballot == group || ballot == 0) as u32,
                };
                WarpOut { d: d as u128, p: None, v: Vec::new() }
            }
            WarpKind::MatchAny => {
                let mut same = 0u32;
                for (l, x) in inputs {
                    if group & (1 << *l) != 0 && x.a == w.a {
                        same |= 1 << *l;
                    }
                }
                WarpOut { d: same as u128, p: None, v: Vec::new() }
            }
            WarpKind::MatchAll => {
                let all = inputs.iter().filter(|(l, _)| group & (1 << *l) != 0).all(|(_, x)| x.a == w.a);
                WarpOut { d: if all { group as u128 } else { 0 }, p: Some(all), v: Vec::new() }
            }
            WarpKind::Redux(op, signed) => {
                let vals: Vec<u128> =
                    inputs.iter().filter(|(l, _)| group & (1 << *l) != 0).map(|(_, x)| x.a & 0xffff_ffff).collect();
                let iv = |v: u128| int_value(v, 32, signed);
                let d = match op {
                    ReduxOp::Add => vals.iter().fold(0u128, |s, v| (s + v) & 0xffff_ffff),
                    ReduxOp::And => vals.iter().fold(0xffff_ffff, |s, v| s & v),
                    ReduxOp::Or => vals.iter().fold(0, |s, v| s | v),
                    ReduxOp::Xor => vals.iter().fold(0, |s, v| s ^ v),
                    ReduxOp::Min => vals.iter().map(|&v| iv(v)).min().unwrap_or(0) as u128 & 0xffff_ffff,
                    ReduxOp::Max => vals.iter().map(|&v| iv(v)).max().unwrap_or(0) as u128 & 0xffff_ffff,
                };
                WarpOut { d, p: None, v: Vec::new() }
            }
            WarpKind::WarpSync => WarpOut { d: 0, p: None, v: Vec::new() },
            WarpKind::ActiveMask => WarpOut { d: group as u128, p: None, v: Vec::new() },
            WarpKind::Tensor(_) => return Err("a tensor-core instruction among other collectives".into()),
        };
        outs.push((lane as usize, out));
    }
    Ok(outs)
}

#[cfg(test)]
mod tests {
    use super::MEMORY_HINTS;
    use ptx_ir::words::WORDS;
    use ptx_ir::Word;

    /// Every cache-level word of the vocabulary (`.L1::*`, `.L2::*`) is a
    /// memory hint, as it was when the hints were matched by prefix.
    #[test]
    fn memory_hints_cover_every_cache_level_word() {
        let levels: Vec<&str> =
            WORDS.iter().copied().filter(|w| w.starts_with("L1::") || w.starts_with("L2::")).collect();
        assert!(levels.len() >= 10, "{levels:?}");
        for w in levels {
            assert!(MEMORY_HINTS.contains(&Word::lookup(w).unwrap()), ".{w} is not in MEMORY_HINTS");
        }
    }
}
