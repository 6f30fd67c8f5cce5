//! The description language: reads `isa/*.ptxisa` into the tables of
//! [`crate::model`]. The generator writes what this returns as Rust
//! ([`crate::ISA`]); tools and tests may also call it at run time.
//!
//! A description file is a list of top-level lines and syntax blocks. `#`
//! starts a comment of ours, `//` one of the ISA text (both run to the end
//! of the line).
//!
//! ```text
//! type .u32 unsigned 32                  # a type: its word, class, bits
//! class rounding .rn .rz .rm .rp         # words the IR keeps in a class of their own
//! class prmt-mode .f4e .b4e for prmt     # ... on these opcodes only
//! opcode add: pure                       # effects, control, shape (defaults: falls, dst1)
//! ignored or: .infinite .subnormal       # words ptxas accepts on `or` and ignores
//! need add.u16x2 8.0 sm_90+ : add.u16x2 %r1, %r2, %r3;
//! versions 1.0 1.1 ... 9.5                # the .version values ptxas accepts
//! target sm_90a 8.0 probed                # a .target, the .version it needs
//! target-words debug texmode_independent  # other words .target takes
//! probed-from 3.0                         # the oldest .version probed for `need`
//! described 9.1                           # the ISA text the syntax blocks come from
//! forbid vote.!sync from 6.4 on sm_70+ : REASON   # ptxas rejects these
//!
//! syntax 9.7.1.1 "Integer Arithmetic Instructions: add" from 971_.../9711_..._add.md
//! add.type       d, a, b;
//! add{.sat}.s32  d, a, b;
//! .type = { .u16, .u32, .u64, .s16, .s32, .s64, .u16x2, .s16x2 };
//! @with cache-policy: .L2::cache_hint    # annotations of the block
//! ```
//!
//! A syntax block holds templates (ending in `;`), named sets (`.name = {
//! ... }`, `.a = .b = { ... }`, `vop = { vadd, vsub }` for opcodes,
//! `cp-size = { 4, 8 }` for operand values, `::op = { ::fill }` for
//! suffixes) and annotations. A template takes, for each name it uses, the
//! first set of that name after it in the block, else the last one before
//! (the ISA writes sets both after their templates and at the end).
//!
//! Annotations of a block (each applies to every template of the block):
//!
//! * `@shape dst1|nodst|accumulate|unknown` and `@effects pure|reads|effectful`:
//!   override the opcode's; with `for .w1 .w2`, only for the templates that
//!   have one of these words (as a required literal);
//! * `@with OPERAND: .word`: the optional operand is there if and only if
//!   the word is;
//! * `@immediate OPERAND...`: integer literals only;
//! * `@target OPERAND...`: labels or function names;
//! * `@space OPERAND: .set` or `@space OPERAND: .word`: the state space a
//!   symbol in that address must be declared in (the set's word, generic
//!   when absent);
//! * `@type OPERAND...: .type`: a register there agrees with that type as
//!   an operand of that instruction type (ISA 9.4 Table 26: `.b32` takes
//!   any 32-bit register, `.u32` an integer or bit one); `.set` instead of a
//!   type: the type the form's slot of that name holds;
//! * `@register OPERAND...`: a register, not a literal;
//! * `@discard OPERAND...`: the sink `_` may stand there too (the result is
//!   discarded: `atom.global.add.u32 _, [a], 1`);
//! * `@range OPERAND: LOW..HIGH`: a literal there lies in the range.
//!
//! `need KEY VERSION TARGETS [@ PROBE-TARGET] : PROBE` says what the
//! instructions of KEY (an opcode and words they all have, `cvt.pack.u4`,
//! or a special register) need: `.version` VERSION and one of TARGETS
//! (`sm_90+`: every target from sm_90 up; or a list `sm_90a,sm_100a`),
//! measured with ptxas on PROBE.

mod syntax;

use crate::model::{
    Block, Control, Effects, Form, Isa, Need, OpcodeInfo, OperandKind, OperandSpec, Presence, Shape, Slot, SlotList,
    SpaceRule, Text, TypeClass, TypeInfo, TypeRule, WordId,
};
use std::collections::{BTreeMap, BTreeSet};
use syntax::{parse_elems, parse_operands, Elem, RawKind, RawOperand, Suffix};

/// A problem in the description, at its file and line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// The file name as given.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.message)
    }
}

/// Reads the description files (name, text) into tables. Every error found
/// is returned.
pub fn parse(files: &[(&str, &str)]) -> Result<&'static Isa, Vec<Error>> {
    let mut reader = Reader::default();
    for (name, text) in files {
        reader.read_file(name, text);
    }
    reader.build()
}

/// Reads every `*.ptxisa` file of `dir` (sorted by name).
pub fn parse_dir(dir: &std::path::Path) -> Result<&'static Isa, Vec<Error>> {
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| vec![Error { file: dir.display().to_string(), line: 0, message: e.to_string() }])?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ptxisa"))
        .collect();
    names.sort();
    let texts: Vec<(String, String)> = names
        .iter()
        .map(|p| {
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            (name, std::fs::read_to_string(p).unwrap_or_default())
        })
        .collect();
    let files: Vec<(&str, &str)> = texts.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
    parse(&files)
}

/// The files of the description shipped with this crate, for tools that
/// read it at run time.
pub fn shipped_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("isa")
}

