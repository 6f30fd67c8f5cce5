//! Tensor-core instructions: `mma.sync`, `ldmatrix`, `stmatrix` and
//! `movmatrix`, as warp collectives (all 32 lanes of a warp take part, like
//! `shfl.sync` with a full mask; lanes that never arrive leave the warp
//! waiting, which the scheduler reports as a deadlock).
//!
//! Fragments are laid out as the PTX ISA's figures for `mma.m16n8k*`,
//! `m8n8k*` and `ldmatrix` give them. With `g = laneid / 4` (groupID) and
//! `t = laneid % 4` (threadID_in_group), and `e` elements per register:
//! - A (M x K, row): register `j`, element `i` is `A[g + 8 (j % 2)][(j / 2) 4e
//!   + t e + i]` for M = 16, `A[g][j 4e + t e + i]` for M = 8;
//! - B (K x N, col): register `j`, element `i` is `B[j 4e + t e + i][g]`;
//! - C and D (M x N): element `k` (in register order, two per register for
//!   f16) is `C[g + 8 (k / 2)][2t + k % 2]`.
//!
//! Arithmetic: integer `mma` sums the exact products and C in 64 bits and
//! wraps to 32 (`.satfinite`: clamps). Floating-point `mma` is modelled as
//! a fused dot product: the exact value of `C + sum(A B)` rounded once to
//! nearest even in the type of D; NaN inputs, `inf * 0` and `inf - inf`
//! give the canonical NaN; tf32 operands use their top 19 bits. The
//! hardware's tensor cores add in an implementation-defined order and
//! precision, so for f16/bf16/tf32 this is a model (bit-exact for sums that
//! need no rounding), the same on both sides of a diff.

use super::{At, Ctx, WarpIn, WarpOut, R};
use crate::error::InterpError;
use crate::softfloat::{self as sf, Format, Mode, Value};
use ptx_ir::{Modifier, Opcode, Operand, ScalarType, StateSpace, Word};

/// A tensor-core instruction, decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TensorOp {
    Mma(Mma),
    /// `ldmatrix.m8n8.xN{.trans}.b16`.
    Ldmatrix {
        num: u8,
        trans: bool,
    },
    /// `stmatrix.m8n8.xN{.trans}.b16`.
    Stmatrix {
        num: u8,
        trans: bool,
    },
    /// `movmatrix.m8n8.trans.b16`.
    Movmatrix,
    Wmma(Wmma),
}

/// Which `wmma` operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WmmaKind {
    /// `wmma.load.a/b/c` (matrix 0, 1, 2).
    Load(u8),
    /// `wmma.store.d`.
    Store,
    Mma,
}

/// A `wmma` instruction: its shape, and for a load or store the element
/// type and memory layout of the matrix; for `mma` the types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Wmma {
    kind: WmmaKind,
    ty: Elem,
    col: bool,
    mma: Mma,
}

impl Wmma {
    /// Rows, columns, registers and elements per register of the fragment
    /// of `matrix` (0 = A, 1 = B, 2 = C/D) with elements of type `ty`.
    fn frag(&self, matrix: u8, ty: Elem) -> (usize, usize, usize, usize) {
        let Mma { m, n, k, .. } = self.mma;
        let (rows, cols) = match matrix {
            0 => (m, k),
            1 => (k, n),
            _ => (m, n),
        };
        let per = ty.per_reg();
        // f16 A and B fragments are eight f16x2 registers in every shape
        // (elements held by more than one lane).
        let regs = if ty == Elem::F16 && matrix < 2 { 8 } else { rows * cols / 32 / per };
        (rows, cols, regs, per)
    }

    /// (row, column) of element `q` of `lane`'s fragment: the interpreter's
    /// layout (the ISA leaves wmma fragments unspecified): lane-major over
    /// the row-major matrix, wrapping where lanes hold copies.
    fn pos(rows: usize, cols: usize, elems: usize, lane: usize, q: usize) -> (usize, usize) {
        let idx = (lane * elems + q) % (rows * cols);
        (idx / cols, idx % cols)
    }
}

/// The element types of `mma`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Elem {
    F16,
    Bf16,
    Tf32,
    F32,
    F64,
    S8,
    U8,
    S4,
    U4,
    S32,
}

impl Elem {
    fn of(t: ScalarType) -> Option<Elem> {
        Some(match t {
            ScalarType::F16 => Elem::F16,
            ScalarType::Bf16 => Elem::Bf16,
            ScalarType::Tf32 => Elem::Tf32,
            ScalarType::F32 => Elem::F32,
            ScalarType::F64 => Elem::F64,
            ScalarType::S8 => Elem::S8,
            ScalarType::U8 => Elem::U8,
            ScalarType::S4 => Elem::S4,
            ScalarType::U4 => Elem::U4,
            ScalarType::S32 => Elem::S32,
            _ => return None,
        })
    }

    /// Bits of one element in a register.
    fn bits(self) -> u32 {
        match self {
            Elem::S4 | Elem::U4 => 4,
            Elem::S8 | Elem::U8 => 8,
            Elem::F16 | Elem::Bf16 => 16,
            Elem::Tf32 | Elem::F32 | Elem::S32 => 32,
            Elem::F64 => 64,
        }
    }

    /// Bits of a fragment register.
    fn reg_bits(self) -> u32 {
        if self == Elem::F64 {
            64
        } else {
            32
        }
    }

