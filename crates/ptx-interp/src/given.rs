//! Inputs given by the user for `ptx-interp run`: parameter values, buffer
//! contents, grid and block, and expected results, in a small line format
//! (a `.run` file or `--input` lines):
//!
//! ```text
//! # comments run to the end of the line
//! grid 2                      # CTAs: x, or x,y,z
//! block 32,1,1                # threads per CTA
//! shared 8192                 # bytes of dynamic shared memory (.extern .shared)
//! kernel add_one              # which kernel (instead of --kernel)
//! param n = 100               # integer: decimal, -decimal or 0x hex
//! param 2 = 1.5               # by index; a float for .f32/.f64 parameters
//! buffer out = zero 256       # a pointer parameter: 256 zero bytes
//! buffer in = u32 1 2 0x10    # or elements: u8 u16 u32 u64 s8 s16 s32 s64 f32 f64
//! expect out = u32 2 4 0x20   # after the run, the first elements of the buffer
//! expect out+8 = u32 0x20     # elements from byte 8 on
//! printed tid 0: 1.50         # a line printf printed (the printed lines
//!                             #   must all appear, in this order)
//! buffer in = u32 1 2 \         # a line ending in a backslash
//!             3 4              #   goes on on the next
//! ```
//!
//! A parameter is named by its full name or its index. Every scalar
//! parameter must be given by `param` (a by-value array or struct takes an
//! integer, stored little-endian and zero-padded); a pointer parameter by
//! `buffer`, or, if not named, it gets zeroed bytes (`--buffer-size`).
//! For `f32`/`f64` elements and float parameters, a `0x` literal is the
//! bit pattern and anything else is a number (`1`, `-2.5`, `inf`, `nan`),
//! rounded to nearest.

use crate::inputs::{buffer_base, ParamKind, ParamSpec};
use crate::machine::{Buffer, KernelArgs, RunOutput};

/// An element type of buffer contents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Element {
    /// Unsigned integer of this many bytes.
    Unsigned(usize),
    /// Signed integer of this many bytes.
    Signed(usize),
    /// f32.
    F32,
    /// f64.
    F64,
}

impl Element {
    fn parse(word: &str) -> Option<Element> {
        Some(match word {
            "u8" | "b8" => Element::Unsigned(1),
            "u16" | "b16" => Element::Unsigned(2),
            "u32" | "b32" => Element::Unsigned(4),
            "u64" | "b64" => Element::Unsigned(8),
            "s8" => Element::Signed(1),
            "s16" => Element::Signed(2),
            "s32" => Element::Signed(4),
            "s64" => Element::Signed(8),
            "f32" => Element::F32,
            "f64" => Element::F64,
            _ => return None,
        })
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            Element::Unsigned(n) | Element::Signed(n) => n,
            Element::F32 => 4,
            Element::F64 => 8,
        }
    }

    fn encode(self, text: &str) -> Result<Vec<u8>, String> {
        let n = self.size();
        let bits = match self {
            Element::F32 if !is_hex_literal(text) => parse_f32(text)?.to_bits() as u64,
            Element::F64 if !is_hex_literal(text) => parse_float(text)?.to_bits(),
            _ => parse_int(text, 8 * n as u32)?,
        };
        Ok(bits.to_le_bytes()[..n].to_vec())
    }

    /// The type's name.
    pub fn name(self) -> &'static str {
        match self {
            Element::Unsigned(1) => "u8",
            Element::Unsigned(2) => "u16",
            Element::Unsigned(4) => "u32",
            Element::Unsigned(_) => "u64",
            Element::Signed(1) => "s8",
            Element::Signed(2) => "s16",
            Element::Signed(4) => "s32",
            Element::Signed(_) => "s64",
            Element::F32 => "f32",
            Element::F64 => "f64",
        }
    }

    /// The element at the start of `bytes`, as text.
    pub fn show(self, bytes: &[u8]) -> String {
        let mut raw = [0u8; 8];
        let n = self.size().min(bytes.len());
        raw[..n].copy_from_slice(&bytes[..n]);
        let v = u64::from_le_bytes(raw);
        match self {
            Element::Unsigned(_) => v.to_string(),
            Element::Signed(n) => {
                let shift = 64 - 8 * n as u32;
                (((v << shift) as i64) >> shift).to_string()
            }
            Element::F32 => format!("{:?}", f32::from_bits(v as u32)),
            Element::F64 => format!("{:?}", f64::from_bits(v)),
        }
    }
}

/// Which parameter a line names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParamRef {
    /// By name.
    Name(String),
    /// By position (0-based).
    Index(usize),
}

