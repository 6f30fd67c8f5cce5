//! Variable initializers (PTX ISA 5.4.4), as typed data: what stands after
//! `=` in `.global .u32 x[3] = {1, 2, 3}`.
//!
//! The ISA's forms: integer and floating-point literals, brace lists nested
//! as the declaration's dimensions (a vector's elements innermost), the
//! address of a variable or function (`foo`, `foo+8`), `generic(foo)`, the
//! `mask()` operator (`0xFF00(foo)`, `0xFF(generic(foo)+4)`, `0xFF(1000+546)`),
//! integer constant expressions with `+` and `-`; and the `name = value`
//! fields of a `.samplerref`/`.texref` initializer (`{filter_mode = nearest}`).
//!
//! Literals keep their spelling where the value alone would print otherwise
//! (`0xFF00U`, `-1`, `0.5`), and an initializer keeps where its source had
//! whitespace between tokens when that differs from the canonical spacing
//! (a space after each `,` and around `=`), so the canonical printer writes
//! it as written, whitespace runs and comments collapsed to one space.

use std::fmt;

/// An initializer: its value and how it was spaced in the source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Initializer {
    value: InitValue,
    /// The tokens (numbered in printing order) the source spaced before,
    /// when that differs from the canonical spacing; None: canonical.
    spaced: Option<Box<[u32]>>,
}

/// The value of an initializer, or of one element of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InitValue {
    /// An integer literal (`42`, `-1`, `0xFF00U`).
    Int(IntLit),
    /// A floating-point literal (`0f3F800000`, `0d3FF0000000000000`, `0.5`).
    Float(FloatLit),
    /// The address of a variable (its offset in the variable's state space)
    /// or of a function (`foo`).
    Symbol(String),
    /// `generic(foo)`: the generic address of a variable.
    Generic(String),
    /// `0xFF00(value)`, the `mask()` operator (PTX 7.1): the bits of the
    /// value (an address or an integer constant expression) that the mask
    /// selects, moved down to bit 0.
    Mask(Box<(IntLit, InitValue)>),
    /// `name = value`: a field of a `.samplerref`/`.texref` initializer
    /// (`filter_mode = nearest`, `addr_mode_0 = 1`).
    Member(Box<(String, InitValue)>),
    /// `lhs + rhs` (`foo+8`, `generic(foo)+8`, `1000+546`). The parser
    /// builds sums left to right: the right operand is never a sum.
    Add(Box<(InitValue, InitValue)>),
    /// `lhs - rhs`, built like [`InitValue::Add`].
    Sub(Box<(InitValue, InitValue)>),
    /// `{a, b, ...}`: the elements of an array or vector, nested as the
    /// dimensions are; may be shorter than the array (the rest is zero).
    List(Vec<InitValue>),
}

/// An integer literal of an initializer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IntLit {
    /// The value as a 64-bit two's complement pattern (`-1` is all ones).
    pub bits: u64,
    /// The spelling, sign included, when it is not the decimal of `bits`
    /// (`-1`, `0xFF`, `0777`, `0b101`, `7U`); None prints the decimal.
    pub text: Option<Box<str>>,
}

/// A floating-point literal of an initializer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FloatLit {
    /// Bits of the value: f32 bits for `0f`, f64 bits otherwise.
    pub bits: u64,
    /// True for a `0f` single-precision literal.
    pub single: bool,
    /// The spelling, when it is not `0f`/`0d` and the upper-case hex digits
    /// of `bits` (a decimal literal, lower-case digits); None prints those.
    pub text: Option<Box<str>>,
}

impl IntLit {
    /// A literal of value `bits`, printed in decimal.
    pub fn new(bits: u64) -> IntLit {
        IntLit { bits, text: None }
    }

    fn for_each_token(&self, f: &mut dyn FnMut(&str)) {
        match &self.text {
            Some(t) => f(t),
            None => f(decimal(self.bits, &mut [0; 20])),
        }
    }
}

impl FloatLit {
    /// A literal of `bits` (f32 bits if `single`), printed as `0f`/`0d` hex.
    pub fn new(bits: u64, single: bool) -> FloatLit {
        FloatLit { bits, single, text: None }
    }

