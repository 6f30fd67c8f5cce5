//! Integration tests of the IR crate.

#[test]
fn vocabulary_is_sorted_for_binary_search() {
    let words = ptx_ir::words::WORDS;
    assert!(words.windows(2).all(|w| w[0] < w[1]), "WORDS must be sorted byte-wise without duplicates");
    for w in words {
        assert_eq!(ptx_ir::Word::lookup(w).map(|x| x.as_str()), Some(*w));
    }
}

/// The opcode table agrees with itself: names and variants map both ways,
/// and the columns do not contradict each other.
#[test]
fn opcode_table_is_consistent() {
    use ptx_ir::{Control, Effects, Inst, Opcode, Shape};
    let table = ptx_ir::opcodes::OPCODES;
    assert!(table.windows(2).all(|w| w[0].name < w[1].name), "OPCODES must be sorted by name without duplicates");
    for entry in table {
        let op = entry.opcode;
        assert_eq!(Opcode::from_name(entry.name), Some(op), "{}", entry.name);
        assert_eq!(op.known_name(), Some(entry.name));
        assert_eq!(op.info(), Some(*entry));
        assert_eq!(op.control(), entry.control);
        assert_eq!(Inst::new(op, Vec::new(), Vec::new()).is_terminator(), entry.control.ends_block(), "{op}");
        // What transfers control must never be deleted as dead.
        if entry.control != Control::Falls {
            assert_eq!(entry.effects, Effects::Effectful, "{op} transfers control");
        }
        // An instruction that writes no register is dead by construction
        // unless it has effects; one whose writes are not fully known must
        // be kept as well.
        if matches!(entry.shape, Shape::NoDst | Shape::Unknown) {
            assert_eq!(entry.effects, Effects::Effectful, "{op} ({:?})", entry.shape);
        }
        // `call` is the one instruction whose result list is optional.
        assert_eq!(entry.shape == Shape::Call, entry.control == Control::Call, "{op}");
    }
    let terminators: Vec<&str> = table.iter().filter(|e| e.control.ends_block()).map(|e| e.name).collect();
    assert_eq!(terminators, ["bra", "brx", "exit", "ret", "trap"]);

    // An opcode the table does not know falls through.
    let other = Opcode::Other(ptx_ir::Names::default().intern_opcode("frobnicate").expect("the first"));
    assert_eq!(other.info(), None);
    assert_eq!(other.control(), Control::Falls);
    assert!(!Inst::new(other, Vec::new(), Vec::new()).is_terminator());
}

// ---------------------------------------------------------------- edits are never printed stale

const KERNEL: &str = "\
.version 8.0
.target sm_80
.address_size 64
// a comment the verbatim print keeps
.visible .entry k(.param .u64 p)
{
\t.reg .b32   %r<3>;   // odd spacing, kept verbatim
\tmov.b32 %r1, 1;
\tmov.b32 %r2, 2;
\tret;
}
";

fn parse() -> ptx_ir::Module {
    ptx_parse::parse(KERNEL).expect("the kernel parses")
}

fn first(m: &mut ptx_ir::Module) -> &mut ptx_ir::Function {
    m.functions.values_mut().next().unwrap()
}

#[test]
fn an_untouched_module_prints_its_source() {
    let m = parse();
    assert!(m.functions.values().all(|f| f.is_pristine()));
    assert_eq!(ptx_ir::print::print_module(&m), KERNEL);
}

#[test]
fn an_instruction_edited_in_place_is_printed() {
    let mut m = parse();
    let f = first(&mut m);
    let id = f.inst_ids().next().unwrap();
    // No mark_changed(): writing through the arena is the change.
    f.insts[id].operands[1] = ptx_ir::Operand::imm(7);
    let out = ptx_ir::print::print_module(&m);
    assert!(out.contains("mov.b32 %r1, 0x7;"), "{out}");
}

#[test]
fn a_body_edit_is_printed_and_removed_instructions_are_not_iterated() {
    let mut m = parse();
    let f = first(&mut m);
    let second = f.inst_ids().nth(1).unwrap();
    let mut edits = ptx_ir::BodyEdits::new();
    edits.remove(second);
    assert!(edits.apply(f));
    assert!(f.insts.keys().all(|id| id != second), "a removed instruction is still iterated");
    assert_eq!(f.insts.iter().count(), 2);
    let out = ptx_ir::print::print_module(&m);
    assert!(!out.contains("%r2, 2"), "{out}");
    let f = first(&mut m);
    f.body_mut().unwrap().pop();
    assert!(!f.is_pristine());
}

