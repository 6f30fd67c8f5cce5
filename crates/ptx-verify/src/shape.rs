//! Instructions of one shape get one verdict.
//!
//! Every per-instruction check of the verifier reads only the opcode, the
//! modifiers, the guard's negation and register type, and the operands, of
//! which registers only by their declared type, labels only by whether the
//! function places them, address offsets only by whether there is one,
//! floating-point literals only by their width, and integer literals only
//! where a form of the opcode takes a listed or bounded literal (and for
//! barrier numbers); names and symbols as they are (both instructions are in
//! the same function, so a name means the same thing in both). Real PTX
//! repeats a few hundred such shapes across thousands of instructions, so
//! checking each clean shape once per function makes verification several
//! times cheaper. Only clean verdicts are remembered: an instruction with an
//! error is always checked, so its diagnostics carry its own place.
//!
//! Most shapes fit four words ([`compact_key`]: a known opcode, its shared
//! modifier list's address, at most four plain operands); those are looked
//! up by the words themselves, which need no second instruction to compare
//! with. The rest are hashed and compared with an instruction found clean.
//!
//! The declaration check of an instruction (`declarations.rs`) is part of
//! the verdict: it reads the symbols the instruction names, which the shape
//! holds, and what is declared before the instruction, which only grows
//! along the body (a name declared before one use is declared before every
//! later one).
//!
//! Whoever makes a check read more of an operand than this must make the
//! shape say it too (`write_operand`, `same_operand`, `compact_operand`).

use ptx_ir::{AddrBase, Function, Inst, InstId, Opcode, Operand, RegId};
use rustc_hash::FxHasher;
use std::hash::{Hash, Hasher};

/// Slots of the table of clean shapes (a power of two): about one per
/// instruction of the function, at least this many and at most
/// [`MAX_SLOTS`]. A function has a few hundred to a few thousand shapes; a
/// shape that loses its slot is only checked again.
const MIN_SLOTS: usize = 256;
const MAX_SLOTS: usize = 1 << 14;

/// Slots of a thread's table of compact shapes (see [`CompactShapes`]).
const COMPACT_SLOTS: usize = 1 << 11;

/// A shape as [`CleanShapes::lookup`] found it, for [`CleanShapes::insert`].
#[derive(Clone, Copy)]
pub(super) enum Shape {
    /// The shape in four words ([`compact_key`]).
    Compact([u64; 4]),
    /// The hash of a shape that does not fit four words.
    Hashed(u64),
}

/// The clean shapes that fit four words ([`compact_key`]), kept by a thread
/// for one function at a time: an entry counts only in the generation it was
/// written in, and each function starts a new one, so nothing is cleared
/// between functions. The key is the shape itself, so a hit needs no second
/// instruction to compare with.
///
/// A slot is the key with the generation in the first word's unused bits
/// ([`GENERATION_SHIFT`]): 32 bytes, so the table is 64 KiB where a separate
/// generation word made it 80. The table is cleared when the generation
/// wraps, so an entry never outlives its function.
#[derive(Default)]
pub(super) struct CompactShapes {
    slots: Vec<[u64; 4]>,
    generation: u64,
    /// Per register of the function: [`type_code`]. A key reads the codes of
    /// several registers per instruction; two bytes each stay in the cache
    /// where the registers' data would not.
    reg_codes: Vec<u16>,
}

/// Where a slot's first word holds the generation: above what
/// [`compact_key`] writes into the key's first word (bits 0 to 42), below
/// its top bit.
const GENERATION_SHIFT: u32 = 44;
const GENERATIONS: u64 = 1 << (63 - GENERATION_SHIFT);

impl CompactShapes {
    fn start_function(&mut self, func: &Function) {
        self.reg_codes.clear();
        // By index, removed registers included: a key indexes the codes by id.
        let regs = &func.regs;
        self.reg_codes.extend((0..regs.len()).map(|i| type_code(regs[RegId::from_u32(i as u32)].ty)));
        self.start_generation();
    }

    fn start_generation(&mut self) {
        self.generation += 1;
        if self.slots.is_empty() || self.generation == GENERATIONS {
            // A zero first word matches no key (a key's top bit is set).
            self.slots = vec![[0; 4]; COMPACT_SLOTS];
            self.generation = 1;
        }
    }