    /// Elements per register.
    fn per_reg(self) -> usize {
        (self.reg_bits() / self.bits()) as usize
    }

    fn is_int(self) -> bool {
        matches!(self, Elem::S8 | Elem::U8 | Elem::S4 | Elem::U4 | Elem::S32)
    }

    /// The element's value as an integer.
    fn int(self, raw: u64) -> i64 {
        let b = self.bits();
        match self {
            Elem::S8 | Elem::S4 | Elem::S32 => ((raw << (64 - b)) as i64) >> (64 - b),
            _ => raw as i64,
        }
    }

    /// The float format the element is read in (tf32 as f32, low bits cleared).
    fn format(self) -> Format {
        match self {
            Elem::F16 => sf::F16,
            Elem::Bf16 => sf::BF16,
            Elem::F64 => sf::F64,
            _ => sf::F32,
        }
    }

    fn float(self, raw: u64) -> Value {
        let raw = if self == Elem::Tf32 { raw & 0xffff_e000 } else { raw };
        sf::unpack(raw, self.format())
    }
}

/// The shape and types of an `mma.sync`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Mma {
    m: usize,
    n: usize,
    k: usize,
    d: Elem,
    a: Elem,
    b: Elem,
    c: Elem,
    satfinite: bool,
}

impl Mma {
    fn regs_a(&self) -> usize {
        self.m * self.k / (32 * self.a.per_reg())
    }
    fn regs_b(&self) -> usize {
        self.k * self.n / (32 * self.b.per_reg())
    }
    fn regs_c(&self, e: Elem) -> usize {
        self.m * self.n / (32 * e.per_reg())
    }

    /// (row, column) of A held by `lane` in register `j`, element `i`.
    fn pos_a(&self, lane: usize, j: usize, i: usize) -> (usize, usize) {
        let (g, t, e) = (lane / 4, lane % 4, self.a.per_reg());
        if self.m == 16 {
            (g + 8 * (j % 2), (j / 2) * 4 * e + t * e + i)
        } else {
            (g, j * 4 * e + t * e + i)
        }
    }

    fn pos_b(&self, lane: usize, j: usize, i: usize) -> (usize, usize) {
        let (g, t, e) = (lane / 4, lane % 4, self.b.per_reg());
        (j * 4 * e + t * e + i, g)
    }

    /// (row, column) of C/D element `k` (register order) of `lane`.
    fn pos_c(lane: usize, k: usize) -> (usize, usize) {
        let (g, t) = (lane / 4, lane % 4);
        (g + 8 * (k / 2), 2 * t + k % 2)
    }
}

/// The modifier words of an instruction (`Modifier::Word`), in order. A
/// word the description does not know (`Modifier::Other`) is not among
/// them: `check` rejects it.
fn words(at: &At<'_>) -> Vec<Word> {
    at.inst
        .modifiers
        .iter()
        .filter_map(|m| match m {
            Modifier::Word(w) => Some(*w),
            _ => None,
        })
        .collect()
}

/// The dimensions a shape word spells, `mMnNkK` (or `mMnN`, k = 0).
fn shape(word: Word) -> Option<(usize, usize, usize)> {
    let rest = word.as_str().strip_prefix('m')?;
    let (m, rest) = rest.split_once('n')?;
    let (n, k) = rest.split_once('k').unwrap_or((rest, "0"));
    Some((m.parse().ok()?, n.parse().ok()?, k.parse().ok()?))
}

/// The registers of a fragment operand: `{a, b, ...}` or one register.
fn frag(op: &Operand) -> Vec<&Operand> {
    match op {
        Operand::Vector(v) => v.iter().collect(),
        other => vec![other],
    }
}

