//! Tests of the `verify` pass.
//!
//! * `check(body, expect)` cases: a kernel body (with a fixed set of
//!   declared registers, see `PRELUDE`) and the errors expected, one line
//!   each, as `LINE: text` (LINE counts from 1 in the body, text is part of
//!   the message). Every case's verdict was confirmed with ptxas 13.5
//!   (`sm_90`) when it was written.
//! * The ptxas oracle: all 1472 cases of `shared/oracle/typecheck_oracle.tsv`
//!   must get ptxas's verdict, with the error on the instruction's line and
//!   of the same kind ("Unexpected instruction types" vs "Arguments
//!   mismatch").
//! * The public corpus: all 227 files, every one accepted by ptxas, must
//!   pass the verifier.

use crate::{corpus_files, line_of, shared_dir};
use ptx_ir::{Module, Span, Stmt};

const HEADER: &str = ".version 8.8\n.target sm_90\n.address_size 64\n\n.visible .entry k(.param .u64 k_param_0)\n{\n";

/// Registers every `check` body may use.
const PRELUDE: &str = "\
.reg .pred %p<4>;
.reg .b16 %h<4>;
.reg .b32 %r<8>;
.reg .b64 %rd<8>;
.reg .f32 %f<4>;
.reg .f64 %fd<4>;
.reg .u8 %ub<2>;
.reg .u16 %us<4>;
.reg .u32 %u<4>;
.reg .s32 %s<4>;
.reg .u64 %ud<4>;
.reg .f16 %hf<2>;
.reg .f16x2 %hh<2>;
.reg .b128 %q<2>;
.reg .v2 .f32 %v2;
.reg .v4 .f32 %v4;
";

fn run_verify(module: &mut Module) -> Result<bool, Vec<ptx_ir::Diagnostic>> {
    let errors = crate::verify(module);
    if errors.is_empty() {
        Ok(false)
    } else {
        Err(errors)
    }
}

/// Wraps `body` in a kernel after `PRELUDE`, verifies it and compares the
/// errors with `expect` (empty: valid).
#[track_caller]
fn check(body: &str, expect: &str) {
    let source = format!("{HEADER}{PRELUDE}{body}\n}}\n");
    let first_body_line = line_of(&source, (HEADER.len() + PRELUDE.len()) as u32);
    let mut module = ptx_parse::parse(&source).unwrap_or_else(|e| panic!("does not parse: {e:?}\n{body}"));
    let got: Vec<String> = match run_verify(&mut module) {
        Ok(changed) => {
            assert!(!changed, "verify reported a change");
            Vec::new()
        }
        Err(errors) => errors
            .iter()
            .map(|d| format!("{}: {}", line_of(&source, d.span.start) + 1 - first_body_line, d.message))
            .collect(),
    };
    let expected: Vec<&str> = expect.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let matches = got.len() == expected.len()
        && got.iter().zip(&expected).all(|(g, e)| {
            let (line, text) = e.split_once(": ").unwrap_or((e, ""));
            g.starts_with(&format!("{line}: ")) && g.contains(text)
        });
    assert!(matches, "\nbody:\n{body}\nexpected:\n{}\ngot:\n{}\n", expected.join("\n"), got.join("\n"));
}

#[test]
fn table_26_same_size_and_kind() {
    check("add.s32 %r1, %r2, %u1;\nadd.u32 %s1, %s2, %r3;\nadd.f32 %f1, %r1, %f2;\nadd.f64 %fd1, %rd1, %fd2;", "");
    check(
        "add.u32 %r1, %r2, %ub0;\nadd.f32 %f1, %u1, %f2;\nadd.u64 %rd1, %fd1, %rd2;\nadd.u32 %r1, %r2, %p1;",
        "1: add.u32: operand 3 (%ub0) is .u8, which does not agree with type .u32 (PTX ISA 9.4, Table 26)
         2: add.f32: operand 2 (%u1) is .u32
         3: operand 2 (%fd1) is .f64
         4: operand 3 (%p1) is .pred",
    );
    // Half precision: .f16 or .b16 registers; .f16x2 in .b32 or .f16x2 registers.
    check("add.f16 %hf0, %h1, %hf1;\nadd.f16x2 %r1, %hh0, %r2;\nfma.rn.bf16 %h1, %h2, %h3, %h1;", "");
    check(
        "add.f16 %hf0, %us1, %hf1;\nadd.f16x2 %f1, %r1, %r2;",
        "1: operand 2 (%us1) is .u16\n2: operand 1 (%f1) is .f32",
    );
    // Bit types agree with anything of their size, including floats.
    check("and.b32 %r1, %f1, %u1;\nxor.b64 %rd1, %fd1, %ud1;\nmov.b32 %f1, %r1;\nmov.b16 %hf0, %us1;", "");
    check("and.b32 %r1, %fd1, %u1;", "1: operand 2 (%fd1) is .f64, which does not agree with type .b32");
    // A .f16x2 register passes for .b32 with integer types (as in ptxas), not for .f32.
    check("add.u32 %r1, %hh0, %r2;\nadd.f32 %f1, %hh0, %f2;", "2: operand 2 (%hh0) is .f16x2");
}

#[test]
fn operands_with_their_own_types() {
    // Shift amounts and bit-field positions are .u32 whatever the instruction type.
    check("shl.b64 %rd1, %rd2, %r1;\nshr.s64 %rd1, %ud1, %s1;\nbfe.u64 %rd1, %rd2, %u1, 8;\nbfi.b64 %rd1, %rd2, %rd3, %r1, %r2;", "");
    check(
        "shl.b64 %rd1, %rd2, %rd3;\nshr.u32 %r1, %r2, %f1;",
        "1: operand 3 (%rd3) is .b64, which does not agree with type .u32\n2: operand 3 (%f1) is .f32",
    );
    // Counts are .u32.
    check("popc.b64 %r1, %rd1;\nclz.b64 %u1, %rd1;\nbfind.u64 %r1, %ud1;", "");
    check("popc.b64 %rd1, %rd1;", "1: operand 1 (%rd1) is .b64, which does not agree with type .u32");
    // mul.wide and mad.wide: the destination (and addend) twice as wide.
    check("mul.wide.s32 %rd1, %r1, %s1;\nmad.wide.u32 %rd1, %r1, %u1, %rd2;\nmul.wide.u16 %r1, %h1, %us1;", "");
    check("mul.wide.s32 %r1, %r2, %r3;\nmad.wide.u32 %rd1, %r1, %u1, %r2;", "1: operand 1 (%r1) is .b32, which does not agree with type .s64\n2: operand 4 (%r2) is .b32, which does not agree with type .u64");
    check("prmt.b32 %r1, %u1, %f1, %s1;\nprmt.b32.f4e %r1, %r2, %r3, 0x3210;", "");
    check("prmt.b32 %r1, %rd1, %r2, %r3;", "1: prmt.b32: operand 2 (%rd1) is .b64");
    check("shfl.sync.down.b32 %r1|%p1, %f1, 1, 31, -1;\nvote.sync.ballot.b32 %r1, %p1, %u1;\nvote.sync.all.pred %p2, !%p1, -1;", "");
    check(
        "shfl.sync.down.b32 %r1, %r2, 1, 31, %f1;\nvote.sync.ballot.b32 %r1, %p1, %f1;",
        "1: operand 5 (%f1) is .f32\n2: operand 3 (%f1) is .f32",
    );
}