#[test]
fn a_signature_edit_without_mark_changed_is_caught() {
    let mut m = parse();
    first(&mut m).name = "renamed".to_string();
    let caught = std::panic::catch_unwind(|| ptx_ir::print::print_module(&m)).expect_err("a stale print");
    let message = caught.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(message.contains("without Function::mark_changed()"), "{message}");
    first(&mut m).mark_changed();
    assert!(ptx_ir::print::print_module(&m).contains(".entry renamed("));
}

/// A module variable a pass adds before every item of the source, without
/// `Module::mark_changed`, is printed after the header (`.version` must come
/// first) and before the item it precedes; one added after the last item
/// comes at the end. Everything of the source is kept.
#[test]
fn a_module_item_added_without_mark_changed_prints_after_the_header() {
    use ptx_ir::{DeclWord, ModuleItem, ScalarType, Span, StateSpace, Variable};
    let counters = |name: &str| Variable {
        linkage: vec!["visible".to_string()],
        words: vec![DeclWord::Space(StateSpace::Global), DeclWord::Align(8), DeclWord::Type(ScalarType::U64)],
        name: name.to_string(),
        dims: vec![Some(4)],
        init: None,
        span: Span::default(),
    };
    let mut m = parse();
    m.items.insert(0, ModuleItem::Variable(counters("first")));
    m.items.push(ModuleItem::Variable(counters("last")));
    let out = ptx_ir::print::print_module(&m);
    assert!(out.starts_with(".version 8.0\n.target sm_80\n.address_size 64\n"), "{out}");
    let first = out.find(".visible .global .align 8 .u64 first[4];").expect("the first variable");
    let entry = out.find(".visible .entry k").expect("the kernel");
    let last = out.find(".visible .global .align 8 .u64 last[4];").expect("the last variable");
    assert!(first < entry && entry < last, "{out}");
    assert!(out.contains("// a comment the verbatim print keeps") && out.contains("// odd spacing, kept verbatim"));
    let again = ptx_parse::parse(&out).expect("the output parses");
    assert_eq!(again.items.len(), 3);
}

/// The IR's types are the description's (`type` lines of ptx-isa): the same
/// words, sizes and classes.
#[test]
fn scalar_types_are_the_descriptions() {
    use ptx_ir::{ScalarType, TypeKind};
    use ptx_isa::model::TypeClass;
    let described = ptx_isa::ISA.types;
    assert_eq!(ScalarType::ALL.len(), described.len());
    for (t, d) in ScalarType::ALL.iter().zip(described) {
        assert_eq!(t.as_str(), d.name);
        assert_eq!(t.bits(), u32::from(d.bits), "{t}");
        let class = match t.kind() {
            TypeKind::Pred => TypeClass::Pred,
            TypeKind::Bits => TypeClass::Bits,
            TypeKind::Unsigned => TypeClass::Unsigned,
            TypeKind::Signed => TypeClass::Signed,
            TypeKind::Float => TypeClass::Float,
        };
        assert_eq!(class, d.class, "{t}");
    }
}

/// Instructions are most of a parsed module's memory (README, performance):
/// an operand is 16 bytes (literals packed to 4-byte alignment, the rare
/// offset forms and lists boxed), a reference to a shared modifier list 8
/// (thin: the list's length is in the shared allocation), an opcode and a
/// guard 4 each (an unknown opcode by its place in the function's list of
/// them, the guard's negation in its register word), an operand list 48
/// (three operands, its form in kinds an operand never has) and an
/// instruction 72; a boxed address 40 (its rare extra operands behind one
/// thin pointer), a register 12 (its family index stored plus one) and a
/// body statement 8. A change that grows them shows here first.
#[test]
fn instructions_and_operands_stay_small() {
    use std::mem::size_of;
    assert_eq!(size_of::<ptx_ir::Modifiers>(), 8);
    assert_eq!(size_of::<ptx_ir::IntImm>(), 12);
    assert_eq!(size_of::<ptx_ir::FloatImm>(), 12);
    assert_eq!(size_of::<ptx_ir::Operand>(), 16);
    assert_eq!(size_of::<ptx_ir::Opcode>(), 4);
    assert_eq!(size_of::<Option<ptx_ir::Guard>>(), 4);
    assert_eq!(size_of::<ptx_ir::Operands>(), 48);
    assert_eq!(size_of::<ptx_ir::Inst>(), 72);
    assert_eq!(size_of::<ptx_ir::Address>(), 40);
    assert_eq!(size_of::<ptx_ir::RegData>(), 12);
    assert_eq!(size_of::<ptx_ir::Stmt>(), 8);
}

