//! Wrong rewrites the checker must catch, and right rewrites it must
//! accept, on a small kernel written the way compilers write them.

use ptx_interp::{diff_modules, DiffOptions, Verdict};

const BASE: &str = r#"
.version 8.5
.target sm_90
.address_size 64

.visible .entry mix(
	.param .u64 mix_out,
	.param .u64 mix_in,
	.param .u32 mix_n
)
{
	.reg .pred %p<4>;
	.reg .b16 %rs<4>;
	.reg .b32 %r<32>;
	.reg .b64 %rd<16>;
	.reg .f32 %f<4>;
	.shared .align 4 .b32 s_buf[64];

	ld.param.u64 %rd1, [mix_out];
	ld.param.u64 %rd2, [mix_in];
	ld.param.u32 %r1, [mix_n];
	cvta.to.global.u64 %rd3, %rd1;
	cvta.to.global.u64 %rd4, %rd2;
	mov.u32 %r2, %tid.x;
	mov.u32 %r3, %ctaid.x;
	mov.u32 %r4, %ntid.x;
	mad.lo.s32 %r5, %r3, %r4, %r2;
	mul.wide.s32 %rd5, %r5, 16;
	add.s64 %rd6, %rd4, %rd5;
	mul.wide.s32 %rd12, %r5, 32;
	add.s64 %rd7, %rd3, %rd12;
	ld.global.v4.u32 {%r6, %r7, %r8, %r9}, [%rd6];
	ld.global.s8 %r10, [%rd6+1];
	cvt.pack.sat.s16.s32 %r11, %r6, %r7;
	prmt.b32 %r12, %r8, %r9, 0x5140;
	add.sat.s32 %r13, %r6, %r10;
	shr.s32 %r14, %r7, 5;
	setp.lt.s32 %p1, %r5, %r1;
	selp.b32 %r15, %r11, %r12, %p1;
	@%p1 add.s32 %r13, %r13, 3;
	cvt.rn.f32.s32 %f1, %r8;
	cvt.rn.f16.f32 %rs1, %f1;
	cvt.u32.u16 %r16, %rs1;
	bfe.s32 %r17, %r9, 4, 9;
	min.s32 %r18, %r6, %r9;
	mul.hi.s32 %r19, %r6, %r7;
	xor.b32 %r20, %r16, %r17;
	xor.b32 %r20, %r20, %r19;
	mul.wide.u32 %rd8, %r2, 4;
	mov.u64 %rd9, s_buf;
	add.s64 %rd10, %rd9, %rd8;
	st.shared.u32 [%rd10], %r14;
	bar.sync 0;
	sub.u32 %r21, %r4, 1;
	sub.u32 %r21, %r21, %r2;
	mul.wide.u32 %rd11, %r21, 4;
	add.s64 %rd11, %rd9, %rd11;
	ld.shared.u32 %r22, [%rd11];
	shfl.sync.down.b32 %r23, %r18, 1, 0x1f, -1;
	cvt.sat.u8.s32 %r24, %r6;
	prmt.b32.f4e %r25, %r8, %r9, %r6;
	cvt.pack.sat.u4.s32.b32 %r26, %r6, %r7, %r8;
	st.global.v4.u32 [%rd7], {%r13, %r15, %r20, %r22};
	st.global.v2.u32 [%rd7+16], {%r23, %r24};
	st.global.u32 [%rd7+24], %r25;
	st.global.u32 [%rd7+28], %r26;
	ret;
}
"#;

