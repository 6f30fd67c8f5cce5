//! Execution state and the launch: threads, frames, per-CTA and per-launch
//! memory, the scheduler that runs the threads of a CTA one after another,
//! and the rendezvous logic of barriers and warp collectives.
//!
//! Threads run sequentially: each runs until it exits or must wait (at
//! `bar.sync`, or at a warp collective such as `shfl.sync`). When no thread
//! can run, the scheduler completes every warp collective whose
//! participants all wait (the non-exited lanes of a `.sync` mask, at
//! instructions of one form), then every barrier whose participants have
//! all arrived, and lets the released threads run again.
//! This is one valid interleaving of the program, so the result is
//! deterministic; programs whose meaning depends on the interleaving (data
//! races) are checked under this one schedule only.
//!
//! So that a spin loop (a lock taken with `atom.cas`, a flag polled with
//! `ld.volatile`) can finish when the thread it waits for comes later in
//! that order, a thread yields after [`SPIN_QUANTUM`] synchronizing
//! accesses (atomics, volatile/relaxed/acquire loads, `nanosleep`) and the
//! other threads run; round by round every thread makes progress. Counting
//! those accesses rather than steps keeps the yield points where they are
//! when a rewrite changes other instructions.
//!
//! CTAs run one after another and share nothing but global memory (a CTA
//! that waits for a later CTA never finishes: step limit).

use crate::error::InterpError;
use crate::exec::{Ctx, WarpIn, WarpKind};
use crate::memory::{Segment, GLOBAL_VAR_BASE, PARAM_STACK_BASE, SPACE_BASE};
use crate::program::{Formal, Program};
use cranelift_entity::EntityRef;
use ptx_ir::{FuncId, RegId, ScalarType, StateSpace};

/// Grid and block shape and limits of a launch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchConfig {
    /// CTAs per dimension.
    pub grid: [u32; 3],
    /// Threads per CTA per dimension (a kernel's `.reqntid` overrides it,
    /// a `.maxntid` bounds it).
    pub block: [u32; 3],
    /// Instructions a whole launch may execute before `StepLimit`.
    pub step_limit: u64,
    /// Bytes of dynamic shared memory (`.extern .shared x[]`).
    pub dynamic_shared_bytes: u32,
}

impl Default for LaunchConfig {
    fn default() -> LaunchConfig {
        LaunchConfig { grid: [2, 1, 1], block: [32, 1, 1], step_limit: 4_000_000, dynamic_shared_bytes: 4096 }
    }
}

/// A global buffer: contents at a base address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Buffer {
    /// Name used in reports (the parameter it is passed in).
    pub name: String,
    /// Global address of byte 0.
    pub base: u64,
    /// Contents.
    pub data: Vec<u8>,
}

/// The arguments of a launch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KernelArgs {
    /// The bytes of each formal parameter, in order (a pointer argument
    /// holds its buffer's base address, little-endian).
    pub params: Vec<Vec<u8>>,
    /// Global buffers placed in memory before the launch.
    pub buffers: Vec<Buffer>,
}

/// What a launch leaves behind.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunOutput {
    /// The buffers after the launch, in the order given.
    pub buffers: Vec<Buffer>,
    /// Module-level `.global` variables after the launch, by name.
    pub globals: Vec<(String, Vec<u8>)>,
    /// What `printf` (`vprintf`) printed: each thread's text, in thread
    /// order (CTA by CTA).
    pub printed: String,
    /// For a device function run directly: each thread's return values
    /// (concatenated bytes), in thread order. Empty for kernels.
    pub returns: Vec<Vec<u8>>,
    /// Instructions executed.
    pub steps: u64,
    /// Distinct instructions executed (reached with any guard value).
    pub covered: usize,
    /// Instructions in the functions that were entered.
    pub total_insts: usize,
    /// Per function (module order), which instructions were reached.
    pub coverage: Vec<Vec<bool>>,
    /// Per function (module order), how many times each instruction (by its
    /// place among the body's instructions) was reached, by any thread,
    /// whatever its guard.
    pub reached: Vec<Vec<u64>>,
}