#[derive(Default)]
struct Reader {
    errors: Vec<Error>,
    types: Vec<TypeInfo>,
    opcodes: BTreeMap<String, OpcodeDecl>,
    ignored: BTreeMap<String, Vec<String>>,
    needs: Vec<Need>,
    blocks: Vec<RawBlock>,
    classes: Vec<(&'static str, &'static [&'static str], &'static [&'static str])>,
    versions: Vec<u32>,
    targets: Vec<crate::model::TargetInfo>,
    target_words: Vec<&'static str>,
    probed_from: u32,
    described: Option<u32>,
    forbids: Vec<crate::model::Forbid>,
}

/// `8.6` → 86 (ptxas reads `8.10` as 8 * 10 + 10).
fn version_number(text: &str) -> Option<u32> {
    let (a, b) = text.split_once('.')?;
    Some(a.parse::<u32>().ok()? * 10 + b.parse::<u32>().ok()?)
}

struct OpcodeDecl {
    effects: Effects,
    control: Control,
    shape: Shape,
}

struct RawBlock {
    block: Block,
    statements: Vec<(u32, Statement)>,
}

enum Statement {
    Template { text: String },
    Definition { names: Vec<String>, body: String },
    Annotation { keyword: String, rest: String },
}

fn leak_str(s: &str) -> &'static str {
    Box::leak(s.to_string().into_boxed_str())
}

fn leak<T>(v: Vec<T>) -> &'static [T] {
    Box::leak(v.into_boxed_slice())
}

/// Strips `#` and `//` comments.
fn strip_comment(line: &str) -> &str {
    let cut = [line.find('#'), line.find("//")].into_iter().flatten().min();
    match cut {
        Some(i) => &line[..i],
        None => line,
    }
}

impl Reader {
    fn error(&mut self, file: &str, line: u32, message: impl Into<String>) {
        self.errors.push(Error { file: file.to_string(), line, message: message.into() });
    }

    fn read_file(&mut self, file: &str, text: &str) {
        let mut pending = String::new();
        let mut pending_line = 0;
        for (i, raw) in text.lines().enumerate() {
            let line_no = i as u32 + 1;
            let line = strip_comment(raw).trim();
            if pending.is_empty() {
                if line.is_empty() {
                    continue;
                }
                if self.top_level(file, line_no, line) {
                    continue;
                }
                if let Some(annotation) = line.strip_prefix('@') {
                    let (keyword, rest) = annotation.split_once(char::is_whitespace).unwrap_or((annotation, ""));
                    self.push_statement(
                        file,
                        line_no,
                        Statement::Annotation { keyword: keyword.to_string(), rest: rest.trim().to_string() },
                    );
                    continue;
                }
                pending_line = line_no;
            }
            if !pending.is_empty() {
                pending.push(' ');
            }
            pending.push_str(line);
            // A statement is complete at `;` outside braces, or at the `}`
            // that closes a set.
            while let Some((stmt, rest)) = complete_statement(&pending) {
                let stmt = stmt.trim().to_string();
                let rest = rest.trim().to_string();
                if !stmt.is_empty() {
                    let statement = classify(&stmt);
                    self.push_statement(file, pending_line, statement);
                }
                pending = rest;
            }
        }
        if !pending.trim().is_empty() {
            self.error(file, pending_line, format!("unfinished statement '{}' (a template ends with ';')", pending));
        }
    }

    fn push_statement(&mut self, file: &str, line: u32, statement: Statement) {
        match self.blocks.last_mut() {
            Some(b) if b.block.file == file => b.statements.push((line, statement)),
            _ => self.error(file, line, "a template, set or annotation outside a syntax block"),
        }
    }

