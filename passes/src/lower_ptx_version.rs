//! `lower-ptx-version<to=X.Y>`: rewrite the instructions that need a newer
//! `.version` than `X.Y` into older forms that mean exactly the same, where
//! there are such forms.
//!
//! A driver older than the toolkit that wrote a module refuses its
//! `.version`; `--ptx-version` (and `--cuda`) write an older one when the
//! module allows it. This pass is what lets more modules allow it: it runs
//! when `--ptx-version` or `--cuda` asks for less than the module's newest
//! instruction needs, and touches only instructions whose need (from the
//! verifier's table) is newer than `X.Y`. Rewrites, each a remark:
//!
//! 1. Cache hints are hints: a load, store, atomic, prefetch or `cp.async`
//!    loses the words of its cache-hint slots (the ISA's
//!    `.level::cache_hint` with its `cache-policy` operand,
//!    `.level1::eviction_priority`, `.level2::eviction_priority`,
//!    `.level::prefetch_size`; a prefetch's `.level::eviction_priority`
//!    becomes plain `.L2`), and `applypriority` goes. Values and memory are
//!    the same; only what the caches keep changes. The `createpolicy` whose
//!    policy no instruction reads afterwards is deleted.
//! 2. `cvt.pack.sat.T.s32 d, a, b{, c}` (PTX 6.5): each source clamped with
//!    `max.s32`/`min.s32` to T's range, then packed with `bfi` (`b` low, `a`
//!    above it, the low bits of `c` above both), the ISA's own semantics.
//! 3. `abs.f16`/`abs.f16x2` without `.ftz` (PTX 6.5): `and` with the mask
//!    clearing each sign bit (the ISA leaves a NaN's payload unspecified; the
//!    mask keeps it). `.ftz` flushes subnormals, which `and` does not: left.
//! 4. `set.CmpOp.u32.f16x2` / `.s32.f16x2` (PTX 6.5: `0xffff` per true
//!    half): the same comparison with an `.f16x2` result (PTX 4.2: `1.0`,
//!    `0x3c00`, per true half), whose bit 10 per half is shifted down, masked
//!    and multiplied by `0xffff`.
//!
//! Anything else that needs more than `X.Y` is left as it is (and the
//! version check refuses the module, naming it); so are forms whose
//! rewritten self would still need more than `X.Y` (`cp.async.bulk`
//! without its hint is still PTX 8.0). A guarded instruction's rewrite runs
//! under the same guard, and every rewrite writes its destination last, so
//! a destination that is also a source reads the old value.

use ptx_analysis::Values;
use ptx_ir::{Diagnostic, Function, Inst, InstId, Modifier, Opcode, Operand, ScalarType, Word};
use ptx_pass::{Counter, FunctionContext, Missed, Rewriter, Rule};
use ptx_verify::Target;
use std::sync::OnceLock;

/// The pass: lowers to `to`, a (major, minor) `.version`.
pub struct LowerPtxVersion {
    /// The `.version` asked for.
    pub to: (u32, u32),
}

/// The options of a pipeline text, `lower-ptx-version<to=X.Y>`, for `--help`.
pub const OPTIONS: &str = "to=X.Y: the .version to lower to (required)";

/// Makes the pass from the options of a pipeline text (`to=X.Y`).
pub fn create_with(options: &str) -> Result<Box<dyn ptx_pass::Pass>, String> {
    let mut to = None;
    for option in options.split(';').map(str::trim).filter(|o| !o.is_empty()) {
        match option.split_once('=').map(|(key, value)| (key.trim(), value.trim())) {
            Some(("to", v)) => {
                let version = v.split_once('.').and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)));
                to = Some(version.ok_or_else(|| format!("to takes a version such as 7.8, not '{v}'"))?);
            }
            _ => return Err(format!("unknown option '{option}' (it takes {OPTIONS})")),
        }
    }
    let to = to.ok_or_else(|| NEEDS_VERSION.to_string())?;
    Ok(Box::new(ptx_pass::PerFunction(LowerPtxVersion { to })))
}

/// Without options (a registry user that does not go through the option
/// parser, which refuses a bare `lower-ptx-version`): a pass that says it
/// needs them, instead of one that silently does nothing.
pub(crate) fn create() -> Box<dyn ptx_pass::Pass> {
    Box::new(WithoutVersion)
}

struct WithoutVersion;

