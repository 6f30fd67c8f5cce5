//! Variable initializers (ISA 5.4.4) are typed (`ptx_ir::InitValue`): every
//! form compilers emit or the ISA names parses to its value, and the
//! canonical printer writes it as written, comments and runs of whitespace
//! collapsed to one space (the text the IR used to keep). Each case goes
//! through the body scanner, the grammar alone and validation, prints back
//! verbatim, and reaches a fixpoint when printed canonically.
//! `testdata/parse/initializers.ptx` and `initializer-forms.ptx` are the
//! ptxas-checked modules.

use ptx_ir::{FloatLit, InitValue, IntLit, Module, ModuleItem};

const HEADER: &str = ".version 8.0\n.target sm_80\n.address_size 64\n";

/// Parses `items` after the header through every path, checks they agree.
fn parse(items: &str) -> Result<Module, String> {
    let source = format!("{HEADER}{items}");
    let scanned = ptx_parse::parse(&source);
    let reference = ptx_parse::parse_reference(&source);
    assert_eq!(format!("{scanned:?}"), format!("{reference:?}"), "scanner and grammar differ on:\n{source}");
    assert_eq!(ptx_parse::validate(&source), scanned.as_ref().map(drop).map_err(Clone::clone));
    let module = scanned.map_err(|errors| errors[0].message.clone())?;
    assert_eq!(ptx_ir::print::print_module(&module), source, "not verbatim");
    let canonical = ptx_ir::print::print_module_canonical(&module);
    let reparsed = ptx_parse::parse(&canonical).unwrap_or_else(|e| panic!("canonical print does not parse: {e:?}"));
    assert_eq!(ptx_ir::print::print_module_canonical(&reparsed), canonical, "not a fixpoint");
    Ok(module)
}

/// The initializer of the one variable of `.global DECL = INIT;`, and its
/// canonical print.
fn initializer(decl: &str, init: &str) -> (InitValue, String) {
    let module = parse(&format!(".global {decl} = {init};\n")).unwrap_or_else(|e| panic!("{init}: {e}"));
    let Some(ModuleItem::Variable(v)) = module.items.first() else { panic!("{init}: no variable") };
    let init = v.init.clone().expect("an initializer");
    let printed = ptx_ir::print::print_module_canonical(&module);
    let line = printed.lines().find(|l| l.starts_with(".global")).expect("the variable is printed");
    (init.value().clone(), line.split_once(" = ").expect("printed with its initializer").1.trim_end_matches(';').into())
}

fn int(bits: u64) -> InitValue {
    InitValue::Int(IntLit::new(bits))
}

fn spelled(bits: u64, text: &str) -> InitValue {
    InitValue::Int(IntLit { bits, text: Some(text.into()) })
}

fn sym(name: &str) -> InitValue {
    InitValue::Symbol(name.into())
}

fn add(a: InitValue, b: InitValue) -> InitValue {
    InitValue::Add(Box::new((a, b)))
}

fn list(items: Vec<InitValue>) -> InitValue {
    InitValue::List(items)
}