/// Where a callee's return value goes in the caller.
#[derive(Clone, Copy, Debug)]
pub(crate) enum ResultDest {
    /// Bytes at a param-space address of the caller.
    Mem(u64, u64),
    /// A register of the caller, with the type to extend by.
    Reg(RegId, ScalarType),
}

/// One activation of a function.
#[derive(Clone, Debug)]
pub(crate) struct Frame {
    pub func: FuncId,
    pub pc: usize,
    pub regs: Vec<u128>,
    pub var_addr: Vec<u64>,
    pub local_mark: usize,
    pub param_mark: usize,
    pub results: Vec<ResultDest>,
}

/// What a thread is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Status {
    Ready,
    Exited,
    /// Waiting at barrier `id`; `count` threads expected if given.
    Barrier {
        id: u32,
        count: Option<u32>,
    },
    /// Waiting at a warp collective (the instruction at its pc).
    Warp,
}

/// One thread.
#[derive(Clone, Debug)]
pub(crate) struct Thread {
    pub tid: [u32; 3],
    pub linear: u32,
    pub frames: Vec<Frame>,
    pub local: Segment,
    pub param: Segment,
    pub status: Status,
    /// The condition code carry flag (`add.cc`, `addc`, ...).
    pub carry: bool,
    /// The predicate a thread brings to `bar.red`.
    pub red_pred: bool,
    /// Return values when a device function is run directly.
    pub returned: Option<Vec<u8>>,
    /// Reads of the clock registers so far (see `CLOCK_STEP` in exec.rs).
    pub clock_reads: std::cell::Cell<u64>,
    /// Synchronizing accesses since the thread last yielded (see
    /// [`SPIN_QUANTUM`]).
    pub sync_ops: u32,
    /// What the thread printed (`vprintf`).
    pub printed: String,
}

/// Launch-wide facts an instruction may read.
#[derive(Clone, Debug)]
pub(crate) struct LaunchInfo {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub ctaid: [u32; 3],
    pub dynamic_shared: u32,
    /// Address of each static variable in its space.
    pub static_addr: Vec<u64>,
}

/// Memory shared by the whole launch.
#[derive(Clone, Debug, Default)]
pub(crate) struct LaunchMem {
    pub global: Segment,
    pub constant: Segment,
    pub kernel_param: Segment,
    /// Ranges of variables whose contents cannot be modelled: (space, start,
    /// end, why). An access there is `Unsupported`, not a fault.
    pub opaque: Vec<(StateSpace, u64, u64, String)>,
    /// Bytes stored to surfaces (`sust`): (handle, layer, z, y, x byte).
    pub surfaces: std::collections::BTreeMap<(u64, u32, u32, u32, u32), u8>,
}

/// Per-CTA state.
#[derive(Clone, Debug, Default)]
pub(crate) struct CtaState {
    pub shared: Segment,
    /// `bar.arrive` arrivals per barrier since it last completed.
    pub arrivals: [u32; 16],
}

/// Which instructions ran, per function.
#[derive(Clone, Debug, Default)]
pub(crate) struct Coverage {
    pub seen: Vec<Vec<bool>>,
    pub reached: Vec<Vec<u64>>,
}

impl Coverage {
    pub fn mark(&mut self, func: usize, pc: usize, len: usize) {
        if self.seen.len() <= func {
            self.seen.resize(func + 1, Vec::new());
            self.reached.resize(func + 1, Vec::new());
        }
        let (v, n) = (&mut self.seen[func], &mut self.reached[func]);
        if v.len() < len {
            v.resize(len, false);
            n.resize(len, 0);
        }
        if let Some(b) = v.get_mut(pc) {
            *b = true;
            n[pc] += 1;
        }
    }
}

