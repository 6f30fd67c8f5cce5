//! The module header (`.version`, `.target`, `.address_size`) and what each
//! instruction needs of it: [`Target`].
//!
//! Everything here is measured with ptxas 13.5, the judge of validity, and
//! kept in the description of the instruction set
//! (`crates/ptx-isa/isa/02-targets-and-requirements.ptxisa`, written by
//! `scripts/verify-target/generate.py`): the `.version`s and `.target`s it
//! accepts, the lowest `.version` each target needs, and for each
//! instruction form of `scripts/verify-target/probes.txt` the lowest
//! `.version` and the targets where ptxas accepts it (`ptx_isa::model::Need`).
//! A need names the instructions it applies to by opcode and modifiers
//! (`cvt` with `.pack` and `.u4`) and requires only what the loosest of its
//! probes needs, so it rejects a module only where ptxas rejected every
//! probe of the row.
//!
//! Where the table cannot be sure nothing is rejected: targets whose
//! instructions were not probed (ptxas 13.5 cannot check code for `sm_1x`
//! or `sm_101`), modules older than the probed versions, a `.target` that
//! lists two `sm_` targets, `sm_` names with a suffix other than `a`/`f`
//! (ptxas accepts `sm_80x`), and instructions no row names.
//!
//! Cost: [`Target::of`] selects the needs the header fails, once per module;
//! most modules fail none, and then an instruction costs one emptiness test.
//! Otherwise a look-up by opcode; nothing is allocated unless an error is
//! reported.

use ptx_ir::{
    Diagnostic, Function, Inst, Modifier, Module, Opcode, Operand, RawDirective, ScalarType, Span, Stmt, Word,
};
use ptx_isa::model::{Forbid, Need, TargetInfo};
use ptx_isa::ISA;
use rustc_hash::FxHashMap;

/// The version as ptxas reads it: `8.10` is 8 * 10 + 10, i.e. 9.0.
fn version_number((major, minor): (u32, u32)) -> u32 {
    major.saturating_mul(10).saturating_add(minor)
}

/// `sm_80`, `sm_090a` → (80, ""), (90, "a"); None if `name` is not `sm_`
/// followed by digits.
fn split_sm(name: &str) -> Option<(u32, &str)> {
    let rest = name.strip_prefix("sm_")?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let number = rest[..digits].parse().unwrap_or(u32::MAX);
    Some((number, &rest[digits..]))
}

/// The table's entry for an `sm_` target name (`sm_080` is `sm_80`).
fn target_info(name: &str) -> Option<&'static TargetInfo> {
    let (number, suffix) = split_sm(name)?;
    ISA.targets.iter().find(|t| split_sm(t.name) == Some((number, suffix)))
}

/// What a `.target` entry is to ptxas.
enum HeaderTarget {
    /// An `sm_`/`compute_` target of the table.
    Known(&'static TargetInfo),
    /// A word ptxas accepts (`debug`, `texmode_independent`).
    Word,
    Unsupported,
}

/// `compute_N` is read as `sm_N`; a suffix other than `a`/`f` is ignored
/// (`sm_80x` is `sm_80`; ptxas 13.5 accepts it), but the number must be
/// a target's (`sm_8x`, `sm_xyz`, `compute_800` are "Unsupported").
fn header_target_info(target: &str) -> HeaderTarget {
    let Some(rest) = target.strip_prefix("sm_").or_else(|| target.strip_prefix("compute_")) else {
        return if ISA.target_words.contains(&target) { HeaderTarget::Word } else { HeaderTarget::Unsupported };
    };
    let Some((number, suffix)) = split_sm(&format!("sm_{rest}")).map(|(n, s)| (n, s.to_string())) else {
        return HeaderTarget::Unsupported;
    };
    let suffix = if matches!(suffix.as_str(), "a" | "f") { suffix.as_str() } else { "" };
    match ISA.targets.iter().find(|t| split_sm(t.name) == Some((number, suffix))) {
        Some(info) => HeaderTarget::Known(info),
        None => HeaderTarget::Unsupported,
    }
}

/// True if `need` allows the probed target `info`: one of its targets, or
/// numbered from its lowest up (`sm_90+`).
fn allows_target(need: &Need, info: &TargetInfo) -> bool {
    if need.from_lowest {
        let lowest = need.targets.first().and_then(|t| split_sm(t)).map_or(u32::MAX, |(n, _)| n);
        split_sm(info.name).is_some_and(|(n, _)| n >= lowest)
    } else {
        need.targets.iter().any(|t| *t == info.name)
    }
}

/// The forbidden forms that apply to `.version` `version` on `info` (every
/// one without a target condition when the target is not known).
fn forbidden_on(version: (u32, u32), info: Option<&'static TargetInfo>) -> Vec<(&'static Forbid, Box<[WordTest]>)> {
    let number = version_number(version);
    let on_target = |f: &Forbid| {
        if f.targets.is_empty() {
            return true;
        }
        let Some(info) = info else { return false };
        if f.from_lowest {
            let lowest = f.targets.first().and_then(|t| split_sm(t)).map_or(u32::MAX, |(n, _)| n);
            split_sm(info.name).is_some_and(|(n, _)| n >= lowest)
        } else {
            f.targets.contains(&info.name)
        }
    };
    ISA.forbids
        .iter()
        .filter(|f| number >= f.from_version && on_target(f))
        .map(|f| (f, f.with.iter().map(|&w| WordTest::of(w)).collect()))
        .collect()
}

/// What a module targets, `.version` and `sm_` target, and what of the
/// instruction set it allows: the one place that answers "may this
/// instruction be written for this target?" (the verifier asks it of every
/// instruction; a pass asks it before it builds one that needs more than
/// the oldest PTX, as `combine-cvt-pack` does for `cvt.pack.sat`).
#[derive(Clone, Debug, Default)]
pub struct Target {
    /// `.version` (major, minor).
    version: (u32, u32),
    /// The `sm_` target, if the header names exactly one the table has.
    info: Option<&'static TargetInfo>,
    /// The table can judge this target: a probed `sm_` target and a
    /// `.version` ptxas accepts, at least the probed ones and the target's.
    judged: bool,
    /// What the header fails and forbids (shared: a process judges a
    /// header once, see [`Target::new`]).
    judgement: std::sync::Arc<Judgement>,
    /// The `.target` directives of function bodies, by source offset: ptxas
    /// reads each as the target from there on, to the end of the file.
    later: Vec<(u32, Target)>,
}

/// A need of the table a target does not meet, and how.
#[derive(Clone, Copy, Debug)]
pub struct Unmet {
    /// The need.
    pub need: &'static Need,
    /// The target's `.version` is too old for it.
    pub version: bool,
    /// The target's `sm_` is not among its targets.
    pub target: bool,
}

#[derive(Clone, Debug, Default)]
struct Judgement {
    /// Needs the header fails, in table order (by opcode).
    failing: Vec<Failing>,
    /// Where the needs of each known opcode lie in `failing`: an
    /// instruction costs one hash look-up, not a search by text.
    failing_by_opcode: FxHashMap<Opcode, std::ops::Range<usize>>,
    /// Special-register needs the header fails.
    failing_specials: Vec<Failing>,
    /// The forbidden forms that apply to this header, with their words.
    forbidden: Vec<(&'static Forbid, Box<[WordTest]>)>,
}

#[derive(Clone, Debug)]
struct Failing {
    need: &'static Need,
    version: bool,
    target: bool,
    /// `need.with`, resolved against the vocabulary.
    with: Box<[WordTest]>,
}

/// A word a row of the table requires of an instruction (`!word`: requires
/// it absent), looked up in the vocabulary once, when a header is judged,
/// not at every instruction.
#[derive(Clone, Copy, Debug)]
struct WordTest {
    text: &'static str,
    word: Option<ptx_ir::Word>,
    negated: bool,
}

impl WordTest {
    fn of(text: &'static str) -> WordTest {
        let (negated, text) = match text.strip_prefix('!') {
            Some(absent) => (true, absent),
            None => (false, text),
        };
        WordTest { text, word: ptx_ir::Word::lookup(text), negated }
    }

