//! Which `.version` a module needs, and writing another one
//! (`--ptx-version`, `--cuda`): a driver older than the toolkit that wrote
//! the PTX refuses a `.version` it does not know, while most kernels use
//! nothing of the newer versions.
//!
//! The facts are the verifier's (`ptx_verify::Target`: what each
//! instruction form needs of `.version` and `.target`, probed with ptxas,
//! and the features ptxas dates that are not instruction forms: `.b128`
//! declarations, `.shared::cta`, pragma strings, ...).
//! A version is written only if the verifier accepts the module at it, and
//! never below 6.0 for a module written for 6.0 or later that touches
//! memory: the memory consistency model (PTX ISA 8, introduced in 6.0)
//! gives `ld`, `st`, atomics and fences their meaning from 6.0 on.

use ptx_ir::{Diagnostic, Module, Opcode, Span};
use ptx_verify::{Target, Verifier};

/// A `.version`, (major, minor).
pub type Version = (u32, u32);

/// What a module or a function needs of `.version`, and the first thing
/// that forces it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Requirement {
    /// The lowest `.version`.
    pub version: Version,
    /// Why: the first instruction (in source order) or the target.
    pub because: Because,
}

/// Why a requirement is what it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Because {
    /// Nothing asks for more than the oldest version the table judges.
    Nothing,
    /// The `.target` needs it (`sm_90` needs PTX 7.8).
    Target(String),
    /// An instruction of the table (`cp.async.bulk`), at `span`.
    Instruction {
        /// The function.
        function: String,
        /// Where it is.
        span: Span,
        /// The instruction as the table names it (`cp.async.bulk`).
        what: String,
    },
    /// A memory instruction at `span`, whose meaning is the memory
    /// consistency model's from PTX 6.0 on.
    MemoryModel {
        /// The function.
        function: String,
        /// Where it is.
        span: Span,
    },
    /// The verifier rejects the module below this version, for a reason the
    /// table of instruction needs does not give (its message).
    Verifier(String),
}

/// The requirements of a module: the whole, and each function with a body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Requirements {
    /// The module's `.target` (`sm_80`), if it names one the table knows.
    pub target: Option<String>,
    /// The module as a whole (what `--ptx-version=min` writes).
    pub module: Requirement,
    /// Per function with a body, in module order.
    pub functions: Vec<(String, Requirement)>,
}

/// The `.version` values ptxas accepts, oldest first.
pub fn known_versions() -> impl Iterator<Item = Version> {
    Target::known_versions()
}

fn number((major, minor): Version) -> u32 {
    major * 10 + minor
}

fn from_number(n: u32) -> Version {
    (n / 10, n % 10)
}

/// Touches memory in the memory model's sense.
fn is_memory(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::Ld
            | Opcode::St
            | Opcode::Atom
            | Opcode::Red
            | Opcode::Membar
            | Opcode::Fence
            | Opcode::Bar
            | Opcode::Barrier
            | Opcode::Ldu
            | Opcode::Cp
    )
}

/// The version floor the memory model sets: 6.0 for a module written for
/// 6.0 or later with a memory instruction (the first, with its function).
fn memory_floor(module: &Module) -> Option<(String, Span)> {
    if module.version < (6, 0) {
        return None;
    }
    module.functions.values().filter(|f| f.has_body()).find_map(|func| {
        func.inst_ids().find(|&id| is_memory(func.insts[id].opcode)).map(|id| (func.name.clone(), func.insts[id].span))
    })
}

