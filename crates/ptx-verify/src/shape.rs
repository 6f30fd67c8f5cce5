//! Instructions of one shape get one verdict.
//!
//! Every per-instruction check of the verifier reads only the opcode, the
//! modifiers, the guard's negation and register type, and the operands, of
//! which registers only by their declared type (names, labels and literals as
//! they are; both instructions are in the same function, so a name means the
//! same thing in both). Real PTX repeats a few hundred such shapes across
//! thousands of instructions, so checking each clean shape once per function
//! makes verification several times cheaper. Only clean verdicts are
//! remembered: an instruction with an error is always checked, so its
//! diagnostics carry its own place.

use ptx_ir::{AddrBase, Function, Inst, InstId, Operand, RegId};
use rustc_hash::FxHasher;
use std::hash::{Hash, Hasher};

/// Slots of the table of clean shapes (a power of two): about one per
/// instruction of the function, at least this many and at most
/// [`MAX_SLOTS`]. A function has a few hundred to a few thousand shapes; a
/// shape that loses its slot is only checked again.
const MIN_SLOTS: usize = 256;
const MAX_SLOTS: usize = 1 << 14;

/// The shapes of the instructions of one function found clean so far: a
/// direct-mapped table from the shape's hash to an instruction of that shape.
pub(super) struct CleanShapes<'f> {
    func: &'f Function,
    slots: Vec<Option<(u64, InstId)>>,
}

impl<'f> CleanShapes<'f> {
    pub(super) fn new(func: &'f Function) -> Self {
        let slots = func.insts.len().next_power_of_two().clamp(MIN_SLOTS, MAX_SLOTS);
        CleanShapes { func, slots: vec![None; slots] }
    }

    /// The hash of `inst`'s shape, and whether an instruction of that shape
    /// was found clean. Every register of `inst` must exist.
    pub(super) fn lookup(&self, inst: &Inst) -> (u64, bool) {
        let mut h = FxHasher::default();
        hash_inst(self.func, inst, &mut h);
        let hash = h.finish();
        let seen = match self.slots[slot(hash, self.slots.len())] {
            Some((known, id)) => known == hash && same_inst(self.func, &self.func.insts[id], inst),
            None => false,
        };
        (hash, seen)
    }

    /// Remembers that instruction `id`, of shape hash `hash`, is clean.
    pub(super) fn insert(&mut self, hash: u64, id: InstId) {
        let at = slot(hash, self.slots.len());
        self.slots[at] = Some((hash, id));
    }
}

/// FxHasher's last step is a multiplication: its high bits are the mixed ones.
fn slot(hash: u64, slots: usize) -> usize {
    (hash >> (64 - slots.trailing_zeros())) as usize
}

fn reg_ty(func: &Function, r: RegId) -> ptx_ir::RegType {
    func.regs[r].ty
}

fn hash_inst(func: &Function, inst: &Inst, h: &mut FxHasher) {
    inst.opcode.hash(h);
    inst.modifiers.hash(h);
    match inst.guard {
        None => 0u8.hash(h),
        Some(g) => {
            1u8.hash(h);
            g.negated.hash(h);
            reg_ty(func, g.reg).hash(h);
        }
    }
    inst.operands.len().hash(h);
    for op in &inst.operands {
        hash_operand(func, op, h);
    }
}

fn hash_operand(func: &Function, op: &Operand, h: &mut FxHasher) {
    std::mem::discriminant(op).hash(h);
    match op {
        Operand::Reg(r) => reg_ty(func, *r).hash(h),
        Operand::RegComponent(r, c) => {
            reg_ty(func, *r).hash(h);
            c.hash(h);
        }
        Operand::RegSelect(r, n) => {
            reg_ty(func, *r).hash(h);
            n.hash(h);
        }
        Operand::RegOffset(r, i) => {
            reg_ty(func, *r).hash(h);
            i.hash(h);
        }
        Operand::Address(a) => {
            match a.base {
                AddrBase::Reg(r) => {
                    0u8.hash(h);
                    reg_ty(func, r).hash(h);
                }
                ref other => {
                    1u8.hash(h);
                    other.hash(h);
                }
            }
            (a.offset, a.explicit_zero, a.unified, a.rest.len()).hash(h);
            for o in &a.rest {
                hash_operand(func, o, h);
            }
        }
        Operand::Vector(ops) | Operand::Parens(ops) => {
            ops.len().hash(h);
            for o in ops.iter() {
                hash_operand(func, o, h);
            }
        }
        Operand::Pair(pair) => {
            hash_operand(func, &pair.0, h);
            hash_operand(func, &pair.1, h);
        }
        Operand::Not(inner) | Operand::Neg(inner) => hash_operand(func, inner, h),
        // No register inside: the operand as it is.
        other => other.hash(h),
    }
}

