//! A module at a `.version` newer than the PTX ISA text of the description
//! (9.1) may use instructions of a later text: opcodes, words, and known
//! words in combinations no form of 9.1 has. The parser makes such an
//! instruction an unknown instruction (`Opcode::Other`): kept as written,
//! every register it names may be read and written, it has effects. The
//! verifier reports it, unless asked to accept newer forms
//! (`Options::accept_newer_forms`), which leaves the form to ptxas. At 9.1
//! and below it is an error either way, as ptxas has it; an opcode that
//! transfers control keeps its opcode, so the control flow stays known.

use ptx_opt::ir::{Opcode, Shape};
use ptx_opt::version::PtxVersion;
use ptx_opt::{ErrorKind, Options};

/// A kernel at `version` whose body holds `lines` between a load of `%r1`
/// and `%r2` and a store of `%r4`.
fn kernel(version: &str, lines: &str) -> String {
    format!(
        ".version {version}\n.target sm_90a\n.address_size 64\n\n.visible .entry k(\n\t.param .u64 k_param_0\n)\n{{\n\
         \t.reg .pred \t%p<3>;\n\t.reg .b32 \t%r<8>;\n\t.reg .b64 \t%rd<4>;\n\n\
         \tld.param.u64 \t%rd1, [k_param_0];\n\tcvta.to.global.u64 \t%rd2, %rd1;\n\
         \tld.global.u32 \t%r1, [%rd2];\n\tld.global.u32 \t%r2, [%rd2+4];\n{lines}\
         \tst.global.u32 \t[%rd2+8], %r4;\n$L__done:\n\tret;\n}}\n"
    )
}

/// Options that accept newer forms, with `passes`.
fn accepting<const N: usize>(passes: [&str; N]) -> Options {
    Options { accept_newer_forms: true, ..Options::with_passes(passes) }
}

/// Options that report newer forms (the default), with `passes`.
fn rejecting<const N: usize>(passes: [&str; N]) -> Options {
    Options::with_passes(passes)
}

/// The messages of a run that must fail.
fn errors(source: &str, options: &Options) -> Vec<String> {
    match ptx_opt::optimize(source, options) {
        Ok(_) => panic!("accepted:\n{source}"),
        Err(e) => e.diagnostics.iter().map(|d| d.message.clone()).collect(),
    }
}

#[test]
fn a_word_of_a_later_text_makes_an_unknown_instruction() {
    let source = kernel("9.3", "\tadd.later.u32 \t%r3, %r1, %r2;\n\tmov.b32 \t%r4, %r1;\n");
    let module = ptx_opt::parse(&source).expect("parses");
    let func = module.functions.values().next().expect("a function");
    let inst = func
        .inst_ids()
        .map(|id| &func.insts[id])
        .find(|i| source[i.span.start as usize..i.span.end as usize].starts_with("add"))
        .unwrap();
    let Opcode::Other(op) = inst.opcode else { panic!("known: {:?}", inst.opcode) };
    assert_eq!(func.names.opcode(op), "add");
    assert_eq!(ptx_opt::ir::opcodes::operand_shape(inst), Shape::Unknown);
    assert!(ptx_opt::ir::opcodes::has_side_effects(inst));
    assert_eq!(ptx_opt::print(&module), source, "printed as written");
    // Read as an add it would be dead; unknown, it stays.
    let out = ptx_opt::optimize(&source, &accepting(["dce"])).expect("accepted");
    assert_eq!(out.ptx, source);
    // Not asked to accept it, the verifier reports the word.
    let e = ptx_opt::optimize(&source, &rejecting(["dce"])).expect_err("reported");
    assert_eq!(e.kind, ErrorKind::InvalidInput);
    assert_eq!(
        errors(&source, &rejecting([])),
        ["add: unknown modifier .later (not of PTX ISA 9.1; accepting newer forms, --accept-newer-forms, keeps the \
          instruction as it is for ptxas to judge)"]
    );
    // Streamed or whole, with verify-each and the verify pass: the same.
    for options in [accepting([]), Options { verify_each: true, ..accepting(["verify", "dce"]) }] {
        assert_eq!(ptx_opt::optimize(&source, &options).expect("accepted").ptx, source);
    }
    assert_eq!(errors(&source, &Options { skip_verify: true, ..rejecting(["verify"]) }).len(), 1);
}

