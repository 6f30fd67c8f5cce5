//! `ptx-verify`: the verifier. Checks that a module is valid PTX as far as
//! forms, types, declarations, labels and its `.version`/`.target` go, and
//! reports every problem it finds ([`verify_module`]).
//!
//! The parser accepts anything that has the shape of PTX; whether a register
//! of the declared type may be used by an instruction is decided here. The
//! verifier never changes the IR. Every run of `ptx-opt` checks its input
//! with it, the registered `verify` pass is a thin wrapper of it, and the
//! pass manager runs it after every pass with `--verify-each`, where it
//! catches a pass that produced invalid code, so it must be cheap: one walk
//! over the body, one small allocation per function (which labels are
//! placed), none per instruction except for the errors it reports.
//!
//! Like Cranelift's verifier it does not stop at the first error: every
//! error is collected with the span of its instruction. Checked:
//!
//! * operand types against the instruction types, by PTX ISA 9.4 Table 26
//!   and, for `ld`, `st` and `cvt`, the relaxed Tables 27 and 28 of 9.4.1
//!   (the rules are in `verify/rules.rs`, the per-opcode signatures in
//!   `verify/signature.rs`);
//! * the instruction types themselves (`add.b32`, `cvt.f32.b16` and
//!   `ld.f16` are not valid PTX);
//! * predicates where a predicate is required: guards, `!p`, the results of
//!   `setp`, the selector of `selp`;
//! * declarations: a `%` name that is neither a declared register nor a
//!   special register, `%r.x` on a register that is not a vector;
//! * labels: a `bra` whose target is not a label of the function, a branch
//!   to a label that is not placed in the body, a label placed twice;
//! * references a pass may break: a register or label id the function does
//!   not have is reported (the instruction is then not checked further),
//!   never a panic;
//! * vector arity: `ld.v4` with a two-element `{a, b}` or a `.v2` register,
//!   `.v2` with a scalar register;
//! * address registers: the base of `[reg+off]` must be an integer or bit
//!   register of at most 64 bits.
//! * forms (`verify/forms.rs`): opcodes that are no PTX instruction,
//!   modifiers an opcode does not have or that do not combine, operand
//!   counts and kinds, vector sizes, barrier numbers and thread counts,
//!   the comparisons each type has (`setp`, `set`), video operands, the
//!   register vectors of `ldmatrix`/`stmatrix`, `wmma.load`/`store`
//!   operands, `{...}` inside `[...]` (last only), `txq`/`suq` handles.
//!
//! Measured against ptxas on the mutation set (`tests/verify/mutations.rs`) and
//! the ISA sweep (`tests/verify/isa_sweep.rs`): nothing either accepts is
//! rejected, and each test holds a floor on what is caught.
//!
//! What ptxas accepts is the reference: the rules were checked against
//! ptxas 13.5 (the 1472 oracle cases, and every register type in every
//! operand position of each checked opcode), and where ptxas is looser than
//! the ISA's tables the verifier follows ptxas. Instructions and forms the
//! signature table does not describe are not type-checked, and some errors
//! ptxas reports are left to it on purpose: a 32-bit register as a
//! `.global` address in 64-bit code (valid or not depending on the target),
//! and the mixing of element types inside `{...}` vectors.

#![warn(missing_docs)]

mod declarations;
mod forms;
mod matcher;
mod rules;
mod shape;
mod signature;
mod target;

pub use target::{Target, Unmet};

use ptx_ir::special::is_special_register;
use ptx_ir::{
    AddrBase, Control, Diagnostic, Function, Inst, LabelId, Modifier, Module, ModuleItem, Operand, RegId, ScalarType,
    StateSpace, Stmt, TypeKind,
};
use rules::Literal;
use signature::Expect;
use std::sync::Arc;

/// The verifier as a value: what the pass manager runs on its input and,
/// with verify-each, after every pass.
#[derive(Clone, Debug, Default)]
pub struct Verifier {
    /// For a batch of a module parsed in batches: what the rest of the
    /// source declares.
    declared_before: Option<DeclaredBefore>,
    /// See [`Verifier::accepting_newer_forms`].
    accept_newer_forms: bool,
}

impl Verifier {
    /// The verifier of whole modules.
    pub fn new() -> Verifier {
        Verifier::default()
    }

    /// A verifier of the batches of a module parsed in batches
    /// (`ptx_parse::parse_in_batches`): `declared_before(name, at)` says
    /// whether the whole source declares `name` at module level before byte
    /// offset `at`, so that a function may name what an earlier batch
    /// declared (`ptx_parse::SourceDeclarations::declared_before`).
    pub fn with_declarations_before(declared_before: impl Fn(&str, u32) -> bool + Send + Sync + 'static) -> Verifier {
        Verifier { declared_before: Some(DeclaredBefore(Arc::new(declared_before))), accept_newer_forms: false }
    }

    /// This verifier, accepting (`yes`) or reporting an instruction of a
    /// later PTX ISA than the description's in a module whose `.version` is
    /// newer than it ([`ptx_ir::is_of_later_isa`]: an unknown opcode, or one
    /// the parser made unknown for a word or a combination of words no form
    /// of the description has), and ptxas judges its form. Reported by
    /// default, as an unknown word.
    pub fn accepting_newer_forms(self, yes: bool) -> Verifier {
        Verifier { accept_newer_forms: yes, ..self }
    }

    /// Whether it accepts instructions of a later PTX ISA
    /// ([`Verifier::accepting_newer_forms`]).
    pub fn accepts_newer_forms(&self) -> bool {
        self.accept_newer_forms
    }

    /// Checks `module` against its own header, as ptxas reads it
    /// ([`verify_module`] with [`Target::of`]); for a batch, with what the
    /// rest of the source declares.
    pub fn verify(&self, module: &Module) -> Result<(), Vec<Diagnostic>> {
        let mut verify = Verify::for_module(module).accepting_newer_forms(self.accept_newer_forms);
        verify.module_scope.declared_in_source = self.declared_before.clone();
        verify_with(module, &verify)
    }

