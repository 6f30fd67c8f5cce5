//! Constant expressions (ISA 4.5.4 to 4.5.6), evaluated as ptxas evaluates
//! them: `1 << 2`, `~0`, `-(-42)`, `(1.0 + 2.0)`, `(.u64)-1`, `a ? b : c`.
//!
//! Why here: ptxas folds them while it reads, so an operand, an address
//! offset or an initializer written as an expression is, to every later
//! stage, the value. The IR keeps the value with the expression's spelling
//! (printed as written), so nothing downstream knows expressions exist.
//!
//! Integers are 64 bits, signed unless a `U` suffix or a value above
//! `i64::MAX` makes a literal unsigned; the operators convert and type as
//! Table 5 of the ISA says. Where ptxas rejects an expression (division by
//! zero, integer and floating-point operands mixed, an integer operator on
//! a floating-point value, a `0f`/`0d` literal under a binary operator) so
//! does this, with ptxas's reason; where ptxas crashes (`i64::MIN / -1`),
//! this rejects. Both sides of `&&`, `||` and `?:` are evaluated, so an
//! error in a side C would skip still rejects: never a wrong value.

use crate::Rule;
use pest::iterators::Pair;
use ptx_ir::{Diagnostic, Span};

/// The value of a constant expression.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Value {
    /// A 64-bit integer and whether it is `.u64` (else `.s64`).
    Int { bits: u64, unsigned: bool },
    /// A decimal floating-point value (`.f64`).
    Float(f64),
    /// A `0f`/`0d` literal, possibly negated or parenthesized: the bits as
    /// written (f32 bits for `0f`), which ptxas takes nowhere else in an
    /// expression.
    HexFloat { bits: u64, single: bool },
}

impl Value {
    fn int(bits: u64, unsigned: bool) -> Value {
        Value::Int { bits, unsigned }
    }

    fn truth(b: bool) -> Value {
        Value::int(u64::from(b), false)
    }
}

/// Evaluates a `const_expr`, `cx_cond`, `cx_unary` or `cx_product` pair;
/// spans are offsets from `base`.
pub(crate) fn evaluate(pair: Pair<'_, Rule>, base: usize) -> Result<Value, Diagnostic> {
    let span = Span::new(base + pair.as_span().start(), base + pair.as_span().end());
    Evaluator { span }.value(pair)
}

struct Evaluator {
    /// The whole expression's span: errors point at it.
    span: Span,
}

/// Binary operators from the lowest precedence to the highest.
const LEVELS: &[&[&str]] = &[
    &["||"],
    &["&&"],
    &["|"],
    &["^"],
    &["&"],
    &["==", "!="],
    &["<", ">", "<=", ">="],
    &["<<", ">>"],
    &["+", "-"],
    &["*", "/", "%"],
];

fn precedence(op: &str) -> usize {
    LEVELS.iter().position(|level| level.contains(&op)).unwrap_or(0)
}

impl Evaluator {
    fn error(&self, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(self.span, message)
    }

    fn value(&self, pair: Pair<'_, Rule>) -> Result<Value, Diagnostic> {
        match pair.as_rule() {
            Rule::const_expr => self.value(pair.into_inner().next().ok_or_else(|| self.error("empty expression"))?),
            Rule::cx_cond => self.conditional(pair),
            Rule::cx_binary | Rule::cx_product => {
                let mut operands = Vec::new();
                let mut operators = Vec::new();
                for part in pair.into_inner() {
                    match part.as_rule() {
                        Rule::cx_operator | Rule::cx_product_operator => operators.push(part.as_str().trim()),
                        _ => operands.push(self.value(part)?),
                    }
                }
                let mut next = 0;
                self.climb(&operands, &operators, &mut next, 0)
            }
            Rule::cx_unary => self.unary(pair),
            Rule::int_lit => {
                let text = pair.as_str();
                let bits = super::parse_int(text)
                    .ok_or_else(|| self.error(format!("integer literal '{text}' does not fit in 64 bits")))?;
                Ok(Value::int(bits, text.ends_with('U') || bits > i64::MAX as u64))
            }
            Rule::float_dec => {
                let text = pair.as_str();
                text.parse::<f64>()
                    .map(Value::Float)
                    .map_err(|_| self.error(format!("bad floating-point literal '{text}'")))
            }
            Rule::float_hex => {
                let text = pair.as_str();
                let bits = u64::from_str_radix(&text[2..], 16)
                    .map_err(|_| self.error(format!("bad floating-point literal '{text}'")))?;
                Ok(Value::HexFloat { bits, single: matches!(&text[1..2], "f" | "F") })
            }
            other => Err(self.error(format!("unexpected {other:?} in a constant expression"))),
        }
    }

