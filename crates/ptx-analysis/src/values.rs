//! Value queries: what a register holds at a point, in the terms a rewrite
//! needs. Every pass asks these instead of reading reaching definitions
//! itself, so the safety rules live (and are tested) in one place.
//!
//! - [`Values::sole_def`]: the one definition of a register that reaches a
//!   point, when it is an unguarded instruction that writes the whole
//!   register (not a guarded, partial — `%v.x`, `%r.b0` — or possible write,
//!   not the entry value, not one of several from different paths).
//! - [`Values::producer`] / [`Values::producer_as`]: the same, when the
//!   register is that instruction's result (operand 0), optionally viewed as
//!   a kind of instruction (`Inst::as_prmt`, `Inst::as_cvt`, ...).
//! - [`Values::forwardable`] / [`Values::operands_unchanged`]: whether the
//!   sources of a definition still hold, at a later point, the values the
//!   definition read, so the definition's computation can be redone there
//!   (or its sources read directly).
//! - [`Values::known_value`]: the constant an operand holds: an immediate,
//!   or a register every reaching definition of which is an unguarded `mov`
//!   of the same immediate.
//! - [`Values::defs_reaching`]: the instructions whose write may be the
//!   value read (candidates for dead-code removal once a rewrite stops
//!   reading it).
//!
//! All answers are about the function the [`DefUse`] was built on; a pass
//! asks them before it changes anything.

use crate::defuse::{DefSite, DefUse};
use ptx_ir::{Access, Function, Inst, InstId, Operand, RegId, ScalarType};

/// Value queries over one function and its def-use chains.
#[derive(Clone, Copy)]
pub struct Values<'a> {
    func: &'a Function,
    du: Chains<'a>,
}