impl Ctx<'_, '_> {
    /// Decodes a tensor-core instruction; what it does not model is
    /// `Unsupported`.
    pub(super) fn tensor_op(&self, at: &At<'_>) -> R<TensorOp> {
        let ws = words(at);
        let has = |w: Word| ws.contains(&w);
        if !has(Word::SYNC) || !has(Word::ALIGNED) {
            return Err(self.unsupported_because(at, "without .sync.aligned"));
        }
        let shape_word = ws.iter().copied().find(|&w| shape(w).is_some());
        let (m, n, k) = shape_word.and_then(shape).unwrap_or((0, 0, 0));
        match at.inst.opcode {
            Opcode::Mma => {
                let mut allowed = vec![Word::SYNC, Word::ALIGNED, Word::ROW, Word::COL, Word::SATFINITE];
                allowed.extend(shape_word);
                self.check(at, &allowed, 0)?;
                let layouts: Vec<Word> = ws.iter().copied().filter(|&w| w == Word::ROW || w == Word::COL).collect();
                if layouts != [Word::ROW, Word::COL] {
                    return Err(self.unsupported_because(at, "layouts other than .row.col"));
                }
                let types: Vec<Option<Elem>> = at.inst.types().map(Elem::of).collect();
                let [Some(d), Some(a), Some(b), Some(c)] = types[..] else {
                    return Err(self.unsupported_because(at, "mma types"));
                };
                let mma = Mma { m, n, k, d, a, b, c, satfinite: has(Word::SATFINITE) };
                use Elem::*;
                let ok = match (a, b) {
                    (F16, F16) => {
                        matches!((m, n, k), (16, 8, 8) | (16, 8, 16))
                            && matches!(c, F16 | F32)
                            && matches!(d, F16 | F32)
                            && !mma.satfinite
                    }
                    (Bf16, Bf16) => matches!((m, n, k), (16, 8, 8) | (16, 8, 16)) && c == F32 && d == F32,
                    (Tf32, Tf32) => matches!((m, n, k), (16, 8, 4) | (16, 8, 8)) && c == F32 && d == F32,
                    (F64, F64) => {
                        matches!((m, n, k), (8, 8, 4) | (16, 8, 4) | (16, 8, 8) | (16, 8, 16)) && c == F64 && d == F64
                    }
                    (S8 | U8, S8 | U8) => {
                        matches!((m, n, k), (8, 8, 16) | (16, 8, 16) | (16, 8, 32)) && c == S32 && d == S32
                    }
                    (S4 | U4, S4 | U4) => {
                        matches!((m, n, k), (8, 8, 32) | (16, 8, 32) | (16, 8, 64)) && c == S32 && d == S32
                    }
                    _ => false,
                };
                let ok = ok && (mma.satfinite <= d.is_int()) && (a != F64 || !mma.satfinite);
                if !ok {
                    return Err(self.unsupported_because(at, "mma shape and types"));
                }
                Ok(TensorOp::Mma(mma))
            }
            Opcode::Ldmatrix | Opcode::Stmatrix => {
                let num =
                    [(Word::X1, 1), (Word::X2, 2), (Word::X4, 4)].into_iter().find(|&(w, _)| has(w)).map(|(_, n)| n);
                self.check(
                    at,
                    &[Word::SYNC, Word::ALIGNED, Word::M8N8, Word::X1, Word::X2, Word::X4, Word::TRANS],
                    crate::exec::F_SPACE,
                )?;
                let types: Vec<ScalarType> = at.inst.types().collect();
                let (Some(num), true, [ScalarType::B16]) = (num, (m, n) == (8, 8), types.as_slice()) else {
                    return Err(self.unsupported_because(at, "shapes other than .m8n8 .b16"));
                };
                if !matches!(at.inst.space(), None | Some(StateSpace::Shared)) {
                    return Err(self.invalid(at, "state space"));
                }
                let trans = has(Word::TRANS);
                Ok(if at.inst.opcode == Opcode::Ldmatrix {
                    TensorOp::Ldmatrix { num, trans }
                } else {
                    TensorOp::Stmatrix { num, trans }
                })
            }
            Opcode::Wmma => self.wmma_op(at, &ws, shape_word, (m, n, k)).map(TensorOp::Wmma),
            Opcode::Movmatrix => {
                self.check(at, &[Word::SYNC, Word::ALIGNED, Word::M8N8, Word::TRANS], 0)?;
                let types: Vec<ScalarType> = at.inst.types().collect();
                if (m, n) != (8, 8) || !has(Word::TRANS) || types != [ScalarType::B16] {
                    return Err(self.unsupported_because(at, "movmatrix other than .m8n8.trans.b16"));
                }
                Ok(TensorOp::Movmatrix)
            }
            _ => Err(self.unsupported(at)),
        }
    }

    fn wmma_op(&self, at: &At<'_>, ws: &[Word], shape_word: Option<Word>, (m, n, k): (usize, usize, usize)) -> R<Wmma> {
        let has = |w: Word| ws.contains(&w);
        let mut allowed = vec![
            Word::SYNC,
            Word::ALIGNED,
            Word::ROW,
            Word::COL,
            Word::LOAD,
            Word::STORE,
            Word::MMA,
            Word::A,
            Word::B,
            Word::C,
            Word::D,
            Word::SATFINITE,
        ];
        // Only a shape with a k (`.m16n16k16`, not `.m8n8`).
        allowed.extend(shape_word.filter(|_| k != 0));
        self.check(at, &allowed, super::F_SPACE | super::F_ROUND)?;
        let types: Vec<Option<Elem>> = at.inst.types().map(Elem::of).collect();
        let layouts: Vec<bool> =
            ws.iter().filter(|&&w| w == Word::ROW || w == Word::COL).map(|&w| w == Word::COL).collect();
        let unsupported = || self.unsupported_because(at, "wmma shape and types");
        let shapes16 = matches!((m, n, k), (16, 16, 16) | (32, 8, 16) | (8, 32, 16));
        // The A type a C type goes with, and whether the shape fits A.
        let fits = |a: Elem, c: Elem| match a {
            Elem::F16 => shapes16 && matches!(c, Elem::F16 | Elem::F32),
            Elem::Bf16 => shapes16 && c == Elem::F32,
            Elem::Tf32 => (m, n, k) == (16, 16, 8) && c == Elem::F32,
            Elem::S8 | Elem::U8 => shapes16 && c == Elem::S32,
            Elem::F64 => (m, n, k) == (8, 8, 4) && c == Elem::F64,
            _ => false,
        };
        let mut mma = Mma { m, n, k, d: Elem::F32, a: Elem::F16, b: Elem::F16, c: Elem::F32, satfinite: false };
        let rounding = at.inst.modifiers.iter().any(|md| matches!(md, Modifier::Rounding(_)));
        if has(Word::MMA) {
            let (d, a, b, c) = match types[..] {
                [Some(d), Some(c)] => (d, Elem::F16, Elem::F16, c),
                [Some(d), Some(a), Some(b), Some(c)] => (d, a, b, c),
                _ => return Err(unsupported()),
            };
            mma = Mma { m, n, k, d, a, b, c, satfinite: has(Word::SATFINITE) };
            let same_class = a == b || matches!((a, b), (Elem::S8 | Elem::U8, Elem::S8 | Elem::U8));
            let d_ok = if a == Elem::F16 { matches!(d, Elem::F16 | Elem::F32) } else { d == c };
            let sat_ok = !mma.satfinite || (d.is_int() || matches!(d, Elem::F16 | Elem::F32));
            let round_ok = !rounding || (a == Elem::F64 && at.inst.rounding() == Some(ptx_ir::Rounding::Rn));
            if layouts.len() != 2 || !same_class || !fits(a, c) || !d_ok || !sat_ok || !round_ok {
                return Err(unsupported());
            }
            return Ok(Wmma { kind: WmmaKind::Mma, ty: a, col: false, mma });
        }
        let kind = match (has(Word::LOAD), has(Word::STORE), has(Word::A), has(Word::B), has(Word::C), has(Word::D)) {
            (true, false, true, false, false, false) => WmmaKind::Load(0),
            (true, false, false, true, false, false) => WmmaKind::Load(1),
            (true, false, false, false, true, false) => WmmaKind::Load(2),
            (false, true, false, false, false, true) => WmmaKind::Store,
            _ => return Err(unsupported()),
        };
        let [Some(ty)] = types[..] else { return Err(unsupported()) };
        let ok = match kind {
            WmmaKind::Load(0 | 1) => [Elem::F32, Elem::S32].iter().any(|&c| fits(ty, c)) || fits(ty, Elem::F64),
            _ => [Elem::F16, Elem::Bf16, Elem::Tf32, Elem::S8, Elem::F64].iter().any(|&a| fits(a, ty)),
        };
        if !ok || layouts.len() != 1 || rounding || has(Word::SATFINITE) {
            return Err(unsupported());
        }
        if !matches!(at.inst.space(), None | Some(StateSpace::Global) | Some(StateSpace::Shared)) {
            return Err(self.invalid(at, "state space"));
        }
        mma.a = ty;
        Ok(Wmma { kind, ty, col: layouts[0], mma })
    }