    /// Handles a top-level line; false if `line` is not one.
    fn top_level(&mut self, file: &str, line_no: u32, line: &str) -> bool {
        let (keyword, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let rest = rest.trim();
        match keyword {
            "type" => self.type_line(file, line_no, rest),
            "class" => {
                let (words, opcodes) = rest.split_once(" for ").unwrap_or((rest, ""));
                let mut parts = words.split_whitespace();
                let name = leak_str(parts.next().unwrap_or(""));
                let words: Vec<&'static str> = parts.map(|w| leak_str(w.trim_start_matches('.'))).collect();
                let opcodes: Vec<&'static str> = opcodes.split_whitespace().map(leak_str).collect();
                if name.is_empty() || words.is_empty() {
                    self.error(file, line_no, "expected 'class NAME .word ... [for OPCODE ...]'");
                } else {
                    self.classes.push((name, leak(words), leak(opcodes)));
                }
            }
            "opcode" => self.opcode_line(file, line_no, rest),
            "ignored" => {
                let Some((opcode, words)) = rest.split_once(':') else {
                    self.error(file, line_no, "expected 'ignored OPCODE: .word ...'");
                    return true;
                };
                let words = words.split_whitespace().map(|w| w.trim_start_matches('.').to_string());
                self.ignored.entry(opcode.trim().to_string()).or_default().extend(words);
            }
            "need" => self.need_line(file, line_no, rest),
            "versions" => match rest.split_whitespace().map(version_number).collect::<Option<Vec<u32>>>() {
                Some(v) => self.versions = v,
                None => self.error(file, line_no, "expected 'versions MAJOR.MINOR ...'"),
            },
            "target" => {
                let parts: Vec<&str> = rest.split_whitespace().collect();
                match (parts.first(), parts.get(1).and_then(|v| version_number(v)), parts.get(2)) {
                    (Some(name), Some(min_version), probed) if probed.is_none_or(|p| *p == "probed") => self
                        .targets
                        .push(crate::model::TargetInfo { name: leak_str(name), min_version, probed: probed.is_some() }),
                    _ => self.error(file, line_no, "expected 'target sm_NN MAJOR.MINOR [probed]'"),
                }
            }
            "target-words" => self.target_words.extend(rest.split_whitespace().map(leak_str)),
            "forbid" => self.forbid_line(file, line_no, rest),
            "probed-from" => match version_number(rest) {
                Some(v) => self.probed_from = v,
                None => self.error(file, line_no, "expected 'probed-from MAJOR.MINOR'"),
            },
            "described" => match version_number(rest) {
                Some(v) => self.described = Some(v),
                None => self.error(file, line_no, "expected 'described MAJOR.MINOR'"),
            },
            "syntax" => self.syntax_line(file, line_no, rest),
            _ => return false,
        }
        true
    }

    fn type_line(&mut self, file: &str, line_no: u32, rest: &str) {
        let parts: Vec<&str> = rest.split_whitespace().collect();
        let class = match parts.get(1).copied() {
            Some("pred") => TypeClass::Pred,
            Some("bits") => TypeClass::Bits,
            Some("unsigned") => TypeClass::Unsigned,
            Some("signed") => TypeClass::Signed,
            Some("float") => TypeClass::Float,
            _ => return self.error(file, line_no, "expected 'type .NAME pred|bits|unsigned|signed|float BITS'"),
        };
        let (Some(name), Some(Ok(bits))) = (parts.first(), parts.get(2).map(|b| b.parse::<u16>())) else {
            return self.error(file, line_no, "expected 'type .NAME CLASS BITS'");
        };
        self.types.push(TypeInfo { name: leak_str(name.trim_start_matches('.')), class, bits });
    }

    fn opcode_line(&mut self, file: &str, line_no: u32, rest: &str) {
        let Some((name, attrs)) = rest.split_once(':') else {
            return self.error(file, line_no, "expected 'opcode NAME: EFFECTS[, CONTROL][, SHAPE]'");
        };
        let mut decl = OpcodeDecl { effects: Effects::Effectful, control: Control::Falls, shape: Shape::Dst1 };
        let mut has_effects = false;
        for attr in attrs.split(',').map(str::trim) {
            match attr {
                "pure" => decl.effects = Effects::Pure,
                "reads" => decl.effects = Effects::Reads,
                "effectful" => decl.effects = Effects::Effectful,
                "falls" => decl.control = Control::Falls,
                "call" => decl.control = Control::Call,
                "branch" => decl.control = Control::Branch,
                "indirect-branch" => decl.control = Control::IndirectBranch,
                "return" => decl.control = Control::Return,
                "exit" => decl.control = Control::Exit,
                "trap" => decl.control = Control::Trap,
                "dst1" => decl.shape = Shape::Dst1,
                "nodst" => decl.shape = Shape::NoDst,
                "accumulate" => decl.shape = Shape::Accumulate,
                "call-results" => decl.shape = Shape::Call,
                "unknown" => decl.shape = Shape::Unknown,
                other => return self.error(file, line_no, format!("unknown opcode attribute '{other}'")),
            }
            has_effects |= matches!(attr, "pure" | "reads" | "effectful");
        }
        if !has_effects {
            return self.error(file, line_no, "an opcode line must say pure, reads or effectful");
        }
        let name = name.trim().to_string();
        if self.opcodes.insert(name.clone(), decl).is_some() {
            self.error(file, line_no, format!("opcode '{name}' declared twice"));
        }
    }

    fn need_line(&mut self, file: &str, line_no: u32, rest: &str) {
        let Some((head, probe)) = rest.split_once(" : ") else {
            return self.error(file, line_no, "expected 'need KEY VERSION TARGETS [@ TARGET] : PROBE'");
        };
        let parts: Vec<&str> = head.split_whitespace().collect();
        let (Some(key), Some(version), Some(targets)) = (parts.first(), parts.get(1), parts.get(2)) else {
            return self.error(file, line_no, "expected 'need KEY VERSION TARGETS [@ TARGET] : PROBE'");
        };
        let Some(min_version) =
            version.split_once('.').and_then(|(a, b)| Some(a.parse::<u32>().ok()? * 10 + b.parse::<u32>().ok()?))
        else {
            return self.error(file, line_no, format!("bad version '{version}'"));
        };
        let from_lowest = targets.ends_with('+');
        let list: Vec<&'static str> = targets.trim_end_matches('+').split(',').map(leak_str).collect();
        let probe_target = match (parts.get(3), parts.get(4)) {
            (Some(&"@"), Some(t)) => leak_str(t),
            (None, None) => list[0],
            _ => return self.error(file, line_no, "expected '@ TARGET' after the targets"),
        };
        let mut words = key.split('.');
        let opcode = leak_str(words.next().unwrap_or(""));
        let with: Vec<&'static str> = words.map(leak_str).collect();
        self.needs.push(Need {
            opcode: opcode.into(),
            with: leak(with.into_iter().map(Text::from).collect()).into(),
            min_version,
            targets: leak(list.into_iter().map(Text::from).collect()).into(),
            from_lowest,
            probe: leak_str(probe.trim()).into(),
            probe_target: probe_target.into(),
        });
    }

    /// `forbid KEY [from VERSION] [on TARGETS] : REASON`
    fn forbid_line(&mut self, file: &str, line_no: u32, rest: &str) {
        let Some((head, reason)) = rest.split_once(" : ") else {
            return self.error(file, line_no, "expected 'forbid KEY [from VERSION] [on TARGETS] : REASON'");
        };
        let mut parts = head.split_whitespace();
        let key = parts.next().unwrap_or("");
        let (mut from_version, mut targets, mut from_lowest) = (0, Vec::new(), false);
        while let Some(word) = parts.next() {
            match (word, parts.next()) {
                ("from", Some(v)) => match version_number(v) {
                    Some(v) => from_version = v,
                    None => return self.error(file, line_no, format!("bad version '{v}'")),
                },
                ("on", Some(list)) => {
                    from_lowest = list.ends_with('+');
                    targets = list.trim_end_matches('+').split(',').map(leak_str).collect();
                }
                _ => return self.error(file, line_no, "expected 'from VERSION' or 'on TARGETS'"),
            }
        }
        let mut words = key.split('.');
        let opcode = leak_str(words.next().unwrap_or(""));
        let with: Vec<&'static str> = words.map(leak_str).collect();
        self.forbids.push(crate::model::Forbid {
            opcode,
            with: leak(with),
            from_version,
            targets: leak(targets),
            from_lowest,
            reason: leak_str(reason.trim()),
        });
    }

    fn syntax_line(&mut self, file: &str, line_no: u32, rest: &str) {
        // syntax NUMBER "TITLE" from PATH
        let Some((number, rest)) = rest.split_once(char::is_whitespace) else {
            return self.error(file, line_no, "expected 'syntax NUMBER \"TITLE\" from PATH'");
        };
        let rest = rest.trim();
        let parsed = rest
            .strip_prefix('"')
            .and_then(|r| r.split_once('"'))
            .and_then(|(title, r)| r.trim().strip_prefix("from").map(|p| (title, p.trim())));
        let Some((title, spec)) = parsed else {
            return self.error(file, line_no, "expected 'syntax NUMBER \"TITLE\" from PATH'");
        };
        self.blocks.push(RawBlock {
            block: Block {
                number: leak_str(number).into(),
                title: leak_str(title).into(),
                spec: leak_str(spec).into(),
                file: leak_str(file).into(),
                line: line_no,
            },
            statements: Vec::new(),
        });
    }

    fn build(mut self) -> Result<&'static Isa, Vec<Error>> {
        let mut forms: Vec<PendingForm> = Vec::new();
        let blocks = std::mem::take(&mut self.blocks);
        for (index, block) in blocks.iter().enumerate() {
            self.block_forms(index as u16, block, &mut forms);
        }
        // The vocabulary: every word of a slot, every type, every ignored word.
        let mut vocabulary: BTreeSet<String> = BTreeSet::new();
        for f in &forms {
            for s in &f.slots {
                vocabulary.extend(s.words.iter().cloned());
            }
        }
        vocabulary.extend(self.types.iter().map(|t| t.name.to_string()));
        for (_, words, _) in &self.classes {
            vocabulary.extend(words.iter().map(|w| w.to_string()));
        }
        for words in self.ignored.values() {
            vocabulary.extend(words.iter().cloned());
        }
        let words: Vec<&'static str> = vocabulary.iter().map(|w| leak_str(w)).collect();
        let id = |w: &str| words.binary_search(&w).expect("the vocabulary holds every word") as WordId;

        // Opcodes in name order; forms grouped by opcode.
        let mut used: BTreeSet<&str> = BTreeSet::new();
        for f in &forms {
            used.insert(&f.opcode);
        }
        for name in &used {
            if !self.opcodes.contains_key(*name) {
                let f = forms.iter().find(|f| f.opcode == *name).expect("a form of it");
                let b = &blocks[f.block as usize].block;
                self.errors.push(Error {
                    file: b.file.to_string(),
                    line: f.line,
                    message: format!("opcode '{name}' has no 'opcode' line"),
                });
            }
        }
        for f in &forms {
            for o in &f.operands {
                if let Some(PendingType::Word(ty)) = &o.ty {
                    if !self.types.iter().any(|t| t.name == ty) {
                        let b = &blocks[f.block as usize].block;
                        self.errors.push(Error {
                            file: b.file.to_string(),
                            line: f.line,
                            message: format!("@type names '.{ty}', which is not a type"),
                        });
                    }
                }
            }
        }
        for name in self.ignored.keys() {
            if !self.opcodes.contains_key(name) {
                self.errors.push(Error {
                    file: String::new(),
                    line: 0,
                    message: format!("'ignored' names unknown opcode '{name}'"),
                });
            }
        }
        let names: Vec<&String> = self.opcodes.keys().collect();
        let opcode_index = |n: &str| names.binary_search_by(|x| x.as_str().cmp(n)).ok();
        let mut order: Vec<usize> = (0..forms.len()).collect();
        order.sort_by_key(|&i| (opcode_index(&forms[i].opcode), i));
        let mut out_forms: Vec<Form> = Vec::new();
        let mut ranges: Vec<(u32, u32)> = vec![(0, 0); names.len()];
        for i in order {
            let f = &forms[i];
            let Some(op) = opcode_index(&f.opcode) else { continue };
            let decl = &self.opcodes[&f.opcode];
            let start = out_forms.len() as u32;
            if ranges[op] == (0, 0) {
                ranges[op] = (start, start);
            }
            let slots: Vec<Slot> = f
                .slots
                .iter()
                .map(|s| Slot {
                    name: leak_str(&s.name).into(),
                    words: leak(s.words.iter().map(|w| id(w)).collect()).into(),
                    presence: s.presence,
                    is_type: !s.words.is_empty() && s.words.iter().all(|w| self.types.iter().any(|t| t.name == w)),
                })
                .collect();
            let operands: Vec<OperandSpec> = f
                .operands
                .iter()
                .map(|o| OperandSpec {
                    name: leak_str(&o.name).into(),
                    kind: o.kind,
                    optional: o.optional,
                    with_word: o.with_word.as_deref().map(&id),
                    immediate: o.immediate,
                    values: leak(o.values.clone()).into(),
                    space: o.space.as_ref().map(|s| match s {
                        PendingSpace::Slot(i) => SpaceRule::Slot(*i),
                        PendingSpace::Word(w) => SpaceRule::Word(id(w)),
                    }),
                    ty: o.ty.as_ref().map(|t| match t {
                        PendingType::Word(w) => TypeRule::Word(id(w)),
                        PendingType::Slot(i) => TypeRule::Slot(*i),
                    }),
                    register: o.register,
                    discard: o.discard,
                    range: o.range,
                })
                .collect();
            out_forms.push(Form {
                opcode: op as u16,
                block: f.block,
                line: f.line,
                text: leak_str(&f.text).into(),
                slots: SlotList { ids: leak((0..slots.len() as u16).collect()).into(), table: leak(slots).into() },
                operands: leak(operands).into(),
                shape: f.shape.unwrap_or(decl.shape),
                effects: f.effects.unwrap_or(decl.effects),
            });
            ranges[op].1 = out_forms.len() as u32;
        }
        let opcodes: Vec<OpcodeInfo> = names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let decl = &self.opcodes[*name];
                // A word of one of the opcode's own forms is never ignored
                // (the leniency file is measured against an older description).
                let (start, end) = ranges[i];
                let own: BTreeSet<WordId> = out_forms[start as usize..end as usize]
                    .iter()
                    .flat_map(|f| f.slots.iter().flat_map(|s| s.words.iter().copied()))
                    .collect();
                let ignored: BTreeSet<WordId> = self
                    .ignored
                    .get(*name)
                    .map(|ws| ws.iter().map(|w| id(w)).filter(|w| !own.contains(w)).collect())
                    .unwrap_or_default();
                OpcodeInfo {
                    name: leak_str(name).into(),
                    effects: decl.effects,
                    control: decl.control,
                    shape: decl.shape,
                    forms: ranges[i],
                    ignored: leak(ignored.into_iter().collect()).into(),
                    words: leak(own.into_iter().collect()).into(),
                }
            })
            .collect();
        if !self.errors.is_empty() {
            return Err(self.errors);
        }
        let mut needs = self.needs;
        needs.sort_by_key(|a| (a.opcode, a.with));
        Ok(Box::leak(Box::new(Isa {
            words: leak(words),
            types: leak(self.types),
            opcodes: leak(opcodes),
            blocks: leak(blocks.into_iter().map(|b| b.block).collect()),
            forms: leak(out_forms),
            needs: leak(needs),
            classes: leak(self.classes),
            versions: leak(self.versions),
            targets: leak(self.targets),
            target_words: leak(self.target_words),
            probed_from: self.probed_from,
            // Without the line, every .version is described: nothing is lenient.
            described: self.described.unwrap_or(u32::MAX),
            forbids: leak(self.forbids),
        })))
    }

    /// The forms of one syntax block.
    fn block_forms(&mut self, index: u16, block: &RawBlock, out: &mut Vec<PendingForm>) {
        let file = block.block.file.as_str();
        let mut notes = BlockNotes::default();
        for (line, st) in &block.statements {
            if let Statement::Annotation { keyword, rest } = st {
                if let Err(e) = notes.add(keyword, rest) {
                    self.error(file, *line, e);
                }
            }
        }
        for (i, (line, st)) in block.statements.iter().enumerate() {
            let Statement::Template { text } = st else { continue };
            let defs = Definitions { block, at: i };
            match template_forms(text, &defs, &notes) {
                Ok(forms) => {
                    for mut f in forms {
                        f.block = index;
                        f.line = *line;
                        out.push(f);
                    }
                }
                Err(e) => self.error(file, *line, e),
            }
        }
        for (line, st) in &block.statements {
            if let Statement::Definition { names, .. } = st {
                if names.is_empty() {
                    self.error(file, *line, "a set without a name");
                }
            }
        }
        for name in notes.operand_names() {
            let known = block.statements.iter().any(|(_, st)| match st {
                Statement::Template { text } => template_operand_names(text).iter().any(|n| n == name),
                _ => false,
            });
            if !known {
                self.error(
                    file,
                    block.block.line,
                    format!("annotation names operand '{name}', which no template of the block has"),
                );
            }
        }
    }
}

