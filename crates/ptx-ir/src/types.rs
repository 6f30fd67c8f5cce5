//! PTX fundamental types, state spaces and the other modifier vocabularies that
//! carry meaning for analyses and passes.

use std::fmt;

macro_rules! keyword_enum {
    ($(#[$meta:meta])* $name:ident { $($variant:ident = $text:literal),* $(,)? }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name { $(#[doc = concat!("`.", $text, "`")] $variant),* }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),*];

            /// The keyword as written in PTX, without the leading dot.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),* }
            }

            /// The keyword as a word of the vocabulary (checked when this
            /// crate compiles: each keyword must be a word of the description).
            pub fn word(self) -> crate::Word {
                match self { $($name::$variant => { const W: crate::Word = crate::Word::known($text); W }),* }
            }

            /// Parses the keyword (without the leading dot).
            #[allow(clippy::should_implement_trait)]
            pub fn from_str(text: &str) -> Option<$name> {
                match text { $($text => Some($name::$variant),)* _ => None }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

keyword_enum! {
    /// A PTX fundamental type (ISA 5.2.1) plus the packed and narrow formats
    /// that appear as instruction types (`.f16x2`, `.e4m3x2`, `.u4`, ...).
    ScalarType {
        Pred = "pred",
        B8 = "b8", B16 = "b16", B32 = "b32", B64 = "b64", B128 = "b128",
        U8 = "u8", U16 = "u16", U32 = "u32", U64 = "u64",
        S8 = "s8", S16 = "s16", S32 = "s32", S64 = "s64",
        F16 = "f16", F16x2 = "f16x2", Bf16 = "bf16", Bf16x2 = "bf16x2",
        F32 = "f32", F64 = "f64", Tf32 = "tf32",
        E4m3 = "e4m3", E5m2 = "e5m2", E4m3x2 = "e4m3x2", E5m2x2 = "e5m2x2",
        E2m1x2 = "e2m1x2", E2m3x2 = "e2m3x2", E3m2x2 = "e3m2x2", Ue8m0x2 = "ue8m0x2",
        U4 = "u4", S4 = "s4", U2 = "u2", S2 = "s2",
    }
}

/// The broad class of a type, as used by the ISA's type-compatibility rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TypeKind {
    /// `.pred`
    Pred,
    /// `.bN`: untyped bits
    Bits,
    /// `.uN`
    Unsigned,
    /// `.sN`
    Signed,
    /// `.fN`, `.bf16`, `.tf32` and the packed float formats
    Float,
}

impl ScalarType {
    /// Size in bits. Sub-byte types report their own width.
    pub fn bits(self) -> u32 {
        use ScalarType::*;
        match self {
            Pred => 1,
            U2 | S2 => 2,
            U4 | S4 => 4,
            B8 | U8 | S8 | E4m3 | E5m2 | E2m1x2 => 8,
            B16 | U16 | S16 | F16 | Bf16 | E4m3x2 | E5m2x2 | E2m3x2 | E3m2x2 | Ue8m0x2 => 16,
            B32 | U32 | S32 | F32 | F16x2 | Bf16x2 | Tf32 => 32,
            B64 | U64 | S64 | F64 => 64,
            B128 => 128,
        }
    }

    /// Size in bytes, rounded up (a predicate counts as one byte).
    pub fn bytes(self) -> u32 {
        self.bits().div_ceil(8)
    }

    /// The broad class of the type.
    pub fn kind(self) -> TypeKind {
        use ScalarType::*;
        match self {
            Pred => TypeKind::Pred,
            B8 | B16 | B32 | B64 | B128 => TypeKind::Bits,
            U8 | U16 | U32 | U64 | U4 | U2 => TypeKind::Unsigned,
            S8 | S16 | S32 | S64 | S4 | S2 => TypeKind::Signed,
            _ => TypeKind::Float,
        }
    }

    /// True for the signed integer types.
    pub fn is_signed(self) -> bool {
        self.kind() == TypeKind::Signed
    }

    /// True for the floating-point types (including packed halves).
    pub fn is_float(self) -> bool {
        self.kind() == TypeKind::Float
    }

    /// True for `.bN`, `.uN`, `.sN`.
    pub fn is_integer_like(self) -> bool {
        matches!(self.kind(), TypeKind::Bits | TypeKind::Unsigned | TypeKind::Signed)
    }

    /// The bit type of the same width (`.b32` for `.f32`), if there is one.
    pub fn bit_type(self) -> Option<ScalarType> {
        Some(match self.bits() {
            8 => ScalarType::B8,
            16 => ScalarType::B16,
            32 => ScalarType::B32,
            64 => ScalarType::B64,
            128 => ScalarType::B128,
            _ => return None,
        })
    }

    /// The unsigned type of a width.
    pub fn unsigned_of_bits(bits: u32) -> Option<ScalarType> {
        Some(match bits {
            8 => ScalarType::U8,
            16 => ScalarType::U16,
            32 => ScalarType::U32,
            64 => ScalarType::U64,
            _ => return None,
        })
    }

    /// The signed type of a width.
    pub fn signed_of_bits(bits: u32) -> Option<ScalarType> {
        Some(match bits {
            8 => ScalarType::S8,
            16 => ScalarType::S16,
            32 => ScalarType::S32,
            64 => ScalarType::S64,
            _ => return None,
        })
    }
}

keyword_enum! {
    /// A state space (ISA 5.1). Sub-qualified forms such as `.shared::cta`
    /// are kept as modifiers by the instruction; this is the base space.
    StateSpace {
        Reg = "reg", Sreg = "sreg", Const = "const", Global = "global",
        Local = "local", Param = "param", Shared = "shared", Tex = "tex",
    }
}

keyword_enum! {
    /// Rounding modifiers of arithmetic and conversion instructions.
    Rounding {
        Rn = "rn", Rz = "rz", Rm = "rm", Rp = "rp", Rna = "rna", Rs = "rs",
        Rni = "rni", Rzi = "rzi", Rmi = "rmi", Rpi = "rpi",
    }
}

keyword_enum! {
    /// Comparison operators of `setp`, `set`, `slct` and friends.
    CmpOp {
        Eq = "eq", Ne = "ne", Lt = "lt", Le = "le", Gt = "gt", Ge = "ge",
        Lo = "lo", Ls = "ls", Hi = "hi", Hs = "hs",
        Equ = "equ", Neu = "neu", Ltu = "ltu", Leu = "leu", Gtu = "gtu", Geu = "geu",
        Num = "num", Nan = "nan",
    }
}

keyword_enum! {
    /// The `prmt` modes (ISA 9.7.9.7).
    PrmtMode {
        F4e = "f4e", B4e = "b4e", Rc8 = "rc8", Ecl = "ecl", Ecr = "ecr", Rc16 = "rc16",
    }
}

/// A register's declared type: a scalar type, optionally a `.v2`/`.v4`/`.v8` vector of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RegType {
    /// Element type.
    pub scalar: ScalarType,
    /// Vector length, if the register is a vector register.
    pub vector: Option<u8>,
}

impl RegType {
    /// A scalar register type.
    pub fn scalar(scalar: ScalarType) -> RegType {
        RegType { scalar, vector: None }
    }

    /// A 32-bit scalar integer (or bit-size) register: what `prmt`,
    /// `dp4a` and `dp2a` read as four bytes.
    pub fn is_integer_word(&self) -> bool {
        self.vector.is_none() && self.scalar.bits() == 32 && self.scalar.is_integer_like()
    }
}

impl fmt::Display for RegType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(n) = self.vector {
            write!(f, ".v{n} ")?;
        }
        write!(f, ".{}", self.scalar)
    }
}