/// What a parameter is given.
#[derive(Clone, Debug, PartialEq)]
pub enum Given {
    /// A scalar, as written.
    Scalar(String),
    /// A buffer's contents.
    Buffer(Vec<u8>),
}

/// An expected buffer prefix.
#[derive(Clone, Debug, PartialEq)]
pub struct Expect {
    /// The buffer's parameter.
    pub param: ParamRef,
    /// How to read and print it.
    pub element: Element,
    /// Byte offset of the first element in the buffer.
    pub offset: usize,
    /// The expected elements, encoded.
    pub bytes: Vec<u8>,
    /// Source line, for messages.
    pub line: usize,
}

/// Everything a `.run` file or `--input` lines give.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GivenInputs {
    /// CTAs, if given.
    pub grid: Option<[u32; 3]>,
    /// Threads per CTA, if given.
    pub block: Option<[u32; 3]>,
    /// Bytes of dynamic shared memory, if given.
    pub dynamic_shared: Option<u32>,
    /// Parameter values (a later line for the same parameter wins).
    pub params: Vec<(ParamRef, Given)>,
    /// Checks after the run.
    pub expects: Vec<Expect>,
    /// Lines `printf` must print, in this order (with the `.run` line).
    pub printed: Vec<(String, usize)>,
    /// The kernel to run, if given.
    pub kernel: Option<String>,
}

/// A `0x` literal: for a float, its bit pattern.
fn is_hex_literal(text: &str) -> bool {
    text.starts_with("0x") || text.starts_with("0X")
}

fn parse_float(text: &str) -> Result<f64, String> {
    text.parse::<f64>().map_err(|_| format!("'{text}' is not a number"))
}

/// An f32 rounded once from the decimal text (not through f64).
fn parse_f32(text: &str) -> Result<f32, String> {
    text.parse::<f32>().map_err(|_| format!("'{text}' is not a number"))
}

/// An integer literal (decimal, negative decimal, 0x hex) as a `bits`-wide pattern.
fn parse_int(text: &str, bits: u32) -> Result<u64, String> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let magnitude = match digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => digits.parse::<u64>(),
    }
    .map_err(|_| format!("'{text}' is not an integer"))?;
    let mask = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
    let (value, fits) = if negative {
        let limit = if bits >= 64 { 1u64 << 63 } else { 1u64 << (bits - 1) };
        (magnitude.wrapping_neg(), magnitude <= limit)
    } else {
        (magnitude, magnitude & !mask == 0)
    };
    if !fits {
        return Err(format!("'{text}' does not fit in {bits} bits"));
    }
    Ok(value & mask)
}

fn parse_dims(text: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("'{text}': expected x, x,y or x,y,z"));
    }
    let mut dims = [1u32; 3];
    for (d, p) in dims.iter_mut().zip(&parts) {
        *d = p.parse().ok().filter(|&v| v > 0).ok_or_else(|| format!("'{p}' is not a positive count"))?;
    }
    Ok(dims)
}

fn parse_ref(text: &str) -> ParamRef {
    match text.parse::<usize>() {
        Ok(i) => ParamRef::Index(i),
        Err(_) => ParamRef::Name(text.to_string()),
    }
}

/// Most CTAs in a grid, and threads in a block, the interpreter runs.
const MAX_LAUNCH: u64 = 1024;

/// Largest buffer a line may give (buffers are this far apart).
pub const MAX_GIVEN_BUFFER: usize = crate::memory::GLOBAL_STRIDE as usize;

fn parse_contents(words: &[&str]) -> Result<(Element, Vec<u8>), String> {
    match words {
        ["zero", size] => {
            let n: usize = size.parse().map_err(|_| format!("'{size}' is not a size in bytes"))?;
            if n > MAX_GIVEN_BUFFER {
                return Err(format!("buffer of {n} bytes is larger than {MAX_GIVEN_BUFFER}"));
            }
            Ok((Element::Unsigned(1), vec![0; n]))
        }
        [ty, values @ ..] => {
            let element = Element::parse(ty)
                .ok_or_else(|| format!("'{ty}': expected zero or an element type (u8..u64, s8..s64, f32, f64)"))?;
            let mut bytes = Vec::with_capacity(values.len() * element.size());
            for v in values {
                bytes.extend(element.encode(v)?);
            }
            if bytes.is_empty() {
                return Err(format!("no {ty} elements"));
            }
            if bytes.len() > MAX_GIVEN_BUFFER {
                return Err(format!("buffer of {} bytes is larger than {MAX_GIVEN_BUFFER}", bytes.len()));
            }
            Ok((element, bytes))
        }
        [] => Err("missing contents".into()),
    }
}

