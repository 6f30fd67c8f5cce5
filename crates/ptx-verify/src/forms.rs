//! Instruction forms for the verifier: whether an opcode exists, which
//! modifiers it takes, how many operands of which kinds, which vector sizes.
//!
//! The parser keeps any dotted word and any operand list, so `mull.wide`,
//! `st [a], b, c` or `cvta` with 62 operands reach the verifier; ptxas
//! rejects them ("Not a name of any known instruction", "Unknown modifier",
//! "Arguments mismatch"). This module is one table, [`form`], with a line
//! per opcode whose forms the ISA describes completely enough; an opcode
//! without a line is only checked for existence, and a line may leave its
//! modifier words unchecked (`words: None`) where the ISA's forms are too
//! many to list without risking a false rejection (`ld`, `st`, `cvt`, ...).
//!
//! The words were taken from the ISA syntax blocks (`spec/isa/<opcode>.md`,
//! the floating-point and half-precision sections for the float forms) and
//! from the public corpus, and every rule was checked against ptxas 13.5:
//! each kind of error below is one ptxas reports, on the instruction's line.
//! Immediates wider than the instruction type are accepted by ptxas
//! (truncated), shift amounts and bit positions of any value too; the only
//! out-of-range immediates it rejects are barrier numbers (0..15) and
//! barrier thread counts that are not a multiple of the warp size.

use ptx_ir::{Function, Inst, Modifier, Opcode, Operand, ScalarType, StateSpace, TypeKind, Word};

/// Where an instruction's operands go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Layout {
    /// Operand 0 is a result register (or `p|q`), the others are values.
    Result,
    /// Every operand is a value.
    Values,
    /// `ld d, [a]{, policy}`: a result, then an address.
    Load,
    /// `st [a], b{, policy}`: an address, then a value.
    Store,
    /// `bra L`: the last operand is a label.
    Branch,
}

/// Which modifier classes an opcode takes besides its types and words.
const ROUNDING: u8 = 1;
const SAT: u8 = 2;
const FTZ: u8 = 4;
const SPACE: u8 = 8;
const CMP: u8 = 16;
const PRMT: u8 = 32;
const ALL: u8 = 63;
/// Rounding, `.ftz` and `.sat` are float modifiers on this opcode: an
/// integer instruction type takes none of them except `.sat` (ptxas:
/// "Illegal rounding modifier", "Illegal modifier '.ftz'").
const FLOAT_ONLY: u8 = 64;

/// The forms of one opcode.
struct Form {
    /// Fewest and most operands (`p|q` and `{a, b}` count as one).
    operands: (u8, u8),
    layout: Layout,
    /// Modifier classes taken (bit set of the constants above).
    classes: u8,
    /// Vector sizes `.vN` taken.
    vectors: &'static [u8],
    /// Whether `{a, b}` operands are taken (packing `mov`, `ld`/`st` data).
    vector_operands: bool,
    /// Modifier words taken, or None if the words are not checked.
    words: Option<&'static [Word]>,
}

const fn form(min: u8, max: u8, layout: Layout, classes: u8, words: &'static [Word]) -> Form {
    Form { operands: (min, max), layout, classes, vectors: &[], vector_operands: false, words: Some(words) }
}

/// Arithmetic with float forms: rounding, `.ftz`, `.sat` only there.
const FLOAT_ARITH: u8 = ROUNDING | SAT | FTZ | FLOAT_ONLY;
const NO_WORDS: &[Word] = &[];
const BOOL_OPS: &[Word] = &[Word::known("and"), Word::known("or"), Word::known("xor")];
/// `setp`/`set`: the comparisons that are also words (`.hi`, `.lo`) and
/// the BoolOps.
const COMPARE_WORDS: &[Word] =
    &[Word::known("and"), Word::known("or"), Word::known("xor"), Word::known("hi"), Word::known("lo")];

use Layout::{Branch, Load, Result, Store, Values};