#[test]
fn predicates() {
    check("setp.lt.s32 %p1, %r1, %s1;\nsetp.lt.and.f32 %p1|%p2, %f1, %f2, !%p3;\nselp.f32 %f1, %f2, %r1, %p1;\n@!%p1 bra $L;\n$L:\nret;", "");
    check(
        "setp.lt.s32 %r1, %r2, %r3;\nsetp.lt.s32 %p1|%r1, %r2, %r3;\nselp.b32 %r1, %r2, %r3, %r4;\nsetp.lt.and.s32 %p1, %r1, %r2, !%r3;\n@%r1 ret;",
        "1: setp.lt.s32: operand 1 (%r1) must be a .pred register, not .b32
         2: operand 1 (%r1) must be a .pred register
         3: selp.b32: operand 4 (%r4) must be a .pred register
         4: !%r3 negates a .b32 register
         4: operand 4 (%r3) must be a .pred register
         5: guard %r1 must be a .pred register, not .b32",
    );
    check("setp.lt.f32 %p1, %r1, %u1;", "1: operand 3 (%u1) is .u32, which does not agree with type .f32");
    check("and.pred %p1, %p2, %p3;\nand.pred %p1, %p2, %r1;", "2: and.pred: operand 3 (%r1) must be a .pred register");
}

#[test]
fn relaxed_rules_of_ld_st_cvt() {
    // Wider registers for ld/st/cvt (9.4.1), floats exact or bit-typed.
    check(
        "ld.global.u8 %r1, [%rd1];\nld.global.s16 %rd1, [%rd1];\nld.global.b8 %f1, [%rd1];\nld.global.f32 %rd2, [%rd1];\nst.global.u8 [%rd1], %r1;\nst.global.b16 [%rd1], %f1;\nst.global.f32 [%rd1], %r1;",
        "",
    );
    check(
        "ld.global.u32 %h1, [%rd1];\nld.global.u8 %hf0, [%rd1];\nld.global.f32 %u1, [%rd1];\nst.global.f64 [%rd1], %f1;\nst.global.b32 [%rd1], %hf0;",
        "1: ld.global.u32: operand 1 (%h1) is .b16, which does not fit destination type .u32 (PTX ISA 9.4.1, Table 28)
         2: operand 1 (%hf0) is .f16
         3: operand 1 (%u1) is .u32, which does not fit destination type .f32
         4: st.global.f64: operand 2 (%f1) is .f32, which does not fit source type .f64 (PTX ISA 9.4.1, Table 27)
         5: operand 2 (%hf0) is .f16",
    );
    check("cvt.u32.u8 %r1, %rd1;\ncvt.rn.f32.s16 %f1, %r1;\ncvt.s8.s32 %rd1, %s1;\ncvt.f32.f16 %f1, %h1;\ncvt.rn.f16.f32 %r1, %f1;", "");
    check(
        "cvt.u64.u32 %r1, %r2;\ncvt.rn.f32.s32 %f1, %f2;\ncvt.f64.f32 %fd1, %fd2;",
        "1: cvt.u64.u32: operand 1 (%r1) is .b32, which does not fit destination type .u64
         2: operand 2 (%f2) is .f32, which does not fit source type .s32
         3: operand 2 (%fd2) is .f64, which does not fit source type .f32",
    );
    // Formats no register can have take exactly the bit register of their size.
    check("cvt.rn.bf16.f32 %h1, %f1;\ncvt.rna.tf32.f32 %r1, %f1;\ncvt.rn.satfinite.e4m3x2.f32 %h1, %f1, %f2;\ncvt.rn.f16x2.e4m3x2 %r1, %h1;", "");
    // ... and their other side is not relaxed either (ptxas rejects a .b64 source here).
    check(
        "cvt.rn.bf16.f32 %r1, %f1;\ncvt.rna.tf32.f32 %f2, %f1;\ncvt.rn.bf16x2.f32 %r1, %rd1, %f1;",
        "1: cvt.rn.bf16.f32: operand 1 (%r1) is .b32, which does not agree with type .bf16 (PTX ISA 9.4, Table 26)
         2: operand 1 (%f2) is .f32, which does not agree with type .tf32
         3: operand 2 (%rd1) is .b64, which does not agree with type .f32",
    );
    // cvt.pack: d is a 32-bit unsigned integer, a and b .s32, c .b32.
    check("cvt.pack.sat.u16.s32 %r1, %s1, %r2;\ncvt.pack.sat.s4.s32.b32 %u1, %r1, %r2, %f1;", "");
    check("cvt.pack.sat.u16.s32 %f1, %s1, %f2;", "1: operand 1 (%f1) is .f32, which does not fit destination type .u32\n1: operand 3 (%f2) is .f32, which does not fit source type .s32");
}

#[test]
fn literals() {
    // Float types need float literals, integer types integer ones; bit
    // types take a float literal of their own size; .f16 has no literals.
    check(
        "add.f32 %f1, %f2, 0f3F800000;\nadd.f64 %fd1, %fd2, 1.0;\nmov.b32 %r1, 0f3F800000;\nmov.b64 %rd1, 0d3FF0000000000000;\nshl.b32 %r1, %r2, 3;\nsetp.lt.f32 %p1, %f1, 0f00000000;\nand.pred %p1, %p2, 1;\nst.global.f32 [%rd1], 1.0;\nst.global.v2.b16 [%rd1], {%h1, 1.0};",
        "",
    );
    check(
        "add.f32 %f1, %f2, 1;\nadd.u32 %r1, %r2, 1.0;\nmov.b64 %rd1, 0f3F800000;\nadd.f16 %hf0, %hf1, 0f3F800000;\nst.global.f32 [%rd1], 0;\nshl.b32 %r1, %r2, 0f3F800000;\nld.global.v2.u32 {%r1, 0}, [%rd1];\nmov.b32 {%h1, 1}, %r1;",
        "1: add.f32: operand 3 (1) is an integer literal, which a .f32 operand cannot be
         2: add.u32: operand 3 (1.0) is a 64-bit floating-point literal, which a .u32 operand cannot be
         3: mov.b64: operand 2 (0f3F800000) is a 32-bit floating-point literal, which a .b64 operand cannot be
         4: add.f16: operand 3 (0f3F800000): a .f16 operand cannot be a literal
         5: st.global.f32: operand 2 (0) is an integer literal
         6: shl.b32: operand 3 (0f3F800000) is a 32-bit floating-point literal, which a .u32 operand cannot be
         7: ld.global.v2.u32: a destination element cannot be a literal
         8: mov.b32: a destination element cannot be a literal",
    );
}