    /// Checks `module` for `target` instead of its own header (as
    /// [`verify_module`]); for a batch, with what the rest of the source
    /// declares.
    pub fn verify_for(&self, module: &Module, target: &Target) -> Result<(), Vec<Diagnostic>> {
        let mut verify =
            Verify::for_module(module).with_target(target.clone()).accepting_newer_forms(self.accept_newer_forms);
        verify.module_scope.declared_in_source = self.declared_before.clone();
        verify_with(module, &verify)
    }
}

/// Whether a name is declared at module level before a byte offset of the
/// source, outside the module (batch) being checked.
#[derive(Clone)]
struct DeclaredBefore(Arc<DeclaredBeforeFn>);

type DeclaredBeforeFn = dyn Fn(&str, u32) -> bool + Send + Sync;

impl DeclaredBefore {
    fn declared_before(&self, name: &str, at: u32) -> bool {
        (self.0)(name, at)
    }
}

impl std::fmt::Debug for DeclaredBefore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DeclaredBefore(..)")
    }
}

/// Checks a whole module for `target`: its header and module-scope
/// declarations, then every function with a body, in parallel (on the
/// current rayon pool), each instruction against the forms of the
/// description and what `target` allows. `Target::of(module)` is the
/// module's own header, what ptxas reads. Every error found, in source
/// order (the module's, then each function's in function order).
pub fn verify_module(module: &Module, target: &Target) -> Result<(), Vec<Diagnostic>> {
    verify_with(module, &Verify::for_module(module).with_target(target.clone()))
}

fn verify_with(module: &Module, verify: &Verify) -> Result<(), Vec<Diagnostic>> {
    use rayon::prelude::*;
    let mut errors = verify.check_module(module);
    let per_function: Vec<Vec<Diagnostic>> = module
        .functions
        .values()
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|func| if func.has_body() { verify_function(func, verify) } else { Vec::new() })
        .collect();
    errors.extend(per_function.into_iter().flatten());
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// The verifier of one function.
#[derive(Clone, Debug)]
pub struct Verify {
    /// The instruction set the forms are checked against.
    isa: &'static ptx_isa::Isa,
    /// Module-level variables and functions whose names start with `%`
    /// (almost always none).
    module_names: Vec<String>,
    /// Module-level names a function may use as symbols.
    module_scope: declarations::ModuleScope,
    /// The state space of each module-level variable.
    module_spaces: std::collections::BTreeMap<String, ptx_ir::StateSpace>,
    /// What the header lacks for the instructions that need more.
    target: Target,
    /// Check every instruction, even one of a shape already found clean in
    /// its function (to test that remembering shapes changes nothing).
    every_instruction: bool,
    /// See [`Verifier::accepting_newer_forms`].
    accept_newer_forms: bool,
    /// The module's `.address_size`.
    address_size: Option<u32>,
}

impl Verify {
    /// A verifier for the functions of `module`.
    pub fn for_module(module: &Module) -> Verify {
        let variables = module.items.iter().filter_map(|item| match item {
            ModuleItem::Variable(v) => Some(v.name.as_str()),
            _ => None,
        });
        let functions = module.functions.values().map(|f| f.name.as_str());
        let module_names = variables.chain(functions).filter(|n| n.starts_with('%')).map(String::from).collect();
        let target = Target::of(module);
        let module_spaces = module
            .items
            .iter()
            .filter_map(|item| match item {
                ModuleItem::Variable(v) => Some((v.name.clone(), v.space()?)),
                _ => None,
            })
            .collect();
        Verify {
            isa: &ptx_isa::ISA,
            module_spaces,
            module_names,
            module_scope: declarations::ModuleScope::of(module),
            target,
            every_instruction: false,
            accept_newer_forms: false,
            address_size: module.address_size,
        }
    }

    /// This verifier, accepting instructions of a later PTX ISA (see
    /// [`Verifier::accepting_newer_forms`]).
    pub fn accepting_newer_forms(self, yes: bool) -> Verify {
        Verify { accept_newer_forms: yes, ..self }
    }

    /// This verifier, checking instructions against what `target` allows
    /// instead of the module's header.
    pub fn with_target(self, target: Target) -> Verify {
        Verify { target, ..self }
    }

    /// This verifier, checking forms against `isa` instead of the generated
    /// description (a description read at run time, for tools that edit it:
    /// `ptx_isa::description::parse_dir`).
    pub fn with_isa(self, isa: &'static ptx_isa::Isa) -> Verify {
        Verify { isa, ..self }
    }

    /// This verifier, for a batch of a module parsed in batches: names the
    /// rest of the source declares before a byte offset count as declared
    /// there (see [`Verifier::with_declarations_before`]).
    pub fn with_declarations_before(
        self,
        declared_before: impl Fn(&str, u32) -> bool + Send + Sync + 'static,
    ) -> Verify {
        let mut verify = self;
        verify.module_scope.declared_in_source = Some(DeclaredBefore(Arc::new(declared_before)));
        verify
    }

    /// This verifier, checking every instruction on its own instead of each
    /// clean shape once per function: slower, and the same diagnostics
    /// (tests compare the two).
    pub fn checking_every_instruction(self) -> Verify {
        Verify { every_instruction: true, ..self }
    }