/// Splits off the first complete statement of `s`.
fn complete_statement(s: &str) -> Option<(&str, &str)> {
    let mut depth = 0i32;
    let is_definition = {
        // `=` before any brace: a set.
        let brace = s.find('{').unwrap_or(s.len());
        s[..brace].contains('=')
    };
    for (i, c) in s.char_indices() {
        match c {
            '{' | '[' | '(' => depth += 1,
            '}' | ']' | ')' => {
                depth -= 1;
                if depth == 0 && c == '}' && is_definition {
                    let rest = s[i + 1..].trim_start();
                    let rest = rest.strip_prefix(';').unwrap_or(rest);
                    return Some((&s[..i + 1], rest));
                }
            }
            ';' if depth == 0 => return Some((&s[..i], &s[i + 1..])),
            _ => {}
        }
    }
    None
}

fn classify(stmt: &str) -> Statement {
    let brace = stmt.find('{').unwrap_or(stmt.len());
    if stmt[..brace].contains('=') {
        let (names, body) = stmt.rsplit_once('=').map(|(n, _)| n).map_or((stmt, ""), |n| (n, &stmt[n.len() + 1..]));
        let names = names.split('=').map(|n| n.trim().to_string()).filter(|n| !n.is_empty()).collect();
        return Statement::Definition { names, body: body.trim().to_string() };
    }
    Statement::Template { text: stmt.to_string() }
}

