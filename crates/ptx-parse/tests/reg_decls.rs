//! The body scanner reads plainly written `.reg` declarations itself
//! (`lower/body_scan.rs`, `scan_reg_decl`) and gives the module and the
//! diagnostics the grammar gives: spans, names in order, duplicates and
//! limits included. Every form it declines goes to the grammar.

/// A kernel whose body is `body`.
fn kernel(body: &str) -> String {
    format!(".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{{\n{body}\n\tret;\n}}\n")
}

fn check(body: &str) {
    let source = kernel(body);
    let scanned = format!("{:?}", ptx_parse::parse(&source));
    let reference = format!("{:?}", ptx_parse::parse_reference(&source));
    assert_eq!(scanned, reference, "the scanner and the grammar differ on:\n{body}");
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
        check(body);
    }
}

#[test]
fn other_forms_and_errors_are_the_grammars() {
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
        check(body);
    }
}