#[test]
fn a_value_through_a_later_form_is_not_known() {
    // The prmt's selector is 0x3210 unless the unknown instruction wrote it.
    let lines = "\tmov.b32 \t%r3, 0x3210;\n\tmin.later.u32 \t%r3, %r1, %r2;\n\tprmt.b32 \t%r4, %r1, %r2, %r3;\n";
    let later = kernel("9.3", lines);
    let out = ptx_opt::optimize(&later, &accepting(["fold-prmt"])).expect("accepted");
    assert_eq!(out.ptx, later, "folded through an unknown instruction");
    // The control: with a form the description knows (which writes %r3
    // too), still not folded; with the write gone, folded.
    let known = kernel("9.3", &lines.replace("min.later.u32", "min.u32"));
    assert_eq!(ptx_opt::optimize(&known, &accepting(["fold-prmt"])).unwrap().ptx, known);
    let unwritten = kernel("9.3", &lines.replace("\tmin.later.u32 \t%r3, %r1, %r2;\n", ""));
    assert_ne!(ptx_opt::optimize(&unwritten, &accepting(["fold-prmt"])).unwrap().ptx, unwritten);
}

#[test]
fn at_the_described_version_and_below_the_word_is_an_error() {
    for version in ["9.1", "8.0"] {
        let source = kernel(version, "\tadd.later.u32 \t%r4, %r1, %r2;\n");
        assert_eq!(errors(&source, &accepting([])), ["add: unknown modifier .later"], "{version}");
    }
}

#[test]
fn unknown_opcodes_are_later_forms_and_words_on_branches_stay_errors() {
    let source = kernel("9.5", "\tmov.b32 \t%r4, %r1;\n\tlater.u32 \t%r3, %r1, %r2;\n");
    assert_eq!(ptx_opt::optimize(&source, &accepting(["dce"])).expect("accepted").ptx, source);
    assert_eq!(
        errors(&source, &rejecting([])),
        ["'later' is not the name of any PTX instruction (not of PTX ISA 9.1; accepting newer forms, \
          --accept-newer-forms, keeps the instruction as it is for ptxas to judge)"]
    );
    let at_91 = source.replacen(".version 9.5", ".version 9.1", 1);
    assert_eq!(errors(&at_91, &accepting([])), ["'later' is not the name of any PTX instruction"]);
    let source = kernel("9.5", "\tmov.b32 \t%r4, %r1;\n\tbra.later \t$L__done;\n");
    let module = ptx_opt::parse(&source).expect("parses");
    let func = module.functions.values().next().expect("a function");
    assert!(func.inst_ids().any(|id| func.insts[id].opcode == Opcode::Bra), "the branch stays a branch");
    assert_eq!(errors(&source, &accepting([])), ["bra: unknown modifier .later"]);
}

#[test]
fn a_later_form_needs_a_later_version_than_the_description() {
    let source = kernel("9.3", "\tadd.later.u32 \t%r4, %r1, %r2;\n");
    let module = ptx_opt::parse(&source).expect("parses");
    let lowest = Options { ptx_version: PtxVersion::parse("min"), ..accepting([]) };
    assert!(ptx_opt::optimize(&source, &lowest).expect("accepted").ptx.starts_with(".version 9.2\n"));
    let table = ptx_opt::version::requirements(&module);
    assert_eq!(table.module.version, (9, 2));
    assert!(
        matches!(&table.module.because, ptx_opt::version::Because::Instruction { what, .. } if what == "add.later.u32"),
        "{:?}",
        table.module.because
    );
    let options = Options { ptx_version: PtxVersion::parse("9.1"), ..accepting([]) };
    let e = ptx_opt::optimize(&source, &options).expect_err("written at 9.1");
    assert!(matches!(e.kind, ErrorKind::NeedsVersion(_)), "{:?}", e.kind);
    let messages: Vec<&str> = e.diagnostics.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(
        messages,
        ["add.later.u32: has a word PTX ISA 9.1 does not have: an instruction of a later .version than this module's"]
    );
}

#[test]
fn batches_after_the_header_read_its_version() {
    // One function per batch: the later form is in the second batch, far
    // from the header.
    let one = kernel("9.3", "\tadd.later.u32 \t%r3, %r1, %r2;\n\tmov.b32 \t%r4, %r3;\n");
    let body = &one[one.find(".visible").unwrap()..];
    let source = format!("{one}\n{}", body.replace("entry k(", "entry k2(").replace("k_param_0", "k2_param_0"));
    let streamed = ptx_opt::optimize_in_batches(&source, &accepting(["dce"]), 1).expect("accepted").expect("streamed");
    assert_eq!(streamed.ptx, source);
}

