//! The opcode table: the one place that says, per opcode, which operands an
//! instruction writes and whether it has effects beyond its results.
//!
//! Adding an instruction means adding one line to `OPCODES`. An opcode that is
//! not listed still parses and prints (as [`Opcode::Other`]) and is treated
//! conservatively: every register operand may be read and written, and it has
//! side effects.

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

macro_rules! opcodes {
    ($($variant:ident = $text:literal : $shape:ident, $effects:ident;)*) => {
        /// An opcode: the first dotted word of an instruction.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Opcode {
            $(#[doc = concat!("`", $text, "`")] $variant,)*
            /// An opcode this table does not know; kept by name.
            Other(Name),
        }

        /// Every known opcode with its name, operand shape and effects.
        pub const OPCODES: &[(Opcode, &str, Shape, Effects)] = &[
            $((Opcode::$variant, $text, Shape::$shape, Effects::$effects),)*
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

            fn table_entry(self) -> Option<(Shape, Effects)> {
                match self { $(Opcode::$variant => Some((Shape::$shape, Effects::$effects)),)* Opcode::Other(_) => None }
            }
        }
    };
}

opcodes! {
    Abs = "abs": Dst1, Pure;
    Activemask = "activemask": Dst1, Reads;
    Add = "add": Dst1, Pure;
    Addc = "addc": Dst1, Effectful;
    Alloca = "alloca": Dst1, Effectful;
    And = "and": Dst1, Pure;
    Applypriority = "applypriority": NoDst, Effectful;
    Atom = "atom": Dst1, Effectful;
    Bar = "bar": ByModifier, Effectful;
    Barrier = "barrier": ByModifier, Effectful;
    Bfe = "bfe": Dst1, Pure;
    Bfi = "bfi": Dst1, Pure;
    Bfind = "bfind": Dst1, Pure;
    Bmsk = "bmsk": Dst1, Pure;
    Bra = "bra": NoDst, Effectful;
    Brev = "brev": Dst1, Pure;
    Brkpt = "brkpt": NoDst, Effectful;
    Brx = "brx": NoDst, Effectful;
    Call = "call": Call, Effectful;
    Clusterlaunchcontrol = "clusterlaunchcontrol": Unknown, Effectful;
    Clz = "clz": Dst1, Pure;
    Cnot = "cnot": Dst1, Pure;
    Copysign = "copysign": Dst1, Pure;
    Cos = "cos": Dst1, Pure;
    Cp = "cp": NoDst, Effectful;
    Createpolicy = "createpolicy": Dst1, Pure;
    Cvt = "cvt": Dst1, Pure;
    Cvta = "cvta": Dst1, Pure;
    Discard = "discard": NoDst, Effectful;
    Div = "div": Dst1, Pure;
    Dp2a = "dp2a": Dst1, Pure;
    Dp4a = "dp4a": Dst1, Pure;
    Elect = "elect": Dst1, Effectful;
    Ex2 = "ex2": Dst1, Pure;
    Exit = "exit": NoDst, Effectful;
    Fence = "fence": NoDst, Effectful;
    Fma = "fma": Dst1, Pure;
    Fns = "fns": Dst1, Pure;
    Getctarank = "getctarank": Dst1, Pure;
    Griddepcontrol = "griddepcontrol": NoDst, Effectful;
    Isspacep = "isspacep": Dst1, Pure;
    Istypep = "istypep": Dst1, Pure;
    Ld = "ld": Dst1, Reads;
    Ldmatrix = "ldmatrix": Dst1, Reads;
    Ldu = "ldu": Dst1, Reads;
    Lg2 = "lg2": Dst1, Pure;
    Lop3 = "lop3": Dst1, Pure;
    Mad = "mad": Dst1, Pure;
    Mad24 = "mad24": Dst1, Pure;
    Madc = "madc": Dst1, Effectful;
    Mapa = "mapa": Dst1, Pure;
    Match = "match": Dst1, Effectful;
    Max = "max": Dst1, Pure;
    Mbarrier = "mbarrier": ByModifier, Effectful;
    Membar = "membar": NoDst, Effectful;
    Min = "min": Dst1, Pure;
    Mma = "mma": Dst1, Effectful;
    Mov = "mov": Dst1, Pure;
    Movmatrix = "movmatrix": Dst1, Effectful;
    Mul = "mul": Dst1, Pure;
    Mul24 = "mul24": Dst1, Pure;
    Multimem = "multimem": ByModifier, Effectful;
    Nanosleep = "nanosleep": NoDst, Effectful;
    Neg = "neg": Dst1, Pure;
    Not = "not": Dst1, Pure;
    Or = "or": Dst1, Pure;
    Pmevent = "pmevent": NoDst, Effectful;
    Popc = "popc": Dst1, Pure;
    Prefetch = "prefetch": NoDst, Effectful;
    Prefetchu = "prefetchu": NoDst, Effectful;
    Prmt = "prmt": Dst1, Pure;
    Rcp = "rcp": Dst1, Pure;
    Red = "red": NoDst, Effectful;
    Redux = "redux": Dst1, Effectful;
    Rem = "rem": Dst1, Pure;
    Ret = "ret": NoDst, Effectful;
    Rsqrt = "rsqrt": Dst1, Pure;
    Sad = "sad": Dst1, Pure;
    Selp = "selp": Dst1, Pure;
    Set = "set": Dst1, Pure;
    Setmaxnreg = "setmaxnreg": NoDst, Effectful;
    Setp = "setp": Dst1, Pure;
    Shf = "shf": Dst1, Pure;
    Shfl = "shfl": Dst1, Effectful;
    Shl = "shl": Dst1, Pure;
    Shr = "shr": Dst1, Pure;
    Sin = "sin": Dst1, Pure;
    Slct = "slct": Dst1, Pure;
    Sqrt = "sqrt": Dst1, Pure;
    St = "st": NoDst, Effectful;
    Stackrestore = "stackrestore": NoDst, Effectful;
    Stacksave = "stacksave": Dst1, Effectful;
    Stmatrix = "stmatrix": NoDst, Effectful;
    Sub = "sub": Dst1, Pure;
    Subc = "subc": Dst1, Effectful;
    Suld = "suld": Dst1, Reads;
    Suq = "suq": Dst1, Reads;
    Sured = "sured": NoDst, Effectful;
    Sust = "sust": NoDst, Effectful;
    Szext = "szext": Dst1, Pure;
    Tanh = "tanh": Dst1, Pure;
    Tcgen05 = "tcgen05": Unknown, Effectful;
    Tensormap = "tensormap": NoDst, Effectful;
    Testp = "testp": Dst1, Pure;
    Tex = "tex": Dst1, Reads;
    Tld4 = "tld4": Dst1, Reads;
    Trap = "trap": NoDst, Effectful;
    Txq = "txq": Dst1, Reads;
    Vabsdiff = "vabsdiff": Dst1, Pure;
    Vabsdiff2 = "vabsdiff2": Dst1, Pure;
    Vabsdiff4 = "vabsdiff4": Dst1, Pure;
    Vadd = "vadd": Dst1, Pure;
    Vadd2 = "vadd2": Dst1, Pure;
    Vadd4 = "vadd4": Dst1, Pure;
    Vavrg2 = "vavrg2": Dst1, Pure;
    Vavrg4 = "vavrg4": Dst1, Pure;
    Vmad = "vmad": Dst1, Pure;
    Vmax = "vmax": Dst1, Pure;
    Vmax2 = "vmax2": Dst1, Pure;
    Vmax4 = "vmax4": Dst1, Pure;
    Vmin = "vmin": Dst1, Pure;
    Vmin2 = "vmin2": Dst1, Pure;
    Vmin4 = "vmin4": Dst1, Pure;
    Vote = "vote": Dst1, Effectful;
    Vset = "vset": Dst1, Pure;
    Vset2 = "vset2": Dst1, Pure;
    Vset4 = "vset4": Dst1, Pure;
    Vshl = "vshl": Dst1, Pure;
    Vshr = "vshr": Dst1, Pure;
    Vsub = "vsub": Dst1, Pure;
    Vsub2 = "vsub2": Dst1, Pure;
    Vsub4 = "vsub4": Dst1, Pure;
    Wgmma = "wgmma": ByModifier, Effectful;
    Wmma = "wmma": ByModifier, Effectful;
    Xor = "xor": Dst1, Pure;
}

