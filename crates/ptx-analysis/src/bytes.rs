//! Byte lanes: what each byte of a value is made of.
//!
//! Compilers move bytes around with many idioms: `mov.b32 d, {lo, hi}`,
//! `prmt`, byte-aligned `shl`/`shr`, masks with `and`/`or`, byte-aligned
//! `bfi`, and integer `cvt`s that widen or narrow. The analysis follows a
//! value back through those instructions, one unique unguarded definition
//! at a time ([`Values::producer`]), and says for each byte of the value
//! whether it is a known constant, byte `k` of some source, the sign of
//! byte `k` of some source replicated (`0x00` or `0xff`), or unknown. It is
//! LLVM's byte-provider idea (load combining, bswap matching) for PTX.
//!
//! What a *source* is belongs to the client ([`ByteSources`]):
//! [`RegisterBytes`] names the registers that hold the bytes at the point of
//! the query (so a rewrite can read them there), `combine-cvt-pack` names
//! its saturations. The client may also stop the walk at an instruction of
//! its own interest ([`ByteSources::leaf`]).
//!
//! Widths are 1 to 8 bytes; `prmt`, `bfi`, `shl`/`shr`, `and`/`or` are
//! followed at 16, 32 and 64 bits where their semantics are byte moves.
//! The walk is bounded by a depth ([`MAX_DEPTH`]), so a query costs at most
//! a fixed number of steps whatever the function.

use crate::prmt;
use crate::values::Values;
use ptx_ir::{InstId, Opcode, Operand, RegId, ScalarType};
use std::fmt::Debug;

/// How many definitions deep a query follows a value.
pub const MAX_DEPTH: u32 = 12;

/// What one byte of a value is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Lane<S> {
    /// A known byte.
    Const(u8),
    /// Byte `k` (0 = least significant) of a source.
    Byte(S, u8),
    /// `0xff` if the sign bit of byte `k` of a source is set, else `0x00`.
    Sign(S, u8),
    /// Anything else.
    Unknown,
}

impl<S: Copy> Lane<S> {
    /// The byte that replicates this byte's sign bit.
    pub fn sign(self) -> Lane<S> {
        match self {
            Lane::Const(c) => Lane::Const(if c & 0x80 != 0 { 0xff } else { 0 }),
            Lane::Byte(s, k) | Lane::Sign(s, k) => Lane::Sign(s, k),
            Lane::Unknown => Lane::Unknown,
        }
    }
}

/// What the client of a byte query calls a source of bytes.
pub trait ByteSources {
    /// A source of bytes (a register, a saturation, ...).
    type Source: Copy + PartialEq + Debug;

    /// The lanes of the value `def` writes to its result (`width` bytes), if
    /// the client describes `def` itself; `None` lets the analysis follow it.
    fn leaf(&mut self, values: &Values<'_>, def: InstId, width: usize, depth: u32) -> Option<Vec<Lane<Self::Source>>> {
        let _ = (values, def, width, depth);
        None
    }

    /// Register `reg`, read by `at`, as a source, when the analysis does not
    /// follow it further (no unique definition, or one that is not a byte
    /// move). `None`: its bytes are unknown.
    fn opaque(&mut self, values: &Values<'_>, at: InstId, reg: RegId) -> Option<Self::Source>;

    /// An instruction the walk reached as the unique definition of a value
    /// it read (whether or not it could follow it further).
    fn visited(&mut self, def: InstId) {
        let _ = def;
    }
}

/// The bytes of `op` as read by `at` (`width` bytes).
pub fn operand_lanes<C: ByteSources>(
    values: &Values<'_>,
    client: &mut C,
    at: InstId,
    op: &Operand,
    width: usize,
) -> Vec<Lane<C::Source>> {
    Walk { values, client }.operand(at, op, width, MAX_DEPTH)
}

/// The bytes `def` writes to its first operand (`width` bytes), followed
/// through its sources; all unknown if `def` is not a byte move.
pub fn result_lanes<C: ByteSources>(
    values: &Values<'_>,
    client: &mut C,
    def: InstId,
    width: usize,
) -> Vec<Lane<C::Source>> {
    let mut walk = Walk { values, client };
    walk.defined(def, width, MAX_DEPTH).unwrap_or_else(|| vec![Lane::Unknown; width])
}

/// Sources are registers that hold the bytes just before a given
/// instruction (the point of the query): a rewrite may read them there.
/// The instructions the walk went through are kept (`visited`): once a
/// rewrite reads the registers directly, they are candidates for deletion.
#[derive(Clone, Debug)]
pub struct RegisterBytes {
    /// The point the registers are valid at.
    pub at: InstId,
    /// The instructions the walk reached.
    pub visited: Vec<InstId>,
}

impl RegisterBytes {
    /// Registers valid just before `at`.
    pub fn new(at: InstId) -> RegisterBytes {
        RegisterBytes { at, visited: Vec::new() }
    }
}

impl ByteSources for RegisterBytes {
    type Source = RegId;

