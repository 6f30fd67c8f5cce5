//! Preparing a module for execution: the instruction sequence and label
//! targets of each function, the variables a frame allocates, the static
//! variables of the launch, and the resolution of every symbol operand.
//!
//! The IR resolves registers but keeps variables and functions as names, and
//! call sequences reuse names (`param0`, `retval0`) in sibling `{ }` scopes.
//! Preparation walks each body once with a scope stack and records, per
//! instruction, what each name means, so execution never searches by name.

use crate::error::{InterpError, LineIndex};
use ptx_ir::{
    AddrBase, DeclWord, FuncId, Function, FunctionKind, InitValue, Inst, InstId, LabelId, Module, ModuleItem, Name,
    Operand, RegId, ScalarType, StateSpace, Stmt, Variable,
};
use rustc_hash::FxHashMap;

/// What a symbol operand names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binding {
    /// A variable allocated with each frame (a parameter, a `.local` or
    /// `.param` variable of the body): index into [`FuncInfo::frame_vars`].
    Frame(usize),
    /// A variable that exists once per launch or per CTA: index into
    /// [`Program::statics`].
    Static(usize),
    /// A function.
    Function(FuncId),
}

/// A variable allocated with each frame.
#[derive(Clone, Debug)]
pub struct FrameVar {
    /// Its name.
    pub name: String,
    /// `Local` or `Param`.
    pub space: StateSpace,
    /// Size in bytes.
    pub size: u64,
    /// Alignment in bytes.
    pub align: u64,
    /// What `name[i]` scales `i` by (see [`element_bytes`]).
    pub element: Option<u64>,
}

/// A formal parameter or return value of a function.
#[derive(Clone, Copy, Debug)]
pub enum Formal {
    /// A `.param` variable: index into [`FuncInfo::frame_vars`].
    Mem(usize),
    /// A `.reg` parameter: the register it is inside the body.
    Reg(RegId, ScalarType),
    /// A `.reg` parameter whose register could not be found.
    Unresolved,
}

/// A variable that exists once per launch (global, const) or per CTA (shared).
#[derive(Clone, Debug)]
pub struct StaticVar {
    /// Its name.
    pub name: String,
    /// `Global`, `Const` or `Shared`.
    pub space: StateSpace,
    /// Size in bytes (for `.extern .shared x[]`, 0: it gets the dynamic size).
    pub size: u64,
    /// Alignment in bytes.
    pub align: u64,
    /// What `name[i]` scales `i` by (see [`element_bytes`]).
    pub element: Option<u64>,
    /// Initial contents, or why they cannot be modelled.
    pub init: Result<Vec<u8>, String>,
    /// Declared `x[]` without size (dynamic shared memory).
    pub dynamic: bool,
    /// True for variables declared at module level.
    pub module_level: bool,
    /// The function whose body declares it (None at module level).
    pub owner: Option<FuncId>,
}

/// A function prepared for execution.
#[derive(Clone, Debug, Default)]
pub struct FuncInfo {
    /// The instructions, in order; the program counter indexes this.
    pub code: Vec<InstId>,
    /// The program counter each label stands before.
    pub label_pc: FxHashMap<LabelId, usize>,
    /// Variables allocated with each frame.
    pub frame_vars: Vec<FrameVar>,
    /// Formal parameters, in order.
    pub params: Vec<Formal>,
    /// Formal return values, in order.
    pub returns: Vec<Formal>,
    /// What each symbol of each instruction names, by (pc, name).
    pub bindings: FxHashMap<(u32, Name), Binding>,
    /// `.reqntid` / `.maxntid`, if given.
    pub reqntid: Option<[u32; 3]>,
    /// `.maxntid`, if given.
    pub maxntid: Option<[u32; 3]>,
}

/// A module prepared for execution.
#[derive(Debug)]
pub struct Program<'m> {
    /// The module.
    pub module: &'m Module,
    /// Line index of the module's source, if it has one.
    pub lines: Option<LineIndex>,
    /// Prepared functions, indexed like `module.functions`.
    pub funcs: Vec<FuncInfo>,
    /// Static variables (module level, then function-level shared/global/const).
    pub statics: Vec<StaticVar>,
    /// Function ids by name.
    pub func_by_name: FxHashMap<String, FuncId>,
}