const ADD: Form = form(
    3,
    3,
    Result,
    FLOAT_ARITH,
    &[Word::known("cc"), Word::known("u16x2"), Word::known("s16x2"), Word::known("f32x2")],
);
const MUL: Form =
    form(3, 3, Result, FLOAT_ARITH, &[Word::known("wide"), Word::known("hi"), Word::known("lo"), Word::known("f32x2")]);
const MAD: Form = form(
    4,
    4,
    Result,
    FLOAT_ARITH,
    &[Word::known("wide"), Word::known("hi"), Word::known("lo"), Word::known("cc"), Word::known("f32x2")],
);
const FMA: Form = form(4, 4, Result, FLOAT_ARITH, &[Word::known("relu"), Word::known("f32x2")]);
const MIN_MAX: Form = form(
    3,
    4,
    Result,
    FTZ | FLOAT_ONLY,
    &[
        Word::known("NaN"),
        Word::known("xorsign"),
        Word::known("abs"),
        Word::known("relu"),
        Word::known("u16x2"),
        Word::known("s16x2"),
        Word::known("f32x2"),
    ],
);
const DIV: Form = form(3, 3, Result, FLOAT_ARITH, &[Word::known("approx"), Word::known("full")]);
const REM: Form = form(3, 3, Result, 0, NO_WORDS);
const ABS_NEG: Form = form(2, 2, Result, FTZ | FLOAT_ONLY, &[Word::known("relu")]);
const BINARY: Form = form(3, 3, Result, 0, NO_WORDS);
const UNARY: Form = form(2, 2, Result, 0, NO_WORDS);
const APPROX: Form = form(2, 2, Result, ROUNDING | FTZ, &[Word::known("approx"), Word::known("full")]);
const BFE: Form = form(4, 4, Result, 0, NO_WORDS);
const BFI: Form = form(5, 5, Result, 0, NO_WORDS);
const BFIND: Form = form(2, 2, Result, 0, &[Word::known("shiftamt")]);
const CLAMP_WRAP: Form = form(3, 3, Result, 0, &[Word::known("clamp"), Word::known("wrap")]);
const SHF: Form =
    form(4, 4, Result, 0, &[Word::known("l"), Word::known("r"), Word::known("clamp"), Word::known("wrap")]);
