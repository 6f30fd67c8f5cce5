//! Instructions: guard, opcode, modifiers and operands.

use crate::entities::{LabelId, Name, RegId};
use crate::opcodes::{self, Opcode};
use crate::types::{CmpOp, PrmtMode, Rounding, ScalarType, StateSpace};
use crate::words::Word;
use crate::Span;

/// The traits of a list type that stands for its `as_slice()`: it derefs
/// to the slice, compares, hashes and prints as the slice (not as how it
/// holds it), and iterates by reference; with `mut`, also `DerefMut` and
/// iteration by mutable reference, through `as_mut_slice()`.
macro_rules! slice_traits {
    ($list:ty, $item:ty) => {
        impl std::ops::Deref for $list {
            type Target = [$item];
            #[inline]
            fn deref(&self) -> &[$item] {
                self.as_slice()
            }
        }

        impl PartialEq for $list {
            fn eq(&self, other: &$list) -> bool {
                self.as_slice() == other.as_slice()
            }
        }

        impl Eq for $list {}

        impl std::hash::Hash for $list {
            fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
                self.as_slice().hash(state);
            }
        }

        impl std::fmt::Debug for $list {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.as_slice().fmt(f)
            }
        }

        impl<'a> IntoIterator for &'a $list {
            type Item = &'a $item;
            type IntoIter = std::slice::Iter<'a, $item>;
            fn into_iter(self) -> Self::IntoIter {
                self.as_slice().iter()
            }
        }
    };
    ($list:ty, $item:ty, mut) => {
        slice_traits!($list, $item);

        impl std::ops::DerefMut for $list {
            #[inline]
            fn deref_mut(&mut self) -> &mut [$item] {
                self.as_mut_slice()
            }
        }

        impl<'a> IntoIterator for &'a mut $list {
            type Item = &'a mut $item;
            type IntoIter = std::slice::IterMut<'a, $item>;
            fn into_iter(self) -> Self::IntoIter {
                self.as_mut_slice().iter_mut()
            }
        }
    };
}

slice_traits!(AddressRest, Operand, mut);
slice_traits!(Modifiers, Modifier);
slice_traits!(Operands, Operand, mut);

/// One dotted suffix of an opcode, classified. The order of modifiers is kept
/// exactly as written, so the printer reproduces the instruction.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Modifier {
    /// A type (`.u32`); the instruction types are the type modifiers in order.
    Type(ScalarType),
    /// A state space, possibly sub-qualified (`.shared::cta`: the whole
    /// word is kept as the second field).
    Space(StateSpace, Option<Word>),
    /// `.rn`, `.rzi`, ...
    Rounding(Rounding),
    /// `.eq`, `.lt`, ...
    Cmp(CmpOp),
    /// `.f4e`, `.b4e`, ... (prmt)
    Prmt(PrmtMode),
    /// `.v2`, `.v4`, `.v8`
    Vector(u8),
    /// `.sat`
    Sat,
    /// `.ftz`
    Ftz,
    /// A modifier word from the known vocabulary (`.uni`, `.nc`, `.L2::128B`, `.wide`, ...).
    Word(Word),
    /// Any other modifier, kept by name in the function's name table.
    Other(Name),
}

impl Modifier {
    /// The modifier `word` is on an instruction with `opcode`, in the class
    /// the description gives it (`class` lines of `ptx-isa`: types, state
    /// spaces, roundings, comparisons and prmt modes on the opcodes that
    /// take them, `.sat`, `.ftz`, vector sizes); any other word is a
    /// [`Modifier::Word`]. What the parser makes of a modifier of the
    /// vocabulary, and what builders write.
    pub fn of_word(word: Word, opcode: Opcode) -> Modifier {
        let text = word.as_str();
        if let Some(t) = ScalarType::from_str(text) {
            return Modifier::Type(t);
        }
        let (base, qualified) = match text.split_once("::") {
            Some((b, _)) => (b, true),
            None => (text, false),
        };
        if let Some(space) = StateSpace::from_str(base).filter(|s| !matches!(s, StateSpace::Reg | StateSpace::Sreg)) {
            return Modifier::Space(space, qualified.then_some(word));
        }
        if let Some(r) = Rounding::from_str(text) {
            return Modifier::Rounding(r);
        }
        if crate::generated::opcodes::takes_comparisons(opcode) {
            if let Some(c) = CmpOp::from_str(text) {
                return Modifier::Cmp(c);
            }
        }
        if crate::generated::opcodes::takes_prmt_modes(opcode) {
            if let Some(m) = PrmtMode::from_str(text) {
                return Modifier::Prmt(m);
            }
        }
        match text {
            "sat" => Modifier::Sat,
            "ftz" => Modifier::Ftz,
            "v2" => Modifier::Vector(2),
            "v4" => Modifier::Vector(4),
            "v8" => Modifier::Vector(8),
            _ => Modifier::Word(word),
        }
    }