    fn opaque(&mut self, values: &Values<'_>, at: InstId, reg: RegId) -> Option<RegId> {
        (at == self.at || values.unchanged_between(reg, at, self.at)).then_some(reg)
    }

    fn visited(&mut self, def: InstId) {
        self.visited.push(def);
    }
}

fn bytes_of(ty: ScalarType) -> usize {
    (ty.bits() / 8) as usize
}

struct Walk<'v, 'a, C> {
    values: &'v Values<'a>,
    client: &'v mut C,
}

impl<C: ByteSources> Walk<'_, '_, C> {
    fn unknown(width: usize) -> Vec<Lane<C::Source>> {
        vec![Lane::Unknown; width]
    }

    /// The bytes of operand `op` read by `at`.
    fn operand(&mut self, at: InstId, op: &Operand, width: usize, depth: u32) -> Vec<Lane<C::Source>> {
        match op {
            Operand::Int(i) => {
                (0..width).map(|k| Lane::Const(if k < 8 { (i.bits >> (8 * k)) as u8 } else { 0 })).collect()
            }
            Operand::Reg(r) => self.register(at, *r, width, depth),
            _ => Self::unknown(width),
        }
    }

    /// The bytes of register `reg` just before `at`.
    fn register(&mut self, at: InstId, reg: RegId, width: usize, depth: u32) -> Vec<Lane<C::Source>> {
        let func = self.values.function();
        let reg_ty = func.regs[reg].ty;
        let reg_bytes = bytes_of(reg_ty.scalar).max(1);
        let followed = match self.values.producer(at, reg) {
            Some(def) if depth > 0 => {
                let lanes = self.defined(def, reg_bytes, depth - 1);
                self.client.visited(def);
                lanes
            }
            _ => None,
        };
        let opaque = |walk: &mut Self| {
            let source = if reg_ty.vector.is_none() { walk.client.opaque(walk.values, at, reg) } else { None };
            source.map(|s| (0..reg_bytes).map(|k| Lane::Byte(s, k as u8)).collect::<Vec<_>>())
        };
        let mut lanes = match followed {
            Some(lanes) if lanes.iter().all(|l| *l != Lane::Unknown) => lanes,
            Some(lanes) => opaque(self).unwrap_or(lanes),
            None => opaque(self).unwrap_or_else(|| Self::unknown(reg_bytes)),
        };
        lanes.resize(width, Lane::Unknown);
        lanes
    }