    /// True if `inst` (of `func`) has the word, or lacks it if negated.
    fn holds(&self, func: &Function, inst: &Inst) -> bool {
        inst.modifiers.iter().any(|m| match m {
            Modifier::Other(n) => func.names.get(*n) == self.text,
            Modifier::Vector(n) => self.text.strip_prefix('v').and_then(|k| k.parse::<u8>().ok()) == Some(*n),
            known => self.word.is_some() && known.word() == self.word,
        }) != self.negated
    }
}

impl Target {
    /// The target a module declares: its header's, and the `.target`
    /// directives inside function bodies, each in effect from its line on
    /// (ptxas 13.5 accepts them).
    pub fn of(module: &Module) -> Target {
        Target { later: later_targets(module), ..Target::of_entries(module.version, &module.target) }
    }

    /// The target `module` is written for, seen as `sm` (`--target`): its
    /// own `.version` with another `sm_` target in the header (`.target`
    /// directives in function bodies still count from their lines on).
    pub fn retargeted(module: &Module, sm: &str) -> Target {
        Target { later: later_targets(module), ..Target::new(module.version, sm) }
    }

    /// The target of a `.target` directive's entries (`sm_90a`, `debug`):
    /// one the table can judge only if exactly one entry is an `sm_` target.
    fn of_entries<S: AsRef<str>>(version: (u32, u32), entries: &[S]) -> Target {
        let mut sm_targets = entries.iter().map(AsRef::as_ref).filter(|t| t.starts_with("sm_"));
        match (sm_targets.next(), sm_targets.next()) {
            (Some(sm), None) => Target::new(version, sm),
            _ => Target {
                version,
                judgement: std::sync::Arc::new(Judgement {
                    forbidden: forbidden_on(version, None),
                    ..Judgement::default()
                }),
                ..Target::default()
            },
        }
    }

    /// True if the same target holds everywhere in the module (no
    /// `.target` in a function body).
    pub(crate) fn is_uniform(&self) -> bool {
        self.later.is_empty()
    }

    /// The target in effect at byte offset `at` of the source.
    fn at(&self, at: u32) -> &Target {
        match self.later.partition_point(|(offset, _)| *offset <= at) {
            0 => self,
            i => &self.later[i - 1].1,
        }
    }

    /// `.version` `version` and `.target` `sm` (`sm_90a`).
    pub fn new(version: (u32, u32), sm: &str) -> Target {
        // Judging a header walks the whole table, and a process (a corpus
        // run, a JIT) meets the same few headers again and again.
        type Judged = Vec<((u32, u32), Box<str>, Target)>;
        static JUDGED: std::sync::Mutex<Judged> = std::sync::Mutex::new(Vec::new());
        const KEPT: usize = 64;
        let known = JUDGED.lock().ok().and_then(|judged| {
            judged.iter().find(|(v, s, _)| *v == version && **s == *sm).map(|(_, _, target)| target.clone())
        });
        if let Some(target) = known {
            return target;
        }
        let target = Target::judge(version, sm);
        if let Ok(mut judged) = JUDGED.lock() {
            if judged.len() < KEPT {
                judged.push((version, sm.into(), target.clone()));
            }
        }
        target
    }