#[test]
fn instruction_types() {
    check(
        "add.b32 %r1, %r2, %r3;\nadd.u8 %r1, %r2, %r3;\ncvt.rn.f32.b32 %f1, %r1;\nld.global.f16 %h1, [%rd1];\nand.u32 %r1, %r2, %r3;\nmul.wide.u64 %rd1, %rd2, %rd3;",
        "1: add.b32: .b32 is not a valid instruction type
         2: add.u8: .u8 is not a valid instruction type
         3: cvt.rn.f32.b32: .b32 is not a valid instruction type
         4: ld.global.f16: .f16 is not a valid instruction type
         5: and.u32: .u32 is not a valid instruction type
         6: mul.wide.u64: .u64 is not a valid instruction type",
    );
    // Integer mul/mad need a mode, float ones must not have one; cvt pairs must exist.
    check(
        "mul.u32 %r1, %r2, %r3;\nmad.rn.s32 %r1, %r2, %r3, %r4;\nmul.hi.f32 %f1, %f2, %f3;\ncvt.u16.e4m3x2 %h1, %h2;\ncvt.rn.f16x2.e4m3x2 %r1, %h1;",
        "1: mul.u32: .mode missing
         2: mad: a rounding modifier needs a floating-point type
         3: mul.hi.f32: .hi does not go with the other modifiers
         4: cvt.u16.e4m3x2: .e4m3x2 is not a valid instruction type with these modifiers",
    );
    check(
        "cvt.pack.sat.u8.s32 %r1, %r2, %r3;\ncvt.pack.sat.u16.s32.b32 %r1, %r2, %r3, %r4;\ncvt.pack.sat.u8.u32.b32 %r1, %r2, %r3, %r4;",
        "1: cvt.pack.sat.u8.s32: .b32 missing
         2: cvt.pack.sat.u16.s32.b32: .b32 is not a valid instruction type with these modifiers
         3: cvt.pack.sat.u8.u32.b32: .u32 is not a valid instruction type with these modifiers",
    );
    check("cvta.to.global.s64 %rd1, %rd2;", "1: cvta.to.global.s64: .s64 is not a valid instruction type");
    check("mov %r1, %r2;", "1: mov: missing instruction type");
    // Types the IR does not model as scalar types are left alone.
    check("add.u16x2 %r1, %r2, %r3;\nmin.s16x2 %r1, %r2, %r3;", "");
}

#[test]
fn declarations_and_labels() {
    check("mov.u32 %r1, %tid.x;\nmov.u64 %rd1, %clock64;\nmov.u32 %r1, %envreg3;\nld.param.u64 %rd1, [k_param_0];", "");
    check(
        "add.u32 %r1, %r9, 1;\nld.global.u32 %r1, [%nope+4];\nbra NOWHERE;\nmov.f32 %f1, %f1.x;",
        "1: register %r9 is not declared
         2: register %nope is not declared
         3: branch target 'NOWHERE' is not a label of this function
         4: %f1.x: %f1 is not a vector register",
    );
    // A label of the function, even after the branch, and in an enclosing block.
    check("bra.uni $L_end;\n{\nbra $L_end;\n}\n$L_end:\nret;", "");
}

#[test]
fn names_spelled_like_registers_may_be_variables() {
    // PTX identifiers may start with `%`: a module variable, a parameter
    // and a local named so are not undeclared registers (ptxas agrees).
    let source = format!(
        "{}.global .u32 %g;\n\n.visible .entry k(.param .u64 %pp)\n{{\n.reg .b32 %r<3>;\n.reg .b64 %rd<3>;\n.local .u32 %loc;\nld.param.u64 %rd1, [%pp];\nld.global.u32 %r1, [%g];\nld.local.u32 %r2, [%loc];\nmov.u64 %rd2, %g;\nmov.u64 %rd2, %nope;\nret;\n}}\n",
        &HEADER[..HEADER.find(".visible").unwrap()]
    );
    let mut module = ptx_parse::parse(&source).unwrap();
    let errors = run_verify(&mut module).unwrap_err();
    let got: Vec<String> =
        errors.iter().map(|d| format!("{}: {}", line_of(&source, d.span.start), d.message)).collect();
    assert_eq!(got, vec!["16: register %nope is not declared"]);
}

#[test]
fn vector_arity_and_elements() {
    check(
        "ld.global.v4.f32 %v4, [%rd1];\nld.global.v2.f32 {%f1, %f2}, [%rd1];\nst.global.v2.f32 [%rd1], %v2;\nld.global.f32 {%f1}, [%rd1];\nld.global.v4.u32 {%r1, _, %r3, %u1}, [%rd1];\nadd.f32 %f1, %v4.x, %v2.y;",
        "",
    );
    // Elements: same-size integers pass for floats (as in ptxas), floats never for integers.
    check("ld.global.v2.f32 {%s1, %s2}, [%rd1];\nst.global.v2.u8 [%rd1], {%s1, %u1};\nld.global.v2.b16 {%fd1, %fd2}, [%rd1];", "");
    check(
        "ld.global.v2.u32 {%f1, %f2}, [%rd1];\nld.global.v2.f32 {%ud1, %ud2}, [%rd1];\nld.global.v2.f32 {%rd1, %rd2}, [%rd1];",
        "1: vector element %f1 is .f32, which cannot hold .u32
         1: vector element %f2
         2: vector element %ud1 is .u64, which cannot hold .f32
         2: vector element %ud2",
    );
    check(
        "ld.global.v2.f32 %v4, [%rd1];\nld.global.v4.f32 {%f1, %f2}, [%rd1];\nld.global.v2.f32 %f1, [%rd1];\nld.global.f32 %v2, [%rd1];\nld.global.v2.u32 {%h1, %h2}, [%rd1];\nadd.f32 %f1, %v4, %f2;\nst.global.v2.u16 [%rd1], {%h1, %r1};",
        "1: ld.global.v2.f32: vector register %v4 has 4 elements, 2 expected
         2: ld.global.v4.f32: operand 1 has 2 elements, 4 expected
         3: operand 1 (%f1) is a scalar register; a vector of 2 is expected
         4: vector register %v2 has 2 elements, 1 expected
         5: vector element %h1 is .b16, which cannot hold .u32
         5: vector element %h2 is .b16, which cannot hold .u32
         6: operand 2 (%v4) is a vector register (.v4 .f32); a scalar is expected
         7: vector element %r1 is .b32, not the size of the elements before it",
    );
    // mov packs and unpacks: each element has an equal share of the bits.
    check("mov.b64 %rd1, {%r1, %f1};\nmov.b32 {%h1, %hf0}, %r1;\nmov.b64 {%r1, %r2}, %fd1;", "");
    check("mov.b64 %rd1, {%r1, %h1};", "1: mov.b64: operand 2 (%h1) is .b16, which does not agree with type .b32");
}

