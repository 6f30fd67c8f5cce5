//! The opcode table: the one place that says, per opcode, which operands an
//! instruction writes, whether it has effects beyond its results, and what it
//! does to control flow.
//!
//! Adding an instruction means adding one line to the `opcodes!` table below
//! (name, [`Shape`], [`Effects`], [`Control`]). The rest of the workspace
//! derives from these columns; the few matches that give each opcode a
//! meaning of their own (the verifier's type signatures, the interpreter's
//! dispatch and its parameter-pointer tracking) are exhaustive, so the
//! compiler then lists each of them. An opcode that is not listed still
//! parses and prints (as [`Opcode::Other`]) and is treated conservatively:
//! every register operand may be read and written, and it has side effects
//! (but it does not end a basic block).

use crate::entities::Name;
use crate::inst::{Access, Inst};
use crate::words::Word;
use std::fmt;

/// How the operands of an instruction are accessed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
    /// Depends on the modifiers; resolved by [`operand_shape`].
    ByModifier,
}

impl Shape {
    /// The access of register operands at operand position `i` (outside addresses).
    pub fn role(self, i: usize) -> Access {
        match self {
            Shape::Dst1 | Shape::Call if i == 0 => Access::Def,
            Shape::Accumulate if i == 0 => Access::UseDef,
            Shape::Unknown | Shape::ByModifier => Access::UseMayDef,
            _ => Access::Use,
        }
    }
}

/// Whether executing an instruction matters beyond its register results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effects {
    /// Only writes its destination registers; removable when they are dead.
    Pure,
    /// Reads memory or state that may change (ld, special registers); not
    /// removable by a simple DCE, but writes nothing else.
    Reads,
    /// Writes memory, synchronizes, transfers control, or is unknown.
    Effectful,
}

/// What an instruction does to control flow. The CFG's blocks and edges
/// ([`Control::ends_block`]) and [`Inst::is_terminator`] come from this.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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

/// One line of the opcode table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpcodeInfo {
    /// The opcode.
    pub opcode: Opcode,
    /// Its name (`ld`).
    pub name: &'static str,
    /// Which operands it writes.
    pub shape: Shape,
    /// Whether it matters beyond its results.
    pub effects: Effects,
    /// What it does to control flow.
    pub control: Control,
}

macro_rules! opcodes {
    ($($variant:ident = $text:literal : $shape:ident, $effects:ident, $control:ident;)*) => {
        /// An opcode: the first dotted word of an instruction.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Opcode {
            $(#[doc = concat!("`", $text, "`")] $variant,)*
            /// An opcode this table does not know; kept by name.
            Other(Name),
        }

        /// Every known opcode with its name, operand shape, effects and
        /// control-flow class, in name order.
        pub const OPCODES: &[OpcodeInfo] = &[
            $(OpcodeInfo {
                opcode: Opcode::$variant,
                name: $text,
                shape: Shape::$shape,
                effects: Effects::$effects,
                control: Control::$control,
            },)*
        ];

        impl Opcode {
            /// Looks up a known opcode by name.
            pub fn from_name(name: &str) -> Option<Opcode> {
                match name { $($text => Some(Opcode::$variant),)* _ => None }
            }

            /// The opcode's name, or None for [`Opcode::Other`] (whose name
            /// lives in the function's name table).
            pub fn known_name(self) -> Option<&'static str> {
                match self { $(Opcode::$variant => Some($text),)* Opcode::Other(_) => None }
            }

            /// The opcode's line of the table, or None for [`Opcode::Other`].
            pub fn info(self) -> Option<OpcodeInfo> {
                match self {
                    $(Opcode::$variant => Some(OpcodeInfo {
                        opcode: self,
                        name: $text,
                        shape: Shape::$shape,
                        effects: Effects::$effects,
                        control: Control::$control,
                    }),)*
                    Opcode::Other(_) => None,
                }
            }
        }
    };
}

