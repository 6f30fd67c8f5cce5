//! Declarations and state spaces, as ptxas 13.5 checks them (each rule was
//! tried on ptxas first; the mutation set `testdata/verify-mutations`
//! measures them):
//!
//! * a name used as a symbol (`[nosuch]`, `mov.u64 %rd1, nosuch`, `call
//!   nosuch`) must be declared before its use: a parameter, a variable of the
//!   function, or a module-level variable or function ("Unknown symbol");
//! * a name is declared once per scope ("Duplicate definition"): parameters
//!   among themselves, body variables of the outermost scope against the
//!   parameters, a single register `%r3` against a family `%r<4>` of the
//!   same scope (ptxas compares the number: `%r03` is `%r3`), labels against
//!   parameters; module-level variables defined twice;
//! * state spaces: `st.const` and `atom`/`red` on `.const`, `.param` or
//!   `.local` ("State space incorrect"), `ld.nc` outside `.global`, and an
//!   instruction whose space differs from that of the variable it addresses
//!   (`ld.global` of a kernel parameter: "State space mismatch").
//!
//! Modules arrive in batches when streamed: names declared in an earlier
//! batch are not in the batch's module; the verifier is told of them
//! ([`crate::Verify::with_declarations_before`], the parser's
//! `ptx_parse::SourceDeclarations`).

use crate::DeclaredBefore;
use ptx_ir::{
    AddrBase, Control, DeclWord, Diagnostic, Function, Inst, Module, ModuleItem, Opcode, Operand, ScalarType, Span,
    StateSpace, Stmt, Variable,
};
use std::cell::OnceCell;
use std::collections::{BTreeMap, BTreeSet};

/// What a function may name from its module.
#[derive(Clone, Debug, Default)]
pub(super) struct ModuleScope {
    /// Module-level variables and functions of this module (or batch), with
    /// where each is first declared.
    names: BTreeMap<String, u32>,
    /// For a batch of a streamed module: what the whole source declares.
    pub(super) declared_in_source: Option<DeclaredBefore>,
}

impl ModuleScope {
    pub(super) fn of(module: &Module) -> ModuleScope {
        let variables = module.items.iter().filter_map(|item| match item {
            ModuleItem::Variable(v) => Some((v.name.clone(), v.span.start)),
            _ => None,
        });
        let functions = module.functions.values().map(|f| (f.name.clone(), f.span.start));
        let mut names = BTreeMap::new();
        for (name, at) in variables.chain(functions) {
            let first: &mut u32 = names.entry(name).or_insert(at);
            *first = (*first).min(at);
        }
        ModuleScope { names, declared_in_source: None }
    }

    /// True if `name` is declared at module scope before `func` (a function
    /// may call itself).
    fn declares(&self, name: &str, func: &Function) -> bool {
        let at = func.span.start;
        self.names.get(name).is_some_and(|&first| first <= at)
            || self.declared_in_source.as_ref().is_some_and(|d| d.declared_before(name, at))
    }
}

/// Module-level variables defined twice in this module (an `.extern`
/// declaration may be repeated).
pub(super) fn check_module(module: &Module) -> Vec<Diagnostic> {
    let mut errors = Vec::new();
    let mut defined: BTreeSet<&str> = BTreeSet::new();
    for item in &module.items {
        if let ModuleItem::Variable(v) = item {
            check_vector_word(v, &mut errors);
            check_array_size(v, Declared::Variable, &mut errors);
            if !v.linkage.iter().any(|l| l == "extern") && !defined.insert(v.name.as_str()) {
                errors.push(Diagnostic::new(v.span, format!("variable '{}' is defined twice", v.name)));
            }
        }
    }
    errors
}