fn same_inst(func: &Function, a: &Inst, b: &Inst) -> bool {
    let guards = match (a.guard, b.guard) {
        (None, None) => true,
        (Some(x), Some(y)) => x.negated == y.negated && reg_ty(func, x.reg) == reg_ty(func, y.reg),
        _ => false,
    };
    guards
        && a.opcode == b.opcode
        && a.modifiers == b.modifiers
        && a.operands.len() == b.operands.len()
        && a.operands.iter().zip(&b.operands).all(|(x, y)| same_operand(func, x, y))
}

fn same_operand(func: &Function, a: &Operand, b: &Operand) -> bool {
    let same_reg = |x: &RegId, y: &RegId| reg_ty(func, *x) == reg_ty(func, *y);
    let same_all =
        |x: &[Operand], y: &[Operand]| x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_operand(func, p, q));
    match (a, b) {
        (Operand::Reg(x), Operand::Reg(y)) => same_reg(x, y),
        (Operand::RegComponent(x, c), Operand::RegComponent(y, d)) => c == d && same_reg(x, y),
        (Operand::RegSelect(x, n), Operand::RegSelect(y, m)) => n == m && same_reg(x, y),
        (Operand::RegOffset(x, i), Operand::RegOffset(y, j)) => i == j && same_reg(x, y),
        (Operand::Address(x), Operand::Address(y)) => {
            let bases = match (&x.base, &y.base) {
                (AddrBase::Reg(p), AddrBase::Reg(q)) => same_reg(p, q),
                (p, q) => p == q,
            };
            bases
                && x.offset == y.offset
                && x.explicit_zero == y.explicit_zero
                && x.unified == y.unified
                && same_all(&x.rest, &y.rest)
        }
        (Operand::Vector(x), Operand::Vector(y)) | (Operand::Parens(x), Operand::Parens(y)) => same_all(x, y),
        (Operand::Pair(x), Operand::Pair(y)) => same_operand(func, &x.0, &y.0) && same_operand(func, &x.1, &y.1),
        (Operand::Not(x), Operand::Not(y)) | (Operand::Neg(x), Operand::Neg(y)) => same_operand(func, x, y),
        // Different kinds, or kinds without registers: compared as they are.
        _ => a == b,
    }
}

/// Clean shapes across the functions a thread checks, for instructions
/// whose shape names nothing of their function: no symbol, label or word
/// the vocabulary lacks, so registers count by their declared type,
/// literals and special registers as written. Such an instruction gets the
/// same verdict in any function of a module (the per-instruction checks
/// read nothing else of the function), and templated code repeats the same
/// instructions over many small functions, each of which would otherwise
/// check its shapes anew. A verdict holds for one description and one
/// header target: the table starts over when either changes, and is not
/// used where a `.target` in a function body makes the verdict depend on
/// the place.
#[derive(Default)]
pub(super) struct PortableShapes {
    /// (the description, as an address; `.version`; the `sm_` target).
    module: Option<(usize, (u32, u32), Option<&'static str>)>,
    /// The shapes found clean, each as the bytes that describe it.
    clean: rustc_hash::FxHashSet<Box<[u8]>>,
    /// The description of the shape looked up last.
    scratch: Vec<u8>,
}

/// Shapes kept at most (two to eight thousand in the largest modules, a few
/// dozen bytes each); the table starts over past this.
const MAX_PORTABLE: usize = 1 << 13;

impl PortableShapes {
    /// Forgets what was found under another description or target.
    pub(super) fn keep_for(&mut self, isa: &'static ptx_isa::Isa, target: &crate::Target) {
        let module = Some((isa as *const ptx_isa::Isa as usize, target.version(), target.name()));
        if self.module != module || self.clean.len() >= MAX_PORTABLE {
            self.clean.clear();
            self.module = module;
        }
    }

    /// True if an instruction of `inst`'s shape was found clean. False
    /// too if `inst` names something of its function; after false,
    /// [`PortableShapes::insert_last`] remembers `inst`'s shape as clean.
    pub(super) fn lookup(&mut self, func: &Function, inst: &Inst) -> bool {
        let mut bytes = Recorder(std::mem::take(&mut self.scratch));
        bytes.0.clear();
        let portable = describe_inst(func, inst, &mut bytes);
        self.scratch = bytes.0;
        if !portable {
            self.scratch.clear();
            return false;
        }
        self.clean.contains(self.scratch.as_slice())
    }

