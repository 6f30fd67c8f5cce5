//! Opcodes: which operands an instruction writes, whether it has effects
//! beyond its results, and what it does to control flow.
//!
//! All of it comes from the description of the instruction set
//! (`crates/ptx-isa/isa/*.ptxisa`): the [`Opcode`] enum, the [`OPCODES`]
//! table (each opcode's `opcode` line) and the functions that give an
//! instruction the operand shape and effects of its form (`@shape`,
//! `@effects` of its syntax block, decided by its words) are generated into
//! `generated/opcodes.rs` (`PTX_ISA_UPDATE=1 cargo test -p ptx-isa --test
//! generated`). An opcode the description does not know still parses and
//! prints (as [`Opcode::Other`]) and is treated conservatively: every
//! register operand may be read and written, and it has side effects (but
//! it does not end a basic block).

pub use crate::generated::opcodes::{Opcode, OPCODES};
use crate::inst::{Access, Inst};
pub use ptx_isa::{Control, Effects, Shape};
use std::fmt;

/// The access of register operands at operand position `i` (outside
/// addresses) of an instruction of this shape.
pub fn role(shape: Shape, i: usize) -> Access {
    match shape {
        Shape::Dst1 | Shape::Call if i == 0 => Access::Def,
        Shape::Accumulate if i == 0 => Access::UseDef,
        Shape::Unknown => Access::UseMayDef,
        _ => Access::Use,
    }
}

/// One line of the opcode table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpcodeInfo {
    /// The opcode.
    pub opcode: Opcode,
    /// Its name (`ld`).
    pub name: &'static str,
    /// Which operands it writes, unless its form says otherwise ([`operand_shape`]).
    pub shape: Shape,
    /// Whether it matters beyond its results, unless its form says otherwise ([`effects`]).
    pub effects: Effects,
    /// What it does to control flow.
    pub control: Control,
}

impl Opcode {
    /// The opcode's name, or None for [`Opcode::Other`] (whose name
    /// lives in the function's name table).
    pub fn known_name(self) -> Option<&'static str> {
        self.info().map(|i| i.name)
    }

    /// The opcode's line of the table, or None for [`Opcode::Other`].
    pub fn info(self) -> Option<OpcodeInfo> {
        self.index().map(|i| OPCODES[i])
    }

    /// True if the table knows this opcode.
    pub fn is_known(self) -> bool {
        !matches!(self, Opcode::Other(_))
    }

    /// The control-flow class; [`Control::Falls`] for [`Opcode::Other`].
    pub fn control(self) -> Control {
        self.info().map_or(Control::Falls, |i| i.control)
    }
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.known_name().unwrap_or("<other>"))
    }
}

/// True if a module whose `.version` is `version` (major, minor) is newer
/// than the PTX ISA text the description was written from
/// ([`ptx_isa::Isa::described`]): its instructions may carry words of a
/// later text. The parser makes an instruction with a word the description
/// does not have an [`Opcode::Other`] there (unless its opcode transfers
/// control), so nothing reads it as a form it may not be.
pub fn newer_than_description(version: (u32, u32)) -> bool {
    version.0.saturating_mul(10).saturating_add(version.1) > ptx_isa::ISA.described
}

/// True if `inst` (of `func`) is an opcode the description knows that the
/// parser made unknown because no form of it has its words (a word of a
/// later ISA text, or known words in a later combination:
/// [`newer_than_description`]): an instruction of a later `.version` than
/// the description's.
pub fn is_later_form(func: &crate::Function, inst: &Inst) -> bool {
    matches!(inst.opcode, Opcode::Other(op) if Opcode::from_name(func.names.opcode(op)).is_some())
}

/// True if `inst`, in a module of `.version` `version`, is taken as an
/// instruction of a later PTX ISA than the description's: the module is
/// [`newer_than_description`], and the instruction is a [`is_later_form`]
/// or an opcode the description does not know at all (`fabric.submit`, PTX
/// ISA 9.3). Kept as written and treated as every [`Opcode::Other`] is;
/// ptxas judges it.
pub fn is_of_later_isa(version: (u32, u32), inst: &Inst) -> bool {
    newer_than_description(version) && matches!(inst.opcode, Opcode::Other(_))
}

/// The operand shape of an instruction: its form's (an opcode whose forms
/// differ, as `mbarrier.init` and `mbarrier.arrive`, is told apart by its
/// words); [`Shape::Unknown`] for an opcode the description does not know.
pub fn operand_shape(inst: &Inst) -> Shape {
    crate::generated::opcodes::form_shape(inst)
}

/// Whether the instruction has effects beyond writing its results: its
/// form's (carry-flag arithmetic `.cc` writes the hidden carry register;
/// `ld.volatile`, `.relaxed`, `.acquire`, `.mmio` order memory).
pub fn effects(inst: &Inst) -> Effects {
    crate::generated::opcodes::form_effects(inst)
}

/// True unless the instruction is [`Effects::Pure`].
pub fn has_side_effects(inst: &Inst) -> bool {
    effects(inst) != Effects::Pure
}