/// The declaration and state-space checks of one function, given its body
/// statement by statement in order ([`Declarations::stmt`],
/// [`Declarations::inst`]): the verifier's instruction loop feeds it, so an
/// instruction is read once, and skips the instructions of a shape found
/// clean (a shape holds the symbols an instruction names, and a name
/// declared before one use is declared before every later one).
pub(super) struct Declarations<'f> {
    func: &'f Function,
    scope: &'f ModuleScope,
    errors: Vec<Diagnostic>,
    param_names: BTreeSet<&'f str>,
    variables: BTreeMap<&'f str, &'f Variable>,
    /// Per open scope: single registers by (prefix, number), families by prefix.
    scopes: Vec<RegScope<'f>>,
    outer_names: BTreeSet<&'f str>,
    /// Built on the first name that is neither a variable nor a module name.
    labels: OnceCell<BTreeSet<String>>,
}

impl<'f> Declarations<'f> {
    /// Checks the parameters; the body comes statement by statement.
    pub(super) fn new(func: &'f Function, scope: &'f ModuleScope) -> Self {
        let mut errors = Vec::new();
        let params: Vec<&Variable> = func.params.iter().flatten().chain(func.returns.iter().flatten()).collect();
        let mut param_names: BTreeSet<&str> = BTreeSet::new();
        let declared = match func.kind {
            ptx_ir::FunctionKind::Entry => Declared::KernelParam,
            ptx_ir::FunctionKind::Func => Declared::FuncParam,
        };
        for p in &params {
            check_vector_word(p, &mut errors);
            check_array_size(p, declared, &mut errors);
            if p.name != "_" && !param_names.insert(p.name.as_str()) {
                errors.push(Diagnostic::new(p.span, format!("parameter '{}' is declared twice", p.name)));
            }
        }
        Declarations {
            func,
            scope,
            errors,
            param_names,
            variables: params.iter().map(|p| (p.name.as_str(), *p)).collect(),
            scopes: vec![RegScope::default()],
            outer_names: BTreeSet::new(),
            labels: OnceCell::new(),
        }
    }

    /// A statement of the body other than an instruction.
    pub(super) fn stmt(&mut self, stmt: &'f Stmt) {
        let func = self.func;
        match stmt {
            Stmt::ScopeOpen(_) => self.scopes.push(RegScope::default()),
            Stmt::ScopeClose(_) => {
                self.scopes.pop();
                if self.scopes.is_empty() {
                    self.scopes.push(RegScope::default());
                }
            }
            Stmt::RegDecl(decl) => {
                let decl = &func.reg_decls[*decl];
                if let Some(n) = decl.ty.vector {
                    if u32::from(n) * decl.ty.scalar.bits() > MAX_VECTOR_BITS {
                        self.errors.push(Diagnostic::new(decl.span, vector_too_large(n, decl.ty.scalar)));
                    }
                }
                let outermost = self.scopes.len() == 1;
                let scope = self.scopes.last_mut().expect("a scope is open");
                // `%p<0>` declares no register, so there is no name to check.
                for item in decl.items.iter().filter(|item| item.count != Some(0)) {
                    let name = func.names.get(func.regs[item.first].name);
                    if let Some(dup) = scope.declare(name, item.count) {
                        self.errors.push(Diagnostic::new(decl.span, format!("register '{dup}' is declared twice")));
                    }
                    if outermost && item.count.is_none() {
                        self.outer_names.insert(name);
                    }
                }
            }
            Stmt::Variable(v) => {
                let v = &func.variables[*v];
                check_vector_word(v, &mut self.errors);
                check_array_size(v, Declared::Variable, &mut self.errors);
                let outermost = self.scopes.len() == 1;
                let name = v.name.as_str();
                if outermost && (self.param_names.contains(name) || !self.outer_names.insert(name)) {
                    self.errors.push(Diagnostic::new(v.span, format!("variable '{}' is declared twice", v.name)));
                }
                self.variables.entry(name).or_insert(v);
            }
            Stmt::Label(l) => {
                let name = func.names.get(func.labels[*l].name);
                if self.param_names.contains(name) || self.outer_names.contains(name) {
                    self.errors.push(Diagnostic::new(func.span, format!("label '{name}' has the name of a variable")));
                }
            }
            Stmt::Inst(_) | Stmt::Raw(_) => {}
        }
    }

