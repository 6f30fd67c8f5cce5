//! Instruction forms: whether an opcode exists, which modifiers it takes
//! and how they combine, how many operands of which kinds, which vector
//! sizes.
//!
//! The parser keeps any dotted word and any operand list, so `mull.wide`,
//! `st [a], b, c` or `cvta` with 62 operands reach the verifier; ptxas
//! rejects them ("Not a name of any known instruction", "Unknown modifier",
//! "Arguments mismatch"). What an instruction may be is the description of
//! the instruction set (`ptx_isa`): the instruction must match one of its
//! opcode's forms, modifiers and operands ([`crate::matcher`]). Around
//! that, the rules ptxas applies that the ISA writes in prose rather than
//! in its syntax blocks, each checked against ptxas 13.5 and reported on
//! the instruction's line: combinations (`.volatile` on `.param`, rounding
//! on an integer `cvt`, the comparisons each type has), vector widths,
//! result operands that cannot be written, barrier numbers and thread
//! counts, video operands, the register vectors of `ldmatrix`/`stmatrix`,
//! `{...}` inside `[...]`, texture handles. Immediates wider than the
//! instruction type are accepted by ptxas (truncated), shift amounts and
//! bit positions of any value too; the only out-of-range immediates it
//! rejects are barrier numbers (0..15) and barrier thread counts that are
//! not a multiple of the warp size.

use crate::matcher::{self, Filled, OperandProblem, WordProblem, Words};
use ptx_ir::{Function, Inst, Modifier, Opcode, Operand, ScalarType, StateSpace, TypeKind, Word};
use ptx_isa::model::{Form, Isa, OperandKind, Shape, WordId};
use smallvec::SmallVec;

/// The forms an opcode's modifier words fill, and how. Filling a form's
/// slots backtracks, and most instructions share a few hundred word lists
/// (`ld.global.u32`), so each list is filled once per process: a map every
/// thread shares (behind a lock, taken on a miss of the thread's own map)
/// keeps the answers, and each thread keeps its own map of what it has
/// looked up, read without a lock. Answers live as long as the process;
/// past [`FILL_CACHE_ENTRIES`] word lists no more are kept.
#[derive(Default)]
pub struct FillCache {
    seen: FxHashMap<FillKey, Fitting>,
}

/// (the description, as an address; opcode; words).
type FillKey = (usize, u16, SmallVec<[(WordId, bool); 8]>);

/// The forms a word list fills: (index in the opcode's forms, how).
type Fitting = &'static [(u32, Filled)];

type FxHashMap<K, V> = rustc_hash::FxHashMap<K, V>;

/// Word lists kept at most (a few hundred in the largest modules).
const FILL_CACHE_ENTRIES: usize = 1 << 16;

static SHARED_FILLS: std::sync::OnceLock<std::sync::RwLock<FxHashMap<FillKey, Fitting>>> = std::sync::OnceLock::new();

impl FillCache {
    /// The forms of opcode `opcode` of `isa` (`forms`, its forms) that
    /// `words` fill, with the index of each in `forms` and how it is filled.
    fn fitting(
        &mut self,
        isa: &'static Isa,
        opcode: u16,
        forms: &'static [Form],
        words: &Words,
    ) -> std::borrow::Cow<'static, [(u32, Filled)]> {
        let key: FillKey = (isa as *const Isa as usize, opcode, words.words.clone());
        if let Some(fitting) = self.seen.get(&key) {
            return (*fitting).into();
        }
        let shared = SHARED_FILLS.get_or_init(Default::default);
        let known = shared.read().ok().and_then(|map| map.get(&key).copied());
        let fitting = match known {
            Some(fitting) => fitting,
            None => {
                let fitting: Vec<(u32, Filled)> =
                    forms.iter().enumerate().filter_map(|(i, f)| Some((i as u32, matcher::fill(f, words)?))).collect();
                let mut map = match shared.write() {
                    Ok(map) if map.len() < FILL_CACHE_ENTRIES => map,
                    // Full (or poisoned): answered, not kept.
                    _ => return fitting.into(),
                };
                *map.entry(key.clone()).or_insert_with(|| Box::leak(fitting.into_boxed_slice()))
            }
        };
        if self.seen.len() < FILL_CACHE_ENTRIES {
            self.seen.insert(key, fitting);
        }
        fitting.into()
    }
}