    fn slot(key: &[u64; 4]) -> usize {
        let mixed = (key[0] ^ key[1].rotate_left(17) ^ key[2].rotate_left(31) ^ key[3].rotate_left(47))
            .wrapping_mul(0x9e37_79b9_7f4a_7c15);
        (mixed >> (64 - COMPACT_SLOTS.trailing_zeros())) as usize
    }

    fn contains(&self, key: &[u64; 4]) -> bool {
        let known = &self.slots[Self::slot(key)];
        // Word by word: compared as vectors, the key (just written to the
        // stack) stalled on store forwarding.
        known[0] == key[0] | self.generation << GENERATION_SHIFT
            && known[1] == key[1]
            && known[2] == key[2]
            && known[3] == key[3]
    }

    fn insert(&mut self, key: [u64; 4]) {
        let at = Self::slot(&key);
        self.slots[at] = [key[0] | self.generation << GENERATION_SHIFT, key[1], key[2], key[3]];
    }
}

/// The shapes of the instructions of one function found clean so far: the
/// thread's [`CompactShapes`] for those that fit four words, and a
/// direct-mapped table from the shape's hash to an instruction of that
/// shape for the rest.
pub(super) struct CleanShapes<'f, 'c> {
    func: &'f Function,
    compact: &'c mut CompactShapes,
    /// Allocated on the first shape that does not fit four words.
    slots: Vec<Option<(u64, InstId)>>,
}

impl<'f, 'c> CleanShapes<'f, 'c> {
    pub(super) fn new(func: &'f Function, compact: &'c mut CompactShapes) -> Self {
        compact.start_function(func);
        CleanShapes { func, compact, slots: Vec::new() }
    }

    /// Forgets every shape found clean so far (a `.target` in the body
    /// changes what is clean from there on).
    pub(super) fn forget(&mut self) {
        self.compact.start_generation();
        self.slots.clear();
    }

    /// `inst`'s shape, and whether an instruction of that shape was found
    /// clean. Every register and label of `inst` must exist.
    pub(super) fn lookup(&mut self, seen_as: &Seen<'_>, inst: &Inst) -> (Shape, bool) {
        if let Some(key) = compact_key(seen_as, &self.compact.reg_codes, inst) {
            return (Shape::Compact(key), self.compact.contains(&key));
        }
        if self.slots.is_empty() {
            let slots = self.func.insts.len().next_power_of_two().clamp(MIN_SLOTS, MAX_SLOTS);
            self.slots = vec![None; slots];
        }
        let mut h = FxHasher::default();
        write_inst::<_, false>(seen_as, inst, &mut h);
        let hash = h.finish();
        let seen = match self.slots[slot(hash, self.slots.len())] {
            Some((known, id)) => known == hash && same_inst(seen_as, &self.func.insts[id], inst),
            None => false,
        };
        (Shape::Hashed(hash), seen)
    }

    /// Remembers that instruction `id`, of shape `shape`, is clean.
    pub(super) fn insert(&mut self, shape: Shape, id: InstId) {
        match shape {
            Shape::Compact(key) => self.compact.insert(key),
            Shape::Hashed(hash) => {
                let at = slot(hash, self.slots.len());
                self.slots[at] = Some((hash, id));
            }
        }
    }
}