    /// An instruction of the body, at its place; true if it has no error.
    pub(super) fn inst(&mut self, inst: &Inst) -> bool {
        let before = self.errors.len();
        check_inst(self.func, inst, &self.variables, self.scope, &self.labels, &mut self.errors);
        self.errors.len() == before
    }

    /// Every declaration and state-space error of the function, in body order.
    pub(super) fn finish(self) -> Vec<Diagnostic> {
        self.errors
    }
}

/// The registers one scope declares, by the names in the function's name
/// table (borrowed: an inline-asm block's scope opens and closes for a
/// handful of instructions, thousands of times in a large module).
#[derive(Default)]
struct RegScope<'f> {
    singles: BTreeSet<(&'f str, u64)>,
    families: BTreeMap<&'f str, u32>,
}

impl<'f> RegScope<'f> {
    /// Declares `name` (a family of `count` if given); returns the name it
    /// collides with.
    fn declare(&mut self, name: &'f str, count: Option<u32>) -> Option<String> {
        match count {
            Some(n) => {
                if self.families.insert(name, n).is_some() {
                    return Some(format!("{name}<{n}>"));
                }
                let hit = self.singles.range((name, 0)..(name, u64::from(n))).next();
                hit.map(|(p, i)| format!("{p}{i}"))
            }
            None => {
                let (prefix, number) = split_number(name)?;
                if self.families.get(prefix).is_some_and(|&n| number < u64::from(n)) {
                    return Some(name.to_string());
                }
                // Two singles with the same text are the parser's to report.
                self.singles.insert((prefix, number));
                None
            }
        }
    }
}

/// The widest vector ptxas allows in a declaration ("Vector type too large,
/// exceeds 128 bit limit"), for registers and variables alike.
const MAX_VECTOR_BITS: u32 = 128;

fn vector_too_large(n: u8, scalar: ScalarType) -> String {
    format!(
        "a .v{n} .{scalar} vector is {} bits; at most {MAX_VECTOR_BITS} may be declared",
        u32::from(n) * scalar.bits()
    )
}

/// A declaration's vector word: at most 128 bits, and before the type
/// (ptxas 13.5: `.global .b32 .v2 g` is a syntax error, in every space).
fn check_vector_word(v: &Variable, errors: &mut Vec<Diagnostic>) {
    let Some((at, n)) = v.words.iter().enumerate().find_map(|(at, w)| match w {
        DeclWord::Vector(n) => Some((at, *n)),
        _ => None,
    }) else {
        return;
    };
    let Some(scalar) = v.ty() else { return };
    if v.words[..at].iter().any(|w| matches!(w, DeclWord::Type(_))) {
        let message = format!("the vector size .v{n} comes before the type .{scalar}, not after it");
        errors.push(Diagnostic::new(v.span, message));
    }
    if u32::from(n) * scalar.bits() > MAX_VECTOR_BITS {
        errors.push(Diagnostic::new(v.span, vector_too_large(n, scalar)));
    }
}

/// Where a variable is declared, for [`check_array_size`].
#[derive(Clone, Copy, PartialEq, Eq)]
enum Declared {
    Variable,
    KernelParam,
    FuncParam,
}

/// An array of unknown size (`a[]`), as ptxas 13.5 takes it: sized by its
/// initializer, `.extern` (dynamic shared memory) or a parameter of a
/// `.func`; never a parameter of a kernel; only its first dimension left
/// out. ptxas: "Non-external variable 'a' has incomplete type", "Parameter
/// to entry function cannot be an incomplete array", a syntax error for
/// `a[2][]`.
fn check_array_size(v: &Variable, declared: Declared, errors: &mut Vec<Diagnostic>) {
    let message = if v.dims.iter().skip(1).any(Option::is_none) {
        format!("only the first dimension of array '{}' may be left out", v.name)
    } else if v.dims.first() != Some(&None) || declared == Declared::FuncParam {
        return;
    } else if declared == Declared::KernelParam {
        format!("parameter '{}' of a kernel cannot be an array of unknown size", v.name)
    } else if v.init.is_none() && !v.linkage.iter().any(|l| l == "extern") {
        format!("array '{}' has no size: give one, an initializer, or declare it .extern", v.name)
    } else {
        return;
    };
    errors.push(Diagnostic::new(v.span, message));
}