/// (declaration, initializer as written, its value, its canonical print).
fn cases() -> Vec<(&'static str, &'static str, InitValue, &'static str)> {
    let f32 = |bits: u32| InitValue::Float(FloatLit::new(bits.into(), true));
    let float_text =
        |bits: u64, single: bool, text: &str| InitValue::Float(FloatLit { bits, single, text: Some(text.into()) });
    let mask =
        |m: u64, text: &str, v: InitValue| InitValue::Mask(Box::new((IntLit { bits: m, text: Some(text.into()) }, v)));
    let generic = |name: &str| InitValue::Generic(name.into());
    vec![
        // Literals: the spelling is kept where the value alone prints otherwise.
        (".u32 a", "42", int(42), "42"),
        (".s32 a", "-1", spelled(u64::MAX, "-1"), "-1"),
        (".s32 a", "- 1", spelled(u64::MAX, "- 1"), "- 1"),
        (".s32 a", "-/* minus */16", spelled(16u64.wrapping_neg(), "- 16"), "- 16"),
        (".u32 a", "0xFF00FF00U", spelled(0xff00_ff00, "0xFF00FF00U"), "0xFF00FF00U"),
        (".u32 a", "0777", spelled(0o777, "0777"), "0777"),
        (".u32 a", "0b101U", spelled(5, "0b101U"), "0b101U"),
        (".u32 a", "00", spelled(0, "00"), "00"),
        (".u64 a", "18446744073709551615", int(u64::MAX), "18446744073709551615"),
        (".f32 a", "0f40490FDB", f32(0x4049_0fdb), "0f40490FDB"),
        (".f32 a", "0f3f800000", float_text(0x3f80_0000, true, "0f3f800000"), "0f3f800000"),
        (
            ".f64 a",
            "0d4005BF0A8B145769",
            InitValue::Float(FloatLit::new(0x4005_bf0a_8b14_5769, false)),
            "0d4005BF0A8B145769",
        ),
        (".f32 a", "0.5", float_text(0.5f64.to_bits(), false, "0.5"), "0.5"),
        (".f64 a", "1e-3", float_text(1e-3f64.to_bits(), false, "1e-3"), "1e-3"),
        // Lists, nested as the dimensions, partly initialized, empty.
        (
            ".b32 a[2][3]",
            "{{1, 2, 3}, {4, 5, 6}}",
            list(vec![list(vec![int(1), int(2), int(3)]), list(vec![int(4), int(5), int(6)])]),
            "{{1, 2, 3}, {4, 5, 6}}",
        ),
        (".u32 a[2][3]", "{{1,2},{4}}", list(vec![list(vec![int(1), int(2)]), list(vec![int(4)])]), "{{1,2},{4}}"),
        (".u32 a[4]", "{ 1 ,2,  3 , /* c */ 4 }", list(vec![int(1), int(2), int(3), int(4)]), "{ 1 ,2, 3 , 4 }"),
        (".u32 a[2]", "{\n    7, // seven\n    8\n}", list(vec![int(7), int(8)]), "{ 7, 8 }"),
        (".u32 a[]", "{}", list(Vec::new()), "{}"),
        (".u32 a[2]", "{ }", list(Vec::new()), "{ }"),
        (
            ".v2 .f32 a",
            "{0f3F800000, 0fBF800000}",
            list(vec![f32(0x3f80_0000), f32(0xbf80_0000)]),
            "{0f3F800000, 0fBF800000}",
        ),
        // Addresses: of a variable or function, plus an offset, generic().
        (".u64 a", "counter", sym("counter"), "counter"),
        (".u64 a", "table+4", add(sym("table"), int(4)), "table+4"),
        (".u64 a", "generic(message)", generic("message"), "generic(message)"),
        (".u64 a", "generic ( a ) + 8", add(generic("a"), int(8)), "generic ( a ) + 8"),
        (
            ".u64 a[3]",
            "{generic(m), c, generic(c)+8}",
            list(vec![generic("m"), sym("c"), add(generic("c"), int(8))]),
            "{generic(m), c, generic(c)+8}",
        ),
        (
            ".u64 a[2]",
            "{_Z8act_reluf, _Z11act_sigmoidf}",
            list(vec![sym("_Z8act_reluf"), sym("_Z11act_sigmoidf")]),
            "{_Z8act_reluf, _Z11act_sigmoidf}",
        ),
        (".u64 a", "a - -4", InitValue::Sub(Box::new((sym("a"), spelled(4u64.wrapping_neg(), "-4")))), "a - -4"),
        // Integer constant expressions, left to right.
        (".u32 a", "1000 + 546 - 6", InitValue::Sub(Box::new((add(int(1000), int(546)), int(6)))), "1000 + 546 - 6"),
        // mask() (PTX 7.1): of an address, of an expression, of a constant.
        (
            ".u8 a[4]",
            "{0xFF(foo), 0xFF00(foo+4), 0XFF0000(generic(foo)+4), 0xff(1000 + 546)}",
            list(vec![
                mask(0xff, "0xFF", sym("foo")),
                mask(0xff00, "0xFF00", add(sym("foo"), int(4))),
                mask(0xff_0000, "0XFF0000", add(generic("foo"), int(4))),
                mask(0xff, "0xff", add(int(1000), int(546))),
            ]),
            "{0xFF(foo), 0xFF00(foo+4), 0XFF0000(generic(foo)+4), 0xff(1000 + 546)}",
        ),
        // The fields of a sampler.
        (
            ".samplerref a",
            "{ addr_mode_0 = clamp_to_edge, filter_mode = nearest }",
            list(vec![
                InitValue::Member(Box::new(("addr_mode_0".into(), sym("clamp_to_edge")))),
                InitValue::Member(Box::new(("filter_mode".into(), sym("nearest")))),
            ]),
            "{ addr_mode_0 = clamp_to_edge, filter_mode = nearest }",
        ),
        (
            ".samplerref a",
            "{filter_mode=nearest,addr_mode_0 = 1}",
            list(vec![
                InitValue::Member(Box::new(("filter_mode".into(), sym("nearest")))),
                InitValue::Member(Box::new(("addr_mode_0".into(), int(1)))),
            ]),
            "{filter_mode=nearest,addr_mode_0 = 1}",
        ),
    ]
}

