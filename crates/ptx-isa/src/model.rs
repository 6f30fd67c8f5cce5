//! The instruction set as tables: what the description says, in the form the
//! IR, the verifier and the generators read. [`crate::ISA`] is these tables
//! generated from the description (`isa/*.ptxisa`); [`crate::description`]
//! builds the same tables from the description text at run time, for tools
//! and tests.

/// A modifier word's index in [`Isa::words`] (and in [`crate::WORDS`] for the
/// generated tables, where it is a [`crate::Word`]).
pub type WordId = u16;

/// Marks a [`Text`] or [`List`] that is an entry of the run-time registry
/// rather than a range of a generated pool.
const RUNTIME: u32 = 1 << 31;

/// A string of the tables, eight bytes: a range of the generated string
/// pool, or for tables built at run time ([`crate::description`]) an entry
/// of a registry of leaked strings. No pointer: a position-independent
/// binary relocates every pointer of its static data at load, which costs
/// every process memory whether it reads the tables or not, and the
/// smaller the tables, the fewer pages a process touches reading them.
/// Reads as a `str` either way.
#[derive(Clone, Copy)]
pub struct Text {
    /// The start in the pool, or `RUNTIME | index` in the registry.
    start: u32,
    /// The end in the pool.
    end: u32,
}

/// The strings of tables built at run time, by [`Text`] index.
static RUNTIME_TEXTS: std::sync::RwLock<Vec<&'static str>> = std::sync::RwLock::new(Vec::new());

impl Text {
    /// Bytes `start..end` of the generated string pool (for the generator).
    pub const fn pooled(start: u32, end: u32) -> Text {
        Text { start, end }
    }

    /// The string.
    pub fn as_str(self) -> &'static str {
        if self.start & RUNTIME == 0 {
            return &crate::generated::tables::STRINGS[self.start as usize..self.end as usize];
        }
        let registry = RUNTIME_TEXTS.read().unwrap_or_else(|e| e.into_inner());
        registry[(self.start & !RUNTIME) as usize]
    }
}

impl From<&'static str> for Text {
    fn from(s: &'static str) -> Text {
        let mut registry = RUNTIME_TEXTS.write().unwrap_or_else(|e| e.into_inner());
        registry.push(s);
        Text { start: RUNTIME | (registry.len() - 1) as u32, end: 0 }
    }
}

impl std::ops::Deref for Text {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for Text {
    fn eq(&self, other: &Text) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Text {}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialOrd for Text {
    fn partial_cmp(&self, other: &Text) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Text {
    fn cmp(&self, other: &Text) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl std::hash::Hash for Text {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl std::fmt::Debug for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl std::fmt::Display for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A list of the tables, eight bytes as a [`Text`] is: a range of the
/// generated pool of its element type, or an entry of that type's registry
/// of leaked slices. Reads as a slice either way.
pub struct List<T: 'static> {
    /// The start in the pool, or `RUNTIME | index` in the registry.
    start: u32,
    /// The end in the pool.
    end: u32,
    element: std::marker::PhantomData<fn() -> T>,
}

/// An element type the tables keep lists of: its generated pool and its
/// registry of lists built at run time.
pub trait Pooled: Sized + Send + Sync + 'static {
    /// The generated pool.
    fn pool() -> &'static [Self];
    /// The lists of tables built at run time.
    fn registry() -> &'static std::sync::RwLock<Vec<&'static [Self]>>;
}

impl<T> List<T> {
    /// Elements `start..end` of the generated pool of `T` (for the generator).
    pub const fn pooled(start: u32, end: u32) -> List<T> {
        List { start, end, element: std::marker::PhantomData }
    }
}

impl<T: Pooled> List<T> {
    /// The elements.
    pub fn as_slice(&self) -> &'static [T] {
        if self.start & RUNTIME == 0 {
            return &T::pool()[self.start as usize..self.end as usize];
        }
        let registry = T::registry().read().unwrap_or_else(|e| e.into_inner());
        registry[(self.start & !RUNTIME) as usize]
    }
}

impl<T> Clone for List<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for List<T> {}

impl<T: Pooled> From<&'static [T]> for List<T> {
    fn from(s: &'static [T]) -> List<T> {
        let mut registry = T::registry().write().unwrap_or_else(|e| e.into_inner());
        registry.push(s);
        List { start: RUNTIME | (registry.len() - 1) as u32, end: 0, element: std::marker::PhantomData }
    }
}

impl<T: Pooled> std::ops::Deref for List<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T: Pooled + PartialEq> PartialEq for List<T> {
    fn eq(&self, other: &List<T>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: Pooled + Eq> Eq for List<T> {}

impl<T: Pooled + PartialOrd> PartialOrd for List<T> {
    fn partial_cmp(&self, other: &List<T>) -> Option<std::cmp::Ordering> {
        self.as_slice().partial_cmp(other.as_slice())
    }
}

impl<T: Pooled + Ord> Ord for List<T> {
    fn cmp(&self, other: &List<T>) -> std::cmp::Ordering {
        self.as_slice().cmp(other.as_slice())
    }
}

impl<T: Pooled + std::fmt::Debug> std::fmt::Debug for List<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_slice(), f)
    }
}