/// The sets a template at statement `at` sees.
struct Definitions<'a> {
    block: &'a RawBlock,
    at: usize,
}

impl Definitions<'_> {
    /// The body of the set `name` (`.type`, `vop`, `::op`, `cp-size`): the
    /// first one after the template, else the last one before.
    fn get(&self, name: &str) -> Option<&str> {
        fn matches<'s>(st: &'s Statement, name: &str) -> Option<&'s str> {
            match st {
                Statement::Definition { names, body } if names.iter().any(|n| n == name) => Some(body.as_str()),
                _ => None,
            }
        }
        let statements = &self.block.statements;
        statements[self.at..]
            .iter()
            .find_map(|(_, st)| matches(st, name))
            .or_else(|| statements[..self.at].iter().rev().find_map(|(_, st)| matches(st, name)))
    }

    /// The alternatives of a set body `{ a, b }`.
    fn alternatives(&self, name: &str) -> Option<Result<Vec<String>, String>> {
        let body = self.get(name)?;
        let inner = match body.strip_prefix('{').and_then(|b| b.strip_suffix('}')) {
            Some(inner) => inner,
            None => return Some(Err(format!("the set {name} is not '{{ ... }}'"))),
        };
        Some(Ok(syntax::split_top(inner).into_iter().map(|a| a.trim().to_string()).filter(|a| !a.is_empty()).collect()))
    }
}