/// (description, text to replace, replacement): each one a wrong rewrite.
const WRONG: &[(&str, &str, &str)] = &[
    ("swapped cvt.pack operands", "cvt.pack.sat.s16.s32 %r11, %r6, %r7;", "cvt.pack.sat.s16.s32 %r11, %r7, %r6;"),
    ("wrong prmt selector byte", "prmt.b32 %r12, %r8, %r9, 0x5140;", "prmt.b32 %r12, %r8, %r9, 0x5150;"),
    ("zero- instead of sign-extension", "ld.global.s8 %r10, [%rd6+1];", "ld.global.u8 %r10, [%rd6+1];"),
    ("dropped .sat", "cvt.sat.u8.s32 %r24, %r6;", "cvt.u8.s32 %r24, %r6;"),
    ("lost guard", "@%p1 add.s32 %r13, %r13, 3;", "add.s32 %r13, %r13, 3;"),
    ("rounding mode changed", "cvt.rn.f16.f32 %rs1, %f1;", "cvt.rz.f16.f32 %rs1, %f1;"),
    ("arithmetic shift made logical", "shr.s32 %r14, %r7, 5;", "shr.u32 %r14, %r7, 5;"),
    ("signed high multiply made unsigned", "mul.hi.s32 %r19, %r6, %r7;", "mul.hi.u32 %r19, %r6, %r7;"),
    ("signed compare made unsigned", "setp.lt.s32 %p1, %r5, %r1;", "setp.lt.u32 %p1, %r5, %r1;"),
    ("removed barrier", "\tbar.sync 0;\n", ""),
    ("signed bit field made unsigned", "bfe.s32 %r17, %r9, 4, 9;", "bfe.u32 %r17, %r9, 4, 9;"),
    ("signed min made unsigned", "min.s32 %r18, %r6, %r9;", "min.u32 %r18, %r6, %r9;"),
    ("selp operands swapped", "selp.b32 %r15, %r11, %r12, %p1;", "selp.b32 %r15, %r12, %r11, %p1;"),
    ("shuffle direction", "shfl.sync.down.b32 %r23, %r18, 1, 0x1f, -1;", "shfl.sync.up.b32 %r23, %r18, 1, 0x1f, -1;"),
    ("prmt mode", "prmt.b32.f4e %r25, %r8, %r9, %r6;", "prmt.b32.b4e %r25, %r8, %r9, %r6;"),
    (
        "sub-byte pack signedness",
        "cvt.pack.sat.u4.s32.b32 %r26, %r6, %r7, %r8;",
        "cvt.pack.sat.s4.s32.b32 %r26, %r6, %r7, %r8;",
    ),
    ("dropped store", "\tst.global.u32 [%rd7+28], %r26;\n", ""),
    ("store offset", "st.global.u32 [%rd7+24], %r25;", "st.global.u32 [%rd7+20], %r25;"),
];

/// Rewrites that keep the meaning.
const RIGHT: &[(&str, &str, &str)] = &[
    ("shift for multiply", "mul.wide.s32 %rd12, %r5, 32;", "cvt.s64.s32 %rd12, %r5;\n\tshl.b64 %rd12, %rd12, 5;"),
    ("prmt for explicit bytes", "prmt.b32 %r12, %r8, %r9, 0x5140;", "prmt.b32 %r12, %r8, %r9, 0xd5140;"),
    ("guard as select", "@%p1 add.s32 %r13, %r13, 3;", "add.s32 %r27, %r13, 3;\n\tselp.b32 %r13, %r27, %r13, %p1;"),
    (
        "xor reassociated",
        "xor.b32 %r20, %r16, %r17;\n\txor.b32 %r20, %r20, %r19;",
        "xor.b32 %r20, %r17, %r19;\n\txor.b32 %r20, %r20, %r16;",
    ),
];

fn parse(text: &str) -> ptx_ir::Module {
    ptx_parse::parse(text).unwrap_or_else(|e| panic!("{e:?}\n{text}"))
}

#[test]
fn the_base_kernel_is_fully_checkable() {
    let m = parse(BASE);
    let report = diff_modules(&m, &m, &DiffOptions::default());
    assert!(report.is_equivalent(), "{report}");
    let k = &report.kernels[0];
    assert!(k.conclusive >= 4, "{report}");
    assert_eq!(k.coverage.0, k.coverage.1, "every instruction runs: {report}");
}

#[test]
fn wrong_rewrites_are_reported_as_different() {
    let base = parse(BASE);
    let mut missed = Vec::new();
    for (what, from, to) in WRONG {
        assert!(BASE.contains(from), "{what}: pattern not in the base kernel");
        let mutant = parse(&BASE.replacen(from, to, 1));
        let report = diff_modules(&base, &mutant, &DiffOptions::default());
        match &report.kernels[0].verdict {
            Verdict::Different(d) => assert!(!d.what.is_empty()),
            _ => missed.push(format!("{what}: {report}")),
        }
        assert_eq!(report.exit_code(), if missed.is_empty() { 1 } else { report.exit_code() });
    }
    assert!(missed.is_empty(), "{} of {} wrong rewrites not caught:\n{}", missed.len(), WRONG.len(), missed.join("\n"));
}

#[test]
fn right_rewrites_are_equivalent() {
    let base = parse(BASE);
    for (what, from, to) in RIGHT {
        assert!(BASE.contains(from), "{what}: pattern not in the base kernel");
        let rewritten = parse(&BASE.replacen(from, to, 1));
        let report = diff_modules(&base, &rewritten, &DiffOptions::default());
        assert!(report.is_equivalent(), "{what}: {report}");
    }
}

#[test]
fn a_difference_names_trial_seed_and_location() {
    let (_, from, to) = WRONG[0];
    let report = diff_modules(&parse(BASE), &parse(&BASE.replacen(from, to, 1)), &DiffOptions::default());
    let text = report.to_string();
    assert!(text.contains("DIFFERENT in trial"), "{text}");
    assert!(text.contains("buffer 0 (mix_out)"), "{text}");
    assert!(text.contains("--seed 0x5eed"), "{text}");
}