impl<T: Pooled> IntoIterator for &List<T> {
    type Item = &'static T;
    type IntoIter = std::slice::Iter<'static, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

/// `Pooled` for a type whose generated pool is the field `$field` of the
/// generated tables.
macro_rules! pooled {
    ($ty:ty, $field:ident) => {
        impl Pooled for $ty {
            fn pool() -> &'static [$ty] {
                &crate::generated::tables::TABLES.$field
            }

            fn registry() -> &'static std::sync::RwLock<Vec<&'static [$ty]>> {
                static REGISTRY: std::sync::RwLock<Vec<&'static [$ty]>> = std::sync::RwLock::new(Vec::new());
                &REGISTRY
            }
        }
    };
}

pooled!(u16, u16s);
pooled!(i64, i64s);
pooled!(Text, texts);
pooled!(Slot, slots);
pooled!(OperandSpec, operands);

/// How the operands of an instruction are accessed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    /// Operand 0 is written, the rest read (`add d, a, b`).
    Dst1,
    /// Every operand is read (`st`, `bra`, `bar.sync`).
    NoDst,
    /// Operand 0 is read and written, the rest read (`wgmma.mma_async`).
    Accumulate,
    /// Operand 0 written if it is a `(..)` result list, else nothing (`call`).
    Call,
    /// Nothing is known: every register may be read and written.
    Unknown,
}

/// Whether executing an instruction matters beyond its register results.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Effects {
    /// Only writes its destination registers; removable when they are dead.
    Pure,
    /// Reads memory or state that may change (ld, special registers); not
    /// removable by a simple DCE, but writes nothing else.
    Reads,
    /// Writes memory, synchronizes, transfers control, or is unknown.
    Effectful,
}

/// What an instruction does to control flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Control {
    /// Execution goes on with the next instruction.
    Falls,
    /// Calls a function and goes on with the next instruction when it
    /// returns (`call`); does not end a block.
    Call,
    /// Jumps to its label operand (`bra L`).
    Branch,
    /// Jumps to one label of a `.branchtargets` table (`brx.idx`).
    IndirectBranch,
    /// Returns from the function (`ret`).
    Return,
    /// Ends the thread (`exit`).
    Exit,
    /// Aborts the kernel (`trap`).
    Trap,
}

impl Control {
    /// True if an instruction of this class ends a basic block (when
    /// guarded, execution may still fall through to the next one).
    pub fn ends_block(self) -> bool {
        match self {
            Control::Falls | Control::Call => false,
            Control::Branch | Control::IndirectBranch | Control::Return | Control::Exit | Control::Trap => true,
        }
    }
}