    /// The address and stride (in elements) of a wmma load or store.
    fn wmma_memory(
        &self,
        at: &At<'_>,
        w: &Wmma,
        addr: &Operand,
        stride: Option<&&Operand>,
    ) -> R<(StateSpace, u64, u64)> {
        let Operand::Address(a) = addr else { return Err(self.invalid(at, "wmma address")) };
        let (space, p) = self.address(at, a, at.inst.space())?;
        if !matches!(space, StateSpace::Global | StateSpace::Shared) {
            return Err(InterpError::Undefined {
                message: "wmma address outside .global and .shared memory".into(),
                line: self.line(at),
            });
        }
        let matrix = if let WmmaKind::Load(x) = w.kind { x } else { 2 };
        let (rows, cols, _, _) = w.frag(matrix, w.ty);
        let stride = match stride {
            Some(s) => self.value(at, s, ScalarType::U32)? as u64,
            None if w.col => rows as u64,
            None => cols as u64,
        };
        // A stride below the leading dimension is undefined in the ISA; the
        // addresses are computed as written (rows overlap), the same on
        // both sides of a diff, rather than failing every trial of a
        // kernel whose stride is a parameter.
        Ok((space, p, stride))
    }

    /// Byte address of element (r, c) of a wmma matrix in memory.
    fn wmma_element_address(w: &Wmma, p: u64, stride: u64, r: usize, c: usize) -> u64 {
        let (major, minor) = if w.col { (c, r) } else { (r, c) };
        p.wrapping_add((major as u64 * stride + minor as u64) * (w.ty.bits() as u64 / 8))
    }

    /// `cvt.{rna,rn,rz}{.satfinite}{.relu}.tf32.f32`: f32 rounded to the
    /// 10 fraction bits of tf32, in an f32's bits with the low 13 clear
    /// (`.rna`: ties away from zero). NaN gives the canonical tf32 NaN
    /// `0x7fffe000`; `.satfinite` turns infinities (also from rounding) into
    /// the largest finite tf32; `.relu` turns negatives into +0.
    pub(super) fn exec_cvt_tf32(&mut self, at: &At<'_>) -> R<super::Flow> {
        self.check(at, &[Word::RELU, Word::SATFINITE], super::F_ROUND)?;
        self.ops(at, 2)?;
        let round = at.inst.rounding();
        use ptx_ir::Rounding;
        let (rna, rn) = match round {
            Some(Rounding::Rna) => (true, false),
            Some(Rounding::Rn) => (false, true),
            Some(Rounding::Rz) => (false, false),
            _ => return Err(self.unsupported_because(at, "tf32 rounding")),
        };
        let x = self.value(at, self.op(at, 1)?, ScalarType::F32)? as u32;
        let (sat, relu) = (Self::word(at, Word::SATFINITE), Self::word(at, Word::RELU));
        let sign = x & 0x8000_0000;
        let mag = x & 0x7fff_ffff;
        let d = if mag > 0x7f80_0000 {
            0x7fff_e000
        } else if relu && sign != 0 {
            0
        } else {
            let rounded = if mag == 0x7f80_0000 {
                mag
            } else if rna {
                (mag + 0x1000) & !0x1fff
            } else if rn {
                (mag + 0xfff + ((mag >> 13) & 1)) & !0x1fff
            } else {
                mag & !0x1fff
            };
            let rounded = if sat && rounded >= 0x7f80_0000 { 0x7f7f_e000 } else { rounded };
            sign | rounded
        };
        self.write(at, self.op(at, 0)?, d as u128, ScalarType::B32)?;
        Ok(super::Flow::Next)
    }

