//! Loads and stores: every state space, generic addressing through cvta,
//! vectors, relaxed operand widths (ISA 9.4.1), atomics, cp.async, and the
//! faults that out-of-bounds and misaligned accesses must produce.

use crate::harness::{module_text, run_grid, run_text, words};
use ptx_interp::InterpError;

fn out_words(body: &str, module_level: &str, input: &[u8]) -> Vec<u32> {
    let text = module_text(body, "", module_level);
    let out = run_text(&text, input, 1).unwrap_or_else(|e| panic!("{e}\n{text}"));
    words(&out.buffers[0].data[..64])
}

/// ISA 9.4.1: loads sign-extend for signed instruction types and
/// zero-extend otherwise; stores truncate.
#[test]
fn relaxed_widths_on_load_and_store() {
    let input = [0x80u8, 0xff, 0x34, 0x12, 0xf0, 0xde, 0xbc, 0x9a];
    let w = out_words(
        "\tld.global.s8 %r1, [%rd15];\n\tst.global.b32 [%rd14], %r1;\n\
         \tld.global.u8 %r2, [%rd15];\n\tst.global.b32 [%rd14+4], %r2;\n\
         \tld.global.b8 %r3, [%rd15];\n\tst.global.b32 [%rd14+8], %r3;\n\
         \tld.global.s16 %rd4, [%rd15];\n\tst.global.b64 [%rd14+16], %rd4;\n\
         \tld.global.u16 %rd5, [%rd15];\n\tst.global.b64 [%rd14+24], %rd5;\n\
         \tld.global.s32 %rd6, [%rd15+4];\n\tst.global.b64 [%rd14+32], %rd6;\n\
         \tmov.b32 %r7, 0x11223344;\n\tst.global.b8 [%rd14+40], %r7;\n\tst.global.u16 [%rd14+44], %r7;",
        "",
        &input,
    );
    assert_eq!(w[0], 0xffff_ff80, "ld.s8 sign-extends");
    assert_eq!(w[1], 0x80, "ld.u8 zero-extends");
    assert_eq!(w[2], 0x80, "ld.b8 zero-extends");
    assert_eq!((w[4], w[5]), (0xffff_ff80, 0xffff_ffff), "ld.s16 into 64 bits");
    assert_eq!((w[6], w[7]), (0xff80, 0), "ld.u16 into 64 bits");
    assert_eq!((w[8], w[9]), (0x9abc_def0, 0xffff_ffff), "ld.s32 into 64 bits");
    assert_eq!(w[10], 0x44, "st.b8 truncates");
    assert_eq!(w[11], 0x3344, "st.u16 truncates");
}

#[test]
fn vector_loads_and_stores() {
    let input: Vec<u8> = (1..=16).collect();
    let w = out_words(
        "\tld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd15];\n\tst.global.v2.u32 [%rd14], {%r4, %r1};\n\
         \tld.global.v2.u16 {%rs1, _}, [%rd15+4];\n\tst.global.u16 [%rd14+8], %rs1;\n\
         \tst.global.v4.b32 [%rd14+16], {%r1, _, %r3, 7};",
        "",
        &input,
    );
    assert_eq!(w[0], 0x100f_0e0d);
    assert_eq!(w[1], 0x0403_0201);
    assert_eq!(w[2], 0x0605);
    assert_eq!(&w[4..8], &[0x0403_0201, 0, 0x0c0b_0a09, 7], "sink element leaves memory alone");
}