/// The size of an element of a one-dimensional array of scalars, by which
/// `arr[i]` scales `i` (ISA 6.4.2; ptxas 13.5: `a[1]` of a `.b16` array
/// is byte 2). Other variables: not modelled.
fn element_bytes(v: &Variable) -> Option<u64> {
    (v.dims.len() == 1 && v.vector().is_none()).then_some(v.ty()?.bytes() as u64)
}

fn var_align(v: &Variable) -> u64 {
    v.align().map(|a| a as u64).unwrap_or_else(|| v.ty().map(|t| t.bytes() as u64).unwrap_or(1)).max(1)
}

fn is_ptr_decl(v: &Variable) -> bool {
    v.words.iter().any(|w| matches!(w, DeclWord::Other(s) if s == ".ptr"))
}

/// True if a parameter is declared `.ptr`.
pub fn declared_pointer(v: &Variable) -> bool {
    is_ptr_decl(v)
}

/// Parses `.reqntid 128, 1, 1`-style directive text into three dimensions.
fn parse_dims(text: &str) -> Option<[u32; 3]> {
    let rest = text.split_once(char::is_whitespace)?.1;
    let mut dims = [1u32; 3];
    for (i, part) in rest.split(',').enumerate().take(3) {
        dims[i] = part.trim().parse().ok()?;
    }
    Some(dims)
}

/// The bytes of an initializer for a variable of element type `ty` and
/// `size` bytes: its elements in order (nested lists flattened), each
/// `ty`'s width. Function names (jump tables) become the functions' code
/// addresses; other addresses are not modelled.
fn init_bytes(
    init: &InitValue,
    ty: ScalarType,
    size: u64,
    funcs: &FxHashMap<String, FuncId>,
) -> Result<Vec<u8>, String> {
    let elem = ty.bytes() as usize;
    let mut out = Vec::new();
    let mut failed = None;
    for_each_element(init, &mut |item| {
        if failed.is_some() {
            return;
        }
        match element_bits(item, ty, funcs) {
            Some(bits) => out.extend_from_slice(&bits.to_le_bytes()[..elem.min(8)]),
            None => failed = Some(format!("initializer item '{item}' is not a number the interpreter models")),
        }
    });
    if let Some(why) = failed {
        return Err(why);
    }
    if out.len() as u64 > size {
        return Err("initializer is longer than the variable".into());
    }
    out.resize(size as usize, 0);
    Ok(out)
}

/// Calls `f` with each element of an initializer that is not a list, in order.
fn for_each_element<'a>(init: &'a InitValue, f: &mut impl FnMut(&'a InitValue)) {
    match init {
        InitValue::List(items) => items.iter().for_each(|item| for_each_element(item, f)),
        _ => f(init),
    }
}

/// The bits of one element for a variable of element type `ty`: a literal
/// (decimal floats only for float variables, integers only for integer
/// ones), a function's address, an integer constant expression; None for
/// anything else. As ptxas 13.5 lays them out (read back from its cubins):
/// decimal and `0d` literals are rounded to a `.f32` variable, a `0f`
/// literal keeps its 32 bits even in a `.f64` variable (not converted).
fn element_bits(item: &InitValue, ty: ScalarType, funcs: &FxHashMap<String, FuncId>) -> Option<u64> {
    match item {
        InitValue::Float(f) if f.is_decimal() => match ty {
            ScalarType::F32 => Some((f64::from_bits(f.bits) as f32).to_bits() as u64),
            ScalarType::F64 => Some(f.bits),
            _ => None,
        },
        InitValue::Float(f) => Some(match (f.single, ty) {
            (false, ScalarType::F32) => (f64::from_bits(f.bits) as f32).to_bits() as u64,
            _ => f.bits,
        }),
        InitValue::Symbol(name) => funcs.get(name).map(|f| crate::memory::FUNCTION_BASE + 16 * f.as_u32() as u64),
        _ if ty.is_float() => None,
        _ => int_constant(item),
    }
}

/// The value of an integer constant expression: literals, `+`, `-`, `mask()`.
fn int_constant(item: &InitValue) -> Option<u64> {
    match item {
        InitValue::Int(i) => Some(i.bits),
        InitValue::Add(e) => Some(int_constant(&e.0)?.wrapping_add(int_constant(&e.1)?)),
        InitValue::Sub(e) => Some(int_constant(&e.0)?.wrapping_sub(int_constant(&e.1)?)),
        InitValue::Mask(m) if m.0.bits != 0 => Some((int_constant(&m.1)? & m.0.bits) >> m.0.bits.trailing_zeros()),
        _ => None,
    }
}