/// An operand list says the same whichever form holds it: up to three in
/// the list itself, more on the heap, and back when edits shrink it.
#[test]
fn operand_lists_keep_their_operands_in_order_across_forms() {
    use ptx_ir::{Operand, Operands};
    let int = |i: u64| Operand::Int(ptx_ir::IntImm::new(i));
    let expected = |n: u64| (0..n).map(int).collect::<Vec<_>>();
    let mut list = Operands::new();
    assert!(list.is_empty());
    for n in 1..=6 {
        list.push(int(n - 1));
        assert_eq!(list.as_slice(), expected(n).as_slice(), "after {n} pushes");
        assert_eq!(list.clone().into_iter().collect::<Vec<_>>(), expected(n));
        assert_eq!(Operands::from(expected(n)), list);
        assert_eq!(expected(n).into_iter().collect::<Operands>(), list);
    }
    assert_eq!(list.remove(0), int(0));
    assert_eq!(list.pop(), Some(int(5)));
    assert_eq!(list.as_slice(), [int(1), int(2), int(3), int(4)]);
    list.insert(0, int(0));
    list.truncate(3);
    assert_eq!(list.as_slice(), [int(0), int(1), int(2)]);
    list.retain(|op| *op != int(1));
    assert_eq!(list.as_slice(), [int(0), int(2)]);
    list[1] = int(7);
    list.extend([int(8), int(9)]);
    assert_eq!(list.as_slice(), [int(0), int(7), int(8), int(9)]);
    list.clear();
    assert_eq!(list, Operands::default());
    assert_eq!(Operands::with_capacity(5).len(), 0);
}

/// A register's family index and an address's extra operands, now packed,
/// still say what they said: `%r0` is index 0 (not "no index"), a named
/// register has none, and `[tex, {a, b}]` keeps its list in order.
#[test]
fn packed_register_indices_and_address_lists_keep_what_they_hold() {
    let m = ptx_parse::parse(
        ".version 8.0\n.target sm_80\n.address_size 64\n.global .texref t;\n\
         .visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\t.reg .b32 %named;\n\t.reg .f32 %f<5>;\n\
         \tmov.b32 %r0, 0;\n\tmov.b32 %named, %r0;\n\tmov.b32 %r1, %named;\n\
         \ttex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [t, {%r1}];\n\tret;\n}\n",
    )
    .expect("parses");
    let f = m.functions.values().next().expect("a function");
    let indices: Vec<Option<u32>> = f.regs.values().map(|d| d.index.map(ptx_ir::RegIndex::get)).collect();
    assert_eq!(&indices[..3], &[Some(0), Some(1), None]);
    assert_eq!(f.reg_name(f.regs.keys().next().unwrap()), "%r0");
    let tex = f.inst_ids().map(|i| &f.insts[i]).find(|i| i.opcode == ptx_ir::Opcode::Tex).expect("the tex");
    let ptx_ir::Operand::Address(a) = &tex.operands[1] else { panic!("{:?}", tex.operands) };
    assert_eq!(a.rest.len(), 1);
    assert!(matches!(&a.rest[0], ptx_ir::Operand::Vector(v) if v.len() == 1));
    let mut empty = ptx_ir::AddressRest::new();
    assert!(empty.is_empty() && empty == ptx_ir::AddressRest::from(Vec::new()));
    empty.push(ptx_ir::Operand::Sink);
    assert_eq!(empty.as_slice(), &[ptx_ir::Operand::Sink]);
    assert_eq!(ptx_ir::RegIndex::new(7).to_string(), "7");
}