    /// The operands of `op` in order (destination first), checked for count.
    fn tensor_operands<'i>(&self, at: &At<'i>, op: TensorOp) -> R<Vec<Vec<&'i Operand>>> {
        let ops: Vec<Vec<&Operand>> = at.inst.operands.iter().map(frag).collect();
        let want: Vec<usize> = match op {
            TensorOp::Mma(m) => vec![m.regs_c(m.d), m.regs_a(), m.regs_b(), m.regs_c(m.c)],
            TensorOp::Ldmatrix { num, .. } => vec![num as usize, 1],
            TensorOp::Stmatrix { num, .. } => vec![1, num as usize],
            TensorOp::Movmatrix => vec![1, 1],
            TensorOp::Wmma(w) => match w.kind {
                WmmaKind::Load(x) => vec![w.frag(x, w.ty).2, 1, 1],
                WmmaKind::Store => vec![1, w.frag(2, w.ty).2, 1],
                WmmaKind::Mma => {
                    let m = &w.mma;
                    vec![w.frag(2, m.d).2, w.frag(0, m.a).2, w.frag(1, m.b).2, w.frag(2, m.c).2]
                }
            },
        };
        // A wmma load or store may leave out its stride.
        let want_len = match op {
            TensorOp::Wmma(Wmma { kind: WmmaKind::Load(_) | WmmaKind::Store, .. }) if ops.len() == 2 => 2,
            _ => want.len(),
        };
        if ops.len() != want_len || ops.iter().zip(&want).any(|(o, w)| o.len() != *w) {
            return Err(self.invalid(at, "fragment operand count"));
        }
        Ok(ops)
    }

    /// Starts a tensor-core instruction: checks it, then waits for the warp.
    pub(super) fn exec_tensor(&mut self, at: &At<'_>) -> R<super::Flow> {
        let op = self.tensor_op(at)?;
        self.tensor_operands(at, op)?;
        self.thread.status = crate::machine::Status::Warp;
        Ok(super::Flow::Stay)
    }

    /// The address of this lane's matrix row (ldmatrix, stmatrix).
    fn row_address(&self, at: &At<'_>, op: &Operand) -> R<(StateSpace, u64)> {
        let Operand::Address(a) = op else { return Err(self.invalid(at, "matrix address")) };
        let (space, addr) = self.address(at, a, at.inst.space())?;
        if space != StateSpace::Shared {
            return Err(InterpError::Undefined {
                message: "matrix address outside .shared memory".into(),
                line: self.line(at),
            });
        }
        self.check_align(at, space, addr, 16)?;
        Ok((space, addr))
    }

    /// This lane's inputs: fragment registers, or the matrix row it
    /// addresses (ldmatrix; empty for lanes whose address is not used).
    pub(super) fn tensor_input(&self, at: &At<'_>, op: TensorOp) -> R<Vec<u64>> {
        let ops = self.tensor_operands(at, op)?;
        let lane = (self.thread.linear % 32) as usize;
        let read = |list: &[&Operand], bits: u32| -> R<Vec<u64>> {
            let ty = if bits == 64 { ScalarType::B64 } else { ScalarType::B32 };
            list.iter().map(|o| self.value(at, o, ty).map(|v| v as u64)).collect()
        };
        Ok(match op {
            TensorOp::Mma(m) => {
                let mut v = read(&ops[1], m.a.reg_bits())?;
                v.extend(read(&ops[2], m.b.reg_bits())?);
                v.extend(read(&ops[3], m.c.reg_bits())?);
                v
            }
            TensorOp::Ldmatrix { num, .. } => {
                if lane >= 8 * num as usize {
                    return Ok(Vec::new());
                }
                let (space, addr) = self.row_address(at, ops[1][0])?;
                let row = self.read_bytes(at, space, addr, 16)?;
                row.chunks(8).map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8]))).collect()
            }
            TensorOp::Stmatrix { .. } => read(&ops[1], 32)?,
            TensorOp::Movmatrix => read(&ops[1], 32)?,
            TensorOp::Wmma(w) => match w.kind {
                WmmaKind::Load(x) => {
                    let (space, p, stride) = self.wmma_memory(at, &w, ops[1][0], ops.get(2).and_then(|o| o.first()))?;
                    let (rows, cols, regs, per) = w.frag(x, w.ty);
                    let size = w.ty.bits() as u64 / 8;
                    let mut v = vec![0u64; regs];
                    for q in 0..regs * per {
                        let (r, c) = Wmma::pos(rows, cols, regs * per, lane, q);
                        let a = Self::wmma_element_address(&w, p, stride, r, c);
                        self.check_align(at, space, a, size)?;
                        let bytes = self.read_bytes(at, space, a, size)?;
                        let raw = bytes.iter().rev().fold(0u64, |acc, &b| acc << 8 | b as u64);
                        v[q / per] |= raw << (w.ty.bits() as usize * (q % per));
                    }
                    v
                }
                WmmaKind::Store => read(&ops[1], w.ty.reg_bits())?,
                WmmaKind::Mma => {
                    let m = &w.mma;
                    let mut v = read(&ops[1], m.a.reg_bits())?;
                    v.extend(read(&ops[2], m.b.reg_bits())?);
                    v.extend(read(&ops[3], m.c.reg_bits())?);
                    v
                }
            },
        })
    }

    /// Writes this lane's results.
    pub(super) fn tensor_finish(&mut self, at: &At<'_>, op: TensorOp, v: &[u64]) -> R<()> {
        let ops = self.tensor_operands(at, op)?;
        match op {
            TensorOp::Stmatrix { .. } => {
                if v.is_empty() {
                    return Ok(());
                }
                let (space, addr) = self.row_address(at, ops[0][0])?;
                let bytes: Vec<u8> = v.iter().flat_map(|w| w.to_le_bytes()).collect();
                self.write_bytes(at, space, addr, &bytes)
            }
            TensorOp::Wmma(w @ Wmma { kind: WmmaKind::Store, .. }) => {
                let (space, p, stride) = self.wmma_memory(at, &w, ops[0][0], ops.get(2).and_then(|o| o.first()))?;
                let (rows, cols, regs, per) = w.frag(2, w.ty);
                let lane = (self.thread.linear % 32) as usize;
                let size = w.ty.bits() as u64 / 8;
                for q in 0..regs * per {
                    let (r, c) = Wmma::pos(rows, cols, regs * per, lane, q);
                    let a = Self::wmma_element_address(&w, p, stride, r, c);
                    self.check_align(at, space, a, size)?;
                    let raw = v.get(q / per).copied().unwrap_or(0) >> (w.ty.bits() as usize * (q % per));
                    self.write_bytes(at, space, a, &raw.to_le_bytes()[..size as usize])?;
                }
                Ok(())
            }
            _ => {
                let ty = match op {
                    TensorOp::Mma(m) | TensorOp::Wmma(Wmma { kind: WmmaKind::Mma, mma: m, .. })
                        if m.d.reg_bits() == 64 =>
                    {
                        ScalarType::B64
                    }
                    TensorOp::Wmma(w) if w.ty.reg_bits() == 64 => ScalarType::B64,
                    _ => ScalarType::B32,
                };
                if v.len() != ops[0].len() {
                    return Err(self.invalid(at, "fragment operand count"));
                }
                for (o, x) in ops[0].iter().zip(v) {
                    self.write(at, o, *x as u128, ty)?;
                }
                Ok(())
            }
        }
    }
}