    fn judge(version: (u32, u32), sm: &str) -> Target {
        let mut target = Target { version, ..Target::default() };
        let mut judgement = Judgement { forbidden: forbidden_on(version, target_info(sm)), ..Judgement::default() };
        let number = version_number(version);
        let info = target_info(sm);
        target.info = info;
        if let Some(info) = info.filter(|i| {
            i.probed && ISA.versions.contains(&number) && number >= ISA.probed_from && number >= i.min_version
        }) {
            target.judged = true;
            for need in ISA.needs {
                let (version, target) = (number < need.min_version, !allows_target(need, info));
                if version || target {
                    let with = need.with.iter().map(|w| WordTest::of(w.as_str())).collect();
                    let failing = Failing { need, version, target, with };
                    if need.opcode.starts_with('%') {
                        judgement.failing_specials.push(failing);
                    } else {
                        judgement.failing.push(failing);
                    }
                }
            }
            let failing = &judgement.failing;
            let mut start = 0;
            while start < failing.len() {
                let opcode = failing[start].need.opcode.as_str();
                let end = start + failing[start..].iter().take_while(|f| f.need.opcode == opcode).count();
                if let Some(known) = Opcode::from_name(opcode) {
                    judgement.failing_by_opcode.insert(known, start..end);
                }
                start = end;
            }
        }
        target.judgement = std::sync::Arc::new(judgement);
        target
    }

    /// True if `name` is written as an `sm_` target: `sm_` and two or three
    /// digits, optionally `a` or `f` (`sm_80`, `sm_90a`, `sm_100f`). Whether
    /// the table knows it is [`Target::name`]'s question.
    pub fn is_sm_name(name: &str) -> bool {
        name.strip_prefix("sm_")
            .map(|rest| rest.strip_suffix(['a', 'f']).unwrap_or(rest))
            .is_some_and(|digits| (2..=3).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit()))
    }

    /// The target as a pass says it: `PTX 8.0 and sm_90`, and the targets of
    /// `.target` directives in function bodies (`PTX 8.0 and sm_90, then
    /// sm_70 from a .target in a function body`).
    pub fn describe(&self) -> String {
        let name = |t: &Target| t.name().unwrap_or("no sm_ target the table can judge");
        let (major, minor) = self.version;
        let mut text = format!("PTX {major}.{minor} and {}", name(self));
        for (_, later) in &self.later {
            text.push_str(&format!(", then {} from a .target in a function body", name(later)));
        }
        text
    }

    /// `.version` (major, minor).
    pub fn version(&self) -> (u32, u32) {
        self.version
    }

    /// The `sm_` target (`sm_90a`), if the header names one the table has.
    pub fn name(&self) -> Option<&'static str> {
        self.info.map(|i| i.name)
    }

    /// The `.version` values ptxas accepts, oldest first.
    pub fn known_versions() -> impl Iterator<Item = (u32, u32)> {
        ISA.versions.iter().map(|v| (v / 10, v % 10))
    }

    /// The lowest `.version` ptxas accepts with `.target` `sm` (`sm_90a`),
    /// if the table knows the target.
    pub fn lowest_version_for(sm: &str) -> Option<(u32, u32)> {
        target_info(sm).map(|t| (t.min_version / 10, t.min_version % 10))
    }

    /// The lowest `.version` whose instructions the table can judge.
    pub fn lowest_judged_version() -> (u32, u32) {
        (ISA.probed_from / 10, ISA.probed_from % 10)
    }

    /// The number of the `sm_` target (90 for `sm_90a`).
    pub fn sm(&self) -> Option<u32> {
        self.info.and_then(|i| split_sm(i.name)).map(|(n, _)| n)
    }