    /// The bytes `inst` writes to its first operand, `width` of them; None
    /// if it is not an instruction the analysis follows.
    fn defined(&mut self, inst: InstId, width: usize, depth: u32) -> Option<Vec<Lane<C::Source>>> {
        if let Some(lanes) = self.client.leaf(self.values, inst, width, depth) {
            return Some(lanes);
        }
        let i = self.values.inst(inst);
        let ops = &i.operands;
        let ty = i.first_type();
        let int_ty = ty.filter(|t| t.is_integer_like() && *t != ScalarType::Pred);
        let same_width = int_ty.is_some_and(|t| bytes_of(t) == width) && i.modifiers.len() == 1;
        match i.opcode {
            // Not `mov.vN`: it moves N whole elements, where `{..}` of a plain
            // `mov` packs its elements into the one destination.
            Opcode::Mov if ops.len() == 2 && i.vector().is_none() => match &ops[1] {
                Operand::Vector(parts) => {
                    let part_width = width / parts.len().max(1);
                    if part_width == 0 {
                        return None;
                    }
                    let mut out = Vec::with_capacity(width);
                    for p in parts.iter() {
                        out.extend(self.operand(inst, p, part_width, depth));
                    }
                    out.resize(width, Lane::Unknown);
                    Some(out)
                }
                src if ty.is_some_and(|t| t.is_integer_like()) => Some(self.operand(inst, src, width, depth)),
                _ => None,
            },
            Opcode::Cvt => {
                let cvt = i.as_cvt()?;
                if cvt.sat || cvt.rounding.is_some() || !cvt.dst_ty.is_integer_like() || !cvt.src_ty.is_integer_like() {
                    return None;
                }
                let (src_width, dst_width) = (bytes_of(cvt.src_ty), bytes_of(cvt.dst_ty));
                let src = self.operand(inst, &ops[1], src_width, depth);
                let mut out: Vec<_> = src.iter().copied().take(dst_width).collect();
                while out.len() < dst_width {
                    let top = *src.last().unwrap_or(&Lane::Unknown);
                    out.push(if cvt.src_ty.is_signed() { top.sign() } else { Lane::Const(0) });
                }
                // Beyond the destination type (a wider register): extended by
                // the destination type's signedness.
                while out.len() < width {
                    let top = *out.last().unwrap_or(&Lane::Unknown);
                    out.push(if cvt.dst_ty.is_signed() { top.sign() } else { Lane::Const(0) });
                }
                out.truncate(width);
                Some(out)
            }
            Opcode::Shl | Opcode::Shr if same_width && ops.len() == 3 && width >= 2 => {
                let amount = ops[2].as_int()?;
                if amount % 8 != 0 || amount >= 8 * width as u64 {
                    return None;
                }
                let k = (amount / 8) as usize;
                let v = self.operand(inst, &ops[1], width, depth);
                let signed = int_ty.is_some_and(|t| t.is_signed());
                Some(if i.opcode == Opcode::Shl {
                    (0..width).map(|b| if b < k { Lane::Const(0) } else { v[b - k] }).collect()
                } else {
                    let fill = if signed { v[width - 1].sign() } else { Lane::Const(0) };
                    (0..width).map(|b| if b + k < width { v[b + k] } else { fill }).collect()
                })
            }
            Opcode::And | Opcode::Or if same_width && ops.len() == 3 => {
                let a = self.operand(inst, &ops[1], width, depth);
                let b = self.operand(inst, &ops[2], width, depth);
                let is_and = i.opcode == Opcode::And;
                Some(
                    a.iter()
                        .zip(&b)
                        .map(|(&x, &y)| match (is_and, x, y) {
                            (true, Lane::Const(0), _) | (true, _, Lane::Const(0)) => Lane::Const(0),
                            (true, Lane::Const(0xff), v) | (true, v, Lane::Const(0xff)) => v,
                            (false, Lane::Const(0), v) | (false, v, Lane::Const(0)) => v,
                            (_, Lane::Const(p), Lane::Const(q)) => Lane::Const(if is_and { p & q } else { p | q }),
                            _ => Lane::Unknown,
                        })
                        .collect(),
                )
            }
            Opcode::Bfi if same_width && ops.len() == 5 => {
                let (pos, len) = (ops[3].as_int()?, ops[4].as_int()?);
                if pos % 8 != 0 || len % 8 != 0 || pos >= 8 * width as u64 {
                    return None;
                }
                let (p, l) = ((pos / 8) as usize, (len / 8) as usize);
                let a = self.operand(inst, &ops[1], width, depth);
                let b = self.operand(inst, &ops[2], width, depth);
                Some((0..width).map(|k| if k >= p && k < p + l { a[k - p] } else { b[k] }).collect())
            }
            Opcode::Prmt if width == 4 => {
                let p = i.as_prmt()?;
                if let Operand::Reg(r) = p.selector {
                    // The selector's movs are part of the value too.
                    for def in self.values.defs_reaching(inst, *r) {
                        self.client.visited(def);
                    }
                }
                let selector = self.values.known_value(inst, p.selector)?;
                let lanes = prmt::lanes(p.mode, selector);
                let mut sources = self.operand(inst, p.a, 4, depth);
                sources.extend(self.operand(inst, p.b, 4, depth));
                Some(
                    lanes
                        .iter()
                        .map(|l| {
                            let b = sources[usize::from(l.byte)];
                            if l.sign {
                                b.sign()
                            } else {
                                b
                            }
                        })
                        .collect(),
                )
            }
            _ => None,
        }
    }
}