/// The def-use chains the queries read: given, or built by the function's
/// analysis cache on the first query that needs them (a query about the
/// instruction alone builds nothing).
#[derive(Clone, Copy)]
enum Chains<'a> {
    Built(&'a DefUse),
    Cached(&'a crate::FunctionAnalyses),
}

impl<'a> Values<'a> {
    /// Queries over `func`, whose def-use chains are `du`.
    pub fn new(func: &'a Function, du: &'a DefUse) -> Values<'a> {
        Values { func, du: Chains::Built(du) }
    }

    /// Queries over `func` whose chains `analyses` builds when a query
    /// first needs them.
    pub(crate) fn cached(func: &'a Function, analyses: &'a crate::FunctionAnalyses) -> Values<'a> {
        Values { func, du: Chains::Cached(analyses) }
    }

    fn du(&self) -> &'a DefUse {
        match self.du {
            Chains::Built(du) => du,
            Chains::Cached(analyses) => analyses.def_use(self.func),
        }
    }

    /// The function the queries are about.
    pub fn function(&self) -> &'a Function {
        self.func
    }

    /// The instruction `id`.
    pub fn inst(&self, id: InstId) -> &'a Inst {
        &self.func.insts[id]
    }

    /// The one definition of `reg` that reaches the point just before `at`,
    /// if it is an unguarded instruction writing the whole register. None
    /// when several definitions may reach (two branches, a loop-carried
    /// value), when the entry value may reach, or when the definition is
    /// guarded, partial (`%v.x`, `%r.b0`) or only possible (an unknown
    /// instruction).
    pub fn sole_def(&self, at: InstId, reg: RegId) -> Option<InstId> {
        let defs = self.du().reaching_defs(at, reg);
        let [site @ DefSite::Inst(def, _)] = defs.as_ref() else { return None };
        (self.du().kills(*site) && self.func.insts[*def].guard.is_none()).then_some(*def)
    }

    /// [`sole_def`](Self::sole_def) when `reg` is that instruction's result,
    /// its operand 0 written as the plain register: `reg` holds just before
    /// `at` what the instruction computed.
    pub fn producer(&self, at: InstId, reg: RegId) -> Option<InstId> {
        let def = self.sole_def(at, reg)?;
        (self.func.insts[def].operands.first() == Some(&Operand::Reg(reg))).then_some(def)
    }

    /// The [`producer`](Self::producer) of an operand that is a plain
    /// register, viewed as one kind of instruction:
    /// `values.producer_as(at, op, Inst::as_prmt)`.
    pub fn producer_as<V>(
        &self,
        at: InstId,
        op: &Operand,
        view: impl FnOnce(&'a Inst) -> Option<V>,
    ) -> Option<(InstId, V)> {
        let def = self.producer(at, op.as_reg()?)?;
        view(&self.func.insts[def]).map(|v| (def, v))
    }

    /// True if `reg` holds just before `to` the value it held when `from`
    /// read it: `from` does not write `reg`, and no write of `reg` (of any
    /// kind) can happen on a path from `from` to `to` (which `from` must
    /// dominate; see [`DefUse::value_unchanged_between`]).
    pub fn unchanged_between(&self, reg: RegId, from: InstId, to: InstId) -> bool {
        !self.writes(from, reg) && self.du().value_unchanged_between(reg, from, to)
    }

    /// True if every operand of `sources` (operands of `def`) holds at `to`
    /// the value `def` read: immediates always do, plain registers when
    /// [`unchanged_between`](Self::unchanged_between) `def` and `to`; any
    /// other operand (an address, a special register, a vector) does not
    /// count as unchanged.
    pub fn operands_unchanged(&self, def: InstId, to: InstId, sources: &[&Operand]) -> bool {
        sources.iter().all(|op| match op {
            Operand::Int(_) | Operand::Float(_) => true,
            Operand::Reg(r) => self.unchanged_between(*r, def, to),
            _ => false,
        })
    }

    /// True if `def` can be forwarded to `to`: every operand it reads (all
    /// but its result, operand 0) holds at `to` the value `def` read, so
    /// `def`'s computation gives the same result there.
    pub fn forwardable(&self, def: InstId, to: InstId) -> bool {
        let inst = &self.func.insts[def];
        let sources: Vec<&Operand> = inst.operands.iter().skip(1).collect();
        inst.guard.is_none() && self.operands_unchanged(def, to, &sources)
    }

    /// The known value of `op` just before `at`: an integer immediate, or a
    /// register whose every reaching definition is an unguarded `mov` of an
    /// integer immediate (integer, bit or predicate type, truncated to it),
    /// all of the same value. A guarded definition, the entry value, a load
    /// or anything else makes it unknown. The bits, zero-extended to 64.
    pub fn known_value(&self, at: InstId, op: &Operand) -> Option<u64> {
        match op {
            Operand::Int(i) => Some(i.bits),
            Operand::Reg(r) => self.known_reg(at, *r),
            _ => None,
        }
    }

    /// [`known_value`](Self::known_value) as an operand of type `ty`: the
    /// low `ty.bits()` bits (an immediate is read at the instruction's width,
    /// as ptxas does).
    pub fn known_value_as(&self, at: InstId, op: &Operand, ty: ScalarType) -> Option<u64> {
        let bits = ty.bits();
        self.known_value(at, op).map(|v| if bits >= 64 { v } else { v & ((1u64 << bits) - 1) })
    }

    /// [`known_value`](Self::known_value) of a register.
    pub fn known_reg(&self, at: InstId, reg: RegId) -> Option<u64> {
        let unguarded = self.du().reaching_defs(at, reg).iter().all(|d| match d {
            DefSite::Inst(i, _) => self.func.insts[*i].guard.is_none(),
            DefSite::Entry(_) => false,
        });
        if !unguarded {
            return None;
        }
        self.du().known_constant(at, reg)
    }

    /// The instructions whose write of `reg` may be the value read just
    /// before `at`, in body order.
    pub fn defs_reaching(&self, at: InstId, reg: RegId) -> Vec<InstId> {
        self.du().reaching_defs(at, reg).iter().filter_map(|d| d.inst()).collect()
    }

    /// The instructions whose writes may reach the registers `at` reads in
    /// its operands (not its guard).
    pub fn feeding(&self, at: InstId) -> Vec<InstId> {
        let mut out = Vec::new();
        self.func.insts[at].for_each_reg_access(|_, r, access| {
            if access != Access::Def {
                out.extend(self.defs_reaching(at, r));
            }
        });
        out
    }

    /// The instructions that read the value `def` writes to `reg` (each
    /// once, in body order).
    pub fn readers(&self, def: InstId, reg: RegId) -> Vec<InstId> {
        let mut out: Vec<InstId> = self.du().uses_of(DefSite::Inst(def, reg)).iter().map(|u| u.inst).collect();
        out.dedup();
        out
    }

    fn writes(&self, inst: InstId, reg: RegId) -> bool {
        self.du().defs_of_inst(inst).any(|d| d.reg() == reg)
    }
}