// The table. Columns: `Variant = "name": Shape, Effects, Control;`.
opcodes! {
    Abs = "abs": Dst1, Pure, Falls;
    Activemask = "activemask": Dst1, Reads, Falls;
    Add = "add": Dst1, Pure, Falls;
    Addc = "addc": Dst1, Effectful, Falls;
    Alloca = "alloca": Dst1, Effectful, Falls;
    And = "and": Dst1, Pure, Falls;
    Applypriority = "applypriority": NoDst, Effectful, Falls;
    Atom = "atom": Dst1, Effectful, Falls;
    Bar = "bar": ByModifier, Effectful, Falls;
    Barrier = "barrier": ByModifier, Effectful, Falls;
    Bfe = "bfe": Dst1, Pure, Falls;
    Bfi = "bfi": Dst1, Pure, Falls;
    Bfind = "bfind": Dst1, Pure, Falls;
    Bmsk = "bmsk": Dst1, Pure, Falls;
    Bra = "bra": NoDst, Effectful, Branch;
    Brev = "brev": Dst1, Pure, Falls;
    Brkpt = "brkpt": NoDst, Effectful, Falls;
    Brx = "brx": NoDst, Effectful, IndirectBranch;
    Call = "call": Call, Effectful, Call;
    Clusterlaunchcontrol = "clusterlaunchcontrol": Unknown, Effectful, Falls;
    Clz = "clz": Dst1, Pure, Falls;
    Cnot = "cnot": Dst1, Pure, Falls;
    Copysign = "copysign": Dst1, Pure, Falls;
    Cos = "cos": Dst1, Pure, Falls;
    Cp = "cp": NoDst, Effectful, Falls;
    Createpolicy = "createpolicy": Dst1, Pure, Falls;
    Cvt = "cvt": Dst1, Pure, Falls;
    Cvta = "cvta": Dst1, Pure, Falls;
    Discard = "discard": NoDst, Effectful, Falls;
    Div = "div": Dst1, Pure, Falls;
    Dp2a = "dp2a": Dst1, Pure, Falls;
    Dp4a = "dp4a": Dst1, Pure, Falls;
    Elect = "elect": Dst1, Effectful, Falls;
    Ex2 = "ex2": Dst1, Pure, Falls;
    Exit = "exit": NoDst, Effectful, Exit;
    Fence = "fence": NoDst, Effectful, Falls;
    Fma = "fma": Dst1, Pure, Falls;
    Fns = "fns": Dst1, Pure, Falls;
    Getctarank = "getctarank": Dst1, Pure, Falls;
    Griddepcontrol = "griddepcontrol": NoDst, Effectful, Falls;
    Isspacep = "isspacep": Dst1, Pure, Falls;
    Istypep = "istypep": Dst1, Pure, Falls;
    Ld = "ld": Dst1, Reads, Falls;
    Ldmatrix = "ldmatrix": Dst1, Reads, Falls;
    Ldu = "ldu": Dst1, Reads, Falls;
    Lg2 = "lg2": Dst1, Pure, Falls;
    Lop3 = "lop3": Dst1, Pure, Falls;
    Mad = "mad": Dst1, Pure, Falls;
    Mad24 = "mad24": Dst1, Pure, Falls;
    Madc = "madc": Dst1, Effectful, Falls;
    Mapa = "mapa": Dst1, Pure, Falls;
    Match = "match": Dst1, Effectful, Falls;
    Max = "max": Dst1, Pure, Falls;
    Mbarrier = "mbarrier": ByModifier, Effectful, Falls;
    Membar = "membar": NoDst, Effectful, Falls;
    Min = "min": Dst1, Pure, Falls;
    Mma = "mma": Dst1, Effectful, Falls;
    Mov = "mov": Dst1, Pure, Falls;
    Movmatrix = "movmatrix": Dst1, Effectful, Falls;
    Mul = "mul": Dst1, Pure, Falls;
    Mul24 = "mul24": Dst1, Pure, Falls;
    Multimem = "multimem": ByModifier, Effectful, Falls;
    Nanosleep = "nanosleep": NoDst, Effectful, Falls;
    Neg = "neg": Dst1, Pure, Falls;
    Not = "not": Dst1, Pure, Falls;
    Or = "or": Dst1, Pure, Falls;
    Pmevent = "pmevent": NoDst, Effectful, Falls;
    Popc = "popc": Dst1, Pure, Falls;
    Prefetch = "prefetch": NoDst, Effectful, Falls;
    Prefetchu = "prefetchu": NoDst, Effectful, Falls;
    Prmt = "prmt": Dst1, Pure, Falls;
    Rcp = "rcp": Dst1, Pure, Falls;
    Red = "red": NoDst, Effectful, Falls;
    Redux = "redux": Dst1, Effectful, Falls;
    Rem = "rem": Dst1, Pure, Falls;
    Ret = "ret": NoDst, Effectful, Return;
    Rsqrt = "rsqrt": Dst1, Pure, Falls;
    Sad = "sad": Dst1, Pure, Falls;
    Selp = "selp": Dst1, Pure, Falls;
    Set = "set": Dst1, Pure, Falls;
    Setmaxnreg = "setmaxnreg": NoDst, Effectful, Falls;
    Setp = "setp": Dst1, Pure, Falls;
    Shf = "shf": Dst1, Pure, Falls;
    Shfl = "shfl": Dst1, Effectful, Falls;
    Shl = "shl": Dst1, Pure, Falls;
    Shr = "shr": Dst1, Pure, Falls;
    Sin = "sin": Dst1, Pure, Falls;
    Slct = "slct": Dst1, Pure, Falls;
    Sqrt = "sqrt": Dst1, Pure, Falls;
    St = "st": NoDst, Effectful, Falls;
    Stackrestore = "stackrestore": NoDst, Effectful, Falls;
    Stacksave = "stacksave": Dst1, Effectful, Falls;
    Stmatrix = "stmatrix": NoDst, Effectful, Falls;
    Sub = "sub": Dst1, Pure, Falls;
    Subc = "subc": Dst1, Effectful, Falls;
    Suld = "suld": Dst1, Reads, Falls;
    Suq = "suq": Dst1, Reads, Falls;
    Sured = "sured": NoDst, Effectful, Falls;
    Sust = "sust": NoDst, Effectful, Falls;
    Szext = "szext": Dst1, Pure, Falls;
    Tanh = "tanh": Dst1, Pure, Falls;
    Tcgen05 = "tcgen05": Unknown, Effectful, Falls;
    Tensormap = "tensormap": NoDst, Effectful, Falls;
    Testp = "testp": Dst1, Pure, Falls;
    Tex = "tex": Dst1, Reads, Falls;
    Tld4 = "tld4": Dst1, Reads, Falls;
    Trap = "trap": NoDst, Effectful, Trap;
    Txq = "txq": Dst1, Reads, Falls;
    Vabsdiff = "vabsdiff": Dst1, Pure, Falls;
    Vabsdiff2 = "vabsdiff2": Dst1, Pure, Falls;
    Vabsdiff4 = "vabsdiff4": Dst1, Pure, Falls;
    Vadd = "vadd": Dst1, Pure, Falls;
    Vadd2 = "vadd2": Dst1, Pure, Falls;
    Vadd4 = "vadd4": Dst1, Pure, Falls;
    Vavrg2 = "vavrg2": Dst1, Pure, Falls;
    Vavrg4 = "vavrg4": Dst1, Pure, Falls;
    Vmad = "vmad": Dst1, Pure, Falls;
    Vmax = "vmax": Dst1, Pure, Falls;
    Vmax2 = "vmax2": Dst1, Pure, Falls;
    Vmax4 = "vmax4": Dst1, Pure, Falls;
    Vmin = "vmin": Dst1, Pure, Falls;
    Vmin2 = "vmin2": Dst1, Pure, Falls;
    Vmin4 = "vmin4": Dst1, Pure, Falls;
    Vote = "vote": Dst1, Effectful, Falls;
    Vset = "vset": Dst1, Pure, Falls;
    Vset2 = "vset2": Dst1, Pure, Falls;
    Vset4 = "vset4": Dst1, Pure, Falls;
    Vshl = "vshl": Dst1, Pure, Falls;
    Vshr = "vshr": Dst1, Pure, Falls;
    Vsub = "vsub": Dst1, Pure, Falls;
    Vsub2 = "vsub2": Dst1, Pure, Falls;
    Vsub4 = "vsub4": Dst1, Pure, Falls;
    Wgmma = "wgmma": ByModifier, Effectful, Falls;
    Wmma = "wmma": ByModifier, Effectful, Falls;
    Xor = "xor": Dst1, Pure, Falls;
}