/// A vector register moved as a whole by `mov.bN` of its size (either
/// direction, any element type) is what ptxas accepts; a vector on both
/// sides, a size that differs, or a non-bit type is not.
#[test]
fn whole_vector_registers_in_mov() {
    check(
        "mov.b64 %rd1, %v2;\nmov.b64 %v2, %rd1;\nmov.b128 %q1, %v4;\nmov.b128 %v4, %q1;\nmov.b64 %v2, 5;\nst.global.v2.f32 [%rd1], %v2;",
        "",
    );
    check(
        "mov.b64 %v2, %v2;\nmov.b64 %rd1, %v4;\nmov.u64 %rd1, %v2;\nmov.b64 {%r1, %r2}, %v2;",
        "1: operand 1 (%v2) is a vector register
         1: operand 2 (%v2) is a vector register
         2: operand 2 (%v4) is a vector register
         3: operand 2 (%v2) is a vector register
         4: operand 2 (%v2) is a vector register",
    );
}

/// Opcodes and modifiers: each error is one ptxas 13.5 reports on `sm_90`
/// ("Not a name of any known instruction", "Unknown modifier", "Illegal
/// rounding modifier", "Illegal modifier '.ftz'", "Illegal vector size",
/// "Modifier '.relaxed' requires scope", "Unexpected instruction types").
#[test]
fn opcodes_and_modifiers() {
    check(
        "add.rn.ftz.sat.f32 %f1, %f2, %f3;\nmul.wide.u32 %rd1, %r1, %r2;\nsetp.lt.and.ftz.f32 %p1, %f1, %f2, %p2;\nld.global.nc.L1::no_allocate.v2.f32 {%f1, %f2}, [%rd1];\nst.relaxed.gpu.global.u32 [%rd1], %r1;\ncvt.rni.s32.f32 %r1, %f1;\nbar.warp.sync -1;",
        "",
    );
    check(
        "mull.wide.u32 %rd1, %r1, %r2;\nadd.foo.u32 %r1, %r2, %r3;\nadd.rn.u32 %r1, %r2, %r3;\nadd.ftz.s32 %r1, %r2, %r3;\nand.rn.b32 %r1, %r2, %r3;\nld.global.v3.u32 %r1, [%rd1];\nld.relaxed.global.u32 %r1, [%rd1];\nld.volatile.param.u64 %rd1, [k_param_0];\ncvt.rn.s64.s32 %rd1, %r1;\nshr.s32.s32 %r1, %r2, 4;\nmov.v8.u32 %r1, %r2;",
        "1: 'mull' is not the name of any PTX instruction
         2: unknown modifier .foo
         3: a rounding modifier needs a floating-point type
         4: .ftz needs a floating-point type
         5: .rn is not a modifier of and
         6: .v3 is not a vector size
         7: .relaxed needs a scope
         8: .volatile cannot be applied to the .param space
         9: an integer-to-integer conversion takes no rounding modifier
         10: 2 instruction types, 1 expected
         11: .v8 is not a vector size mov takes",
    );
}

/// Operand counts and kinds ("Arguments mismatch", "Result register
/// required", "Label expected", "must be register"), with the optional
/// operands that depend on a modifier.
#[test]
fn operand_counts_and_kinds() {
    check(
        "ld.global.L2::cache_hint.u32 %r1, [%rd1], %rd2;\nsetp.eq.or.s32 %p1, %r1, 0, %p2;\nshfl.sync.bfly.b32 %r1|%p1, %r2, 1, 31, -1;\nvote.sync.ballot.b32 %r1, %p1, -1;\ncvt.rn.f16x2.f32 %r1, %f1, %f2;\nmov.b64 %rd1, k_param_0;\nlop3.b32 %r1, %r2, %r3, %r4, 0x96;",
        "",
    );
    check(
        "st.global.u32 [%rd1], %r1, %r2;\ncvta.to.global.u64 %rd1, %rd2, %rd3;\nadd.u32 %r1, %r2;\nsetp.eq.s32 %p1, %r1, 0, %p2;\ncvt.u32.u16 %r1, %h1, %h2;\nadd.u32 5, %r1, %r2;\nld.global.u32 %r1, %rd1;\nbra %r1;\nadd.u32 %r1, [%rd1], %r2;\nadd.s64 %rd1, %rd2, k_param_0;\nmov.b32 %r1, {%h1, %h2, %h3};\nexit %r1;",
        "1: st: 3 operands: a cache-policy operand needs .L2::cache_hint
         2: cvta: 3 operands, 2 expected
         3: add: 2 operands, 3 expected
         4: setp: 4 operands, 3 expected
         5: cvt: 3 operands, 2 expected
         6: operand 1 is a literal; a result register is required
         7: operand 2 must be an address
         8: operand 1 must be a label
         9: operand 2 is an address [...], which is not allowed here
         10: operand 3 is a parameter; a register is required
         11: operand 2 is a vector of a size PTX does not have
         12: exit: 1 operands, 0 expected",
    );
}

/// The literals ptxas range-checks: barrier numbers and thread counts.
/// Everything else it truncates (`add.u16 %h1, %h2, 70000` is valid).
#[test]
fn barrier_literals() {
    check("bar.sync 15, 64;\nbarrier.sync 0;\nbar.red.popc.u32 %r1, 1, %p1;\nadd.u16 %h1, %h2, 70000;\nshl.b32 %r1, %r2, 40;", "");
    check(
        "bar.sync 16;\nbar.arrive 1, 40;\nbar.red.popc.u32 %r1, 16, %p1;\nbarrier.sync -1;",
        "1: barrier number 16 is out of range
         2: thread count 40 is not a multiple of the warp size
         3: barrier number 16 is out of range
         4: barrier number -1 is out of range",
    );
}

/// The sink as the state of mbarrier.arrive and mbarrier.arrive_drop (ISA
/// 9.7.13.15.13-14: "Optionally, sink symbol '_' can be used for the state
/// argument"), with .shared, .shared::cta or no state space, as CCCL's
/// cuda::barrier writes it (`arrive_and_drop`) and TMA code writes
/// `arrive.expect_tx`; with .shared::cluster the sink is the only choice
/// (ptxas 13.5: "Sink '_' is expected as a destination operand").
#[test]
fn mbarrier_sink_state() {
    check(
        "mbarrier.arrive.shared.b64 _, [%r1];
         mbarrier.arrive.shared::cta.b64 _, [%r1], 1;
         mbarrier.arrive.b64 _, [%rd1];
         mbarrier.arrive.release.cta.shared::cta.b64 _, [%r1];
         mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r1], %r2;
         mbarrier.arrive.noComplete.shared.b64 _, [%r1], 1;
         mbarrier.arrive_drop.shared.b64 _, [%r1];
         mbarrier.arrive_drop.shared::cta.b64 _, [%r1], 2;
         mbarrier.arrive_drop.expect_tx.shared::cta.b64 _, [%r1], %r2;
         mbarrier.arrive_drop.noComplete.shared.b64 _, [%r1], 1;
         mbarrier.arrive.shared::cluster.b64 _, [%r1];
         mbarrier.arrive.shared.b64 %rd2, [%r1];
         mbarrier.arrive.b64 %rd3, [%rd1];",
        "",
    );
    check(
        "mbarrier.arrive.shared::cluster.b64 %rd2, [%r1];
         mbarrier.arrive_drop.shared::cluster.b64 %rd2, [%r1];",
        "1: mbarrier
         2: mbarrier",
    );
}