    /// The word of the vocabulary this modifier is; None for
    /// [`Modifier::Other`] (a word the description does not have).
    pub fn word(&self) -> Option<Word> {
        Some(match self {
            Modifier::Word(w) | Modifier::Space(_, Some(w)) => *w,
            Modifier::Other(_) => return None,
            Modifier::Type(t) => t.word(),
            Modifier::Space(s, None) => s.word(),
            Modifier::Rounding(r) => r.word(),
            Modifier::Cmp(c) => c.word(),
            Modifier::Prmt(p) => p.word(),
            Modifier::Vector(2) => Word::V2,
            Modifier::Vector(4) => Word::V4,
            Modifier::Vector(8) => Word::V8,
            Modifier::Vector(_) => return None,
            Modifier::Sat => Word::SAT,
            Modifier::Ftz => Word::FTZ,
        })
    }
}

/// A guard predicate `@%p` or `@!%p`.
///
/// The register and the negation are one word, which no guard makes zero,
/// so that `Option<Guard>` is 4 bytes where a register and a flag took 8:
/// every instruction has the field.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Guard(std::num::NonZeroU32);

impl Guard {
    /// `@%reg`, or `@!%reg` if `negated`.
    pub fn new(reg: RegId, negated: bool) -> Guard {
        let word = reg.as_u32().checked_mul(2).and_then(|w| (w | u32::from(negated)).checked_add(1));
        match word.and_then(std::num::NonZeroU32::new) {
            Some(word) => Guard(word),
            // Two billion registers do not fit in memory.
            None => panic!("guard register {reg} out of range"),
        }
    }

    /// The predicate register.
    pub fn reg(self) -> RegId {
        RegId::from_u32((self.0.get() - 1) >> 1)
    }

    /// True for `@!%p`.
    pub fn negated(self) -> bool {
        (self.0.get() - 1) & 1 != 0
    }
}

impl std::fmt::Debug for Guard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Guard").field("reg", &self.reg()).field("negated", &self.negated()).finish()
    }
}

/// An integer literal; the spelling is kept so the printer reproduces it.
///
/// Packed to 4-byte alignment, as is [`FloatImm`], so that an [`Operand`]
/// is 16 bytes (a `u64` field would align the literal, and with it every
/// operand, to 8 with padding): instructions are most of a parsed module's
/// memory. Read the fields by value (`imm.bits`); a reference to one does
/// not compile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(C, packed(4))]
pub struct IntImm {
    /// The value as a 64-bit two's complement pattern.
    pub bits: u64,
    /// Original spelling, if it came from source (None for literals a pass made).
    pub text: Option<Name>,
}

impl IntImm {
    /// An immediate made by a pass; printed as hexadecimal.
    pub fn new(bits: u64) -> IntImm {
        IntImm { bits, text: None }
    }
}

/// A floating-point literal (`0f3F800000`, `0d...`, or decimal), 12 bytes
/// like [`IntImm`]: the precision and the spelling share one word.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[repr(C, packed(4))]
pub struct FloatImm {
    /// Bits of the value: f32 bits for `0f`, f64 bits otherwise.
    pub bits: u64,
    /// Bit 31: a `0f` literal; below it, the spelling's name index plus
    /// one, or 0 for none.
    spelling: u32,
}

const SINGLE_BIT: u32 = 1 << 31;

impl FloatImm {
    /// A literal made by a pass (printed as `0f`/`0d` hexadecimal):
    /// `single` for f32 bits.
    pub fn new(bits: u64, single: bool) -> FloatImm {
        FloatImm { bits, spelling: if single { SINGLE_BIT } else { 0 } }
    }

    /// A literal read from source, spelled `text`.
    pub fn spelled(bits: u64, single: bool, text: Name) -> FloatImm {
        let mut imm = FloatImm::new(bits, single);
        // A function with 2^31 names has more than 4 GiB of text, which the
        // parser refuses; were it otherwise, the literal would print as
        // hexadecimal, the same value.
        if text.as_u32() < SINGLE_BIT - 1 {
            imm.spelling |= text.as_u32() + 1;
        }
        imm
    }

    /// True for a `0f` single-precision hex literal.
    pub fn single(self) -> bool {
        self.spelling & SINGLE_BIT != 0
    }

    /// Original spelling, if it came from source.
    pub fn text(self) -> Option<Name> {
        match self.spelling & !SINGLE_BIT {
            0 => None,
            index => Some(Name::from_u32(index - 1)),
        }
    }
}