/// Computes a tensor-core instruction for the whole warp (`inputs` holds
/// all 32 lanes, in lane order).
pub(crate) fn compute(op: TensorOp, inputs: &[(usize, WarpIn)]) -> Result<Vec<(usize, WarpOut)>, String> {
    if inputs.len() != 32 || inputs.iter().enumerate().any(|(i, (l, _))| *l != i) {
        return Err(format!("{op:?} needs all 32 lanes of the warp"));
    }
    let lane_v = |l: usize| &inputs[l].1.v;
    let out = |v: Vec<u64>| WarpOut { d: 0, p: None, v };
    let half = |l: usize, reg: usize, h: usize| -> u16 {
        let v = lane_v(l);
        (v.get(reg).copied().unwrap_or(0) >> (16 * h)) as u16
    };
    let pair = |lo: u16, hi: u16| lo as u64 | (hi as u64) << 16;
    let mut outs = Vec::with_capacity(32);
    match op {
        TensorOp::Mma(m) => {
            let d = mma(&m, |l| lane_v(l))?;
            for (l, v) in d.into_iter().enumerate() {
                outs.push((l, out(v)));
            }
        }
        TensorOp::Ldmatrix { num, trans } => {
            // Element (r, c) of matrix `mat`: bytes 2c of the row lane 8 mat + r read.
            let elem = |mat: usize, r: usize, c: usize| -> u16 {
                let row = lane_v(8 * mat + r);
                (row.get(c / 4).copied().unwrap_or(0) >> (16 * (c % 4))) as u16
            };
            for l in 0..32 {
                let (g, t) = (l / 4, l % 4);
                let v = (0..num as usize)
                    .map(|mat| {
                        if trans {
                            pair(elem(mat, 2 * t, g), elem(mat, 2 * t + 1, g))
                        } else {
                            pair(elem(mat, g, 2 * t), elem(mat, g, 2 * t + 1))
                        }
                    })
                    .collect();
                outs.push((l, out(v)));
            }
        }
        TensorOp::Stmatrix { num, trans } => {
            for l in 0..32 {
                if l >= 8 * num as usize {
                    outs.push((l, out(Vec::new())));
                    continue;
                }
                let (mat, r) = (l / 8, l % 8);
                let row: Vec<u16> = (0..8)
                    .map(|c| if trans { half(c * 4 + r / 2, mat, r % 2) } else { half(r * 4 + c / 2, mat, c % 2) })
                    .collect();
                let words = row.chunks(4).map(|q| q.iter().rev().fold(0u64, |acc, &h| acc << 16 | h as u64)).collect();
                outs.push((l, out(words)));
            }
        }
        TensorOp::Wmma(w) => match w.kind {
            // Each lane moved its own elements; the warp only synchronizes.
            WmmaKind::Load(_) | WmmaKind::Store => {
                for (l, input) in inputs {
                    outs.push((*l, out(input.v.clone())));
                }
            }
            WmmaKind::Mma => {
                let d = wmma_mma(&w, |l| lane_v(l))?;
                for (l, v) in d.into_iter().enumerate() {
                    outs.push((l, out(v)));
                }
            }
        },
        TensorOp::Movmatrix => {
            for l in 0..32 {
                let (g, t) = (l / 4, l % 4);
                // Element (r, c) is in lane 4r + c/2, half c % 2; lane l gets (2t, g), (2t+1, g).
                let lo = half(4 * (2 * t) + g / 2, 0, g % 2);
                let hi = half(4 * (2 * t + 1) + g / 2, 0, g % 2);
                outs.push((l, out(vec![pair(lo, hi)])));
            }
        }
    }
    Ok(outs)
}