    /// The rule of the table that forbids `inst` (of `func`) on this target,
    /// if one does: a form the ISA describes that ptxas rejects here.
    pub fn forbids(&self, func: &Function, inst: &Inst) -> Option<&'static Forbid> {
        self.at(inst.span.start).forbids_here(func, inst)
    }

    fn forbids_here(&self, func: &Function, inst: &Inst) -> Option<&'static Forbid> {
        let forbidden = &self.judgement.forbidden;
        if forbidden.is_empty() {
            return None;
        }
        let opcode = ptx_ir::print::opcode_text(func, inst.opcode);
        forbidden
            .iter()
            .find(|(f, with)| f.opcode == opcode && with.iter().all(|w| w.holds(func, inst)))
            .map(|(f, _)| *f)
    }

    /// What `inst` (of `func`) needs that this target lacks, if anything:
    /// the target in effect where `inst` is in the source.
    pub fn needs(&self, func: &Function, inst: &Inst) -> Option<Unmet> {
        self.at(inst.span.start).needs_here(func, inst)
    }

    fn needs_here(&self, func: &Function, inst: &Inst) -> Option<Unmet> {
        let Judgement { failing, failing_by_opcode, failing_specials, .. } = &*self.judgement;
        if failing.is_empty() && failing_specials.is_empty() {
            return None;
        }
        let rows = match inst.opcode {
            Opcode::Other(op) => {
                let opcode = func.names.opcode(op);
                let start = failing.partition_point(|f| f.need.opcode.as_str() < opcode);
                let end = start + failing[start..].iter().take_while(|f| f.need.opcode == opcode).count();
                &failing[start..end]
            }
            known => failing_by_opcode.get(&known).map_or(&[][..], |range| &failing[range.clone()]),
        };
        let unmet = |f: &Failing| Unmet { need: f.need, version: f.version, target: f.target };
        if let Some(f) = rows.iter().find(|f| f.with.iter().all(|w| w.holds(func, inst))) {
            return Some(unmet(f));
        }
        if failing_specials.is_empty() {
            return None;
        }
        let mut found = None;
        for op in &inst.operands {
            visit_specials(op, &mut |name| {
                let base = func.names.get(name);
                let base = base.split('.').next().unwrap_or(base);
                if found.is_none() {
                    found = failing_specials.iter().find(|f| f.need.opcode == base);
                }
            });
        }
        found.map(unmet)
    }

    /// True if this target certainly allows `inst` (of `func`): the table
    /// judges the target and nothing `inst` needs is missing, wherever it
    /// is written (under the header's target and under every `.target` of a
    /// function body). What a pass asks before it writes an instruction (a
    /// target the table cannot judge allows nothing new; the verifier, which
    /// must not reject what it cannot judge, asks [`Target::needs`]).
    pub fn allows(&self, func: &Function, inst: &Inst) -> bool {
        let allows_here =
            |t: &Target| t.judged && t.needs_here(func, inst).is_none() && t.forbids_here(func, inst).is_none();
        allows_here(self) && self.later.iter().all(|(_, t)| allows_here(t))
    }

    /// The need of the table that `inst` (of `func`) falls under, whatever the
    /// target (the first, by opcode, whose words it has).
    pub fn need_of(func: &Function, inst: &Inst) -> Option<&'static Need> {
        let opcode = ptx_ir::print::opcode_text(func, inst.opcode);
        ISA.needs
            .iter()
            .find(|n| n.opcode == opcode && n.with.iter().all(|m| WordTest::of(m.as_str()).holds(func, inst)))
    }

    /// The newest need of the table that `inst` (of `func`) falls under and
    /// that asks for more than `.version` `version`, whatever the target: what
    /// keeps `inst` from being written at `version`.
    pub fn need_newer_than(func: &Function, inst: &Inst, version: (u32, u32)) -> Option<&'static Need> {
        let opcode = ptx_ir::print::opcode_text(func, inst.opcode);
        let number = version.0 * 10 + version.1;
        ISA.needs
            .iter()
            .filter(|n| n.opcode == opcode && n.min_version > number)
            .filter(|n| n.with.iter().all(|m| WordTest::of(m.as_str()).holds(func, inst)))
            .max_by_key(|n| n.min_version)
    }

    /// The lowest `.version` and the targets `need` names, as a pass says it
    /// (`PTX 6.5 and sm_72`).
    pub fn describe_need(need: &Need) -> String {
        let targets = if need.from_lowest {
            need.targets[0].to_string()
        } else {
            need.targets.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(", ")
        };
        format!("PTX {}.{} and {targets}", need.min_version / 10, need.min_version % 10)
    }

    /// The instructions a need is about, as the table writes them: the
    /// opcode and its words (`cvt.pack.u4`), or a special register.
    pub fn need_name(need: &Need) -> String {
        let mut what = need.opcode.to_string();
        for m in need.with.as_slice() {
            what.push('.');
            what.push_str(m);
        }
        what
    }

    /// What `unmet` says, as ptxas says it.
    pub fn message(&self, unmet: &Unmet) -> String {
        let need = unmet.need;
        let what = Target::need_name(need);
        let (major, minor) = self.version;
        let target = self.name().unwrap_or("");
        let needs_version = format!(
            "requires PTX ISA .version {}.{} or later (the module declares .version {major}.{minor})",
            need.min_version / 10,
            need.min_version % 10
        );
        let needs_target = if need.from_lowest {
            format!("requires .target {} or higher (the module's .target is {target})", need.targets[0])
        } else {
            format!("is not supported on .target '{target}'")
        };
        match (unmet.version, unmet.target) {
            (true, true) => format!("{what} {needs_version} and {needs_target}"),
            (true, false) => format!("{what} {needs_version}"),
            _ => format!("{what} {needs_target}"),
        }
    }

    /// What `inst` needs that the target in effect where it is written
    /// lacks, or why ptxas rejects it there, as a message.
    pub(crate) fn check_inst(&self, func: &Function, inst: &Inst) -> Option<String> {
        let here = self.at(inst.span.start);
        if let Some(f) = here.forbids_here(func, inst) {
            return Some(f.reason.to_string());
        }
        if let Some(u) = here.needs_here(func, inst) {
            return Some(here.message(&u));
        }
        here.feature_unmet(feature_of_inst(func, inst, here.name()))
    }

    /// Why ptxas rejects a declaration of type `ty`, or a directive (a
    /// `.pragma`), at `at` under this target: a feature newer than its
    /// `.version` ([`FEATURES`]).
    pub(crate) fn check_declaration(&self, at: u32, ty: Option<ScalarType>, directive: Option<&str>) -> Option<String> {
        let here = self.at(at);
        let feature = match (ty, directive) {
            (Some(ScalarType::B128), _) => Some(&FEATURES[0]),
            (_, Some(text)) => pragma_feature(text),
            _ => None,
        };
        here.feature_unmet(feature)
    }

    fn feature_unmet(&self, feature: Option<&'static Feature>) -> Option<String> {
        let feature = feature?;
        if !self.judged {
            return None;
        }
        if version_number(self.version) < feature.version {
            let (major, minor) = self.version;
            return Some(format!(
                "'{}' requires PTX ISA .version {}.{} or later (the module declares .version {major}.{minor})",
                feature.name,
                feature.version / 10,
                feature.version % 10
            ));
        }
        let sm = self.info.and_then(|i| split_sm(i.name)).map(|(number, _)| number);
        sm.is_some_and(|n| n < feature.min_sm).then(|| {
            format!(
                "'{}' requires .target sm_{} or higher (the module's is {})",
                feature.name,
                feature.min_sm,
                self.info.map_or("", |i| i.name)
            )
        })
    }
}

/// A feature ptxas 13.5 dates that is not an instruction form of the table
/// of needs (found by lowering the public corpus and the ISA sweep to the
/// lowest version the table allowed, and compiling with ptxas).
pub(crate) struct Feature {
    name: &'static str,
    /// The lowest `.version` (major * 10 + minor).
    version: u32,
    /// The lowest `sm_` number (0: any target).
    min_sm: u32,
}