/// What `module` needs of `.version`, from the table of instruction needs,
/// its `.target` and the memory model (without asking the verifier; see
/// [`lowest_version`]).
pub fn requirements(module: &Module) -> Requirements {
    let target = Target::of(module).name().map(str::to_string);
    let floor = number(Target::lowest_judged_version());
    let mut module_req = Requirement { version: from_number(floor), because: Because::Nothing };
    if let Some(v) = target.as_deref().and_then(Target::lowest_version_for) {
        if number(v) > number(module_req.version) {
            module_req = Requirement { version: v, because: Because::Target(target.clone().unwrap_or_default()) };
        }
    }
    if let Some((function, span)) = memory_floor(module) {
        if number(module_req.version) < 60 {
            module_req = Requirement { version: (6, 0), because: Because::MemoryModel { function, span } };
        }
    }
    let mut functions = Vec::new();
    for func in module.functions.values().filter(|f| f.has_body()) {
        let mut req = Requirement { version: from_number(floor), because: Because::Nothing };
        let memory = (module.version >= (6, 0)).then(|| func.inst_ids().find(|&id| is_memory(func.insts[id].opcode)));
        if let Some(id) = memory.flatten().filter(|_| floor < 60) {
            let because = Because::MemoryModel { function: func.name.clone(), span: func.insts[id].span };
            req = Requirement { version: (6, 0), because };
        }
        for id in func.inst_ids() {
            let inst = &func.insts[id];
            if ptx_ir::is_later_form(func, inst) || ptx_ir::is_of_later_isa(module.version, inst) {
                // An instruction of a later ISA text than the description's:
                // the first version after it, at least.
                let later = Target::known_versions().find(|&v| ptx_ir::newer_than_description(v));
                if let Some(v) = later.filter(|&v| number(v) > number(req.version)) {
                    let mut what = ptx_ir::print::opcode_text(func, inst.opcode).to_string();
                    for m in &inst.modifiers {
                        ptx_ir::print::write_modifier(func, m, &mut what);
                    }
                    let because = Because::Instruction { function: func.name.clone(), span: inst.span, what };
                    req = Requirement { version: v, because };
                }
                continue;
            }
            let Some(need) = Target::need_of(func, inst) else { continue };
            if need.min_version > number(req.version) {
                let what = Target::need_name(need);
                let because = Because::Instruction { function: func.name.clone(), span: inst.span, what };
                req = Requirement { version: from_number(need.min_version), because };
            }
        }
        if number(req.version) > number(module_req.version) {
            module_req = req.clone();
        }
        functions.push((func.name.clone(), req));
    }
    Requirements { target, module: module_req, functions }
}

/// The lowest `.version` whose ptxas accepts `.target sm` (`sm_80`: 7.0).
pub fn lowest_for_target(sm: &str) -> Option<Version> {
    Target::lowest_version_for(sm)
}

/// The lowest `.version` at which the verifier accepts `module` as it is
/// (with its `.target`), not above its own; its own when the table cannot
/// judge the target. With the requirement that sets it.
pub fn lowest_version(module: &Module) -> Requirement {
    lowest_version_with(module, &Verifier::new())
}

/// [`lowest_version`] with `verifier` (a batch's, which knows what the rest
/// of the source declares).
pub(crate) fn lowest_version_with(module: &Module, verifier: &Verifier) -> Requirement {
    let own = Requirement { version: module.version, because: Because::Nothing };
    let reqs = requirements(module);
    let Some(sm) = reqs.target.clone() else { return own };
    if module.version < Target::lowest_judged_version() {
        return own;
    }
    let mut because = reqs.module.because;
    for v in Target::known_versions().filter(|v| *v >= reqs.module.version && *v <= module.version) {
        match verifier.verify_for(module, &Target::new(v, &sm)) {
            Ok(()) => return Requirement { version: v, because },
            Err(errors) => because = Because::Verifier(errors[0].message.clone()),
        }
    }
    own
}

/// Whether `module` may be written as `.version` `asked`: each instruction
/// that needs more is an error at it (naming what it needs), and so is a
/// target or memory model that needs more; then the verifier's errors at
/// `asked`, if any. `asked` must be a version ptxas knows.
pub fn check_version(module: &Module, asked: Version) -> Result<(), Vec<Diagnostic>> {
    check_version_with(module, asked, &Verifier::new())
}