    /// `c ? a : b`.
    fn conditional(&self, pair: Pair<'_, Rule>) -> Result<Value, Diagnostic> {
        let mut parts = pair.into_inner();
        let condition = self.value(parts.next().ok_or_else(|| self.error("empty expression"))?)?;
        let (Some(then), Some(otherwise)) = (parts.next(), parts.next()) else { return Ok(condition) };
        let Value::Int { bits, .. } = condition else {
            return Err(
                self.error("the condition of '?:' must be an integer (ptxas: Integer constant expression expected)")
            );
        };
        match (self.value(then)?, self.value(otherwise)?) {
            (Value::Int { bits: a, unsigned: p }, Value::Int { bits: b, unsigned: q }) => {
                Ok(Value::int(if bits != 0 { a } else { b }, p || q))
            }
            // The ISA's Table 5 allows `int ? .f64 : .f64`; ptxas 13.5 does not.
            (Value::Float(_), Value::Float(_)) => Err(self.error(
                "ptxas takes no floating-point values in the branches of '?:' (Integer constant expression expected)",
            )),
            (Value::HexFloat { .. }, _) | (_, Value::HexFloat { .. }) => Err(self.hex_float_under("?:")),
            _ => Err(self.mixed()),
        }
    }

    /// Precedence climbing over `operands[0] op[0] operands[1] ...`.
    fn climb(&self, operands: &[Value], operators: &[&str], next: &mut usize, min: usize) -> Result<Value, Diagnostic> {
        let mut lhs = operands[*next];
        while let Some(&op) = operators.get(*next) {
            let level = precedence(op);
            if level < min {
                break;
            }
            *next += 1;
            // Left-associative: the right side takes only tighter operators.
            let rhs = self.climb(operands, operators, next, level + 1)?;
            lhs = self.binary(op, lhs, rhs)?;
        }
        Ok(lhs)
    }

    fn unary(&self, pair: Pair<'_, Rule>) -> Result<Value, Diagnostic> {
        let mut prefixes = Vec::new();
        let mut value = None;
        for part in pair.into_inner() {
            match part.as_rule() {
                Rule::cx_prefix => prefixes.push(part),
                _ => value = Some(self.value(part)?),
            }
        }
        let mut value = value.ok_or_else(|| self.error("expected a value in the constant expression"))?;
        // The prefix nearest the value applies first.
        for prefix in prefixes.into_iter().rev() {
            let cast = prefix.clone().into_inner().next().map(|c| c.as_str() == ".u64");
            value = match (cast, prefix.as_str(), value) {
                (_, "+", v) => v,
                (_, "-", Value::Int { bits, unsigned }) => Value::int(bits.wrapping_neg(), unsigned),
                (_, "-", Value::Float(f)) => Value::Float(-f),
                (_, "-", Value::HexFloat { bits, single }) => {
                    Value::HexFloat { bits: bits ^ if single { 1 << 31 } else { 1 << 63 }, single }
                }
                (_, "!", Value::Int { bits, .. }) => Value::truth(bits == 0),
                (_, "~", Value::Int { bits, .. }) => Value::int(!bits, true),
                (Some(unsigned), _, Value::Int { bits, .. }) => Value::int(bits, unsigned),
                (Some(_), _, _) => {
                    return Err(self.error(
                        "a cast in a constant expression takes an integer (casts between integer and floating-point are not supported)",
                    ))
                }
                (_, op, Value::HexFloat { .. }) => return Err(self.hex_float_under(op)),
                (_, op, _) => return Err(self.needs_integer(op)),
            };
        }
        Ok(value)
    }