impl std::fmt::Debug for FloatImm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let bits = self.bits;
        f.debug_struct("FloatImm")
            .field("bits", &bits)
            .field("single", &self.single())
            .field("text", &self.text())
            .finish()
    }
}

/// The base of an address expression.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AddrBase {
    /// `[%rd1]`
    Reg(RegId),
    /// `[var]`, `[param_name]`
    Symbol(Name),
    /// `[0x1000]`
    Absolute(IntImm),
}

/// `[base+offset]`, or the bracketed list of texture/surface operands `[tex, {a, b}]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Address {
    /// The base.
    pub base: AddrBase,
    /// Byte offset added to the base.
    pub offset: i64,
    /// True if an offset was written even though it is zero (`[%SP+0]`):
    /// ptxas at -O0 (debug) generates different code for it.
    pub explicit_zero: bool,
    /// Further comma-separated operands inside the brackets (texture coordinates).
    pub rest: AddressRest,
    /// `[a].unified`: `a` is the address of a variable with the `.unified`
    /// attribute (`ld`).
    pub unified: bool,
}

impl Address {
    /// `[r+offset]` (`[r]` for offset 0).
    pub fn reg(r: RegId, offset: i64) -> Address {
        Address::of(AddrBase::Reg(r), offset)
    }

    /// `[symbol+offset]`: a variable, parameter or function named in the
    /// function's interner (`func.names.intern("buf")`).
    pub fn symbol(symbol: Name, offset: i64) -> Address {
        Address::of(AddrBase::Symbol(symbol), offset)
    }

    fn of(base: AddrBase, offset: i64) -> Address {
        Address { base, offset, explicit_zero: false, rest: AddressRest::new(), unified: false }
    }
}

/// The operands after the first inside an address's brackets (`[tex, {a,
/// b}]`): a slice behind one thin pointer, nothing allocated when there are
/// none, which is almost always (8 bytes where a `Vec` took 24, so a boxed
/// address is 40 bytes instead of 56). It derefs to a slice; `push` and
/// `From<Vec<Operand>>` make it.
#[derive(Clone, Default)]
#[allow(clippy::box_collection)] // the box is what makes the pointer thin
pub struct AddressRest(Option<Box<Vec<Operand>>>);

impl AddressRest {
    /// No operands.
    pub fn new() -> AddressRest {
        AddressRest(None)
    }

    /// Appends `op`.
    pub fn push(&mut self, op: Operand) {
        self.0.get_or_insert_with(Default::default).push(op);
    }

    /// The operands as a slice.
    pub fn as_slice(&self) -> &[Operand] {
        self.0.as_deref().map_or(&[], Vec::as_slice)
    }

    /// The operands as a mutable slice.
    pub fn as_mut_slice(&mut self) -> &mut [Operand] {
        self.0.as_deref_mut().map_or(&mut [], Vec::as_mut_slice)
    }
}

impl From<Vec<Operand>> for AddressRest {
    fn from(list: Vec<Operand>) -> AddressRest {
        AddressRest((!list.is_empty()).then(|| Box::new(list)))
    }
}

/// An instruction operand.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    /// A declared register.
    Reg(RegId),
    /// A vector register's element, `%v.x`.
    RegComponent(RegId, char),
    /// A register with a byte or half-word selector of the video
    /// instructions (`%r2.b3210`, `%r1.h0`; the selector without its dot).
    /// Accesses count it as the whole register; a write through it also
    /// reads the register (the others parts may be kept).
    RegSelect(RegId, Name),
    /// A special register such as `%tid.x` (kept by its full name).
    Special(Name),
    /// A label of the enclosing function.
    Label(LabelId),
    /// Any other symbol: a variable, a parameter, a function, an unresolved name.
    Symbol(Name),
    /// The address of a variable plus a byte offset: `mov.u64 %rd1, arr+16`
    /// (boxed, as is [`Operand::RegOffset`]: rare, and inline they would
    /// make every operand larger).
    SymbolOffset(Box<(Name, IntImm)>),
    /// A register plus a constant, `%r2+4`: undocumented, but ptxas accepts
    /// it as a source and adds. It reads the register.
    RegOffset(Box<(RegId, IntImm)>),
    /// `arr[2]`, `arr[%r1]`, `arr[%r1+4]`: element of an array variable
    /// (ISA 6.4.2), the address `arr + index * element size`, read as an
    /// address (`ld`, `st`) or as its value (`mov`). Boxed like
    /// [`Operand::SymbolOffset`]. The IR knows no element sizes: passes
    /// leave such instructions alone.
    Element(Box<ArrayElement>),
    /// An integer literal.
    Int(IntImm),
    /// A float literal.
    Float(FloatImm),
    /// `[...]`
    Address(Box<Address>),
    /// `{a, b, ...}` (a `Vec` behind a thin pointer: a boxed slice would
    /// take 16 bytes and make every operand 24)
    Vector(Box<Vec<Operand>>),
    /// `(a, b, ...)` (call arguments and results), boxed like `Vector`
    Parens(Box<Vec<Operand>>),
    /// `p|q`: the two results of setp, shfl, ...
    Pair(Box<(Operand, Operand)>),
    /// `!p`: a negated predicate source.
    Not(Box<Operand>),
    /// `-x`: a negated source where the syntax allows it.
    Neg(Box<Operand>),
    /// `_`: a sink
    Sink,
}