/// What mbarrier's arrive-on forms need beyond their words (ISA 9.7.13.15.13
/// and 14; each verdict compared with ptxas 13.5): a count without
/// `.noComplete` needs sm_90 ("requires .target sm_90 or higher" on sm_80,
/// at every .version), and `.relaxed` on arrive, arrive_drop, test_wait and
/// try_wait needs .version 8.6 (on expect_tx, 8.0).
#[test]
fn mbarrier_arrive_counts_and_relaxed() {
    let kernel = |version: &str, target: &str, line: &str| {
        format!(
            ".version {version}\n.target {target}\n.address_size 64\n.shared .align 8 .b64 bar;\n.visible .entry k()\n{{\n\
             .reg .pred %p<2>;\n.reg .b32 %r<2>;\n.reg .b64 %rd<2>;\nmov.u32 %r1, 1;\nmov.u64 %rd1, 0;\n{line}\nret;\n}}\n"
        )
    };
    let errors = |version: &str, target: &str, line: &str| {
        crate::alone::diagnose(&kernel(version, target, line)).into_iter().map(|d| d.message).collect::<Vec<_>>()
    };
    let counted = [
        "mbarrier.arrive.shared.b64 %rd1, [bar], %r1;",
        "mbarrier.arrive.shared::cta.b64 %rd1, [bar], 2;",
        "mbarrier.arrive_drop.shared.b64 %rd1, [bar], %r1;",
    ];
    for line in counted {
        assert!(errors("8.0", "sm_90", line).is_empty(), "{line}");
        assert_eq!(
            errors("8.0", "sm_80", line),
            ["'mbarrier.arrive with a count and without .noComplete' requires .target sm_90 or higher (the module's is \
              sm_80)"],
            "{line}"
        );
    }
    for line in ["mbarrier.arrive.noComplete.shared.b64 %rd1, [bar], %r1;", "mbarrier.arrive.shared.b64 %rd1, [bar];"] {
        assert!(errors("7.0", "sm_80", line).is_empty(), "{line}");
    }
    let relaxed = [
        "mbarrier.arrive.relaxed.cta.shared.b64 %rd1, [bar];",
        "mbarrier.arrive_drop.relaxed.cta.shared.b64 %rd1, [bar];",
        "mbarrier.test_wait.relaxed.cta.shared.b64 %p1, [bar], %rd1;",
        "mbarrier.try_wait.relaxed.cta.shared.b64 %p1, [bar], %rd1;",
    ];
    for line in relaxed {
        assert!(errors("8.6", "sm_90", line).is_empty(), "{line}");
        assert_eq!(errors("8.5", "sm_90", line).len(), 1, "{line}");
    }
    assert!(errors("8.0", "sm_90", "mbarrier.expect_tx.relaxed.cta.shared.b64 [bar], 1;").is_empty());
}

/// Two fp8 values from a .bf16x2 pair (the ISA's `.fp16x2` read as
/// `.f16x2` and `.bf16x2`; cuda_fp8.hpp writes it for sm_100a): ptxas 13.5
/// takes it from .version 9.1 on the sm_100a family and sm_120a, and says
/// "Feature 'cvt.e4m3x2.bf16x2' not supported on .target 'sm_90'" (and
/// 'sm_100'), or "requires PTX ISA .version 9.1" under 9.0.
#[test]
fn fp8_pairs_from_a_bf16x2_pair() {
    let kernel = |version: &str, target: &str| {
        format!(
            ".version {version}\n.target {target}\n.address_size 64\n.visible .entry k()\n{{\n.reg .b16 %h<2>;\n\
             .reg .b32 %r<2>;\nmov.b32 %r1, 0;\ncvt.rn.satfinite.e4m3x2.bf16x2 %h1, %r1;\n\
             cvt.rn.satfinite.relu.e5m2x2.bf16x2 %h1, %r1;\nret;\n}}\n"
        )
    };
    for (version, target) in [("9.1", "sm_100a"), ("9.1", "sm_120a"), ("9.5", "sm_103a")] {
        let errors = crate::alone::diagnose(&kernel(version, target));
        assert!(errors.is_empty(), "{version} {target}: {errors:?}");
    }
    for (version, target) in [("9.1", "sm_90"), ("9.1", "sm_100"), ("9.0", "sm_100a")] {
        let errors = crate::alone::diagnose(&kernel(version, target));
        assert!(errors.iter().any(|d| d.message.contains("cvt")), "{version} {target}: {errors:?}");
    }
}

#[test]
fn addresses() {
    check("ld.global.u32 %r1, [%rd1+4];\nld.global.u32 %r1, [%ud1];\nld.shared.u32 %r1, [%r2];\nst.shared.u32 [%u1+8], %r1;", "");
    check(
        "ld.global.u32 %r1, [%fd1];\nst.global.u32 [%q0], %r1;\nld.global.u32 %r1, [%p1];",
        "1: address register %fd1 is .f64; an address must be an integer or bit register of at most 64 bits
         2: address register %q0 is .b128
         3: address register %p1 is .pred",
    );
}

/// ptxas 13.5 and 12.9, on every target and .version: "Immediate addresses
/// allowed only for .local state space", for every memory instruction
/// (generic ones too); 24 forms compared with ptxas.
#[test]
fn immediate_addresses_only_in_local() {
    check("ld.local.u32 %r1, [16];\nst.local.u32 [8], %r1;\nld.local.u32 %r1, [%rd1+16];", "");
    check(
        "ld.global.u32 %r1, [16];\nst.u32 [0], %r1;\nmbarrier.init.shared::cta.b64 [131072], 1;\n\
         cp.async.ca.shared.global [16], [%rd1], 4;\natom.shared.add.u32 %r1, [16], 1;",
        "1: an immediate address is allowed only in the .local state space
         2: an immediate address is allowed only in the .local state space
         3: an immediate address is allowed only in the .local state space
         4: an immediate address is allowed only in the .local state space
         5: an immediate address is allowed only in the .local state space",
    );
}

/// In a module of `.address_size 64`, ptxas 13.5 takes a 32-bit address
/// register for `.shared`, `.local`, `.const`, `.param` and `cp.async`'s
/// global source, and a 16-bit one anywhere, but not a 32-bit one for a
/// load, store, atomic or prefetch of global or generic memory ("Program
/// uses 32-bit address ... conflicting with .address_size 64"; 69 forms
/// compared with ptxas).
#[test]
fn thirty_two_bit_addresses_of_global_memory() {
    check(
        "ld.shared.u32 %r1, [%r2];\nst.local.u32 [%r2], %r1;\nld.const.u32 %r1, [%r2];\nld.global.u32 %r1, [%h1];\n\
         cp.async.ca.shared.global [%r2], [%r2], 4;\nld.global.u32 %r1, [%rd1];",
        "",
    );
    check(
        "ld.global.u32 %r1, [%r2];\nst.u32 [%r2+4], %r1;\natom.add.u32 %r1, [%r2], 1;\nprefetch.global.L2 [%r2];",
        "1: address register %r2 is .b32: a 32-bit address of global memory in a module of .address_size 64
         2: address register %r2 is .b32: a 32-bit address of generic memory in a module of .address_size 64
         3: address register %r2 is .b32: a 32-bit address of generic memory in a module of .address_size 64
         4: address register %r2 is .b32: a 32-bit address of global memory in a module of .address_size 64",
    );
}