/// A vector register (`.reg .v2 .u32 t`) holds its elements: a vector `ld`,
/// `st` or `mov` of it moves them all, `mov.bN` packs them (the first
/// element in the low bits), `t.x` is one element. ptxas accepts each form.
#[test]
fn vector_registers_hold_their_elements() {
    let input: Vec<u8> = (1..=32).collect();
    let decls = "\t.reg .v2 .u32 t, u;\n\t.reg .v4 .f32 f;\n\t.reg .v2 .u16 h;\n";
    let body = "\tld.global.v2.u32 t, [%rd15];\n\tst.global.v2.u32 [%rd14], t;\n\
         \tmov.b64 %rd1, t;\n\tst.global.u64 [%rd14+8], %rd1;\n\
         \tmov.b64 u, 0x1111222233334444;\n\tadd.u32 u.y, u.y, t.x;\n\tst.global.v2.u32 [%rd14+16], u;\n\
         \tmov.v2.u32 u, t;\n\tmov.u32 u.x, 7;\n\tst.global.v2.b32 [%rd14+24], u;\n\
         \tld.global.v4.f32 f, [%rd15+16];\n\tmov.f32 f.g, 0f3F800000;\n\tst.global.v4.f32 [%rd14+32], f;\n\
         \tld.global.v2.u32 {t.y, t.x}, [%rd15];\n\tst.global.v2.u32 [%rd14+48], {t.y, t.x};\n\tst.global.u32 [%rd14+56], t.x;\n\
         \tmov.b32 h, 0xfffe0001;\n\tcvt.s32.s16 %r1, h.y;\n\tst.global.u32 [%rd14+60], %r1;";
    let text = module_text(body, decls, "");
    let out = run_text(&text, &input, 1).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let w = words(&out.buffers[0].data[..64]);
    assert_eq!(&w[0..2], &[0x0403_0201, 0x0807_0605], "ld/st of the whole register");
    assert_eq!(&w[2..4], &[0x0403_0201, 0x0807_0605], "mov.b64: t.x is the low half");
    assert_eq!(&w[4..6], &[0x3333_4444, 0x1111_2222 + 0x0403_0201], "mov.b64 into it, then one element");
    assert_eq!(&w[6..8], &[7, 0x0807_0605], "mov.v2 copies every element; u.x alone changed after");
    assert_eq!(&w[8..12], &[0x1413_1211, 0x3f80_0000, 0x1c1b_1a19, 0x201f_1e1d], ".v4 .f32; f.g is element 1");
    assert_eq!(&w[12..14], &[0x0403_0201, 0x0807_0605], "braces of elements, in the order written");
    assert_eq!(w[14], 0x0807_0605, "t.x was loaded from the second word");
    assert_eq!(w[15], 0xffff_fffe, "h.y of .v2 .u16, sign-extended by cvt.s32.s16");
}

/// A vector register is no scalar of another width: the interpreter says
/// the instruction is invalid rather than guess (ptxas rejects both).
#[test]
fn a_vector_register_is_not_a_scalar_of_another_width() {
    for body in ["\tld.global.v2.u32 t, [%rd15];\n\tmov.u32 %r1, t;", "\tld.global.u64 t, [%rd15];"] {
        let text = module_text(body, "\t.reg .v2 .u32 t;\n", "");
        match run_text(&text, &[], 1) {
            Err(InterpError::Invalid { .. }) => {}
            other => panic!("{body}: {other:?}"),
        }
    }
}