/// `arr[index]`: see [`Operand::Element`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ArrayElement {
    /// The array variable.
    pub array: Name,
    /// Which element.
    pub index: ElementIndex,
}

/// The index of an [`ArrayElement`]: what ISA 6.4.2 allows between the
/// brackets, a constant, a register, or a register plus a constant (the
/// text also allows one subtracted, which ptxas 13.5 rejects: `arr[%r-4]`;
/// it takes `arr[%r+-4]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ElementIndex {
    /// `arr[2]`, `arr[-1]` (the literal as written, its sign included).
    Literal(IntImm),
    /// `arr[%r1]`
    Reg(RegId),
    /// `arr[%r1+4]`, `arr[%r1+-4]`
    RegPlus(RegId, IntImm),
}

impl ElementIndex {
    /// The register of the index, if there is one.
    pub fn reg(&self) -> Option<RegId> {
        match *self {
            ElementIndex::Literal(_) => None,
            ElementIndex::Reg(r) | ElementIndex::RegPlus(r, _) => Some(r),
        }
    }

    /// The constant part: the literal, or what is added to the register
    /// (0 for a register alone), as a 64-bit two's complement value.
    pub fn constant(&self) -> u64 {
        match *self {
            ElementIndex::Literal(i) | ElementIndex::RegPlus(_, i) => i.bits,
            ElementIndex::Reg(_) => 0,
        }
    }

    fn reg_mut(&mut self) -> Option<&mut RegId> {
        match self {
            ElementIndex::Literal(_) => None,
            ElementIndex::Reg(r) | ElementIndex::RegPlus(r, _) => Some(r),
        }
    }
}

impl Operand {
    /// Calls `f` for every register this operand mentions, with whether the
    /// position is an address (addresses are always read).
    pub fn for_each_reg(&self, f: &mut impl FnMut(RegId, bool)) {
        self.visit_regs(false, f);
    }

    fn visit_regs(&self, in_addr: bool, f: &mut impl FnMut(RegId, bool)) {
        match self {
            Operand::Reg(r) | Operand::RegComponent(r, _) | Operand::RegSelect(r, _) => f(*r, in_addr),
            Operand::RegOffset(offset) => f(offset.0, in_addr),
            // An element's index register is read, wherever the element is.
            Operand::Element(element) => {
                if let Some(r) = element.index.reg() {
                    f(r, true);
                }
            }
            Operand::Address(a) => {
                if let AddrBase::Reg(r) = a.base {
                    f(r, true);
                }
                for op in &a.rest {
                    op.visit_regs(true, f);
                }
            }
            Operand::Vector(ops) | Operand::Parens(ops) => {
                for op in ops.iter() {
                    op.visit_regs(in_addr, f);
                }
            }
            Operand::Pair(pair) => {
                pair.0.visit_regs(in_addr, f);
                pair.1.visit_regs(in_addr, f);
            }
            Operand::Not(op) | Operand::Neg(op) => op.visit_regs(in_addr, f),
            _ => {}
        }
    }

    /// Mutable access to every register this operand mentions.
    pub fn for_each_reg_mut(&mut self, f: &mut impl FnMut(&mut RegId)) {
        match self {
            Operand::Reg(r) | Operand::RegComponent(r, _) | Operand::RegSelect(r, _) => f(r),
            Operand::RegOffset(offset) => f(&mut offset.0),
            Operand::Element(element) => {
                if let Some(r) = element.index.reg_mut() {
                    f(r);
                }
            }
            Operand::Address(a) => {
                if let AddrBase::Reg(r) = &mut a.base {
                    f(r);
                }
                for op in &mut a.rest {
                    op.for_each_reg_mut(f);
                }
            }
            Operand::Vector(ops) | Operand::Parens(ops) => {
                for op in ops.iter_mut() {
                    op.for_each_reg_mut(f);
                }
            }
            Operand::Pair(pair) => {
                pair.0.for_each_reg_mut(f);
                pair.1.for_each_reg_mut(f);
            }
            Operand::Not(op) | Operand::Neg(op) => op.for_each_reg_mut(f),
            _ => {}
        }
    }