    /// True if it was written in decimal (`0.5`, `1e-3`), not in hex.
    pub fn is_decimal(&self) -> bool {
        self.text.as_deref().is_some_and(|t| !matches!(t.as_bytes().get(1), Some(b'f' | b'F' | b'd' | b'D')))
    }
}

impl Initializer {
    /// An initializer printed with the canonical spacing.
    pub fn new(value: InitValue) -> Initializer {
        Initializer { value, spaced: None }
    }

    /// The initializer `value`, spaced as `text`: its tokens in order, with
    /// one space wherever the source had whitespace or a comment between two
    /// of them (the parser's normalized initializer text). If `text` is not
    /// made of the value's tokens, the spacing is the canonical one.
    pub fn spaced_as(value: InitValue, text: &str) -> Initializer {
        let mut spaced = Vec::new();
        let mut canonical = true;
        let mut matches = true;
        let mut pos = 0;
        let mut index = 0u32;
        let mut after_separator = false;
        value.for_each_token(&mut |token| {
            if !matches {
                return;
            }
            let space = text[pos..].starts_with(' ');
            if space {
                spaced.push(index);
                pos += 1;
            }
            canonical &= space == canonical_space(after_separator, token);
            after_separator = is_separator(token);
            match text[pos..].strip_prefix(token) {
                Some(_) => pos += token.len(),
                None => matches = false,
            }
            index += 1;
        });
        if !matches || pos != text.len() {
            debug_assert!(false, "initializer text {text:?} is not made of the tokens of {value:?}");
            return Initializer::new(value);
        }
        let spaced = (!canonical).then(|| spaced.into_boxed_slice());
        Initializer { value, spaced }
    }

    /// The value.
    pub fn value(&self) -> &InitValue {
        &self.value
    }

    /// The value, without the spacing.
    pub fn into_value(self) -> InitValue {
        self.value
    }
}

/// `bits` in decimal, written at the end of `buf` (no allocation: large
/// initializers have an element per byte of data).
pub(crate) fn decimal(mut bits: u64, buf: &mut [u8; 20]) -> &str {
    let mut start = buf.len();
    loop {
        start -= 1;
        buf[start] = b'0' + (bits % 10) as u8;
        bits /= 10;
        if bits == 0 {
            break;
        }
    }
    std::str::from_utf8(&buf[start..]).unwrap_or_default()
}

/// `0f` and 8 upper-case hex digits of the low 32 bits (`single`), or `0d`
/// and 16 of all 64, written into `buf`.
pub(crate) fn hex_float(bits: u64, single: bool, buf: &mut [u8; 18]) -> &str {
    let digits = if single { 8 } else { 16 };
    buf[0] = b'0';
    buf[1] = if single { b'f' } else { b'd' };
    for i in 0..digits {
        let nibble = (bits >> (4 * (digits - 1 - i))) & 0xf;
        buf[2 + i] = b"0123456789ABCDEF"[nibble as usize];
    }
    std::str::from_utf8(&buf[..2 + digits]).unwrap_or_default()
}

/// True for the tokens after which the canonical spacing puts a space.
fn is_separator(token: &str) -> bool {
    token == "," || token == "="
}

/// Whether the canonical spacing puts a space before `token`.
fn canonical_space(after_separator: bool, token: &str) -> bool {
    after_separator || token == "="
}

impl InitValue {
    /// Calls `f` with each token of the value as printed, in order.
    pub fn for_each_token(&self, f: &mut dyn FnMut(&str)) {
        match self {
            InitValue::Int(i) => i.for_each_token(f),
            InitValue::Float(x) => match &x.text {
                Some(t) => f(t),
                None => f(hex_float(x.bits, x.single, &mut [0; 18])),
            },
            InitValue::Symbol(name) => f(name),
            InitValue::Generic(name) => {
                f("generic");
                f("(");
                f(name);
                f(")");
            }
            InitValue::Mask(m) => {
                m.0.for_each_token(f);
                f("(");
                m.1.for_each_token(f);
                f(")");
            }
            InitValue::Member(m) => {
                f(&m.0);
                f("=");
                m.1.for_each_token(f);
            }
            InitValue::Add(e) | InitValue::Sub(e) => {
                e.0.for_each_token(f);
                f(if matches!(self, InitValue::Add(_)) { "+" } else { "-" });
                e.1.for_each_token(f);
            }
            InitValue::List(items) => {
                f("{");
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f(",");
                    }
                    item.for_each_token(f);
                }
                f("}");
            }
        }
    }

    /// Appends the value with the canonical spacing, or with the tokens
    /// numbered in `spaced` preceded by a space.
    fn write(&self, spaced: Option<&[u32]>, out: &mut String) {
        let mut index = 0u32;
        let mut after_separator = false;
        let mut spaced = spaced.map(|s| s.iter().peekable());
        self.for_each_token(&mut |token| {
            let space = match spaced.as_mut() {
                Some(s) => s.next_if_eq(&&index).is_some(),
                None => canonical_space(after_separator, token),
            };
            if space && index > 0 {
                out.push(' ');
            }
            out.push_str(token);
            after_separator = is_separator(token);
            index += 1;
        });
    }
}