/// Every such feature; the first is the `.b128` type.
const FEATURES: [Feature; 12] = [
    // ISA 5.2.1: .b128 introduced in 8.3 (declarations, not only instructions).
    Feature { name: "Type .b128", version: 83, min_sm: 0 },
    // A sub-qualified state space spelled out (`.shared::cta`).
    Feature { name: "::cta", version: 78, min_sm: 0 },
    // wgmma.mma_async with .s8 and .u8 operands mixed.
    Feature { name: "WGMMA with mixed integer types", version: 84, min_sm: 0 },
    // Release notes of 8.1: cvt with .e4m3/.e5m2 extended to sm_89.
    Feature { name: "cvt with .e4m3/.e5m2 on sm_89", version: 81, min_sm: 0 },
    // ISA 12.2 and 12.3: pragma strings.
    Feature { name: "pragma used_bytes_mask", version: 83, min_sm: 0 },
    Feature { name: "pragma enable_smem_spilling", version: 90, min_sm: 0 },
    // ld/st of 256 bits (.v8 of 32-bit, .v4 of 64-bit elements).
    Feature { name: "256 bit wide load/store", version: 88, min_sm: 0 },
    Feature { name: "mma with FP8 floating point type and .m16n8k16 shape", version: 87, min_sm: 0 },
    Feature { name: "ld/st with .local.volatile", version: 91, min_sm: 0 },
    Feature { name: "mma with FP8 floating point type and FP16 accumulation", version: 87, min_sm: 0 },
    // ISA 9.7.13.15.13: the sink as mbarrier.arrive's state from 7.1 (ptxas
    // 13.5 at 7.0: "Result discard mode is not allowed for instruction
    // 'mbarrier.arrive'"; mbarrier.arrive_drop takes it at 7.0).
    Feature { name: "mbarrier.arrive with the sink '_' as its state", version: 71, min_sm: 0 },
    // ISA 9.7.13.15.13/14: a count without .noComplete from 7.8, on sm_90
    // (ptxas 13.5 on sm_80, at every .version: "requires .target sm_90 or
    // higher"; the target rows key on words, this on an operand).
    Feature { name: "mbarrier.arrive with a count and without .noComplete", version: 78, min_sm: 90 },
];

/// The feature of [`FEATURES`] an instruction uses, if any.
fn feature_of_inst(func: &Function, inst: &Inst, target: Option<&str>) -> Option<&'static Feature> {
    // First: it asks for more than `::cta` (below) does.
    let arrive = inst.opcode == Opcode::Mbarrier && (inst.has_word(Word::ARRIVE) || inst.has_word(Word::ARRIVE_DROP));
    if arrive && inst.operands.len() == 3 && !inst.has_word(Word::NOCOMPLETE) {
        return Some(&FEATURES[11]);
    }
    let sub_cta =
        inst.modifiers.iter().any(|m| matches!(m, Modifier::Space(_, Some(w)) if w.as_str().ends_with("::cta")));
    if sub_cta {
        return Some(&FEATURES[1]);
    }
    if inst.opcode == Opcode::Mbarrier
        && inst.has_word(ptx_ir::Word::ARRIVE)
        && inst.operands.first() == Some(&ptx_ir::Operand::Sink)
    {
        return Some(&FEATURES[10]);
    }
    let opcode = ptx_ir::print::opcode_text(func, inst.opcode);
    let has = |ty: ScalarType| inst.types().any(|t| t == ty);
    if opcode == "wgmma" && has(ScalarType::S8) && has(ScalarType::U8) {
        return Some(&FEATURES[2]);
    }
    if matches!(inst.opcode, Opcode::Ld | Opcode::St) {
        let lanes = inst.modifiers.iter().find_map(|m| match m {
            Modifier::Vector(n) => Some(u32::from(*n)),
            _ => None,
        });
        let bits = inst.types().last().map_or(0, |t| t.bits());
        if lanes.is_some_and(|n| n * bits == 256) {
            return Some(&FEATURES[6]);
        }
        let local = inst.modifiers.iter().any(|m| matches!(m, Modifier::Space(ptx_ir::StateSpace::Local, _)));
        if local && inst.has_word(ptx_ir::Word::VOLATILE) {
            return Some(&FEATURES[8]);
        }
    }
    let fp8_type = |t: ScalarType| matches!(t, ScalarType::E4m3 | ScalarType::E5m2);
    if opcode == "mma" && inst.types().any(fp8_type) {
        if inst.has_word(ptx_ir::Word::M16N8K16) {
            return Some(&FEATURES[7]);
        }
        // The first type is the accumulator's (`mma...f16.e4m3.e4m3.f16`).
        if inst.types().next() == Some(ScalarType::F16) {
            return Some(&FEATURES[9]);
        }
    }
    let fp8 = |w: &str| w.starts_with("e4m3") || w.starts_with("e5m2");
    if inst.opcode == Opcode::Cvt
        && target == Some("sm_89")
        && inst.modifiers.iter().any(|m| m.word().is_some_and(|w| fp8(w.as_str())))
    {
        return Some(&FEATURES[3]);
    }
    None
}

/// The feature of [`FEATURES`] a directive (`.pragma "used_bytes_mask 255";`) is.
fn pragma_feature(text: &str) -> Option<&'static Feature> {
    let words = text.strip_prefix(".pragma")?;
    if words.contains("used_bytes_mask") {
        Some(&FEATURES[4])
    } else if words.contains("enable_smem_spilling") {
        Some(&FEATURES[5])
    } else {
        None
    }
}

/// The `.target` directives of function bodies with their targets, in
/// source order.
fn later_targets(module: &Module) -> Vec<(u32, Target)> {
    let mut later: Vec<(u32, Target)> = module
        .functions
        .values()
        .filter(|func| func.has_target_directive())
        .flat_map(|func| func.body().unwrap_or(&[]).iter().map(move |stmt| (func, stmt)))
        .filter_map(|(func, stmt)| match stmt {
            Stmt::Raw(d) if func.directives[*d].name == "target" => {
                let d = &func.directives[*d];
                Some((d.span.start, Target::of_entries(module.version, &body_target_entries(d))))
            }
            _ => None,
        })
        .collect();
    later.sort_by_key(|(offset, _)| *offset);
    later
}

/// The entries of a `.target` directive of a function body.
pub(crate) fn body_target_entries(directive: &RawDirective) -> Vec<&str> {
    let list = directive.text.trim_start_matches(".target");
    list.split(',').map(str::trim).filter(|e| !e.is_empty()).collect()
}