/// The whole instruction set.
#[derive(Debug, PartialEq)]
pub struct Isa {
    /// Every modifier word of the description (types, state spaces and the
    /// rest), without the leading dot, sorted byte-wise.
    pub words: &'static [&'static str],
    /// The fundamental and packed types, in declaration order.
    pub types: &'static [TypeInfo],
    /// Every opcode, sorted by name.
    pub opcodes: &'static [OpcodeInfo],
    /// The syntax blocks, in description order.
    pub blocks: &'static [Block],
    /// Every form, grouped by opcode in [`Isa::opcodes`] order.
    pub forms: &'static [Form],
    /// What instructions need of `.version` and `.target`.
    pub needs: &'static [Need],
    /// The modifier classes the IR keeps apart from plain words (`space`,
    /// `rounding`, `cmp`, ...), each with its words and the opcodes it is a
    /// class on (empty: every opcode).
    pub classes: &'static [(&'static str, &'static [&'static str], &'static [&'static str])],
    /// The `.version` values ptxas accepts (major * 10 + minor), ascending.
    pub versions: &'static [u32],
    /// The `sm_` targets ptxas accepts in `.target`.
    pub targets: &'static [TargetInfo],
    /// The other words ptxas accepts in `.target` (`debug`, `texmode_independent`).
    pub target_words: &'static [&'static str],
    /// The lowest `.version` whose instructions were probed for [`Need`]s.
    pub probed_from: u32,
    /// The version of the PTX ISA text the syntax blocks were written from
    /// (91). A module at a newer `.version` may use words of a later text,
    /// which the description does not have.
    pub described: u32,
    /// Instructions ptxas rejects from some `.version` on, on some targets,
    /// or always.
    pub forbids: &'static [Forbid],
}

/// Instructions ptxas rejects although the ISA describes them: `vote`
/// without `.sync` on sm_70 and later from PTX 6.4, `cvta` of 32-bit
/// addresses (ptxas no longer compiles 32-bit code).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Forbid {
    /// The opcode.
    pub opcode: &'static str,
    /// Words every such instruction has; `!word`: a word it does not have.
    pub with: &'static [&'static str],
    /// From this `.version` on (major * 10 + minor); 0: any.
    pub from_version: u32,
    /// On these targets (`from_lowest`: every target numbered from the first
    /// up); none: every target.
    pub targets: &'static [&'static str],
    /// True for `sm_70+`.
    pub from_lowest: bool,
    /// Why, as ptxas says it.
    pub reason: &'static str,
}

/// An `sm_` target of the `target` lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TargetInfo {
    /// `sm_90a`.
    pub name: &'static str,
    /// The lowest `.version` that supports it (major * 10 + minor).
    pub min_version: u32,
    /// True if what its instructions need was probed ([`Need::targets`]
    /// speaks only of probed targets).
    pub probed: bool,
}

/// The class of a type (ISA 5.2.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TypeClass {
    /// `.pred`
    Pred,
    /// `.bN`
    Bits,
    /// `.uN`
    Unsigned,
    /// `.sN`
    Signed,
    /// `.fN`, `.bf16`, `.tf32` and the packed float formats.
    Float,
}

/// One type of the `type` declarations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TypeInfo {
    /// Its word (`u32`).
    pub name: &'static str,
    /// Its class.
    pub class: TypeClass,
    /// Its size in bits.
    pub bits: u16,
}

/// One opcode: its `opcode` line and where its forms are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpcodeInfo {
    /// The name (`ld`).
    pub name: Text,
    /// What it does beyond its results, unless a form says otherwise.
    pub effects: Effects,
    /// What it does to control flow.
    pub control: Control,
    /// Which operands it writes, unless a form says otherwise.
    pub shape: Shape,
    /// Its forms: `Isa::forms[forms.0 as usize..forms.1 as usize]`.
    pub forms: (u32, u32),
    /// Words ptxas accepts on this opcode and ignores (`or.infinite.b32`),
    /// sorted.
    pub ignored: List<WordId>,
    /// Every word a slot of its forms holds, sorted: whether a word is one
    /// of this opcode's at all is a binary search.
    pub words: List<WordId>,
}

/// A syntax block: one `syntax` section of the description, taken from one
/// section of the ISA text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Block {
    /// The ISA section number (`9.7.1.1`).
    pub number: Text,
    /// The ISA section title.
    pub title: Text,
    /// The ISA file it comes from, relative to `spec/ptx-isa-9.1/9_instruction_set/97_instructions`.
    pub spec: Text,
    /// The description file and line of the `syntax` line.
    pub file: Text,
    /// Line of the `syntax` line.
    pub line: u32,
}

