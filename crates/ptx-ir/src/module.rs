//! Modules, functions, declarations and the statement list.

use crate::arena::Arena;
use crate::entities::{DirectiveId, FuncId, InstId, LabelId, Name, Names, RegDeclId, RegId, VariableId};
use crate::init::Initializer;
use crate::inst::Inst;
use crate::types::{RegType, ScalarType, StateSpace};
use crate::Span;
use cranelift_entity::PrimaryMap;

/// A PTX module: the header and the top-level items in source order.
///
/// A parsed module keeps its source text. The printer reproduces the source
/// byte for byte for every part nobody changed (comments and layout
/// included: ptxas embeds the PTX text and its line numbers in the cubin's
/// debug sections), and prints changed functions afresh. Whoever changes a
/// function must call [`Function::mark_changed`] (the pass manager does it for
/// every pass that reports a change); whoever changes anything else at module
/// level must call [`Module::mark_changed`].
#[derive(Clone, Debug, Default)]
pub struct Module {
    /// The source text this module was parsed from, while the header,
    /// variables and directives are unchanged.
    pub source: Option<std::sync::Arc<str>>,
    /// `.version` major and minor.
    pub version: (u32, u32),
    /// `.target` entries (`sm_80`, `debug`, `texmode_independent`).
    pub target: Vec<String>,
    /// `.address_size`, if given.
    pub address_size: Option<u32>,
    /// Top-level items in source order.
    pub items: Vec<ModuleItem>,
    /// The functions (entries and device functions, with or without body).
    pub functions: PrimaryMap<FuncId, Function>,
}

impl Module {
    /// Forgets the source text: everything is printed afresh.
    pub fn mark_changed(&mut self) {
        self.source = None;
    }
}

/// A top-level item.
#[derive(Clone, Debug)]
pub enum ModuleItem {
    /// A variable (`.global`, `.const`, `.shared`, ...).
    Variable(Variable),
    /// A function declaration or definition.
    Function(FuncId),
    /// A directive kept as written (`.file`, `.section` blocks, ...).
    Raw(RawDirective),
}

/// A directive the IR keeps verbatim: `.loc`, `.file`, `.pragma`, debug
/// `.section`s, `.callprototype`, `.branchtargets`, ... The text is the
/// directive exactly as written, without comments or the trailing `;`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawDirective {
    /// The directive's name without the dot (`loc`, `section`, `pragma`).
    pub name: String,
    /// The full text, from the dot to the end (no trailing `;`).
    pub text: String,
    /// True if the directive is terminated by `;` when printed.
    pub semicolon: bool,
    /// Where it came from.
    pub span: Span,
}

/// One word of a declaration prefix, kept in source order so declarations
/// print as written (`.global .align 4 .u32 x` vs `.param .u64 .ptr .align 8 p`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeclWord {
    /// `.global`, `.param`, ...
    Space(StateSpace),
    /// `.align N`
    Align(u32),
    /// `.u32`, ...
    Type(ScalarType),
    /// `.v2`, `.v4`
    Vector(u8),
    /// Anything else (`.ptr`, `.attribute(.managed)`, a sub-qualified space like `.shared::cta`).
    Other(String),
}

/// A variable or parameter declaration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variable {
    /// Linkage words (`visible`, `extern`, `weak`, `common`) without dots.
    pub linkage: Vec<String>,
    /// Declaration words in source order (state space first).
    pub words: Vec<DeclWord>,
    /// The variable's name (`_` for anonymous prototype parameters).
    pub name: String,
    /// Array dimensions; `None` for `[]`.
    pub dims: Vec<Option<u64>>,
    /// The initializer after `=`, typed.
    pub init: Option<Initializer>,
    /// Where it came from.
    pub span: Span,
}

impl Variable {
    /// The state space.
    pub fn space(&self) -> Option<StateSpace> {
        self.words.iter().find_map(|w| match w {
            DeclWord::Space(s) => Some(*s),
            _ => None,
        })
    }