fn static_var(v: &Variable, module_level: bool, funcs: &FxHashMap<String, FuncId>) -> Option<StaticVar> {
    let space = v.space()?;
    // A module-scope `.local` variable is a static with one copy per
    // thread; inside a function, `.local` is a frame variable.
    let module_local = module_level && space == StateSpace::Local;
    if !matches!(space, StateSpace::Global | StateSpace::Const | StateSpace::Shared) && !module_local {
        return None;
    }
    let dynamic = v.dims.iter().any(|d| d.is_none());
    let size = if dynamic { 0 } else { v.size_bytes().unwrap_or(0) };
    let init = match (&v.init, v.ty()) {
        _ if size > crate::memory::MAX_VARIABLE_BYTES => Err(format!("{size} bytes is too large to model")),
        (None, _) => Ok(vec![0; size as usize]),
        (Some(init), Some(ty)) => init_bytes(init.value(), ty, size, funcs),
        (Some(_), None) => Err("initializer of an untyped variable".into()),
    };
    Some(StaticVar {
        name: v.name.clone(),
        space,
        size,
        align: var_align(v),
        element: element_bytes(v),
        init,
        dynamic,
        module_level,
        owner: None,
    })
}

impl<'m> Program<'m> {
    /// Prepares `module`.
    pub fn new(module: &'m Module) -> Program<'m> {
        let lines = module.source.as_deref().map(LineIndex::new);
        let mut func_by_name = FxHashMap::default();
        for (id, f) in module.functions.iter() {
            // A definition wins over an earlier declaration of the same name.
            if f.has_body() || !func_by_name.contains_key(&f.name) {
                func_by_name.insert(f.name.clone(), id);
            }
        }
        let mut statics = Vec::new();
        let mut static_by_name: FxHashMap<String, usize> = FxHashMap::default();
        for item in &module.items {
            if let ModuleItem::Variable(v) = item {
                if let Some(s) = static_var(v, true, &func_by_name) {
                    static_by_name.insert(s.name.clone(), statics.len());
                    statics.push(s);
                }
            }
        }
        let mut funcs = Vec::with_capacity(module.functions.len());
        for (id, f) in module.functions.iter() {
            funcs.push(prepare_function(id, f, &mut statics, &static_by_name, &func_by_name));
        }
        Program { module, lines, funcs, statics, func_by_name }
    }

    /// The function named `name` that has a body.
    pub fn function(&self, name: &str) -> Option<FuncId> {
        let id = *self.func_by_name.get(name)?;
        self.module.functions[id].body()?;
        Some(id)
    }

    /// The 1-based source line of an instruction (0 if unknown).
    pub fn line_of(&self, inst: &Inst) -> u32 {
        match &self.lines {
            Some(index) if !inst.span.is_synthetic() => index.line(inst.span.start),
            _ => 0,
        }
    }

    /// The instruction's opcode and modifiers, as written.
    pub fn opcode_text(&self, func: &Function, inst: &Inst) -> String {
        let mut s = ptx_ir::print::opcode_text(func, inst.opcode).to_string();
        for m in &inst.modifiers {
            ptx_ir::print::write_modifier(func, m, &mut s);
        }
        s
    }

    /// An `Unsupported` error for an instruction.
    pub fn unsupported(&self, func: &Function, inst: &Inst) -> InterpError {
        InterpError::Unsupported { opcode: self.opcode_text(func, inst), line: self.line_of(inst) }
    }

    /// An `Unsupported` error naming what about the instruction is not modelled.
    pub fn unsupported_because(&self, func: &Function, inst: &Inst, why: &str) -> InterpError {
        InterpError::Unsupported {
            opcode: format!("{} ({why})", self.opcode_text(func, inst)),
            line: self.line_of(inst),
        }
    }

    /// An `Invalid` error for an instruction.
    pub fn invalid(&self, func: &Function, inst: &Inst, what: &str) -> InterpError {
        InterpError::Invalid {
            message: format!("{}: {what}", ptx_ir::print::inst_to_string(func, inst)),
            line: self.line_of(inst),
        }
    }
}

struct Scopes<'a> {
    stack: Vec<Vec<(&'a str, Binding)>>,
}

impl<'a> Scopes<'a> {
    fn lookup(&self, name: &str) -> Option<Binding> {
        self.stack.iter().rev().find_map(|scope| scope.iter().rev().find(|(n, _)| *n == name).map(|(_, b)| *b))
    }
}

fn prepare_function(
    id: FuncId,
    f: &Function,
    statics: &mut Vec<StaticVar>,
    static_by_name: &FxHashMap<String, usize>,
    func_by_name: &FxHashMap<String, FuncId>,
) -> FuncInfo {
    let mut info = FuncInfo::default();
    for a in &f.attributes {
        match a.name.as_str() {
            "reqntid" => info.reqntid = parse_dims(&a.text),
            "maxntid" => info.maxntid = parse_dims(&a.text),
            _ => {}
        }
    }
    let mut outer: Vec<(&str, Binding)> = Vec::new();
    let formal = |v: &Variable, info: &mut FuncInfo| -> Formal {
        if v.space() == Some(StateSpace::Reg) {
            let reg = f.regs.iter().find(|(_, d)| d.index.is_none() && f.names.get(d.name) == v.name).map(|(r, _)| r);
            return match (reg, v.ty()) {
                (Some(r), Some(ty)) => Formal::Reg(r, ty),
                _ => Formal::Unresolved,
            };
        }
        let idx = info.frame_vars.len();
        info.frame_vars.push(FrameVar {
            name: v.name.clone(),
            space: StateSpace::Param,
            size: v.size_bytes().unwrap_or(0),
            align: var_align(v),
            element: element_bytes(v),
        });
        Formal::Mem(idx)
    };
    for v in f.params.iter().flatten() {
        let fm = formal(v, &mut info);
        info.params.push(fm);
    }
    for v in f.returns.iter().flatten() {
        let fm = formal(v, &mut info);
        info.returns.push(fm);
    }
    for (fm, v) in
        info.params.iter().chain(info.returns.iter()).zip(f.params.iter().flatten().chain(f.returns.iter().flatten()))
    {
        if let Formal::Mem(i) = fm {
            outer.push((v.name.as_str(), Binding::Frame(*i)));
        }
    }
    let Some(body) = f.body() else { return info };
    let mut scopes = Scopes { stack: vec![outer] };
    for stmt in body {
        match stmt {
            Stmt::ScopeOpen(_) => scopes.stack.push(Vec::new()),
            Stmt::ScopeClose(_) if scopes.stack.len() > 1 => {
                scopes.stack.pop();
            }
            Stmt::Label(l) => {
                info.label_pc.insert(*l, info.code.len());
            }
            Stmt::Variable(v) => {
                let v = &f.variables[*v];
                let binding = match v.space() {
                    Some(space @ (StateSpace::Local | StateSpace::Param)) => {
                        let idx = info.frame_vars.len();
                        info.frame_vars.push(FrameVar {
                            name: v.name.clone(),
                            space,
                            size: v.size_bytes().unwrap_or(0),
                            align: var_align(v),
                            element: element_bytes(v),
                        });
                        Some(Binding::Frame(idx))
                    }
                    _ => static_var(v, false, func_by_name).map(|s| {
                        statics.push(StaticVar { owner: Some(id), ..s });
                        Binding::Static(statics.len() - 1)
                    }),
                };
                if let Some(b) = binding {
                    scopes.stack.last_mut().expect("a scope is open").push((v.name.as_str(), b));
                }
            }
            Stmt::Inst(iid) => {
                let pc = info.code.len() as u32;
                let inst = &f.insts[*iid];
                let mut names = Vec::new();
                for op in &inst.operands {
                    collect_symbols(op, &mut names);
                }
                for name in names {
                    let text = f.names.get(name);
                    let binding = scopes
                        .lookup(text)
                        .or_else(|| static_by_name.get(text).map(|&i| Binding::Static(i)))
                        .or_else(|| func_by_name.get(text).map(|&fid| Binding::Function(fid)));
                    if let Some(b) = binding {
                        info.bindings.insert((pc, name), b);
                    }
                }
                info.code.push(*iid);
            }
            _ => {}
        }
    }
    info
}

fn collect_symbols(op: &Operand, out: &mut Vec<Name>) {
    match op {
        Operand::Symbol(n) => out.push(*n),
        Operand::SymbolOffset(symbol_offset) => out.push(symbol_offset.0),
        Operand::Element(element) => out.push(element.array),
        Operand::Address(a) => {
            if let AddrBase::Symbol(n) = a.base {
                out.push(n);
            }
            for o in &a.rest {
                collect_symbols(o, out);
            }
        }
        Operand::Vector(ops) | Operand::Parens(ops) => ops.iter().for_each(|o| collect_symbols(o, out)),
        Operand::Pair(p) => {
            collect_symbols(&p.0, out);
            collect_symbols(&p.1, out);
        }
        Operand::Not(o) | Operand::Neg(o) => collect_symbols(o, out),
        _ => {}
    }
}

impl Program<'_> {
    /// True if the module's `.target` is an sm_1x one (sm_10 to sm_13),
    /// whose legacy `mad.f32` flushes subnormals.
    pub fn targets_sm_1x(&self) -> bool {
        self.module.target.iter().any(|t| matches!(t.as_str(), "sm_10" | "sm_11" | "sm_12" | "sm_13"))
    }