/// One form: a template of a syntax block with its named sets resolved.
/// A template whose named sets hold multi-word alternatives becomes one form
/// per alternative.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Form {
    /// Index into [`Isa::opcodes`].
    pub opcode: u16,
    /// Index into [`Isa::blocks`].
    pub block: u16,
    /// Line of its template in the description file.
    pub line: u32,
    /// The template as written (`add{.sat}.s32 d, a, b;`).
    pub text: Text,
    /// The modifier slots, in template order.
    pub slots: SlotList,
    /// The operands, in order.
    pub operands: List<OperandSpec>,
    /// Which operands it writes.
    pub shape: Shape,
    /// What it does beyond its results.
    pub effects: Effects,
}

/// A form's slots: indices into a table of slots that forms share (so the
/// generated tables hold each distinct slot once).
#[derive(Clone, Copy, Debug)]
pub struct SlotList {
    /// Indices into `table`, in template order.
    pub ids: List<u16>,
    /// The slots the indices are into.
    pub table: List<Slot>,
}

impl SlotList {
    /// The number of slots.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// True if the form has no slot.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The slots, in template order.
    pub fn iter(&self) -> SlotIter {
        SlotIter { ids: self.ids.as_slice().iter(), table: self.table.as_slice() }
    }
}

/// Two lists are equal when they hold equal slots in the same order,
/// whatever tables they index.
impl PartialEq for SlotList {
    fn eq(&self, other: &SlotList) -> bool {
        self.iter().eq(other.iter())
    }
}

impl Eq for SlotList {}

impl std::ops::Index<usize> for SlotList {
    type Output = Slot;

    fn index(&self, i: usize) -> &Slot {
        &self.table[self.ids[i] as usize]
    }
}

impl IntoIterator for SlotList {
    type Item = &'static Slot;
    type IntoIter = SlotIter;

    fn into_iter(self) -> SlotIter {
        self.iter()
    }
}

impl IntoIterator for &SlotList {
    type Item = &'static Slot;
    type IntoIter = SlotIter;

    fn into_iter(self) -> SlotIter {
        self.iter()
    }
}

/// The slots of a [`SlotList`], in order.
#[derive(Clone, Debug)]
pub struct SlotIter {
    ids: std::slice::Iter<'static, u16>,
    table: &'static [Slot],
}

impl Iterator for SlotIter {
    type Item = &'static Slot;

    fn next(&mut self) -> Option<&'static Slot> {
        self.ids.next().map(|&i| &self.table[i as usize])
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.ids.size_hint()
    }
}

impl ExactSizeIterator for SlotIter {}

impl DoubleEndedIterator for SlotIter {
    fn next_back(&mut self) -> Option<&'static Slot> {
        self.ids.next_back().map(|&i| &self.table[i as usize])
    }
}

/// Whether a slot must be there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Presence {
    /// Exactly one of its words.
    Required,
    /// At most one of its words.
    Optional,
    /// With the other slots of the same group number, all or none
    /// (`{.sem.scope}`).
    Group(u8),
}

/// One modifier position of a form: a literal (`.sat`) or a named set
/// (`.type`), with the words it takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    /// The set's name (`type`, `sem`), or the literal word.
    pub name: Text,
    /// The words it takes, sorted.
    pub words: List<WordId>,
    /// Whether it must be there.
    pub presence: Presence,
    /// True if its words are types: types keep their order (`cvt.f32.s32`).
    pub is_type: bool,
}

/// What kind of operand a position takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OperandKind {
    /// A register, literal, symbol or special register (`a`).
    Value,
    /// `[a]`, `[a, b, c]`: an address or bracketed list of `elements`
    /// (fewest, most); `[a]{.unified}` may be marked `.unified` (true).
    Address(u8, u8, bool),
    /// `p|q` (`d[|p]` when the second is optional).
    Pair {
        /// True for `d[|p]`: a lone `d` is fine too.
        second_optional: bool,
    },
    /// `{a, b, ...}`: a vector of registers (size unknown if None).
    Vector(Option<u8>),
    /// `(a, b)`: a call's parameter list.
    Parens,
    /// `_`
    Sink,
    /// A label or a function name (`bra tgt`, `call func`).
    Target,
}

