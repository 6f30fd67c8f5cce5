//! An instruction against the forms of the description (`ptx_isa`): which
//! form it is, which word fills which modifier slot, which operand is
//! which. The verifier checks an instruction through this (adding what
//! needs the function: register types, state spaces); the generated typed
//! views of each family ([`crate::family`]) read an instruction through
//! [`FormView`].
//!
//! ptxas reads an instruction's modifiers as a set, in any order
//! (`add.s32.sat`, `ld.global.v4.nc.f32`, `cvt.f32.rn.s32` are accepted),
//! a word written twice as once (`add.sat.sat.s32`), and ignores some words
//! it knows from other instructions (`or.infinite.b32`: the opcode's
//! `ignored` words of the description). Only the instruction types keep
//! their order (`cvt.f32.s32` is not `cvt.s32.f32`). So a form matches when
//! each word can be given a slot that takes it, every required slot is
//! filled, the slots of a `{.sem.scope}` group are all filled or all empty,
//! and the types fill type slots in the form's order.

use crate::inst::{Inst, Modifier, Operand};
use ptx_isa::model::{Form, Isa, Presence, WordId};
use smallvec::SmallVec;

/// An instruction's modifiers as words of the description: (word, is a
/// type), in source order, the opcode's ignored words left out.
#[derive(Clone, Debug, Default)]
pub struct Words {
    /// (word, is a type), in source order.
    pub words: SmallVec<[(WordId, bool); 8]>,
}

impl Words {
    /// The modifiers of `inst` as words of `isa`; None if one is not a word
    /// of the vocabulary (`Modifier::Other`).
    pub fn of(isa: &Isa, inst: &Inst) -> Option<Words> {
        Words::of_modifiers(isa, inst.opcode, &inst.modifiers)
    }

    /// The words of `modifiers` on `opcode` (see [`Words::of`]).
    pub fn of_modifiers(isa: &Isa, opcode: crate::Opcode, modifiers: &crate::Modifiers) -> Option<Words> {
        let index = opcode.index()?;
        let ignored = isa.opcodes.get(index)?.ignored;
        let same_vocabulary = std::ptr::eq(isa.words, ptx_isa::WORDS);
        let mut words = SmallVec::new();
        for m in modifiers {
            let word = m.word()?;
            let id = if same_vocabulary { word.index() } else { isa.word_id(word.as_str())? };
            if ignored.binary_search(&id).is_ok() {
                continue;
            }
            let is_type = matches!(m, crate::Modifier::Type(_));
            words.push((id, is_type));
        }
        Some(Words { words })
    }

    /// True if `word` is among them.
    pub fn has(&self, word: WordId) -> bool {
        self.words.iter().any(|&(w, _)| w == word)
    }
}

/// The word each slot of a form holds (None: empty).
pub type Filled = SmallVec<[Option<WordId>; 16]>;

/// How `words` fill `form`'s slots, if they do.
pub fn fill(form: &Form, words: &Words) -> Option<Filled> {
    let mut used: Filled = SmallVec::from_elem(None, form.slots.len());
    assign(form, &words.words, 0, None, &mut used).then_some(used)
}

/// Gives word `i` and the rest a slot each (backtracking); `last_type` is
/// the slot of the previous type.
fn assign(
    form: &Form,
    words: &[(WordId, bool)],
    i: usize,
    last_type: Option<usize>,
    used: &mut [Option<WordId>],
) -> bool {
    let Some(&(word, is_type)) = words.get(i) else { return complete(form, used) };
    // A word written again (`add.sat.sat.s32`) may be the same modifier once
    // more; types never are (`.f16.f16` are two types).
    if !is_type && words[..i].iter().any(|&(w, _)| w == word) && assign(form, words, i + 1, last_type, used) {
        return true;
    }
    for (s, slot) in form.slots.iter().enumerate() {
        if used[s].is_some() || !slot.words.contains(&word) {
            continue;
        }
        if is_type && last_type.is_some_and(|t| s < t) {
            continue;
        }
        used[s] = Some(word);
        if assign(form, words, i + 1, if is_type { Some(s) } else { last_type }, used) {
            return true;
        }
        used[s] = None;
    }
    false
}