/// D = A B + C for the whole warp; `regs(lane)` are the lane's A, B and C
/// registers in order. Returns each lane's D registers.
fn mma<'v>(m: &Mma, regs: impl Fn(usize) -> &'v Vec<u64>) -> Result<Vec<Vec<u64>>, String> {
    let (na, nb, nc) = (m.regs_a(), m.regs_b(), m.regs_c(m.c));
    let mut a = vec![vec![0u64; m.k]; m.m];
    let mut b = vec![vec![0u64; m.n]; m.k];
    let mut c = vec![vec![0u64; m.n]; m.m];
    let field = |reg: u64, bits: u32, i: usize| -> u64 {
        if bits == 64 {
            reg
        } else {
            (reg >> (bits as usize * i)) & ((1u64 << bits) - 1)
        }
    };
    for lane in 0..32 {
        let v = regs(lane);
        if v.len() != na + nb + nc {
            return Err("mma fragment of the wrong size".into());
        }
        for (j, &reg) in v[..na].iter().enumerate() {
            for i in 0..m.a.per_reg() {
                let (r, col) = m.pos_a(lane, j, i);
                a[r][col] = field(reg, m.a.bits(), i);
            }
        }
        for (j, &reg) in v[na..na + nb].iter().enumerate() {
            for i in 0..m.b.per_reg() {
                let (r, col) = m.pos_b(lane, j, i);
                b[r][col] = field(reg, m.b.bits(), i);
            }
        }
        for (j, &reg) in v[na + nb..].iter().enumerate() {
            for i in 0..m.c.per_reg() {
                let (r, col) = Mma::pos_c(lane, j * m.c.per_reg() + i);
                c[r][col] = field(reg, m.c.bits(), i);
            }
        }
    }
    let d = multiply(m, &a, &b, &c);
    let per = m.d.per_reg();
    let nd = m.regs_c(m.d);
    Ok((0..32)
        .map(|lane| {
            (0..nd)
                .map(|j| {
                    (0..per).fold(0u64, |acc, i| {
                        let (r, col) = Mma::pos_c(lane, j * per + i);
                        acc | d[r][col] << (m.d.bits() as usize * i)
                    })
                })
                .collect()
        })
        .collect())
}

/// D = A B + C on whole matrices of raw elements.
fn multiply(m: &Mma, a: &[Vec<u64>], b: &[Vec<u64>], c: &[Vec<u64>]) -> Vec<Vec<u64>> {
    let mut d = vec![vec![0u64; m.n]; m.m];
    for (r, row) in d.iter_mut().enumerate() {
        for (col, out) in row.iter_mut().enumerate() {
            *out = if m.d.is_int() {
                let mut sum = m.c.int(c[r][col]);
                for kk in 0..m.k {
                    sum += m.a.int(a[r][kk]) * m.b.int(b[kk][col]);
                }
                let v = if m.satfinite { sum.clamp(i32::MIN as i64, i32::MAX as i64) } else { sum };
                v as u32 as u64
            } else {
                let terms = (0..m.k).map(|kk| (m.a.float(a[r][kk]), m.b.float(b[kk][col])));
                let v = dot(terms, m.c.float(c[r][col]), m.d.format());
                // .satfinite on a float D: infinities become the largest finite value.
                let f = m.d.format();
                if m.satfinite && f.is_inf(v) {
                    f.max_finite(f.is_negative(v))
                } else {
                    v
                }
            };
        }
    }
    d
}

/// `wmma.mma` for the whole warp: gathers A, B and C from the fragments
/// (the first lane holding an element gives it) and returns each lane's D.
fn wmma_mma<'v>(w: &Wmma, regs: impl Fn(usize) -> &'v Vec<u64>) -> Result<Vec<Vec<u64>>, String> {
    let m = &w.mma;
    let geo = [w.frag(0, m.a), w.frag(1, m.b), w.frag(2, m.c)];
    let tys = [m.a, m.b, m.c];
    let mut mats: Vec<Vec<Vec<u64>>> = geo.iter().map(|&(rows, cols, _, _)| vec![vec![0u64; cols]; rows]).collect();
    let mut seen: Vec<Vec<Vec<bool>>> = geo.iter().map(|&(rows, cols, _, _)| vec![vec![false; cols]; rows]).collect();
    for lane in 0..32 {
        let v = regs(lane);
        if v.len() != geo.iter().map(|g| g.2).sum::<usize>() {
            return Err("wmma fragment of the wrong size".into());
        }
        let mut base = 0;
        for x in 0..3 {
            let (rows, cols, nregs, per) = geo[x];
            let bits = tys[x].bits() as usize;
            for q in 0..nregs * per {
                let (r, c) = Wmma::pos(rows, cols, nregs * per, lane, q);
                if !seen[x][r][c] {
                    seen[x][r][c] = true;
                    let reg = v[base + q / per];
                    mats[x][r][c] = if bits == 64 { reg } else { (reg >> (bits * (q % per))) & ((1u64 << bits) - 1) };
                }
            }
            base += nregs;
        }
    }
    let d = multiply(m, &mats[0], &mats[1], &mats[2]);
    let (rows, cols, nregs, per) = w.frag(2, m.d);
    let bits = m.d.bits() as usize;
    Ok((0..32)
        .map(|lane| {
            let mut out = vec![0u64; nregs];
            for q in 0..nregs * per {
                let (r, c) = Wmma::pos(rows, cols, nregs * per, lane, q);
                out[q / per] |= d[r][c] << (bits * (q % per));
            }
            out
        })
        .collect())
}