    /// Checks what lies outside function bodies: the module header and the
    /// module-scope declarations. Every error found, in source order.
    /// (Function bodies are [`verify_function`]'s.)
    pub fn check_module(&self, module: &Module) -> Vec<Diagnostic> {
        let mut errors = target::check_header(module);
        errors.extend(declarations::check_module(module));
        for item in &module.items {
            let (span, found) = match item {
                ModuleItem::Variable(v) => (v.span, self.target.check_declaration(v.span.start, v.ty(), None)),
                ModuleItem::Raw(r) => (r.span, self.target.check_declaration(r.span.start, None, Some(&r.text))),
                ModuleItem::Function(_) => continue,
            };
            errors.extend(found.map(|m| Diagnostic::new(span, m)));
        }
        errors
    }
}

/// True if `inst` is a load, store, atomic or prefetch whose one address is
/// of global or generic memory (no state space, or `.global` alone): where
/// a 64-bit module needs a 64-bit address.
fn global_or_generic(inst: &Inst) -> bool {
    use ptx_ir::Opcode;
    if !matches!(inst.opcode, Opcode::Ld | Opcode::St | Opcode::Atom | Opcode::Red | Opcode::Ldu | Opcode::Prefetch) {
        return false;
    }
    let mut spaces = spaces(inst);
    matches!((spaces.next(), spaces.next()), (None, _) | (Some(StateSpace::Global), None))
}

/// The state spaces `inst` names, in order (`cp.async.ca.shared.global`: shared, global).
fn spaces(inst: &Inst) -> impl Iterator<Item = StateSpace> + '_ {
    inst.modifiers.iter().filter_map(|m| match m {
        Modifier::Space(space, _) => Some(*space),
        _ => None,
    })
}

/// Checks one function; returns every error found, in body order.
/// `module` is what the function may rely on from its module (see
/// [`Verify::for_module`]).
pub fn verify_function(func: &Function, module: &Verify) -> Vec<Diagnostic> {
    // What this thread has looked up and found over the functions it
    // checked (see forms::FillCache and shape::PortableShapes).
    thread_local! {
        static CACHES: std::cell::RefCell<ThreadCaches> = Default::default();
    }
    CACHES.with(|caches| {
        let mut caches = caches.take();
        let errors = check_function(func, module, &mut caches);
        CACHES.with(|kept| kept.replace(caches));
        errors
    })
}

#[derive(Default)]
struct ThreadCaches {
    fills: forms::FillCache,
    portable: shape::PortableShapes,
    literals: shape::LiteralReaders,
    compact: shape::CompactShapes,
}

fn check_function(func: &Function, module: &Verify, caches: &mut ThreadCaches) -> Vec<Diagnostic> {
    let ThreadCaches { fills, portable, literals, compact } = caches;
    let module_names = module.module_names.as_slice();
    let as_parsed = func.is_pristine();
    let mut v = Checker {
        func,
        module_names,
        errors: Vec::new(),
        placed: vec![false; func.labels.len()],
        as_parsed,
        target: &module.target,
        isa: module.isa,
        module_spaces: &module.module_spaces,
        fills: std::mem::take(fills),
        accept_newer_forms: module.accept_newer_forms,
        address_size: module.address_size,
    };
    let body = func.body().unwrap_or(&[]);
    // Where each label is placed: a branch to a label that is not (a pass
    // deleted it) is an error, and so is a label placed twice.
    for stmt in body {
        match stmt {
            Stmt::Label(l) => match v.placed.get_mut(l.as_u32() as usize) {
                Some(seen) if !*seen => *seen = true,
                Some(_) => {
                    let msg = format!("label {} is placed twice in function {}", v.label(*l), func.name);
                    v.errors.push(Diagnostic::new(func.span, msg));
                }
                None => {
                    let msg = format!("function {} places label #{}, which it does not have", func.name, l.as_u32());
                    v.errors.push(Diagnostic::new(func.span, msg));
                }
            },
            Stmt::Inst(id) if func.insts.get(*id).is_none() => {
                let msg = format!("function {} lists instruction #{}, which it does not have", func.name, id.as_u32());
                v.errors.push(Diagnostic::new(func.span, msg));
            }
            // Declarations and pragmas newer than the target's .version.
            Stmt::RegDecl(decl) => v.errors.extend({
                let decl = &func.reg_decls[*decl];
                module
                    .target
                    .check_declaration(decl.span.start, Some(decl.ty.scalar), None)
                    .map(|m| Diagnostic::new(decl.span, m))
            }),
            Stmt::Variable(var) => v.errors.extend({
                let var = &func.variables[*var];
                module.target.check_declaration(var.span.start, var.ty(), None).map(|m| Diagnostic::new(var.span, m))
            }),
            Stmt::Raw(raw) => v.errors.extend({
                let raw = &func.directives[*raw];
                module
                    .target
                    .check_declaration(raw.span.start, None, Some(&raw.text))
                    .map(|m| Diagnostic::new(raw.span, m))
            }),
            _ => {}
        }
    }
    for attr in &func.attributes {
        v.errors.extend(
            module
                .target
                .check_declaration(attr.span.start, None, Some(&attr.text))
                .map(|m| Diagnostic::new(attr.span, m)),
        );
    }
    for param in func.params.iter().flatten().chain(func.returns.iter().flatten()) {
        v.errors.extend(
            module.target.check_declaration(param.span.start, param.ty(), None).map(|m| Diagnostic::new(param.span, m)),
        );
    }
    // A parsed function refers only to registers it has, which the shape of
    // an instruction needs.
    let mut clean = (as_parsed && !module.every_instruction).then(|| shape::CleanShapes::new(func, compact));
    let across_functions = clean.is_some() && module.target.is_uniform();
    if across_functions {
        portable.keep_for(module.isa, &module.target, module.address_size);
    }
    let mut declarations = declarations::Declarations::new(func, &module.module_scope);
    for stmt in body {
        let id = match stmt {
            Stmt::Inst(id) => id,
            // ptxas reads the target anew from here on: a shape clean
            // before may not be after.
            Stmt::Raw(directive) if func.directives[*directive].name == "target" => {
                let directive = &func.directives[*directive];
                let entries = target::body_target_entries(directive);
                v.errors.extend(target::check_entries(module.target.version(), &entries, directive.span));
                if let Some(clean) = clean.as_mut() {
                    clean.forget();
                }
                continue;
            }
            other => {
                declarations.stmt(other);
                continue;
            }
        };
        let Some(inst) = func.insts.get(*id) else { continue };
        let Some(clean) = clean.as_mut() else {
            v.inst(inst);
            declarations.inst(inst);
            continue;
        };
        let seen_as = shape::Seen::new(func, &v.placed, literals.read_values(module.isa, func, inst));
        let (shape, seen) = clean.lookup(&seen_as, inst);
        if seen {
            continue;
        }
        // A portable shape names no symbol, so it has nothing to declare.
        if across_functions && portable.lookup(&seen_as, inst) {
            clean.insert(shape, *id);
            continue;
        }
        let errors = v.errors.len();
        v.inst(inst);
        let declared = declarations.inst(inst);
        if v.errors.len() == errors && declared {
            clean.insert(shape, *id);
            if across_functions {
                portable.insert_last();
            }
        }
    }
    v.errors.extend(declarations.finish());
    *fills = std::mem::take(&mut v.fills);
    v.errors
}