/// What a block's annotations say.
#[derive(Default)]
struct BlockNotes {
    /// `@shape S` (no words) or `@shape S for .w1 .w2` (the templates with
    /// one of these words as a required literal).
    shape: Vec<(Shape, Vec<String>)>,
    effects: Vec<(Effects, Vec<String>)>,
    with: Vec<(String, String)>,
    immediate: Vec<String>,
    target: Vec<String>,
    space: Vec<(String, String)>,
    ty: Vec<(String, String)>,
    register: Vec<String>,
    discard: Vec<String>,
    range: Vec<(String, (i64, i64))>,
}

impl BlockNotes {
    fn add(&mut self, keyword: &str, rest: &str) -> Result<(), String> {
        let pair = |rest: &str| -> Result<(String, String), String> {
            let (a, b) = rest.split_once(':').ok_or_else(|| format!("expected '@{keyword} OPERAND: .word'"))?;
            Ok((a.trim().to_string(), b.trim().trim_start_matches('.').to_string()))
        };
        let (value, filter) = match rest.split_once(" for ") {
            Some((v, words)) => {
                (v.trim(), words.split_whitespace().map(|w| w.trim_start_matches('.').to_string()).collect())
            }
            None => (rest.trim(), Vec::new()),
        };
        match keyword {
            "shape" => {
                let shape = match value {
                    "dst1" => Shape::Dst1,
                    "nodst" => Shape::NoDst,
                    "accumulate" => Shape::Accumulate,
                    "unknown" => Shape::Unknown,
                    other => return Err(format!("unknown shape '{other}'")),
                };
                self.shape.push((shape, filter));
            }
            "effects" => {
                let effects = match value {
                    "pure" => Effects::Pure,
                    "reads" => Effects::Reads,
                    "effectful" => Effects::Effectful,
                    other => return Err(format!("unknown effects '{other}'")),
                };
                self.effects.push((effects, filter));
            }
            "with" => self.with.push(pair(rest)?),
            "space" => self.space.push(pair(rest)?),
            "immediate" => self.immediate.extend(rest.split_whitespace().map(String::from)),
            "register" => self.register.extend(rest.split_whitespace().map(String::from)),
            "discard" => self.discard.extend(rest.split_whitespace().map(String::from)),
            "type" => {
                let (names, ty) = rest.split_once(':').ok_or("expected '@type OPERAND...: .type'")?;
                let ty = ty.trim().trim_start_matches('.').to_string();
                self.ty.extend(names.split_whitespace().map(|n| (n.to_string(), ty.clone())));
            }
            "range" => {
                let (name, range) = rest.split_once(':').ok_or("expected '@range OPERAND: LOW..HIGH'")?;
                let parsed = range
                    .trim()
                    .split_once("..")
                    .and_then(|(a, b)| Some((a.trim().parse::<i64>().ok()?, b.trim().parse::<i64>().ok()?)));
                let range = parsed.ok_or_else(|| format!("bad range '{}'", range.trim()))?;
                self.range.push((name.trim().to_string(), range));
            }
            "target" => self.target.extend(rest.split_whitespace().map(String::from)),
            other => return Err(format!("unknown annotation '@{other}'")),
        }
        Ok(())
    }

    fn operand_names(&self) -> Vec<&String> {
        self.with
            .iter()
            .map(|(o, _)| o)
            .chain(&self.immediate)
            .chain(&self.target)
            .chain(self.space.iter().map(|(o, _)| o))
            .chain(self.ty.iter().map(|(o, _)| o))
            .chain(&self.register)
            .chain(&self.discard)
            .chain(self.range.iter().map(|(o, _)| o))
            .collect()
    }
}

/// A form before words get ids.
struct PendingForm {
    opcode: String,
    block: u16,
    line: u32,
    text: String,
    slots: Vec<PendingSlot>,
    operands: Vec<PendingOperand>,
    shape: Option<Shape>,
    effects: Option<Effects>,
}

#[derive(Clone, Debug)]
struct PendingSlot {
    name: String,
    words: BTreeSet<String>,
    presence: Presence,
}

struct PendingOperand {
    name: String,
    kind: OperandKind,
    optional: bool,
    with_word: Option<String>,
    immediate: bool,
    values: Vec<i64>,
    space: Option<PendingSpace>,
    ty: Option<PendingType>,
    register: bool,
    discard: bool,
    range: Option<(i64, i64)>,
}

enum PendingType {
    Word(String),
    Slot(u8),
}

enum PendingSpace {
    Slot(u8),
    Word(String),
}

/// The head (opcode and modifiers) and operand text of a template.
fn split_template(text: &str) -> (&str, &str) {
    let mut depth = 0;
    for (i, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            c if c.is_whitespace() && depth == 0 => return (&text[..i], text[i..].trim()),
            _ => {}
        }
    }
    (text, "")
}