impl Opcode {
    /// True if the table knows this opcode.
    pub fn is_known(self) -> bool {
        !matches!(self, Opcode::Other(_))
    }

    /// The control-flow class; [`Control::Falls`] for [`Opcode::Other`].
    pub fn control(self) -> Control {
        self.info().map_or(Control::Falls, |i| i.control)
    }
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.known_name().unwrap_or("<other>"))
    }
}

/// Resolves the operand shape of an instruction, looking at modifiers for the
/// opcodes whose shape depends on them.
pub fn operand_shape(inst: &Inst) -> Shape {
    let Some(OpcodeInfo { shape, .. }) = inst.opcode.info() else { return Shape::Unknown };
    if shape != Shape::ByModifier {
        return shape;
    }
    let any = |words: &[Word]| words.iter().any(|&w| inst.has_word(w));
    match inst.opcode {
        // bar.red / barrier.red produce a result; bar.sync, bar.arrive do not.
        Opcode::Bar | Opcode::Barrier if any(&[Word::RED]) => Shape::Dst1,
        Opcode::Bar | Opcode::Barrier => Shape::NoDst,
        Opcode::Mbarrier
            if any(&[Word::ARRIVE, Word::ARRIVE_DROP, Word::TEST_WAIT, Word::TRY_WAIT, Word::PENDING_COUNT]) =>
        {
            Shape::Dst1
        }
        Opcode::Mbarrier if any(&[Word::INIT, Word::INVAL, Word::EXPECT_TX, Word::COMPLETE_TX]) => Shape::NoDst,
        Opcode::Multimem if any(&[Word::LD_REDUCE]) => Shape::Dst1,
        Opcode::Multimem => Shape::NoDst,
        Opcode::Wgmma if any(&[Word::MMA_ASYNC]) => Shape::Accumulate,
        Opcode::Wgmma => Shape::NoDst,
        Opcode::Wmma if any(&[Word::STORE]) => Shape::NoDst,
        Opcode::Wmma if any(&[Word::LOAD, Word::MMA]) => Shape::Dst1,
        // Forms not listed above (and a `ByModifier` line without arms
        // here): nothing is known, the conservative answer.
        _ => Shape::Unknown,
    }
}

/// Whether the instruction has effects beyond writing its results. Carry-flag
/// arithmetic (`.cc`) counts as effectful: it writes the hidden carry register.
pub fn effects(inst: &Inst) -> Effects {
    let Some(OpcodeInfo { effects, .. }) = inst.opcode.info() else { return Effects::Effectful };
    if effects == Effects::Pure && inst.has_word(Word::CC) {
        return Effects::Effectful;
    }
    if inst.opcode == Opcode::Ld
        && [Word::VOLATILE, Word::RELAXED, Word::ACQUIRE, Word::MMIO].iter().any(|&w| inst.has_word(w))
    {
        return Effects::Effectful;
    }
    effects
}

/// True unless the instruction is [`Effects::Pure`].
pub fn has_side_effects(inst: &Inst) -> bool {
    effects(inst) != Effects::Pure
}