/// At most this many instruction types are looked at (`cvt.pack` has three).
const MAX_TYPES: usize = 4;

struct Checker<'f> {
    func: &'f Function,
    module_names: &'f [String],
    errors: Vec<Diagnostic>,
    /// Per label: placed in the body.
    placed: Vec<bool>,
    /// The function is as the parser made it, so every register and label
    /// it refers to exists (only a pass can leave one dangling).
    as_parsed: bool,
    /// What the module's header lacks (`.target`, `.version`).
    target: &'f Target,
    isa: &'static ptx_isa::Isa,
    module_spaces: &'f std::collections::BTreeMap<String, ptx_ir::StateSpace>,
    /// The forms each word list of the function fills.
    fills: forms::FillCache,
    /// See [`Verifier::accepting_newer_forms`].
    accept_newer_forms: bool,
    /// The module's `.address_size`.
    address_size: Option<u32>,
}

impl<'f> Checker<'f> {
    fn inst(&mut self, inst: &Inst) {
        // A register or label the function does not have (only a pass can
        // make one): nothing else about the instruction can be checked.
        let dangling = if self.as_parsed { None } else { self.dangling(inst) };
        if let Some(msg) = dangling {
            let msg = format!("{msg} (in function {})", self.func.name);
            self.errors.push(Diagnostic::new(inst.span, msg));
            return;
        }
        if let Some(g) = inst.guard {
            if !self.is_scalar(g.reg(), ScalarType::Pred) {
                let msg = format!("guard {} must be a .pred register, not {}", self.reg(g.reg()), self.reg_ty(g.reg()));
                self.error(inst, msg);
            }
        }
        if let Some(msg) = self.target.check_inst(self.func, inst) {
            self.error(inst, msg);
        }
        // Unknown opcodes and modifiers, operand counts and kinds, vector sizes.
        let mut form_errors = Vec::new();
        let mut fills = std::mem::take(&mut self.fills);
        let space_of = |op: &Operand| self.space_of(op);
        // An instruction of a later ISA text under a newer .version (a word
        // or a combination of words no form has, which the parser made
        // unknown, or an unknown opcode): ptxas judges its form, if asked to.
        let malformed = if ptx_ir::is_of_later_isa(self.target.version(), inst) {
            if !self.accept_newer_forms {
                forms::newer_form(self.isa, self.func, inst, &mut |msg| form_errors.push(msg));
            }
            true
        } else {
            forms::check(self.isa, self.func, inst, &space_of, &mut fills, |msg| form_errors.push(msg))
        };
        self.fills = fills;
        for msg in form_errors {
            self.error(inst, msg);
        }
        for (i, op) in inst.operands.iter().enumerate() {
            let is_branch_target = inst.opcode.control() == Control::Branch && i + 1 == inst.operands.len();
            match op {
                Operand::Symbol(name) if is_branch_target => {
                    let msg = format!("branch target '{}' is not a label of this function", self.func.names.get(*name));
                    self.error(inst, msg);
                }
                _ => self.structure(inst, op),
            }
        }
        if !malformed {
            self.types(inst);
        }
    }