impl GivenInputs {
    /// Adds the lines of `text` (a `.run` file, or one `--input` line).
    /// Errors name the 1-based line.
    /// A line ending in `\` continues on the next.
    pub fn add_text(&mut self, text: &str) -> Result<(), String> {
        let mut pending = String::new();
        let mut first = 0;
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if pending.is_empty() {
                first = i + 1;
            }
            let (part, more) = match line.strip_suffix('\\') {
                Some(p) => (p, true),
                None => (line, false),
            };
            pending.push_str(part);
            pending.push(' ');
            if more {
                continue;
            }
            let whole = pending.trim().to_string();
            pending.clear();
            if !whole.is_empty() {
                self.add_line(&whole, first).map_err(|e| format!("line {first}: {e}"))?;
            }
        }
        let whole = pending.trim();
        if !whole.is_empty() {
            self.add_line(whole, first).map_err(|e| format!("line {first}: {e}"))?;
        }
        Ok(())
    }

    fn add_line(&mut self, line: &str, number: usize) -> Result<(), String> {
        let (keyword, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let rest = rest.trim();
        match keyword {
            "kernel" => {
                if rest.is_empty() || rest.contains(char::is_whitespace) {
                    return Err("expected 'kernel NAME'".into());
                }
                self.kernel = Some(rest.to_string());
            }
            "grid" | "block" => {
                let dims = parse_dims(rest)?;
                let total = dims.iter().map(|&d| d as u64).product::<u64>();
                if total > MAX_LAUNCH {
                    return Err(format!("{keyword} of {total} is larger than the interpreter runs ({MAX_LAUNCH})"));
                }
                if keyword == "grid" {
                    self.grid = Some(dims);
                } else {
                    self.block = Some(dims);
                }
            }
            "param" | "buffer" | "expect" => {
                let (name, value) = rest.split_once('=').ok_or_else(|| format!("expected '{keyword} NAME = ...'"))?;
                let (name, value) = (name.trim(), value.trim());
                if name.is_empty() || value.is_empty() {
                    return Err(format!("expected '{keyword} NAME = ...'"));
                }
                let (name, offset) = match name.split_once('+') {
                    Some((n, off)) if keyword == "expect" => {
                        let off = off.trim();
                        let off = parse_int(off, 64)
                            .ok()
                            .filter(|&o| o <= MAX_GIVEN_BUFFER as u64)
                            .ok_or_else(|| format!("'{off}' is not a byte offset"))?;
                        (n.trim(), off as usize)
                    }
                    _ => (name, 0),
                };
                if name.is_empty() || name.contains(char::is_whitespace) {
                    return Err(format!("'{name}' is not a parameter name or index"));
                }
                let param = parse_ref(name);
                let words: Vec<&str> = value.split_whitespace().collect();
                match keyword {
                    "param" => {
                        if words.len() != 1 {
                            return Err("a parameter takes one value".into());
                        }
                        self.params.push((param, Given::Scalar(value.to_string())));
                    }
                    "buffer" => {
                        let (_, bytes) = parse_contents(&words)?;
                        self.params.push((param, Given::Buffer(bytes)));
                    }
                    _ => {
                        let (element, bytes) = parse_contents(&words)?;
                        self.expects.push(Expect { param, element, offset, bytes, line: number });
                    }
                }
            }
            "shared" => {
                let bytes =
                    parse_int(rest, 32).ok().filter(|&b| b <= crate::memory::MAX_VARIABLE_BYTES).ok_or_else(|| {
                        format!("expected 'shared BYTES' (at most {}), not '{rest}'", crate::memory::MAX_VARIABLE_BYTES)
                    })?;
                self.dynamic_shared = Some(bytes as u32);
            }
            "printed" => {
                if rest.is_empty() {
                    return Err("expected 'printed TEXT'".into());
                }
                self.printed.push((rest.to_string(), number));
            }
            other => {
                return Err(format!(
                    "unknown keyword '{other}' (kernel, grid, block, shared, param, buffer, expect, printed)"
                ))
            }
        }
        Ok(())
    }

    fn find<'s>(specs: &'s [ParamSpec], r: &ParamRef) -> Option<(usize, &'s ParamSpec)> {
        match r {
            ParamRef::Index(i) => specs.get(*i).map(|s| (*i, s)),
            ParamRef::Name(n) => specs.iter().enumerate().find(|(_, s)| &s.name == n),
        }
    }

    /// The kernel arguments for parameters `specs`: pointers get their
    /// buffers at the usual bases, in parameter order; a pointer not given
    /// gets `default_buffer` zero bytes.
    pub fn args(&self, specs: &[ParamSpec], default_buffer: usize) -> Result<KernelArgs, String> {
        if default_buffer > MAX_GIVEN_BUFFER {
            return Err(format!("buffer of {default_buffer} bytes is larger than {MAX_GIVEN_BUFFER}"));
        }
        let mut given: Vec<Option<&Given>> = vec![None; specs.len()];
        for (r, g) in &self.params {
            let (i, _) = Self::find(specs, r).ok_or_else(|| format!("no parameter {}", show_ref(r)))?;
            given[i] = Some(g);
        }
        let mut args = KernelArgs::default();
        for (spec, g) in specs.iter().zip(given) {
            let size = spec.size as usize;
            let zeroed = Given::Buffer(vec![0; default_buffer]);
            let g = match (&spec.kind, g) {
                (&ParamKind::Pointer, None) => Some(&zeroed),
                _ => g,
            };
            let bytes = match (&spec.kind, g) {
                (_, None) => return Err(format!("parameter {} is not given", spec.name)),
                (&ParamKind::Pointer, Some(Given::Buffer(data))) => {
                    let base = buffer_base(args.buffers.len());
                    args.buffers.push(Buffer { name: spec.name.clone(), base, data: data.clone() });
                    base.to_le_bytes().to_vec()
                }
                (&ParamKind::Pointer, Some(Given::Scalar(_))) => {
                    return Err(format!("parameter {} is a pointer: give it a buffer", spec.name))
                }
                (_, Some(Given::Buffer(_))) => {
                    return Err(format!("parameter {} is not a pointer: give it a value", spec.name))
                }
                (&ParamKind::Float { bits }, Some(Given::Scalar(v))) if !is_hex_literal(v) => {
                    let element = if bits == 64 { Element::F64 } else { Element::F32 };
                    if bits == 16 {
                        return Err(format!("parameter {}: give an f16 value as its bits (0x...)", spec.name));
                    }
                    element.encode(v).map_err(|e| format!("parameter {}: {e}", spec.name))?
                }
                (_, Some(Given::Scalar(v))) => {
                    let bits = (8 * size.min(8)) as u32;
                    let mut b = parse_int(v, bits.max(8))
                        .map_err(|e| format!("parameter {}: {e}", spec.name))?
                        .to_le_bytes()
                        .to_vec();
                    b.resize(size, 0);
                    b
                }
            };
            args.params.push(bytes);
        }
        Ok(args)
    }

    /// Differences between the expectations and `out` (empty: all met).
    pub fn check(&self, specs: &[ParamSpec], out: &RunOutput) -> Vec<String> {
        let mut problems = Vec::new();
        for e in &self.expects {
            let Some((_, spec)) = Self::find(specs, &e.param) else {
                problems.push(format!("line {}: no parameter {}", e.line, show_ref(&e.param)));
                continue;
            };
            let Some(buffer) = out.buffers.iter().find(|b| b.name == spec.name) else {
                problems.push(format!("line {}: {} is not a buffer", e.line, spec.name));
                continue;
            };
            let n = e.element.size();
            for (k, want) in e.bytes.chunks(n).enumerate() {
                let at = e.offset + k * n;
                let got = buffer.data.get(at..at + n);
                if got != Some(want) {
                    let got = got.map(|g| e.element.show(g)).unwrap_or_else(|| "past the end".into());
                    problems.push(format!(
                        "line {}: {} byte {at} ({}) is {got}, expected {}",
                        e.line,
                        spec.name,
                        e.element.name(),
                        e.element.show(want)
                    ));
                }
            }
        }
        // The printed lines, in order, among what the run printed.
        let mut lines = out.printed.lines().map(str::trim_end);
        for (want, line) in &self.printed {
            if !lines.any(|l| l == want) {
                problems.push(format!("line {line}: printf did not print '{want}' (after the lines before it)"));
                lines = out.printed.lines().map(str::trim_end);
                lines.by_ref().for_each(drop);
            }
        }
        problems
    }

    /// How many checks [`GivenInputs::check`] makes.
    pub fn expectation_count(&self) -> usize {
        self.expects.len() + self.printed.len()
    }
}

fn show_ref(r: &ParamRef) -> String {
    match r {
        ParamRef::Name(n) => n.clone(),
        ParamRef::Index(i) => format!("#{i}"),
    }
}