#[test]
fn every_error_is_reported_in_order() {
    check(
        "add.u32 %r1, %f1, %fd1;\nadd.b32 %r1, %r2, %r3;\nadd.u32 %r1, %r2, %r3;\nbra $nowhere;",
        "1: operand 2 (%f1) is .f32
         1: operand 3 (%fd1) is .f64
         2: .b32 is not a valid instruction type
         4: branch target '$nowhere' is not a label",
    );
}

#[test]
fn errors_across_functions_come_in_function_order() {
    let source = format!(
        "{}.func f()\n{{\n.reg .b32 %r<2>;\n.reg .f64 %fd;\nadd.u32 %r1, %r0, %fd;\nret;\n}}\n\n.visible .entry g()\n{{\n.reg .b16 %h;\nshl.b32 %h, %h, 1;\nret;\n}}\n",
        &HEADER[..HEADER.find(".visible").unwrap()]
    );
    let mut module = ptx_parse::parse(&source).unwrap();
    let errors = run_verify(&mut module).unwrap_err();
    let lines: Vec<usize> = errors.iter().map(|d| line_of(&source, d.span.start)).collect();
    assert_eq!(lines, vec![9, 16, 16], "{errors:?}");
}

#[test]
fn verify_changes_nothing() {
    let source = format!("{HEADER}{PRELUDE}add.u32 %r1, %r2, %r3; // comment kept\nret;\n}}\n");
    let mut module = ptx_parse::parse(&source).unwrap();
    assert_eq!(run_verify(&mut module), Ok(false));
    assert_eq!(ptx_ir::print::print_module(&module), source);
}

#[test]
fn instructions_made_by_passes_are_named_in_the_message() {
    let source = format!("{HEADER}{PRELUDE}add.u32 %r1, %f1, %r3;\nret;\n}}\n");
    let mut module = ptx_parse::parse(&source).unwrap();
    let func = first_function(&mut module);
    let id = func.inst_ids().next().unwrap();
    func.insts[id].span = Span::default();
    let errors = run_verify(&mut module).unwrap_err();
    assert_eq!(errors.len(), 1);
    assert!(errors[0].span.is_synthetic());
    assert!(errors[0].message.ends_with("(in `add.u32 %r1, %f1, %r3;`, function k)"), "{}", errors[0].message);
}

fn first_function(module: &mut Module) -> &mut ptx_ir::Function {
    module.functions.values_mut().next().expect("a function")
}

#[test]
fn broken_references_are_reported_not_panicked_on() {
    let source = format!("{HEADER}{PRELUDE}$L_top:\nadd.u32 %r1, %r2, %r3;\n@%p1 bra $L_top;\nret;\n}}\n");
    let parsed = ptx_parse::parse(&source).unwrap();
    // A register the function does not have.
    let mut module = parsed.clone();
    let func = first_function(&mut module);
    let add = func.inst_ids().next().unwrap();
    func.insts[add].operands[1] = ptx_ir::Operand::Reg(ptx_ir::RegId::from_u32(99_999));
    let errors = run_verify(&mut module).unwrap_err();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].message.starts_with("add: register #99999 does not exist"), "{}", errors[0].message);
    // The branch target's label statement deleted, then placed twice.
    let mut module = parsed.clone();
    let body = first_function(&mut module).body_mut().unwrap();
    let at = body.iter().position(|s| matches!(s, Stmt::Label(_))).unwrap();
    let label = body.remove(at);
    let errors = run_verify(&mut module).unwrap_err();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].message, "label $L_top is not placed in the function");
    first_function(&mut module).body_mut().unwrap().extend([label, label]);
    let errors = run_verify(&mut module).unwrap_err();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].message, "label $L_top is placed twice in function k");
}

/// One row of the oracle.
struct OracleCase {
    line: usize,
    instruction: String,
    instr_type: String,
    reg_type: String,
    verdict_ok: bool,
    error_text: String,
    ptx: String,
}

fn oracle_cases() -> Vec<OracleCase> {
    let path = shared_dir().join("oracle/typecheck_oracle.tsv");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut lines = text.lines().enumerate();
    let header: Vec<&str> = lines.next().expect("a header").1.split('\t').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap_or_else(|| panic!("no column {name}"));
    let (ins, it, rt, verdict, err, ptx) =
        (col("instruction"), col("instr_type"), col("reg_type"), col("ptxas_verdict"), col("error_text"), col("ptx"));
    lines
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(n, l)| {
            let f: Vec<&str> = l.split('\t').collect();
            OracleCase {
                line: n + 1,
                instruction: f[ins].to_string(),
                instr_type: f[it].to_string(),
                reg_type: f[rt].to_string(),
                verdict_ok: f[verdict] == "ok",
                error_text: f[err].to_string(),
                ptx: f[ptx].to_string(),
            }
        })
        .collect()
}

/// The declarations an oracle instruction needs: `%x` has the case's
/// register type; the other registers have the type their position calls
/// for (so they are always valid), addresses are `.u64`.
fn oracle_declarations(case: &OracleCase) -> String {
    let ptx = case.ptx.trim().trim_end_matches(';');
    let (opcode, operands) = ptx.split_once(char::is_whitespace).unwrap_or((ptx, ""));
    let types: Vec<&str> = opcode.split('.').skip(1).filter(|w| ptx_ir::ScalarType::from_str(w).is_some()).collect();
    let mut decls = String::new();
    for (i, op) in operands.split(',').map(str::trim).enumerate() {
        let (name, ty) = if let Some(addr) = op.strip_prefix('[') {
            (addr.trim_end_matches(']'), "u64")
        } else if op == "%x" {
            (op, case.reg_type.as_str())
        } else {
            let ty = match case.instruction.as_str() {
                "cvt" | "cvt-int" => types.get(i).copied(),
                _ => types.first().copied(),
            };
            (op, ty.unwrap_or(case.instr_type.as_str()))
        };
        decls.push_str(&format!(".reg .{ty} {name};\n"));
    }
    decls
}