fn template_operand_names(text: &str) -> Vec<String> {
    let (_, operands) = split_template(text);
    parse_operands(operands).map(|ops| ops.into_iter().map(|o| o.name).collect()).unwrap_or_default()
}

/// Expands one template into its forms.
fn template_forms(text: &str, defs: &Definitions<'_>, notes: &BlockNotes) -> Result<Vec<PendingForm>, String> {
    let (head, operand_text) = split_template(text);
    let opcode_end = head.find(['.', '{']).unwrap_or(head.len());
    let opcode_token = &head[..opcode_end];
    let opcodes: Vec<String> = match defs.alternatives(opcode_token) {
        Some(alts) => alts?,
        None => vec![opcode_token.to_string()],
    };
    if opcodes.is_empty() || opcodes.iter().any(|o| o.is_empty() || !o.chars().all(|c| c.is_ascii_alphanumeric())) {
        return Err(format!("bad opcode '{opcode_token}'"));
    }
    let elems = parse_elems(&head[opcode_end..])?;
    let mut groups = 0u8;
    let sequences = resolve_sequence(&elems, defs, &mut groups, &mut Vec::new())?;
    if sequences.len() > 256 {
        return Err(format!("the template expands to {} forms", sequences.len()));
    }
    let raw_operands = parse_operands(operand_text)?;
    let mut forms = Vec::new();
    for opcode in &opcodes {
        for slots in &sequences {
            let operands =
                raw_operands.iter().map(|o| operand(o, slots, defs, notes)).collect::<Result<Vec<_>, String>>()?;
            forms.push(PendingForm {
                opcode: opcode.clone(),
                block: 0,
                line: 0,
                text: text.split_whitespace().collect::<Vec<_>>().join(" "),
                slots: slots.clone(),
                operands,
                shape: noted(&notes.shape, slots),
                effects: noted(&notes.effects, slots),
            });
        }
    }
    Ok(forms)
}

/// The value an annotation gives a form: the first one whose words the form
/// has as a required literal, else the one without words.
fn noted<T: Copy>(notes: &[(T, Vec<String>)], slots: &[PendingSlot]) -> Option<T> {
    let has = |w: &String| {
        slots.iter().any(|s| s.presence == Presence::Required && s.words.len() == 1 && s.words.contains(w))
    };
    notes
        .iter()
        .find(|(_, words)| !words.is_empty() && words.iter().any(has))
        .or_else(|| notes.iter().find(|(_, words)| words.is_empty()))
        .map(|(v, _)| *v)
}

fn operand(
    raw: &RawOperand,
    slots: &[PendingSlot],
    defs: &Definitions<'_>,
    notes: &BlockNotes,
) -> Result<PendingOperand, String> {
    let mut values = Vec::new();
    let mut immediate = notes.immediate.contains(&raw.name);
    let kind = match raw.kind {
        RawKind::Value if notes.target.contains(&raw.name) => OperandKind::Target,
        RawKind::Value => OperandKind::Value,
        RawKind::Address(a, b, u) => OperandKind::Address(a, b, u),
        RawKind::Pair { second_optional } => OperandKind::Pair { second_optional },
        RawKind::Vector(n) => OperandKind::Vector(n),
        RawKind::Parens => OperandKind::Parens,
        RawKind::Sink => OperandKind::Sink,
        RawKind::Literal(n) => {
            values.push(n);
            immediate = true;
            OperandKind::Value
        }
    };
    if let Some(alts) = defs.alternatives(&raw.name) {
        for a in alts? {
            values.push(a.parse::<i64>().map_err(|_| format!("operand set {} holds '{a}', not a number", raw.name))?);
        }
        immediate = true;
    }
    let with_word = notes.with.iter().find(|(o, _)| *o == raw.name).map(|(_, w)| w.clone());
    if with_word.is_some() && !raw.optional {
        return Err(format!("@with names '{}', which is not an optional operand", raw.name));
    }
    let space = notes.space.iter().find(|(o, _)| *o == raw.name).map(|(_, s)| {
        match slots.iter().position(|slot| slot.name == *s) {
            Some(i) => PendingSpace::Slot(i as u8),
            None => PendingSpace::Word(s.clone()),
        }
    });
    // `@type a: .atype` names a slot of the form when it has one of that name.
    let ty = notes.ty.iter().find(|(o, _)| *o == raw.name).map(|(_, t)| {
        match slots.iter().position(|slot| slot.name == *t && slot.words.len() > 1) {
            Some(i) => PendingType::Slot(i as u8),
            None => PendingType::Word(t.clone()),
        }
    });
    let register = notes.register.contains(&raw.name);
    let discard = notes.discard.contains(&raw.name);
    let range = notes.range.iter().find(|(o, _)| *o == raw.name).map(|(_, r)| *r);
    if register && immediate {
        return Err(format!("operand '{}' is both @register and an immediate", raw.name));
    }
    Ok(PendingOperand {
        name: raw.name.clone(),
        kind,
        optional: raw.optional,
        with_word,
        immediate,
        values,
        space,
        ty,
        register,
        discard,
        range,
    })
}

/// The slot sequences a modifier sequence stands for (more than one when a
/// set has multi-word alternatives). `depth` bounds set recursion.
fn resolve_sequence(
    elems: &[Elem],
    defs: &Definitions<'_>,
    groups: &mut u8,
    within: &mut Vec<String>,
) -> Result<Vec<Vec<PendingSlot>>, String> {
    if within.len() > 8 {
        return Err("sets nest too deep".to_string());
    }
    let mut sequences: Vec<Vec<PendingSlot>> = vec![Vec::new()];
    for elem in elems {
        let options = resolve_elem(elem, defs, groups, within)?;
        let mut next = Vec::new();
        for seq in &sequences {
            for opt in &options {
                let mut s = seq.clone();
                s.extend(opt.iter().cloned());
                next.push(s);
            }
        }
        sequences = next;
        if sequences.len() > 1024 {
            return Err("too many forms".to_string());
        }
    }
    Ok(sequences)
}