#[test]
fn shared_local_const_and_module_globals() {
    let module_level = ".global .align 4 .u32 g_counter = 5;\n.const .align 4 .b32 c_table[2] = {0x11, 0x22};\n.shared .align 4 .b32 s_buf[4];";
    let w = out_words(
        "\t.local .align 8 .b8 depot[16];\n\
         \tst.shared.u32 [s_buf+4], 0x55;\n\tld.shared.u32 %r1, [s_buf+4];\n\tst.global.u32 [%rd14], %r1;\n\
         \tmov.u64 %rd1, depot;\n\tst.local.u32 [%rd1+8], 0x66;\n\tld.local.u32 %r2, [depot+8];\n\tst.global.u32 [%rd14+4], %r2;\n\
         \tld.const.u32 %r3, [c_table+4];\n\tst.global.u32 [%rd14+8], %r3;\n\
         \tld.global.u32 %r4, [g_counter];\n\tadd.u32 %r4, %r4, 1;\n\tst.global.u32 [g_counter], %r4;\n\tst.global.u32 [%rd14+12], %r4;\n\
         \tcvta.shared.u64 %rd2, s_buf;\n\tld.u32 %r5, [%rd2+4];\n\tst.global.u32 [%rd14+16], %r5;\n\
         \tcvta.local.u64 %rd3, %rd1;\n\tld.u32 %r6, [%rd3+8];\n\tst.global.u32 [%rd14+20], %r6;\n\
         \tcvta.const.u64 %rd4, c_table;\n\tld.u32 %r7, [%rd4];\n\tst.global.u32 [%rd14+24], %r7;\n\
         \tcvta.to.shared.u64 %rd5, %rd2;\n\tld.shared.u32 %r8, [%rd5+4];\n\tst.global.u32 [%rd14+28], %r8;\n\
         \tld.param.u64 %rd6, [t_out];\n\tcvta.to.global.u64 %rd7, %rd6;\n\tst.global.u32 [%rd7+32], 0x77;",
        module_level,
        &[],
    );
    assert_eq!(&w[..9], &[0x55, 0x66, 0x22, 6, 0x55, 0x66, 0x11, 0x55, 0x77]);
}

#[test]
fn module_globals_are_reported_after_the_run() {
    let text = module_text("\tst.global.u32 [g_counter], 9;", "", ".global .align 4 .u32 g_counter = 5;");
    let out = run_text(&text, &[], 1).unwrap();
    assert_eq!(out.globals, vec![("g_counter".to_string(), vec![9, 0, 0, 0])]);
}

