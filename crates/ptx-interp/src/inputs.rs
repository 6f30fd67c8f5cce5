//! Inventing inputs for a kernel: which parameters are pointers (they get a
//! global buffer of random bytes) and which are scalars (they get random
//! values mixed with edge cases), all from one seed.
//!
//! A parameter is a pointer if it is declared `.ptr`, or if it is a 64-bit
//! integer whose loaded value flows (through `mov`, `cvta`, `add`, `sub`,
//! `cvt`, the addend of `mad`, `selp`) into an address or a `cvta`. Index
//! arithmetic (`mul`, `shl`) stops the flow, so a size `n` that only scales
//! an index stays a scalar.
//!
//! A struct passed by value (`.b8 s[N]`) whose words the kernel loads with
//! `ld.param`: each loaded word is a source of its own, so the words whose
//! values reach an address are pointers (filled with a buffer address in
//! every trial) and the others scalars (small integers in trial 0: counts,
//! bounds and tile offsets stay inside the buffers). Buffer contents come
//! from a random stream of their own, so the scalars of a trial do not
//! change with the buffer size.
//!
//! Trial 0 uses tame values (small integers, small floats) so that most
//! kernels run to the end; later trials mix in edge cases (0, 1, -1, MIN,
//! MAX, 0x7fff, 0x8000, 0xff, NaN, infinities, subnormals) and raw random
//! bits.

use crate::machine::{Buffer, KernelArgs};
use crate::memory::{GLOBAL_BUFFER_BASE, GLOBAL_STRIDE};
use crate::program::{declared_pointer, Binding, Formal, FuncInfo, Program};
use crate::rng::SplitMix64;
use cranelift_entity::EntityRef;
use ptx_ir::{AddrBase, FuncId, Opcode, Operand, RegId, ScalarType, StateSpace};

/// How a parameter is filled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// A pointer to a fresh global buffer.
    Pointer,
    /// An integer of `bits` bits.
    Int {
        /// Width.
        bits: u32,
        /// Signedness of the declared type.
        signed: bool,
    },
    /// A floating-point value of `bits` bits.
    Float {
        /// Width (16, 32 or 64).
        bits: u32,
    },
    /// Raw bytes (arrays, structs passed by value).
    Bytes,
}

/// One parameter of a function under test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamSpec {
    /// The parameter's name.
    pub name: String,
    /// How it is filled.
    pub kind: ParamKind,
    /// Its size in bytes.
    pub size: u64,
    /// For a by-value struct (`Bytes`) whose words the kernel loads with
    /// `ld.param`: the byte offsets of the 8-byte words that reach an
    /// address (pointers); every other word is a scalar. `None` when the
    /// kernel reads the struct some other way (then every word is filled
    /// as a pointer in the tame trial).
    pub pointer_words: Option<Vec<u64>>,
    /// An integer whose value reaches the divisor of an integer `div` or
    /// `rem`: drawn nonzero (a division by zero is undefined, which would
    /// make every trial that draws 0 inconclusive).
    pub divisor: bool,
    /// An integer added to `%ctaid` (the first block of a grid launched in
    /// rounds, the first tile of a scan): 0 in the tame trial, so the
    /// blocks of the launch are the first ones the kernel was written for
    /// (a block that believes it is tile 94 reads tile 94's data and waits
    /// for tile 93's result).
    pub block_offset: bool,
    /// An integer that offsets (scaled or not) the address of an access
    /// that needs alignment: drawn a multiple of this, so that the access
    /// is aligned whenever the kernel's own arithmetic keeps it so (a
    /// `float4` load at `p + 4 * k` needs `k` a multiple of 4). 1 if none.
    pub multiple_of: u64,
    /// For a struct passed by value: (byte offset, multiple) of the 32-bit
    /// words loaded from it that offset an aligned access, as
    /// [`ParamSpec::multiple_of`] for a scalar.
    pub word_multiples: Vec<(u64, u64)>,
    /// An integer compared with another value (`setp`): a size, a bound, a
    /// count. `Some(signed)`: whether a comparison is signed. Outside the
    /// tame trial its large positive values are cut below
    /// [`SIZE_LIKE_LIMIT`] (a loop to 2^31 or an index past every buffer
    /// makes a trial say nothing); 0, 1, negative values of a signed
    /// comparison and the others stay.
    pub compared: Option<bool>,
}