/// The interner keeps its strings end to end in one buffer: a name is its
/// string whatever was interned around it, before and after the buffer
/// grows, is shrunk or is cloned.
#[test]
fn interned_names_are_their_strings() {
    let mut names = ptx_ir::Names::default();
    let words = ["$L__BB0_1", "", "$L__BB0_10", "$L__BB0_", "param_0", "$L__BB0_1x"];
    let ids: Vec<ptx_ir::Name> = words.iter().map(|w| names.intern(w)).collect();
    for (i, w) in words.iter().enumerate() {
        assert_eq!(names.get(ids[i]), *w);
        assert_eq!(names.find(w), Some(ids[i]));
        assert_eq!(names.intern(w), ids[i], "interning {w:?} again gives the same name");
    }
    let distinct: std::collections::BTreeSet<ptx_ir::Name> = ids.iter().copied().collect();
    assert_eq!(distinct.len(), words.len());
    assert_eq!(names.find("$L__BB0_2"), None);
    let many: Vec<ptx_ir::Name> = (0..5000).map(|i| names.intern(&format!("%sym{i}"))).collect();
    names.shrink_to_fit();
    let copy = names.clone();
    for (i, name) in many.iter().enumerate() {
        assert_eq!(copy.get(*name), format!("%sym{i}"));
        assert_eq!(copy.find(&format!("%sym{i}")), Some(*name));
    }
    assert_eq!(copy.get(ids[0]), "$L__BB0_1");
    assert_eq!(format!("{:?}", ptx_ir::Names::default()), "[]");
}

/// Instructions spelled with one opcode word share its modifier list; an
/// edit gives the edited instruction its own copy and leaves the others.
#[test]
fn one_opcode_word_shares_its_modifiers_until_an_edit() {
    use ptx_ir::{Modifier, ScalarType};
    let src = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\t.reg .b32 %r<4>;\n\
        \tadd.s32 %r1, %r2, %r3;\n\tadd.s32 %r2, %r1, %r3;\n\tadd.u32 %r3, %r1, %r2;\n\tret;\n}\n";
    let mut module = ptx_parse::parse(src).expect("parses");
    let func = module.functions.values_mut().next().expect("one function");
    let ids: Vec<_> = func.inst_ids().collect();
    let (first, second, other) = (ids[0], ids[1], ids[2]);
    assert!(func.insts[first].modifiers.is_shared_with(&func.insts[second].modifiers));
    assert!(!func.insts[first].modifiers.is_shared_with(&func.insts[other].modifiers));

    func.insts[first].modifiers.push(Modifier::Sat);
    assert_eq!(func.insts[first].modifiers.as_slice(), [Modifier::Type(ScalarType::S32), Modifier::Sat]);
    assert_eq!(func.insts[second].modifiers.as_slice(), [Modifier::Type(ScalarType::S32)]);
    func.insts[first].modifiers.retain(|m| *m != Modifier::Sat);
    assert_eq!(func.insts[first].modifiers, func.insts[second].modifiers, "equal by content");
    assert!(!func.insts[first].modifiers.is_shared_with(&func.insts[second].modifiers));
}

/// A float literal keeps its precision and spelling in one word: a literal
/// read from source prints as written, one a pass makes as `0f`/`0d` hex.
#[test]
fn float_literals_keep_precision_and_spelling() {
    use ptx_ir::{FloatImm, Inst, Opcode, Operand};
    let src = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\t.reg .f32 %f<3>;\n\t\
        .reg .f64 %fd<2>;\n\tadd.f32 %f1, %f2, 0f3F800000;\n\tadd.f64 %fd1, %fd1, 0d3FF0000000000000;\n\tret;\n}\n";
    let mut module = ptx_parse::parse(src).expect("parses");
    let func = module.functions.values_mut().next().expect("one function");
    let ids: Vec<_> = func.inst_ids().collect();
    let literal = |inst: &Inst| match inst.operands[2] {
        Operand::Float(f) => f,
        ref other => panic!("not a float literal: {other:?}"),
    };
    let (single, double) = (literal(&func.insts[ids[0]]), literal(&func.insts[ids[1]]));
    assert!(single.single() && !double.single());
    assert_eq!(single.text().map(|t| func.names.get(t)), Some("0f3F800000"));
    assert_eq!(double.text().map(|t| func.names.get(t)), Some("0d3FF0000000000000"));
    assert_eq!((single.bits, double.bits), (0x3F80_0000, 0x3FF0_0000_0000_0000));

    let made = FloatImm::new(0x4000_0000, true);
    assert!(made.single() && made.text().is_none());
    assert_eq!(made, FloatImm::new(0x4000_0000, true));
    assert_ne!(made, FloatImm::new(0x4000_0000, false));
    func.insts[ids[0]].operands[2] = Operand::Float(made);
    func.insts[ids[1]].operands[2] = Operand::Float(FloatImm::new(0x4000_0000_0000_0000, false));
    assert_eq!(func.insts[ids[0]].opcode, Opcode::Add);
    let printed = ptx_ir::print::print_module(&module);
    assert!(printed.contains("add.f32 %f1, %f2, 0f40000000;"), "{printed}");
    assert!(printed.contains("add.f64 %fd1, %fd1, 0d4000000000000000;"), "{printed}");
}

