//! Forms of older compilers that ptxas still accepts: the nvopencc-era
//! prototype with no `;` (`.func f (.param .u32 a)` followed by the next
//! directive or the end of the module) and integer constants negated as in
//! C where an operand is read (`selp.u32 %r, 1, 2, !1;`). Each is parsed the
//! same way by the body scanner, the grammar alone and the uncut parse, and
//! prints back verbatim; `testdata/parse/old-prototypes.ptx` and
//! `literal-predicates.ptx` are the ptxas-checked modules.

use ptx_ir::{FunctionKind, IntImm, Module, Operand};

const HEADER: &str = ".version 7.0\n.target sm_80\n.address_size 64\n";

/// Parses `items` after the header through every path and checks they agree.
fn parse(items: &str) -> Result<Module, String> {
    let source = format!("{HEADER}{items}");
    let scanned = ptx_parse::parse(&source);
    let reference = ptx_parse::parse_reference(&source);
    assert_eq!(format!("{scanned:?}"), format!("{reference:?}"), "scanner and grammar differ on:\n{source}");
    let uncut = ptx_parse::parse_uncut(&source);
    assert_eq!(scanned.is_ok(), uncut.is_ok(), "cut and uncut parses differ on:\n{source}");
    assert_eq!(ptx_parse::validate(&source), scanned.as_ref().map(drop).map_err(Clone::clone));
    match scanned {
        Ok(module) => {
            assert_eq!(ptx_ir::print::print_module(&module), source, "not verbatim");
            let uncut = uncut.unwrap();
            let spans = |m: &Module| m.functions.values().map(|f| (f.span.start, f.span.end)).collect::<Vec<_>>();
            assert_eq!(spans(&module), spans(&uncut), "cut and uncut spans differ on:\n{source}");
            Ok(module)
        }
        Err(errors) => Err(errors[0].message.clone()),
    }
}

/// (name, has a body) of each function, in order.
fn functions(module: &Module) -> Vec<(String, bool)> {
    module.functions.values().map(|f| (f.name.clone(), f.has_body())).collect()
}

const KERNEL: &str = ".visible .entry k()\n{\n\tret;\n}\n";

#[test]
fn a_prototype_without_semicolon_ends_at_the_next_directive() {
    let followers = [
        ".visible .entry k()\n{\n\tret;\n}\n",
        ".file 1 \"a.cu\"\n",
        ".global .u32 x;\n",
        ".extern .shared .align 4 .b8 smem[];\n",
        ".func (.param .u32 r) g (.param .u32 a)\n",
        ".pragma \"nounroll\";\n",
        "// a comment\n/* and another */ .weak .func h\n",
    ];
    for follower in followers {
        let items = format!(".visible .func saxpy (.param .u32 a, .param .u32 b)\n{follower}{KERNEL}");
        let module = parse(&items).unwrap_or_else(|e| panic!("{e}:\n{items}"));
        let f = module.functions.values().next().unwrap();
        assert_eq!((f.name.as_str(), f.has_body(), f.kind), ("saxpy", false, FunctionKind::Func), "{items}");
        assert_eq!(f.params.as_ref().map(Vec::len), Some(2));
        // The span ends at the `)`: whitespace and comments are the next item's.
        let end = HEADER.len() + items.find("b)").unwrap() + 2;
        assert_eq!(f.span.end as usize, end, "{items}");
    }
}

#[test]
fn prototypes_without_semicolon_in_every_linkage_and_at_the_end() {
    let items =
        ".extern .func (.param .u32 r) f (.param .u32 a)\n.weak .func g\n.func (.reg .u32 r) h (.reg .u32 a) // last\n";
    let module = parse(items).unwrap();
    let expected = [("f", false), ("g", false), ("h", false)].map(|(n, b)| (n.to_string(), b));
    assert_eq!(functions(&module), expected);
    let f = module.functions.values().next().unwrap();
    assert_eq!((f.linkage.as_slice(), f.returns.as_ref().map(Vec::len)), (&["extern".to_string()][..], Some(1)));
    // The canonical print ends each with `;` and reads back the same.
    let canonical = ptx_ir::print::print_module_canonical(&module);
    assert_eq!(canonical.lines().filter(|l| *l == ";").count(), 3, "{canonical}");
    let again = ptx_parse::parse(&canonical).unwrap();
    assert_eq!(ptx_ir::print::print_module_canonical(&again), canonical);
}