    /// The register, if this operand is exactly one register.
    pub fn as_reg(&self) -> Option<RegId> {
        match self {
            Operand::Reg(r) => Some(*r),
            _ => None,
        }
    }

    /// The integer value, if this operand is an integer literal.
    pub fn as_int(&self) -> Option<u64> {
        match self {
            Operand::Int(i) => Some(i.bits),
            _ => None,
        }
    }
}

/// An instruction's modifiers: an immutable list that the instructions of
/// one form share. A function has a few dozen distinct opcode words and
/// thousands of instructions; the parser makes each word's list once per
/// function and every instruction spelled with it holds a thin reference
/// (8 bytes; a reference to a shared slice takes 16, an inline list of four
/// took 40). The shared allocation holds the length and, up to seven of
/// them, the modifiers themselves, so reading the
/// list costs the same one load as through a slice reference (a reference
/// to a boxed slice, tried first, added a load and slowed -O2 by 3%).
///
/// It derefs to a slice and is made from a `Vec`, an array, a slice or an
/// iterator (`.into()`, `collect`). Changing one instruction's list copies
/// it ([`Modifiers::edit`]); the others keep theirs. Equality and hashing
/// compare the modifiers, not the references.
#[derive(Clone)]
pub struct Modifiers(std::sync::Arc<ModifierList>);

/// How many modifiers a list holds in its shared allocation; longer lists
/// (`wgmma`, `cp.async.bulk.tensor`, ...) are a boxed slice behind it.
const INLINE_MODIFIERS: usize = 7;

/// What a [`Modifiers`] reference points to.
enum ModifierList {
    Short { len: u8, items: [Modifier; INLINE_MODIFIERS] },
    Long(Box<[Modifier]>),
}

impl ModifierList {
    fn shared(list: &[Modifier]) -> std::sync::Arc<ModifierList> {
        std::sync::Arc::new(if list.len() <= INLINE_MODIFIERS {
            ModifierList::Short {
                len: list.len() as u8,
                items: std::array::from_fn(|i| list.get(i).cloned().unwrap_or(Modifier::Sat)),
            }
        } else {
            ModifierList::Long(list.into())
        })
    }

    #[inline]
    fn as_slice(&self) -> &[Modifier] {
        match self {
            ModifierList::Short { len, items } => &items[..*len as usize],
            ModifierList::Long(items) => items,
        }
    }
}

impl Modifiers {
    /// No modifiers.
    pub fn new() -> Modifiers {
        Modifiers::default()
    }

    /// Changes this instruction's list (a copy of it: instructions sharing
    /// the list keep theirs).
    pub fn edit(&mut self, change: impl FnOnce(&mut Vec<Modifier>)) {
        let mut list = self.to_vec();
        change(&mut list);
        *self = Modifiers::from(list);
    }

    /// Appends `modifier` (see [`Modifiers::edit`]).
    pub fn push(&mut self, modifier: Modifier) {
        self.edit(|list| list.push(modifier));
    }

    /// Inserts `modifier` at `index` (see [`Modifiers::edit`]).
    pub fn insert(&mut self, index: usize, modifier: Modifier) {
        self.edit(|list| list.insert(index, modifier));
    }

    /// Removes and returns the modifier at `index` (see [`Modifiers::edit`]).
    pub fn remove(&mut self, index: usize) -> Modifier {
        let mut removed = None;
        self.edit(|list| removed = Some(list.remove(index)));
        removed.expect("Vec::remove returns or panics")
    }

    /// Keeps the modifiers `keep` says yes to (see [`Modifiers::edit`]).
    pub fn retain(&mut self, keep: impl FnMut(&Modifier) -> bool) {
        self.edit(|list| list.retain(keep));
    }

    /// The modifiers as a slice.
    #[inline]
    pub fn as_slice(&self) -> &[Modifier] {
        self.0.as_slice()
    }

    /// True when both are the same shared list (not merely equal).
    pub fn is_shared_with(&self, other: &Modifiers) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }

    /// The shared list's address: equal for two references while they share
    /// it ([`Modifiers::is_shared_with`]), read without reading the list.
    #[inline]
    pub fn shared_address(&self) -> usize {
        std::sync::Arc::as_ptr(&self.0) as usize
    }
}