/// Outside the tame trial, a compared integer above this is reduced
/// modulo it (see [`ParamSpec::compared`]).
pub const SIZE_LIKE_LIMIT: u64 = 256;

/// Infers how to fill each parameter of `func`.
pub fn infer_params(prog: &Program<'_>, func: FuncId) -> Vec<ParamSpec> {
    let f = &prog.module.functions[func];
    let info = &prog.funcs[func.index()];
    let decls: Vec<_> = f.params.iter().flatten().collect();
    let flow = pointer_params(prog, func);
    let alignment = offset_alignment(prog, func);
    let pointers = &flow.params;
    let mut specs = Vec::new();
    for (k, (formal, var)) in info.params.iter().zip(decls).enumerate() {
        let size = match formal {
            Formal::Mem(i) => info.frame_vars[*i].size,
            Formal::Reg(_, ty) => ty.bytes() as u64,
            Formal::Unresolved => 0,
        };
        let ty = var.ty();
        let scalar = var.dims.is_empty() && var.vector().is_none();
        let kind = match ty {
            _ if declared_pointer(var) => ParamKind::Pointer,
            Some(t) if scalar && t.is_integer_like() && t.bits() == 64 && pointers.get(k).copied().unwrap_or(false) => {
                ParamKind::Pointer
            }
            Some(t) if scalar && t.is_integer_like() && matches!(t.bits(), 8 | 16 | 32 | 64) => {
                ParamKind::Int { bits: t.bits(), signed: t.is_signed() }
            }
            Some(t @ (ScalarType::F16 | ScalarType::F32 | ScalarType::F64)) if scalar => {
                ParamKind::Float { bits: t.bits() }
            }
            _ => ParamKind::Bytes,
        };
        let pointer_words = match kind {
            ParamKind::Bytes if flow.loaded.get(k).copied().unwrap_or(false) => {
                let mut words: Vec<u64> =
                    flow.words.iter().filter(|&&(p, _)| p == k).map(|&(_, o)| o).filter(|&o| o + 8 <= size).collect();
                words.sort_unstable();
                words.dedup();
                Some(words)
            }
            _ => None,
        };
        let divisor = flow.divisors.get(k).copied().unwrap_or(false);
        let block_offset = flow.block_offsets.get(k).copied().unwrap_or(false);
        let compared = flow.compared.get(k).copied().flatten();
        let multiples = alignment.iter().filter(|a| a.0 == k);
        let multiple_of = multiples.clone().filter(|a| a.1 == 0).map(|a| a.2).max().unwrap_or(1);
        let word_multiples = match kind {
            ParamKind::Bytes => multiples.map(|&(_, offset, m)| (offset, m)).collect(),
            _ => Vec::new(),
        };
        specs.push(ParamSpec {
            name: var.name.clone(),
            kind,
            size,
            pointer_words,
            divisor,
            block_offset,
            multiple_of,
            word_multiples,
            compared,
        });
    }
    specs
}

/// What flows from the parameters into addresses.
struct PointerFlow {
    /// Per parameter: its value (or a word of it) reaches an address.
    params: Vec<bool>,
    /// (parameter, byte offset) of the struct words loaded with `ld.param`
    /// whose values reach an address.
    words: Vec<(usize, u64)>,
    /// Per parameter: some `ld.param` reads it directly by name.
    loaded: Vec<bool>,
    /// Per parameter: its value reaches the divisor of an integer division.
    divisors: Vec<bool>,
    /// Per parameter: its value is compared (`setp` of integers), and
    /// whether any such comparison is signed.
    compared: Vec<Option<bool>>,
    /// Per parameter: its value is added to `%ctaid`.
    block_offsets: Vec<bool>,
}