/// Deepest call nesting allowed.
pub(crate) const MAX_CALL_DEPTH: usize = 512;

/// Runs `func` (a kernel, or a device function run as if it were one) with
/// `args` on the grid of `cfg`.
pub fn run_function(
    prog: &Program<'_>,
    func: FuncId,
    args: &KernelArgs,
    cfg: &LaunchConfig,
) -> Result<RunOutput, InterpError> {
    let f = &prog.module.functions[func];
    if !f.has_body() {
        return Err(InterpError::NoSuchFunction { name: f.name.clone() });
    }
    let info = &prog.funcs[func.index()];
    let mut block = info.reqntid.unwrap_or(cfg.block);
    if let Some(max) = info.maxntid {
        let limit = max.iter().map(|&d| d.max(1) as u64).product::<u64>();
        while block.iter().map(|&d| d.max(1) as u64).product::<u64>() > limit && block[0] > 1 {
            block[0] /= 2;
        }
    }
    let threads_per_cta = block.iter().map(|&d| d.max(1) as u64).product::<u64>();
    let ctas = cfg.grid.iter().map(|&d| d.max(1) as u64).product::<u64>();
    if threads_per_cta > 1024 || ctas > 1024 {
        return Err(InterpError::Invalid {
            message: format!("launch of {ctas} CTAs of {threads_per_cta} threads is too large for the interpreter"),
            line: 0,
        });
    }
    if cfg.dynamic_shared_bytes as u64 > crate::memory::MAX_VARIABLE_BYTES
        || args.buffers.iter().any(|b| b.data.len() as u64 > crate::memory::MAX_VARIABLE_BYTES)
    {
        return Err(InterpError::Invalid {
            message: "a buffer or the dynamic shared memory is too large".into(),
            line: 0,
        });
    }
    let is_kernel = crate::program::is_kernel(f);
    if args.params.len() != info.params.len() {
        return Err(InterpError::Invalid {
            message: format!("{} takes {} parameters, {} given", f.name, info.params.len(), args.params.len()),
            line: 0,
        });
    }

    // Launch memory: buffers, static variables, kernel parameters.
    let mut mem = LaunchMem::default();
    for b in &args.buffers {
        mem.global.add_at(b.base, b.data.clone(), &b.name, false);
    }
    let mut static_addr = vec![0u64; prog.statics.len()];
    let mut shared_layout: Vec<(usize, u64, u64)> = Vec::new();
    let mut shared_end = SPACE_BASE;
    let mut dynamic_vars = Vec::new();
    // Module-scope `.local` variables: the same addresses in every thread's
    // local memory, below its frames.
    let mut local_layout: Vec<(usize, u64, u64)> = Vec::new();
    let mut local_end = SPACE_BASE;
    // Shared variables of functions the kernel cannot run take no space,
    // so unrelated kernels do not move this one's shared addresses.
    let reachable = prog.reachable(func);
    for (i, s) in prog.statics.iter().enumerate() {
        if s.space == StateSpace::Shared && s.owner.is_some_and(|o| !reachable[o.index()]) {
            continue;
        }
        match s.space {
            StateSpace::Global | StateSpace::Const => {
                let seg = if s.space == StateSpace::Global { &mut mem.global } else { &mut mem.constant };
                let floor = if s.space == StateSpace::Global { GLOBAL_VAR_BASE } else { SPACE_BASE };
                let base = seg.next_base(floor, s.align.max(16));
                let base = if s.space == StateSpace::Global {
                    // Keep module variables below the buffers.
                    base.max(GLOBAL_VAR_BASE)
                } else {
                    base
                };
                match &s.init {
                    Ok(bytes) => {
                        seg.add_at(base, bytes.clone(), &s.name, s.space == StateSpace::Const);
                    }
                    Err(why) => {
                        // Reserve the range so later variables do not overlap it.
                        seg.add_at(base, Vec::new(), &s.name, true);
                        mem.opaque.push((s.space, base, base + s.size.max(1), format!("{}: {why}", s.name)));
                    }
                }
                static_addr[i] = base;
            }
            StateSpace::Local => {
                let base = local_end.div_ceil(s.align.max(16)) * s.align.max(16);
                local_layout.push((i, base, s.size));
                static_addr[i] = base;
                local_end = base + s.size + 256;
            }
            StateSpace::Shared => {
                if s.dynamic {
                    dynamic_vars.push(i);
                } else {
                    let base = shared_end.div_ceil(s.align.max(16)) * s.align.max(16);
                    shared_layout.push((i, base, s.size));
                    shared_end = base + s.size + 256;
                }
            }
            _ => {}
        }
    }
    let dynamic_base = shared_end.div_ceil(256) * 256;
    for &i in &dynamic_vars {
        static_addr[i] = dynamic_base;
    }
    for &(i, base, _) in &shared_layout {
        static_addr[i] = base;
    }

    // Kernel parameters live in the launch's param memory.
    let mut kernel_param_addr = Vec::new();
    if is_kernel {
        for (k, formal) in info.params.iter().enumerate() {
            let Formal::Mem(v) = formal else {
                return Err(InterpError::Invalid {
                    message: "kernel parameter that is not in .param space".into(),
                    line: 0,
                });
            };
            let var = &info.frame_vars[*v];
            let mut bytes = args.params[k].clone();
            bytes.resize(var.size as usize, 0);
            let base = mem.kernel_param.next_base(SPACE_BASE, var.align.max(8));
            mem.kernel_param.add_at(base, bytes, &var.name, true);
            kernel_param_addr.push((*v, base));
        }
    }

    let mut out = RunOutput::default();
    let mut coverage = Coverage::default();
    let mut steps = StepCount::default();
    for cz in 0..cfg.grid[2].max(1) {
        for cy in 0..cfg.grid[1].max(1) {
            for cx in 0..cfg.grid[0].max(1) {
                let launch = LaunchInfo {
                    grid: [cfg.grid[0].max(1), cfg.grid[1].max(1), cfg.grid[2].max(1)],
                    block: [block[0].max(1), block[1].max(1), block[2].max(1)],
                    ctaid: [cx, cy, cz],
                    dynamic_shared: cfg.dynamic_shared_bytes,
                    static_addr: static_addr.clone(),
                };
                let mut cta = CtaState::default();
                for &(i, base, size) in &shared_layout {
                    cta.shared.add_at(base, vec![0; size as usize], &prog.statics[i].name, false);
                }
                if !dynamic_vars.is_empty() {
                    cta.shared.add_at(
                        dynamic_base,
                        vec![0; cfg.dynamic_shared_bytes as usize],
                        "dynamic shared memory",
                        false,
                    );
                }
                let mut threads = Vec::new();
                for tz in 0..launch.block[2] {
                    for ty in 0..launch.block[1] {
                        for tx in 0..launch.block[0] {
                            let linear = tx + ty * launch.block[0] + tz * launch.block[0] * launch.block[1];
                            let mut local = Segment::new();
                            for &(i, base, size) in &local_layout {
                                local.add_at(base, vec![0; size as usize], &prog.statics[i].name, false);
                            }
                            threads.push(Thread {
                                tid: [tx, ty, tz],
                                linear,
                                frames: Vec::new(),
                                local,
                                param: Segment::new(),
                                status: Status::Ready,
                                carry: false,
                                red_pred: false,
                                returned: None,
                                clock_reads: Default::default(),
                                sync_ops: 0,
                                printed: String::new(),
                            });
                        }
                    }
                }
                for t in threads.iter_mut() {
                    let mut ctx =
                        Ctx { prog, mem: &mut mem, cta: &mut cta, thread: t, launch: &launch, coverage: &mut coverage };
                    ctx.enter(func, &args.params, &kernel_param_addr, Vec::new())?;
                }
                run_cta(prog, &mut mem, &mut cta, &mut threads, &launch, &mut coverage, &mut steps, cfg.step_limit)?;
                // In thread order, whatever order the threads ran in (CUDA
                // promises none; this way the text does not depend on it).
                for t in &threads {
                    out.printed.push_str(&t.printed);
                }
                if !is_kernel {
                    for t in &threads {
                        out.returns.push(t.returned.clone().unwrap_or_default());
                    }
                }
            }
        }
    }

    for b in &args.buffers {
        let data = mem.global.read(b.base, b.data.len() as u64).map(|d| d.to_vec()).unwrap_or_default();
        out.buffers.push(Buffer { name: b.name.clone(), base: b.base, data });
    }
    for (i, s) in prog.statics.iter().enumerate() {
        if s.module_level && s.space == StateSpace::Global && s.init.is_ok() {
            let data = mem.global.read(static_addr[i], s.size).map(|d| d.to_vec()).unwrap_or_default();
            out.globals.push((s.name.clone(), data));
        }
    }
    // Surface stores are output too: (handle, layer, z, y, x, byte) records.
    if !mem.surfaces.is_empty() {
        let mut bytes = Vec::with_capacity(mem.surfaces.len() * 25);
        for (&(h, l, z, y, x), &b) in &mem.surfaces {
            bytes.extend(h.to_le_bytes());
            for c in [l, z, y, x] {
                bytes.extend(c.to_le_bytes());
            }
            bytes.push(b);
        }
        out.globals.push(("surface stores".into(), bytes));
    }
    out.steps = steps.total;
    out.covered = coverage.seen.iter().map(|v| v.iter().filter(|&&b| b).count()).sum();
    out.total_insts = coverage
        .seen
        .iter()
        .enumerate()
        .filter(|(_, v)| v.iter().any(|&b| b))
        .map(|(i, _)| prog.funcs[i].code.len())
        .sum();
    out.coverage = coverage.seen;
    out.reached = coverage.reached;
    Ok(out)
}