/// One operand position of a form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OperandSpec {
    /// Its name in the template (`d`, `cache-policy`, `a-desc`).
    pub name: Text,
    /// What it takes.
    pub kind: OperandKind,
    /// True for `{, x}`.
    pub optional: bool,
    /// Present if and only if this word is (`@with cache-policy: .L2::cache_hint`).
    pub with_word: Option<WordId>,
    /// Must be an integer literal (`@immediate`), one of `values` if any.
    pub immediate: bool,
    /// The literal values it may take (`cp-size = { 4, 8, 16 }`), if listed.
    pub values: List<i64>,
    /// The state space an address operand must name, if the template says
    /// (`@space dstMem: .dst`): the words of that slot, or one literal.
    pub space: Option<SpaceRule>,
    /// The type a register here must agree with, as an operand of that
    /// instruction type (ISA 9.4 Table 26): `@type cache-policy: .b64`, or
    /// the type a slot holds (`@type a: .atype`).
    pub ty: Option<TypeRule>,
    /// A register, never a literal (`@register a`).
    pub register: bool,
    /// The sink `_` may stand here too: the result is discarded (`@discard d`).
    pub discard: bool,
    /// A literal here must lie in this range, inclusive (`@range count: 1..1048575`).
    pub range: Option<(i64, i64)>,
}

/// The type an operand's register must agree with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeRule {
    /// This type word.
    Word(WordId),
    /// The type in the form's slot at this index.
    Slot(u8),
}

/// Where an address operand's state space comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpaceRule {
    /// The word of the form's slot at this index (generic when absent).
    Slot(u8),
    /// Always this word.
    Word(WordId),
}

/// What the instructions with `opcode` and every word of `with` need of the
/// module header (measured with ptxas: `probe` accepted at `min_version`
/// on `targets`, rejected below).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Need {
    /// The opcode, or a special register (`%cluster_ctarank`).
    pub opcode: Text,
    /// Words every such instruction has.
    pub with: List<Text>,
    /// Lowest `.version` (major * 10 + minor).
    pub min_version: u32,
    /// The lowest target and whether every probed target from it up accepts
    /// it (`sm_90+`); else the accepting targets are listed.
    pub targets: List<Text>,
    /// True for `sm_NN+`: every probed target numbered from `targets[0]` up.
    pub from_lowest: bool,
    /// The probe line.
    pub probe: Text,
    /// The target the probe is accepted on at `min_version`.
    pub probe_target: Text,
}

impl Isa {
    /// The id of `word` (without its dot), if the description has it.
    pub fn word_id(&self, word: &str) -> Option<WordId> {
        if std::ptr::eq(self.words, crate::WORDS) {
            return crate::Word::lookup(word).map(crate::Word::index);
        }
        self.words.binary_search(&word).ok().map(|i| i as WordId)
    }

    /// The opcode named `name`, with its index.
    pub fn opcode(&self, name: &str) -> Option<(u16, &OpcodeInfo)> {
        let i = self.opcodes.binary_search_by(|o| o.name.as_str().cmp(name)).ok()?;
        Some((i as u16, &self.opcodes[i]))
    }

    /// The forms of the opcode at `index`.
    pub fn forms_of(&self, index: u16) -> &[Form] {
        let (start, end) = self.opcodes[index as usize].forms;
        &self.forms[start as usize..end as usize]
    }

    /// The class of `word` (`rounding` for `rn`), if it has one.
    pub fn class_of(&self, word: &str) -> Option<&'static str> {
        self.classes.iter().find(|(_, words, _)| words.contains(&word)).map(|(class, _, _)| *class)
    }

    /// The type named `word`.
    pub fn type_info(&self, word: &str) -> Option<&TypeInfo> {
        self.types.iter().find(|t| t.name == word)
    }
}
