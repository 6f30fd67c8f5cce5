//! Textures and surfaces on a deterministic bound model: `tex`, `tld4`,
//! `txq`, `suld.b`, `sust.b` and `suq`.
//!
//! A kernel's textures are bound by the host, which the interpreter does
//! not see; so every texture or surface handle is taken to name a bound
//! one whose contents are a function of the handle alone. Both sides of a
//! diff see the same contents, so a rewrite that changes how a kernel
//! samples (or what it does with the texels) is caught.
//!
//! - The handle: a `.texref`/`.surfref`/`.samplerref` variable or
//!   parameter (its name), or a 64-bit texture/surface object in a register
//!   (its value). Its identity `h` is a hash of either.
//! - A texture is [`TEX_WIDTH`] x [`TEX_HEIGHT`] x [`TEX_DEPTH`] texels with
//!   [`TEX_LAYERS`] array layers, one mipmap level, 4 channels of 8 bits.
//!   Texel `(layer, z, y, x)`, channel `c` holds the byte
//!   `texel_byte(h, layer, z, y, x, c)`; read as `.f32`/`.f16` it is the
//!   unsigned normalized value `byte / 255` (rounded to the type), as
//!   `.s32`/`.u32` the byte itself.
//! - The sampler: unnormalized coordinates, nearest (point) filtering,
//!   clamp-to-edge addressing. A float coordinate `x` picks texel
//!   `floor(x)` clamped to the texture (NaN picks 0); an integer one is
//!   clamped. An array index is clamped to the layers. `.level`, `.grad`
//!   and `.base` read level 0 (the only one); offsets (`e`) are added.
//! - `tld4.comp` returns channel `comp` of the 2x2 footprint around
//!   `(x - 0.5, y - 0.5)` counter-clockwise from the lower left:
//!   `(x0, y1), (x1, y1), (x1, y0), (x0, y0)`.
//! - `txq`/`suq` answer the sizes above; normalized_coords 0, filter_mode 0
//!   (point), addr_mode 1 (clamp), channel_order/data_type 0.
//! - A surface is [`SURF_WIDTH`] bytes wide (x is a byte coordinate for
//!   `.b` accesses), [`TEX_HEIGHT`] x [`TEX_DEPTH`], [`TEX_LAYERS`] layers.
//!   Its initial bytes are `texel_byte` of the handle; `sust.b` writes are
//!   kept for the launch (a later `suld` sees them) and are part of the
//!   launch's output. Out of range: `.trap` faults, `.clamp` clamps to the
//!   last element, `.zero` reads zeros and drops the store.
//!
//! Not modelled (reported unsupported): cube maps, multisample geometries,
//! depth compare, formatted surface access (`.p`), `sured`.

use super::{At, Ctx, Flow, R};
use crate::error::InterpError;
use ptx_ir::{AddrBase, Opcode, Operand, ScalarType, Word};

/// Texture width in texels.
pub const TEX_WIDTH: u32 = 64;
/// Texture height in texels.
pub const TEX_HEIGHT: u32 = 64;
/// Texture depth in texels.
pub const TEX_DEPTH: u32 = 4;
/// Array layers of a texture or surface.
pub const TEX_LAYERS: u32 = 4;
/// Surface width in bytes.
pub const SURF_WIDTH: u32 = 256;

/// The initial byte of channel `c` of a texel (or of a surface byte, with
/// `c` = 0 and `x` the byte coordinate).
pub fn texel_byte(h: u64, layer: u32, z: u32, y: u32, x: u32, c: u32) -> u8 {
    let k = ((layer as u64) << 48) ^ ((z as u64) << 40) ^ ((y as u64) << 24) ^ ((x as u64) << 4) ^ c as u64;
    (crate::rng::mix(h ^ crate::rng::mix(k)) >> 24) as u8
}

/// The geometry of an access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Geom {
    D1,
    D2,
    D3,
    A1,
    A2,
}

impl Geom {
    /// Spatial dimensions.
    fn dims(self) -> usize {
        match self {
            Geom::D1 | Geom::A1 => 1,
            Geom::D2 | Geom::A2 => 2,
            Geom::D3 => 3,
        }
    }

