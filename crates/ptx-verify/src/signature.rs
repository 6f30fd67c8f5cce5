//! Instruction signatures for the verifier: which instruction types each
//! opcode accepts, and what each operand position expects given those types.
//!
//! This is the verifier's one table. It covers the instructions whose
//! operand types the ISA defines plainly (integer and float arithmetic,
//! logic, shifts, bit fields, comparisons, selects, moves, conversions,
//! loads and stores, atomics, warp shuffles and votes). An opcode or form
//! that is not described here is not type-checked at all: a missing rule
//! may let an error through, a wrong rule would reject valid code.
//! [`valid_types`] and [`signature`] name every opcode of the table, the
//! unchecked ones in one arm, so a new opcode is a compile error here until
//! it is given a rule or added to that arm.
//!
//! The lists of valid instruction types were taken from the ISA syntax
//! sections (`spec/isa/<opcode>.md` and the floating-point and half-precision
//! sections) and checked type by type against ptxas 13.5 on `sm_90` and
//! `sm_100a`: a type is listed unless ptxas answers "Unexpected instruction
//! types specified" (or, for `cvta`, "requires .u32 or .u64 type") for it
//! on both.

use ptx_ir::{Inst, Modifier, Opcode, ScalarType, Word};

use super::rules::{is_register_less_format, widened};

/// What an operand position expects of a register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// Not checked: positions the table does not describe (`lop3`'s
    /// immLut, cache policies, addresses, whose base registers are checked
    /// on their own).
    Any,
    /// The instruction type (or one derived from it): Table 26 with ptxas's
    /// `.f16x2` exception. A `{a, b}` operand (the packing form of `mov`)
    /// splits the type's bits evenly between its elements.
    Strict(ScalarType),
    /// A type the ISA fixes whatever the instruction type (shift amounts,
    /// bit positions, counts, the predicates of `setp` and `selp`): Table 26.
    Fixed(ScalarType),
    /// Table 27 (relaxed source) against this type.
    Source(ScalarType),
    /// Table 28 (relaxed destination) against this type.
    Dest(ScalarType),
}

/// The most operand positions a signature describes.
pub const MAX_OPERANDS: usize = 6;

/// What an instruction expects of its operands.
#[derive(Clone, Copy, Debug)]
pub struct Signature {
    /// Per operand position (positions past the end expect nothing).
    pub operands: [Expect; MAX_OPERANDS],
    /// The data operand of `ld`/`ldu`/`st`: it must have as many elements as
    /// the `.vN` modifier says (one without it).
    pub data: Option<usize>,
}

impl Signature {
    fn of(expects: &[Expect]) -> Signature {
        let mut operands = [Expect::Any; MAX_OPERANDS];
        for (slot, e) in operands.iter_mut().zip(expects) {
            *slot = *e;
        }
        Signature { operands, data: None }
    }

    /// Every operand of type `t`.
    fn all(t: ScalarType) -> Signature {
        Signature::of(&[Expect::Strict(t); MAX_OPERANDS])
    }

    /// The expectation of operand `i`.
    pub fn operand(&self, i: usize) -> Expect {
        self.operands.get(i).copied().unwrap_or(Expect::Any)
    }
}

fn is_cvt_pack(inst: &Inst) -> bool {
    inst.opcode == Opcode::Cvt && inst.has_word(Word::PACK)
}

use ScalarType::*;