#[test]
fn a_prototype_then_its_definition_and_a_call() {
    let items = ".func (.param .u32 r) twice (.param .u32 a)\n.entry k()\n{\n\t.param .u32 a;\n\t.param .u32 r;\n\tcall (r), twice, (a);\n\tret;\n}\n\
                 .func (.param .u32 r) twice (.param .u32 a)\n{\n\tret;\n}\n";
    let module = parse(items).unwrap();
    let expected = [("twice", false), ("k", true), ("twice", true)].map(|(n, b)| (n.to_string(), b));
    assert_eq!(functions(&module), expected);
}

#[test]
fn an_entry_needs_its_semicolon() {
    for items in [".entry e (.param .u32 a)\n.entry k()\n{\n\tret;\n}\n", ".entry e (.param .u32 a)\n"] {
        let message = parse(items).unwrap_err();
        assert_eq!(message, "'.entry e' needs a body or a ';' (only a .func prototype may omit it)", "{items}");
    }
}

/// The operands of the one instruction of a kernel whose body is `inst`.
fn operands(inst: &str) -> Result<Vec<Operand>, String> {
    let items = format!(".entry k()\n{{\n\t.reg .pred %p<2>;\n\t.reg .b32 %r<2>;\n\t{inst}\n}}\n");
    let module = parse(&items)?;
    let func = module.functions.values().next().unwrap();
    let id = func.inst_ids().next().unwrap();
    Ok(func.insts[id].operands.to_vec())
}

fn not_int(bits: u64) -> Operand {
    Operand::Not(Box::new(Operand::Int(IntImm { bits, text: None })))
}

/// Drops the source spelling of integer literals, to compare values.
fn values(ops: Vec<Operand>) -> Vec<Operand> {
    ops.into_iter()
        .map(|op| match op {
            Operand::Not(inner) => match *inner {
                Operand::Int(i) => not_int(i.bits),
                other => Operand::Not(Box::new(other)),
            },
            Operand::Int(i) => Operand::Int(IntImm { bits: i.bits, text: None }),
            other => other,
        })
        .collect()
}

#[test]
fn negated_integer_constants_are_operands() {
    for (inst, last, bits) in [
        ("selp.u32 %r1, 1, 2, !1;", 3, 1),
        ("and.pred %p1, %p0, !0;", 2, 0),
        ("mov.pred %p1, ! 0;", 1, 0),
        ("setp.ne.and.u32 %p1, %r1, 3, !0x1;", 3, 1),
        ("add.u32 %r1, %r1, !-1;", 2, u64::MAX),
    ] {
        let ops = values(operands(inst).unwrap_or_else(|e| panic!("{inst}: {e}")));
        assert_eq!(ops.len(), last + 1, "{inst}");
        assert_eq!(ops[last], not_int(bits), "{inst}");
    }
}

#[test]
fn what_ptxas_rejects_stays_rejected() {
    // No constant guards (ptxas: syntax error), no negated floats (ptxas:
    // "Integer constant expression expected").
    for inst in ["@1 bra L;", "@!1 bra L;", "@!0 ret;"] {
        assert!(operands(inst).is_err(), "{inst}");
    }
    for inst in ["selp.u32 %r1, 1, 2, !1.0;", "selp.u32 %r1, 1, 2, !0f3F800000;"] {
        let message = operands(inst).unwrap_err();
        assert_eq!(message, "'!' negates a predicate or an integer constant, not a floating-point one", "{inst}");
    }
}