/// The shape of `inst` in four words, when it fits: a known opcode, at most
/// four operands, each one [`compact_operand`] can write. Two instructions
/// of one function with the same key are [`same_inst`]: the key holds the
/// opcode, the address of the shared modifier list (equal addresses are one
/// list: both instructions are alive while their function is checked; equal
/// lists at two addresses only miss each other), the guard's negation and
/// register type, the operand count and each operand's kind and what
/// `same_operand` compares of it.
fn compact_key(seen: &Seen<'_>, reg_codes: &[u16], inst: &Inst) -> Option<[u64; 4]> {
    let opcode = inst.opcode.index()? as u64;
    let operands = inst.operands.as_slice();
    if opcode >= 1 << 16 || operands.len() > 4 {
        return None;
    }
    let reg = |r: RegId| u32::from(reg_codes[r.as_u32() as usize]);
    let guard = match inst.guard {
        None => 0,
        Some(g) => 1 + u64::from(g.negated()) + (u64::from(reg(g.reg())) << 2),
    };
    // Bits 43 to 62 stay clear for CompactShapes' generation.
    let head = 1 << 63 | opcode | guard << 16 | (operands.len() as u64) << 40;
    debug_assert_eq!(head >> GENERATION_SHIFT, 1 << (63 - GENERATION_SHIFT));
    // The operand words are built in locals: written into an array and read
    // back whole, they stalled on store forwarding.
    let code = |i: usize| match operands.get(i) {
        Some(op) => compact_operand(seen, reg, op).map(u64::from),
        None => Some(0),
    };
    let low = code(0)? | code(1)? << 32;
    let high = code(2)? | code(3)? << 32;
    Some([head, inst.modifiers.shared_address() as u64, low, high])
}

/// An operand in 32 bits, its kind in the low four (never 0), when it fits.
///
/// Always inlined: [`compact_key`] calls it for each of four operands
/// through a closure, and the compiler kept it out of line: inlined, the
/// verifier runs 13% fewer instructions on the 54 MB bench file.
#[inline(always)]
fn compact_operand(seen: &Seen<'_>, reg: impl Fn(RegId) -> u32, op: &Operand) -> Option<u32> {
    let small_name = |n: ptx_ir::Name, bits: u32| (n.as_u32() < 1 << bits).then_some(n.as_u32());
    Some(match op {
        Operand::Reg(r) => 1 | reg(*r) << 4,
        Operand::Int(_) if !seen.literal_values => 2,
        Operand::Float(f) => 3 | u32::from(f.single()) << 4,
        Operand::Label(l) => 4 | u32::from(seen.placed(*l)) << 4,
        Operand::Sink => 5,
        Operand::Address(a) if a.rest.is_empty() => {
            let flags = u32::from(a.offset != 0) | u32::from(a.explicit_zero) << 1 | u32::from(a.unified) << 2;
            match a.base {
                AddrBase::Reg(r) => 6 | flags << 4 | reg(r) << 8,
                AddrBase::Symbol(n) => 7 | flags << 4 | small_name(n, 24)? << 8,
                AddrBase::Absolute(_) => return None,
            }
        }
        Operand::Vector(ops) if (1..=8).contains(&ops.len()) => {
            let Operand::Reg(first) = ops[0] else { return None };
            let ty = reg(first);
            if !ops.iter().all(|o| matches!(o, Operand::Reg(r) if reg(*r) == ty)) {
                return None;
            }
            8 | (ops.len() as u32 - 1) << 4 | ty << 8
        }
        Operand::Pair(pair) => match (&pair.0, &pair.1) {
            (Operand::Reg(a), Operand::Reg(b)) if reg(*a) == reg(*b) => 9 | reg(*a) << 4,
            _ => return None,
        },
        Operand::Not(inner) | Operand::Neg(inner) => match **inner {
            Operand::Reg(r) => (if matches!(op, Operand::Not(_)) { 10 } else { 11 }) | reg(r) << 4,
            _ => return None,
        },
        Operand::Special(n) => 12 | small_name(*n, 28)? << 4,
        Operand::Symbol(n) => 13 | small_name(*n, 28)? << 4,
        _ => return None,
    })
}

/// A register's declared type in 16 bits.
fn type_code(ty: ptx_ir::RegType) -> u16 {
    u16::from(ty.scalar as u8) | u16::from(ty.vector.map_or(0, |n| n.saturating_add(1))) << 8
}

/// FxHasher's last step is a multiplication: its high bits are the mixed ones.
fn slot(hash: u64, slots: usize) -> usize {
    (hash >> (64 - slots.trailing_zeros())) as usize
}

/// What of an instruction's operands the checks of one instruction read,
/// beyond kinds and register types.
pub(super) struct Seen<'f> {
    func: &'f Function,
    /// Per label of the function: placed in its body.
    placed: &'f [bool],
    /// The values of integer literals (see [`LiteralReaders`]).
    literal_values: bool,
}

