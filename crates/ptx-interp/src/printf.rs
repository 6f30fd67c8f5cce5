//! The device `printf` (`vprintf(format, args)` in PTX): the format string
//! is C's, and the arguments are packed in a buffer, each aligned to its own
//! size (CUDA's layout: integers of 4 or 8 bytes, `float` promoted to
//! `double`, pointers and `%s` strings as 8-byte generic addresses).
//!
//! Formatting follows C for the conversions device code uses (`d i u x X o
//! c s p f F e E g G %`, flags `-+ #0`, width and precision, `*` not
//! supported: it is an error, as an unknown conversion is). What matters for
//! the interpreter is that the text is deterministic and that two kernels
//! that print the same values print the same text.

/// Formats `format` with the arguments `arg(offset, len)` reads from the
/// argument buffer, and `string(address)` reads a `%s` string. Returns the
/// text and how many arguments were consumed, or why it cannot.
pub fn format(
    format: &[u8],
    mut arg: impl FnMut(u64, u64) -> Result<u64, String>,
    mut string: impl FnMut(u64) -> Result<Vec<u8>, String>,
) -> Result<(String, u32), String> {
    let mut out = String::new();
    let mut offset = 0u64;
    let mut count = 0u32;
    let mut next = |len: u64, arg: &mut dyn FnMut(u64, u64) -> Result<u64, String>| -> Result<u64, String> {
        offset = offset.div_ceil(len) * len;
        let v = arg(offset, len)?;
        offset += len;
        count += 1;
        Ok(v)
    };
    let mut i = 0;
    while i < format.len() {
        let c = format[i];
        i += 1;
        if c != b'%' {
            out.push(char::from(c));
            continue;
        }
        let mut spec = Spec::default();
        while let Some(&f) = format.get(i).filter(|f| b"-+ #0".contains(f)) {
            match f {
                b'-' => spec.left = true,
                b'+' => spec.plus = true,
                b' ' => spec.space = true,
                b'#' => spec.alt = true,
                _ => spec.zero = true,
            }
            i += 1;
        }
        while let Some(d) = format.get(i).filter(|d| d.is_ascii_digit()) {
            spec.width = spec.width * 10 + usize::from(d - b'0');
            i += 1;
        }
        if format.get(i) == Some(&b'.') {
            i += 1;
            let mut p = 0;
            while let Some(d) = format.get(i).filter(|d| d.is_ascii_digit()) {
                p = p * 10 + usize::from(d - b'0');
                i += 1;
            }
            spec.precision = Some(p);
        }
        let mut long = false;
        while let Some(&l) = format.get(i).filter(|l| b"hlLqjzt".contains(l)) {
            long |= matches!(l, b'l' | b'L' | b'q' | b'j' | b'z' | b't');
            i += 1;
        }
        let Some(&conv) = format.get(i) else { return Err("format ends inside a conversion".into()) };
        i += 1;
        let int_len = if long { 8 } else { 4 };
        let text = match conv {
            b'%' => "%".to_string(),
            b'd' | b'i' => {
                let v = next(int_len, &mut arg)?;
                let v = if long { v as i64 } else { i64::from(v as u32 as i32) };
                spec.signed(v.unsigned_abs().to_string(), v < 0)
            }
            b'u' | b'x' | b'X' | b'o' => {
                let v = next(int_len, &mut arg)?;
                let digits = match conv {
                    b'u' => v.to_string(),
                    b'x' => format!("{v:x}"),
                    b'X' => format!("{v:X}"),
                    _ => format!("{v:o}"),
                };
                let prefix = match conv {
                    b'x' if spec.alt && v != 0 => "0x",
                    b'X' if spec.alt && v != 0 => "0X",
                    b'o' if spec.alt => "0",
                    _ => "",
                };
                spec.unsigned(digits, prefix)
            }
            b'c' => spec.pad(char::from(next(int_len, &mut arg)? as u8).to_string(), false),
            b'p' => {
                let v = next(8, &mut arg)?;
                spec.pad(format!("0x{v:x}"), false)
            }
            b's' => {
                let address = next(8, &mut arg)?;
                let bytes = if address == 0 { b"(null)".to_vec() } else { string(address)? };
                let mut text: String = bytes.iter().map(|&b| char::from(b)).collect();
                if let Some(p) = spec.precision {
                    text = text.chars().take(p).collect();
                }
                spec.pad(text, false)
            }
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => {
                let v = f64::from_bits(next(8, &mut arg)?);
                spec.float(v, conv)
            }
            other => return Err(format!("printf conversion '%{}' is not modelled", char::from(other))),
        };
        out.push_str(&text);
    }
    Ok((out, count))
}

#[derive(Default)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    precision: Option<usize>,
}

impl Spec {
    /// `text` padded to the width (zeros after a sign or prefix of `lead`
    /// bytes when `.zero` applies).
    fn pad_after(&self, text: String, zero: bool, lead: usize) -> String {
        let len = text.chars().count();
        if len >= self.width {
            return text;
        }
        let fill = self.width - len;
        if self.left {
            format!("{text}{}", " ".repeat(fill))
        } else if zero && self.zero {
            format!("{}{}{}", &text[..lead], "0".repeat(fill), &text[lead..])
        } else {
            format!("{}{text}", " ".repeat(fill))
        }
    }

    fn pad(&self, text: String, zero: bool) -> String {
        self.pad_after(text, zero, 0)
    }

    /// An integer's digits with the precision's minimum digits.
    fn digits(&self, digits: String) -> String {
        match self.precision {
            Some(0) if digits == "0" => String::new(),
            Some(p) if digits.len() < p => format!("{}{digits}", "0".repeat(p - digits.len())),
            _ => digits,
        }
    }