    /// The element type.
    pub fn ty(&self) -> Option<ScalarType> {
        self.words.iter().rev().find_map(|w| match w {
            DeclWord::Type(t) => Some(*t),
            _ => None,
        })
    }

    /// `.align`, if given.
    pub fn align(&self) -> Option<u32> {
        self.words.iter().find_map(|w| match w {
            DeclWord::Align(a) => Some(*a),
            _ => None,
        })
    }

    /// `.v2`/`.v4`, if given.
    pub fn vector(&self) -> Option<u8> {
        self.words.iter().find_map(|w| match w {
            DeclWord::Vector(v) => Some(*v),
            _ => None,
        })
    }

    /// Size in bytes, if every dimension is known.
    pub fn size_bytes(&self) -> Option<u64> {
        let elem = self.ty()?.bytes() as u64 * self.vector().unwrap_or(1) as u64;
        self.dims.iter().try_fold(elem, |acc, d| d.map(|d| acc * d))
    }
}

/// `.entry` or `.func`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FunctionKind {
    /// A kernel.
    Entry,
    /// A device function.
    Func,
}

/// A register: its declared type and name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegData {
    /// Declared type.
    pub ty: RegType,
    /// The declared name, or the prefix for a `%r<N>` family.
    pub name: Name,
    /// The index within a `%r<N>` family.
    pub index: Option<RegIndex>,
}

/// A register's index within its `%r<N>` family, stored plus one so that
/// `Option<RegIndex>` takes 4 bytes and a register 12 (a module of a
/// million registers keeps 4 MB less). It prints as the index.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RegIndex(std::num::NonZeroU32);

impl RegIndex {
    /// The index `i` (a family's indices are below its count, a `u32`, so
    /// `i + 1` never overflows for a declared register).
    ///
    /// # Panics
    /// When `i` is `u32::MAX`.
    pub fn new(i: u32) -> RegIndex {
        RegIndex(
            std::num::NonZeroU32::new(i.checked_add(1).expect("a family index is below u32::MAX")).expect("plus one"),
        )
    }

    /// The index.
    pub fn get(self) -> u32 {
        self.0.get() - 1
    }
}

impl std::fmt::Display for RegIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.get().fmt(f)
    }
}

impl std::fmt::Debug for RegIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.get().fmt(f)
    }
}

/// One item of a `.reg` declaration: a name, or a `%r<N>` family.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegDeclItem {
    /// The first register declared by the item.
    pub first: RegId,
    /// `Some(N)` for `%r<N>`.
    pub count: Option<u32>,
}

/// A `.reg` declaration statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegDecl {
    /// The declared type.
    pub ty: RegType,
    /// `.align N` if given.
    pub align: Option<u32>,
    /// Declared names, in order.
    pub items: Vec<RegDeclItem>,
    /// Where it came from.
    pub span: Span,
}

/// A statement of a function body. The body is a flat list; nested `{ }`
/// scopes are kept as open/close markers, which matters only for names.
///
/// A statement is 8 bytes (a handle and its kind): the rarer, bigger
/// statements live in the function's arenas ([`Function::reg_decls`],
/// [`Function::variables`], [`Function::directives`]) and a brace is its
/// offset. The body of a large module holds millions of statements (boxed
/// declarations and a brace's whole span made it 16 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stmt {
    /// An instruction.
    Inst(InstId),
    /// `label:`
    Label(LabelId),
    /// `.reg ...;`
    RegDecl(RegDeclId),
    /// `.local`, `.shared`, `.param` ... variables declared in the body.
    Variable(VariableId),
    /// A directive kept verbatim (`.loc`, `.pragma`, `.callprototype`, ...).
    Raw(DirectiveId),
    /// `{`
    ScopeOpen(Brace),
    /// `}`
    ScopeClose(Brace),
}

/// Where a scope's brace stands in the source: its byte offset, or none for
/// a brace a pass added ([`Brace::ADDED`]).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Brace(u32);

