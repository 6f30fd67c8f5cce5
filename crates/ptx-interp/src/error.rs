//! Interpreter errors as values, and the line index used to name the source
//! line of the instruction an error comes from.
//!
//! Every way a run can stop early is an [`InterpError`]: an instruction the
//! interpreter does not model (`Unsupported`, never a guess), a malformed
//! instruction (`Invalid`), undefined or unspecified behaviour of the program
//! (`MemoryFault`, `DivideByZero`, `Undefined`), `StepLimit` for runs that do
//! not end, and `Deadlock` for barriers and warp collectives that cannot
//! complete. [`InterpError::class`] sorts them for the equivalence checker.

use std::fmt;

/// Why an interpreter run stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InterpError {
    /// An instruction (or form of one) the interpreter does not model.
    /// `opcode` is the instruction as written (`ex2.approx.f32`), `line` the
    /// 1-based source line (0 when unknown, e.g. for code a pass made).
    Unsupported {
        /// The instruction, opcode and modifiers.
        opcode: String,
        /// 1-based source line, 0 if unknown.
        line: u32,
    },
    /// An instruction whose operands do not fit its form (wrong operand
    /// count or kind, a missing mandatory rounding modifier, ...).
    Invalid {
        /// What is wrong, with the instruction.
        message: String,
        /// 1-based source line, 0 if unknown.
        line: u32,
    },
    /// An out-of-bounds, misaligned or read-only memory access.
    MemoryFault {
        /// What was accessed and why it failed.
        message: String,
        /// 1-based source line, 0 if unknown.
        line: u32,
    },
    /// Integer division or remainder by zero (an unspecified result in PTX).
    DivideByZero {
        /// 1-based source line, 0 if unknown.
        line: u32,
    },
    /// Behaviour PTX leaves undefined that the program reached (reading a
    /// shuffle source lane that does not take part, `trap`, ...).
    Undefined {
        /// What happened.
        message: String,
        /// 1-based source line, 0 if unknown.
        line: u32,
    },
    /// The launch executed more instructions than allowed.
    StepLimit {
        /// The limit that was reached.
        limit: u64,
        /// At least one in 16 of the last instructions was a synchronizing
        /// access (a volatile, relaxed or acquire load, an atomic,
        /// `nanosleep`): the threads were waiting for each other, not
        /// working through a long loop.
        spinning: bool,
    },
    /// Threads wait at a barrier or warp collective that can never complete.
    Deadlock {
        /// Who waits where.
        message: String,
    },
    /// The named function does not exist or has no body.
    NoSuchFunction {
        /// The name asked for.
        name: String,
    },
}

/// How the equivalence checker treats an error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorClass {
    /// The interpreter cannot say what the program does: the result of a
    /// check would mean nothing (`Unsupported`, `Invalid`, `NoSuchFunction`).
    CannotModel,
    /// The program itself misbehaved on this input (fault, division by zero,
    /// undefined behaviour, no termination, deadlock). A rewrite may do
    /// anything on such an input.
    ProgramFault,
}

impl InterpError {
    /// Sorts the error for the equivalence checker.
    pub fn class(&self) -> ErrorClass {
        match self {
            InterpError::Unsupported { .. } | InterpError::Invalid { .. } | InterpError::NoSuchFunction { .. } => {
                ErrorClass::CannotModel
            }
            _ => ErrorClass::ProgramFault,
        }
    }

    /// The same error with the source line replaced (used when a line is
    /// only known at the place that catches the error).
    pub fn with_line(mut self, new_line: u32) -> InterpError {
        match &mut self {
            InterpError::Unsupported { line, .. }
            | InterpError::Invalid { line, .. }
            | InterpError::MemoryFault { line, .. }
            | InterpError::DivideByZero { line }
            | InterpError::Undefined { line, .. } => *line = new_line,
            _ => {}
        }
        self
    }
}

impl fmt::Display for InterpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InterpError::Unsupported { opcode, line } => write!(f, "unsupported: {opcode} at {line}"),
            InterpError::Invalid { message, line } => write!(f, "invalid instruction at {line}: {message}"),
            InterpError::MemoryFault { message, line } => write!(f, "memory fault at {line}: {message}"),
            InterpError::DivideByZero { line } => write!(f, "integer division by zero at {line}"),
            InterpError::Undefined { message, line } => write!(f, "undefined behaviour at {line}: {message}"),
            InterpError::StepLimit { limit, spinning } => {
                write!(f, "step limit of {limit} instructions reached")?;
                if *spinning {
                    write!(f, " (spinning)")?;
                }
                Ok(())
            }
            InterpError::Deadlock { message } => write!(f, "deadlock: {message}"),
            InterpError::NoSuchFunction { name } => write!(f, "no function with a body named '{name}'"),
        }
    }
}

impl std::error::Error for InterpError {}

/// Byte offset to 1-based line number, for a module's source text.
#[derive(Clone, Debug, Default)]
pub struct LineIndex {
    starts: Vec<u32>,
}

impl LineIndex {
    /// Indexes `source`.
    pub fn new(source: &str) -> LineIndex {
        let mut starts = vec![0u32];
        for (i, b) in source.bytes().enumerate() {
            if b == b'\n' {
                starts.push((i + 1) as u32);
            }
        }
        LineIndex { starts }
    }

    /// The 1-based line of a byte offset.
    pub fn line(&self, offset: u32) -> u32 {
        match self.starts.binary_search(&offset) {
            Ok(i) => i as u32 + 1,
            Err(i) => i as u32,
        }
    }
}