const PRMT_FORM: Form = form(4, 4, Result, PRMT, NO_WORDS);
const LOP3: Form = form(5, 6, Result, 0, BOOL_OPS);
const DOT: Form = form(4, 4, Result, 0, &[Word::known("lo"), Word::known("hi")]);
const MUL24: Form = form(3, 3, Result, SAT, &[Word::known("lo"), Word::known("hi")]);
const MAD24: Form = form(4, 4, Result, SAT, &[Word::known("lo"), Word::known("hi")]);
const SAD: Form = form(4, 4, Result, 0, NO_WORDS);
const SELP: Form = form(4, 4, Result, 0, NO_WORDS);
const SLCT: Form = form(4, 4, Result, FTZ, NO_WORDS);
const COMPARE: Form = form(3, 4, Result, CMP | FTZ, COMPARE_WORDS);
const TESTP: Form = form(
    2,
    2,
    Result,
    0,
    &[
        Word::known("finite"),
        Word::known("infinite"),
        Word::known("number"),
        Word::known("notanumber"),
        Word::known("normal"),
        Word::known("subnormal"),
    ],
);
const MOV: Form = Form { vectors: &[2, 4], vector_operands: true, ..form(2, 2, Result, 0, NO_WORDS) };
const ADDC: Form = form(3, 3, Result, 0, &[Word::known("cc")]);
const MADC: Form = form(4, 4, Result, 0, &[Word::known("hi"), Word::known("lo"), Word::known("cc")]);
const CVTA: Form = form(2, 2, Result, SPACE, &[Word::known("to")]);
const VOTE: Form = form(
    2,
    3,
    Result,
    0,
    &[Word::known("all"), Word::known("any"), Word::known("uni"), Word::known("ballot"), Word::known("sync")],
);
const SHFL: Form = form(
    4,
    5,
    Result,
    0,
    &[Word::known("sync"), Word::known("up"), Word::known("down"), Word::known("bfly"), Word::known("idx")],
);
const ACTIVEMASK: Form = form(1, 1, Result, 0, NO_WORDS);
const BRA: Form = form(1, 1, Branch, 0, &[Word::known("uni")]);
const RET: Form = form(0, 0, Values, 0, &[Word::known("uni")]);
const NOTHING: Form = form(0, 0, Values, 0, NO_WORDS);
/// `ld`/`ldu`/`st`: the words of the ISA's `ld`, `ld.global.nc`, `ldu`
/// and `st` syntax blocks (semantics, scopes, cache operators, eviction
/// priorities, prefetch sizes), and `st.async`/`st.bulk`'s.
const LD_WORDS: &[Word] = &[
    Word::known("weak"),
    Word::known("volatile"),
    Word::known("relaxed"),
    Word::known("acquire"),
    Word::known("cta"),
    Word::known("cluster"),
    Word::known("gpu"),
    Word::known("sys"),
    Word::known("ca"),
    Word::known("cg"),
    Word::known("cs"),
    Word::known("lu"),
    Word::known("cv"),
    Word::known("nc"),
    Word::known("unified"),
    Word::known("mmio"),
    Word::known("L1::evict_normal"),
    Word::known("L1::evict_unchanged"),
    Word::known("L1::evict_first"),
    Word::known("L1::evict_last"),
    Word::known("L1::no_allocate"),
    Word::known("L2::evict_normal"),
    Word::known("L2::evict_first"),
    Word::known("L2::evict_last"),
    Word::known("L2::evict_unchanged"),
    Word::known("L2::cache_hint"),
    Word::known("L2::64B"),
    Word::known("L2::128B"),
    Word::known("L2::256B"),
];
const ST_WORDS: &[Word] = &[
    Word::known("weak"),
    Word::known("volatile"),
    Word::known("relaxed"),
    Word::known("release"),
    Word::known("cta"),
    Word::known("cluster"),
    Word::known("gpu"),
    Word::known("sys"),
    Word::known("wb"),
    Word::known("cg"),
    Word::known("cs"),
    Word::known("wt"),
    Word::known("mmio"),
    Word::known("L1::evict_normal"),
    Word::known("L1::evict_unchanged"),
    Word::known("L1::evict_first"),
    Word::known("L1::evict_last"),
    Word::known("L1::no_allocate"),
    Word::known("L2::evict_normal"),
    Word::known("L2::evict_first"),
    Word::known("L2::evict_last"),
    Word::known("L2::evict_unchanged"),
    Word::known("L2::cache_hint"),
    Word::known("async"),
    Word::known("bulk"),
    Word::known("mbarrier::complete_tx::bytes"),
];
const LD: Form = Form { vectors: &[2, 4, 8], vector_operands: true, ..form(2, 3, Load, SPACE, LD_WORDS) };
const LDU: Form = Form { vectors: &[2, 4], ..LD };
const ST: Form = Form { layout: Store, words: Some(ST_WORDS), ..LD };
/// `atom d, [a], b{, c}{, policy}` and `red [a], b{, policy}`: their
/// words are checked against the vocabulary only.
const ATOM: Form = Form { vectors: &[2, 4, 8], vector_operands: true, words: None, ..form(3, 5, Load, ALL, NO_WORDS) };
const RED: Form = Form { layout: Store, ..form_with_any_words(ATOM, 2, 3) };
/// `cvt`: the words of the ISA's `cvt` and `cvt.pack` syntax blocks (the
/// four-element formats are words, not types); up to
/// `cvt.rs.f16x2.f32 d, a, b, rbits`.
const CVT: Form = form(
    2,
    4,
    Result,
    ROUNDING | SAT | FTZ,
    &[
        Word::known("relu"),
        Word::known("satfinite"),
        Word::known("pack"),
        Word::known("e2m1x4"),
        Word::known("e2m3x4"),
        Word::known("e3m2x4"),
        Word::known("e4m3x4"),
        Word::known("e5m2x4"),
    ],
);

