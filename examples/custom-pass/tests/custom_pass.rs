//! The example end to end: the `custom-pass` binary on the test kernel
//! (ptxas accepts the output, the interpreter finds it equivalent, exactly
//! the expected instructions changed), its diagnostics and exit codes, and
//! the pass through the library under verify-each.

use custom_pass::FoldIntIdentities;
use ptx_opt::Options;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/identities.ptx")
}

fn run_binary(args: &[&Path]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_custom-pass")).args(args).output().expect("runs custom-pass")
}

/// The instructions of `ptx`, one per line, whitespace collapsed, comments
/// and blank lines dropped.
fn instructions(ptx: &str) -> Vec<String> {
    ptx.lines()
        .map(|l| l.split("//").next().unwrap().split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|l| !l.is_empty() && l.ends_with(';') && !l.starts_with('.'))
        .collect()
}

fn count_movs(insts: &[String]) -> usize {
    insts.iter().filter(|l| l.starts_with("mov.") || l.starts_with("@%p1 mov.")).count()
}

/// Every identity of the test kernel, as the `mov` it must become.
const FOLDED: &[&str] = &[
    // zero-operand (13)
    "mov.s32 %r10, %r1;",
    "mov.u32 %r11, %r1;",
    "mov.s32 %r12, %r1;",
    "mov.b32 %r13, %r1;",
    "mov.b32 %r14, %r1;",
    "mov.b32 %r15, %r1;",
    "mov.b32 %r16, %r1;",
    "mov.u16 %rs2, %rs1;",
    "mov.u64 %rd4, %rd3;",
    "mov.b64 %rd9, %rd3;",
    "@%p1 mov.s32 %r30, %r1;",
    "mov.s32 %r41, %r1;",
    "mov.s32 %r52, %r1;",
    // zero-shift (4)
    "mov.b32 %r17, %r1;",
    "mov.u32 %r18, %r1;",
    "mov.s32 %r19, %r1;",
    "mov.b64 %rd6, %rd3;",
    // mul-one (4)
    "mov.s32 %r20, %r1;",
    "mov.u32 %r21, %r1;",
    "mov.u16 %rs4, %rs1;",
    "mov.u64 %rd5, %rd3;",
    // and-all-ones (6)
    "mov.b32 %r22, %r1;",
    "mov.b32 %r23, %r1;",
    "mov.b32 %r24, %r1;",
    "mov.b16 %rs3, %rs1;",
    "mov.b16 %rs7, %rs1;",
    "mov.b64 %rd7, %rd3;",
    // annihilated (4)
    "mov.b32 %r25, 0x0;",
    "mov.b32 %r26, 0x0;",
    "mov.s32 %r27, 0x0;",
    "mov.u32 %r28, 0x0;",
];

/// The traps, which must come out as they went in.
const UNTOUCHED: &[&str] = &[
    "mov.u32 %r7, 0;",
    "mov.u32 %r8, 0;",
    "mov.u32 %r30, 7;",
    "mov.u32 %r40, 0;",
    "add.s32 %r42, %r1, %r40;",
    "mov.u32 %r31, 1;",
    "@%p1 mov.u32 %r31, 0;",
    "add.s32 %r32, %r1, %r31;",
    "add.f32 %f2, %f1, 0f00000000;",
    "sub.s32 %r35, %r8, %r1;",
    "sub.s32 %r36, 0, %r1;",
    "shl.b32 %r37, 0, %r1;",
    "and.b32 %r43, %r1, 0xffff;",
    "and.b64 %rd11, %rd3, 0xffffffff;",
    "mul.hi.u32 %r44, %r1, 1;",
    "mul.wide.u32 %rd10, %r1, 1;",
    "add.sat.s32 %r45, %r1, 0;",
    "add.cc.u32 %r46, %r1, 0;",
    "addc.u32 %r47, %r2, 0;",
];

/// The constant movs left without readers (the last one made by fold-prmt).
const DELETED: &[&str] = &["%r4, 0;", "%r5, 1;", "%r6, -1;", "%rs6, -1;", "%rd8, 0;", "%r51,"];