/// Bits of the exact accumulator, and where exponent 0 sits in it.
const LIMBS: usize = 72;
const BIAS: i32 = 2240;

/// A magnitude with bit `i` worth `2^(i - BIAS)`.
struct Wide([u64; LIMBS]);

impl Wide {
    fn add(&mut self, mant: u128, exp: i32) {
        let p = (exp + BIAS).max(0) as usize;
        let (limb, off) = (p / 64, p % 64);
        let lo = (mant as u64 as u128) << off;
        let hi = (mant >> 64) << off;
        self.add_at(limb, lo);
        self.add_at(limb + 1, hi);
    }

    fn add_at(&mut self, mut i: usize, v: u128) {
        let mut carry = v;
        while carry != 0 && i < LIMBS {
            let s = self.0[i] as u128 + (carry & u64::MAX as u128);
            self.0[i] = s as u64;
            carry = (carry >> 64) + (s >> 64);
            i += 1;
        }
    }

    fn cmp(&self, o: &Wide) -> std::cmp::Ordering {
        self.0.iter().rev().cmp(o.0.iter().rev())
    }

    /// self - o, with self >= o.
    fn sub(&self, o: &Wide) -> Wide {
        let mut r = [0u64; LIMBS];
        let mut borrow = false;
        for ((out, &x), &y) in r.iter_mut().zip(&self.0).zip(&o.0) {
            let (x, b1) = x.overflowing_sub(y);
            let (x, b2) = x.overflowing_sub(borrow as u64);
            *out = x;
            borrow = b1 || b2;
        }
        Wide(r)
    }

    fn bit(&self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 == 1
    }

    /// Rounds `(-1)^sign * self` to nearest even in `f` (self nonzero).
    fn round(&self, sign: bool, f: Format) -> u64 {
        let top = (0..LIMBS).rev().find(|&i| self.0[i] != 0).map(|i| i * 64 + 63 - self.0[i].leading_zeros() as usize);
        let Some(top) = top else { return f.zero(sign) };
        let low = top.saturating_sub(100);
        let mant = (low..=top).rev().fold(0u128, |acc, i| acc << 1 | self.bit(i) as u128);
        let sticky = (0..low).any(|i| self.bit(i));
        sf::round_pack(sign, mant, low as i32 - BIAS, sticky, f, Mode::NearestEven)
    }
}

/// `c + sum(a * b)`, exact, rounded once to nearest even in `f`.
fn dot(terms: impl Iterator<Item = (Value, Value)>, c: Value, f: Format) -> u64 {
    let mut pos = Wide([0; LIMBS]);
    let mut neg = Wide([0; LIMBS]);
    let (mut nan, mut inf_pos, mut inf_neg) = (false, false, false);
    // Whether every term is a zero of negative sign (then the sum is -0).
    let mut all_neg_zero = true;
    let mut add = |v: Value| match v {
        Value::Nan => nan = true,
        Value::Inf(s) => {
            all_neg_zero = false;
            if s {
                inf_neg = true
            } else {
                inf_pos = true
            }
        }
        Value::Zero(s) => all_neg_zero &= s,
        Value::Finite { sign, mant, exp } => {
            all_neg_zero = false;
            if sign {
                neg.add(mant, exp)
            } else {
                pos.add(mant, exp)
            }
        }
    };
    for (x, y) in terms {
        let p = match (x, y) {
            (Value::Nan, _) | (_, Value::Nan) => Value::Nan,
            (Value::Inf(_), Value::Zero(_)) | (Value::Zero(_), Value::Inf(_)) => Value::Nan,
            (Value::Inf(s), o) | (o, Value::Inf(s)) => Value::Inf(s ^ sign_of(o)),
            (Value::Zero(s), o) | (o, Value::Zero(s)) => Value::Zero(s ^ sign_of(o)),
            (Value::Finite { sign: s1, mant: m1, exp: e1 }, Value::Finite { sign: s2, mant: m2, exp: e2 }) => {
                Value::Finite { sign: s1 ^ s2, mant: m1 * m2, exp: e1 + e2 }
            }
        };
        add(p);
    }
    add(c);
    if nan || (inf_pos && inf_neg) {
        return f.canonical_nan();
    }
    if inf_pos || inf_neg {
        return f.inf(inf_neg);
    }
    match pos.cmp(&neg) {
        std::cmp::Ordering::Equal => f.zero(all_neg_zero),
        std::cmp::Ordering::Greater => pos.sub(&neg).round(false, f),
        std::cmp::Ordering::Less => neg.sub(&pos).round(true, f),
    }
}

fn sign_of(v: Value) -> bool {
    match v {
        Value::Inf(s) | Value::Zero(s) => s,
        Value::Finite { sign, .. } => sign,
        Value::Nan => false,
    }
}
