//! Fresh registers for passes.
//!
//! A pass that needs temporaries asks a [`FreshRegs`] for one register of a
//! type at a time; when the pass is done with the function, [`FreshRegs::declare`]
//! adds one `.reg` declaration per type at the top of the body
//! (`.reg .b16 %ptxopt_lr_b16_0, %ptxopt_lr_b16_1;`). Names use a prefix that
//! no existing register starts with, and are numbered in creation order, so
//! output is deterministic and never collides with the program's names.

use crate::entities::{Name, RegId};
use crate::module::{Function, RegData, RegDecl, RegDeclItem, Stmt};
use crate::types::{RegType, ScalarType};
use crate::Span;
use cranelift_entity::EntityRef;
use std::collections::BTreeMap;

/// Allocates fresh registers in one function.
#[derive(Debug)]
pub struct FreshRegs {
    base: String,
    by_type: BTreeMap<ScalarType, (Name, Vec<RegId>)>,
}

impl FreshRegs {
    /// Starts allocating in `func` with names `%ptxopt_<tag>_<type>_<n>`.
    /// If some register of the function already starts with that prefix, a
    /// longer one is chosen.
    pub fn new(func: &Function, tag: &str) -> FreshRegs {
        let mut base = format!("%ptxopt_{tag}");
        while func.regs.values().any(|r| func.names.get(r.name).starts_with(&base)) {
            base.push('_');
        }
        FreshRegs { base, by_type: BTreeMap::new() }
    }

    /// A new scalar register of type `ty`.
    pub fn make(&mut self, func: &mut Function, ty: ScalarType) -> RegId {
        let (name, regs) = self
            .by_type
            .entry(ty)
            .or_insert_with(|| (func.names.intern(&format!("{}_{}_", self.base, ty.as_str())), Vec::new()));
        let index = regs.len() as u32;
        let reg =
            func.regs.push(RegData { ty: RegType::scalar(ty), name: *name, index: Some(crate::RegIndex::new(index)) });
        regs.push(reg);
        reg
    }

    /// Forgets the registers made after the function had `len` of them
    /// (their arena entries were rolled back).
    pub fn forget_from(&mut self, len: usize) {
        for (_, regs) in self.by_type.values_mut() {
            regs.retain(|r| r.index() < len);
        }
        self.by_type.retain(|_, (_, regs)| !regs.is_empty());
    }

    /// True if no register was made.
    pub fn is_empty(&self) -> bool {
        self.by_type.is_empty()
    }

    /// Declares every register made, one `.reg` line per type, at the top of
    /// the function body (after the existing leading declarations).
    pub fn declare(self, func: &mut Function) {
        if self.by_type.is_empty() {
            return;
        }
        if !func.has_body() {
            return;
        }
        let decls: Vec<Stmt> = self
            .by_type
            .into_iter()
            .map(|(ty, (_, regs))| {
                Stmt::RegDecl(func.reg_decls.push(RegDecl {
                    ty: RegType::scalar(ty),
                    align: None,
                    items: regs.into_iter().map(|first| RegDeclItem { first, count: None }).collect(),
                    span: Span::default(),
                }))
            })
            .collect();
        let Some(body) = func.body_for_instruction_edits() else { return };
        let at = body.iter().position(|s| !matches!(s, Stmt::RegDecl(_))).unwrap_or(body.len());
        body.splice(at..at, decls);
    }
}