impl Brace {
    /// A brace made by a pass, printed afresh.
    pub const ADDED: Brace = Brace(u32::MAX);

    /// The brace at byte `offset` of the source.
    pub fn at(offset: u32) -> Brace {
        // A source is below 4 GiB, so its last offset is below u32::MAX.
        Brace(offset)
    }

    /// The brace's one byte in the source (empty for [`Brace::ADDED`]).
    pub fn span(self) -> Span {
        match self {
            Brace::ADDED => Span::default(),
            Brace(offset) => Span { start: offset, end: offset + 1 },
        }
    }
}

impl std::fmt::Debug for Brace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Brace::ADDED => f.write_str("Brace(added)"),
            Brace(offset) => write!(f, "Brace({offset})"),
        }
    }
}

/// Data about one label.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LabelData {
    /// The label's name.
    pub name: Name,
    /// Where it is placed in the source (`name:`; synthetic when added).
    pub span: Span,
}

/// A function: signature, registers, instructions and the body.
#[derive(Clone, Debug)]
pub struct Function {
    /// Linkage words (`visible`, `extern`, `weak`) without dots.
    pub linkage: Vec<String>,
    /// `.entry` or `.func`.
    pub kind: FunctionKind,
    /// The name.
    pub name: String,
    /// Return parameters (`.func (.param .b32 r) f(...)`), if the list is written.
    pub returns: Option<Vec<Variable>>,
    /// Parameters, if the list is written.
    pub params: Option<Vec<Variable>>,
    /// Performance and other directives between the signature and the body
    /// (`.maxntid 256, 1, 1`, `.noreturn`, `.pragma ...`).
    pub attributes: Vec<RawDirective>,
    /// The function's strings.
    pub names: Names,
    /// Registers.
    pub regs: Arena<RegId, RegData>,
    /// Instructions (referenced from the body; iteration skips the ones
    /// removed from it).
    pub insts: Arena<InstId, Inst>,
    /// Labels.
    pub labels: Arena<LabelId, LabelData>,
    /// The body's `.reg` declarations ([`Stmt::RegDecl`]).
    pub reg_decls: Arena<RegDeclId, RegDecl>,
    /// The variables declared in the body ([`Stmt::Variable`]).
    pub variables: Arena<VariableId, Variable>,
    /// The directives of the body ([`Stmt::Raw`]).
    pub directives: Arena<DirectiveId, RawDirective>,
    /// The body in order, or `None` for a declaration (`.extern .func f(...);`).
    body: Option<Vec<Stmt>>,
    /// The whole function in the source (header to closing brace).
    pub span: Span,
    /// How far the function is from its source text (see
    /// [`Function::is_pristine`] and [`Function::keeps_layout`]).
    state: SourceState,
    /// Whether the body holds a `.target` directive, worked out when the
    /// body is set or taken (the parser's statements are still in cache
    /// then; the verifier asks of every function); `None` after `body_mut`,
    /// which may have changed it.
    body_targets: Option<bool>,
    /// In debug builds, the signature as parsed: [`Function::is_pristine`]
    /// checks that nobody changed it without saying so (the signature
    /// fields are plain data; the arenas and the body track themselves).
    parsed_signature: Option<Box<Signature>>,
}

/// How much of a function's source text still says what it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SourceState {
    /// Exactly as parsed (the arenas may still say otherwise).
    Pristine,
    /// Instructions inserted or removed through the IR's own editors
    /// ([`crate::edit::BodyEdits`], [`crate::fresh::FreshRegs`]): every
    /// other statement is as parsed.
    InstructionsEdited,
    /// Changed in a way only a fresh print shows (a signature edit,
    /// [`Function::body_mut`], [`Function::mark_changed`]).
    Reprint,
}

/// The parts of a function before its body, compared by the debug check of
/// [`Function::is_pristine`].
#[derive(Clone, Debug, PartialEq)]
struct Signature {
    linkage: Vec<String>,
    kind: FunctionKind,
    name: String,
    returns: Option<Vec<Variable>>,
    params: Option<Vec<Variable>>,
    attributes: Vec<RawDirective>,
    span: Span,
}