#[test]
fn binary_folds_the_identities_and_keeps_the_meaning() {
    let input = std::fs::read_to_string(testdata()).unwrap();
    let out = run_binary(&[&testdata()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "stderr: {stderr}");
    let output = String::from_utf8(out.stdout).expect("UTF-8 output");

    let toolchain = ptx_toolchain::cached().expect("ptxas is available (scripts/fetch-toolchain.sh)");
    let target = ptx_toolchain::target_of(&input).expect("a .target");
    toolchain.compile(&output, &target, &[]).unwrap_or_else(|e| panic!("ptxas rejects the output: {e}\n{output}"));
    ptx_interp::assert_equivalent(&input, &output)
        .unwrap_or_else(|report| panic!("not shown equivalent:\n{report}\n--- after ---\n{output}"));

    let before = instructions(&input);
    let after = instructions(&output);
    for line in FOLDED {
        assert!(after.iter().any(|l| l == line), "expected `{line}` in the output:\n{output}");
    }
    for line in UNTOUCHED {
        assert!(before.iter().any(|l| l == line), "`{line}` is not in the input");
        assert!(after.iter().any(|l| l == line), "trap `{line}` was changed:\n{output}");
    }
    for tail in DELETED {
        assert!(!after.iter().any(|l| l.starts_with("mov.") && l.ends_with(tail)), "`mov {tail}` was kept");
    }
    // 31 arithmetic instructions became movs; 5 of the input's movs and the
    // one fold-prmt made were deleted; nothing else was added or lost.
    let arithmetic = |insts: &[String]| {
        let ops = ["add.", "sub.", "or.", "xor.", "and.", "shl.", "shr.", "mul.", "@%p1 add."];
        insts.iter().filter(|l| ops.iter().any(|op| l.starts_with(op))).count()
    };
    assert_eq!(arithmetic(&before) - arithmetic(&after), FOLDED.len());
    assert_eq!(count_movs(&after), count_movs(&before) - 5 + FOLDED.len());
    assert_eq!(after.len(), before.len() - DELETED.len() - 1 /* the prmt */ + 1 /* its mov, deleted */);
}

#[test]
fn library_run_under_verify_each_counts_every_rule() {
    let input = std::fs::read_to_string(testdata()).unwrap();
    let options =
        Options { verify_each: true, ..Options::with_passes(["fold-prmt"]).with_function_pass(FoldIntIdentities) };
    let out = ptx_opt::optimize(&input, &options).unwrap_or_else(|e| panic!("{e}: {:?}", e.diagnostics));
    let [prmt, mine] = out.run.passes.as_slice() else { panic!("two passes ran") };
    assert_eq!((prmt.name, prmt.stats.counter("constant")), ("fold-prmt", Some(1)));
    assert_eq!(mine.name, custom_pass::NAME);
    assert!(mine.changed);
    let counters: Vec<(&str, u64)> = mine.stats.counters.iter().map(|(c, n)| (c.id, *n)).collect();
    assert_eq!(
        counters,
        [
            ("and-all-ones", 6),
            ("annihilated", 4),
            ("dead-deleted", 6),
            ("mul-one", 4),
            ("zero-operand", 13),
            ("zero-shift", 4)
        ]
    );
    // One remark per rewrite, at the rewritten instruction's line.
    assert_eq!(mine.stats.remarks.len(), FOLDED.len());
    let index = ptx_opt::LineIndex::new(&input);
    let first = &mine.stats.remarks[0];
    let (line, _) = index.line_col(&input, first.span.start as usize);
    assert_eq!(index.line_text(&input, line).trim(), "add.s32 \t%r10, %r1, 0;");
    assert_eq!(first.message, "add.s32: add/sub/or/xor of 0 made a copy");
    assert!(mine.stats.remarks.iter().any(|r| r.message == "and.b32: and with 0 or mul.lo by 0 made a constant 0"));
    // The binary prints what the library returns.
    let binary = run_binary(&[&testdata()]);
    assert_eq!(String::from_utf8(binary.stdout).unwrap(), out.ptx);

    // Idempotent: nothing left to fold.
    let again = ptx_opt::optimize(
        &out.ptx,
        &Options { verify_each: true, ..Options::default() }.with_function_pass(FoldIntIdentities),
    )
    .unwrap();
    assert!(!again.run.passes[0].changed);
    assert_eq!(again.ptx, out.ptx);
}

#[test]
fn invalid_input_is_reported_with_file_line_and_column() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let path = dir.join("custom-pass-invalid.ptx");
    let source = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\t.reg .b32 %r<3>;\n\tadd.s32 %r1, , %r2;\n\tret;\n}\n";
    std::fs::write(&path, source).unwrap();
    let out = run_binary(&[&path]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8(out.stderr).unwrap();
    let want = format!("{}:7:15: error: ", path.display());
    assert!(stderr.starts_with(&want), "stderr: {stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines[1], "\tadd.s32 %r1, , %r2;");
    assert_eq!(lines[2], "\t             ^");
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(run_binary(&[]).status.code(), Some(2));
    let missing = Path::new(env!("CARGO_TARGET_TMPDIR")).join("custom-pass-no-such-file.ptx");
    let out = run_binary(&[&missing]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read"));
}