fn visit_specials(op: &Operand, f: &mut impl FnMut(ptx_ir::Name)) {
    match op {
        Operand::Special(name) => f(*name),
        Operand::Vector(ops) | Operand::Parens(ops) => ops.iter().for_each(|o| visit_specials(o, f)),
        Operand::Not(inner) | Operand::Neg(inner) => visit_specials(inner, f),
        _ => {}
    }
}

/// Checks the header: a `.version` or `.target` ptxas 13.5 does not know, a
/// target the `.version` does not support, an `.address_size` other than 32
/// or 64. Errors are placed on the directive's line when the module still
/// has its source.
pub(crate) fn check_header(module: &Module) -> Vec<Diagnostic> {
    let mut errors = Vec::new();
    let version = version_number(module.version);
    let (major, minor) = module.version;
    let version_known = ISA.versions.contains(&version);
    if !version_known {
        let msg = format!("Unsupported .version {major}.{minor}; ptxas 13.5 supports .version {}", version_ranges());
        errors.push(Diagnostic::new(directive_span(module, ".version"), msg));
    }
    for (span, entries) in header_targets(module) {
        errors.extend(check_entries(module.version, &entries, span));
    }
    if let Some(bits) = module.address_size.filter(|b| !matches!(b, 32 | 64)) {
        let msg = format!("Illegal value {bits} for .address_size directive (must be 32 or 64)");
        errors.push(Diagnostic::new(directive_span(module, ".address_size"), msg));
    }
    if module.address_size.is_some() && version < 23 {
        // ptxas 13.5: "Feature '.address_size directive' requires PTX ISA
        // .version 2.3 or later".
        let msg = format!(".address_size needs .version 2.3 or later (the module declares .version {major}.{minor})");
        errors.push(Diagnostic::new(directive_span(module, ".address_size"), msg));
    }
    if module.address_size == Some(32) {
        // ptxas 12.9 and 13.5: "32-Bit compilation is no longer supported".
        let msg = ".address_size 32: 32-bit compilation is no longer supported by ptxas".to_string();
        errors.push(Diagnostic::new(directive_span(module, ".address_size"), msg));
    }
    errors
}

/// Checks the entries of a `.target` directive (the header's, or one in a
/// function body at `span`): each must be a target or word ptxas knows, and
/// a target the module's `.version` supports.
pub(crate) fn check_entries<S: AsRef<str>>(version: (u32, u32), entries: &[S], span: Span) -> Vec<Diagnostic> {
    let (major, minor) = version;
    let version = version_number(version);
    let version_known = ISA.versions.contains(&version);
    let mut errors = Vec::new();
    for target in entries.iter().map(AsRef::as_ref) {
        let msg = match header_target_info(target) {
            HeaderTarget::Word => continue,
            HeaderTarget::Unsupported => format!("Unsupported .target '{target}'"),
            HeaderTarget::Known(info) if version_known && version < info.min_version => format!(
                "PTX .version {major}.{minor} does not support .target {target} (it needs .version {}.{} or later)",
                info.min_version / 10,
                info.min_version % 10
            ),
            HeaderTarget::Known(_) => continue,
        };
        errors.push(Diagnostic::new(span, msg));
    }
    errors
}

/// `1.0-1.5, 2.0-2.3, ...`: the accepted versions, by major.
fn version_ranges() -> String {
    let versions = ISA.versions;
    let mut out = String::new();
    for (i, v) in versions.iter().enumerate() {
        let first_of_major = i == 0 || versions[i - 1] / 10 != v / 10;
        let last_of_major = versions.get(i + 1).is_none_or(|n| n / 10 != v / 10);
        if first_of_major {
            if !out.is_empty() {
                out.push_str(", ");
            }
            out.push_str(&format!("{}.{}", v / 10, v % 10));
        } else if last_of_major {
            out.push_str(&format!("-{}.{}", v / 10, v % 10));
        }
    }
    out
}

/// The span of the header directive `name` (to the end of its line), found
/// in the module's source before the first `{`; a synthetic span if the
/// module has no source (it was changed) or the directive is not there.
fn directive_span(module: &Module, name: &str) -> Span {
    directive_spans(module, name).first().copied().unwrap_or_default()
}

/// The header's `.target` directives, each with the span of its line and
/// its entries: every one written in the source (ptxas checks each, and
/// reads the last), or the module's own if it has no source.
fn header_targets(module: &Module) -> Vec<(Span, Vec<&str>)> {
    let written: Vec<(Span, Vec<&str>)> = match module.source.as_deref() {
        Some(source) => directive_spans(module, ".target")
            .into_iter()
            .map(|span| {
                let line = &source[span.start as usize..span.end as usize];
                let list = line.split("//").next().unwrap_or("").trim_start_matches(".target");
                (span, list.split(',').map(str::trim).filter(|e| !e.is_empty()).collect())
            })
            .collect(),
        None => Vec::new(),
    };
    if written.is_empty() {
        vec![(Span::default(), module.target.iter().map(String::as_str).collect())]
    } else {
        written
    }
}