#[test]
fn agrees_with_ptxas_on_every_oracle_case() {
    let cases = oracle_cases();
    assert_eq!(cases.len(), 1472, "the oracle has 1472 cases");
    let mut disagreements = Vec::new();
    for case in &cases {
        let body = if case.instruction == "decl" {
            format!("{}\n", case.ptx)
        } else {
            format!("{}{}\n", oracle_declarations(case), case.ptx)
        };
        let source = format!("{HEADER}{body}ret;\n}}\n");
        let inst_line = line_of(&source, (HEADER.len() + body.trim_end().rfind('\n').map_or(0, |i| i + 1)) as u32);
        let mut module = match ptx_parse::parse(&source) {
            Ok(m) => m,
            Err(e) => {
                disagreements.push(format!("oracle line {}: does not parse: {e:?}", case.line));
                continue;
            }
        };
        let outcome = run_verify(&mut module);
        let problem = match (&outcome, case.verdict_ok) {
            (Ok(_), true) => None,
            (Ok(_), false) => Some(format!("accepted; ptxas: {}", case.error_text)),
            (Err(e), true) => Some(format!("rejected ({}); ptxas accepts", e[0].message)),
            (Err(errors), false) => {
                let on_line: Vec<_> = errors.iter().filter(|d| line_of(&source, d.span.start) == inst_line).collect();
                let invalid_type = case.error_text.starts_with("Unexpected instruction types");
                let same_kind =
                    on_line.iter().any(|d| d.message.contains("is not a valid instruction type") == invalid_type);
                if on_line.is_empty() {
                    Some(format!("error not on the instruction's line: {errors:?}"))
                } else if !same_kind {
                    Some(format!("ptxas says '{}', verify says '{}'", case.error_text, on_line[0].message))
                } else {
                    None
                }
            }
        };
        if let Some(p) = problem {
            disagreements.push(format!(
                "oracle line {} ({} .{} with .{}): `{}`: {p}",
                case.line, case.instruction, case.instr_type, case.reg_type, case.ptx
            ));
        }
    }
    assert!(
        disagreements.is_empty(),
        "{} of {} oracle cases disagree with ptxas:\n{}",
        disagreements.len(),
        cases.len(),
        disagreements.join("\n")
    );
}

#[test]
fn accepts_every_public_corpus_file() {
    let files = corpus_files();
    assert_eq!(files.len(), 227, "the public corpus has 227 files");
    let mut failures = Vec::new();
    let mut instructions = 0usize;
    for path in &files {
        let source = std::fs::read_to_string(path).unwrap();
        let mut module =
            ptx_parse::parse(&source).unwrap_or_else(|e| panic!("{}: does not parse: {e:?}", path.display()));
        instructions += module
            .functions
            .values()
            .flat_map(|f| f.body().into_iter().flatten())
            .filter(|s| matches!(s, Stmt::Inst(_)))
            .count();
        if let Err(errors) = run_verify(&mut module) {
            for d in errors.iter().take(5) {
                failures.push(format!("{}:{}: {}", path.display(), line_of(&source, d.span.start), d.message));
            }
        }
    }
    assert!(instructions > 100_000, "only {instructions} instructions");
    assert!(failures.is_empty(), "valid files rejected:\n{}", failures.join("\n"));
}

/// Rules from the ISA sweep (`isa_sweep.rs`), each error one ptxas
/// 13.5 reports: comparisons a type does not have ("Mismatch between
/// instruction type and comparison qualifier"), `.ftz` on integer or
/// `.f64` comparisons, video operands ("Incorrect video selector", "Vector
/// operand is not allowed"), `createpolicy`'s operand types, the register
/// vectors of `ldmatrix`/`stmatrix` and `wmma.load`/`wmma.store`'s
/// operands ("Arguments mismatch").
#[test]
fn sweep_forms() {
    check(
        "setp.lo.u32 %p1, %u1, %u2;\nsetp.equ.ftz.f32 %p1, %f1, %f2;\nset.gtu.ftz.u32.f32 %u1, %f1, %f2;\nsetp.ne.b32 %p1, %r1, %r2;\nvadd2.u32.u32.u32 %r1, %r2, %r3, %r4;\ncreatepolicy.fractional.L2::evict_last.b64 %rd1, 0.5;\ncreatepolicy.range.L2::evict_last.b64 %rd1, [%rd2], %r1, 1;\ncreatepolicy.cvt.L2.b64 %rd1, %rd2;\nldmatrix.sync.aligned.m8n8.x4.b16 {%r1, %r2, %r3, %r4}, [%rd1];\nwmma.load.a.sync.aligned.row.m16n16k16.f16 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [%rd1], 16;\ntxq.width.b32 %r1, [%rd1];",
        "",
    );
    check(
        "setp.lo.s32 %p1, %s1, %s2;\nsetp.lt.b32 %p1, %r1, %r2;\nsetp.num.u32 %p1, %u1, %u2;\nsetp.hs.f32 %p1, %f1, %f2;\nsetp.eq.ftz.u32 %p1, %u1, %u2;\nset.eq.ftz.u32.f64 %u1, %fd1, %fd2;\nvadd2.u32.u32.u32 %r1, %r2, %r3, 0;\nvmad.u32.u32.u32 %r1, {%r2}, %r3, %r4;\ncreatepolicy.fractional.L2::evict_last.b64 %rd1, 1;\ncreatepolicy.range.L2::evict_last.b64 %rd1, [%rd2], %rd3, 1;\ncreatepolicy.cvt.L2.b64 %rd1, %r2;\nldmatrix.sync.aligned.m8n8.x4.b16 {%r1, %r2}, [%rd1];\nstmatrix.sync.aligned.m8n8.x1.b8 [%rd1], {%r1};\nwmma.load.a.sync.aligned.row.m16n16k16.f16 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, %rd1, 16;\nwmma.store.d.sync.aligned.row.m16n16k16.f32 [%rd1], {%f0, %f1, %f2, %f3, %f0, %f1, %f2, %f3}, %r1, %r2;\ntxq.width.b32 %r1, [%rd1+0];",
        "1: the comparison .lo does not apply to .s32
         2: the comparison .lt does not apply to .b32
         3: the comparison .num does not apply to .u32
         4: the comparison .hs does not apply to .f32
         5: .ftz does not apply to .u32
         6: .ftz does not apply to .f64
         7: operand 4 of a SIMD video instruction must be a register
         8: operand 2 is a vector {...}, which a video instruction does not take
         9: operand 2 (1) is an integer literal
         10: operand 3 (%rd3) is .b64
         11: operand 2 (%r2) is .b32
         12: operand 1 must be a vector of 4 registers
         13: .b8 is not an instruction type of stmatrix with shape .m8n8
         14: operand 2 must be an address
         15: 4 operands, 2 to 3 expected
         16: a texture or surface handle register takes no offset",
    );
}