impl<'f> Seen<'f> {
    pub(super) fn new(func: &'f Function, placed: &'f [bool], literal_values: bool) -> Self {
        Seen { func, placed, literal_values }
    }

    fn placed(&self, l: ptx_ir::LabelId) -> bool {
        self.placed.get(l.as_u32() as usize).copied().unwrap_or(false)
    }
}

/// Which opcodes have checks that read an integer literal's value: a form
/// with a `@immediate` operand (`cp-size = { 4, 8, 16 }`) or a `@range`,
/// and `bar`/`barrier` (barrier numbers and thread counts). For the rest a
/// literal counts by its kind alone, so `add.s32 d, a, 1` and `add.s32 d,
/// a, 2` are one shape. Per thread, for one description at a time.
#[derive(Default)]
pub(super) struct LiteralReaders {
    /// The description, as an address.
    isa: usize,
    /// Per opcode index of the IR: 0 not yet known, 1 no, 2 yes.
    known: Vec<u8>,
}

impl LiteralReaders {
    /// True if a check of `inst` may read the value of an integer literal.
    #[inline]
    pub(super) fn read_values(&mut self, isa: &'static ptx_isa::Isa, func: &Function, inst: &Inst) -> bool {
        // An opcode the IR does not know is unknown to the checks too.
        let Some(index) = inst.opcode.index() else { return true };
        if self.isa == isa as *const ptx_isa::Isa as usize {
            if let Some(&known @ 1..) = self.known.get(index) {
                return known == 2;
            }
        }
        self.learn(isa, func, inst, index)
    }

    #[cold]
    fn learn(&mut self, isa: &'static ptx_isa::Isa, func: &Function, inst: &Inst, index: usize) -> bool {
        let address = isa as *const ptx_isa::Isa as usize;
        if self.isa != address {
            self.isa = address;
            self.known.clear();
        }
        if self.known.len() <= index {
            self.known.resize(index + 1, 0);
        }
        let reads = matches!(inst.opcode, Opcode::Bar | Opcode::Barrier)
            || match crate::matcher::opcode_of(isa, func, inst) {
                Some((op, _)) => {
                    isa.forms_of(op).iter().any(|f| f.operands.iter().any(|s| s.immediate || s.range.is_some()))
                }
                None => true,
            };
        self.known[index] = if reads { 2 } else { 1 };
        reads
    }
}

fn reg_ty(func: &Function, r: RegId) -> ptx_ir::RegType {
    func.regs[r].ty
}

fn same_inst(seen: &Seen<'_>, a: &Inst, b: &Inst) -> bool {
    let func = seen.func;
    let guards = match (a.guard, b.guard) {
        (None, None) => true,
        (Some(x), Some(y)) => x.negated() == y.negated() && reg_ty(func, x.reg()) == reg_ty(func, y.reg()),
        _ => false,
    };
    guards
        && a.opcode == b.opcode
        && a.modifiers == b.modifiers
        && a.operands.len() == b.operands.len()
        && a.operands.iter().zip(&b.operands).all(|(x, y)| same_operand(seen, x, y))
}