impl fmt::Display for InitValue {
    /// The value with the canonical spacing.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        self.write(None, &mut out);
        f.write_str(&out)
    }
}

impl fmt::Display for Initializer {
    /// The initializer as the source spaced it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        self.write_to(&mut out);
        f.write_str(&out)
    }
}

impl Initializer {
    /// Appends the initializer as the source spaced it.
    pub fn write_to(&self, out: &mut String) {
        self.value.write(self.spaced.as_deref(), out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(bits: u64) -> InitValue {
        InitValue::Int(IntLit::new(bits))
    }

    #[test]
    fn canonical_spacing() {
        let value = InitValue::List(vec![
            InitValue::List(vec![int(1), int(2)]),
            InitValue::Add(Box::new((InitValue::Generic("g".into()), int(8)))),
            InitValue::Mask(Box::new((
                IntLit { bits: 0xff00, text: Some("0xFF00".into()) },
                InitValue::Sub(Box::new((InitValue::Symbol("s".into()), int(4)))),
            ))),
            InitValue::Member(Box::new(("filter_mode".into(), InitValue::Symbol("nearest".into())))),
            InitValue::Float(FloatLit::new(0x3f80_0000, true)),
            InitValue::Float(FloatLit::new(1.0f64.to_bits(), false)),
            InitValue::List(Vec::new()),
        ]);
        let text = "{{1, 2}, generic(g)+8, 0xFF00(s-4), filter_mode = nearest, 0f3F800000, 0d3FF0000000000000, {}}";
        assert_eq!(value.to_string(), text);
        let init = Initializer::spaced_as(value.clone(), text);
        assert_eq!(init, Initializer::new(value), "canonical text keeps no spacing");
        assert_eq!(init.to_string(), text);
    }

    #[test]
    fn source_spacing_is_kept() {
        let value = InitValue::List(vec![
            InitValue::Int(IntLit { bits: u64::MAX, text: Some("- 1".into()) }),
            InitValue::Add(Box::new((InitValue::Generic("g".into()), int(8)))),
            InitValue::Member(Box::new(("a".into(), int(1)))),
        ]);
        for text in ["{ - 1 ,generic ( g ) + 8,a=1 }", "{- 1,generic(g)+8,a = 1}", "{ - 1, generic(g)+8, a = 1 }"] {
            let init = Initializer::spaced_as(value.clone(), text);
            assert_eq!(init.to_string(), text);
            assert_eq!(init.value(), &value);
        }
    }

    #[test]
    fn literal_text_without_allocation() {
        for bits in [0, 1, 9, 10, 42, 1_000_000, u64::MAX] {
            assert_eq!(decimal(bits, &mut [0; 20]), bits.to_string());
        }
        assert_eq!(hex_float(0x3f80_0000, true, &mut [0; 18]), "0f3F800000");
        assert_eq!(hex_float(0x4005_bf0a_8b14_5769, false, &mut [0; 18]), "0d4005BF0A8B145769");
    }

    #[test]
    fn decimal_floats() {
        let decimal = FloatLit { bits: 0.5f64.to_bits(), single: false, text: Some("0.5".into()) };
        let hex = FloatLit { bits: 0x3f80_0000, single: true, text: Some("0f3f800000".into()) };
        assert!(decimal.is_decimal());
        assert!(!hex.is_decimal());
        assert!(!FloatLit::new(0, false).is_decimal());
    }
}