/// Initial contents come from the initializer's typed value
/// (`ptx_ir::InitValue`), laid out as ptxas 13.5 lays them out (read back
/// from the `.nv.global.init` section of its cubin): nested lists flattened
/// in order (`{{1, 2}, {4}}` fills 1, 2, 4, not 1, 2, 0, 4) and the rest
/// zero, decimal floats rounded to the variable's type, integer constant
/// expressions and `mask()` of them evaluated, `0d` rounded to a `.f32`
/// variable but `0f` in a `.f64` one kept as its 32 bits.
#[test]
fn initializers_of_every_form() {
    let vars: &[(&str, &str, &[u8])] = &[
        (".u32 grid[2][3]", "{{1, 2}, {4}}", &[1, 0, 0, 0, 2, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
        (".u32 sum", "1000 + 546 - 6", &[0x04, 0x06, 0, 0]),
        (".u8 bytes[2]", "{0xFF(1000 + 546), 0xFF00(131187)}", &[0x0a, 0x00]),
        (
            ".f32 fl[3]",
            "{0.1, 1e-3, 0d3FF0000000000000}",
            &[0xcd, 0xcc, 0xcc, 0x3d, 0x6f, 0x12, 0x83, 0x3a, 0, 0, 0x80, 0x3f],
        ),
        (".f64 fd[2]", "{0.5, 0f3F800000}", &[0, 0, 0, 0, 0, 0, 0xe0, 0x3f, 0, 0, 0x80, 0x3f, 0, 0, 0, 0]),
        (".s32 ng[2]", "{ - 5, /* sixteen */ -0x10 }", &[0xfb, 0xff, 0xff, 0xff, 0xf0, 0xff, 0xff, 0xff]),
        (".u16 oct[3]", "{0777, 0b101U}", &[0xff, 0x01, 0x05, 0, 0, 0]),
    ];
    let mut module_level = String::new();
    let mut body = String::new();
    let mut at = 0;
    for (decl, init, _) in vars {
        module_level.push_str(&format!(".global .align 8 {decl} = {init};\n"));
        let name = decl.split(' ').nth(1).unwrap().split('[').next().unwrap();
        for (i, _) in vars.iter().find(|v| v.0 == *decl).unwrap().2.iter().enumerate() {
            body.push_str(&format!("\tld.global.u8 %r1, [{name}+{i}];\n\tst.global.u8 [%rd14+{}], %r1;\n", at + i));
        }
        at += 32;
    }
    let text = module_text(&body, "", &module_level);
    let out = run_text(&text, &[], 1).unwrap_or_else(|e| panic!("{e}\n{text}"));
    for (k, (decl, init, want)) in vars.iter().enumerate() {
        assert_eq!(&out.buffers[0].data[32 * k..32 * k + want.len()], *want, "{decl} = {init}");
    }
}

/// An address of a variable in an initializer is not modelled: reading it
/// is reported as unsupported, not read as a wrong number.
#[test]
fn initializers_holding_variable_addresses_are_not_modelled() {
    for init in ["generic(g_counter)", "g_counter", "generic(g_counter)+4", "0xFF(g_counter)"] {
        let module_level = format!(".global .align 4 .u32 g_counter = 5;\n.global .align 8 .u64 g_ptr = {init};");
        let text = module_text("\tld.global.u64 %rd1, [g_ptr];\n\tst.global.u64 [%rd14], %rd1;", "", &module_level);
        match run_text(&text, &[], 1) {
            Err(InterpError::Unsupported { opcode, .. }) => assert!(opcode.contains("g_ptr"), "{init}: {opcode}"),
            other => panic!("{init}: {other:?}"),
        }
    }
}

fn expect_fault(body: &str, module_level: &str) {
    let text = module_text(body, "", module_level);
    match run_text(&text, &[], 1) {
        Err(InterpError::MemoryFault { line, .. }) => assert!(line > 0),
        other => panic!("expected a memory fault, got {other:?}\n{body}"),
    }
}

#[test]
fn faults_are_errors() {
    expect_fault("\tld.global.u32 %r1, [%rd14+4096];", "");
    expect_fault("\tld.global.u32 %r1, [%rd14+4094];", "");
    expect_fault("\tld.global.u32 %r1, [%rd14+2];", "");
    expect_fault("\tld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd14+8];", "");
    expect_fault("\tst.global.u32 [%rd14+-4], 1;", "");
    expect_fault("\tmov.u64 %rd1, 0;\n\tld.u32 %r1, [%rd1];", "");
    expect_fault("\tst.const.u32 [c_x], 1;", ".const .align 4 .u32 c_x = 1;");
    expect_fault("\tld.shared.u32 %r1, [s_x+4];", ".shared .align 4 .u32 s_x;");
    // A generic pointer truncated to 32 bits no longer points at the buffer.
    expect_fault("\tcvt.u32.u64 %r1, %rd14;\n\tcvt.u64.u32 %rd1, %r1;\n\tld.u32 %r2, [%rd1];", "");
}

#[test]
fn a_faulting_vector_store_writes_nothing() {
    let text = module_text(
        "\tst.global.v2.u32 [%rd14+4088], {%r1, %r1};\n\tst.global.v2.u32 [%rd14+4092], {%r1, %r1};",
        "",
        "",
    );
    assert!(matches!(run_text(&text, &[], 1), Err(InterpError::MemoryFault { .. })));
}

#[test]
fn atomics_in_global_and_shared_memory() {
    let module_level = ".shared .align 4 .u32 s_sum;";
    let body = "\tmov.u32 %r1, %tid.x;\n\
        \tatom.global.add.u32 %r2, [%rd14], %r1;\n\
        \tatom.shared.add.u32 %r3, [s_sum], 1;\n\
        \tatom.global.max.s32 %r4, [%rd14+4], %r1;\n\
        \tatom.global.inc.u32 %r5, [%rd14+8], 5;\n\
        \tatom.global.cas.b32 %r6, [%rd14+12], 0, %r1;\n\
        \tatom.global.exch.b32 %r7, [%rd14+16], %r1;\n\
        \tred.global.or.b32 [%rd14+20], %r1;\n\
        \tatom.global.add.f32 %f1, [%rd14+24], 0f3F800000;\n\
        \tbar.sync 0;\n\
        \tsetp.eq.u32 %p1, %r1, 0;\n\
        \t@%p1 ld.shared.u32 %r8, [s_sum];\n\
        \t@%p1 st.global.u32 [%rd14+28], %r8;";
    let text = module_text(body, "", module_level);
    let out = run_grid(&text, &[], 1, 8, 4096).unwrap();
    let w = words(&out.buffers[0].data[..32]);
    // Threads run in order 0..7: sum 28, max 7, inc wraps at 5 (0,1,2,3,4,5,0,1 -> ends at 2),
    // cas(0 -> tid) succeeds while the word is 0: threads 0 and 1, leaving 1;
    // exch leaves the last tid; or of 0..7.
    assert_eq!(w, vec![28, 7, 2, 1, 7, 7, 8.0f32.to_bits(), 8]);
}

#[test]
fn cp_async_copies_and_zero_fills() {
    let input: Vec<u8> = (1..=32).collect();
    let module_level = ".shared .align 16 .b8 s_tile[32];";
    let body = "\tcp.async.ca.shared.global [s_tile], [%rd15], 16;\n\
        \tcp.async.cg.shared.global [s_tile+16], [%rd15+16], 16, 4;\n\
        \tcp.async.commit_group;\n\tcp.async.wait_group 0;\n\
        \tld.shared.v4.u32 {%r1, %r2, %r3, %r4}, [s_tile];\n\tst.global.v4.u32 [%rd14], {%r1, %r2, %r3, %r4};\n\
        \tld.shared.v4.u32 {%r1, %r2, %r3, %r4}, [s_tile+16];\n\tst.global.v4.u32 [%rd14+16], {%r1, %r2, %r3, %r4};";
    let text = module_text(body, "", module_level);
    let out = run_text(&text, &input, 1).unwrap();
    assert_eq!(&out.buffers[0].data[..16], &input[..16]);
    assert_eq!(&out.buffers[0].data[16..20], &input[16..20]);
    assert_eq!(&out.buffers[0].data[20..32], &[0u8; 12], "bytes past src-size are zero");
}

#[test]
fn kernel_parameters_are_read_only_and_addressable() {
    let text =
        module_text("\tmov.u64 %rd1, t_in;\n\tld.param.u64 %rd2, [%rd1];\n\tst.global.u64 [%rd14], %rd2;", "", "");
    let out = run_text(&text, &[], 1).unwrap();
    assert_eq!(&out.buffers[0].data[..8], &0x11_0000_0000u64.to_le_bytes());
    let text = module_text("\tst.param.u64 [t_in], %rd1;", "", "");
    assert!(matches!(run_text(&text, &[], 1), Err(InterpError::MemoryFault { .. })));
}

/// A kernel's shared addresses do not depend on the shared variables of
/// other kernels in the module (removing an unrelated kernel is no change).
#[test]
fn shared_layout_is_per_kernel() {
    let k2 = ".visible .entry k2(.param .u64 k2_out)\n{\n\t.reg .b64 %rd<4>;\n\t.shared .align 4 .b32 s2[4];\n\tld.param.u64 %rd1, [k2_out];\n\tmov.u64 %rd2, s2;\n\tst.global.u64 [%rd1], %rd2;\n\tret;\n}\n";
    let k1 = ".visible .entry k1(.param .u64 k1_out)\n{\n\t.reg .b64 %rd<4>;\n\t.shared .align 4 .b32 s1[64];\n\tld.param.u64 %rd1, [k1_out];\n\tmov.u64 %rd2, s1;\n\tst.global.u64 [%rd1], %rd2;\n\tret;\n}\n";
    let header = ".version 8.5\n.target sm_90\n.address_size 64\n";
    let both = format!("{header}{k1}{k2}");
    let alone = format!("{header}{k2}");
    let opts = ptx_interp::DiffOptions { kernel: Some("k2".into()), ..Default::default() };
    let report = ptx_interp::diff_modules(&ptx_parse::parse(&both).unwrap(), &ptx_parse::parse(&alone).unwrap(), &opts);
    assert!(report.is_equivalent(), "{report}");
}