/// `within`: the sets being resolved; a word that names one of them is
/// that word (`.clamp = { .trap, .clamp, .zero }`).
fn resolve_elem(
    elem: &Elem,
    defs: &Definitions<'_>,
    groups: &mut u8,
    within: &mut Vec<String>,
) -> Result<Vec<Vec<PendingSlot>>, String> {
    match elem {
        Elem::Word(w) => {
            let dotted = format!(".{}", w.base);
            let set = if within.contains(&w.base) {
                None
            } else {
                defs.alternatives(&dotted).or_else(|| defs.alternatives(&w.base))
            };
            if let Some(alts) = set {
                if w.suffix != Suffix::None {
                    return Err(format!("a set name with a suffix: .{}", w.base));
                }
                within.push(w.base.clone());
                let resolved = resolve_set(&w.base, &alts?, defs, groups, within);
                within.pop();
                return resolved;
            }
            let mut words = expand_parts(&w.base, defs)?;
            if let Suffix::Alts { alts, optional } = &w.suffix {
                let suffixes = expand_suffixes(alts, defs)?;
                let bases = std::mem::take(&mut words);
                for b in &bases {
                    if *optional {
                        words.push(b.clone());
                    }
                    for s in &suffixes {
                        words.push(format!("{b}{s}"));
                    }
                }
            }
            Ok(vec![vec![PendingSlot {
                name: w.base.clone(),
                words: words.into_iter().collect(),
                presence: Presence::Required,
            }]])
        }
        Elem::Alts(alts) | Elem::OptAlts(alts) => {
            let optional = matches!(elem, Elem::OptAlts(_));
            let mut options = Vec::new();
            for alt in alts {
                options.extend(resolve_sequence(alt, defs, groups, within)?);
            }
            let mut merged = merge_single_words(&options, "alternatives");
            if optional {
                for seq in &mut merged {
                    for s in seq.iter_mut() {
                        s.presence = Presence::Optional;
                    }
                }
                if merged.len() > 1 {
                    merged.push(Vec::new());
                }
            }
            Ok(merged)
        }
        Elem::Opt(inner) => {
            let options = resolve_sequence(inner, defs, groups, within)?;
            let mut out = Vec::new();
            let mut has_empty = false;
            for seq in options {
                let required: Vec<usize> = (0..seq.len()).filter(|&i| seq[i].presence == Presence::Required).collect();
                let mut seq = seq;
                match required.len() {
                    0 => has_empty |= seq.is_empty(),
                    1 => seq[required[0]].presence = Presence::Optional,
                    _ => {
                        *groups += 1;
                        for &i in &required {
                            seq[i].presence = Presence::Group(*groups);
                        }
                    }
                }
                if !seq.is_empty() {
                    out.push(seq);
                }
            }
            if out.is_empty() || has_empty {
                out.push(Vec::new());
            }
            Ok(out)
        }
    }
}

/// A named set: one slot if its alternatives are single words (optional if
/// one is `none`), else one sequence per alternative.
fn resolve_set(
    name: &str,
    alts: &[String],
    defs: &Definitions<'_>,
    groups: &mut u8,
    within: &mut Vec<String>,
) -> Result<Vec<Vec<PendingSlot>>, String> {
    let mut options = Vec::new();
    let mut none = false;
    for alt in alts {
        if alt == "none" {
            none = true;
            continue;
        }
        let text = if alt.starts_with('.') || alt.starts_with("::") { alt.clone() } else { format!(".{alt}") };
        let elems = parse_elems(&text)?;
        options.extend(resolve_sequence(&elems, defs, groups, within)?);
    }
    let mut merged = merge_single_words(&options, name.trim_start_matches('.'));
    if none {
        for seq in &mut merged {
            for s in seq.iter_mut() {
                if s.presence == Presence::Required {
                    s.presence = Presence::Optional;
                }
            }
        }
    }
    Ok(merged)
}

/// Alternatives that are each one required slot become one slot holding
/// all their words; otherwise they stay separate sequences.
fn merge_single_words(options: &[Vec<PendingSlot>], name: &str) -> Vec<Vec<PendingSlot>> {
    if !options.is_empty() && options.iter().all(|o| o.len() == 1 && o[0].presence == Presence::Required) {
        let words = options.iter().flat_map(|o| o[0].words.iter().cloned()).collect();
        return vec![vec![PendingSlot { name: name.to_string(), words, presence: Presence::Required }]];
    }
    options.to_vec()
}

/// `collector::buffer::op` with `::buffer = { ::a }`, `::op = { ::fill }`:
/// every spelling.
fn expand_parts(base: &str, defs: &Definitions<'_>) -> Result<Vec<String>, String> {
    let mut parts = base.split("::");
    let mut words = vec![parts.next().unwrap_or("").to_string()];
    for part in parts {
        let name = format!("::{part}");
        let options = match defs.alternatives(&name) {
            Some(alts) => alts?,
            None => vec![name],
        };
        words = words.iter().flat_map(|w| options.iter().map(move |o| format!("{w}{o}"))).collect();
    }
    Ok(words)
}

/// `{::dimension}` with `::dimension = { ::x, ::y }`: the suffixes.
fn expand_suffixes(alts: &[String], defs: &Definitions<'_>) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for a in alts {
        match defs.alternatives(a) {
            Some(inner) => out.extend(inner?),
            None => out.push(a.clone()),
        }
    }
    Ok(out)
}