impl Default for Modifiers {
    fn default() -> Modifiers {
        static EMPTY: std::sync::LazyLock<Modifiers> =
            std::sync::LazyLock::new(|| Modifiers(ModifierList::shared(&[])));
        EMPTY.clone()
    }
}

impl From<Vec<Modifier>> for Modifiers {
    fn from(list: Vec<Modifier>) -> Modifiers {
        Modifiers(ModifierList::shared(&list))
    }
}

impl From<&[Modifier]> for Modifiers {
    fn from(list: &[Modifier]) -> Modifiers {
        Modifiers(ModifierList::shared(list))
    }
}

impl<const N: usize> From<[Modifier; N]> for Modifiers {
    fn from(list: [Modifier; N]) -> Modifiers {
        Modifiers(ModifierList::shared(&list))
    }
}

impl<const N: usize> From<smallvec::SmallVec<[Modifier; N]>> for Modifiers
where
    [Modifier; N]: smallvec::Array<Item = Modifier>,
{
    fn from(list: smallvec::SmallVec<[Modifier; N]>) -> Modifiers {
        Modifiers(ModifierList::shared(&list))
    }
}

impl FromIterator<Modifier> for Modifiers {
    fn from_iter<I: IntoIterator<Item = Modifier>>(iter: I) -> Modifiers {
        Modifiers::from(iter.into_iter().collect::<smallvec::SmallVec<[Modifier; INLINE_MODIFIERS]>>())
    }
}

impl Extend<Modifier> for Modifiers {
    fn extend<I: IntoIterator<Item = Modifier>>(&mut self, iter: I) {
        self.edit(|list| list.extend(iter));
    }
}

/// An instruction's operands: up to three in the instruction itself (`add
/// d, a, b`; four would make every instruction larger for the few `mad`s
/// and `selp`s), more on the heap.
///
/// 48 bytes, the three operands and nothing more: which of the forms below
/// a list is takes no room of its own, the compiler keeps it in values an
/// operand's kind never has (a small vector with a length word took 56, and
/// an instruction 80 bytes instead of 72; `tests/ir.rs` pins the sizes). It derefs to a slice;
/// `push`, `insert`, `remove`, `truncate`, `retain` and the conversions
/// from a `Vec`, an array or an iterator build and change it.
#[derive(Clone, Default)]
pub struct Operands(OperandList);

/// The forms of [`Operands`]: a length each up to three, and the heap past.
#[derive(Clone, Default)]
enum OperandList {
    #[default]
    None,
    One([Operand; 1]),
    Two([Operand; 2]),
    Three([Operand; 3]),
    More(Vec<Operand>),
}

impl Operands {
    /// No operands.
    pub fn new() -> Operands {
        Operands(OperandList::None)
    }

    /// No operands, with room for `n` (on the heap past three).
    pub fn with_capacity(n: usize) -> Operands {
        if n > 3 {
            Operands(OperandList::More(Vec::with_capacity(n)))
        } else {
            Operands::new()
        }
    }

    /// The operands as a slice.
    #[inline]
    pub fn as_slice(&self) -> &[Operand] {
        match &self.0 {
            OperandList::None => &[],
            OperandList::One(ops) => ops,
            OperandList::Two(ops) => ops,
            OperandList::Three(ops) => ops,
            OperandList::More(ops) => ops,
        }
    }

    /// The operands as a mutable slice.
    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [Operand] {
        match &mut self.0 {
            OperandList::None => &mut [],
            OperandList::One(ops) => ops,
            OperandList::Two(ops) => ops,
            OperandList::Three(ops) => ops,
            OperandList::More(ops) => ops,
        }
    }

    /// Appends `op`.
    #[inline]
    pub fn push(&mut self, op: Operand) {
        let grown = match std::mem::take(&mut self.0) {
            OperandList::None => OperandList::One([op]),
            OperandList::One([a]) => OperandList::Two([a, op]),
            OperandList::Two([a, b]) => OperandList::Three([a, b, op]),
            OperandList::Three([a, b, c]) => OperandList::More(vec![a, b, c, op]),
            OperandList::More(mut ops) => {
                ops.push(op);
                OperandList::More(ops)
            }
        };
        // What `take` left is the empty list, which owns nothing: not
        // dropping it saves the parser a call per operand.
        std::mem::forget(std::mem::replace(&mut self.0, grown));
    }

    /// Removes and returns the last operand.
    pub fn pop(&mut self) -> Option<Operand> {
        let mut last = None;
        self.edit(|ops| last = ops.pop());
        last
    }

    /// Inserts `op` at `index`.
    ///
    /// # Panics
    /// When `index` is past the end.
    pub fn insert(&mut self, index: usize, op: Operand) {
        self.edit(|ops| ops.insert(index, op));
    }