/// `%r012` -> (`%r`, 12).
fn split_number(name: &str) -> Option<(&str, u64)> {
    let digits = name.len() - name.bytes().rev().take_while(u8::is_ascii_digit).count();
    let (prefix, number) = name.split_at(digits);
    if number.is_empty() || number.len() > 18 {
        return None;
    }
    Some((prefix, number.parse().ok()?))
}

/// The space a variable of that declaration is addressed in, for the
/// spaces ptxas compares.
fn addressable(space: StateSpace) -> Option<StateSpace> {
    matches!(space, StateSpace::Global | StateSpace::Shared | StateSpace::Local | StateSpace::Const | StateSpace::Param)
        .then_some(space)
}

fn check_inst(
    func: &Function,
    inst: &Inst,
    variables: &BTreeMap<&str, &Variable>,
    scope: &ModuleScope,
    labels: &OnceCell<BTreeSet<String>>,
    errors: &mut Vec<Diagnostic>,
) {
    // An unresolved branch target is the label check's to report.
    if inst.opcode.control() == Control::Branch {
        return;
    }
    let opcode = || ptx_ir::print::opcode_text(func, inst.opcode);
    let mut report = |span: Span, msg: String| errors.push(Diagnostic::new(span, msg));
    for op in &inst.operands {
        visit_symbols(op, &mut |name, addressed| {
            let text = func.names.get(name);
            if text.starts_with('%') || text == "WARP_SZ" {
                return;
            }
            if let Some(v) = variables.get(text) {
                // Which spaces an instruction takes (`st.const`, `atom.local`,
                // `ld.shared.nc` are not PTX) is the forms' business.
                let declared = v.space().and_then(addressable);
                let used = inst.space().and_then(addressable);
                if let (true, Some(d), Some(u), true) = (addressed, declared, used, is_memory(inst.opcode)) {
                    if d != u {
                        let msg = format!("{}: .{u} access to '{text}', which is declared in .{d}", opcode());
                        report(inst.span, msg);
                    }
                }
                return;
            }
            if labels.get_or_init(|| label_names(func)).contains(text) || scope.declares(text, func) {
                return;
            }
            report(inst.span, format!("{}: '{text}' is not declared", opcode()));
        });
    }
}

fn is_memory(opcode: Opcode) -> bool {
    matches!(opcode, Opcode::Ld | Opcode::St | Opcode::Ldu | Opcode::Atom | Opcode::Red | Opcode::Prefetch)
}

/// Labels may be named as values too, and so may `.callprototype` names
/// (`prototype_3 : .callprototype ...`, kept verbatim).
fn label_names(func: &Function) -> BTreeSet<String> {
    let labels = func.labels.values().map(|l| func.names.get(l.name).to_string());
    let prototypes = func.body().into_iter().flatten().filter_map(|s| match s {
        Stmt::Raw(raw) => func.directives[*raw].text.split(':').next().map(|n| n.trim().to_string()),
        _ => None,
    });
    labels.chain(prototypes).collect()
}

/// Every symbol `op` names, and whether it is an address base.
fn visit_symbols(op: &Operand, f: &mut impl FnMut(ptx_ir::Name, bool)) {
    match op {
        Operand::Symbol(n) => f(*n, false),
        Operand::SymbolOffset(symbol_offset) => f(symbol_offset.0, false),
        Operand::Element(element) => f(element.array, false),
        Operand::Address(a) => {
            if let AddrBase::Symbol(n) = a.base {
                f(n, true);
            }
            for o in &a.rest {
                visit_symbols(o, f);
            }
        }
        Operand::Vector(ops) | Operand::Parens(ops) => ops.iter().for_each(|o| visit_symbols(o, f)),
        Operand::Pair(p) => {
            visit_symbols(&p.0, f);
            visit_symbols(&p.1, f);
        }
        Operand::Not(o) | Operand::Neg(o) => visit_symbols(o, f),
        _ => {}
    }
}