/// Whether a body holds a `.target` directive is known from when the body
/// is set, and asked anew after the body was open to any change.
#[test]
fn a_body_knows_whether_it_holds_a_target_directive() {
    let with = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry a()\n{\n\t.target sm_90\n\tret;\n}\n\
        .visible .entry b()\n{\n\tret;\n}\n";
    let mut module = ptx_parse::parse(with).expect("parses");
    let found: Vec<bool> = module.functions.values().map(|f| f.has_target_directive()).collect();
    assert_eq!(found, [true, false]);
    let (target, b) = {
        let mut funcs = module.functions.values_mut();
        let a = funcs.next().expect("a");
        let target = a.body().expect("a body").iter().find_map(|s| match s {
            ptx_ir::Stmt::Raw(d) => Some(a.directives[*d].clone()),
            _ => None,
        });
        (target.expect("a .target statement"), funcs.next().expect("b"))
    };
    let target = b.directives.push(target);
    b.body_mut().expect("b has a body").insert(0, ptx_ir::Stmt::Raw(target));
    assert!(b.has_target_directive(), "asked anew after body_mut");
    let body = b.take_body();
    assert!(!b.has_target_directive());
    b.set_body(body);
    assert!(b.has_target_directive());
}

/// A guard packs its register and negation into one word; an unknown opcode
/// is its place among the function's unknown opcodes, and prints by name.
#[test]
fn packed_guards_and_unknown_opcodes_keep_what_they_hold() {
    use ptx_ir::{Guard, RegId};
    for (reg, negated) in [(0, false), (0, true), (7, true), ((1 << 31) - 2, true), ((1 << 31) - 1, false)] {
        let guard = Guard::new(RegId::from_u32(reg), negated);
        assert_eq!((guard.reg(), guard.negated()), (RegId::from_u32(reg), negated));
    }
    let mut names = ptx_ir::Names::default();
    let frob = names.intern_opcode("frobnicate").expect("the first");
    let twiddle = names.intern_opcode("twiddle").expect("the second");
    assert_ne!(frob, twiddle);
    assert_eq!(names.intern_opcode("frobnicate"), Some(frob));
    assert_eq!((names.opcode(frob), names.opcode(twiddle)), ("frobnicate", "twiddle"));

    let src = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\t.reg .pred %p<2>;\n\
        \t@!%p1 frobnicate.x;\n\tret;\n}\n";
    let module = ptx_parse::parse(src).expect("parses");
    let func = module.functions.values().next().expect("one function");
    let inst = func.inst_ids().map(|id| &func.insts[id]).next().expect("an instruction");
    let guard = inst.guard.expect("guarded");
    assert!(guard.negated());
    assert_eq!(func.reg_name(guard.reg()), "%p1");
    assert_eq!(ptx_ir::print::opcode_text(func, inst.opcode), "frobnicate");
    // Printed afresh, not copied from the source.
    assert_eq!(ptx_ir::print::inst_to_string(func, inst), "@!%p1 frobnicate.x;");
}

/// Past the limit of unknown opcodes in one function, the parser reports
/// an error instead of wrapping the count.
#[test]
fn too_many_distinct_unknown_opcodes_are_an_error() {
    let mut src = String::from(".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n");
    for i in 0..=ptx_ir::MAX_OTHER_OPCODES {
        src.push_str(&format!("\tfrob{i};\n"));
    }
    src.push_str("\tret;\n}\n");
    let errors = ptx_parse::parse(&src).expect_err("too many unknown opcodes");
    assert!(errors.iter().any(|e| e.message.contains("distinct unknown opcodes")), "{errors:?}");
}