/// A module parsed in batches: each batch holds only its own items, and the
/// verifier learns what the rest of the source declares from the parser
/// (`ptx_parse::SourceDeclarations`), by position, so a batch sees what an
/// earlier batch declared and nothing declared after it, even when the
/// parser has gone further (as it does when it runs ahead of verification).
#[test]
fn batches_see_what_earlier_batches_declare() {
    let header = &HEADER[..HEADER.find(".visible").unwrap()];
    let function = |name: &str, uses: &[&str]| {
        let loads: String = uses.iter().map(|u| format!("ld.global.u32 %r1, [{u}];\n")).collect();
        format!(".visible .entry {name}()\n{{\n.reg .b32 %r<2>;\n{loads}ret;\n}}\n\n")
    };
    let source: std::sync::Arc<str> = format!(
        "{header}.global .align 4 .u32 early;\n{}{}.global .align 4 .u32 late;\n{}",
        function("a", &["early"]),
        function("b", &["early", "late"]),
        function("c", &["early", "late"]),
    )
    .into();
    let declarations = std::sync::Arc::new(ptx_parse::SourceDeclarations::default());
    let mut batches = Vec::new();
    assert!(ptx_parse::parse_in_batches(&source, 1, &declarations, |batch, _| {
        batches.push(batch);
        true
    }));
    assert!(batches.len() >= 3, "one batch per function");
    let errors_of = |verifier: &ptx_verify::Verifier| -> Vec<String> {
        let errors = batches.iter().flat_map(|batch| verifier.verify(batch).err().unwrap_or_default());
        errors.map(|d| format!("{}: {}", line_of(&source, d.span.start), d.message)).collect()
    };
    let whole = {
        let module = ptx_parse::parse(&source).unwrap();
        ptx_verify::verify_module(&module, &ptx_verify::Target::of(&module))
    }
    .unwrap_err();
    let whole: Vec<String> =
        whole.iter().map(|d| format!("{}: {}", line_of(&source, d.span.start), d.message)).collect();
    assert_eq!(whole.len(), 1, "only b names 'late' before it is declared: {whole:?}");
    assert!(whole[0].contains("late"), "{whole:?}");
    let told = {
        let declarations = declarations.clone();
        ptx_verify::Verifier::with_declarations_before(move |name, at| declarations.declared_before(name, at))
    };
    assert_eq!(errors_of(&told), whole, "batches told what the source declares: as the whole module");
    let untold = errors_of(&ptx_verify::Verifier::new());
    assert!(untold.len() > whole.len() && untold.iter().any(|e| e.contains("'early'")), "{untold:?}");
    // The same through `Verify` one function at a time.
    for batch in &batches {
        let declarations = declarations.clone();
        let verify = ptx_verify::Verify::for_module(batch)
            .with_declarations_before(move |name, at| declarations.declared_before(name, at));
        for func in batch.functions.values().filter(|f| f.has_body()) {
            let errors = ptx_verify::verify_function(func, &verify);
            assert_eq!(errors.len(), usize::from(func.name == "b"), "{}: {errors:?}", func.name);
        }
    }
}

/// A clean instruction vouches for the later ones of its shape
/// (`crates/ptx-verify/src/shape.rs`), and a shape counts an integer
/// literal by its value only where a check reads it: a listed or bounded
/// operand, a barrier number or thread count. The first of each pair is
/// clean, the second is not, and each is followed by one whose literal no
/// check reads. ptxas 13.5 rejects lines 2, 4, 6 and 8 alone.
#[test]
fn a_clean_literal_vouches_only_where_values_do_not_matter() {
    check(
        "mbarrier.init.shared.b64 [%rd1], 1;\nmbarrier.init.shared.b64 [%rd1], 0;\n\
         pmevent 1;\npmevent 16;\n\
         bar.sync 0;\nbar.sync 16;\n\
         bar.sync 1, 64;\nbar.sync 1, 48;\n\
         add.s32 %r1, %r2, 1;\nadd.s32 %r1, %r2, 0x7fffffff;\n\
         ld.global.u32 %r1, [%rd1+4];\nld.global.u32 %r1, [%rd1+-4000];",
        "2: mbarrier: operand 2 must be a .b32 register or a value (count)
         4: pmevent: operand 1 must be one of 0, 1, 2
         6: barrier number 16 is out of range 0..15
         8: barrier thread count 48 is not a multiple of the warp size (32)",
    );
}

/// The declaration check is part of an instruction shape's verdict: a use
/// before the declaration is reported and its later twins are checked anew
/// (clean once the name is declared), and every use in the wrong space is
/// reported, not only the first.
#[test]
fn declarations_are_checked_per_use_within_shapes() {
    check(
        "ld.shared.u32 %r1, [buf];\n.shared .align 4 .b8 buf[16];\nld.shared.u32 %r1, [buf];\nld.shared.u32 %r2, [buf];\nld.global.u32 %r1, [buf];\nld.global.u32 %r2, [buf];\nld.shared.u32 %r1, [nosuch];\nld.shared.u32 %r2, [nosuch];",
        "5: operand 2 addresses .global, but the variable it names is declared in .shared
         6: operand 2 addresses .global, but the variable it names is declared in .shared
         1: 'buf' is not declared
         5: .global access to 'buf', which is declared in .shared
         6: .global access to 'buf', which is declared in .shared
         7: 'nosuch' is not declared
         8: 'nosuch' is not declared",
    );
}

/// Only `mov` and `cvt` read a special register, and not with a
/// floating-point type, as ptxas 13.5 and 12.9 have it ("Special register
/// argument not allowed for instruction 'mul'"; 38 forms compared): a
/// hand-written kernel of a fourth held-out batch multiplied `%ntid.x` in.
#[test]
fn special_registers_are_read_by_mov_and_cvt() {
    check(
        "mov.u32 %r1, %tid.x;\nmov.b32 %r1, %laneid;\ncvt.u64.u32 %rd1, %ctaid.x;\ncvt.u32.u64 %r1, %clock64;\n\
         mov.u64 %rd1, %globaltimer;\ncvt.sat.u32.s32 %r1, %tid.x;\nmov.pred %p1, %is_explicit_cluster;",
        "",
    );
    check(
        "mul.lo.u32 %r1, %r2, %ntid.x;\nadd.u32 %r1, %tid.x, 1;\nsetp.eq.u32 %p1, %tid.x, 0;\n\
         st.global.u32 [%rd1], %tid.x;\nmov.f32 %f1, %tid.x;\ncvt.rn.f32.u32 %f1, %tid.x;",
        "1: mul: %ntid.x is a special register, which only mov and cvt, of types other than floating-point, read
         2: add: %tid.x is a special register
         3: setp: %tid.x is a special register
         4: st: %tid.x is a special register
         5: mov: %tid.x is a special register
         6: cvt: %tid.x is a special register",
    );
}

/// The sink `_` for a result ptxas lets an instruction discard (`@discard`
/// in the description): every form of `atom` (as `red`, without the
/// result) and `setp`'s predicate, alone or as either half of its pair, as
/// ptxas 13.5 has it; not where it says "Result discard mode is not
/// allowed" (`add`, `mov`, `ld`, `vote`, ...).
#[test]
fn discarded_results() {
    check(
        "atom.global.add.u32 _, [%rd1], 1;\natom.shared.cas.b32 _, [%rd1], 1, 2;\n\
         atom.global.exch.b64 _, [%rd1], %rd2;\nsetp.eq.u32 _, %r1, 0;\nsetp.lt.and.f32 _|%p1, %f1, %f2, %p2;\n\
         setp.eq.u32 %p1|_, %r1, 0;",
        "",
    );
    check(
        "add.u32 _, %r1, 1;\nld.global.u32 _, [%rd1];\nvote.sync.any.pred _, %p1, -1;",
        "1: add: operand 1 is '_', which is not allowed here
         2: ld: operand 1 is '_', which is not allowed here
         3: vote: operand 1 is '_', which is not allowed here",
    );
}