/// Runs the threads of one CTA to completion.
#[allow(clippy::too_many_arguments)]
fn run_cta(
    prog: &Program<'_>,
    mem: &mut LaunchMem,
    cta: &mut CtaState,
    threads: &mut [Thread],
    launch: &LaunchInfo,
    coverage: &mut Coverage,
    steps: &mut StepCount,
    limit: u64,
) -> Result<(), InterpError> {
    loop {
        let mut preempted = false;
        for t in threads.iter_mut() {
            let mut ctx = Ctx { prog, mem, cta, thread: t, launch, coverage };
            while ctx.thread.status == Status::Ready {
                let sync = at_sync_point(prog, ctx.thread);
                steps.count(sync);
                if steps.total > limit {
                    return Err(InterpError::StepLimit { limit, spinning: steps.spinning() });
                }
                ctx.step()?;
                if sync && ctx.thread.status == Status::Ready {
                    ctx.thread.sync_ops += 1;
                    if ctx.thread.sync_ops >= SPIN_QUANTUM {
                        ctx.thread.sync_ops = 0;
                        preempted = true;
                        break;
                    }
                }
            }
        }
        if threads.iter().all(|t| t.status == Status::Exited) {
            return Ok(());
        }
        if resolve_warp_collectives(prog, mem, cta, threads, launch, coverage)? {
            continue;
        }
        if release_barriers(prog, mem, cta, threads, launch, coverage)? {
            continue;
        }
        if preempted {
            continue;
        }
        let waiting: Vec<String> = threads
            .iter()
            .filter(|t| t.status != Status::Exited)
            .take(8)
            .map(|t| {
                let at = t.frames.last().map(|f| {
                    let func = &prog.module.functions[f.func];
                    let line =
                        prog.funcs[f.func.index()].code.get(f.pc).map(|&i| prog.line_of(&func.insts[i])).unwrap_or(0);
                    format!("line {line}")
                });
                format!("thread {} {:?} at {}", t.linear, t.status, at.unwrap_or_default())
            })
            .collect();
        return Err(InterpError::Deadlock { message: waiting.join(", ") });
    }
}