#[test]
fn every_form_parses_to_its_value_and_prints_as_written() {
    for (decl, text, value, printed) in cases() {
        let (got, got_printed) = initializer(decl, text);
        assert_eq!(got, value, "{decl} = {text}");
        assert_eq!(got_printed, printed, "{decl} = {text}");
    }
}

/// A value built without a spelling (by a pass) prints canonically: a space
/// after each `,` and around `=`, integers in decimal, floats in hex.
#[test]
fn values_without_spelling_print_canonically() {
    let value = list(vec![
        list(vec![int(1), spelled(u64::MAX, "-1")]),
        add(InitValue::Generic("g".into()), int(8)),
        InitValue::Float(FloatLit::new(0x3f80_0000, true)),
        InitValue::Member(Box::new(("filter_mode".into(), sym("nearest")))),
    ]);
    assert_eq!(value.to_string(), "{{1, -1}, generic(g)+8, 0f3F800000, filter_mode = nearest}");
    let mut module = parse(".global .u64 a[4];\n").unwrap();
    let Some(ModuleItem::Variable(v)) = module.items.first_mut() else { panic!("no variable") };
    v.init = Some(ptx_ir::Initializer::new(value));
    module.mark_changed();
    let printed = ptx_ir::print::print_module(&module);
    assert!(
        printed.contains(".global .u64 a[4] = {{1, -1}, generic(g)+8, 0f3F800000, filter_mode = nearest};"),
        "{printed}"
    );
}

/// What does not fit is an error, as in an instruction operand; what the
/// grammar does not take is a parse error, as before initializers were typed.
/// (`--1` is not among them: a constant expression, 1, as ptxas reads it.)
#[test]
fn malformed_initializers_are_errors() {
    let too_large = parse(".global .u64 a = 18446744073709551616;\n").unwrap_err();
    assert!(too_large.contains("does not fit in 64 bits"), "{too_large}");
    let too_large = parse(".global .u8 a[1] = {0x1FFFFFFFFFFFFFFFF(foo)};\n").unwrap_err();
    assert!(too_large.contains("does not fit in 64 bits"), "{too_large}");
    for bad in ["", "{1,}", "{1 2}", "0xFF()", "generic(1)", "foo+", "-foo", "{1}}", "1.5.5"] {
        assert!(parse(&format!(".global .u32 a = {bad};\n")).is_err(), "'{bad}' parses");
    }
}