/// The spans of the header directives `name`, in source order (see
/// [`directive_span`]).
fn directive_spans(module: &Module, name: &str) -> Vec<Span> {
    let mut spans = Vec::new();
    let Some(source) = module.source.as_deref() else { return spans };
    let bytes = source.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let rest = &source[i..];
        if rest.starts_with("//") {
            i += rest.find('\n').unwrap_or(rest.len());
        } else if rest.starts_with("/*") {
            i += rest.find("*/").map_or(rest.len(), |e| e + 2);
        } else if rest.starts_with(name)
            && !rest[name.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
        {
            let end = rest.find(['\n', ';']).unwrap_or(rest.len()).max(name.len());
            spans.push(Span::new(i, i + end));
            i += end;
        } else if bytes[i] == b'{' || (!spans.is_empty() && !bytes[i].is_ascii_whitespace()) {
            // Repeated, the directive comes right after itself.
            break;
        } else {
            i += rest.chars().next().map_or(1, char::len_utf8);
        }
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The generator's probe kernel (scripts/verify-target/generate.py).
    fn probe_kernel(version: u32, target: &str, line: &str) -> String {
        format!(
            ".version {}.{}\n.target {target}\n.address_size 64\n\
             .shared .align 16 .b8 smem[1024];\n.global .align 16 .b8 gmem[1024];\n\
             .func probe_callee()\n{{\nret;\n}}\n\
             .visible .entry probe(.param .u64 p0)\n{{\n\
             .reg .b32 %r<40>; .reg .b64 %rd<20>; .reg .b16 %h<20>; .reg .f32 %f<40>; .reg .f64 %fd<20>; .reg .pred %p<8>;\n\
             {line}\nL0:\nret;\n}}\n",
            version / 10,
            version % 10
        )
    }

    /// The messages the target check gives the probe kernel's instructions.
    fn inst_errors(version: u32, target: &str, line: &str) -> Vec<String> {
        let source = probe_kernel(version, target, line);
        let module = ptx_parse::parse(&source).unwrap_or_else(|e| panic!("{line}: does not parse: {e:?}"));
        let check = Target::of(&module);
        let mut errors = Vec::new();
        for func in module.functions.values() {
            for id in func.inst_ids() {
                errors.extend(check.check_inst(func, &func.insts[id]));
            }
        }
        errors
    }

    /// Each row's probe passes where ptxas accepted it (so no other row
    /// rejects it either) and is rejected one `.version` below and on a
    /// target outside the row's set, where ptxas rejected it (the
    /// generator confirmed both with ptxas, probe by probe).
    #[test]
    fn every_row_rejects_its_probe_exactly_where_ptxas_did() {
        let (mut below_version, mut outside_target) = (0, 0);
        let mut failures = Vec::new();
        for row in ISA.needs {
            let (probe, probe_target) = (row.probe.as_str(), row.probe_target.as_str());
            let target = target_info(probe_target).expect("the probe's target is in the table");
            let accepted = inst_errors(row.min_version, probe_target, probe);
            if !accepted.is_empty() {
                failures.push(format!("{}: rejected at {} {}: {accepted:?}", probe, probe_target, row.min_version));
            }
            let lower = ISA
                .versions
                .iter()
                .rev()
                .find(|&&v| v < row.min_version && v >= target.min_version.max(ISA.probed_from));
            if let Some(&v) = lower {
                below_version += 1;
                if inst_errors(v, probe_target, probe).is_empty() {
                    failures.push(format!("{}: not rejected at {} {v}", probe, probe_target));
                }
            }
            let outside = ISA.targets.iter().find(|t| t.probed && !allows_target(row, t));
            if let Some(t) = outside {
                outside_target += 1;
                let newest = *ISA.versions.last().unwrap();
                if inst_errors(newest, t.name, probe).is_empty() {
                    failures.push(format!("{}: not rejected on {}", row.probe, t.name));
                }
            }
        }
        assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
        // Every row rejects something (the generator keeps no other).
        assert_eq!(ISA.needs.len(), 328);
        assert_eq!((below_version, outside_target), (157, 320));
    }

    #[test]
    fn messages_follow_ptxas() {
        let line = "elect.sync %r1|%p1, 0xffffffff;";
        assert_eq!(
            inst_errors(78, "sm_90", line),
            ["elect requires PTX ISA .version 8.0 or later (the module declares .version 7.8)"]
        );
        assert_eq!(
            inst_errors(80, "sm_80", line),
            ["elect requires .target sm_90 or higher (the module's .target is sm_80)"]
        );
        assert_eq!(
            inst_errors(95, "sm_100a", "wgmma.fence.sync.aligned;"),
            ["wgmma.fence is not supported on .target 'sm_100a'"]
        );
        assert_eq!(
            inst_errors(70, "sm_80", "mov.u32 %r1, %cluster_ctarank;"),
            ["%cluster_ctarank requires PTX ISA .version 7.8 or later (the module declares .version 7.0) \
              and requires .target sm_90 or higher (the module's .target is sm_80)"]
        );
        assert!(inst_errors(95, "sm_90a", "wgmma.fence.sync.aligned;").is_empty());
    }

    fn header_errors(header: &str) -> Vec<String> {
        let source = format!("{header}\n.visible .entry k()\n{{\nret;\n}}\n");
        let module = ptx_parse::parse(&source).unwrap_or_else(|e| panic!("{header}: does not parse: {e:?}"));
        check_header(&module)
            .into_iter()
            .map(|d| format!("{}: {}", &source[d.span.start as usize..d.span.end as usize], d.message))
            .collect()
    }

    /// Each case was given to ptxas 13.5 (`-arch=sm_121`, or the target
    /// itself for `a`/`f` targets).
    #[test]
    fn headers_ptxas_rejects_are_rejected_on_their_line() {
        assert_eq!(
            header_errors(".version 99.0\n.target sm_80"),
            [".version 99.0: Unsupported .version 99.0; ptxas 13.5 supports .version 1.0-1.5, 2.0-2.3, 3.0-3.2, \
              4.0-4.3, 5.0-5.1, 6.0-6.5, 7.0-7.8, 8.0-8.8, 9.0-9.5"]
        );
        for version in ["6.6", "7.9", "9.6", "8.100", "7.50", "5.2"] {
            assert_eq!(header_errors(&format!(".version {version}\n.target sm_80")).len(), 1, "{version}");
        }
        assert_eq!(header_errors(".version 9.5\n.target sm_800"), [".target sm_800: Unsupported .target 'sm_800'"]);
        for target in [
            "sm_91",
            "sm_14",
            "sm_90f",
            "sm_50a",
            "sm_08",
            "sm_80, foo",
            "sm_xyz",
            "compute_xyz",
            "sm_",
            "sm_8x",
            "sm_91x",
        ] {
            assert_eq!(header_errors(&format!(".version 9.5\n.target {target}")).len(), 1, "{target}");
        }
        assert_eq!(
            header_errors("// a comment naming .target\n.version 7.0\n.target sm_90 // too new\n"),
            [".target sm_90 // too new: PTX .version 7.0 does not support .target sm_90 (it needs .version 7.8 or later)"]
        );
        assert_eq!(header_errors(".version 8.7\n.target sm_100f").len(), 1);
        for header in
            [".version 6.0\n.target compute_80", ".version 6.0\n.target sm_80x", ".version 9.5\n.target compute_90f"]
        {
            assert_eq!(header_errors(header).len(), 1, "{header}");
        }
    }

    #[test]
    fn headers_ptxas_accepts_pass() {
        for header in [
            ".version 7.8\n.target sm_90",
            ".version 8.0\n.target sm_90a",
            ".version 8.8\n.target sm_100f",
            ".version 9.5\n.target sm_13",
            ".version 9.5\n.target sm_080",
            ".version 9.5\n.target sm_80x",
            ".version 8.10\n.target sm_80",
            ".version 7.05\n.target sm_80",
            ".version 6.3\n.target sm_75, texmode_independent",
            ".version 9.5\n.target sm_80, sm_90",
            ".version 6.0\n.target sm_70, debug",
            ".version 6.0\n.target compute_13",
            ".version 7.8\n.target sm_80ax",
            ".version 9.0\n.target compute_90a",
        ] {
            assert_eq!(header_errors(header), Vec::<String>::new(), "{header}");
        }
    }

    /// `.target` repeated in the header and inside function bodies, as
    /// ptxas 13.5 reads it (`-arch=sm_90`, each case probed): the last of
    /// the header counts, one in a body counts from its line to the end of
    /// the file, and every one must be a target the `.version` supports.
    #[test]
    fn repeated_and_body_targets_count_from_their_line() {
        const PACK: &str = "cvt.pack.sat.s8.s32.b32 %r1, %r2, %r2, %r2;";
        let errors = |header: &str, first_body: &str, second_body: &str| -> Vec<String> {
            let source = format!(
                ".version {header}\n.address_size 64\n.visible .entry k1()\n{{\n.reg .b32 %r<3>;\n{first_body}\nret;\n}}\n\
                 .visible .entry k2()\n{{\n.reg .b32 %r<3>;\n{second_body}\nret;\n}}\n"
            );
            let module = ptx_parse::parse(&source).unwrap_or_else(|e| panic!("does not parse: {e:?}\n{source}"));
            let found = crate::verify_module(&module, &Target::of(&module)).err().unwrap_or_default();
            found
                .iter()
                .map(|d| format!("{}: {}", &source[d.span.start as usize..d.span.end as usize], d.message))
                .collect()
        };
        let pack_needs_sm72 = "requires .target sm_72 or higher";
        assert_eq!(errors("8.0\n.target sm_70\n.target sm_90", PACK, ""), Vec::<String>::new());
        let found = errors("8.0\n.target sm_90\n.target sm_70", PACK, "");
        assert!(found.len() == 1 && found[0].contains(pack_needs_sm72), "{found:?}");
        assert_eq!(errors("8.0\n.target sm_70", &format!(".target sm_90\n{PACK}"), ""), Vec::<String>::new());
        assert_eq!(errors("8.0\n.target sm_70", ".target sm_90", PACK), Vec::<String>::new());
        let found = errors("8.0\n.target sm_70", &format!("{PACK}\n.target sm_90"), "");
        assert!(found.len() == 1 && found[0].contains(pack_needs_sm72), "{found:?}");
        let found = errors("8.0\n.target sm_90", ".target sm_70", PACK);
        assert!(found.len() == 1 && found[0].contains("(the module's .target is sm_70)"), "{found:?}");
        // A clean shape before the directive is checked again after it.
        let found = errors("8.0\n.target sm_90", &format!("{PACK}\n.target sm_70\n{PACK}"), "");
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(errors("8.0\n.target sm_70", ".target bogus", ""), [".target bogus: Unsupported .target 'bogus'"]);
        assert_eq!(
            errors("7.0\n.target sm_80", ".target sm_90", ""),
            [".target sm_90: PTX .version 7.0 does not support .target sm_90 (it needs .version 7.8 or later)"]
        );
        assert_eq!(
            errors("7.0\n.target sm_90\n.target sm_80", "", ""),
            [".target sm_90: PTX .version 7.0 does not support .target sm_90 (it needs .version 7.8 or later)"]
        );
        assert_eq!(errors("8.0\n.target bogus\n.target sm_90", "", ""), [".target bogus: Unsupported .target 'bogus'"]);
    }

    /// A pass asks whether it may write an instruction anywhere: it must be
    /// allowed under every target the module names.
    #[test]
    fn a_pass_may_write_only_what_every_target_of_the_module_allows() {
        let allows = |header: &str, body: &str| {
            let source = format!(
                ".version 8.0\n{header}\n.address_size 64\n.visible .entry k()\n{{\n.reg .b32 %r<3>;\n{body}\n\
                 cvt.pack.sat.s8.s32.b32 %r1, %r2, %r2, %r2;\nret;\n}}\n"
            );
            let module = ptx_parse::parse(&source).unwrap();
            let func = module.functions.values().next().unwrap();
            let pack = func.inst_ids().map(|id| &func.insts[id]).find(|i| i.opcode == Opcode::Cvt).unwrap();
            Target::of(&module).allows(func, pack)
        };
        assert!(allows(".target sm_90", ""));
        assert!(!allows(".target sm_70", ""));
        assert!(allows(".target sm_70\n.target sm_90", ""));
        assert!(!allows(".target sm_90", ".target sm_70"));
        assert!(!allows(".target sm_70", ".target sm_90"));
        let module = ptx_parse::parse(".version 8.0\n.target sm_90\n.entry k()\n{\n.target sm_70\nret;\n}\n").unwrap();
        assert_eq!(Target::of(&module).describe(), "PTX 8.0 and sm_90, then sm_70 from a .target in a function body");
    }
}