/// The operand signature of `inst`, whose instruction types are `types`
/// (in order; at least one). `None` if the form is not checked.
pub fn signature(inst: &Inst, types: &[ScalarType]) -> Option<Signature> {
    use Expect::{Any, Dest, Fixed, Source, Strict};
    use Opcode::*;
    let t = *types.first()?;
    let second = types.get(1).copied();
    let n = inst.operands.len();
    // The mixed-precision forms (`add.f32.f16 d, a, c`) type their operands
    // in the description (`@type`).
    if matches!(inst.opcode, Opcode::Add | Opcode::Sub | Opcode::Fma) && second.is_some() {
        return None;
    }
    Some(match inst.opcode {
        // d, a, b (, c): all of the instruction type.
        Add | Sub | Addc | Subc | Madc | Min | Max | Div | Rem | Abs | Neg | And | Or | Xor | Not | Cnot | Copysign
        | Rcp | Sqrt | Rsqrt | Sin | Cos | Lg2 | Ex2 | Tanh | Brev | Fma | Sad | Mul24 | Mad24 => Signature::all(t),
        // mul.wide / mad.wide: d (and c) twice as wide as a and b.
        Mul | Mad if inst.has_word(Word::WIDE) => {
            let w = widened(t)?;
            Signature::of(&[Strict(w), Strict(t), Strict(t), Strict(w)])
        }
        Mul | Mad => Signature::all(t),
        // The shift amount is .u32 whatever the instruction type (9.4, Note).
        Shl | Shr | Szext => Signature::of(&[Strict(t), Strict(t), Fixed(U32)]),
        Bfe => Signature::of(&[Strict(t), Strict(t), Fixed(U32), Fixed(U32)]),
        Bfi => Signature::of(&[Strict(t), Strict(t), Strict(t), Fixed(U32), Fixed(U32)]),
        // Counts and bit positions are .u32.
        Popc | Clz | Bfind => Signature::of(&[Fixed(U32), Strict(t)]),
        Prmt => Signature::all(B32),
        Lop3 => Signature::of(&[Strict(B32), Strict(B32), Strict(B32), Strict(B32), Any, Fixed(Pred)]),
        Shf => Signature::of(&[Strict(B32), Strict(B32), Strict(B32), Fixed(U32)]),
        // ptxas checks the result of bmsk like a .u32 (a .f32 register is rejected).
        Bmsk => Signature::of(&[Fixed(U32), Fixed(U32), Fixed(U32)]),
        // d and c are .u32 or .s32 (by the types); a and b hold packed bytes/halves.
        Dp4a | Dp2a => Signature::of(&[Fixed(U32), Strict(U32), Strict(U32), Fixed(U32)]),
        // setp: p[|q], a, b[, {!}c]
        Setp => Signature::of(&[Fixed(Pred), Strict(t), Strict(t), Fixed(Pred)]),
        // set.dtype.stype d, a, b[, {!}c]
        Set => {
            let s = second?;
            Signature::of(&[Strict(t), Strict(s), Strict(s), Fixed(Pred)])
        }
        Selp => Signature::of(&[Strict(t), Strict(t), Strict(t), Fixed(Pred)]),
        Slct => Signature::of(&[Strict(t), Strict(t), Strict(t), Strict(second?)]),
        Testp => Signature::of(&[Fixed(Pred), Strict(t)]),
        // mov.vN: `Checker::vector_move`.
        Mov if inst.vector().is_some() => return None,
        Mov => Signature::of(&[Strict(t), Strict(t)]),
        Cvta => Signature::of(&[Strict(t), Strict(t)]),
        // ld/ldu d, [a]{, cache-policy} and st [a], b{, cache-policy}: Tables 28 and 27.
        Ld | Ldu => Signature { data: Some(0), ..Signature::of(&[Dest(t)]) },
        St => Signature { data: Some(1), ..Signature::of(&[Any, Source(t)]) },
        // cvt.pack.sat.convertType.abType{.cType} d, a, b{, c}: d is a
        // 32-bit unsigned integer (relaxed rules, as every cvt).
        Cvt if is_cvt_pack(inst) => {
            let ab = second?;
            let c = types.get(2).copied().unwrap_or(B32);
            Signature::of(&[Dest(U32), Source(ab), Source(ab), Source(c)])
        }
        // cvt.dtype.atype d, a (and the packing forms d, a, b): Tables 28
        // and 27. Forms with more types are not checked.
        Cvt => {
            let a = second?;
            if types.len() != 2 || n > 3 {
                return None;
            }
            if is_register_less_format(t) || is_register_less_format(a) {
                // Conversions to and from .bf16, .tf32, .e4m3x2, ...: ptxas
                // applies Table 26 on both sides.
                Signature::of(&[Strict(t), Strict(a), Strict(a)])
            } else {
                Signature::of(&[Dest(t), Source(a), Source(a)])
            }
        }
        // atom{.op}.type d, [a], b{, c}; red{.op}.type [a], b. Vector
        // atomics are not checked.
        Atom | Red if inst.vector().is_some() => return None,
        Atom if inst.has_word(Word::CAS) => Signature::of(&[Strict(t), Any, Strict(t), Strict(t)]),
        Atom => Signature::of(&[Strict(t), Any, Strict(t)]),
        Red => Signature::of(&[Any, Strict(t)]),
        // shfl.sync.mode.b32 d[|p], a, b, c, membermask: b and c are .b32
        // operands (ptxas accepts any 32-bit register), the mask is .u32.
        Shfl => Signature::of(&[Strict(t), Strict(t), Strict(B32), Strict(B32), Fixed(U32)]),
        // vote.mode.pred d, {!}a{, membermask} / vote.ballot.b32 d, {!}a{, membermask}
        Vote => Signature::of(&[Strict(t), Strict(Pred), Fixed(U32)]),
        Activemask => Signature::of(&[Strict(t)]),
        // createpolicy.fractional d{, fraction}, createpolicy.range d, [a],
        // primary-size, total-size, createpolicy.cvt.L2 d, a: the policies
        // are 64-bit integers (not .f64), the fraction a .f32 (or .b32;
        // no integer literal), the sizes 32-bit integers (ptxas 13.5:
        // "Arguments mismatch" otherwise).
        Createpolicy if inst.has_word(Word::known("fractional")) => Signature::of(&[Fixed(U64), Fixed(F32)]),
        Createpolicy if inst.has_word(Word::known("range")) => {
            Signature::of(&[Fixed(U64), Any, Fixed(U32), Fixed(U32)])
        }
        Createpolicy if inst.has_word(Word::known("cvt")) => Signature::of(&[Fixed(U64), Fixed(U64)]),
        Createpolicy => return None,
        // Operands not type-checked.
        Alloca | Applypriority | Bar | Barrier | Bra | Brkpt | Brx | Call | Clusterlaunchcontrol | Cp | Discard
        | Elect | Exit | Fence | Fns | Getctarank | Griddepcontrol | Isspacep | Istypep | Ldmatrix | Mapa | Match
        | Mbarrier | Membar | Mma | Movmatrix | Multimem | Nanosleep | Pmevent | Prefetch | Prefetchu | Redux | Ret
        | Setmaxnreg | Stackrestore | Stacksave | Stmatrix | Suld | Suq | Sured | Sust | Tcgen05 | Tensormap | Tex
        | Tld4 | Trap | Txq | Vabsdiff | Vabsdiff2 | Vabsdiff4 | Vadd | Vadd2 | Vadd4 | Vavrg2 | Vavrg4 | Vmad
        | Vmax | Vmax2 | Vmax4 | Vmin | Vmin2 | Vmin4 | Vset | Vset2 | Vset4 | Vshl | Vshr | Vsub | Vsub2 | Vsub4
        | Wgmma | Wmma => return None,
        Other(_) => return None,
    })
}