    /// True if the module's `.target` is older than sm_70 (before
    /// independent thread scheduling): the lanes of a `.sync` warp
    /// collective must then meet at one instruction.
    pub fn targets_before_sm_70(&self) -> bool {
        self.sm().is_some_and(|n| n < 70)
    }

    /// The number of the module's `sm_` target (90 for `sm_90a`), if it
    /// names one.
    fn sm(&self) -> Option<u32> {
        self.module.target.iter().find_map(|t| {
            t.strip_prefix("sm_")
                .map(|n| n.trim_end_matches(|c: char| c.is_ascii_alphabetic()))
                .and_then(|n| n.parse::<u32>().ok())
        })
    }

    /// The most dynamic shared memory a block of the module's `.target`
    /// may have (the CUDA programming guide's table of compute
    /// capabilities: 96 KB on sm_70/72, 64 KB on sm_75, 163 KB on
    /// sm_80/87, 99 KB on sm_86/89/120/121, 227 KB on sm_90 and sm_100 to
    /// sm_110); 227 KB for a target not in the table.
    pub fn max_dynamic_shared_bytes(&self) -> u32 {
        let kb = match self.sm() {
            Some(70 | 72) => 96,
            Some(75) => 64,
            Some(80 | 87) => 163,
            Some(86 | 89 | 120 | 121) => 99,
            _ => 227,
        };
        kb * 1024
    }

