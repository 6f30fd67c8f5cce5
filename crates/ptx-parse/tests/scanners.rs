//! The hand-written readers of the parser give the module and the
//! diagnostics the grammar gives, spans and the order of names included;
//! what they decline goes to the grammar:
//! - the body scanner's plain `.reg` declarations (`lower/body_scan.rs`,
//!   `scan_reg_decl`), duplicates and limits included;
//! - the head scanner (`lower/head_scan.rs`): function signatures, with
//!   comments, strings, attributes, initializers and numbers too large
//!   declined.

/// A kernel whose body is `body`.
fn kernel(body: &str) -> String {
    format!(".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{{\n{body}\n\tret;\n}}\n")
}

/// A module whose one function has the head `head` and a `ret` body.
fn module(head: &str) -> String {
    format!(".version 8.0\n.target sm_80\n.address_size 64\n.extern .func g(.param .b32 a);\n{head}\n{{\n\tret;\n}}\n")
}

/// The scanners and the grammar alone give the same module, or the same
/// diagnostics, for `source`.
fn check(source: &str) {
    let scanned = format!("{:?}", ptx_parse::parse(source));
    let reference = format!("{:?}", ptx_parse::parse_reference(source));
    assert_eq!(scanned, reference, "the scanners and the grammar differ on:\n{source}");
}

/// How many heads of the module with `head` the grammar read (the scanner
/// declined).
fn grammar_heads(head: &str) -> usize {
    ptx_parse::scan_coverage(&module(head)).map_or(usize::MAX, |c| c.grammar_heads)
}

#[test]
fn plain_declarations_read_as_the_grammar_reads_them() {
    for body in [
        "\t.reg .b32 %r<4>;\n\tmov.u32 %r3, 1;",
        "\t.reg .pred \t%p<2>;\n\t.reg .f32 %f<0>;",
        "\t.reg .b64 %rd1, %rd2,%rd3, /* c */ %rd<2>;\n\tmov.u64 %rd2, %rd1;",
        "\t.reg .u16 a, b_1, $c;\n\t{\n\t.reg .u16 a;\n\tmov.u16 a, b_1;\n\t}",
        "\t.reg .b32 %r<007>;\n\tmov.u32 %r6, 0;",
    ] {
        check(&kernel(body));
    }
}

#[test]
fn other_declarations_and_errors_are_the_grammars() {
    for body in [
        // Declined: the grammar reads these.
        "\t.reg .v2 .b32 %v<2>;",
        "\t.reg .align 8 .b64 %rd<2>;",
        "\t.reg .b32 %r1 , %r2 ;",
        "\t.reg .b32 %r <2>;",
        "\t.reg.b32 %r<2>;",
        "\t.reg\n\t.b32 %r<2>;",
        // Errors: the same diagnostics either way.
        "\t.reg .b32 %r<2>;\n\t.reg .b32 %r<3>;",
        "\t.reg .b32 %x, %x;",
        "\t.reg .b33 %r<2>;",
        "\t.reg .b32 %r<99999999999>;",
        "\t.reg .b32 %r<16777217>;",
        "\t.reg .b32 %r<2>",
        "\t.reg .b32 %r<2>, ;",
        "\t.reg .b32 ;",
    ] {
        check(&kernel(body));
    }
}

#[test]
fn heads_compilers_write_are_scanned_as_the_grammar_reads_them() {
    for head in [
        ".visible .entry k()",
        ".entry k",
        ".visible .entry _Z1kPfi(\n\t.param .u64 _Z1kPfi_param_0,\n\t.param .u32 _Z1kPfi_param_1\n)\n.maxntid 128, 1, 1\n.minnctapersm 4",
        ".visible .entry k(\n\t.param .align 8 .b8 k_param_0[16] ,\n\t.param .u64 .ptr .global .align 16 p ,.param .b8 a [ 4 ][2]\n)",
        ".visible .func (.param .b32 func_retval0) f(\n\t.param .b32 f_param_0\n)\n.noreturn",
        ".weak .func f(.reg .b32 %x, .reg .v2 .f32 %v, .param .b64 _)",
        ".func (.reg .u32 %ret) f(.param .align8 .b8 p[8], .param .b32 q[])",
        ".entry k(.param .u32 a)\n.reqntid 32 ,1\n.maxnreg 64\n.explicitcluster\n.reqnctapercluster 2, 1, 1",
        ".visible\n.entry k(.param .u32 .alignment a, .param .u32 .align b)",
        ".entry k()\n.maxntid 128,\n\t  1,  1",
    ] {
        check(&module(head));
        assert_eq!(grammar_heads(head), 0, "the scanner declined:\n{head}");
    }
}

#[test]
fn other_heads_and_errors_are_the_grammars() {
    for head in [
        // Declined: the grammar reads these.
        ".visible /* c */ .entry k()",
        ".entry k() // c",
        ".entry k()\n.pragma \"nounroll\";",
        ".entry k(.param .u32 .attribute(.managed) a)",
        ".entry k(.param::entry .u32 a)",
        ".entry k(.param .align 99999999999 .b8 a[4])",
        ".entry k(.param .b8 a[99999999999999999999])",
        ".entry k(.param .u32 a = 1)",
        ".entry k(.param .u32 a,)",
        ".entry k(.param .u32 a) .maxntid",
        ".entry k(.param .u32 a) .maxntid 1,",
        ".entry k(.local .u32 a)",
        // Errors: the same diagnostics either way.
        ".entry k(.reg .b32 %x, .reg .b32 %x)",
        ".entry k(.param .u32 a) .bogus 1",
    ] {
        check(&module(head));
    }
    assert_eq!(grammar_heads(".visible /* c */ .entry k()"), 1);
}