impl Opcode {
    /// True if the table knows this opcode.
    pub fn is_known(self) -> bool {
        !matches!(self, Opcode::Other(_))
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
    let Some((shape, _)) = inst.opcode.table_entry() else { return Shape::Unknown };
    if shape != Shape::ByModifier {
        return shape;
    }
    let any = |words: &[Word]| words.iter().any(|&w| inst.has_word(w));
    match inst.opcode {
        // bar.red / barrier.red produce a result; bar.sync, bar.arrive do not.
        Opcode::Bar | Opcode::Barrier if any(&[Word::RED]) => Shape::Dst1,
        Opcode::Bar | Opcode::Barrier => Shape::NoDst,
        Opcode::Mbarrier if any(&[Word::ARRIVE, Word::ARRIVE_DROP, Word::TEST_WAIT, Word::TRY_WAIT, Word::PENDING_COUNT]) => {
            Shape::Dst1
        }
        Opcode::Mbarrier if any(&[Word::INIT, Word::INVAL, Word::EXPECT_TX, Word::COMPLETE_TX]) => Shape::NoDst,
        Opcode::Multimem if any(&[Word::LD_REDUCE]) => Shape::Dst1,
        Opcode::Multimem => Shape::NoDst,
        Opcode::Wgmma if any(&[Word::MMA_ASYNC]) => Shape::Accumulate,
        Opcode::Wgmma => Shape::NoDst,
        Opcode::Wmma if any(&[Word::STORE]) => Shape::NoDst,
        Opcode::Wmma if any(&[Word::LOAD, Word::MMA]) => Shape::Dst1,
        _ => Shape::Unknown,
    }
}

/// Whether the instruction has effects beyond writing its results. Carry-flag
/// arithmetic (`.cc`) counts as effectful: it writes the hidden carry register.
pub fn effects(inst: &Inst) -> Effects {
    let Some((_, effects)) = inst.opcode.table_entry() else { return Effects::Effectful };
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