const fn form_with_any_words(base: Form, min: u8, max: u8) -> Form {
    Form { operands: (min, max), ..base }
}

/// Valid words of the listed opcodes that the vocabulary lacks (they
/// parse as `Modifier::Other`): `fma.rn.oob`.
const OUTSIDE_THE_VOCABULARY: &[&str] = &["oob"];

// Words the rules below test.
const W_L2__CACHE_HINT: Word = Word::known("L2::cache_hint");
const W_ACQUIRE: Word = Word::known("acquire");
const W_AND: Word = Word::known("and");
const W_ASYNC: Word = Word::known("async");
const W_BULK: Word = Word::known("bulk");
const W_CLUSTER: Word = Word::known("cluster");
const W_CTA: Word = Word::known("cta");
const W_GPU: Word = Word::known("gpu");
const W_HI: Word = Word::known("hi");
const W_LO: Word = Word::known("lo");
const W_OR: Word = Word::known("or");
const W_PACK: Word = Word::known("pack");
const W_RELAXED: Word = Word::known("relaxed");
const W_RELEASE: Word = Word::known("release");
const W_SYNC: Word = Word::known("sync");
const W_SYS: Word = Word::known("sys");
const W_VOLATILE: Word = Word::known("volatile");
const W_XOR: Word = Word::known("xor");

/// The form of `op`, or None if its forms are not checked.
fn form_of(op: Opcode) -> Option<&'static Form> {
    use Opcode::*;
    Some(match op {
        Add | Sub => &ADD,
        Mul => &MUL,
        Mad => &MAD,
        Addc | Subc => &ADDC,
        Madc => &MADC,
        Fma => &FMA,
        Min | Max => &MIN_MAX,
        Div => &DIV,
        Rem => &REM,
        Abs | Neg => &ABS_NEG,
        And | Or | Xor | Shl | Shr | Copysign => &BINARY,
        Not | Cnot | Popc | Clz | Brev => &UNARY,
        Rcp | Sqrt | Rsqrt | Sin | Cos | Lg2 | Ex2 | Tanh => &APPROX,
        Bfe => &BFE,
        Bfi => &BFI,
        Bfind => &BFIND,
        Bmsk | Szext => &CLAMP_WRAP,
        Shf => &SHF,
        Prmt => &PRMT_FORM,
        Lop3 => &LOP3,
        Dp4a | Dp2a => &DOT,
        Mul24 => &MUL24,
        Mad24 => &MAD24,
        Sad => &SAD,
        Selp => &SELP,
        Slct => &SLCT,
        Setp | Set => &COMPARE,
        Testp => &TESTP,
        Mov => &MOV,
        Cvta => &CVTA,
        Vote => &VOTE,
        Shfl => &SHFL,
        Activemask => &ACTIVEMASK,
        Bra => &BRA,
        Ret => &RET,
        Exit | Trap | Brkpt => &NOTHING,
        Ld => &LD,
        Ldu => &LDU,
        St => &ST,
        Cvt => &CVT,
        Atom => &ATOM,
        Red => &RED,
        _ => return None,
    })
}