impl ptx_pass::Pass for WithoutVersion {
    fn name(&self) -> &'static str {
        "lower-ptx-version"
    }

    fn run(&self, _: &mut ptx_ir::Module, _: &mut ptx_pass::PassContext<'_>) -> Result<bool, Vec<Diagnostic>> {
        Err(vec![Diagnostic::new(ptx_ir::Span::default(), NEEDS_VERSION.to_string())])
    }
}

const NEEDS_VERSION: &str = "the version to lower to is required: lower-ptx-version<to=X.Y>";

const HINTS: Counter = Counter::new("hints-dropped", "instructions whose cache hints were dropped");
const PRIORITIES: Counter = Counter::new("applypriority-deleted", "applypriority (a cache hint) deleted");
const PACKS: Counter = Counter::new("cvt-pack-expanded", "cvt.pack.sat written as min/max and bfi");
const ABS: Counter = Counter::new("abs-half-masked", "abs.f16/abs.f16x2 written as and with the sign mask");
const SETS: Counter = Counter::new("set-halves-masked", "set.u32.f16x2/set.s32.f16x2 written through set.f16x2.f16x2");
const DEAD: Counter = Counter::new("policies-deleted", "createpolicy left without readers deleted");

/// The ISA's cache-hint slots: words that only say what caches should keep.
const HINT_SLOTS: &[&str] = &[
    "level::cache_hint",
    "level1::eviction_priority",
    "level2::eviction_priority",
    "level::prefetch_size",
    "level::eviction_priority",
];

/// The words of the hint slots anywhere in the description, and
/// `.L2::cache_hint` where a form writes it literally.
fn hint_words() -> &'static [Word] {
    static WORDS: OnceLock<Vec<Word>> = OnceLock::new();
    WORDS.get_or_init(|| {
        let isa = &ptx_isa::ISA;
        let mut words: Vec<Word> = isa
            .forms
            .iter()
            .flat_map(|form| form.slots.iter())
            .filter(|slot| HINT_SLOTS.contains(&slot.name.as_str()))
            .flat_map(|slot| slot.words.iter().filter_map(|&w| Word::from_index(w)))
            .chain([Word::L2__CACHE_HINT])
            .collect();
        words.sort_by_key(|w| w.index());
        words.dedup();
        words
    })
}

/// What to do with one instruction.
pub enum Plan {
    /// Replace it with this one (its hints dropped).
    Replace(Inst),
    /// Delete it (`applypriority`).
    Erase,
    /// `cvt.pack.sat` as clamps and `bfi`s.
    CvtPack(CvtPack),
    /// `and` with the sign mask (`.b16` or `.b32`).
    AbsMask(ScalarType),
    /// A comparison of halves with an integer result, through an `.f16x2` one.
    SetHalves,
}

/// The parts of a `cvt.pack.sat`.
pub struct CvtPack {
    ty: ScalarType,
    operands: Vec<Operand>,
}

/// `inst` without its cache hints, if it has any.
fn without_hints(inst: &Inst) -> Option<Inst> {
    let hints = hint_words();
    let is_hint = |m: &Modifier| m.word().is_some_and(|w| hints.contains(&w));
    if !has_hints(inst) {
        return None;
    }
    let view = ptx_ir::forms::FormView::of(inst)?;
    let policy = view.operand("cache-policy").map(|p| p as *const Operand);
    let mut out = inst.clone();
    let prefetch_level = inst.opcode == Opcode::Prefetch && view.slot("level::eviction_priority").is_some();
    out.modifiers = inst
        .modifiers
        .iter()
        .filter_map(|m| match m {
            // A prefetch's eviction priority names its level too.
            m if prefetch_level && is_hint(m) => Some(Modifier::Word(Word::L2)),
            m if is_hint(m) => None,
            m => Some(m.clone()),
        })
        .collect();
    if let Some(policy) = policy {
        out.operands = inst.operands.iter().filter(|o| !std::ptr::eq(*o, policy)).cloned().collect();
    }
    Some(out)
}