/// Every required slot filled, every group all or nothing.
fn complete(form: &Form, used: &[Option<WordId>]) -> bool {
    for (s, slot) in form.slots.iter().enumerate() {
        match slot.presence {
            Presence::Required if used[s].is_none() => return false,
            Presence::Group(g) => {
                let mates = form.slots.iter().zip(used.iter()).filter(|(o, _)| o.presence == Presence::Group(g));
                if mates.clone().any(|(_, u)| u.is_some()) && !mates.clone().all(|(_, u)| u.is_some()) {
                    return false;
                }
            }
            _ => {}
        }
    }
    true
}

/// For each operand of a form, the index of the instruction's operand it
/// is (None: an optional one that is absent).
pub type Positions = SmallVec<[Option<u8>; 8]>;

/// An optional operand there without its word, or missing with it
/// (`@with cache-policy: .L2::cache_hint`): (operand, word, word present).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WithViolation {
    /// The operand's name.
    pub operand: &'static str,
    /// Its word.
    pub word: WordId,
    /// True if the instruction has the word (and the operand is missing).
    pub word_present: bool,
}

/// Every choice of present optional operands that gives `n` operands, in
/// order of the choices (the first optional operands first): its positions
/// if it keeps `@with` (an operand there exactly when its word is), else the
/// first `@with` it breaks. None if `n` operands cannot fill the list at all.
pub fn operand_choices_checked<'a>(
    form: &'a Form,
    words: &'a Words,
    n: usize,
) -> Option<impl Iterator<Item = Result<Positions, WithViolation>> + 'a> {
    let specs = form.operands;
    let required = specs.iter().filter(|s| !s.optional).count();
    let optional: SmallVec<[usize; 8]> = specs.iter().enumerate().filter(|(_, s)| s.optional).map(|(i, _)| i).collect();
    if n < required || n > required + optional.len() {
        return None;
    }
    Some((0u32..(1 << optional.len())).filter_map(move |mask| {
        if mask.count_ones() as usize != n - required {
            return None;
        }
        let present = |i: usize| {
            !specs[i].optional || optional.iter().position(|&o| o == i).is_some_and(|k| mask & (1 << k) != 0)
        };
        let broken = specs.iter().enumerate().find_map(|(i, s)| {
            let w = s.with_word?;
            (words.has(w) != present(i)).then_some(WithViolation {
                operand: s.name.as_str(),
                word: w,
                word_present: words.has(w),
            })
        });
        if let Some(v) = broken {
            return Some(Err(v));
        }
        let mut next = 0u8;
        Some(Ok((0..specs.len())
            .map(|i| {
                present(i).then(|| {
                    next += 1;
                    next - 1
                })
            })
            .collect()))
    }))
}

/// The fewest and most operands `form` takes.
pub fn operand_range(form: &Form) -> (usize, usize) {
    let required = form.operands.iter().filter(|s| !s.optional).count();
    (required, form.operands.len())
}

/// The ways `n` operands can fill `form`'s operand list, keeping `@with`:
/// [`operand_choices_checked`] without the broken ones.
pub fn operand_choices<'a>(form: &'a Form, words: &'a Words, n: usize) -> impl Iterator<Item = Positions> + 'a {
    operand_choices_checked(form, words, n).into_iter().flatten().filter_map(Result::ok)
}

/// `inst` with its modifiers in the order of the form it is (the first
/// that fits), as the ISA writes them; the words no slot holds (ignored
/// ones) after them. A builder collects words in its family's order, which
/// for a slot of a later form (`.global` of `atom.global.add.v2.f32`) is
/// not its place there; ptxas accepts either order.
pub fn in_form_order(mut inst: Inst) -> Inst {
    let Some(view) = FormView::of(&inst) else { return inst };
    let mut rest: Vec<Modifier> = inst.modifiers.iter().cloned().collect();
    let mut ordered: Vec<Modifier> = Vec::with_capacity(rest.len());
    for word in view.filled.iter().flatten() {
        if let Some(i) = rest.iter().position(|m| m.word().map(|w| w.index()) == Some(*word)) {
            ordered.push(rest.remove(i));
        }
    }
    ordered.extend(rest);
    inst.modifiers = ordered.into();
    inst
}