    /// Removes and returns the operand at `index`.
    ///
    /// # Panics
    /// When `index` is out of bounds.
    pub fn remove(&mut self, index: usize) -> Operand {
        let mut removed = None;
        self.edit(|ops| removed = Some(ops.remove(index)));
        removed.expect("Vec::remove returns or panics")
    }

    /// Keeps the first `len` operands.
    pub fn truncate(&mut self, len: usize) {
        if len < self.len() {
            self.edit(|ops| ops.truncate(len));
        }
    }

    /// Keeps the operands `keep` says yes to.
    pub fn retain(&mut self, keep: impl FnMut(&Operand) -> bool) {
        self.edit(|ops| ops.retain(keep));
    }

    /// Removes every operand.
    pub fn clear(&mut self) {
        self.0 = OperandList::None;
    }

    /// Gives up the heap room beyond the operands (a list built by pushes
    /// past three may have some).
    pub fn shrink_to_fit(&mut self) {
        if let OperandList::More(ops) = &mut self.0 {
            ops.shrink_to_fit();
        }
    }

    /// The operands as a `Vec`.
    pub fn into_vec(self) -> Vec<Operand> {
        match self.0 {
            OperandList::None => Vec::new(),
            OperandList::One(ops) => ops.into(),
            OperandList::Two(ops) => ops.into(),
            OperandList::Three(ops) => ops.into(),
            OperandList::More(ops) => ops,
        }
    }

    /// Changes the list as a `Vec`, then stores it again in the form that
    /// fits.
    fn edit(&mut self, change: impl FnOnce(&mut Vec<Operand>)) {
        let mut ops = std::mem::take(self).into_vec();
        change(&mut ops);
        *self = Operands::from(ops);
    }
}

impl From<Vec<Operand>> for Operands {
    fn from(ops: Vec<Operand>) -> Operands {
        if ops.len() > 3 {
            return Operands(OperandList::More(ops));
        }
        let mut list = Operands::new();
        list.extend(ops);
        list
    }
}

impl From<&[Operand]> for Operands {
    fn from(ops: &[Operand]) -> Operands {
        ops.iter().cloned().collect()
    }
}

impl<const N: usize> From<[Operand; N]> for Operands {
    fn from(ops: [Operand; N]) -> Operands {
        Operands::from_iter(ops)
    }
}

impl FromIterator<Operand> for Operands {
    fn from_iter<I: IntoIterator<Item = Operand>>(iter: I) -> Operands {
        let mut list = Operands::new();
        list.extend(iter);
        list
    }
}

impl Extend<Operand> for Operands {
    fn extend<I: IntoIterator<Item = Operand>>(&mut self, iter: I) {
        let iter = iter.into_iter();
        let (at_least, _) = iter.size_hint();
        if self.len() + at_least > 3 {
            if let OperandList::More(ops) = &mut self.0 {
                ops.reserve(at_least);
            } else {
                let mut ops = Vec::with_capacity(self.len() + at_least);
                ops.extend(std::mem::take(self).into_vec());
                self.0 = OperandList::More(ops);
            }
        }
        for op in iter {
            self.push(op);
        }
    }
}

impl IntoIterator for Operands {
    type Item = Operand;
    type IntoIter = OperandsIntoIter;
    fn into_iter(self) -> OperandsIntoIter {
        OperandsIntoIter(match self.0 {
            OperandList::None => OperandIter::Inline([None, None, None].into_iter()),
            OperandList::One([a]) => OperandIter::Inline([Some(a), None, None].into_iter()),
            OperandList::Two([a, b]) => OperandIter::Inline([Some(a), Some(b), None].into_iter()),
            OperandList::Three([a, b, c]) => OperandIter::Inline([Some(a), Some(b), Some(c)].into_iter()),
            OperandList::More(ops) => OperandIter::Heap(ops.into_iter()),
        })
    }
}

/// The operands of an [`Operands`] by value, in order (no allocation for
/// up to three).
pub struct OperandsIntoIter(OperandIter);

enum OperandIter {
    Inline(std::array::IntoIter<Option<Operand>, 3>),
    Heap(std::vec::IntoIter<Operand>),
}

impl Iterator for OperandsIntoIter {
    type Item = Operand;
    fn next(&mut self) -> Option<Operand> {
        match &mut self.0 {
            OperandIter::Inline(ops) => ops.next().flatten(),
            OperandIter::Heap(ops) => ops.next(),
        }
    }
}