/// `cvt.pack.sat.T.s32{.b32} d, a, b{, c}`: its conversion type and operands.
fn as_cvt_pack(inst: &Inst) -> Option<CvtPack> {
    if inst.opcode != Opcode::Cvt || !inst.modifiers.iter().any(|m| m.word() == Some(Word::PACK)) {
        return None;
    }
    let types: Vec<ScalarType> = inst.types().collect();
    let ty = *types.first()?;
    let sizes_known = matches!(ty.bits(), 2 | 4 | 8 | 16) && types.get(1) == Some(&ScalarType::S32);
    let with_c = ty.bits() < 16;
    if !sizes_known || inst.operands.len() != if with_c { 4 } else { 3 } || !inst.modifiers.contains(&Modifier::Sat) {
        return None;
    }
    Some(CvtPack { ty, operands: inst.operands.to_vec() })
}

/// `abs.f16`/`abs.f16x2` without `.ftz`: the `and` type of its mask.
fn abs_half_mask(inst: &Inst) -> Option<ScalarType> {
    if inst.opcode != Opcode::Abs || inst.is_ftz() {
        return None;
    }
    match inst.types().collect::<Vec<_>>()[..] {
        [ScalarType::F16] => Some(ScalarType::B16),
        [ScalarType::F16x2] => Some(ScalarType::B32),
        _ => None,
    }
}

/// `set.CmpOp{.BoolOp}{.ftz}.{u32,s32}.f16x2`.
fn is_set_halves_to_integer(inst: &Inst) -> bool {
    let types: Vec<ScalarType> = inst.types().collect();
    inst.opcode == Opcode::Set && matches!(types[..], [ScalarType::U32 | ScalarType::S32, ScalarType::F16x2])
}

/// (lowest, highest) of `ty` as a 32-bit two's complement pattern.
fn bounds(ty: ScalarType) -> (u64, u64) {
    let bits = ty.bits();
    if ty.is_signed() {
        let min = -(1i64 << (bits - 1));
        (u64::from(min as u32), (1u64 << (bits - 1)) - 1)
    } else {
        (0, (1u64 << bits) - 1)
    }
}

/// True if `inst` has a word of a cache-hint slot.
fn has_hints(inst: &Inst) -> bool {
    let hints = hint_words();
    inst.modifiers.iter().any(|m| m.word().is_some_and(|w| hints.contains(&w)))
}

impl Rule for LowerPtxVersion {
    type Plan = Plan;