impl Function {
    /// A new function with no body.
    pub fn new(kind: FunctionKind, name: String) -> Function {
        Function {
            linkage: Vec::new(),
            kind,
            name,
            returns: None,
            params: None,
            attributes: Vec::new(),
            names: Names::default(),
            regs: Arena::new(),
            insts: Arena::new(),
            labels: Arena::new(),
            reg_decls: Arena::new(),
            variables: Arena::new(),
            directives: Arena::new(),
            body: None,
            span: Span::default(),
            state: SourceState::Reprint,
            body_targets: Some(false),
            parsed_signature: None,
        }
    }

    /// Records that the function no longer matches its source text: it is
    /// printed afresh, whole.
    pub fn mark_changed(&mut self) {
        self.state = SourceState::Reprint;
    }

    /// Records a change the IR may not have seen (a pass says it changed
    /// the function): a function with no tracked edit is printed afresh,
    /// one edited through the arenas and editors keeps its layout.
    pub fn note_changed(&mut self) {
        let edited = self.regs.is_touched()
            || self.insts.is_touched()
            || self.labels.is_touched()
            || self.declarations_touched();
        if self.state == SourceState::Pristine && !edited {
            self.state = SourceState::Reprint;
        }
    }

    /// Records that the function is exactly its source text (the parser,
    /// once it has lowered the function).
    pub fn mark_unchanged(&mut self) {
        self.state = SourceState::Pristine;
        if cfg!(debug_assertions) {
            self.parsed_signature = Some(Box::new(self.signature()));
        }
        self.regs.mark_unchanged();
        self.insts.mark_unchanged();
        self.labels.mark_unchanged();
        self.reg_decls.mark_unchanged();
        self.variables.mark_unchanged();
        self.directives.mark_unchanged();
    }

    /// True while the function is exactly as parsed, so the printer may copy
    /// its source text. Any change made through the API ends it: writing to
    /// an arena (`func.insts[id] = ..`, `push`, `get_mut`, ...), taking the
    /// body mutably ([`Function::body_mut`]), or [`Function::mark_changed`].
    ///
    /// The signature fields (`linkage`, `name`, `params`, ...) are plain
    /// data: whoever changes them calls [`Function::mark_changed`]. In debug
    /// builds (every test) a change that did not is caught here, instead of
    /// printing the stale source text.
    pub fn is_pristine(&self) -> bool {
        let pristine = self.state == SourceState::Pristine
            && !self.regs.is_touched()
            && !self.insts.is_touched()
            && !self.labels.is_touched()
            && !self.declarations_touched();
        if pristine {
            self.check_signature_unchanged();
        }
        pristine
    }

    /// True while every statement of the body that is not new and not an
    /// instruction written since parsing still says what its source text
    /// says, and so does the signature: the printer then copies their text
    /// (comments and layout between them too) and prints only the rest.
    /// Inserting and removing instructions through `BodyEdits` and
    /// `Rewriter`, and writing instructions in place, keep it; so do new
    /// registers declared by `FreshRegs`. Writing a register, a label or a
    /// declaration that was parsed (a rename shows in every instruction
    /// naming it), [`Function::body_mut`] and [`Function::mark_changed`]
    /// end it.
    pub fn keeps_layout(&self) -> bool {
        let kept = self.state != SourceState::Reprint
            && self.body.is_some()
            && !self.regs.any_original_written()
            && !self.labels.any_original_written()
            && !self.reg_decls.any_original_written()
            && !self.variables.any_original_written()
            && !self.directives.any_original_written();
        if kept {
            self.check_signature_unchanged();
        }
        kept
    }

    fn holds_target_directive(&self) -> bool {
        let mut body = self.body.iter().flatten();
        body.any(|stmt| matches!(stmt, Stmt::Raw(d) if self.directives[*d].name == "target"))
    }