/// The instructions a launch has executed, and how many of the recent
/// ones were synchronizing accesses (halved every [`StepCount::WINDOW`]
/// steps, so old history fades).
#[derive(Default)]
struct StepCount {
    total: u64,
    recent: u64,
    recent_sync: u64,
}

impl StepCount {
    const WINDOW: u64 = 1 << 16;

    fn count(&mut self, sync: bool) {
        self.total += 1;
        self.recent += 1;
        self.recent_sync += sync as u64;
        if self.recent >= Self::WINDOW {
            self.recent /= 2;
            self.recent_sync /= 2;
        }
    }

    /// A spin loop is a synchronizing load, a compare and a branch (one
    /// in three or four); a long loop of work makes few or none.
    fn spinning(&self) -> bool {
        self.recent_sync * 16 >= self.recent
    }
}

/// Synchronizing accesses a thread may make before it yields to the
/// other threads of its CTA (the scheduling model: see `run_cta`).
pub(crate) const SPIN_QUANTUM: u32 = 64;

/// True if the thread's next instruction is a synchronizing access: an
/// atomic, a volatile, relaxed or acquire load, or `nanosleep`. A spin
/// loop makes one each time round, so counting them (not steps) bounds a
/// spin, and the yield points do not move when a rewrite changes other
/// instructions.
fn at_sync_point(prog: &Program<'_>, t: &Thread) -> bool {
    use ptx_ir::{Opcode, Word};
    let Some(f) = t.frames.last() else { return false };
    let Some(&iid) = prog.funcs[f.func.index()].code.get(f.pc) else { return false };
    let inst = &prog.module.functions[f.func].insts[iid];
    match inst.opcode {
        Opcode::Atom | Opcode::Nanosleep => true,
        Opcode::Ld => inst.has_word(Word::VOLATILE) || inst.has_word(Word::RELAXED) || inst.has_word(Word::ACQUIRE),
        _ => false,
    }
}