    fn sign(&self, negative: bool) -> &'static str {
        match (negative, self.plus, self.space) {
            (true, _, _) => "-",
            (false, true, _) => "+",
            (false, false, true) => " ",
            _ => "",
        }
    }

    fn signed(&self, magnitude: String, negative: bool) -> String {
        let sign = self.sign(negative);
        let text = format!("{sign}{}", self.digits(magnitude));
        self.pad_after(text, self.precision.is_none(), sign.len())
    }

    fn unsigned(&self, digits: String, prefix: &str) -> String {
        let text = format!("{prefix}{}", self.digits(digits));
        self.pad_after(text, self.precision.is_none(), prefix.len())
    }

    fn float(&self, v: f64, conv: u8) -> String {
        let upper = conv.is_ascii_uppercase();
        let sign = self.sign(v.is_sign_negative() && !v.is_nan());
        let body = if v.is_nan() {
            "nan".to_string()
        } else if v.is_infinite() {
            "inf".to_string()
        } else {
            let v = v.abs();
            let p = self.precision.unwrap_or(6);
            match conv.to_ascii_lowercase() {
                b'f' => format!("{v:.p$}"),
                b'e' => exponent_form(v, p),
                b'a' => format!("{v:e}"),
                _ => {
                    // %g: %e or %f by the exponent, trailing zeros removed.
                    let p = p.max(1);
                    let exponent = if v == 0.0 {
                        0
                    } else {
                        exponent_form(v, p - 1).split('e').nth(1).map_or(0, |e| e.parse::<i32>().unwrap_or(0))
                    };
                    let text = if exponent < -4 || exponent >= p as i32 {
                        exponent_form(v, p - 1)
                    } else {
                        format!("{v:.*}", (p as i32 - 1 - exponent).max(0) as usize)
                    };
                    if self.alt {
                        text
                    } else {
                        strip_zeros(&text)
                    }
                }
            }
        };
        let body = if upper { body.to_uppercase() } else { body };
        let finite = v.is_finite();
        self.pad_after(format!("{sign}{body}"), finite, sign.len())
    }
}

/// `d.ddde±XX` with `p` digits after the point, as C writes it.
fn exponent_form(v: f64, p: usize) -> String {
    let text = format!("{v:.p$e}");
    let (mantissa, exponent) = text.split_once('e').expect("Rust's {:e} has an exponent");
    let exponent: i32 = exponent.parse().expect("a number");
    let sign = if exponent < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exponent.abs())
}

/// Trailing zeros of the fraction (and a bare point) removed, exponent kept.
fn strip_zeros(text: &str) -> String {
    let (number, exponent) = match text.split_once('e') {
        Some((n, e)) => (n, format!("e{e}")),
        None => (text, String::new()),
    };
    let number = if number.contains('.') { number.trim_end_matches('0').trim_end_matches('.') } else { number };
    format!("{number}{exponent}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Arguments packed as CUDA packs them, each aligned to its size.
    fn packed(args: &[(u64, u64)]) -> Vec<u8> {
        let mut buf = Vec::new();
        for &(len, v) in args {
            while !(buf.len() as u64).is_multiple_of(len) {
                buf.push(0xee);
            }
            buf.extend_from_slice(&v.to_le_bytes()[..len as usize]);
        }
        buf
    }

    fn run(fmt: &str, args: &[(u64, u64)]) -> String {
        let buf = packed(args);
        let read = |offset: u64, len: u64| {
            let bytes = buf.get(offset as usize..(offset + len) as usize).ok_or("past the arguments")?;
            let mut b = [0u8; 8];
            b[..len as usize].copy_from_slice(bytes);
            Ok(u64::from_le_bytes(b))
        };
        format(fmt.as_bytes(), read, |_| Ok(b"str".to_vec())).expect("formats").0
    }

    #[test]
    fn integers_floats_and_strings_as_c_prints_them() {
        let minus_seven = u64::from((-7i32) as u32);
        assert_eq!(
            run("tid %d of %u: %5d|%-4d|%04d\n", &[(4, 3), (4, 32), (4, minus_seven), (4, 12), (4, minus_seven)]),
            "tid 3 of 32:    -7|12  |-007\n"
        );
        assert_eq!(
            run("%x %#X %o %lld %c", &[(4, 255), (4, 255), (4, 8), (8, (-5i64) as u64), (4, 65)]),
            "ff 0XFF 10 -5 A"
        );
        assert_eq!(
            run(
                "%f %.2f %e %g %g %g",
                &[
                    (8, 1.5f64.to_bits()),
                    (8, 2.005f64.to_bits()),
                    (8, 12345.678f64.to_bits()),
                    (8, 0.0001f64.to_bits()),
                    (8, 1e20f64.to_bits()),
                    (8, 100.0f64.to_bits())
                ]
            ),
            "1.500000 2.00 1.234568e+04 0.0001 1e+20 100"
        );
        // A double after an int is aligned to 8: the 4 bytes between are skipped.
        assert_eq!(run("%d %f %s %%", &[(4, 1), (8, 0.5f64.to_bits()), (8, 0x10)]), "1 0.500000 str %");
    }

    #[test]
    fn what_is_not_modelled_is_an_error() {
        assert!(format(b"%*d", |_, _| Ok(0), |_| Ok(Vec::new())).is_err());
        assert!(format(b"%", |_, _| Ok(0), |_| Ok(Vec::new())).is_err());
        assert!(format(b"%d", |_, _| Err("no arguments".into()), |_| Ok(Vec::new())).is_err());
    }
}