/// Checks the form of `inst`, calling `report` with each error's message.
/// Returns true if the instruction is too malformed for its operand types
/// to be worth checking (wrong operand count, unknown opcode).
pub fn check(func: &Function, inst: &Inst, mut report: impl FnMut(String)) -> bool {
    if let Opcode::Other(name) = inst.opcode {
        report(format!("'{}' is not the name of any PTX instruction", func.names.get(name)));
        return true;
    }
    barrier_operands(func, inst, &mut report);
    video_operands(inst, &mut report);
    vectors_inside_brackets(inst, &mut report);
    matrix_forms(func, inst, &mut report);
    handle_without_offset(inst, &mut report);
    if let Some(bad) = sub_instruction_operands(func, inst, &mut report) {
        return bad;
    }
    let Some(form) = form_of(inst.opcode) else { return false };
    if form.words.is_none() {
        words_outside_the_isa(func, inst, &mut report);
    }
    let name = ptx_ir::print::opcode_text(func, inst.opcode);
    modifiers(func, inst, form, name, &mut report);
    let n = inst.operands.len();
    let (min, max) = operand_range(inst, form);
    if n < min as usize || n > max as usize {
        let expected = if min == max { format!("{min}") } else { format!("{min} to {max}") };
        report(format!("{name}: {n} operands, {expected} expected (ptxas: Arguments mismatch)"));
        return true;
    }
    operand_kinds(func, inst, form, name, &mut report)
}

fn modifiers(func: &Function, inst: &Inst, form: &Form, name: &str, report: &mut impl FnMut(String)) {
    let integer_type = form.classes & FLOAT_ONLY != 0
        && inst
            .types()
            .next()
            .is_some_and(|t| matches!(t.kind(), TypeKind::Signed | TypeKind::Unsigned | TypeKind::Bits));
    for m in &inst.modifiers {
        let class = match m {
            Modifier::Type(_) => continue,
            Modifier::Vector(n) => {
                if !form.vectors.contains(n) {
                    report(format!("{name}: .v{n} is not a vector size {name} takes"));
                }
                continue;
            }
            Modifier::Rounding(_) if integer_type => {
                report(format!("{name}: a rounding modifier needs a floating-point type"));
                continue;
            }
            Modifier::Ftz if integer_type => {
                report(format!("{name}: .ftz needs a floating-point type"));
                continue;
            }
            Modifier::Rounding(_) => ROUNDING,
            Modifier::Sat => SAT,
            Modifier::Ftz => FTZ,
            Modifier::Space(..) => SPACE,
            Modifier::Cmp(_) => CMP,
            Modifier::Prmt(_) => PRMT,
            Modifier::Word(w) => {
                if form.words.is_some_and(|words| !words.contains(w)) {
                    unknown_word(name, w.as_str(), report);
                }
                continue;
            }
            Modifier::Other(n) => {
                let text = func.names.get(*n);
                if form.words.is_some() && !OUTSIDE_THE_VOCABULARY.contains(&text) {
                    unknown_word(name, text, report);
                }
                continue;
            }
        };
        if form.classes & class == 0 {
            let mut text = String::new();
            ptx_ir::print::write_modifier(func, m, &mut text);
            report(format!("{name}: unknown modifier {text}"));
        }
    }
    if let (Some(n), Some(t)) = (inst.vector(), inst.types().next()) {
        vector_width(inst, name, n, t, report);
    }
    combinations(inst, name, report);
}