/// A form of PTX ISA 9.3 that ptxas 13.5 takes: through -O2 and back to
/// ptxas, with the setp before it kept (the unknown instruction may write
/// `%p1`, or leave it).
#[test]
fn a_real_later_form_goes_through_o2_to_ptxas() {
    let source = ".version 9.3\n.target sm_90a\n.address_size 64\n\n.shared .align 8 .b64 barrier;\n\n\
        .visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n\
        \t.reg .pred \t%p<3>;\n\t.reg .b8 \t%rs<2>;\n\t.reg .b32 \t%r<4>;\n\t.reg .b64 \t%rd<4>;\n\n\
        \tld.param.u64 \t%rd1, [k_param_0];\n\tcvta.to.global.u64 \t%rd2, %rd1;\n\tld.global.u32 \t%r1, [%rd2];\n\
        \tmov.b64 \t%rd3, 0;\n\tsetp.ne.s32 \t%p1, %r1, 0;\n\
        \tmbarrier.test_wait.phase_type::primary.b64 \t%p1|%p2, %rs1, [barrier], %rd3;\n\
        \tselp.u32 \t%r2, 1, 0, %p1;\n\tst.global.u32 \t[%rd2+4], %r2;\n\tret;\n}\n";
    let ptxas = crate::corpus::toolchain();
    ptxas.compile(source, "sm_90a", &[]).expect("ptxas takes the input");
    let out =
        ptx_opt::optimize(source, &Options { accept_newer_forms: true, ..Options::with_level(2) }).expect("accepted");
    assert_eq!(out.ptx, source);
    let at_91 = source.replacen(".version 9.3", ".version 9.1", 1);
    assert!(ptxas.compile(&at_91, "sm_90a", &[]).is_err(), "ptxas takes the word at 9.1");
    assert_eq!(errors(&at_91, &accepting([])), ["mbarrier: unknown modifier .phase_type::primary"]);
}

/// Known words that no form of PTX ISA 9.1 combines are a later form too
/// (`fence.proxy.alias` with an order and a scope: PTX ISA 9.4, as ptxas
/// 13.5 says at 9.1), accepted when asked; at 9.1 the verifier reports them
/// as before.
#[test]
fn known_words_in_a_later_combination_make_a_later_form() {
    let source = ".version 9.4\n.target sm_90\n.address_size 64\n\n.visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n\
        \t.reg .b32 \t%r<3>;\n\t.reg .b64 \t%rd<3>;\n\n\
        \tld.param.u64 \t%rd1, [k_param_0];\n\tcvta.to.global.u64 \t%rd2, %rd1;\n\tld.global.u32 \t%r1, [%rd2];\n\
        \tfence.proxy.alias.acquire.sys;\n\tld.global.u32 \t%r2, [%rd2];\n\tst.global.u32 \t[%rd2+4], %r2;\n\tret;\n}\n";
    let ptxas = crate::corpus::toolchain();
    ptxas.compile(source, "sm_90", &[]).expect("ptxas takes the input");
    let module = ptx_opt::parse(source).expect("parses");
    let func = module.functions.values().next().expect("a function");
    let fence =
        func.inst_ids().map(|id| &func.insts[id]).find(|i| i.span.start as usize == source.find("fence").unwrap());
    let fence = fence.expect("the fence");
    assert!(ptx_opt::ir::is_later_form(func, fence), "{:?}", fence.opcode);
    let o2 = Options { accept_newer_forms: true, ..Options::with_level(2) };
    assert_eq!(ptx_opt::optimize(source, &o2).expect("accepted").ptx, source);
    assert_eq!(
        errors(source, &rejecting([])),
        ["fence.proxy.alias.acquire.sys: no form of fence has these words (not of PTX ISA 9.1; accepting \
          newer forms, --accept-newer-forms, keeps the instruction as it is for ptxas to judge)"]
    );
    let at_91 = source.replacen(".version 9.4", ".version 9.1", 1);
    assert!(ptxas.compile(&at_91, "sm_90", &[]).is_err(), "ptxas takes the combination at 9.1");
    let reported = errors(&at_91, &accepting([]));
    assert_eq!(reported.len(), 1, "{reported:?}");
    assert!(reported[0].starts_with("fence.proxy.alias.acquire.sys: "), "{reported:?}");
    // Every form 9.1 has keeps its opcode in a later module.
    let known = source.replacen("fence.proxy.alias.acquire.sys", "fence.proxy.alias", 1);
    let module = ptx_opt::parse(&known).expect("parses");
    let func = module.functions.values().next().expect("a function");
    assert!(func.inst_ids().all(|id| func.insts[id].opcode.is_known()));
}
