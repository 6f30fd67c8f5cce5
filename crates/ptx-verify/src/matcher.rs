//! Matching an instruction against the forms of the description
//! (`ptx_isa`): its modifiers against a form's slots, its operands against
//! the form's operand list.
//!
//! ptxas reads an instruction's modifiers as a set, in any order
//! (`add.s32.sat`, `ld.global.v4.nc.f32`, `cvt.f32.rn.s32` are accepted),
//! a word written twice as once (`add.sat.sat.s32`), and ignores some words
//! it knows from other instructions (`or.infinite.b32`: the opcode's
//! `ignored` words of the description). Only the instruction types keep
//! their order (`cvt.f32.s32` is not `cvt.s32.f32`). So a form matches when
//! each word can be given a slot that takes it, every required slot is
//! filled, the slots of a `{.sem.scope}` group are all filled or all empty,
//! and the types fill type slots in the form's order.

use ptx_ir::{Function, Inst, Modifier, Operand};
use ptx_isa::model::{Form, Isa, OpcodeInfo, OperandKind, OperandSpec, Presence, SpaceRule, TypeRule, WordId};
use smallvec::SmallVec;

pub(crate) use ptx_ir::forms::{fill, Filled, Words};

/// What reading the modifiers found wrong.
pub(crate) enum WordProblem {
    /// A word the description does not have at all (ptxas: "Unknown modifier").
    Unknown(String),
    /// A word no form of the opcode takes (ptxas: "Illegal modifier").
    NotOfOpcode(String),
}

/// The text of a modifier, without its dot.
pub(crate) fn modifier_text(func: &Function, m: &Modifier) -> String {
    let mut s = String::new();
    ptx_ir::print::write_modifier(func, m, &mut s);
    s.remove(0);
    s
}

/// True if `isa` is the generated description, whose opcode and word
/// indices are the IR's (`Opcode::index`, `Word::index`): then nothing is
/// looked up by text.
fn is_generated(isa: &Isa) -> bool {
    std::ptr::eq(isa, &ptx_isa::ISA)
}

/// The opcode of `inst` in `isa`, with its index.
pub(crate) fn opcode_of<'a>(isa: &'a Isa, func: &Function, inst: &Inst) -> Option<(u16, &'a OpcodeInfo)> {
    match inst.opcode.index() {
        Some(i) if is_generated(isa) => Some((i as u16, &isa.opcodes[i])),
        _ => isa.opcode(ptx_ir::print::opcode_text(func, inst.opcode)),
    }
}

/// The word of `isa` modifier `m` is, or its text if it is none.
pub(crate) fn word_of(isa: &Isa, func: &Function, m: &Modifier) -> Result<WordId, String> {
    if is_generated(isa) {
        return m.word().map(|w| w.index()).ok_or_else(|| modifier_text(func, m));
    }
    let text = modifier_text(func, m);
    isa.word_id(&text).ok_or(text)
}

/// True if word `id` of `isa` is a type (`.u32`, `.e4m3x2`).
fn is_type_word(isa: &Isa, id: WordId) -> bool {
    if !is_generated(isa) {
        return isa.type_info(isa.words[id as usize]).is_some();
    }
    static TYPES: std::sync::OnceLock<Vec<bool>> = std::sync::OnceLock::new();
    let types = TYPES.get_or_init(|| isa.words.iter().map(|w| isa.type_info(w).is_some()).collect());
    types[id as usize]
}

/// The word of `isa` type `t` is.
pub(crate) fn type_word_id(isa: &Isa, t: ptx_ir::ScalarType) -> Option<WordId> {
    if is_generated(isa) {
        Some(t.word().index())
    } else {
        isa.word_id(t.as_str())
    }
}

/// Reads `inst`'s modifiers as words of the opcode `op`; the problems
/// found, if any.
pub(crate) fn read_words(
    isa: &Isa,
    op: (u16, &OpcodeInfo),
    func: &Function,
    inst: &Inst,
) -> Result<Words, Vec<WordProblem>> {
    let mut words: SmallVec<[(WordId, bool); 8]> = SmallVec::new();
    let mut problems = Vec::new();
    for m in &inst.modifiers {
        let id = match word_of(isa, func, m) {
            Ok(id) => id,
            Err(text) => {
                problems.push(WordProblem::Unknown(text));
                continue;
            }
        };
        if op.1.ignored.binary_search(&id).is_ok() {
            continue;
        }
        let is_type = matches!(m, Modifier::Type(_)) || is_type_word(isa, id);
        if op.1.words.binary_search(&id).is_err() {
            problems.push(WordProblem::NotOfOpcode(isa.words[id as usize].to_string()));
            continue;
        }
        words.push((id, is_type));
    }
    if problems.is_empty() {
        Ok(Words { words })
    } else {
        Err(problems)
    }
}