    fn is_array(self) -> bool {
        matches!(self, Geom::A1 | Geom::A2)
    }
}

/// A texel position: layer, z, y, x.
type Pos = [u32; 4];

impl Ctx<'_, '_> {
    pub(super) fn exec_texture(&mut self, at: &At<'_>) -> R<Flow> {
        match at.inst.opcode {
            Opcode::Tex | Opcode::Tld4 => self.exec_tex(at),
            Opcode::Txq | Opcode::Suq => self.exec_txq(at),
            Opcode::Suld | Opcode::Sust => self.exec_surface(at),
            _ => Err(self.unsupported(at)),
        }
    }

    fn geom(&self, at: &At<'_>) -> R<Geom> {
        let mut found = None;
        for (w, g) in [
            (Word::_1D, Geom::D1),
            (Word::_2D, Geom::D2),
            (Word::_3D, Geom::D3),
            (Word::A1D, Geom::A1),
            (Word::A2D, Geom::A2),
        ] {
            if Self::word(at, w) {
                found = Some(g);
            }
        }
        found.ok_or_else(|| self.unsupported_because(at, "texture geometry"))
    }

    /// The identity of the texture, surface or sampler named by `op`.
    fn handle(&self, at: &At<'_>, op: &Operand) -> R<u64> {
        let fnv =
            |s: &str| s.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3));
        match op {
            Operand::Symbol(n) => Ok(fnv(at.func.names.get(*n))),
            Operand::Reg(_) => Ok(self.value(at, op, ScalarType::B64)? as u64),
            _ => Err(self.invalid(at, "texture operand")),
        }
    }

    /// The handle operand and the coordinate vector inside the brackets
    /// (`[a, c]`, or `[a, b, c]` with an explicit sampler).
    fn bracket<'x>(&self, at: &At<'x>, i: usize) -> R<(Operand, &'x Operand)> {
        let Some(Operand::Address(a)) = at.inst.operands.get(i) else {
            return Err(self.invalid(at, "texture address"));
        };
        let base = match a.base {
            AddrBase::Symbol(n) => Operand::Symbol(n),
            AddrBase::Reg(r) => Operand::Reg(r),
            _ => return Err(self.invalid(at, "texture address")),
        };
        match a.rest.as_slice() {
            [c] | [_, c] => Ok((base, c)),
            _ => Err(self.invalid(at, "texture coordinates")),
        }
    }

    /// The elements of a coordinate or offset vector (`{x, y}`, a vector
    /// register, or one scalar).
    fn vector_elems<'x>(&self, at: &At<'_>, op: &'x Operand) -> R<Vec<std::borrow::Cow<'x, Operand>>> {
        self.elements_of(at, op)
    }

    /// Texel position from coordinates read as `ctype` (plus offsets).
    fn texel_pos(&self, at: &At<'_>, geom: Geom, coords: &Operand, ctype: ScalarType, offs: &[i64]) -> R<Pos> {
        let elems = self.vector_elems(at, coords)?;
        let need = geom.dims() + geom.is_array() as usize;
        if elems.len() < need {
            return Err(self.invalid(at, "too few texture coordinates"));
        }
        let mut pos = [0u32; 4];
        let mut k = 0;
        if geom.is_array() {
            let layer = self.value(at, &elems[0], ScalarType::U32)? as u32;
            pos[0] = layer.min(TEX_LAYERS - 1);
            k = 1;
        }
        let limits = [TEX_WIDTH, TEX_HEIGHT, TEX_DEPTH];
        for d in 0..geom.dims() {
            let v = self.coordinate(at, &elems[k + d], ctype)? + offs.get(d).copied().unwrap_or(0);
            pos[3 - d] = v.clamp(0, limits[d] as i64 - 1) as u32;
        }
        Ok(pos)
    }

    /// One coordinate as an integer texel index (floor of a float).
    fn coordinate(&self, at: &At<'_>, op: &Operand, ctype: ScalarType) -> R<i64> {
        Ok(match ctype {
            ScalarType::F32 => {
                let f = f32::from_bits(self.value(at, op, ScalarType::F32)? as u32);
                if f.is_nan() {
                    0
                } else {
                    f.floor().clamp(-1e9, 1e9) as i64
                }
            }
            _ => self.value(at, op, ScalarType::S32)? as u32 as i32 as i64,
        })
    }

    /// A texel channel as `dtype`.
    fn texel_value(&self, at: &At<'_>, byte: u8, dtype: ScalarType) -> R<u128> {
        Ok(match dtype {
            ScalarType::F32 => (byte as f32 / 255.0).to_bits() as u128,
            ScalarType::F16 => {
                let bits = (byte as f64 / 255.0).to_bits();
                crate::softfloat::convert(
                    bits,
                    crate::softfloat::F64,
                    crate::softfloat::F16,
                    crate::softfloat::Mode::NearestEven,
                ) as u128
            }
            ScalarType::S32 | ScalarType::U32 => byte as u128,
            _ => return Err(self.unsupported_because(at, "texture data type")),
        })
    }

    fn exec_tex(&mut self, at: &At<'_>) -> R<Flow> {
        let tld4 = at.inst.opcode == Opcode::Tld4;
        let comp = [Word::R, Word::G, Word::B, Word::A].iter().position(|&c| Self::word(at, c));
        let mut words = vec![
            Word::_1D,
            Word::_2D,
            Word::_3D,
            Word::A1D,
            Word::A2D,
            Word::V4,
            Word::V2,
            Word::LEVEL,
            Word::GRAD,
            Word::BASE,
        ];
        if tld4 {
            words.extend([Word::R, Word::G, Word::B, Word::A]);
        }
        self.check(at, &words, super::F_VEC)?;
        let geom = self.geom(at)?;
        let [dtype, ctype] = Self::types(at)[..] else {
            return Err(self.invalid(at, "texture types"));
        };
        if !matches!(dtype, ScalarType::F32 | ScalarType::S32 | ScalarType::U32 | ScalarType::F16)
            || !matches!(ctype, ScalarType::F32 | ScalarType::S32)
        {
            return Err(self.unsupported_because(at, "texture types"));
        }
        let (handle_op, coords) = self.bracket(at, 1)?;
        let h = self.handle(at, &handle_op)?;
        // Operands after the brackets: lod (.level), dPdx/dPdy (.grad),
        // then an offset vector; a depth compare value is not modelled.
        let skip = if Self::word(at, Word::LEVEL) {
            1
        } else if Self::word(at, Word::GRAD) {
            2
        } else {
            0
        };
        let extra = &at.inst.operands[2.min(at.inst.operands.len())..];
        let offs: Vec<i64> = match extra.get(skip) {
            None => Vec::new(),
            Some(op @ Operand::Vector(_)) if extra.len() == skip + 1 => self
                .vector_elems(at, op)?
                .iter()
                .map(|e| self.value(at, e, ScalarType::S32).map(|v| v as u32 as i32 as i64))
                .collect::<R<_>>()?,
            Some(_) => return Err(self.unsupported_because(at, "texture operands (depth compare)")),
        };
        if tld4 && geom != Geom::D2 && geom != Geom::A2 {
            return Err(self.unsupported_because(at, "tld4 geometry"));
        }
        let texels: Vec<u8> = if tld4 {
            let c = comp.ok_or_else(|| self.invalid(at, "tld4 needs a component"))? as u32;
            // The footprint's lower-left texel: floor(coord - 0.5).
            let elems = self.vector_elems(at, coords)?;
            let k = geom.is_array() as usize;
            if elems.len() < k + 2 {
                return Err(self.invalid(at, "too few texture coordinates"));
            }
            let layer = if geom.is_array() {
                (self.value(at, &elems[0], ScalarType::U32)? as u32).min(TEX_LAYERS - 1)
            } else {
                0
            };
            let corner = |i: usize| -> R<i64> {
                let v = match ctype {
                    ScalarType::F32 => {
                        let f = f32::from_bits(self.value(at, &elems[k + i], ScalarType::F32)? as u32);
                        if f.is_nan() {
                            0
                        } else {
                            (f - 0.5).floor().clamp(-1e9, 1e9) as i64
                        }
                    }
                    _ => self.value(at, &elems[k + i], ScalarType::S32)? as u32 as i32 as i64,
                };
                Ok(v + offs.get(i).copied().unwrap_or(0))
            };
            let (x0, y0) = (corner(0)?, corner(1)?);
            let cx = |x: i64| x.clamp(0, TEX_WIDTH as i64 - 1) as u32;
            let cy = |y: i64| y.clamp(0, TEX_HEIGHT as i64 - 1) as u32;
            [(x0, y0 + 1), (x0 + 1, y0 + 1), (x0 + 1, y0), (x0, y0)]
                .iter()
                .map(|&(x, y)| texel_byte(h, layer, 0, cy(y), cx(x), c))
                .collect()
        } else {
            let p = self.texel_pos(at, geom, coords, ctype, &offs)?;
            (0..4).map(|c| texel_byte(h, p[0], p[1], p[2], p[3], c)).collect()
        };
        // The destination: {d0..d3} (or d|p: the texel is resident).
        let (dst, pred) = match self.op(at, 0)? {
            Operand::Pair(p) => (&p.0, Some(&p.1)),
            d => (d, None),
        };
        let dsts = self.elements_of(at, dst)?;
        if dtype == ScalarType::F16 && Self::word(at, Word::V2) {
            // .v2.f16x2: two channels per register. (Not reached as
            // written: `.v2` is a `Modifier::Vector`, never a word, and an
            // `.f16x2` destination is rejected above.)
            for (i, d) in dsts.iter().enumerate().take(2) {
                let lo = self.texel_value(at, texels[2 * i], ScalarType::F16)?;
                let hi = self.texel_value(at, texels[2 * i + 1], ScalarType::F16)?;
                self.write(at, d, lo | hi << 16, ScalarType::B32)?;
            }
        } else {
            if dsts.len() != 4 {
                return Err(self.invalid(at, "texture destination must have four elements"));
            }
            for (d, &b) in dsts.iter().zip(&texels) {
                let v = self.texel_value(at, b, dtype)?;
                let ty = if dtype == ScalarType::F16 { ScalarType::B16 } else { dtype };
                self.write(at, d, v, ty)?;
            }
        }
        if let Some(p) = pred {
            self.write_pred(at, p, true)?;
        }
        Ok(Flow::Next)
    }

    fn exec_txq(&mut self, at: &At<'_>) -> R<Flow> {
        let queries: [(Word, u32); 14] = [
            (Word::WIDTH, if at.inst.opcode == Opcode::Suq { SURF_WIDTH } else { TEX_WIDTH }),
            (Word::HEIGHT, TEX_HEIGHT),
            (Word::DEPTH, TEX_DEPTH),
            (Word::ARRAY_SIZE, TEX_LAYERS),
            (Word::NUM_MIPMAP_LEVELS, 1),
            (Word::NUM_SAMPLES, 1),
            (Word::CHANNEL_DATA_TYPE, 0),
            (Word::CHANNEL_ORDER, 0),
            (Word::NORMALIZED_COORDS, 0),
            (Word::FORCE_UNNORMALIZED_COORDS, 1),
            (Word::FILTER_MODE, 0),
            (Word::ADDR_MODE_0, 1),
            (Word::ADDR_MODE_1, 1),
            (Word::ADDR_MODE_2, 1),
        ];
        let mut words: Vec<Word> = queries.iter().map(|q| q.0).collect();
        words.extend([Word::LEVEL, Word::B]);
        self.check(at, &words, 0)?;
        let value = queries
            .iter()
            .find(|q| Self::word(at, q.0))
            .map(|q| q.1)
            .ok_or_else(|| self.unsupported_because(at, "texture query"))?;
        let Some(Operand::Address(a)) = at.inst.operands.get(1) else {
            return Err(self.invalid(at, "texture address"));
        };
        // The handle must be readable (a register handle is read).
        match a.base {
            AddrBase::Reg(r) => {
                self.handle(at, &Operand::Reg(r))?;
            }
            AddrBase::Symbol(_) => {}
            _ => return Err(self.invalid(at, "texture address")),
        }
        self.write(at, self.op(at, 0)?, value as u128, ScalarType::B32)?;
        Ok(Flow::Next)
    }

    fn exec_surface(&mut self, at: &At<'_>) -> R<Flow> {
        let store = at.inst.opcode == Opcode::Sust;
        let cops = [Word::CA, Word::CG, Word::CS, Word::CV, Word::WB, Word::WT];
        let mut words = vec![
            Word::B,
            Word::_1D,
            Word::_2D,
            Word::_3D,
            Word::A1D,
            Word::A2D,
            Word::TRAP,
            Word::CLAMP,
            Word::ZERO,
            Word::V2,
            Word::V4,
        ];
        words.extend(cops);
        self.check(at, &words, super::F_VEC)?;
        if !Self::word(at, Word::B) {
            return Err(self.unsupported_because(at, "formatted surface access"));
        }
        let geom = self.geom(at)?;
        let ty = self.one_type(at)?;
        let elem = ty.bytes();
        if !matches!(elem, 1 | 2 | 4 | 8) {
            return Err(self.unsupported_because(at, "surface type"));
        }
        let (addr_i, data_i) = if store { (0, 1) } else { (1, 0) };
        let (handle_op, coords) = self.bracket(at, addr_i)?;
        let h = self.handle(at, &handle_op)?;
        let elems = self.vector_elems(at, coords)?;
        let need = geom.dims() + geom.is_array() as usize;
        if elems.len() < need {
            return Err(self.invalid(at, "too few surface coordinates"));
        }
        let data = self.elements_of(at, self.op(at, data_i)?)?;
        let n = data.len() as u32;
        let size = elem * n;
        let mut k = 0;
        let mut pos: Pos = [0; 4];
        let mut out_of_range = false;
        let coord = |v: i64, limit: u32, out: &mut bool| -> u32 {
            if v < 0 || v >= limit as i64 {
                *out = true;
            }
            v.clamp(0, limit as i64 - 1) as u32
        };
        if geom.is_array() {
            let layer = self.value(at, &elems[0], ScalarType::U32)? as u32 as i64;
            pos[0] = coord(layer, TEX_LAYERS, &mut out_of_range);
            k = 1;
        }
        let limits = [SURF_WIDTH - size.min(SURF_WIDTH) + 1, TEX_HEIGHT, TEX_DEPTH];
        for d in 0..geom.dims() {
            let v = self.value(at, &elems[k + d], ScalarType::S32)? as u32 as i32 as i64;
            pos[3 - d] = coord(v, limits[d], &mut out_of_range);
        }
        if out_of_range {
            if Self::word(at, Word::ZERO) {
                if !store {
                    for d in &data {
                        self.write(at, d, 0, ty)?;
                    }
                }
                return Ok(Flow::Next);
            }
            if !Self::word(at, Word::CLAMP) {
                return Err(InterpError::MemoryFault {
                    message: format!("surface access out of range at x={} y={} z={}", pos[3], pos[2], pos[1]),
                    line: self.line(at),
                });
            }
            // .clamp: the last whole element.
            pos[3] -= pos[3] % elem;
        }
        if !pos[3].is_multiple_of(elem) {
            return Err(InterpError::MemoryFault {
                message: format!("misaligned surface access at byte {}", pos[3]),
                line: self.line(at),
            });
        }
        for (i, d) in data.iter().enumerate() {
            let x0 = pos[3] + i as u32 * elem;
            if store {
                let v = self.value(at, d, ty)?;
                for b in 0..elem {
                    self.mem.surfaces.insert((h, pos[0], pos[1], pos[2], x0 + b), (v >> (8 * b)) as u8);
                }
            } else {
                let mut v = 0u128;
                for b in 0..elem {
                    let key = (h, pos[0], pos[1], pos[2], x0 + b);
                    let byte = match self.mem.surfaces.get(&key) {
                        Some(&x) => x,
                        None => texel_byte(h, pos[0], pos[1], pos[2], x0 + b, 0),
                    };
                    v |= (byte as u128) << (8 * b);
                }
                self.write(at, d, v, ty)?;
            }
        }
        Ok(Flow::Next)
    }
}