/// Modifiers that exist but do not go together (ptxas: "Modifier
/// '.relaxed' requires scope", "Modifier '.volatile' cannot be applied to
/// '.param' space", "Illegal rounding modifier" on an integer `cvt`).
fn combinations(inst: &Inst, name: &str, report: &mut impl FnMut(String)) {
    let has = |word: Word| inst.has_word(word);
    match inst.opcode {
        Opcode::Ld | Opcode::St => {
            let ordered = [W_RELAXED, W_ACQUIRE, W_RELEASE].into_iter().find(|&w| has(w));
            if let Some(sem) = ordered {
                if ![W_CTA, W_CLUSTER, W_GPU, W_SYS].into_iter().any(has) {
                    report(format!("{name}: .{} needs a scope (.cta, .cluster, .gpu or .sys)", sem.as_str()));
                }
            }
            if inst.space() == Some(StateSpace::Param) {
                if let Some(w) = [W_VOLATILE, W_RELAXED, W_ACQUIRE, W_RELEASE].into_iter().find(|&w| has(w)) {
                    report(format!("{name}: .{} cannot be applied to the .param space", w.as_str()));
                }
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
            Modifier::Word(w) if *w == W_HI => Some(Hi),
            Modifier::Word(w) if *w == W_LO => Some(Lo),
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

/// For the opcodes of the table whose words are not listed (`ld`, `st`,
/// `cvt`): a word that no ISA syntax block has (the vocabulary,
/// `ptx_ir::words`, holds every word of their syntax blocks, checked by
/// script). Other opcodes are not asked: their ISA text here is not
/// complete (`mbarrier.try_wait.parity`, `bar.warp.sync` are missing), and
/// ptxas accepts them.
fn words_outside_the_isa(func: &Function, inst: &Inst, report: &mut impl FnMut(String)) {
    for m in &inst.modifiers {
        if let Modifier::Other(n) = m {
            unknown_word(ptx_ir::print::opcode_text(func, inst.opcode), func.names.get(*n), report);
        }
    }
}

fn unknown_word(name: &str, text: &str, report: &mut impl FnMut(String)) {
    if is_vector_word(text) {
        report(format!("{name}: .{text} is not a vector size"));
    } else {
        report(format!("{name}: unknown modifier .{text}"));
    }
}

/// The operand counts of `inst`, where optional operands depend on its
/// modifiers (each checked with ptxas: "Arguments mismatch", or "Boolean
/// operation is required" for `setp` with a fourth operand).
fn operand_range(inst: &Inst, form: &Form) -> (u8, u8) {
    let has = |word: Word| inst.has_word(word);
    let fixed = |n: u8| (n, n);
    match inst.opcode {
        // The cache policy operand comes with .L2::cache_hint.
        Opcode::Ld => fixed(if has(W_L2__CACHE_HINT) { 3 } else { 2 }),
        // ... and st.async's mbarrier, st.bulk's initial value.
        Opcode::St => fixed(if has(W_L2__CACHE_HINT) || has(W_ASYNC) || has(W_BULK) { 3 } else { 2 }),
        Opcode::Setp | Opcode::Set => fixed(if has(W_AND) || has(W_OR) || has(W_XOR) { 4 } else { 3 }),
        Opcode::Lop3 => fixed(if has(W_AND) || has(W_OR) { 6 } else { 5 }),
        // The member mask of the .sync forms.
        Opcode::Shfl => fixed(if has(W_SYNC) { 5 } else { 4 }),
        Opcode::Vote => fixed(if has(W_SYNC) { 3 } else { 2 }),
        // Only conversions to packed types take a second (and third) source.
        Opcode::Cvt if !has(W_PACK) && inst.types().next().is_some_and(|t| !is_packed(t)) => fixed(2),
        _ => form.operands,
    }
}

/// A packed type (`.f16x2`, `.e4m3x2`), the destination of a `cvt` with
/// two sources.
fn is_packed(t: ScalarType) -> bool {
    use ScalarType::*;
    matches!(t, F16x2 | Bf16x2 | E4m3x2 | E5m2x2 | E2m1x2 | E2m3x2 | E3m2x2 | Ue8m0x2)
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

/// Operand kinds per position: results are registers, values are not
/// addresses, labels or sinks, `{...}` only where taken.
fn operand_kinds(func: &Function, inst: &Inst, form: &Form, name: &str, report: &mut impl FnMut(String)) -> bool {
    let n = inst.operands.len();
    let mut bad = false;
    for (i, op) in inst.operands.iter().enumerate() {
        let role = match form.layout {
            Result | Load if i == 0 => Role::Result,
            Load if i == 1 => Role::Address,
            Store if i == 0 => Role::Address,
            // `st.async [a], b, [mbar]`, `red.async`: a trailing address.
            Load | Store if i >= 2 => Role::Trailing,
            Branch if i + 1 == n => Role::Label,
            _ => Role::Value,
        };
        let problem = match (role, op) {
            (_, Operand::Vector(elems)) if form.vector_operands && !matches!(elems.len(), 1 | 2 | 4 | 8) => {
                Some("is a vector of a size PTX does not have (1, 2, 4 or 8 elements)")
            }
            (Role::Value, Operand::Symbol(s))
                if takes_parameters(inst.opcode) && is_parameter(func, func.names.get(*s)) =>
            {
                Some("is a parameter; a register is required (load it with ld.param)")
            }
            (Role::Address, Operand::Address(_)) => None,
            (Role::Address, _) => Some("must be an address [...]"),
            (Role::Label, Operand::Label(_) | Operand::Symbol(_)) => None,
            (Role::Label, _) => Some("must be a label"),
            (_, Operand::Vector(_)) if !form.vector_operands => Some("is a vector {...}, which is not allowed here"),
            (Role::Result, Operand::Int(_) | Operand::Float(_)) => Some("is a literal; a result register is required"),
            (Role::Result, Operand::Special(_)) => Some("is a special register, which cannot be written"),
            (Role::Result, Operand::Symbol(s)) if !func.names.get(*s).starts_with('%') => {
                Some("is a variable; a result register is required")
            }
            (Role::Result, Operand::Not(_) | Operand::Neg(_) | Operand::Parens(_)) => {
                Some("is not a register; a result register is required")
            }
            (Role::Trailing, Operand::Address(_)) => None,
            (_, Operand::Address(_)) => Some("is an address [...], which is not allowed here"),
            (_, Operand::Label(_)) => Some("is a label, which is not allowed here"),
            (Role::Value | Role::Trailing, Operand::Sink) => Some("is '_', which is not allowed here"),
            (_, Operand::Parens(_)) => Some("is a (...) list, which is not allowed here"),
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

#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Result,
    Value,
    Address,
    Label,
    /// After the address and data of a memory access: a value or an address.
    Trailing,
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

/// The text of the first modifier of `inst` (`load` of `wmma.load.a`).
fn first_word<'a>(func: &'a Function, inst: &'a Inst) -> Option<&'a str> {
    match inst.modifiers.first()? {
        Modifier::Word(w) => Some(w.as_str()),
        Modifier::Other(n) => Some(func.names.get(*n)),
        _ => None,
    }
}

/// Operand counts and address positions of instructions outside the
/// table, told apart by their first word: `wmma.load d, [a]{, stride}`,
/// `wmma.store [a], r{, stride}` (ptxas 13.5: "Arguments mismatch" for a
/// fourth operand, a missing address or an address elsewhere). None if
/// `inst` is not one of them, else whether it is malformed.
fn sub_instruction_operands(func: &Function, inst: &Inst, report: &mut impl FnMut(String)) -> Option<bool> {
    let (min, max, address) = match (inst.opcode, first_word(func, inst)?) {
        (Opcode::Wmma, "load") => (2, 3, 1),
        (Opcode::Wmma, "store") => (2, 3, 0),
        _ => return None,
    };
    let name = ptx_ir::print::opcode_text(func, inst.opcode);
    let n = inst.operands.len();
    if n < min || n > max {
        report(format!("{name}: {n} operands, {min} to {max} expected (ptxas: Arguments mismatch)"));
        return Some(true);
    }
    for (i, op) in inst.operands.iter().enumerate() {
        let is_address = matches!(op, Operand::Address(_));
        if (i == address) != is_address {
            let what = if is_address { "cannot be an address [...]" } else { "must be an address [...]" };
            report(format!("{name}: operand {} {what}", i + 1));
            return Some(true);
        }
    }
    Some(false)
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