/// The sources of a taint analysis, a bit each (at most 64; later ones
/// get no bit and are not followed).
struct TaintSources<K>(Vec<K>);

impl<K> Default for TaintSources<K> {
    fn default() -> Self {
        TaintSources(Vec::new())
    }
}

impl<K: PartialEq + Copy> TaintSources<K> {
    /// The bit of `key`, given one on first sight.
    fn bit(&mut self, key: K) -> u64 {
        match self.0.iter().position(|&s| s == key) {
            Some(i) => 1 << i,
            None if self.0.len() < 64 => {
                self.0.push(key);
                1 << (self.0.len() - 1)
            }
            None => 0,
        }
    }
}

/// The parameter a `.param` binding of the function names, by position.
fn param_of_binding(info: &FuncInfo, b: Binding) -> Option<usize> {
    info.params.iter().position(|fm| matches!((fm, b), (Formal::Mem(i), Binding::Frame(j)) if *i == j))
}

/// Which parameters' values reach an address (see the module comment).
/// Each taint bit stands for a source: a register parameter, or one
/// `ld.param` word (parameter and offset; at most 64 sources).
fn pointer_params(prog: &Program<'_>, func: FuncId) -> PointerFlow {
    let f = &prog.module.functions[func];
    let info = &prog.funcs[func.index()];
    let nparams = info.params.len();
    let mut taint = vec![0u64; f.regs.len()];
    let mut flow = PointerFlow {
        params: vec![false; nparams],
        words: Vec::new(),
        loaded: vec![false; nparams],
        divisors: vec![false; nparams],
        compared: vec![None; nparams],
        block_offsets: vec![false; nparams],
    };
    // The sources: (parameter, offset); register parameters have offset 0.
    let mut sources = TaintSources::default();
    let param_index = |b: Binding| param_of_binding(info, b);
    for (k, fm) in info.params.iter().enumerate() {
        if let Formal::Reg(r, _) = fm {
            taint[r.index()] |= sources.bit((k, 0));
        }
    }
    let regs_of = |op: &Operand, out: &mut Vec<RegId>| op.for_each_reg(&mut |r, _| out.push(r));
    let mut marked = 0u64;
    let mut divides = 0u64;
    let (mut compared, mut compared_signed) = (0u64, 0u64);
    // Registers holding `%ctaid` (moved or converted), and the sources
    // added to one.
    let mut holds_ctaid = vec![false; f.regs.len()];
    let mut offsets_ctaid = 0u64;
    let is_ctaid = |op: &Operand, holds: &[bool]| match op {
        Operand::Special(n) => f.names.get(*n).starts_with("%ctaid"),
        Operand::Reg(r) => holds[r.index()],
        _ => false,
    };
    let mut changed = true;
    let mut rounds = 0;
    while changed && rounds < 16 {
        changed = false;
        rounds += 1;
        for (pc, &iid) in info.code.iter().enumerate() {
            let inst = &f.insts[iid];
            let mut set = |regs: &[RegId], bits: u64, taint: &mut Vec<u64>| {
                for r in regs {
                    if taint[r.index()] | bits != taint[r.index()] {
                        taint[r.index()] |= bits;
                        changed = true;
                    }
                }
            };
            let mut dst = Vec::new();
            if let Some(d) = inst.operands.first() {
                regs_of(d, &mut dst);
            }
            use Opcode::*;
            match inst.opcode {
                Ld if inst.space() == Some(StateSpace::Param) => {
                    if let Some(Operand::Address(a)) = inst.operands.get(1) {
                        if let AddrBase::Symbol(name) = a.base {
                            if let Some(k) = info.bindings.get(&(pc as u32, name)).copied().and_then(param_index) {
                                flow.loaded[k] = true;
                                let width = inst.types().next().map(|t| t.bytes() as u64).unwrap_or(8).max(1);
                                let base = a.offset.max(0) as u64;
                                match inst.operands.first() {
                                    // Each element of a vector load is its own word.
                                    Some(Operand::Vector(elems)) => {
                                        for (i, e) in elems.iter().enumerate() {
                                            let mut rs = Vec::new();
                                            regs_of(e, &mut rs);
                                            let bit = sources.bit((k, base + i as u64 * width));
                                            set(&rs, bit, &mut taint);
                                        }
                                    }
                                    _ => {
                                        let bit = sources.bit((k, base));
                                        set(&dst, bit, &mut taint);
                                    }
                                }
                            }
                        }
                    }
                }
                // The destination derives from the sources (for mad, the addend).
                Mov | Cvta | Add | Sub | Cvt | Selp | Mad => {
                    let sources: &[Operand] = match inst.opcode {
                        Mad => inst.operands.get(3..4).unwrap_or(&[]),
                        _ => inst.operands.get(1..).unwrap_or(&[]),
                    };
                    let mut bits = 0;
                    for op in sources {
                        let mut rs = Vec::new();
                        regs_of(op, &mut rs);
                        for r in rs {
                            bits |= taint[r.index()];
                        }
                    }
                    if bits != 0 {
                        set(&dst, bits, &mut taint);
                    }
                }
                // No parameter's pointer flows into the destination (other
                // loads read memory, not a parameter).
                Abs | Activemask | Addc | Alloca | And | Applypriority | Atom | Bar | Barrier | Bfe | Bfi | Bfind
                | Bmsk | Bra | Brev | Brkpt | Brx | Call | Clusterlaunchcontrol | Clz | Cnot | Copysign | Cos | Cp
                | Createpolicy | Discard | Div | Dp2a | Dp4a | Elect | Ex2 | Exit | Fence | Fma | Fns | Getctarank
                | Griddepcontrol | Isspacep | Istypep | Ld | Ldmatrix | Ldu | Lg2 | Lop3 | Mad24 | Madc | Mapa
                | Match | Max | Mbarrier | Membar | Min | Mma | Movmatrix | Mul | Mul24 | Multimem | Nanosleep
                | Neg | Not | Or | Pmevent | Popc | Prefetch | Prefetchu | Prmt | Rcp | Red | Redux | Rem | Ret
                | Rsqrt | Sad | Set | Setmaxnreg | Setp | Shf | Shfl | Shl | Shr | Sin | Slct | Sqrt | St
                | Stackrestore | Stacksave | Stmatrix | Subc | Suld | Suq | Sured | Sust | Szext | Tanh | Tcgen05
                | Tensormap | Testp | Tex | Tld4 | Trap | Txq | Vabsdiff | Vabsdiff2 | Vabsdiff4 | Vadd | Vadd2
                | Vadd4 | Vavrg2 | Vavrg4 | Vmad | Vmax | Vmax2 | Vmax4 | Vmin | Vmin2 | Vmin4 | Vote | Vset
                | Vset2 | Vset4 | Vshl | Vshr | Vsub | Vsub2 | Vsub4 | Wgmma | Wmma | Xor => {}
                Other(_) => {}
            }
            // Uses as an address, or as the source of a space conversion.
            let mut mark = |r: RegId| marked |= taint[r.index()];
            // A texture or surface handle in brackets is not a pointer.
            let handle = matches!(
                inst.opcode,
                Opcode::Tex | Opcode::Tld4 | Opcode::Txq | Opcode::Suld | Opcode::Sust | Opcode::Suq | Opcode::Sured
            );
            for op in inst.operands.iter().filter(|_| !handle) {
                if let Operand::Address(a) = op {
                    if let AddrBase::Reg(r) = a.base {
                        mark(r);
                    }
                }
            }
            if inst.opcode == Opcode::Cvta {
                if let Some(Operand::Reg(r)) = inst.operands.get(1) {
                    mark(*r);
                }
            }
            let integer = inst.types().next().is_some_and(|t| t.is_integer_like());
            if let (Opcode::Mov | Opcode::Cvt, Some(Operand::Reg(d)), Some(src)) =
                (inst.opcode, inst.operands.first(), inst.operands.get(1))
            {
                if is_ctaid(src, &holds_ctaid) && !holds_ctaid[d.index()] {
                    holds_ctaid[d.index()] = true;
                    changed = true;
                }
            }
            if let (Opcode::Add, true, Some(x), Some(y)) =
                (inst.opcode, integer, inst.operands.get(1), inst.operands.get(2))
            {
                for (a, b) in [(x, y), (y, x)] {
                    if let (true, Operand::Reg(r)) = (is_ctaid(a, &holds_ctaid), b) {
                        offsets_ctaid |= taint[r.index()];
                    }
                }
            }
            if matches!(inst.opcode, Opcode::Div | Opcode::Rem) && integer {
                if let Some(Operand::Reg(r)) = inst.operands.get(2) {
                    divides |= taint[r.index()];
                }
            }
            if inst.opcode == Opcode::Setp && integer {
                let signed = inst.types().next().is_some_and(|t| t.is_signed());
                for op in inst.operands.iter().skip(1) {
                    if let Operand::Reg(r) = op {
                        compared |= taint[r.index()];
                        if signed {
                            compared_signed |= taint[r.index()];
                        }
                    }
                }
            }
        }
    }
    for (i, &(k, offset)) in sources.0.iter().enumerate() {
        if divides & (1 << i) != 0 && offset == 0 {
            flow.divisors[k] = true;
        }
        if offsets_ctaid & (1 << i) != 0 && offset == 0 {
            flow.block_offsets[k] = true;
        }
        if compared & (1 << i) != 0 && offset == 0 {
            flow.compared[k] = Some(compared_signed & (1 << i) != 0);
        }
        if marked & (1 << i) != 0 {
            flow.params[k] = true;
            if matches!(info.params[k], Formal::Mem(_)) {
                flow.words.push((k, offset));
            }
        }
    }
    flow
}