fn same_operand(seen: &Seen<'_>, a: &Operand, b: &Operand) -> bool {
    let func = seen.func;
    let same_reg = |x: &RegId, y: &RegId| reg_ty(func, *x) == reg_ty(func, *y);
    let same_all =
        |x: &[Operand], y: &[Operand]| x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_operand(seen, p, q));
    match (a, b) {
        (Operand::Reg(x), Operand::Reg(y)) => same_reg(x, y),
        (Operand::RegComponent(x, c), Operand::RegComponent(y, d)) => c == d && same_reg(x, y),
        (Operand::RegSelect(x, n), Operand::RegSelect(y, m)) => n == m && same_reg(x, y),
        (Operand::RegOffset(x), Operand::RegOffset(y)) => x.1 == y.1 && same_reg(&x.0, &y.0),
        (Operand::Element(x), Operand::Element(y)) => {
            x.array == y.array
                && std::mem::discriminant(&x.index) == std::mem::discriminant(&y.index)
                && x.index.constant() == y.index.constant()
                && match (x.index.reg(), y.index.reg()) {
                    (Some(p), Some(q)) => same_reg(&p, &q),
                    (p, q) => p == q,
                }
        }
        (Operand::Int(x), Operand::Int(y)) => !seen.literal_values || x.bits == y.bits,
        (Operand::Float(x), Operand::Float(y)) => x.single() == y.single(),
        (Operand::Label(x), Operand::Label(y)) => seen.placed(*x) == seen.placed(*y),
        (Operand::Address(x), Operand::Address(y)) => {
            let bases = match (&x.base, &y.base) {
                (AddrBase::Reg(p), AddrBase::Reg(q)) => same_reg(p, q),
                (p, q) => p == q,
            };
            bases
                && (x.offset != 0) == (y.offset != 0)
                && x.explicit_zero == y.explicit_zero
                && x.unified == y.unified
                && same_all(&x.rest, &y.rest)
        }
        (Operand::Vector(x), Operand::Vector(y)) | (Operand::Parens(x), Operand::Parens(y)) => same_all(x, y),
        (Operand::Pair(x), Operand::Pair(y)) => same_operand(seen, &x.0, &y.0) && same_operand(seen, &x.1, &y.1),
        (Operand::Not(x), Operand::Not(y)) | (Operand::Neg(x), Operand::Neg(y)) => same_operand(seen, x, y),
        // Different kinds, or kinds without registers: compared as they are.
        _ => a == b,
    }
}

/// Clean shapes across the functions a thread checks, for instructions
/// whose shape names nothing of their function: no symbol or word the
/// vocabulary lacks, so registers count by their declared type, labels by
/// whether they are placed, literals and special registers as the
/// function's shapes count them. Such an instruction gets the
/// same verdict in any function of a module (the per-instruction checks
/// read nothing else of the function), and templated code repeats the same
/// instructions over many small functions, each of which would otherwise
/// check its shapes anew. A verdict holds for one description, one header
/// target and one address size: the table starts over when any changes, and is not
/// used where a `.target` in a function body makes the verdict depend on
/// the place.
#[derive(Default)]
pub(super) struct PortableShapes {
    /// What the verdicts hold for.
    module: Option<VerdictScope>,
    /// The shapes found clean, each as the bytes that describe it.
    clean: rustc_hash::FxHashSet<Box<[u8]>>,
    /// The description of the shape looked up last.
    scratch: Vec<u8>,
}