/// [`check_version`] with `verifier` (a batch's).
pub(crate) fn check_version_with(module: &Module, asked: Version, verifier: &Verifier) -> Result<(), Vec<Diagnostic>> {
    let asked_text = format!("{}.{}", asked.0, asked.1);
    if !Target::known_versions().any(|v| v == asked) {
        return Err(vec![Diagnostic::new(
            Span::default(),
            format!("PTX ISA {asked_text} is not a version ptxas knows"),
        )]);
    }
    let mut errors = Vec::new();
    let target = Target::of(module);
    let sm = target.name();
    if asked < module.version {
        if let Some(sm) = sm {
            if let Some(v) = Target::lowest_version_for(sm).filter(|v| *v > asked) {
                let message = format!("'.target {sm}' needs PTX {}.{}, --ptx-version asks for {asked_text}", v.0, v.1);
                errors.push(Diagnostic::new(header_span(module, ".target"), message));
            }
        }
        if asked < (6, 0) {
            if let Some((_, span)) = memory_floor(module) {
                let message = format!(
                    "memory instructions mean what the memory consistency model of PTX 6.0 says; below it their semantics differ (--ptx-version asks for {asked_text})"
                );
                errors.push(Diagnostic::new(span, message));
            }
        }
        if let Some(sm) = sm {
            let at = Target::new(asked, sm);
            for func in module.functions.values().filter(|f| f.has_body()) {
                for id in func.inst_ids() {
                    let inst = &func.insts[id];
                    if let Some(unmet) = at.needs(func, inst).filter(|u| u.version) {
                        let need = unmet.need;
                        let what = Target::need_name(need);
                        let (major, minor) = from_number(need.min_version);
                        let message =
                            format!("'{what}' needs PTX {major}.{minor}, --ptx-version asks for {asked_text}");
                        errors.push(Diagnostic::new(inst.span, message));
                    }
                }
            }
        } else {
            let message = "the module's .target names no sm_ target the table knows: its needs cannot be judged";
            errors.push(Diagnostic::new(header_span(module, ".target"), message.to_string()));
        }
    }
    if errors.is_empty() {
        if let Some(sm) = sm {
            verifier.verify_for(module, &Target::new(asked, sm)).map_err(|errors| {
                errors
                    .into_iter()
                    .map(|d| Diagnostic { message: as_asked(&d.message, &asked_text), ..d })
                    .collect::<Vec<_>>()
            })?;
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// A verifier message about a dated feature (`'pragma used_bytes_mask'
/// requires PTX ISA .version 8.3 or later (the module declares .version
/// 8.5)`), checked at the version asked, said as the table's refusals say
/// it; any other message as it is.
fn as_asked(message: &str, asked: &str) -> String {
    let dated = message.strip_prefix('\'').and_then(|m| m.split_once("' requires PTX ISA .version "));
    match dated.and_then(|(what, rest)| Some((what, rest.split_once(" or later")?.0))) {
        Some((what, version)) => format!("'{what}' needs PTX {version}, --ptx-version asks for {asked}"),
        None => message.to_string(),
    }
}

/// Where the header's directive `name` (`.target`) is in the module's
/// source, for a diagnostic about it.
fn header_span(module: &Module, name: &str) -> Span {
    let Some(source) = module.source.as_deref() else { return Span::default() };
    let mut at = 0;
    for line in source.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if trimmed.starts_with(name) {
            let start = at + line.len() - trimmed.len();
            let end = start + trimmed.trim_end().len();
            return Span::new(start, end);
        }
        at += line.len();
    }
    Span::default()
}

/// `text` (a module printed from its source) with the header's `.version`
/// line saying `version`; None when it says so already or there is no
/// `.version` line before the first other directive.
pub(crate) fn reversion_text(text: &str, version: Version) -> Option<String> {
    let value = version_value(text)?;
    let wanted = format!("{}.{}", version.0, version.1);
    if text[value.clone()] == wanted {
        return None;
    }
    let mut out = String::with_capacity(text.len() + 4);
    out.push_str(&text[..value.start]);
    out.push_str(&wanted);
    out.push_str(&text[value.end..]);
    Some(out)
}

/// Where the value of the header's `.version` line (`9.5`) is in `text`;
/// None if there is no `.version` line before the first other directive.
pub(crate) fn version_value(text: &str) -> Option<std::ops::Range<usize>> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let directive = line.trim_start().split("//").next().unwrap_or("").trim_end();
        if let Some(rest) = directive.strip_prefix(".version") {
            let written = rest.trim();
            let start = offset + line.find(".version")? + ".version".len();
            let value_start = start + text[start..].find(written)?;
            return Some(value_start..value_start + written.len());
        }
        if !directive.is_empty() && !directive.starts_with("//") {
            return None;
        }
        offset += line.len();
    }
    None
}