/// The (function, pc) a waiting thread stands at.
fn position(t: &Thread) -> Option<(FuncId, usize, usize)> {
    t.frames.last().map(|f| (f.func, f.pc, t.frames.len()))
}

/// Completes the warp collectives whose participants are all waiting.
/// Returns true if any completed.
///
/// A `.sync` collective (membermask operand) waits for the non-exited
/// lanes its mask names (lanes past the end of a partial warp count as
/// exited) that execute the same opcode with the same qualifiers: on
/// sm_70 and later the lanes of a divergent warp may meet at different
/// instructions (before sm_70 they must meet at one). A collective without a mask (`activemask`, `vote` and
/// `shfl` without `.sync`) and a tensor-core one gather the lanes waiting
/// at the same instruction.
fn resolve_warp_collectives(
    prog: &Program<'_>,
    mem: &mut LaunchMem,
    cta: &mut CtaState,
    threads: &mut [Thread],
    launch: &LaunchInfo,
    coverage: &mut Coverage,
) -> Result<bool, InterpError> {
    /// What the lanes of one collective share.
    #[derive(PartialEq)]
    enum Meeting<'m> {
        Instruction((FuncId, usize, usize)),
        Form(ptx_ir::Opcode, &'m ptx_ir::Modifiers),
    }
    /// A collective being gathered: where, its lanes (a mask), their inputs.
    type Gathering<'m> = (Meeting<'m>, u32, Vec<(usize, WarpIn)>);
    let before_sm_70 = prog.targets_before_sm_70();
    let mut progress = false;
    let nwarps = threads.len().div_ceil(32);
    for w in 0..nwarps {
        let lo = w * 32;
        let hi = (lo + 32).min(threads.len());
        let live = threads[lo..hi]
            .iter()
            .enumerate()
            .filter(|(_, t)| t.status != Status::Exited)
            .fold(0u32, |m, (i, _)| m | 1 << i);
        // Every waiting lane's inputs, grouped by where they meet.
        let mut groups: Vec<Gathering<'_>> = Vec::new();
        for lane in 0..hi - lo {
            let t = &mut threads[lo + lane];
            if t.status != Status::Warp {
                continue;
            }
            let Some(pos) = position(t) else { continue };
            let ctx = Ctx { prog, mem, cta, thread: t, launch, coverage };
            let input = ctx.warp_input()?;
            let one_instruction = input.implicit || matches!(input.kind, WarpKind::Tensor(_)) || before_sm_70;
            let meeting = if one_instruction {
                Meeting::Instruction(pos)
            } else {
                let inst = &prog.module.functions[pos.0].insts[prog.funcs[pos.0.index()].code[pos.1]];
                Meeting::Form(inst.opcode, &inst.modifiers)
            };
            match groups.iter_mut().find(|(m, _, _)| *m == meeting) {
                Some((_, members, inputs)) => {
                    *members |= 1 << lane;
                    inputs.push((lane, input));
                }
                None => groups.push((meeting, 1 << lane, vec![(lane, input)])),
            }
        }
        for (_, members, mut inputs) in groups {
            for (_, input) in &mut inputs {
                if input.implicit {
                    input.mask = members;
                }
            }
            // Every live lane a member names must be waiting with it.
            if inputs.iter().any(|(_, inp)| inp.mask & live & !members != 0) {
                continue;
            }
            let outs = crate::exec::warp_compute(&inputs, members, (hi - lo) as u32).map_err(|message| {
                InterpError::Undefined { message, line: inputs.first().map(|i| i.1.line).unwrap_or(0) }
            })?;
            for (lane, out) in outs {
                let t = &mut threads[lo + lane];
                let mut ctx = Ctx { prog, mem, cta, thread: t, launch, coverage };
                ctx.warp_finish(out)?;
            }
            progress = true;
        }
    }
    Ok(progress)
}