    fn name(&self) -> &'static str {
        "lower-ptx-version"
    }

    fn roots(&self) -> &[Opcode] {
        &[
            Opcode::Ld,
            Opcode::St,
            Opcode::Atom,
            Opcode::Red,
            Opcode::Prefetch,
            Opcode::Cp,
            Opcode::Applypriority,
            Opcode::Cvt,
            Opcode::Abs,
            Opcode::Set,
        ]
    }

    fn temp_tag(&self) -> &'static str {
        "lower"
    }

    /// The cheap test: only what could be rewritten.
    fn may_root(&self, inst: &Inst) -> bool {
        match inst.opcode {
            Opcode::Applypriority => true,
            Opcode::Cvt => as_cvt_pack(inst).is_some(),
            Opcode::Abs => abs_half_mask(inst).is_some(),
            Opcode::Set => is_set_halves_to_integer(inst),
            op => self.roots().contains(&op) && has_hints(inst),
        }
    }

    /// A module written for `to` or older has nothing newer to lower.
    fn enabled(&self, func: &Function, cx: &mut FunctionContext<'_>) -> bool {
        let _ = func;
        cx.module.target.version() > self.to
    }

    fn decide(&self, values: &Values<'_>, id: InstId) -> Result<Plan, Missed> {
        let func = values.function();
        let inst = values.inst(id);
        let Some(need) = Target::need_newer_than(func, inst, self.to) else { return Err(Missed::silently()) };
        let what = Target::need_name(need);
        let still = |why: &str| Missed::because(format!("'{what}' left: {why}, and the version check refuses it"));
        let plan = if inst.opcode == Opcode::Applypriority {
            Plan::Erase
        } else if let Some(pack) = as_cvt_pack(inst) {
            Plan::CvtPack(pack)
        } else if let Some(ty) = abs_half_mask(inst) {
            Plan::AbsMask(ty)
        } else if is_set_halves_to_integer(inst) {
            Plan::SetHalves
        } else if let Some(lowered) = without_hints(inst) {
            if ptx_ir::forms::FormView::of(&lowered).is_none() {
                return Err(still("without its cache hints it is no instruction of the ISA"));
            }
            if let Some(need) = Target::need_newer_than(func, &lowered, self.to) {
                let need = Target::need_name(need);
                return Err(still(&format!("without its cache hints it is still '{need}'")));
            }
            Plan::Replace(lowered)
        } else {
            return Err(still("no older form means the same"));
        };
        Ok(plan)
    }

    fn build(&self, rw: &mut Rewriter<'_, '_, '_>, id: InstId, plan: Plan) {
        let old = rw.inst(id).clone();
        let span = old.span;
        match plan {
            Plan::Replace(inst) => {
                rw.replace(id, inst);
                rw.count(HINTS, 1);
                rw.remark(span, "cache hints dropped (they change what caches keep, not values)");
            }
            Plan::Erase => {
                rw.erase(id);
                rw.count(PRIORITIES, 1);
                rw.remark(span, "applypriority deleted (a cache hint)");
            }
            Plan::AbsMask(ty) => {
                let mask = if ty == ScalarType::B16 { 0x7fff } else { 0x7fff_7fff };
                let (d, a) = (old.operands[0].clone(), old.operands[1].clone());
                rw.replace(id, Inst::and(ty, d, a, Operand::imm(mask)).build().with_guard(old.guard));
                rw.count(ABS, 1);
                rw.remark(span, "abs of halves written as and with the sign mask");
            }
            Plan::SetHalves => {
                let halves = Operand::Reg(rw.temp(ScalarType::B32));
                let mut as_halves = old.clone();
                as_halves.operands[0] = halves.clone();
                as_halves.modifiers.edit(|list| {
                    let dtype = list.iter_mut().find(|m| matches!(m, Modifier::Type(_)));
                    *dtype.expect("set has a destination type") = Modifier::Type(ScalarType::F16x2);
                });
                rw.insert_before(id, as_halves);
                let bits = Operand::Reg(rw.temp(ScalarType::B32));
                rw.insert_before(id, Inst::shr(ScalarType::B32, bits.clone(), halves, Operand::imm(10)).build());
                rw.insert_before(
                    id,
                    Inst::and(ScalarType::B32, bits.clone(), bits.clone(), Operand::imm(0x1_0001)).build(),
                );
                let d = old.operands[0].clone();
                let mask = Inst::mul(Word::LO, ScalarType::U32, d, bits, Operand::imm(0xffff)).build();
                rw.replace(id, mask.with_guard(old.guard));
                rw.count(SETS, 1);
                rw.remark(span, "set with an integer result of halves written through an .f16x2 result");
            }
            Plan::CvtPack(CvtPack { ty, operands }) => {
                let (min, max) = bounds(ty);
                let clamp = |rw: &mut Rewriter<'_, '_, '_>, source: &Operand| -> Operand {
                    let t = Operand::Reg(rw.temp(ScalarType::S32));
                    rw.insert_before(
                        id,
                        Inst::max(ScalarType::S32, t.clone(), source.clone(), Operand::imm(min)).build(),
                    );
                    rw.insert_before(id, Inst::min(ScalarType::S32, t.clone(), t.clone(), Operand::imm(max)).build());
                    t
                };
                let high = clamp(rw, &operands[1]);
                let low = clamp(rw, &operands[2]);
                let size = u64::from(ty.bits());
                let d = operands[0].clone();
                let (pos, len) = (Operand::imm(size), Operand::imm(size));
                let last = match operands.get(3) {
                    None => Inst::bfi(ScalarType::B32, d, high, low, pos, len).build(),
                    Some(c) => {
                        let packed = Operand::Reg(rw.temp(ScalarType::B32));
                        rw.insert_before(id, Inst::bfi(ScalarType::B32, packed.clone(), high, low, pos, len).build());
                        let (pos, len) = (Operand::imm(2 * size), Operand::imm(32 - 2 * size));
                        Inst::bfi(ScalarType::B32, d, c.clone(), packed, pos, len).build()
                    }
                };
                rw.replace(id, last.with_guard(old.guard));
                rw.count(PACKS, 1);
                rw.remark(span, "cvt.pack.sat written as min/max clamps and bfi (PTX 6.5 is needed for cvt.pack)");
            }
        }
    }

    /// A `createpolicy` makes only a cache policy: once no hint reads it, it goes.
    fn may_die(&self, feeder: &Inst) -> bool {
        feeder.opcode == Opcode::Createpolicy
    }

    fn dead_counter(&self) -> Option<Counter> {
        Some(DEAD)
    }
}