/// True if a `p|q` pair in operand 0 is allowed, with `q` a predicate
/// (`setp`, `shfl`, `lop3.BoolOp`): `q` is checked as `Fixed(.pred)`.
pub fn allows_predicate_pair(op: Opcode) -> bool {
    matches!(op, Opcode::Setp | Opcode::Shfl | Opcode::Lop3)
}

/// True if an instruction names a type the IR does not model as a
/// [`ScalarType`] (`.u16x2`, `.f32x2`, `.e2m1x4`, ...) or carries a modifier
/// the vocabulary does not know: its operands are not type-checked.
pub fn has_unmodelled_type(inst: &Inst) -> bool {
    inst.modifiers.iter().any(|m| match m {
        Modifier::Other(_) => true,
        Modifier::Word(w) => looks_like_type(w.as_str()),
        _ => false,
    })
}

/// `u16x2`, `f32x2`, `e4m3x4`, `bf16x2`, `ue8m0`, `b8x16`: a letter naming
/// a kind followed by a digit.
fn looks_like_type(word: &str) -> bool {
    let rest = word
        .strip_prefix("ue")
        .or_else(|| word.strip_prefix("bf"))
        .unwrap_or_else(|| word.strip_prefix(|c: char| matches!(c, 'b' | 's' | 'u' | 'f' | 'e')).unwrap_or(""));
    rest.starts_with(|c: char| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::looks_like_type;

    #[test]
    fn type_like_words() {
        for w in ["u16x2", "s16x2", "f32x2", "e4m3x4", "e2m1", "ue8m0", "b16x2", "b8x16", "bf16x2"] {
            assert!(looks_like_type(w), "{w}");
        }
        for w in ["wide", "sync", "shiftamt", "e", "sat", "b", "to", "ecl"] {
            assert!(!looks_like_type(w), "{w}");
        }
    }
}