/// The description (as an address), `.version`, `sm_` target and
/// `.address_size` a verdict holds for.
type VerdictScope = (usize, (u32, u32), Option<&'static str>, Option<u32>);

/// Shapes kept at most (two to eight thousand in the largest modules, a few
/// dozen bytes each); the table starts over past this.
const MAX_PORTABLE: usize = 1 << 13;

impl PortableShapes {
    /// Forgets what was found under another description, target or address size.
    pub(super) fn keep_for(&mut self, isa: &'static ptx_isa::Isa, target: &crate::Target, address_size: Option<u32>) {
        let module = Some((isa as *const ptx_isa::Isa as usize, target.version(), target.name(), address_size));
        if self.module != module || self.clean.len() >= MAX_PORTABLE {
            self.clean.clear();
            self.module = module;
        }
    }

    /// True if an instruction of `inst`'s shape was found clean. False
    /// too if `inst` names something of its function; after false,
    /// [`PortableShapes::insert_last`] remembers `inst`'s shape as clean.
    pub(super) fn lookup(&mut self, seen: &Seen<'_>, inst: &Inst) -> bool {
        let mut bytes = Recorder(std::mem::take(&mut self.scratch));
        bytes.0.clear();
        let portable = write_inst::<_, true>(seen, inst, &mut bytes);
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

/// Writes the shape of `inst` into `out`: what its checks read (see the
/// module documentation). A `PORTABLE` shape is the same in any function of
/// the module: names as text, and false (nothing meaningful written) if it
/// names a symbol of its function or a word or opcode the vocabulary lacks.
/// Otherwise names are the function's own and the result is always true.
fn write_inst<H: Hasher, const PORTABLE: bool>(seen: &Seen<'_>, inst: &Inst, out: &mut H) -> bool {
    if PORTABLE {
        let Some(opcode) = inst.opcode.index() else { return false };
        opcode.hash(out);
        if inst.modifiers.iter().any(|m| matches!(m, ptx_ir::Modifier::Other(_))) {
            return false;
        }
    } else {
        inst.opcode.hash(out);
    }
    inst.modifiers.hash(out);
    match inst.guard {
        None => 0u8.hash(out),
        Some(g) => {
            1u8.hash(out);
            g.negated().hash(out);
            reg_ty(seen.func, g.reg()).hash(out);
        }
    }
    inst.operands.len().hash(out);
    inst.operands.iter().all(|op| write_operand::<H, PORTABLE>(seen, op, out))
}

fn write_operand<H: Hasher, const PORTABLE: bool>(seen: &Seen<'_>, op: &Operand, out: &mut H) -> bool {
    let func = seen.func;
    let name = |n: ptx_ir::Name, out: &mut H| {
        if PORTABLE {
            func.names.get(n).hash(out)
        } else {
            n.hash(out)
        }
    };
    std::mem::discriminant(op).hash(out);
    match op {
        Operand::Reg(r) => reg_ty(func, *r).hash(out),
        Operand::RegComponent(r, c) => {
            reg_ty(func, *r).hash(out);
            c.hash(out);
        }
        Operand::RegSelect(r, n) => {
            reg_ty(func, *r).hash(out);
            name(*n, out);
        }
        Operand::RegOffset(reg_offset) => {
            reg_ty(func, reg_offset.0).hash(out);
            reg_offset.1.hash(out);
        }
        Operand::Special(n) => name(*n, out),
        Operand::Int(i) => {
            if seen.literal_values {
                let bits = i.bits;
                bits.hash(out);
            }
        }
        Operand::Float(f) => f.single().hash(out),
        Operand::Sink => {}
        Operand::Label(l) => seen.placed(*l).hash(out),
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
                AddrBase::Symbol(_) if PORTABLE => return false,
                AddrBase::Symbol(n) => {
                    2u8.hash(out);
                    n.hash(out);
                }
            }
            (a.offset != 0, a.explicit_zero, a.unified, a.rest.len()).hash(out);
            return a.rest.iter().all(|o| write_operand::<H, PORTABLE>(seen, o, out));
        }
        Operand::Vector(ops) | Operand::Parens(ops) => {
            ops.len().hash(out);
            return ops.iter().all(|o| write_operand::<H, PORTABLE>(seen, o, out));
        }
        Operand::Pair(pair) => {
            return write_operand::<H, PORTABLE>(seen, &pair.0, out) && write_operand::<H, PORTABLE>(seen, &pair.1, out)
        }
        Operand::Not(inner) | Operand::Neg(inner) => return write_operand::<H, PORTABLE>(seen, inner, out),
        Operand::Symbol(_) | Operand::SymbolOffset(..) | Operand::Element(_) if PORTABLE => return false,
        Operand::Element(element) => {
            element.array.hash(out);
            std::mem::discriminant(&element.index).hash(out);
            element.index.constant().hash(out);
            element.index.reg().map(|r| reg_ty(func, r)).hash(out);
        }
        Operand::Symbol(n) => n.hash(out),
        Operand::SymbolOffset(symbol_offset) => {
            symbol_offset.0.hash(out);
            symbol_offset.1.hash(out);
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_compact_shape_counts_only_in_its_generation_even_after_the_counter_wraps() {
        let key = [1 << 63 | 7, 0x1000, 3, 4];
        let mut shapes = CompactShapes::default();
        shapes.start_generation();
        shapes.insert(key);
        assert!(shapes.contains(&key));
        shapes.start_generation();
        assert!(!shapes.contains(&key), "a later function must not see the entry");
        // Written in generation 1 and never overwritten: when the counter
        // wraps to 1 again, the entry must be gone, not seen as new.
        shapes.generation = 0;
        shapes.start_generation();
        shapes.insert(key);
        shapes.generation = GENERATIONS - 1;
        shapes.start_generation();
        assert_eq!(shapes.generation, 1);
        assert!(!shapes.contains(&key), "an entry outlived the wrap of the generation counter");
    }
}