/// One instruction.
#[derive(Clone, Debug, PartialEq)]
pub struct Inst {
    /// `@%p` / `@!%p`
    pub guard: Option<Guard>,
    /// The opcode (the first dotted word).
    pub opcode: Opcode,
    /// The dotted suffixes, in source order.
    pub modifiers: Modifiers,
    /// The operands, in source order.
    pub operands: Operands,
    /// Where the instruction came from (empty for instructions a pass made).
    pub span: Span,
}

/// How an instruction touches one register operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Read.
    Use,
    /// Written unconditionally (when the instruction executes).
    Def,
    /// Possibly written, possibly read: the conservative answer for
    /// instructions the opcode table does not describe.
    UseMayDef,
    /// Read and written (an accumulator).
    UseDef,
}

impl Inst {
    /// A new instruction without guard or source span.
    pub fn new(opcode: Opcode, modifiers: impl Into<Modifiers>, operands: impl Into<Operands>) -> Inst {
        Inst { guard: None, opcode, modifiers: modifiers.into(), operands: operands.into(), span: Span::default() }
    }

    /// The instruction types: the type modifiers, in order (`cvt.u32.u16` gives [u32, u16]).
    pub fn types(&self) -> impl Iterator<Item = ScalarType> + '_ {
        self.modifiers.iter().filter_map(|m| match m {
            Modifier::Type(t) => Some(*t),
            _ => None,
        })
    }

    /// The first instruction type, if any.
    pub fn first_type(&self) -> Option<ScalarType> {
        self.types().next()
    }

    /// The state space modifier, if any.
    pub fn space(&self) -> Option<StateSpace> {
        self.modifiers.iter().find_map(|m| match m {
            Modifier::Space(s, _) => Some(*s),
            _ => None,
        })
    }

    /// The vector width modifier (`.v2`, `.v4`), if any.
    pub fn vector(&self) -> Option<u8> {
        self.modifiers.iter().find_map(|m| match m {
            Modifier::Vector(n) => Some(*n),
            _ => None,
        })
    }

    /// The rounding modifier, if any.
    pub fn rounding(&self) -> Option<Rounding> {
        self.modifiers.iter().find_map(|m| match m {
            Modifier::Rounding(r) => Some(*r),
            _ => None,
        })
    }

    /// The comparison operator, if any.
    pub fn cmp(&self) -> Option<CmpOp> {
        self.modifiers.iter().find_map(|m| match m {
            Modifier::Cmp(c) => Some(*c),
            _ => None,
        })
    }

    /// True if the modifier list contains `m`.
    pub fn has(&self, m: &Modifier) -> bool {
        self.modifiers.contains(m)
    }

    /// True if the modifier word `word` is present (`inst.has_word(Word::WIDE)`).
    pub fn has_word(&self, word: Word) -> bool {
        self.modifiers.contains(&Modifier::Word(word))
    }

    /// True if `.sat` is present.
    pub fn is_sat(&self) -> bool {
        self.has(&Modifier::Sat)
    }

    /// True if `.ftz` is present.
    pub fn is_ftz(&self) -> bool {
        self.has(&Modifier::Ftz)
    }

    /// Calls `f(operand index, register, access)` for every register the
    /// instruction touches, guard excluded. Addresses are always reads; the
    /// opcode table decides which operands are written.
    pub fn for_each_reg_access(&self, mut f: impl FnMut(usize, RegId, Access)) {
        let shape = opcodes::operand_shape(self);
        for (i, op) in self.operands.iter().enumerate() {
            let role = opcodes::role(shape, i);
            // Writing one element of a vector register (`%v.w`) keeps the
            // others: the register is read as well as written.
            let role = match (op, role) {
                (Operand::RegComponent(..) | Operand::RegSelect(..), Access::Def) => Access::UseDef,
                // Not a place to write to; kept a read, as it is one.
                (Operand::RegOffset(..), Access::Def) => Access::UseMayDef,
                // `call` writes its first operand only when it is the `(..)`
                // result list; `call %rd, (args), proto` reads the pointer.
                (op, Access::Def) if shape == opcodes::Shape::Call && !matches!(op, Operand::Parens(_)) => Access::Use,
                _ => role,
            };
            op.for_each_reg(&mut |r, in_addr| {
                let access = if in_addr { Access::Use } else { role };
                f(i, r, access)
            });
        }
    }

    /// True if the instruction may have effects beyond writing its defined
    /// registers (memory, control flow, synchronization, unknown opcodes).
    pub fn has_side_effects(&self) -> bool {
        opcodes::has_side_effects(self)
    }

    /// True if the instruction ends a basic block: its opcode's
    /// [`Control`](crate::opcodes::Control) class is a branch, return, exit
    /// or trap (guarded or not).
    pub fn is_terminator(&self) -> bool {
        self.opcode.control().ends_block()
    }
}