    /// The functions `root` may run: itself, what it calls, and every
    /// function whose address it takes (indirect calls), transitively.
    pub fn reachable(&self, root: FuncId) -> Vec<bool> {
        let mut seen = self.called_from(root);
        // Functions named in variable initializers (jump tables).
        if self.statics.iter().any(|s| s.init.is_ok() && s.space != StateSpace::Shared) {
            for (id, f) in self.module.functions.iter() {
                if f.has_body() && !seen[id.as_u32() as usize] && self.in_jump_table(&f.name) {
                    seen.iter_mut().zip(self.called_from(id)).for_each(|(a, b)| *a |= b);
                }
            }
        }
        seen
    }

    /// `root` and what it calls or takes the address of, transitively.
    fn called_from(&self, root: FuncId) -> Vec<bool> {
        let mut seen = vec![false; self.funcs.len()];
        let mut stack = vec![root];
        while let Some(f) = stack.pop() {
            if std::mem::replace(&mut seen[f.as_u32() as usize], true) {
                continue;
            }
            for b in self.funcs[f.as_u32() as usize].bindings.values() {
                if let Binding::Function(g) = b {
                    if !seen[g.as_u32() as usize] {
                        stack.push(*g);
                    }
                }
            }
        }
        seen
    }

    fn in_jump_table(&self, name: &str) -> bool {
        self.module.items.iter().any(|item| match item {
            ModuleItem::Variable(v) => v.init.as_ref().is_some_and(|init| {
                let mut named = false;
                for_each_element(init.value(), &mut |item| {
                    named |= matches!(item, InitValue::Symbol(s) if s == name);
                });
                named
            }),
            _ => false,
        })
    }
}

/// True if the function is a kernel.
pub fn is_kernel(f: &Function) -> bool {
    f.kind == FunctionKind::Entry
}