    /// Remembers the shape of the instruction looked up last as clean (if
    /// it names nothing of its function).
    pub(super) fn insert_last(&mut self) {
        if !self.scratch.is_empty() {
            self.clean.insert(self.scratch.as_slice().into());
        }
    }
}

/// A `Hasher` that keeps what it is given, compactly: integers as LEB128
/// (signed ones zigzagged), byte strings after their length. Every write is
/// self-delimiting, so the `Hash` impls (which write a value's variant
/// before its fields) describe different values with different bytes.
struct Recorder(Vec<u8>);

impl Recorder {
    fn varint(&mut self, mut n: u64) {
        while n >= 0x80 {
            self.0.push((n as u8) | 0x80);
            n >>= 7;
        }
        self.0.push(n as u8);
    }
}

impl Hasher for Recorder {
    fn write(&mut self, bytes: &[u8]) {
        self.varint(bytes.len() as u64);
        self.0.extend_from_slice(bytes);
    }

    fn write_u8(&mut self, n: u8) {
        self.0.push(n);
    }

    fn write_u16(&mut self, n: u16) {
        self.varint(n.into());
    }

    fn write_u32(&mut self, n: u32) {
        self.varint(n.into());
    }

    fn write_u64(&mut self, n: u64) {
        self.varint(n);
    }

    fn write_usize(&mut self, n: usize) {
        self.varint(n as u64);
    }

    fn write_i8(&mut self, n: i8) {
        self.0.push(n as u8);
    }

    fn write_i16(&mut self, n: i16) {
        self.write_i64(n.into());
    }

    fn write_i32(&mut self, n: i32) {
        self.write_i64(n.into());
    }

    fn write_i64(&mut self, n: i64) {
        self.varint(((n << 1) ^ (n >> 63)) as u64);
    }

    fn write_isize(&mut self, n: isize) {
        self.write_i64(n as i64);
    }

    fn finish(&self) -> u64 {
        0
    }
}

/// Writes the shape of `inst` into `out`; false if it names a symbol, a
/// label or a word the vocabulary lacks.
fn describe_inst(func: &Function, inst: &Inst, out: &mut Recorder) -> bool {
    let Some(opcode) = inst.opcode.index() else { return false };
    opcode.hash(out);
    if inst.modifiers.iter().any(|m| matches!(m, ptx_ir::Modifier::Other(_))) {
        return false;
    }
    inst.modifiers.hash(out);
    match inst.guard {
        None => 0u8.hash(out),
        Some(g) => {
            1u8.hash(out);
            g.negated.hash(out);
            reg_ty(func, g.reg).hash(out);
        }
    }
    inst.operands.len().hash(out);
    inst.operands.iter().all(|op| describe_operand(func, op, out))
}

fn describe_operand(func: &Function, op: &Operand, out: &mut Recorder) -> bool {
    std::mem::discriminant(op).hash(out);
    match op {
        Operand::Reg(r) => reg_ty(func, *r).hash(out),
        Operand::RegComponent(r, c) => {
            reg_ty(func, *r).hash(out);
            c.hash(out);
        }
        Operand::RegSelect(r, name) => {
            reg_ty(func, *r).hash(out);
            func.names.get(*name).hash(out);
        }
        Operand::RegOffset(r, i) => {
            reg_ty(func, *r).hash(out);
            i.hash(out);
        }
        Operand::Special(name) => func.names.get(*name).hash(out),
        Operand::Int(i) => i.hash(out),
        Operand::Float(f) => f.hash(out),
        Operand::Sink => {}
        Operand::Address(a) => {
            match a.base {
                AddrBase::Reg(r) => {
                    0u8.hash(out);
                    reg_ty(func, r).hash(out);
                }
                AddrBase::Absolute(i) => {
                    1u8.hash(out);
                    i.hash(out);
                }
                AddrBase::Symbol(_) => return false,
            }
            (a.offset, a.explicit_zero, a.unified, a.rest.len()).hash(out);
            return a.rest.iter().all(|o| describe_operand(func, o, out));
        }
        Operand::Vector(ops) | Operand::Parens(ops) => {
            ops.len().hash(out);
            return ops.iter().all(|o| describe_operand(func, o, out));
        }
        Operand::Pair(pair) => return describe_operand(func, &pair.0, out) && describe_operand(func, &pair.1, out),
        Operand::Not(inner) | Operand::Neg(inner) => return describe_operand(func, inner, out),
        Operand::Label(_) | Operand::Symbol(_) | Operand::SymbolOffset(..) => return false,
    }
    true
}