/// (parameter, byte offset of the loaded word, multiple) for each integer
/// parameter, or word of a struct passed by value, whose value must be a
/// multiple for the accesses whose addresses it offsets to stay aligned
/// (see [`ParamSpec::multiple_of`]).
///
/// Each register carries the parameters whose values reach it (a bit per
/// source, as in [`pointer_params`], but through multiplications and
/// shifts too) and the power of two every such term is known to be scaled
/// by: `k * 16` or `k << 4` keeps any `k` 16-byte aligned, `k * 4` needs
/// `k` a multiple of 4 for a 16-byte access.
fn offset_alignment(prog: &Program<'_>, func: FuncId) -> Vec<(usize, u64, u64)> {
    let f = &prog.module.functions[func];
    let info = &prog.funcs[func.index()];
    let mut taint = vec![0u64; f.regs.len()];
    // The power of two the tainted terms of a register are multiplied by.
    let mut scale = vec![u64::MAX; f.regs.len()];
    let mut sources = TaintSources::default();
    let param_index = |b: Binding| param_of_binding(info, b);
    for (k, fm) in info.params.iter().enumerate() {
        if let Formal::Reg(r, _) = fm {
            taint[r.index()] = sources.bit((k, 0));
            scale[r.index()] = 1;
        }
    }
    let reg_of = |op: Option<&Operand>| match op {
        Some(Operand::Reg(r)) => Some(*r),
        _ => None,
    };
    let power_of_two_factor = |op: Option<&Operand>| match op {
        Some(Operand::Int(i)) if i.bits != 0 => 1u64 << i.bits.trailing_zeros().min(32),
        _ => 1,
    };
    let mut needs = 0u64;
    let mut need_of = vec![1u64; 64];
    let mut changed = true;
    let mut rounds = 0;
    while changed && rounds < 16 {
        changed = false;
        rounds += 1;
        for (pc, &iid) in info.code.iter().enumerate() {
            let inst = &f.insts[iid];
            let ops = &inst.operands;
            // (taint, scale) flowing into the destination.
            let mut flow_in: Option<(u64, u64)> = None;
            let mut merge = |bits: u64, sc: u64| {
                if bits != 0 {
                    let (b, s) = flow_in.get_or_insert((0, u64::MAX));
                    *b |= bits;
                    *s = (*s).min(sc);
                }
            };
            use Opcode::*;
            match inst.opcode {
                Ld if inst.space() == Some(StateSpace::Param) && !matches!(ops.first(), Some(Operand::Vector(_))) => {
                    if let Some(Operand::Address(a)) = ops.get(1) {
                        if let AddrBase::Symbol(name) = a.base {
                            // A scalar, or a word of a struct passed by value.
                            let k = info.bindings.get(&(pc as u32, name)).copied().and_then(param_index);
                            if let (Some(k), Ok(offset)) = (k, u64::try_from(a.offset)) {
                                merge(sources.bit((k, offset)), 1);
                            }
                        }
                    }
                }
                Mov | Cvt | Cvta | Add | Sub | Selp => {
                    for op in ops.iter().skip(1) {
                        if let Some(r) = reg_of(Some(op)) {
                            merge(taint[r.index()], scale[r.index()]);
                        }
                    }
                }
                Mul | Shl | Mad => {
                    let (x, y) = (ops.get(1), ops.get(2));
                    for (a, b) in [(x, y), (y, x)] {
                        if let Some(r) = reg_of(a) {
                            let factor = match inst.opcode {
                                Shl if a == x => match b {
                                    Some(Operand::Int(i)) => 1u64 << i.bits.min(32),
                                    _ => 1,
                                },
                                Shl => continue,
                                _ => power_of_two_factor(b),
                            };
                            merge(taint[r.index()], scale[r.index()].saturating_mul(factor));
                        }
                    }
                    if inst.opcode == Mad {
                        if let Some(r) = reg_of(ops.get(3)) {
                            merge(taint[r.index()], scale[r.index()]);
                        }
                    }
                }
                _ => {}
            }
            if let (Some((bits, sc)), Some(d)) = (flow_in, reg_of(ops.first())) {
                let (t, s) = (&mut taint[d.index()], &mut scale[d.index()]);
                if *t | bits != *t || sc < *s {
                    *t |= bits;
                    *s = (*s).min(sc);
                    changed = true;
                }
            }
            // An access: the bytes it moves at once must be aligned.
            if matches!(inst.opcode, Ld | St | Ldu | Atom | Red) && inst.space() != Some(StateSpace::Param) {
                let width = inst.vector().unwrap_or(1) as u64 * inst.types().next().map_or(1, |t| t.bytes() as u64);
                for op in ops.iter() {
                    if let Operand::Address(a) = op {
                        if let AddrBase::Reg(r) = a.base {
                            let sc = scale[r.index()];
                            let k_needs = if sc >= width { 1 } else { width / sc.max(1) };
                            let bits = taint[r.index()];
                            for (i, n) in need_of.iter_mut().enumerate() {
                                if bits & (1 << i) != 0 && k_needs > *n {
                                    *n = k_needs;
                                    needs |= 1 << i;
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    sources.0.iter().enumerate().filter(|(i, _)| needs & (1 << i) != 0).map(|(i, &(k, o))| (k, o, need_of[i])).collect()
}

/// The seed of the random stream of trial `k` of a run seeded with `seed`
/// (`ptx-interp run --seed S --trial K` reproduces trial K's inputs).
pub fn trial_seed(seed: u64, k: u32) -> u64 {
    if k == 0 {
        seed
    } else {
        crate::rng::mix(seed ^ (k as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15))
    }
}

/// The random stream of the contents of buffer `i` in trial `trial`.
fn buffer_rng(seed: u64, trial: u32, i: usize) -> SplitMix64 {
    SplitMix64::new(crate::rng::mix(trial_seed(seed, trial) ^ (i as u64 + 1).wrapping_mul(0xd1b5_4a32_d192_ed03)))
}

/// The base address of the `i`-th buffer.
pub fn buffer_base(i: usize) -> u64 {
    GLOBAL_BUFFER_BASE + i as u64 * GLOBAL_STRIDE
}

/// Edge values of an integer of `bits` bits, most telling first.
fn int_edges(bits: u32) -> Vec<u64> {
    let m = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
    let min = 1u64 << (bits - 1);
    [m, 0, min, 1, min - 1, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, min + 1, 2, 31, 32, 63, 64, 0x7f]
        .into_iter()
        .map(|v| v & m)
        .collect()
}

/// Edge values of a float, most telling first.
const FLOAT_EDGES: [f64; 10] = [-1.0, 0.0, f64::NAN, f64::INFINITY, -0.0, 1e-40, f64::NEG_INFINITY, 65504.0, 1.0, 0.1];

fn float_bits(f: f64, bits: u32) -> u64 {
    match bits {
        64 => f.to_bits(),
        32 => (f as f32).to_bits() as u64,
        _ => crate::softfloat::convert(
            f.to_bits(),
            crate::softfloat::F64,
            crate::softfloat::F16,
            crate::softfloat::Mode::NearestEven,
        ),
    }
}

/// `v`, an integer of `bits` bits that is compared, with its large
/// positive values cut below [`SIZE_LIKE_LIMIT`] (negative ones kept where
/// the comparison is signed).
fn size_like(v: u64, bits: u32, signed: bool) -> u64 {
    let negative = signed && bits <= 64 && (v >> (bits - 1)) & 1 == 1;
    if negative || v < SIZE_LIKE_LIMIT {
        v
    } else {
        v % SIZE_LIKE_LIMIT
    }
}

/// `v` as a multiple of `multiple` (an offset of aligned accesses):
/// rounded up in the tame trial (1..=100 stays nonzero), down in the others.
fn round_to_multiple(v: u64, multiple: u64, tame: bool) -> u64 {
    let m = multiple.max(1);
    if tame {
        v.div_ceil(m) * m
    } else {
        v / m * m
    }
}

/// The arguments of trial `trial` of a run seeded with `seed`.
///
/// Trial 0 is tame: buffers of small integers, scalars in 1..=100 (0 for
/// one added to `%ctaid`) or small floats, and by-value structs whose
/// 8-byte words point into a buffer. Odd trials give every scalar an edge
/// value, cycling through the
/// list (so -1, 0 and MIN come early); even trials mix small and raw random
/// values. Buffers after trial 0 hold small integers, floats in [-8, 8) or
/// random bytes.
pub fn make_args(specs: &[ParamSpec], seed: u64, trial: u32, buffer_size: usize) -> KernelArgs {
    let mut rng = SplitMix64::new(trial_seed(seed, trial));
    let tame = trial == 0;
    let mut args = KernelArgs::default();
    for (index, spec) in specs.iter().enumerate() {
        let size = spec.size as usize;
        let edge_slot = (trial as usize / 2) + index;
        let bytes = match spec.kind {
            ParamKind::Pointer => {
                let i = args.buffers.len();
                let base = buffer_base(i);
                let mut data = vec![0u8; buffer_size];
                let flavor = if tame { 0 } else { rng.below(3) };
                // Contents come from a stream of their own, so the scalars
                // do not depend on the buffer size (calibration compares
                // runs with different sizes).
                let mut rng = buffer_rng(seed, trial, i);
                match flavor {
                    // Small integers: usable as indices, counts and shifts.
                    0 => {
                        for w in data.chunks_mut(4) {
                            let v = (rng.below(101) as u32).to_le_bytes();
                            w.copy_from_slice(&v[..w.len()]);
                        }
                    }
                    // Floats in [-8, 8).
                    1 => {
                        for w in data.chunks_mut(4) {
                            let v = ((rng.below(1 << 20) as f32 / 65536.0) - 8.0).to_bits().to_le_bytes();
                            w.copy_from_slice(&v[..w.len()]);
                        }
                    }
                    _ => rng.fill(&mut data),
                }
                args.buffers.push(Buffer { name: spec.name.clone(), base, data });
                base.to_le_bytes().to_vec()
            }
            ParamKind::Int { bits, .. } => {
                let m = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
                let v = if tame {
                    // Drawn whatever it is, so the other parameters' tame
                    // values do not depend on it.
                    let small = 1 + rng.below(100);
                    if spec.block_offset {
                        0
                    } else {
                        small
                    }
                } else if trial % 2 == 1 {
                    let edges = int_edges(bits);
                    edges[edge_slot % edges.len()]
                } else if rng.below(2) == 0 {
                    rng.below(65)
                } else {
                    rng.next_u64()
                };
                let v = match spec.compared {
                    Some(signed) if !tame => size_like(v & m, bits, signed),
                    _ => v,
                };
                let v = round_to_multiple(v, spec.multiple_of, tame);
                // A divisor is never 0 (1 instead, or the multiple).
                let v = if spec.divisor && v & m == 0 { spec.multiple_of.max(1) } else { v & m };
                v.to_le_bytes()[..size.min(8)].to_vec()
            }
            ParamKind::Float { bits } => {
                let f = if tame {
                    [0.5, 1.0, 1.5, 2.0, -1.25, 3.0, 0.75, -0.5][rng.below(8) as usize]
                } else if trial % 2 == 1 {
                    FLOAT_EDGES[edge_slot % FLOAT_EDGES.len()]
                } else {
                    (rng.below(1 << 20) as f64 / (1u64 << 16) as f64) - 8.0
                };
                float_bits(f, bits).to_le_bytes()[..size.min(8)].to_vec()
            }
            // A struct whose pointer words are known: those point into a
            // fresh buffer (in every trial), the other words are small
            // integers in the tame trial (counts, bounds, offsets) and
            // random bytes otherwise.
            ParamKind::Bytes if spec.pointer_words.is_some() => {
                let words = spec.pointer_words.as_deref().unwrap_or(&[]);
                let mut b = vec![0u8; size];
                if tame {
                    for w in b.chunks_mut(4) {
                        let v = (1 + rng.below(100) as u32).to_le_bytes();
                        w.copy_from_slice(&v[..w.len()]);
                    }
                } else {
                    rng.fill(&mut b);
                }
                if !words.is_empty() {
                    let i = args.buffers.len();
                    let base = buffer_base(i);
                    let mut data = vec![0u8; buffer_size];
                    let mut rng = buffer_rng(seed, trial, i);
                    for w in data.chunks_mut(4) {
                        let v = (rng.below(101) as u32).to_le_bytes();
                        w.copy_from_slice(&v[..w.len()]);
                    }
                    args.buffers.push(Buffer { name: spec.name.clone(), base, data });
                    for (k, &o) in words.iter().enumerate() {
                        let at = o as usize;
                        if let Some(w) = b.get_mut(at..at + 8) {
                            w.copy_from_slice(&(base + 64 * k as u64).to_le_bytes());
                        }
                    }
                }
                for &(offset, multiple) in &spec.word_multiples {
                    let at = offset as usize;
                    if let Some(w) = b.get_mut(at..at + 4).filter(|_| !words.contains(&(offset & !7))) {
                        let v = u64::from(u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
                        let v = round_to_multiple(v, multiple, tame) as u32;
                        w.copy_from_slice(&v.to_le_bytes());
                    }
                }
                b
            }
            ParamKind::Bytes if tame && size >= 8 => {
                // Structs passed by value often hold pointers: in the tame
                // trial every 8-byte word points into a fresh buffer.
                let i = args.buffers.len();
                let base = buffer_base(i);
                let mut data = vec![0u8; buffer_size];
                let mut rng = buffer_rng(seed, trial, i);
                for w in data.chunks_mut(4) {
                    let v = (rng.below(101) as u32).to_le_bytes();
                    w.copy_from_slice(&v[..w.len()]);
                }
                args.buffers.push(Buffer { name: spec.name.clone(), base, data });
                let mut b = vec![0u8; size];
                for (k, w) in b.chunks_mut(8).enumerate() {
                    let v = (base + 64 * k as u64).to_le_bytes();
                    w.copy_from_slice(&v[..w.len()]);
                }
                b
            }
            ParamKind::Bytes => {
                let mut b = vec![0u8; size];
                rng.fill(&mut b);
                b
            }
        };
        let mut bytes = bytes;
        bytes.resize(size, 0);
        args.params.push(bytes);
    }
    args
}