/// Checks the form of `inst` against `isa`, calling `report` with each
/// error's message. Returns true if the instruction is too malformed for
/// its operand types to be worth checking (unknown opcode or modifier, no
/// form of its opcode, operands that fit no form).
pub fn check(
    isa: &'static Isa,
    func: &Function,
    inst: &Inst,
    space_of: matcher::SpaceOf<'_>,
    fills: &mut FillCache,
    mut report: impl FnMut(String),
) -> bool {
    let name = ptx_ir::print::opcode_text(func, inst.opcode);
    if ptx_ir::is_later_form(func, inst) {
        let d = isa.described;
        report(format!(
            "{}: has a word PTX ISA {}.{} does not have: an instruction of a later .version than this module's",
            full_text(func, inst),
            d / 10,
            d % 10
        ));
        return true;
    }
    let Some(op) = matcher::opcode_of(isa, func, inst) else {
        report(format!("'{name}' is not the name of any PTX instruction"));
        return true;
    };
    barrier_operands(func, inst, &mut report);
    video_operands(inst, &mut report);
    vectors_inside_brackets(inst, &mut report);
    matrix_forms(func, inst, &mut report);
    handle_without_offset(inst, &mut report);
    let words = match matcher::read_words(isa, op, func, inst) {
        Ok(words) => words,
        Err(problems) => {
            for p in problems {
                match p {
                    WordProblem::Unknown(text) => unknown_word(name, &text, &mut report),
                    WordProblem::NotOfOpcode(text) if is_vector_word(&text) => {
                        report(format!("{name}: .{text} is not a vector size {name} takes"))
                    }
                    WordProblem::NotOfOpcode(text) if isa.type_info(&text).is_some() => {
                        report(format!("{}: .{text} is not a valid instruction type of {name}", full_text(func, inst)))
                    }
                    WordProblem::NotOfOpcode(text) => report(format!("{name}: .{text} is not a modifier of {name}")),
                }
            }
            return true;
        }
    };
    let forms = isa.forms_of(op.0);
    let fitting = fills.fitting(isa, op.0, forms, &words);
    if fitting.is_empty() {
        no_form(isa, func, inst, name, forms, &words, &mut report);
        return true;
    }
    let matching = fitting.iter().map(|(i, filled)| (&forms[*i as usize], filled));
    let mut problem: Option<(&'static Form, OperandProblem)> = None;
    let mut fitted: Option<&'static Form> = None;
    for (form, filled) in matching {
        match matcher::operands_match(isa, func, form, &words, filled, inst, space_of) {
            Ok(()) => {
                fitted = Some(form);
                break;
            }
            Err(p) => {
                // Prefer a problem of kind over one of count: the count fit.
                let better = matches!(
                    (&problem, &p),
                    (None, _)
                        | (
                            Some((_, OperandProblem::Count(..) | OperandProblem::With(..))),
                            OperandProblem::Kind(..) | OperandProblem::Space(..)
                        )
                );
                if better {
                    problem = Some((form, p));
                }
            }
        }
    }
    let Some(form) = fitted else {
        let (form, p) = problem.expect("a form matched the modifiers");
        operand_problem(isa, inst, name, form, p, &mut report);
        return true;
    };
    combinations(inst, name, &mut report);
    if let (Some(n), Some(t)) = (inst.vector(), inst.types().next()) {
        vector_width(inst, name, n, t, &mut report);
    }
    operand_kinds(func, inst, form, name, &mut report)
}

/// What an instruction of a later PTX ISA than the description's (see
/// [`ptx_ir::is_of_later_isa`]) is reported as when it is not accepted: an
/// unknown opcode or each unknown word as a module at the description's
/// version has it reported (or, for known words no form combines, that),
/// with what accepting them would do.
pub(crate) fn newer_form(isa: &Isa, func: &Function, inst: &Inst, report: &mut impl FnMut(String)) {
    let name = ptx_ir::print::opcode_text(func, inst.opcode);
    let d = isa.described;
    let why = format!(
        "not of PTX ISA {}.{}; accepting newer forms, --accept-newer-forms, keeps the instruction as it is for \
         ptxas to judge",
        d / 10,
        d % 10
    );
    if !ptx_ir::is_later_form(func, inst) {
        report(format!("'{name}' is not the name of any PTX instruction ({why})"));
        return;
    }
    let mut unknown_words = false;
    for m in &inst.modifiers {
        if let Modifier::Other(w) = m {
            unknown_words = true;
            unknown_word(name, func.names.get(*w), &mut |message: String| report(format!("{message} ({why})")));
        }
    }
    if !unknown_words {
        report(format!("{}: no form of {name} has these words ({why})", full_text(func, inst)));
    }
}

/// No form of the opcode takes these modifiers: says which word does not go
/// with the rest, or what is missing, after the closest form.
fn no_form(
    isa: &Isa,
    func: &Function,
    inst: &Inst,
    name: &str,
    forms: &'static [Form],
    words: &Words,
    report: &mut impl FnMut(String),
) {
    let integer_types =
        inst.types().next().is_some_and(|t| t.is_integer_like()) && inst.types().all(|t| t.is_integer_like());
    let float_forms = forms.iter().any(|f| {
        f.slots.iter().any(|s| s.words.iter().any(|&w| isa.class_of(isa.words[w as usize]) == Some("rounding")))
    });
    if integer_types && float_forms {
        if inst.rounding().is_some() {
            return report(format!("{name}: a rounding modifier needs a floating-point type"));
        }
        if inst.is_ftz() {
            return report(format!("{name}: .ftz needs a floating-point type"));
        }
    }
    if matches!(inst.opcode, Opcode::Ld | Opcode::St) {
        let has = |word: Word| inst.has_word(word);
        let ordered = [Word::RELAXED, Word::ACQUIRE, Word::RELEASE].into_iter().find(|&w| has(w));
        if let Some(sem) = ordered.filter(|_| ![Word::CTA, Word::CLUSTER, Word::GPU, Word::SYS].into_iter().any(has)) {
            return report(format!("{name}: .{} needs a scope (.cta, .cluster, .gpu or .sys)", sem.as_str()));
        }
    }
    // The closest form: fewest words to change; on a tie, the one whose
    // extra words are types (ptxas blames the types: "Unexpected
    // instruction types").
    let closest = forms
        .iter()
        .min_by_key(|f| {
            let (extra, missing) = matcher::distance(f, words);
            let extra_words = words
                .words
                .iter()
                .filter(|(w, is_type)| !is_type && !f.slots.iter().any(|s| s.words.contains(w)))
                .count();
            (extra + missing, extra_words, extra)
        })
        .expect("an opcode of the description has forms");
    let (extra, _) = matcher::distance(closest, words);
    let text = full_text(func, inst);
    let types = words.words.iter().filter(|(_, is_type)| *is_type).count();
    let type_slots = |f: &Form| f.slots.iter().filter(|s| s.is_type).count();
    if types > forms.iter().map(type_slots).max().unwrap_or(0) {
        let most = type_slots(closest);
        return report(format!(
            "{text}: {types} instruction types, {most} expected (ptxas: Unexpected instruction types; the closest form is `{}`)",
            closest.text
        ));
    }
    if extra > 0 {
        let odd = words
            .words
            .iter()
            .find(|(w, _)| !closest.slots.iter().any(|s| s.words.contains(w)))
            .map(|(w, _)| isa.words[*w as usize])
            .unwrap_or("?");
        if isa.type_info(odd).is_some() {
            return report(format!(
                "{text}: .{odd} is not a valid instruction type with these modifiers (the closest form is `{}`)",
                closest.text
            ));
        }
        return report(format!(
            "{text}: .{odd} does not go with the other modifiers (the closest form is `{}`)",
            closest.text
        ));
    }
    let missing: Vec<String> =
        closest
            .slots
            .iter()
            .filter(|s| s.presence == ptx_isa::model::Presence::Required)
            .filter(|s| !words.words.iter().any(|(w, _)| s.words.contains(w)))
            .map(|s| {
                if s.words.len() == 1 {
                    format!(".{}", isa.words[s.words[0] as usize])
                } else {
                    format!(".{}", s.name)
                }
            })
            .collect();
    let missing_type = closest.slots.iter().any(|s| {
        s.is_type
            && s.presence == ptx_isa::model::Presence::Required
            && !words.words.iter().any(|(w, _)| s.words.contains(w))
    });
    if missing.is_empty() {
        report(format!("{text}: these modifiers make no form of {name} (the closest form is `{}`)", closest.text));
    } else if missing_type && types == 0 {
        report(format!("{text}: missing instruction type (the closest form is `{}`)", closest.text));
    } else {
        report(format!("{text}: {} missing (the closest form is `{}`)", missing.join(", "), closest.text));
    }
}

/// The opcode with its modifiers (`cvt.rn.f32.u8`), for messages.
pub(crate) fn full_text(func: &Function, inst: &Inst) -> String {
    let mut text = ptx_ir::print::opcode_text(func, inst.opcode).to_string();
    for m in &inst.modifiers {
        ptx_ir::print::write_modifier(func, m, &mut text);
    }
    text
}

/// Says what is wrong with the operands, as fitted to `form`.
fn operand_problem(
    isa: &Isa,
    inst: &Inst,
    name: &str,
    form: &Form,
    p: OperandProblem,
    report: &mut impl FnMut(String),
) {
    match p {
        OperandProblem::Count(n, fewest, most) => {
            let expected = if fewest == most { format!("{fewest}") } else { format!("{fewest} to {most}") };
            report(format!(
                "{name}: {n} operands, {expected} expected (ptxas: Arguments mismatch; form `{}`)",
                form.text
            ));
        }
        OperandProblem::Kind(i, spec) => {
            let op = &inst.operands[i];
            let message = match (spec.kind, op) {
                _ if spec.immediate => format!("operand {} must be {}", i + 1, matcher::describe(isa, spec)),
                (OperandKind::Address(..), Operand::Address(_)) => {
                    format!("operand {} must be {}", i + 1, matcher::describe(isa, spec))
                }
                (OperandKind::Address(..), _) => format!("operand {} must be an address [...]", i + 1),
                (OperandKind::Target, _) => format!("operand {} must be a label", i + 1),
                (_, Operand::Address(_)) => format!("operand {} is an address [...], which is not allowed here", i + 1),
                (_, Operand::Label(_)) => format!("operand {} is a label, which is not allowed here", i + 1),
                (_, Operand::Sink) => format!("operand {} is '_', which is not allowed here", i + 1),
                (_, Operand::Parens(_)) => format!("operand {} is a (...) list, which is not allowed here", i + 1),
                _ => format!("operand {} must be {}", i + 1, matcher::describe(isa, spec)),
            };
            report(format!("{name}: {message} (form `{}`)", form.text));
        }
        OperandProblem::With(operand, word, true) => {
            let word = isa.words.get(word as usize).copied().unwrap_or("?");
            report(format!(
                "{name}: .{word} needs the {operand} operand (ptxas: Arguments mismatch; form `{}`)",
                form.text
            ));
        }
        OperandProblem::With(operand, word, false) => {
            let word = isa.words.get(word as usize).copied().unwrap_or("?");
            report(format!(
                "{name}: {} operands: a {operand} operand needs .{word} (ptxas: Arguments mismatch; form `{}`)",
                inst.operands.len(),
                form.text
            ));
        }
        OperandProblem::Space(i, expected, declared) => {
            report(format!(
                "{name}: operand {} addresses .{expected}, but the variable it names is declared in .{declared}",
                i + 1
            ));
        }
    }
}

/// Modifiers that exist but do not go together in ways the templates do
/// not say (ptxas: "Modifier '.volatile' cannot be applied to '.param'
/// space", "Illegal rounding modifier" on an integer `cvt`).
fn combinations(inst: &Inst, name: &str, report: &mut impl FnMut(String)) {
    let has = |word: Word| inst.has_word(word);
    let ordered = || [Word::VOLATILE, Word::RELAXED, Word::ACQUIRE, Word::RELEASE].into_iter().find(|&w| has(w));
    match inst.opcode {
        Opcode::Ld | Opcode::St if inst.space() == Some(StateSpace::Param) => {
            if let Some(w) = ordered() {
                report(format!("{name}: .{} cannot be applied to the .param space", w.as_str()));
            }
        }
        Opcode::Cvt => {
            let integer = |t: ScalarType| matches!(t.kind(), TypeKind::Signed | TypeKind::Unsigned);
            let mut types = inst.types();
            let both_integer = types.next().is_some_and(integer) && types.next().is_some_and(integer);
            if both_integer && inst.modifiers.iter().any(|m| matches!(m, Modifier::Rounding(_))) {
                report(format!("{name}: an integer-to-integer conversion takes no rounding modifier"));
            }
        }
        Opcode::Setp | Opcode::Set => comparison(inst, name, report),
        _ => {}
    }
}

/// `setp`/`set`: the comparison must be one the compared type (the last
/// instruction type) has, and `.ftz` needs a compared type of `.f32` or a
/// half type (ptxas 13.5: "Mismatch between instruction type and
/// comparison qualifier", "Illegal modifier '.ftz'"). Bit types compare
/// only for equality, signed types have the ordered comparisons, unsigned
/// types those and `.lo`/`.ls`/`.hi`/`.hs`, floating-point types those
/// and the unordered ones, `.num` and `.nan`, not `.lo`/`.ls`/`.hi`/`.hs`.
fn comparison(inst: &Inst, name: &str, report: &mut impl FnMut(String)) {
    use ptx_ir::CmpOp::*;
    let Some(t) = inst.types().last() else { return };
    let cmp = inst.cmp().or_else(|| {
        // `.hi`/`.lo` may be read as words.
        inst.modifiers.iter().find_map(|m| match m {
            Modifier::Word(w) if *w == Word::HI => Some(Hi),
            Modifier::Word(w) if *w == Word::LO => Some(Lo),
            _ => None,
        })
    });
    if let Some(cmp) = cmp {
        let ok = match t.kind() {
            TypeKind::Bits => matches!(cmp, Eq | Ne),
            TypeKind::Signed => matches!(cmp, Eq | Ne | Lt | Le | Gt | Ge),
            TypeKind::Unsigned => matches!(cmp, Eq | Ne | Lt | Le | Gt | Ge | Lo | Ls | Hi | Hs),
            TypeKind::Float => !matches!(cmp, Lo | Ls | Hi | Hs),
            TypeKind::Pred => true,
        };
        if !ok {
            report(format!("{name}: the comparison .{} does not apply to .{t} operands", cmp.as_str()));
        }
    }
    let ftz_ok = t.kind() == TypeKind::Float && t != ScalarType::F64;
    if !ftz_ok && inst.modifiers.iter().any(|m| matches!(m, Modifier::Ftz)) {
        report(format!("{name}: .ftz does not apply to .{t} operands"));
    }
}

fn unknown_word(name: &str, text: &str, report: &mut impl FnMut(String)) {
    if is_vector_word(text) {
        report(format!("{name}: .{text} is not a vector size"));
    } else {
        report(format!("{name}: unknown modifier .{text}"));
    }
}

/// `.v3`, `.v16`: a vector size PTX does not have.
fn is_vector_word(text: &str) -> bool {
    text.strip_prefix('v').is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
}

/// A vector of `ld`/`st` is at most 128 bits, or 256 bits in the global
/// (or generic) space (ptxas: "Vector type too large, exceeds 128 bit
/// limit", "global state space expected for feature '256 bit wide
/// load/store'"; which targets have 256-bit accesses is the target
/// check's business).
fn vector_width(inst: &Inst, name: &str, n: u8, t: ScalarType, report: &mut impl FnMut(String)) {
    if !matches!(inst.opcode, Opcode::Ld | Opcode::St | Opcode::Ldu) {
        return;
    }
    let bits = n as u32 * t.bits();
    let global = matches!(inst.space(), None | Some(StateSpace::Global));
    if bits > 256 || (bits > 128 && !(global && inst.opcode != Opcode::Ldu)) {
        let where_ = if bits > 256 || inst.opcode == Opcode::Ldu { "" } else { " outside the global space" };
        report(format!("{name}: a .v{n} .{t} vector is {bits} bits, more than {name} takes{where_}"));
    }
}

/// What no template says: a written operand is a register (or `{...}`,
/// `p|q`, `_`), a parameter is not a value but through `ld.param`, and the
/// `{...}` of a data-moving instruction has 1, 2, 4 or 8 elements.
fn operand_kinds(func: &Function, inst: &Inst, form: &Form, name: &str, report: &mut impl FnMut(String)) -> bool {
    let mut bad = false;
    let vectors_move_data =
        matches!(inst.opcode, Opcode::Mov | Opcode::Ld | Opcode::Ldu | Opcode::St | Opcode::Atom | Opcode::Red);
    let writes_first = matches!(form.shape, Shape::Dst1 | Shape::Accumulate);
    for (i, op) in inst.operands.iter().enumerate() {
        let result = writes_first && i == 0;
        let problem = match op {
            Operand::Vector(elems) if vectors_move_data && !matches!(elems.len(), 1 | 2 | 4 | 8) => {
                Some("is a vector of a size PTX does not have (1, 2, 4 or 8 elements)")
            }
            Operand::Symbol(s)
                if !result && takes_parameters(inst.opcode) && is_parameter(func, func.names.get(*s)) =>
            {
                Some("is a parameter; a register is required (load it with ld.param)")
            }
            Operand::Int(_) | Operand::Float(_) if result => Some("is a literal; a result register is required"),
            Operand::Special(_) if result => Some("is a special register, which cannot be written"),
            Operand::Symbol(s) if result && !func.names.get(*s).starts_with('%') => {
                Some("is a variable; a result register is required")
            }
            Operand::Not(_) | Operand::Neg(_) | Operand::Parens(_) if result => {
                Some("is not a register; a result register is required")
            }
            _ => None,
        };
        if let Some(problem) = problem {
            report(format!("{name}: operand {} {problem}", i + 1));
            bad = true;
        }
    }
    bad
}

/// Opcodes that take the address of a parameter as a value (`mov.b64
/// %rd1, kernel_param_0` is how nvcc reaches a kernel's parameters).
fn takes_parameters(op: Opcode) -> bool {
    !matches!(op, Opcode::Mov | Opcode::Cvta)
}

/// True if `name` is a parameter or return parameter of `func`. Asked only
/// of symbols in value positions, which are rare.
fn is_parameter(func: &Function, name: &str) -> bool {
    func.params.iter().flatten().chain(func.returns.iter().flatten()).any(|v| v.name == name)
}

/// Inside `[...]` a `{...}` vector comes last (`[tex, {x, y}]`, `[tmap,
/// {x, y}]`): ptxas's grammar has no `[tex, {x, y}, {z, w}]` ("Parsing
/// error near ','"), whatever the instruction.
fn vectors_inside_brackets(inst: &Inst, report: &mut impl FnMut(String)) {
    for (i, op) in inst.operands.iter().enumerate() {
        let Operand::Address(addr) = op else { continue };
        let n = addr.rest.len();
        if addr.rest.iter().take(n.saturating_sub(1)).any(|e| matches!(e, Operand::Vector(_))) {
            report(format!("operand {}: a vector {{...}} inside [...] must be its last element", i + 1));
        }
    }
}

/// `ldmatrix`/`stmatrix`: the type a shape takes and the size of the
/// `{...}` of registers (checked with ptxas 13.5). `.m8n8` is `.b16`;
/// `stmatrix.m16n8` is `.trans.b8`; `ldmatrix.m16n16` loads one or two
/// matrices (`.x1`, `.x2`) into twice as many registers; otherwise `.xN`
/// takes N registers. ptxas: "Incorrect instruction type specified for
/// stmatrix with shape", "Modifier '.trans' require", "Incorrect no. of
/// matrix", "Vector of size N is expected", "Unexpected instruction types".
fn matrix_forms(func: &Function, inst: &Inst, report: &mut impl FnMut(String)) {
    let (name, data) = match inst.opcode {
        Opcode::Ldmatrix => ("ldmatrix", 0),
        Opcode::Stmatrix => ("stmatrix", 1),
        _ => return,
    };
    let (mut shape, mut num, mut trans, mut ty) = ("", 0usize, false, None);
    for m in &inst.modifiers {
        let text = match m {
            Modifier::Type(t) => {
                ty = ty.or(Some(*t));
                continue;
            }
            Modifier::Word(w) => w.as_str(),
            Modifier::Other(n) => func.names.get(*n),
            _ => continue,
        };
        match text {
            "m8n8" | "m16n8" | "m16n16" | "m8n16" => shape = text,
            "x1" => num = 1,
            "x2" => num = 2,
            "x4" => num = 4,
            "trans" => trans = true,
            _ => {}
        }
    }
    if let Some(t) = ty {
        let ok = match (inst.opcode, shape) {
            (_, "m8n8") => t == ScalarType::B16,
            (Opcode::Stmatrix, "m16n8") => t == ScalarType::B8,
            _ => matches!(t, ScalarType::B8 | ScalarType::B16),
        };
        if !ok {
            let shape = if shape.is_empty() { String::new() } else { format!(" with shape .{shape}") };
            report(format!("{name}: .{t} is not an instruction type of {name}{shape}"));
        }
    }
    if inst.opcode == Opcode::Stmatrix && shape == "m16n8" && !trans {
        report("stmatrix: shape .m16n8 requires .trans".to_string());
    }
    if shape.is_empty() || num == 0 {
        return;
    }
    if inst.opcode == Opcode::Ldmatrix && shape == "m16n16" {
        if num == 4 {
            report("ldmatrix: shape .m16n16 loads one or two matrices (.x1, .x2), not four".to_string());
            return;
        }
        num *= 2;
    }
    let size = match inst.operands.get(data) {
        Some(Operand::Vector(elems)) => elems.len(),
        // ptxas takes a vector register of the right size too.
        Some(Operand::Reg(r)) => func.regs[*r].ty.vector.map_or(0, usize::from),
        _ => return,
    };
    if size != num {
        report(format!("{name}: operand {} must be a vector of {num} registers", data + 1));
    }
}

/// `txq d, [a]` and `suq d, [a]` name a texture or surface: a register
/// holding its handle takes no offset, not even `+0` (ptxas 13.5:
/// "Argument 1 of instruction 'txq': .texref or .u64 register expected").
fn handle_without_offset(inst: &Inst, report: &mut impl FnMut(String)) {
    if !matches!(inst.opcode, Opcode::Txq | Opcode::Suq) {
        return;
    }
    if let Some(Operand::Address(addr)) = inst.operands.get(1) {
        if matches!(addr.base, ptx_ir::AddrBase::Reg(_)) && (addr.offset != 0 || addr.explicit_zero) {
            report("operand 2: a texture or surface handle register takes no offset".to_string());
        }
    }
}

/// The video instructions: no `{...}` operand (ptxas: "Vector operand is
/// not allowed"), and the SIMD ones (`vadd2`, `vset4`, ...) take no
/// literal as their fourth operand `c` (ptxas: "Incorrect video selector
/// for operand 3").
fn video_operands(inst: &Inst, report: &mut impl FnMut(String)) {
    use Opcode::*;
    let simd = match inst.opcode {
        Vabsdiff2 | Vabsdiff4 | Vadd2 | Vadd4 | Vavrg2 | Vavrg4 | Vmax2 | Vmax4 | Vmin2 | Vmin4 | Vset2 | Vset4
        | Vsub2 | Vsub4 => true,
        Vabsdiff | Vadd | Vmad | Vmax | Vmin | Vset | Vshl | Vshr | Vsub => false,
        _ => return,
    };
    if let Some(i) = inst.operands.iter().position(|op| matches!(op, Operand::Vector(_))) {
        report(format!("operand {} is a vector {{...}}, which a video instruction does not take", i + 1));
    }
    let literal = |op: &Operand| match op {
        Operand::Neg(inner) => matches!(**inner, Operand::Int(_) | Operand::Float(_)),
        op => matches!(op, Operand::Int(_) | Operand::Float(_)),
    };
    if simd && inst.operands.get(3).is_some_and(literal) {
        report("operand 4 of a SIMD video instruction must be a register, not a literal".to_string());
    }
}

/// `bar`/`barrier` with a literal barrier number outside 0..15 or a
/// literal thread count that is not a multiple of 32 (ptxas rejects both).
/// `bar.warp.sync` takes a member mask instead, `barrier.cluster` nothing.
fn barrier_operands(func: &Function, inst: &Inst, report: &mut impl FnMut(String)) {
    if !matches!(inst.opcode, Opcode::Bar | Opcode::Barrier) {
        return;
    }
    let mut first = 0;
    for m in &inst.modifiers {
        let text = match m {
            Modifier::Word(w) => w.as_str(),
            Modifier::Other(n) => func.names.get(*n),
            _ => continue,
        };
        match text {
            "warp" | "cluster" => return,
            "red" => first = 1,
            _ => {}
        }
    }
    let literal = |i: usize| match inst.operands.get(i) {
        Some(Operand::Int(imm)) => Some(imm.bits),
        _ => None,
    };
    if let Some(b) = literal(first) {
        if b > 15 {
            report(format!("barrier number {} is out of range 0..15", b as i64));
        }
    }
    // The thread count is there only when the instruction has all its operands.
    let full = if first == 1 { 4 } else { 2 };
    if inst.operands.len() == full {
        if let Some(count) = literal(first + 1) {
            if count % 32 != 0 {
                report(format!("barrier thread count {} is not a multiple of the warp size (32)", count as i64));
            }
        }
    }
}