    fn declarations_touched(&self) -> bool {
        self.reg_decls.is_touched() || self.variables.is_touched() || self.directives.is_touched()
    }

    fn check_signature_unchanged(&self) {
        if let Some(parsed) = &self.parsed_signature {
            assert!(
                **parsed == self.signature(),
                "the signature of function {} was changed without Function::mark_changed()",
                self.name
            );
        }
    }

    fn signature(&self) -> Signature {
        Signature {
            linkage: self.linkage.clone(),
            kind: self.kind,
            name: self.name.clone(),
            returns: self.returns.clone(),
            params: self.params.clone(),
            attributes: self.attributes.clone(),
            span: self.span,
        }
    }

    /// The body statements in order, or `None` for a declaration.
    pub fn body(&self) -> Option<&[Stmt]> {
        self.body.as_deref()
    }

    /// True for a definition (a function with a body).
    pub fn has_body(&self) -> bool {
        self.body.is_some()
    }

    /// The body, to change it; marks the function changed (printed afresh).
    pub fn body_mut(&mut self) -> Option<&mut Vec<Stmt>> {
        self.state = SourceState::Reprint;
        self.body_targets = None;
        self.body.as_mut()
    }

    /// Replaces the body (`None` makes a declaration); marks the function
    /// changed (printed afresh).
    pub fn set_body(&mut self, body: Option<Vec<Stmt>>) {
        self.state = SourceState::Reprint;
        self.body = body;
        self.body_targets = Some(self.holds_target_directive());
    }

    /// True if the body holds a `.target` directive (ptxas reads the target
    /// anew from there on).
    pub fn has_target_directive(&self) -> bool {
        self.body_targets.unwrap_or_else(|| self.holds_target_directive())
    }

    /// Frees the room the arenas and the body reserved beyond what they
    /// hold (the parser reserves by counting `;` and grows the registers as
    /// declarations come); not a change.
    pub fn shrink_to_fit(&mut self) {
        self.regs.shrink_to_fit();
        self.insts.shrink_to_fit();
        self.labels.shrink_to_fit();
        self.reg_decls.shrink_to_fit();
        self.variables.shrink_to_fit();
        self.directives.shrink_to_fit();
        self.names.shrink_to_fit();
        if let Some(body) = &mut self.body {
            body.shrink_to_fit();
        }
    }

    /// Takes the body out (for a rewrite that rebuilds it); marks the
    /// function changed (printed afresh).
    pub fn take_body(&mut self) -> Option<Vec<Stmt>> {
        self.state = SourceState::Reprint;
        self.body_targets = Some(false);
        self.body.take()
    }

    /// The body, for the IR's own editors, which only insert and remove
    /// instructions and add new declarations: the rest of the body keeps
    /// its source text ([`Function::keeps_layout`]).
    pub(crate) fn body_for_instruction_edits(&mut self) -> Option<&mut Vec<Stmt>> {
        if self.state == SourceState::Pristine {
            self.state = SourceState::InstructionsEdited;
        }
        self.body.as_mut()
    }

    /// The printed name of a register (`%r7`).
    pub fn reg_name(&self, reg: RegId) -> String {
        let data = &self.regs[reg];
        let base = self.names.get(data.name);
        match data.index {
            Some(i) => format!("{base}{i}"),
            None => base.to_string(),
        }
    }

    /// The variables declared in the body, in order.
    pub fn body_variables(&self) -> impl Iterator<Item = &Variable> + '_ {
        self.body.iter().flatten().filter_map(|s| match s {
            Stmt::Variable(v) => Some(&self.variables[*v]),
            _ => None,
        })
    }

    /// The instructions of the body, in order.
    pub fn inst_ids(&self) -> impl Iterator<Item = InstId> + '_ {
        self.body.iter().flatten().filter_map(|s| match s {
            Stmt::Inst(i) => Some(*i),
            _ => None,
        })
    }
}