/// How far `words` are from filling `form`: words it has no slot for, and
/// required slots left empty (for choosing the form a message names).
pub(crate) fn distance(form: &Form, words: &Words) -> (usize, usize) {
    let extra = words.words.iter().filter(|(w, _)| !form.slots.iter().any(|s| s.words.contains(w))).count();
    let missing = form
        .slots
        .iter()
        .filter(|s| s.presence == Presence::Required)
        .filter(|s| !words.words.iter().any(|(w, _)| s.words.contains(w)))
        .count();
    (extra, missing)
}

/// Why operands do not fit a form.
pub(crate) enum OperandProblem {
    /// n operands; the form takes this many (fewest, most).
    Count(usize, usize, usize),
    /// Operand i is not what the form's operand takes.
    Kind(usize, &'static OperandSpec),
    /// The optional operand is there without its word, or missing with it
    /// (`@with cache-policy: .L2::cache_hint`): (operand, word, word present).
    With(&'static str, WordId, bool),
    /// Operand i names a variable declared in a state space (the second)
    /// other than the one the instruction addresses there (the first).
    Space(usize, &'static str, &'static str),
}

/// The state space (`shared`, `global`, ...) of the variable an address
/// operand names, if it names one whose space is known.
pub(crate) type SpaceOf<'a> = &'a dyn Fn(&Operand) -> Option<&'static str>;

/// Matches `inst`'s operands against `form`'s. The first problem found
/// with the fitting operand count, if they do not fit.
pub(crate) fn operands_match(
    isa: &Isa,
    func: &Function,
    form: &'static Form,
    words: &Words,
    filled: &Filled,
    inst: &Inst,
    space_of: SpaceOf<'_>,
) -> Result<(), OperandProblem> {
    let n = inst.operands.len();
    let Some(choices) = ptx_ir::forms::operand_choices_checked(form, words, n) else {
        let (fewest, most) = ptx_ir::forms::operand_range(form);
        return Err(OperandProblem::Count(n, fewest, most));
    };
    let mut first_problem = None;
    let mut with_problem = None;
    for choice in choices {
        let positions = match choice {
            Ok(positions) => positions,
            Err(v) => {
                with_problem.get_or_insert(OperandProblem::With(v.operand, v.word, v.word_present));
                continue;
            }
        };
        match check_operands(isa, func, form, filled, inst, &positions, space_of) {
            Ok(()) => return Ok(()),
            Err(p) => {
                first_problem.get_or_insert(p);
            }
        }
    }
    Err(first_problem.or(with_problem).unwrap_or_else(|| {
        let (fewest, most) = ptx_ir::forms::operand_range(form);
        OperandProblem::Count(n, fewest, most)
    }))
}

/// The first operand that is not what its spec takes, as placed by `positions`.
fn check_operands(
    isa: &Isa,
    func: &Function,
    form: &'static Form,
    filled: &Filled,
    inst: &Inst,
    positions: &ptx_ir::forms::Positions,
    space_of: SpaceOf<'_>,
) -> Result<(), OperandProblem> {
    for (spec, pos) in form.operands.iter().zip(positions) {
        let Some(k) = *pos else { continue };
        let k = k as usize;
        let op = &inst.operands[k];
        if !operand_fits(isa, func, spec, filled, op) {
            return Err(OperandProblem::Kind(k, spec));
        }
        if let Some(rule) = spec.space {
            let expected = match rule {
                SpaceRule::Slot(s) => filled.get(s as usize).copied().flatten(),
                SpaceRule::Word(w) => Some(w),
            };
            let expected = expected.map(|w| isa.words[w as usize]);
            let base = |w: &'static str| w.split("::").next().unwrap_or(w);
            if let (Some(expected), Some(declared)) = (expected, space_of(op)) {
                if base(expected) != declared {
                    return Err(OperandProblem::Space(k, expected, declared));
                }
            }
        }
    }
    Ok(())
}

/// The integer value of a literal operand (`-4` included).
fn literal_value(op: &Operand) -> Option<i64> {
    match op {
        Operand::Int(i) => Some(i.bits as i64),
        Operand::Neg(inner) => inner.as_int().map(|v| (v as i64).wrapping_neg()),
        _ => None,
    }
}

/// True for a literal or the address of a variable: not a register.
fn is_constant(op: &Operand) -> bool {
    match op {
        Operand::Int(_) | Operand::Float(_) | Operand::Symbol(_) | Operand::SymbolOffset(..) => true,
        Operand::Element(element) => element.index.reg().is_none(),
        Operand::Neg(inner) | Operand::Not(inner) => is_constant(inner),
        _ => false,
    }
}

/// True if `op` is what `spec` takes.
fn operand_fits(isa: &Isa, func: &Function, spec: &OperandSpec, filled: &Filled, op: &Operand) -> bool {
    if spec.immediate {
        return match literal_value(op) {
            Some(v) => spec.values.is_empty() || spec.values.contains(&v),
            None => false,
        };
    }
    if spec.register && is_constant(op) {
        return false;
    }
    if let (Some((low, high)), Some(v)) = (spec.range, literal_value(op)) {
        if v < low || v > high {
            return false;
        }
    }
    let type_word = match spec.ty {
        Some(TypeRule::Word(w)) => Some(w),
        Some(TypeRule::Slot(s)) => filled.get(s as usize).copied().flatten(),
        None => None,
    };
    if let Some(ty) = type_word.and_then(|w| isa.type_info(isa.words[w as usize])) {
        if !register_has_size(func, op, ty) {
            return false;
        }
    }
    match spec.kind {
        _ if spec.discard && matches!(op, Operand::Sink) => true,
        OperandKind::Value => !matches!(
            op,
            Operand::Address(_) | Operand::Label(_) | Operand::Parens(_) | Operand::Pair(_) | Operand::Sink
        ),
        OperandKind::Address(fewest, most, unified) => match op {
            Operand::Address(a) => {
                (fewest as usize..=most as usize).contains(&(1 + a.rest.len())) && (unified || !a.unified)
            }
            // `arr[i]` is the address `[arr + i * size]` (ISA 6.4.2).
            Operand::Element(_) => fewest == 1,
            _ => false,
        },
        OperandKind::Pair { second_optional } => match op {
            Operand::Pair(_) => true,
            Operand::Address(_) | Operand::Label(_) | Operand::Parens(_) | Operand::Sink => false,
            _ => second_optional,
        },
        OperandKind::Vector(size) => match op {
            Operand::Vector(elems) => size.is_none_or(|n| elems.len() == n as usize),
            // A register declared as a vector (`.reg .v4 .b32 v`) is one too.
            Operand::Reg(r) => func.regs.get(*r).and_then(|d| d.ty.vector).is_some_and(|n| size.is_none_or(|s| s == n)),
            _ => false,
        },
        OperandKind::Parens => matches!(op, Operand::Parens(_)),
        // Only `_`: where the ISA takes a register too, the description has
        // a template that names it (mbarrier.arrive's `state`).
        OperandKind::Sink => matches!(op, Operand::Sink),
        OperandKind::Target => matches!(op, Operand::Label(_) | Operand::Symbol(_)),
    }
}

/// True unless `op` is a register whose type does not agree with `ty`
/// (ISA 9.4, Table 26, as for an operand of the instruction type: `.b32`
/// takes any 32-bit register, `.u32` the 32-bit integer and bit ones, `.f32`
/// an `.f32` or `.b32`, `.pred` a predicate).
fn register_has_size(func: &Function, op: &Operand, ty: &ptx_isa::model::TypeInfo) -> bool {
    let reg = match op {
        Operand::Reg(r) | Operand::RegComponent(r, _) => *r,
        Operand::Not(inner) | Operand::Neg(inner) => return register_has_size(func, inner, ty),
        _ => return true,
    };
    let Some(data) = func.regs.get(reg) else { return true };
    if data.ty.vector.is_some() && matches!(op, Operand::Reg(_)) {
        return false;
    }
    let Some(expected) = ptx_ir::ScalarType::from_str(ty.name) else { return true };
    crate::rules::agrees_with_instruction_type(expected, data.ty.scalar)
}

/// What an operand spec takes, for messages.
pub(crate) fn describe(isa: &Isa, spec: &OperandSpec) -> String {
    match spec.ty {
        Some(TypeRule::Word(ty)) => {
            return format!("a .{} register or a value ({})", isa.words[ty as usize], spec.name)
        }
        Some(TypeRule::Slot(_)) => return format!("a register of the instruction's type or a value ({})", spec.name),
        None => {}
    }
    if spec.register {
        return format!("a register ({})", spec.name);
    }
    if let Some((low, high)) = spec.range {
        return format!("a register or a literal in {low}..{high} ({})", spec.name);
    }
    if spec.immediate {
        if spec.values.is_empty() {
            return format!("an integer literal ({})", spec.name);
        }
        let values: Vec<String> = spec.values.iter().map(|v| v.to_string()).collect();
        return format!("one of {} ({})", values.join(", "), spec.name);
    }
    match spec.kind {
        OperandKind::Value => format!("a register or value ({})", spec.name),
        OperandKind::Address(1, 1, false) => format!("an address [{}] (without .unified)", spec.name),
        OperandKind::Address(1, 1, true) => format!("an address [{}]", spec.name),
        OperandKind::Address(a, b, _) if a == b => format!("a bracketed list of {a} ([{}, ...])", spec.name),
        OperandKind::Address(a, b, _) => format!("a bracketed list of {a} to {b} ([{}, ...])", spec.name),
        OperandKind::Pair { second_optional: false } => format!("a pair {}|q", spec.name),
        OperandKind::Pair { .. } => format!("a register or a pair {}|q", spec.name),
        OperandKind::Vector(Some(n)) => format!("a vector of {n} registers {{...}}"),
        OperandKind::Vector(None) => format!("a vector of registers {{{}}}", spec.name),
        OperandKind::Parens => format!("a list ({})", spec.name),
        OperandKind::Sink => "'_'".to_string(),
        OperandKind::Target => format!("a label or function name ({})", spec.name),
    }
}