    fn binary(&self, op: &str, lhs: Value, rhs: Value) -> Result<Value, Diagnostic> {
        match (lhs, rhs) {
            (Value::Int { bits: a, unsigned: p }, Value::Int { bits: b, unsigned: q }) => self.integer(op, a, p, b, q),
            (Value::Float(a), Value::Float(b)) => self.float(op, a, b),
            (Value::HexFloat { .. }, _) | (_, Value::HexFloat { .. }) => Err(self.hex_float_under(op)),
            _ => Err(self.mixed()),
        }
    }

    fn integer(&self, op: &str, a: u64, p: bool, b: u64, q: bool) -> Result<Value, Diagnostic> {
        // The usual arithmetic conversions: unsigned if either is.
        let unsigned = p || q;
        let (sa, sb) = (a as i64, b as i64);
        Ok(match op {
            "+" => Value::int(a.wrapping_add(b), unsigned),
            "-" => Value::int(a.wrapping_sub(b), unsigned),
            "*" => Value::int(a.wrapping_mul(b), unsigned),
            "/" if b == 0 => return Err(self.division_by_zero()),
            "/" if unsigned => Value::int(a / b, true),
            "/" => match sa.checked_div(sb) {
                Some(v) => Value::int(v as u64, false),
                None => return Err(self.error("constant expression overflows: the smallest .s64 divided by -1")),
            },
            "%" if b == 0 => return Err(self.division_by_zero()),
            "%" => Value::int(a % b, false),
            // The result has the first operand's type; the count is unsigned
            // and, in ptxas 13.5, taken modulo 64 (`1 << 64` is 1, `1 << 100`
            // is 2^36: measured in its output).
            "<<" => Value::int(a << (b & 63), p),
            ">>" if p => Value::int(a >> (b & 63), true),
            ">>" => Value::int((sa >> (b & 63)) as u64, false),
            "<" | ">" | "<=" | ">=" => {
                let order = if unsigned { a.cmp(&b) } else { sa.cmp(&sb) };
                Value::truth(match op {
                    "<" => order.is_lt(),
                    ">" => order.is_gt(),
                    "<=" => order.is_le(),
                    _ => order.is_ge(),
                })
            }
            "==" => Value::truth(a == b),
            "!=" => Value::truth(a != b),
            "&" => Value::int(a & b, true),
            "|" => Value::int(a | b, true),
            "^" => Value::int(a ^ b, true),
            "&&" => Value::truth(a != 0 && b != 0),
            "||" => Value::truth(a != 0 || b != 0),
            _ => return Err(self.error(format!("unknown operator '{op}' in a constant expression"))),
        })
    }

    fn float(&self, op: &str, a: f64, b: f64) -> Result<Value, Diagnostic> {
        Ok(match op {
            "+" => Value::Float(a + b),
            "-" => Value::Float(a - b),
            "*" => Value::Float(a * b),
            "/" if b == 0.0 => return Err(self.division_by_zero()),
            "/" => Value::Float(a / b),
            "<" => Value::truth(a < b),
            ">" => Value::truth(a > b),
            "<=" => Value::truth(a <= b),
            ">=" => Value::truth(a >= b),
            "==" => Value::truth(a == b),
            "!=" => Value::truth(a != b),
            _ => return Err(self.needs_integer(op)),
        })
    }

    fn division_by_zero(&self) -> Diagnostic {
        self.error("constant expression has division by zero")
    }

    fn mixed(&self) -> Diagnostic {
        self.error(
            "constant expression mixes integer and floating-point operands (ptxas: Constant expression type mismatch)",
        )
    }

    fn needs_integer(&self, op: &str) -> Diagnostic {
        self.error(format!(
            "'{op}' in a constant expression takes integers (ptxas: Integer constant expression expected)"
        ))
    }

    fn hex_float_under(&self, op: &str) -> Diagnostic {
        self.error(format!(
            "a 0f/0d literal cannot be an operand of '{op}' in a constant expression (ptxas: syntax error)"
        ))
    }
}