/// The `.version` a run writes ([`crate::Options::ptx_version`];
/// `--ptx-version`, `--cuda`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PtxVersion {
    /// This one (`--ptx-version=7.8`): lowered to, with the rewrites of
    /// `lower-ptx-version` where the module needs more, or raised to; an
    /// error ([`crate::ErrorKind::NeedsVersion`]) if the module, after the
    /// passes, is not valid PTX at it.
    Exactly(Version),
    /// At most this one (`--cuda=12.4`: what that release's driver
    /// accepts): the module's own if it is not newer, else as `Exactly`.
    AtMost(Version),
    /// The lowest the module allows as it is, no rewrite
    /// (`--ptx-version=min`).
    Lowest,
}

impl PtxVersion {
    /// `X.Y` (a version ptxas knows) or `min`, as `--ptx-version` takes it.
    pub fn parse(text: &str) -> Option<PtxVersion> {
        if text.trim() == "min" {
            return Some(PtxVersion::Lowest);
        }
        parse_version(text).filter(|v| known_versions().any(|k| k == *v)).map(PtxVersion::Exactly)
    }

    /// What the driver of CUDA release `release` (`12.4`) accepts
    /// ([`ptx_version_of_cuda`]).
    pub fn for_cuda(release: &str) -> Option<PtxVersion> {
        ptx_version_of_cuda(release).map(PtxVersion::AtMost)
    }

    /// The version `lower-ptx-version` lowers to, when the run may lower.
    pub(crate) fn lowers_to(self) -> Option<Version> {
        match self {
            PtxVersion::Exactly(v) | PtxVersion::AtMost(v) => Some(v),
            PtxVersion::Lowest => None,
        }
    }

    /// The version to write for `module` (after the passes); None to keep
    /// its own. If it cannot be written so: the version asked and the
    /// errors of [`check_version`].
    pub(crate) fn settle(
        self,
        module: &Module,
        verifier: &Verifier,
    ) -> Result<Option<Version>, (Version, Vec<Diagnostic>)> {
        let asked = match self {
            PtxVersion::Lowest => return Ok(Some(lowest_version_with(module, verifier).version)),
            PtxVersion::AtMost(v) if module.version <= v => return Ok(None),
            PtxVersion::Exactly(v) | PtxVersion::AtMost(v) => v,
        };
        check_version_with(module, asked, verifier).map_err(|errors| (asked, errors))?;
        Ok(Some(asked))
    }
}