/// Releases every barrier whose participants have all arrived.
fn release_barriers(
    prog: &Program<'_>,
    mem: &mut LaunchMem,
    cta: &mut CtaState,
    threads: &mut [Thread],
    launch: &LaunchInfo,
    coverage: &mut Coverage,
) -> Result<bool, InterpError> {
    let live = threads.iter().filter(|t| t.status != Status::Exited).count() as u32;
    let mut progress = false;
    for id in 0..16u32 {
        let waiting: Vec<usize> = threads
            .iter()
            .enumerate()
            .filter(|(_, t)| matches!(t.status, Status::Barrier { id: b, .. } if b == id))
            .map(|(i, _)| i)
            .collect();
        if waiting.is_empty() {
            continue;
        }
        let count = threads[waiting[0]].status;
        let expected = match count {
            Status::Barrier { count: Some(c), .. } => c,
            _ => live,
        };
        let arrived = waiting.len() as u32 + cta.arrivals[id as usize];
        if arrived < expected {
            continue;
        }
        cta.arrivals[id as usize] = 0;
        let popc = waiting.iter().filter(|&&i| threads[i].red_pred).count() as u32;
        let all = popc == waiting.len() as u32;
        let any = popc > 0;
        for &i in &waiting {
            let t = &mut threads[i];
            let mut ctx = Ctx { prog, mem, cta, thread: t, launch, coverage };
            ctx.barrier_finish(popc, all, any)?;
        }
        progress = true;
    }
    Ok(progress)
}

/// Addresses for a new frame's variables; used by `Ctx::enter`.
pub(crate) fn frame_floor(space: StateSpace) -> u64 {
    match space {
        StateSpace::Param => PARAM_STACK_BASE,
        _ => SPACE_BASE,
    }
}