/// True if some form of `opcode` (a known one) takes `modifiers`, the
/// operands aside: what the parser asks of an instruction in a module newer
/// than the description, whose words may be a later ISA's combination
/// (`fence.proxy.alias.acquire.sys`, PTX ISA 9.4).
pub fn words_fit_a_form(opcode: crate::Opcode, modifiers: &crate::Modifiers) -> bool {
    let (Some(words), Some(index)) = (Words::of_modifiers(&ptx_isa::ISA, opcode, modifiers), opcode.index()) else {
        return false;
    };
    ptx_isa::ISA.forms_of(index as u16).iter().any(|form| fill(form, &words).is_some())
}

/// An instruction read as one form of the description: the form, the word
/// of each slot and which operand is which. The first form (in description
/// order) whose modifiers fit and whose operand count fits; the operands'
/// kinds and types are not checked (the verifier does that).
#[derive(Clone, Debug)]
pub struct FormView<'i> {
    isa: &'static Isa,
    inst: &'i Inst,
    form: &'static Form,
    filled: Filled,
    positions: Positions,
}

impl<'i> FormView<'i> {
    /// `inst` as a form of [`ptx_isa::ISA`], if it is one.
    pub fn of(inst: &'i Inst) -> Option<FormView<'i>> {
        FormView::of_isa(&ptx_isa::ISA, inst)
    }

    /// `inst` as a form of `isa`, if it is one.
    pub fn of_isa(isa: &'static Isa, inst: &'i Inst) -> Option<FormView<'i>> {
        let words = Words::of(isa, inst)?;
        let index = inst.opcode.index()? as u16;
        isa.forms_of(index).iter().find_map(|form| {
            let filled = fill(form, &words)?;
            let positions = operand_choices(form, &words, inst.operands.len()).next()?;
            Some(FormView { isa, inst, form, filled, positions })
        })
    }

    /// The instruction.
    pub fn inst(&self) -> &'i Inst {
        self.inst
    }

    /// The form it is.
    pub fn form(&self) -> &'static Form {
        self.form
    }

    /// The word in the slot named `slot` (`sem`, `type`), if the form has
    /// that slot and it is filled (the first such slot: `.f16.f16` is read
    /// with [`FormView::slot_at`]).
    pub fn slot(&self, slot: &str) -> Option<crate::Word> {
        let s = self.form.slots.iter().position(|x| x.name == slot)?;
        self.slot_index(s)
    }

    /// The word in the `k`th slot named `slot` (0 first).
    pub fn slot_at(&self, slot: &str, k: usize) -> Option<crate::Word> {
        let s = self.form.slots.iter().enumerate().filter(|(_, x)| x.name == slot).nth(k)?.0;
        self.slot_index(s)
    }

    /// The first of `words` the instruction has as a modifier word.
    pub fn word_among(&self, words: &[crate::Word]) -> Option<crate::Word> {
        self.inst.modifiers.iter().filter_map(Modifier::word).find(|w| words.contains(w))
    }

    fn slot_index(&self, s: usize) -> Option<crate::Word> {
        let id = (*self.filled.get(s)?)?;
        if std::ptr::eq(self.isa.words, ptx_isa::WORDS) {
            return crate::Word::from_index(id);
        }
        crate::Word::lookup(self.isa.words.get(id as usize)?)
    }

    /// The operand named `name` in the form (`d`, `cache-policy`), if the
    /// form has it and it is there.
    pub fn operand(&self, name: &str) -> Option<&'i Operand> {
        let i = self.form.operands.iter().position(|o| o.name == name)?;
        let pos = (*self.positions.get(i)?)?;
        self.inst.operands.get(pos as usize)
    }
}