    /// The state space of the variable `op` names (as an address `[var]`
    /// or a value `var`, `var+4`): a parameter of the function, a variable
    /// of its body or of the module.
    fn space_of(&self, op: &Operand) -> Option<&'static str> {
        let name = match op {
            Operand::Address(addr) => match addr.base {
                AddrBase::Symbol(name) => name,
                _ => return None,
            },
            Operand::Symbol(name) => *name,
            Operand::SymbolOffset(symbol_offset) => symbol_offset.0,
            Operand::Element(element) => element.array,
            _ => return None,
        };
        let name = self.func.names.get(name);
        let params = self.func.params.iter().flatten().chain(self.func.returns.iter().flatten());
        if let Some(v) = params.into_iter().find(|v| v.name == name) {
            return Some(v.space().unwrap_or(ptx_ir::StateSpace::Param).as_str());
        }
        if let Some(v) = self.func.body_variables().find(|v| v.name == name) {
            return v.space().map(|s| s.as_str());
        }
        self.module_spaces.get(name).map(|s| s.as_str())
    }

    /// A description of the first register or label `inst` refers to that
    /// the function does not have.
    fn dangling(&self, inst: &Inst) -> Option<String> {
        let nregs = self.func.regs.len();
        let mut bad_reg = inst.guard.map(|g| g.reg()).filter(|r| (r.as_u32() as usize) >= nregs);
        for op in &inst.operands {
            op.for_each_reg(&mut |r, _| {
                if (r.as_u32() as usize) >= nregs {
                    bad_reg.get_or_insert(r);
                }
            });
        }
        if let Some(r) = bad_reg {
            return Some(format!("{}: register #{} does not exist", self.opcode_name(inst), r.as_u32()));
        }
        fn bad_label(op: &Operand, n: usize) -> Option<usize> {
            match op {
                Operand::Label(l) if (l.as_u32() as usize) >= n => Some(l.as_u32() as usize),
                Operand::Vector(ops) | Operand::Parens(ops) => ops.iter().find_map(|o| bad_label(o, n)),
                _ => None,
            }
        }
        let l = inst.operands.iter().find_map(|op| bad_label(op, self.func.labels.len()))?;
        Some(format!("{}: label #{l} does not exist", self.opcode_name(inst)))
    }

    /// Declarations, predicate negation, vector components and address
    /// registers, for every operand of every instruction.
    fn structure(&mut self, inst: &Inst, op: &Operand) {
        match op {
            Operand::Label(l) => {
                if !self.placed[l.as_u32() as usize] {
                    let msg = format!("label {} is not placed in the function", self.label(*l));
                    self.error(inst, msg);
                }
            }
            Operand::Symbol(name) => self.symbol(inst, self.func.names.get(*name)),
            Operand::SymbolOffset(symbol_offset) => self.symbol(inst, self.func.names.get(symbol_offset.0)),
            Operand::Element(element) => self.symbol(inst, self.func.names.get(element.array)),
            // Video selectors: ptxas judges which registers they apply to.
            Operand::RegSelect(..) | Operand::RegOffset(..) => {}
            Operand::RegComponent(r, c) => {
                if self.func.regs[*r].ty.vector.is_none() {
                    let msg = format!("{}.{c}: {} is not a vector register", self.reg(*r), self.reg(*r));
                    self.error(inst, msg);
                }
            }
            Operand::Not(inner) => {
                if let Operand::Reg(r) = **inner {
                    if !self.is_scalar(r, ScalarType::Pred) {
                        let msg = format!(
                            "!{} negates a {} register; only a .pred can be negated",
                            self.reg(r),
                            self.reg_ty(r)
                        );
                        self.error(inst, msg);
                    }
                }
                self.structure(inst, inner);
            }
            Operand::Neg(inner) => self.structure(inst, inner),
            Operand::Address(addr) => {
                match addr.base {
                    AddrBase::Reg(r) => {
                        let ty = self.func.regs[r].ty;
                        if ty.vector.is_some() || !rules::can_hold_address(ty.scalar) {
                            let msg = format!(
                                "address register {} is {}; an address must be an integer or bit register of at most 64 bits",
                                self.reg(r),
                                ty
                            );
                            self.error(inst, msg);
                        } else if ty.scalar.bits() == 32 && self.address_size == Some(64) && global_or_generic(inst) {
                            // ptxas 13.5: "Program uses 32-bit address on line N
                            // which is conflicting with .address_size 64" (a
                            // 16-bit register it takes; .shared, .local, .const
                            // and .param take 32 bits).
                            let msg = format!(
                                "address register {} is {}: a 32-bit address of {} memory in a module of .address_size 64",
                                self.reg(r),
                                ty,
                                if inst.space().is_some() { "global" } else { "generic" }
                            );
                            self.error(inst, msg);
                        }
                    }
                    AddrBase::Symbol(name) => self.symbol(inst, self.func.names.get(name)),
                    // ptxas 13.5 and 12.9, every target and .version: "Immediate
                    // addresses allowed only for .local state space" (`ld.global
                    // [16]`, `mbarrier.init.shared::cta.b64 [131072], 1`; a
                    // generic access too).
                    AddrBase::Absolute(_) => {
                        let mut spaces = spaces(inst);
                        let first = spaces.next();
                        if first != Some(StateSpace::Local) || spaces.any(|s| s != StateSpace::Local) {
                            self.error(inst, "an immediate address is allowed only in the .local state space".into());
                        }
                    }
                }
                for op in &addr.rest {
                    self.structure(inst, op);
                }
            }
            Operand::Vector(ops) | Operand::Parens(ops) => {
                for op in ops.iter() {
                    self.structure(inst, op);
                }
            }
            Operand::Pair(pair) => {
                self.structure(inst, &pair.0);
                self.structure(inst, &pair.1);
            }
            Operand::Special(name) => self.special_register(inst, *name),
            Operand::Reg(_) | Operand::Int(_) | Operand::Float(_) | Operand::Sink => {}
        }
    }

    /// Only `mov` and `cvt` take a special register, and not with a
    /// floating-point type: ptxas 13.5 and 12.9 say "Special register
    /// argument not allowed for instruction 'add'" (and for `mov.f32 %f1,
    /// %tid.x`, `cvt.rn.f32.u32 %f1, %tid.x`; `mov.pred %p,
    /// %is_explicit_cluster` it takes); compilers move it to a register first.
    fn special_register(&mut self, inst: &Inst, name: ptx_ir::Name) {
        let reads = matches!(inst.opcode, ptx_ir::Opcode::Mov | ptx_ir::Opcode::Cvt)
            && inst.types().all(|t| t.kind() != TypeKind::Float);
        if !reads && inst.opcode.is_known() {
            let msg = format!(
                "{}: {} is a special register, which only mov and cvt, of types other than floating-point, read",
                ptx_ir::print::opcode_text(self.func, inst.opcode),
                self.func.names.get(name)
            );
            self.error(inst, msg);
        }
    }

    /// A name that did not resolve to a register: fine unless it is spelled
    /// like a register (`%...`) and is neither special nor a variable,
    /// parameter or function.
    fn symbol(&mut self, inst: &Inst, text: &str) {
        if !text.starts_with('%') {
            return;
        }
        // The identifier alone: `%r9.x` and `%g+4` name `%r9` and `%g`.
        let end = text[1..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
            .map_or(text.len(), |i| i + 1);
        let base = &text[..end];
        if is_special_register(base) || self.is_variable(base) {
            return;
        }
        let msg = format!("register {base} is not declared");
        self.error(inst, msg);
    }

    /// True if `name` is a parameter, return parameter or body variable of
    /// the function, or a module-level variable or function (PTX
    /// identifiers may start with `%`). Only asked about `%` names that are
    /// not registers, so the scan is rare.
    fn is_variable(&self, name: &str) -> bool {
        let params = self.func.params.iter().flatten().chain(self.func.returns.iter().flatten());
        params.chain(self.func.body_variables()).any(|v| v.name == name) || self.module_names.iter().any(|n| n == name)
    }

    /// Instruction types and operand types.
    fn types(&mut self, inst: &Inst) {
        if signature::has_unmodelled_type(inst) {
            return;
        }
        // The instruction types, less those ptxas ignores on this opcode
        // (`add.s32.pred`: the description's `ignored` words).
        let ignored = matcher::opcode_of(self.isa, self.func, inst).map_or(&[][..], |(_, o)| o.ignored.as_slice());
        let mut types = [ScalarType::Pred; MAX_TYPES];
        let mut n = 0;
        for t in inst.types() {
            if n == MAX_TYPES {
                break;
            }
            if !ignored.is_empty() && matcher::type_word_id(self.isa, t).is_some_and(|w| ignored.contains(&w)) {
                continue;
            }
            types[n] = t;
            n += 1;
        }
        let types = &types[..n];
        if let (ptx_ir::Opcode::Mov, Some(arity), Some(&t)) = (inst.opcode, inst.vector(), types.first()) {
            self.vector_move(inst, arity, t);
            return;
        }
        // Which instruction types an opcode takes, and in which combinations,
        // the forms of the description said already (`forms::check`).
        let Some(sig) = signature::signature(inst, types) else { return };
        for (i, op) in inst.operands.iter().enumerate() {
            if sig.data == Some(i) {
                self.data_operand(inst, i, op, sig.operand(i));
            } else {
                self.typed_operand(inst, i, op, sig.operand(i));
            }
        }
    }

    fn typed_operand(&mut self, inst: &Inst, i: usize, op: &Operand, expect: Expect) {
        if expect == Expect::Any {
            return;
        }
        match op {
            Operand::Reg(r) => {
                if self.packs_vector_register(inst, i, *r, expect) {
                    return;
                }
                if self.func.regs[*r].ty.vector.is_some() {
                    let msg = format!(
                        "{}: operand {} ({}) is a vector register ({}); a scalar is expected",
                        self.opcode(inst),
                        i + 1,
                        self.reg(*r),
                        self.func.regs[*r].ty
                    );
                    self.error(inst, msg);
                } else {
                    self.scalar(inst, i, *r, expect);
                }
            }
            Operand::RegComponent(r, _) if self.func.regs[*r].ty.vector.is_some() => self.scalar(inst, i, *r, expect),
            // The video instructions' selectors read part of a 32-bit register.
            Operand::RegSelect(..) => {}
            Operand::Not(inner) | Operand::Neg(inner) => self.typed_operand(inst, i, inner, expect),
            Operand::Pair(pair) if signature::allows_predicate_pair(inst.opcode) => {
                self.typed_operand(inst, i, &pair.0, expect);
                self.typed_operand(inst, i, &pair.1, Expect::Fixed(ScalarType::Pred));
            }
            // `mov.b64 d, {lo, hi}`: each element has an equal share of the bits.
            Operand::Vector(elems) => {
                let Expect::Strict(t) = expect else { return };
                let share = t.bits() / (elems.len().max(1) as u32);
                let Some(part) = ScalarType::unsigned_of_bits(share).and_then(|u| u.bit_type()) else { return };
                if share * elems.len() as u32 != t.bits() {
                    return;
                }
                for elem in elems.iter() {
                    match elem {
                        // ptxas accepts predicates among the elements; so do we.
                        Operand::Reg(r)
                            if self.func.regs[*r].ty.vector.is_none() && !self.is_scalar(*r, ScalarType::Pred) =>
                        {
                            self.scalar(inst, i, *r, Expect::Strict(part))
                        }
                        Operand::Int(_) | Operand::Float(_) if i == 0 => {
                            let msg = format!("{}: a destination element cannot be a literal", self.opcode(inst));
                            self.error(inst, msg);
                        }
                        _ => {}
                    }
                }
            }
            Operand::Int(_) | Operand::Float(_) => self.immediate(inst, i, op, expect),
            _ => {}
        }
    }

    /// `mov.vN.t d, a` (ISA 6.4.3): `d` is a vector of N, a vector register
    /// or a brace list; `a` is one too, or a scalar, typed as a lone operand
    /// (ptxas takes `mov.v2.u32 v, %r1`, undocumented: in SASS it splits the
    /// scalar's bits between the elements). Elements are of t's size,
    /// integer types take no float elements, float types take integer ones
    /// ([`rules::move_element_fits`]); literals are of one kind.
    fn vector_move(&mut self, inst: &Inst, arity: u8, t: ScalarType) {
        let strict = Expect::Strict(t);
        for (i, op) in inst.operands.iter().enumerate().take(2) {
            let dest = i == 0;
            match op {
                Operand::Vector(elems) if elems.len() != arity as usize => {
                    let msg = format!(
                        "{}: operand {} has {} elements, {arity} expected",
                        self.opcode(inst),
                        i + 1,
                        elems.len()
                    );
                    self.error(inst, msg);
                }
                Operand::Vector(elems) => {
                    let mut literal_kinds = (false, false);
                    for elem in elems.iter() {
                        match elem {
                            Operand::Reg(r) if self.func.regs[*r].ty.vector.is_none() => self.move_element(inst, *r, t),
                            Operand::RegComponent(r, _) if self.func.regs[*r].ty.vector.is_some() => {
                                self.move_element(inst, *r, t)
                            }
                            Operand::Int(_) | Operand::Float(_) if dest => {
                                let msg = format!("{}: a destination element cannot be a literal", self.opcode(inst));
                                self.error(inst, msg);
                            }
                            Operand::Int(_) | Operand::Float(_) => {
                                let is_int = matches!(elem, Operand::Int(_));
                                literal_kinds.0 |= is_int;
                                literal_kinds.1 |= !is_int;
                                self.immediate(inst, i, elem, strict);
                            }
                            _ => {}
                        }
                    }
                    // ptxas: "Vector with elements of different types".
                    if literal_kinds == (true, true) {
                        let msg = format!(
                            "{}: operand {} mixes integer and floating-point literals",
                            self.opcode(inst),
                            i + 1
                        );
                        self.error(inst, msg);
                    }
                }
                Operand::Reg(r) => match self.func.regs[*r].ty.vector {
                    Some(k) if k != arity => {
                        let msg = format!(
                            "{}: vector register {} has {k} elements, {arity} expected",
                            self.opcode(inst),
                            self.reg(*r)
                        );
                        self.error(inst, msg);
                    }
                    Some(_) => self.move_element(inst, *r, t),
                    // ptxas: "Result vector expected".
                    None if dest => {
                        let msg = format!(
                            "{}: operand 1 ({}) is a scalar register; a vector of {arity} is expected",
                            self.opcode(inst),
                            self.reg(*r)
                        );
                        self.error(inst, msg);
                    }
                    None => self.scalar(inst, i, *r, strict),
                },
                Operand::Int(_) | Operand::Float(_) if !dest => self.immediate(inst, i, op, strict),
                _ => {}
            }
        }
    }

    /// One element of a brace list of `mov.vN.t`, or the elements of a
    /// vector register there.
    fn move_element(&mut self, inst: &Inst, r: RegId, t: ScalarType) {
        let ty = self.func.regs[r].ty;
        if rules::move_element_fits(t, ty.scalar) {
            return;
        }
        let (op, reg, scalar) = (self.opcode(inst), self.reg(r), ty.scalar);
        let msg = if ty.vector.is_some() {
            format!("{op}: vector register {reg} has .{scalar} elements, which do not agree with .{t}")
        } else {
            format!("{op}: vector element {reg} is .{scalar}, which does not agree with .{t}")
        };
        self.error(inst, msg);
    }

    /// `mov.bN` between a scalar and a whole vector register of N bits
    /// (`mov.b64 %rd1, v` with `.reg .v2 .u32 v`, or the other way round):
    /// ptxas accepts it like `{a, b}`, whatever the element type; not from
    /// one vector to another ("Illegal vector-vector operands").
    fn packs_vector_register(&self, inst: &Inst, i: usize, r: RegId, expect: Expect) -> bool {
        let Expect::Strict(t) = expect else { return false };
        let ty = self.func.regs[r].ty;
        let Some(n) = ty.vector else { return false };
        if inst.opcode != ptx_ir::Opcode::Mov || inst.vector().is_some() || t.kind() != TypeKind::Bits {
            return false;
        }
        let other_is_vector = match inst.operands.get(1 - i.min(1)) {
            Some(Operand::Vector(_)) => true,
            Some(Operand::Reg(o)) => self.func.regs[*o].ty.vector.is_some(),
            _ => false,
        };
        n as u32 * ty.scalar.bits() == t.bits() && !other_is_vector
    }

    /// The data operand of `ld`/`ldu`/`st`: its arity must match `.vN`, and
    /// its registers fit the instruction type (Tables 27/28 for a scalar,
    /// the looser element rule inside vectors).
    fn data_operand(&mut self, inst: &Inst, i: usize, op: &Operand, expect: Expect) {
        let (Expect::Source(t) | Expect::Dest(t)) = expect else { return };
        let arity = inst.vector().unwrap_or(1) as usize;
        match op {
            Operand::Vector(elems) => {
                if elems.len() != arity {
                    let msg = format!(
                        "{}: operand {} has {} elements, {} expected",
                        self.opcode(inst),
                        i + 1,
                        elems.len(),
                        arity
                    );
                    self.error(inst, msg);
                    return;
                }
                let mut first_size = None;
                for elem in elems.iter() {
                    let r = match elem {
                        Operand::Reg(r) => *r,
                        Operand::RegComponent(r, _) if self.func.regs[*r].ty.vector.is_some() => *r,
                        Operand::Int(_) | Operand::Float(_) if matches!(expect, Expect::Dest(_)) => {
                            let msg = format!("{}: a destination element cannot be a literal", self.opcode(inst));
                            self.error(inst, msg);
                            continue;
                        }
                        // Inside a vector ptxas takes a float literal of any size for
                        // a bit type (`st.v2.b16 [a], {h, 1.0}`), unlike a lone operand.
                        Operand::Int(_) | Operand::Float(_) => {
                            if t.kind() != TypeKind::Bits {
                                self.immediate(inst, i, elem, expect);
                            }
                            continue;
                        }
                        _ => continue,
                    };
                    let ty = self.func.regs[r].ty.scalar;
                    // ptxas: "Incompatible elements of vector expression".
                    if *first_size.get_or_insert(ty.bits()) != ty.bits() {
                        let msg = format!(
                            "{}: vector element {} is .{ty}, not the size of the elements before it",
                            self.opcode(inst),
                            self.reg(r)
                        );
                        self.error(inst, msg);
                    } else if !rules::vector_element_fits(t, ty) {
                        let msg = format!(
                            "{}: vector element {} is .{ty}, which cannot hold .{t}",
                            self.opcode(inst),
                            self.reg(r)
                        );
                        self.error(inst, msg);
                    }
                }
            }
            Operand::Reg(r) => match self.func.regs[*r].ty.vector {
                Some(k) if k as usize != arity => {
                    let msg = format!(
                        "{}: vector register {} has {k} elements, {arity} expected",
                        self.opcode(inst),
                        self.reg(*r)
                    );
                    self.error(inst, msg);
                }
                Some(_) => {
                    let ty = self.func.regs[*r].ty.scalar;
                    if !rules::vector_element_fits(t, ty) {
                        let msg = format!(
                            "{}: vector register {} has .{ty} elements, which cannot hold .{t}",
                            self.opcode(inst),
                            self.reg(*r)
                        );
                        self.error(inst, msg);
                    }
                }
                None if arity != 1 => {
                    let msg = format!(
                        "{}: operand {} ({}) is a scalar register; a vector of {arity} is expected",
                        self.opcode(inst),
                        i + 1,
                        self.reg(*r)
                    );
                    self.error(inst, msg);
                }
                None => self.scalar(inst, i, *r, expect),
            },
            Operand::RegComponent(r, _) if self.func.regs[*r].ty.vector.is_some() => {
                if arity != 1 {
                    let msg = format!(
                        "{}: operand {} is a single element; a vector of {arity} is expected",
                        self.opcode(inst),
                        i + 1
                    );
                    self.error(inst, msg);
                } else {
                    self.scalar(inst, i, *r, expect);
                }
            }
            Operand::Int(_) | Operand::Float(_) => self.immediate(inst, i, op, expect),
            _ => {}
        }
    }

    /// Checks a literal operand against `expect` (see [`rules::immediate_fits`]).
    fn immediate(&mut self, inst: &Inst, i: usize, op: &Operand, expect: Expect) {
        let t = match expect {
            Expect::Any => return,
            Expect::Strict(t) | Expect::Fixed(t) | Expect::Source(t) | Expect::Dest(t) => t,
        };
        let (literal, text) = match op {
            Operand::Int(imm) => (Literal::Int, imm.text),
            Operand::Float(imm) => (Literal::Float(if imm.single() { 32 } else { 64 }), imm.text()),
            _ => return,
        };
        if rules::immediate_fits(t, literal) {
            return;
        }
        let text = text.map_or_else(|| "a literal".to_string(), |n| self.func.names.get(n).to_string());
        let what = match literal {
            Literal::Int => "an integer literal",
            Literal::Float(32) => "a 32-bit floating-point literal",
            Literal::Float(_) => "a 64-bit floating-point literal",
        };
        let msg = if t.is_float() && !matches!(t, ScalarType::F32 | ScalarType::F64) {
            format!("{}: operand {} ({text}): a .{t} operand cannot be a literal", self.opcode(inst), i + 1)
        } else {
            format!("{}: operand {} ({text}) is {what}, which a .{t} operand cannot be", self.opcode(inst), i + 1)
        };
        self.error(inst, msg);
    }

    /// Checks one scalar register (or vector element) against `expect`.
    fn scalar(&mut self, inst: &Inst, i: usize, r: RegId, expect: Expect) {
        let ty = self.func.regs[r].ty.scalar;
        let (ok, t, relation) = match expect {
            Expect::Any => return,
            Expect::Strict(t) => (rules::agrees_with_instruction_type(t, ty), t, "does not agree with type"),
            Expect::Fixed(t) => (rules::agrees(t, ty), t, "does not agree with type"),
            Expect::Source(t) => (rules::source_fits(t, ty), t, "does not fit source type"),
            Expect::Dest(t) => (rules::dest_fits(t, ty), t, "does not fit destination type"),
        };
        if ok {
            return;
        }
        let table = match expect {
            Expect::Source(_) => "PTX ISA 9.4.1, Table 27",
            Expect::Dest(_) => "PTX ISA 9.4.1, Table 28",
            _ => "PTX ISA 9.4, Table 26",
        };
        let (op, reg) = (self.opcode(inst), self.reg(r));
        let msg = if t.kind() == TypeKind::Pred {
            format!("{op}: operand {} ({reg}) must be a .pred register, not .{ty}", i + 1)
        } else {
            format!("{op}: operand {} ({reg}) is .{ty}, which {relation} .{t} ({table})", i + 1)
        };
        self.error(inst, msg);
    }

    fn is_scalar(&self, r: RegId, t: ScalarType) -> bool {
        let ty = self.func.regs[r].ty;
        ty.vector.is_none() && ty.scalar == t
    }

    fn reg(&self, r: RegId) -> String {
        self.func.reg_name(r)
    }

    fn reg_ty(&self, r: RegId) -> String {
        self.func.regs[r].ty.to_string()
    }

    fn label(&self, l: LabelId) -> &str {
        self.func.names.get(self.func.labels[l].name)
    }

    /// The opcode alone (`cvt`), for messages.
    fn opcode_name(&self, inst: &Inst) -> &str {
        ptx_ir::print::opcode_text(self.func, inst.opcode)
    }

    /// The opcode with its modifiers (`cvt.rn.f32.u8`), for messages.
    fn opcode(&self, inst: &Inst) -> String {
        let mut s = ptx_ir::print::opcode_text(self.func, inst.opcode).to_string();
        for m in &inst.modifiers {
            ptx_ir::print::write_modifier(self.func, m, &mut s);
        }
        s
    }

    /// Records an error at `inst`. Instructions a pass made have no source
    /// position, so their text and function are named instead.
    fn error(&mut self, inst: &Inst, message: String) {
        let message = if inst.span.is_synthetic() {
            format!("{message} (in `{}`, function {})", ptx_ir::print::inst_to_string(self.func, inst), self.func.name)
        } else {
            message
        };
        self.errors.push(Diagnostic::new(inst.span, message));
    }
}