/// `MAJOR.MINOR` (`7.8`, `12.4`) as numbers.
pub fn parse_version(text: &str) -> Option<Version> {
    let (major, minor) = text.trim().split_once('.')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// The highest PTX ISA version the driver of CUDA release `cuda`
/// (`12.4`, as `nvidia-smi` says it) accepts: the ISA's release history
/// (PTX ISA 9.1, release notes, Table 59), and 9.5 for CUDA 13.5 (ptxas
/// 13.5's newest). A release between two known ones gets the older one's
/// (its driver accepts at least that); None for a release older than CUDA
/// 1.0 or not written `MAJOR.MINOR`.
pub fn ptx_version_of_cuda(cuda: &str) -> Option<Version> {
    let release = parse_version(cuda)?;
    CUDA_RELEASES.iter().rev().find(|(r, _)| *r <= release).map(|(_, v)| *v)
}

/// (CUDA release, the newest PTX ISA version its driver accepts), oldest
/// first. From the ISA's Table 59 (PTX 1.5 came with a driver, not a CUDA
/// release: a CUDA 2.3 driver is taken to accept 1.4); CUDA 4.2 and 12.6
/// brought no new version; 13.5 from ptxas 13.5.
pub const CUDA_RELEASES: &[((u32, u32), Version)] = &[
    ((1, 0), (1, 0)),
    ((1, 1), (1, 1)),
    ((2, 0), (1, 2)),
    ((2, 1), (1, 3)),
    ((2, 2), (1, 4)),
    ((3, 0), (2, 0)),
    ((3, 1), (2, 1)),
    ((3, 2), (2, 2)),
    ((4, 0), (2, 3)),
    ((4, 1), (3, 0)),
    ((4, 2), (3, 0)),
    ((5, 0), (3, 1)),
    ((5, 5), (3, 2)),
    ((6, 0), (4, 0)),
    ((6, 5), (4, 1)),
    ((7, 0), (4, 2)),
    ((7, 5), (4, 3)),
    ((8, 0), (5, 0)),
    ((9, 0), (6, 0)),
    ((9, 1), (6, 1)),
    ((9, 2), (6, 2)),
    ((10, 0), (6, 3)),
    ((10, 1), (6, 4)),
    ((10, 2), (6, 5)),
    ((11, 0), (7, 0)),
    ((11, 1), (7, 1)),
    ((11, 2), (7, 2)),
    ((11, 3), (7, 3)),
    ((11, 4), (7, 4)),
    ((11, 5), (7, 5)),
    ((11, 6), (7, 6)),
    ((11, 7), (7, 7)),
    ((11, 8), (7, 8)),
    ((12, 0), (8, 0)),
    ((12, 1), (8, 1)),
    ((12, 2), (8, 2)),
    ((12, 3), (8, 3)),
    ((12, 4), (8, 4)),
    ((12, 5), (8, 5)),
    ((12, 6), (8, 5)),
    ((12, 7), (8, 6)),
    ((12, 8), (8, 7)),
    ((12, 9), (8, 8)),
    ((13, 0), (9, 0)),
    ((13, 1), (9, 1)),
    ((13, 5), (9, 5)),
];

/// `--print-requirements`: the lowest `.version` of the module (as
/// [`lowest_version`] finds it, beside the one written) and of each
/// function, and the first thing that forces each, as text lines or
/// (`json`) one JSON object:
///
/// ```text
/// {"module":{"version":"7.0","because":".target sm_80","written":"8.5","target":"sm_80"},
///  "functions":[{"function":"k","version":"6.0","because":"memory model (PTX 6.0)","line":12,"col":2}]}
/// ```
pub fn requirements_report(module: &Module, source: &str, json: bool) -> String {
    let lines = crate::LineIndex::new(source);
    let reqs = requirements(module);
    let lowest = lowest_version(module);
    let why = |because: &Because| -> (String, Option<(usize, usize)>) {
        let at = |span: &Span| Some(lines.line_col(source, span.start as usize));
        match because {
            Because::Nothing => ("nothing newer".to_string(), None),
            Because::Target(sm) => (format!(".target {sm}"), None),
            Because::Instruction { span, what, .. } => (what.clone(), at(span)),
            Because::MemoryModel { span, .. } => ("memory model (PTX 6.0)".to_string(), at(span)),
            Because::Verifier(message) => (format!("verifier: {message}"), None),
        }
    };
    let version = |v: Version| format!("{}.{}", v.0, v.1);
    let mut out = String::new();
    if !json {
        let (what, at) = why(&lowest.because);
        let at = at.map_or(String::new(), |(l, c)| format!(" at {l}:{c}"));
        let written = version(module.version);
        out.push_str(&format!(
            "module: .version {} (written {written}), because of {what}{at}\n",
            version(lowest.version)
        ));
        for (name, req) in &reqs.functions {
            let (what, at) = why(&req.because);
            let at = at.map_or(String::new(), |(l, c)| format!(" at {l}:{c}"));
            out.push_str(&format!("function {name}: .version {}, because of {what}{at}\n", version(req.version)));
        }
        return out;
    }
    let entry = |out: &mut String, req: &Requirement| {
        let (what, at) = why(&req.because);
        out.push_str(&format!("\"version\":\"{}\",\"because\":", version(req.version)));
        crate::report::push_json_string(out, &what);
        if let Some((l, c)) = at {
            out.push_str(&format!(",\"line\":{l},\"col\":{c}"));
        }
    };
    out.push_str("{\"module\":{");
    entry(&mut out, &lowest);
    out.push_str(&format!(",\"written\":\"{}\",\"target\":", version(module.version)));
    match &reqs.target {
        Some(t) => crate::report::push_json_string(&mut out, t),
        None => out.push_str("null"),
    }
    out.push_str("},\"functions\":[");
    for (i, (name, req)) in reqs.functions.iter().enumerate() {
        out.push_str(if i == 0 { "{\"function\":" } else { ",{\"function\":" });
        crate::report::push_json_string(&mut out, name);
        out.push(',');
        entry(&mut out, req);
        out.push('}');
    }
    out.push_str("]}\n");
    out
}
