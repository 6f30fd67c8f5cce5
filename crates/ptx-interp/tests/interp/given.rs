//! `ptx-interp run` with given inputs: the line format's parser and its
//! errors (exit 2, a message naming the line, never a panic), and the
//! known-value cases of `testdata/interp/known-values` (`NAME.ptx` with
//! `NAME.run`: one thread each, expected outputs worked out by hand from
//! the ISA text), each run through the real binary.

use ptx_interp::given::{Element, Given, GivenInputs, ParamRef};
use std::path::{Path, PathBuf};
use std::process::Command;

fn interp(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ptx-interp")).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

/// `ptx` in a file of a fresh scratch directory (kept while the first
/// value lives), and the file's path.
fn scratch_file(ptx: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.ptx");
    std::fs::write(&a, ptx).unwrap();
    let path = a.to_string_lossy().into_owned();
    (dir, path)
}

/// `ptx-interp diff` of `ptx` (written to a scratch file) with itself,
/// with `args` after the files.
fn diff_itself(ptx: &str, args: &[&str]) -> (i32, String) {
    let (_dir, a) = scratch_file(ptx);
    let mut all = vec!["diff", &a, &a];
    all.extend_from_slice(args);
    interp(&all)
}

fn known_values_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/interp/known-values")
}

const KERNEL: &str = ".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 k_out, .param .u32 k_n, .param .f32 k_x)\n{\n\t.reg .b32 %r<4>;\n\t.reg .f32 %f<2>;\n\t.reg .b64 %rd<4>;\n\tld.param.u64 %rd1, [k_out];\n\tld.param.u32 %r1, [k_n];\n\tld.param.f32 %f1, [k_x];\n\tcvta.to.global.u64 %rd2, %rd1;\n\tmov.u32 %r2, %tid.x;\n\tmul.wide.u32 %rd3, %r2, 8;\n\tadd.s64 %rd3, %rd2, %rd3;\n\tadd.u32 %r3, %r1, %r2;\n\tst.global.u32 [%rd3], %r3;\n\tst.global.f32 [%rd3+4], %f1;\n\tret;\n}\n";

#[test]
fn parses_every_line_kind() {
    let mut g = GivenInputs::default();
    g.add_text(
        "# a comment\n\nkernel k\ngrid 2,3\nblock 4,1,2 # trailing comment\nparam k_n = 0x10\nparam 2 = -1.5\n\
         buffer k_out = zero 16\nbuffer in = s8 -1 127\nexpect k_out = u32 1 2\nexpect 0+8 = f32 0x3f800000 2\n",
    )
    .unwrap();
    assert_eq!(g.kernel.as_deref(), Some("k"));
    assert_eq!(g.grid, Some([2, 3, 1]));
    assert_eq!(g.block, Some([4, 1, 2]));
    assert_eq!(g.params[0], (ParamRef::Name("k_n".into()), Given::Scalar("0x10".into())));
    assert_eq!(g.params[1], (ParamRef::Index(2), Given::Scalar("-1.5".into())));
    assert_eq!(g.params[2], (ParamRef::Name("k_out".into()), Given::Buffer(vec![0; 16])));
    assert_eq!(g.params[3], (ParamRef::Name("in".into()), Given::Buffer(vec![0xff, 0x7f])));
    assert_eq!(g.expects.len(), 2);
    assert_eq!((g.expects[0].element, g.expects[0].offset), (Element::Unsigned(4), 0));
    assert_eq!(g.expects[0].bytes, [1, 0, 0, 0, 2, 0, 0, 0]);
    // f32: 0x is the bit pattern, anything else a number.
    assert_eq!((g.expects[1].param.clone(), g.expects[1].offset), (ParamRef::Index(0), 8));
    assert_eq!(g.expects[1].bytes, [0, 0, 0x80, 0x3f, 0, 0, 0, 0x40]);
}

#[test]
fn continued_lines() {
    let mut g = GivenInputs::default();
    g.add_text("buffer c = u8 1 \\\n   2 \\ # a comment\n 3\n\nparam n = 4 \\").unwrap();
    assert_eq!(g.params[0], (ParamRef::Name("c".into()), Given::Buffer(vec![1, 2, 3])));
    assert_eq!(g.params[1], (ParamRef::Name("n".into()), Given::Scalar("4".into())));
    // An error in a continued line names its first line.
    let err = GivenInputs::default().add_text("grid 1\nbuffer c = u8 1 \\\n 300\n").unwrap_err();
    assert_eq!(err, "line 2: '300' does not fit in 8 bits");
}

#[test]
fn element_encodings() {
    let enc = |line: &str| {
        let mut g = GivenInputs::default();
        g.add_text(line).unwrap();
        match &g.params[0].1 {
            Given::Buffer(b) => b.clone(),
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(enc("buffer b = u16 0xffff -1 -32768"), [0xff, 0xff, 0xff, 0xff, 0x00, 0x80]);
    assert_eq!(enc("buffer b = s32 -2"), [0xfe, 0xff, 0xff, 0xff]);
    assert_eq!(enc("buffer b = u64 0x0102030405060708"), [8, 7, 6, 5, 4, 3, 2, 1]);
    assert_eq!(enc("buffer b = f32 1 -0 inf"), [0, 0, 0x80, 0x3f, 0, 0, 0, 0x80, 0, 0, 0x80, 0x7f]);
    // An f32 decimal is rounded once to f32, not through f64.
    assert_eq!(enc("buffer b = f32 1.00000005960464477539062500000001"), 0x3f80_0001u32.to_le_bytes());
    assert_eq!(enc("buffer b = f64 0.5"), 0.5f64.to_bits().to_le_bytes());
}

#[test]
fn bad_lines_give_clear_errors() {
    let cases: &[(&str, &str)] = &[
        ("grid", "is not a positive count"),
        ("grid 0", "'0' is not a positive count"),
        ("grid 1,2,3,4", "expected x, x,y or x,y,z"),
        ("block x", "'x' is not a positive count"),
        ("block 99999999999", "is not a positive count"),
        ("kernel", "expected 'kernel NAME'"),
        ("kernel a b", "expected 'kernel NAME'"),
        ("launch 3", "unknown keyword 'launch'"),
        ("param n 3", "expected 'param NAME = ...'"),
        ("param = 3", "expected 'param NAME = ...'"),
        ("param n =", "expected 'param NAME = ...'"),
        ("param n = 1 2", "a parameter takes one value"),
        ("param a b = 1", "'a b' is not a parameter name or index"),
        ("buffer b = zero", "expected zero or an element type"),
        ("buffer b = zero -4", "'-4' is not a size in bytes"),
        ("buffer b = zero 99999999999", "is larger than"),
        ("buffer b = i32 1", "'i32': expected zero or an element type"),
        ("buffer b = u32", "no u32 elements"),
        ("buffer b = u8 256", "'256' does not fit in 8 bits"),
        ("buffer b = s8 -129", "'-129' does not fit in 8 bits"),
        ("buffer b = u32 12abc", "'12abc' is not an integer"),
        ("buffer b = u64 0x1ffffffffffffffff", "is not an integer"),
        ("buffer b = f32 one", "'one' is not a number"),
        ("buffer b = f32 0xzz", "'0xzz' is not an integer"),
        ("expect b+x = u8 1", "'x' is not a byte offset"),
        ("expect b+99999999999 = u8 1", "is not a byte offset"),
        ("expect b = zero 1x", "is not a size in bytes"),
    ];
    for (line, want) in cases {
        let mut g = GivenInputs::default();
        let err = g.add_text(&format!("# first\n{line}\n")).expect_err(line);
        assert!(err.starts_with("line 2: ") && err.contains(want), "{line}: {err}");
    }
}

#[test]
fn arguments_against_the_parameters() {
    let dir = tempfile::tempdir().unwrap();
    let ptx = dir.path().join("k.ptx");
    std::fs::write(&ptx, KERNEL).unwrap();
    let ptx = ptx.to_string_lossy().into_owned();
    let cases: &[(&[&str], &str)] = &[
        (&["param k_n = 1"], "parameter k_x is not given"),
        (&["param k_n = 1", "param k_x = 1", "param nope = 3"], "no parameter nope"),
        (&["param k_n = 1", "param k_x = 1", "param 7 = 3"], "no parameter #7"),
        (&["param k_n = 1", "param k_x = 1", "param k_out = 3"], "k_out is a pointer: give it a buffer"),
        (&["param k_n = u32 1"], "a parameter takes one value"),
        (&["buffer k_n = u32 1", "param k_x = 1", "buffer k_out = zero 8"], "k_n is not a pointer"),
        (&["param k_n = 0x100000000", "param k_x = 1"], "parameter k_n: '0x100000000' does not fit in 32 bits"),
        (&["param k_n = 1", "param k_x = many"], "parameter k_x: 'many' is not a number"),
        (&["grid 2000", "param k_n = 1", "param k_x = 1"], "grid of 2000 is larger than the interpreter runs (1024)"),
        (&["block 65536,65536,2"], "block of 8589934592 is larger"),
    ];
    for (lines, want) in cases {
        let mut args = vec!["run", ptx.as_str()];
        for l in *lines {
            args.extend(["--input", l]);
        }
        let (code, text) = interp(&args);
        assert!(!text.contains("panicked"), "{lines:?}: {text}");
        assert_eq!(code, 2, "{lines:?}: {text}");
        assert!(text.contains("error: ") && text.contains(want), "{lines:?}: {text}");
    }
    // A file's error names the file and the line.
    let run = dir.path().join("bad.run");
    std::fs::write(&run, "grid 1\nblock 1\nbuffer k_out = u8 300\n").unwrap();
    let (code, text) = interp(&["run", &ptx, "--inputs", &run.to_string_lossy()]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("bad.run: line 3: '300' does not fit in 8 bits"), "{text}");
    let (code, text) = interp(&["run", &ptx, "--inputs", &dir.path().join("missing.run").to_string_lossy()]);
    assert_eq!(code, 2, "{text}");
    let (code, text) = interp(&["run", &ptx, "--kernel", "other", "--input", "grid 1"]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("no function with a body named 'other'"), "{text}");
}

#[test]
fn given_values_run_and_print() {
    let dir = tempfile::tempdir().unwrap();
    let ptx = dir.path().join("k.ptx");
    std::fs::write(&ptx, KERNEL).unwrap();
    let ptx = ptx.to_string_lossy().into_owned();
    // The only kernel is taken; k_out is not named, so it gets zeroed bytes.
    let (code, text) = interp(&[
        "run",
        &ptx,
        "--buffer-size",
        "24",
        "--input",
        "block 2",
        "--input",
        "grid 1",
        "--input",
        "param k_n = 0x7ffffffe",
        "--input",
        "param 2 = 1.5",
        "--input",
        "expect k_out = u32 0x7ffffffe 0x3fc00000 0x7fffffff",
        "--input",
        "expect k_out+12 = f32 1.5",
        "--input",
        "expect k_out+16 = u8 0 0 0 0 0 0 0 0",
    ]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("param k_n (int32) = 0x7ffffffe"), "{text}");
    assert!(text.contains("param k_x (float32) = 0x3fc00000"), "{text}");
    assert!(text.contains("  000000: feffff7f 0000c03f ffffff7f 0000c03f 00000000 00000000\n"), "{text}");
    assert!(text.contains("3 of 3 expectations met"), "{text}");
    // A failed expectation: exit 1, each wrong element named.
    let (code, text) = interp(&[
        "run",
        &ptx,
        "--kernel",
        "k",
        "--input",
        "grid 1\nblock 1\nbuffer k_out = u32 9 9 9\nparam k_n = -1\nparam k_x = 0x7f800000",
        "--input",
        "expect k_out = s32 -1 0 9",
    ]);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("0 of 1 expectations met"), "{text}");
    assert!(text.contains("expectation failed: line 1: k_out byte 4 (s32) is 2139095040, expected 0"), "{text}");
    assert!(!text.contains("byte 0 "), "{text}");
    // Past the end of the buffer.
    let (code, text) = interp(&[
        "run",
        &ptx,
        "--input",
        "grid 1\nblock 1\nbuffer k_out = zero 8\nparam k_n = 1\nparam k_x = 0\nexpect k_out+8 = u8 0",
    ]);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("k_out byte 8 (u8) is past the end"), "{text}");
}

/// Every `.run` file of testdata/interp/known-values passes with its `.ptx`.
#[test]
fn known_values() {
    let dir = known_values_dir();
    let mut runs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "run"))
        .collect();
    runs.sort();
    let mut expectations = 0;
    let mut failures = Vec::new();
    for run in &runs {
        let ptx = run.with_extension("ptx");
        assert!(ptx.exists(), "{} has no .ptx beside it", run.display());
        let (code, text) = interp(&["run", &ptx.to_string_lossy(), "--inputs", &run.to_string_lossy()]);
        let met = text.lines().find_map(|l| l.strip_suffix(" expectations met")).unwrap_or("");
        let (got, of) = met.split_once(" of ").unwrap_or(("", ""));
        if code != 0 || got != of || of == "0" || of.is_empty() {
            failures.push(format!("{} (exit {code}):\n{text}", run.display()));
        } else {
            expectations += of.parse::<usize>().unwrap();
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(runs.len() >= 11 && expectations >= 28, "{} cases, {expectations} expectations", runs.len());
}

/// Random lines made of the format's own words, numbers and punctuation:
/// parsing and building arguments give a value or an error, never a panic.
#[test]
fn random_lines_never_panic() {
    use ptx_interp::{infer_params, Program};
    let module = ptx_parse::parse(KERNEL).unwrap();
    let prog = Program::new(&module);
    let specs = infer_params(&prog, prog.function("k").unwrap());
    let words = [
        "grid",
        "block",
        "kernel",
        "param",
        "buffer",
        "expect",
        "=",
        "zero",
        "u8",
        "s16",
        "u32",
        "s64",
        "f32",
        "f64",
        "k_out",
        "k_n",
        "k_x",
        "0",
        "1",
        "2",
        "-1",
        "0x",
        "0xffffffffffffffff",
        "-0x8",
        "1e40",
        "nan",
        "-inf",
        ",",
        "+",
        "k_out+4",
        "1,2",
        "0,1",
        "1,1,1,1",
        "#",
        "\\",
        "99999999999999999999",
        "-",
        "1.5",
        "x",
        "",
    ];
    let mut rng = ptx_interp::SplitMix64::new(17);
    for _ in 0..3000 {
        let lines = 1 + rng.next_u64() % 4;
        let mut text = String::new();
        for _ in 0..lines {
            let n = rng.next_u64() % 7;
            let line: Vec<&str> = (0..n).map(|_| words[(rng.next_u64() % words.len() as u64) as usize]).collect();
            text.push_str(&line.join(if rng.next_u64().is_multiple_of(3) { "" } else { " " }));
            text.push('\n');
        }
        let mut g = GivenInputs::default();
        if g.add_text(&text).is_ok() {
            if let Ok(args) = g.args(&specs, 64) {
                assert_eq!(args.params.len(), specs.len(), "{text}");
            }
        }
    }
}

/// What `printf` prints is compared output: a change to a value a kernel
/// only prints (it goes nowhere but the argument buffer) is a difference, a
/// rewrite that prints the same is not.
#[test]
fn printf_text_is_part_of_what_diff_compares() {
    let dir = tempfile::tempdir().unwrap();
    let ptx = std::fs::read_to_string(known_values_dir().join("printf.ptx")).unwrap();
    let a = dir.path().join("a.ptx");
    std::fs::write(&a, &ptx).unwrap();
    let changed_text = ptx.replacen("%r1, 0x1000001;", "%r1, 0x1000002;", 1);
    assert_ne!(changed_text, ptx);
    let b = dir.path().join("b.ptx");
    std::fs::write(&b, &changed_text).unwrap();
    let (code, text) = interp(&["diff", &a.to_string_lossy(), &b.to_string_lossy()]);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("printf output"), "{text}");
    // The same text from other instructions: equivalent.
    let same = ptx.replace(
        "mul.f64 \t%fd2, %fd1, 0d3FF8000000000000;",
        "add.f64 \t%fd3, %fd1, %fd1;\n\tfma.rn.f64 \t%fd2, %fd1, 0d3FE0000000000000, %fd1;",
    );
    assert_ne!(same, ptx);
    std::fs::write(&b, &same).unwrap();
    let (code, text) = interp(&["diff", &a.to_string_lossy(), &b.to_string_lossy()]);
    assert_eq!(code, 0, "{text}");
}

/// A kernel that indexes a 16x16 shared tile by `%tid.x` and `%tid.y` faults
/// on the default 32x1 block (and on longer 1D ones); reading `%tid.y`, it is
/// tried on 2D blocks first, and the check says which it used.
#[test]
fn a_kernel_reading_tid_y_is_checked_on_a_2d_block() {
    let ptx = ".version 7.0\n.target sm_80\n.address_size 64\n\
        .visible .entry tile16(.param .u64 out)\n{\n\
        \t.shared .align 4 .b8 tile[1024];\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<4>;\n\
        \tld.param.u64 %rd1, [out];\n\tcvta.to.global.u64 %rd1, %rd1;\n\
        \tmov.u32 %r1, %tid.x;\n\tmov.u32 %r2, %tid.y;\n\
        \tmad.lo.s32 %r3, %r1, 16, %r2;\n\tshl.b32 %r4, %r3, 2;\n\tmov.u32 %r5, tile;\n\tadd.s32 %r5, %r5, %r4;\n\
        \tst.shared.u32 [%r5], %r3;\n\tbar.sync 0;\n\tld.shared.u32 %r6, [%r5];\n\
        \tmul.wide.u32 %rd2, %r3, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n\tst.global.u32 [%rd3], %r6;\n\tret;\n}\n";
    let (code, text) = diff_itself(ptx, &[]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("6 conclusive") && text.contains("block 16x16x1"), "{text}");
}

/// A kernel indexing by `%tid.y` runs on a 2D block even when the 1D
/// default would complete too (where `%tid.y` is always 0 and half its
/// arithmetic is never exercised); with a `.reqntid` the kernel's shape wins.
#[test]
fn a_kernel_reading_tid_y_prefers_a_2d_block_even_when_1d_completes() {
    let ptx = ".version 7.0\n.target sm_80\n.address_size 64\n\
        .visible .entry grid2d(.param .u64 out)\n{\n\
        \t.reg .b32 %r<8>;\n\t.reg .b64 %rd<4>;\n\
        \tld.param.u64 %rd1, [out];\n\tcvta.to.global.u64 %rd1, %rd1;\n\
        \tmov.u32 %r1, %tid.x;\n\tmov.u32 %r2, %tid.y;\n\tmov.u32 %r3, %ntid.x;\n\
        \tmad.lo.s32 %r4, %r2, %r3, %r1;\n\tmul.lo.s32 %r5, %r2, 1000;\n\tadd.s32 %r6, %r5, %r1;\n\
        \tmul.wide.u32 %rd2, %r4, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n\tst.global.u32 [%rd3], %r6;\n\tret;\n}\n";
    let (code, text) = diff_itself(ptx, &[]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("6 conclusive") && text.contains("block 16x16x1"), "{text}");
    let fixed = ptx.replace("(.param .u64 out)\n", "(.param .u64 out)\n.reqntid 32, 1, 1\n");
    let (code, text) = diff_itself(&fixed, &[]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("6 conclusive") && !text.contains("block 16x16x1"), "{text}");
}

/// Dynamic shared memory grows in calibration up to what the module's
/// target allows a block, not beyond: 100,000 bytes fit sm_80's 163 KB,
/// not sm_75's 64 KB (where the kernel could not be launched).
#[test]
fn dynamic_shared_memory_grows_to_the_target_s_maximum_only() {
    let ptx = ".version 7.0\n.target sm_80\n.address_size 64\n\
        .extern .shared .align 4 .b8 dyn[];\n\
        .visible .entry far(.param .u64 out)\n{\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<4>;\n\
        \tld.param.u64 %rd1, [out];\n\tcvta.to.global.u64 %rd1, %rd1;\n\
        \tmov.u32 %r1, %tid.x;\n\tst.shared.u32 [dyn+100000], %r1;\n\tld.shared.u32 %r2, [dyn+100000];\n\
        \tst.global.u32 [%rd1], %r2;\n\tret;\n}\n";
    for (target, conclusive) in [("sm_80", true), ("sm_75", false)] {
        let (_, text) = diff_itself(&ptx.replace("sm_80", target), &[]);
        assert_eq!(text.contains(": equivalent ("), conclusive, "{target}: {text}");
    }
}

/// A parameter that divides (`div`/`rem` by it) is drawn nonzero: no trial
/// is lost to a division by zero the inputs made up.
#[test]
fn a_parameter_that_divides_is_never_zero() {
    let ptx = ".version 7.0\n.target sm_80\n.address_size 64\n\
        .visible .entry divk(.param .u64 out, .param .u32 n)\n{\n\
        \t.reg .b32 %r<8>;\n\t.reg .b64 %rd<4>;\n\
        \tld.param.u64 %rd1, [out];\n\tld.param.u32 %r2, [n];\n\tcvta.to.global.u64 %rd1, %rd1;\n\
        \tmov.u32 %r1, %tid.x;\n\tdiv.u32 %r3, %r1, %r2;\n\trem.u32 %r4, %r1, %r2;\n\tadd.s32 %r5, %r3, %r4;\n\
        \tmul.wide.u32 %rd2, %r1, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n\tst.global.u32 [%rd3], %r5;\n\tret;\n}\n";
    let (code, text) = diff_itself(ptx, &["--trials", "12"]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("12 trials, 12 conclusive"), "{text}");
}

/// A scan with decoupled look-back: block `start + %ctaid` waits for the
/// block before it, which publishes its result only when another tile
/// follows (cub's DeviceScanKernel). The tame trial draws `start` (added
/// to `%ctaid`) 0, and since one tile of `n` items leaves block 1 waiting
/// forever, the check falls back to one block and says so.
#[test]
fn a_look_back_scan_is_checked_on_one_block_from_tile_zero() {
    let ptx = ".version 7.0\n\
        .target sm_80\n\
        .address_size 64\n\
        .visible .entry lookback(.param .u64 status, .param .u64 out, .param .u32 start, .param .u32 n)\n\
        {\n\
        \t.reg .pred %p<4>;\n\
        \t.reg .b32 %r<12>;\n\
        \t.reg .b64 %rd<8>;\n\
        \tld.param.u64 %rd1, [status];\n\
        \tld.param.u64 %rd2, [out];\n\
        \tld.param.u32 %r1, [start];\n\
        \tld.param.u32 %r2, [n];\n\
        \tcvta.to.global.u64 %rd1, %rd1;\n\
        \tcvta.to.global.u64 %rd2, %rd2;\n\
        \tmov.u32 %r3, %ctaid.x;\n\
        \tadd.s32 %r4, %r3, %r1;\n\
        \tmov.u32 %r5, %tid.x;\n\
        \tsetp.ne.s32 %p1, %r5, 0;\n\
        \t@%p1 bra DONE;\n\
        \tmul.wide.u32 %rd3, %r4, 4;\n\
        \tadd.s64 %rd4, %rd1, %rd3;\n\
        \tmov.u32 %r6, 0;\n\
        \tsetp.eq.s32 %p2, %r4, 0;\n\
        \t@%p2 bra PUBLISH;\n\
        WAIT:\n\
        \tld.volatile.global.u32 %r7, [%rd4+-4];\n\
        \tsetp.ne.s32 %p3, %r7, 1;\n\
        \t@%p3 bra WAIT;\n\
        \tld.global.u32 %r6, [%rd4+-4];\n\
        PUBLISH:\n\
        \t// A tile publishes only when another follows it (4096 items a tile).\n\
        \tadd.s32 %r8, %r4, 1;\n\
        \tshl.b32 %r9, %r8, 12;\n\
        \tsetp.ge.u32 %p3, %r9, %r2;\n\
        \t@%p3 bra LAST;\n\
        \tst.volatile.global.u32 [%rd4], 1;\n\
        LAST:\n\
        \tadd.s64 %rd5, %rd2, %rd3;\n\
        \tadd.s32 %r10, %r6, %r4;\n\
        \tst.global.u32 [%rd5], %r10;\n\
        DONE:\n\
        \tret;\n\
        }\n";
    let (_dir, a) = scratch_file(ptx);
    let (code, text) = interp(&["diff", &a, &a, "--step-limit", "20000"]);
    assert_eq!(code, 0, "{text}");
    // Equivalent: at least one trial (the tame one) was conclusive.
    assert!(text.contains(": equivalent (") && text.contains("grid 1x1x1"), "{text}");
    // The tame trial's `start` is 0 (and `n` is not).
    let (code, text) = interp(&["run", &a, "--grid", "1", "--step-limit", "20000"]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("param start (int32) = 0x00000000\n"), "{text}");
    assert!(!text.contains("param n (int32) = 0x00000000\n"), "{text}");
}

/// An integer that offsets the address of an access needing alignment is
/// drawn a multiple of what keeps it aligned: `k` scaled by 4 under a
/// 16-byte `ld.v4.f32` a multiple of 4, a raw byte offset under an 8-byte
/// load a multiple of 8 (the pointers themselves are aligned buffers).
#[test]
fn an_offset_of_a_vector_access_is_drawn_aligned() {
    let ptx = ".version 7.0\n\
        .target sm_80\n\
        .address_size 64\n\
        .visible .entry vec_at(.param .u64 out, .param .u64 in, .param .u32 k, .param .u32 bytes)\n\
        {\n\
        \t.reg .b32 %r<8>;\n\
        \t.reg .f32 %f<8>;\n\
        \t.reg .b64 %rd<12>;\n\
        \tld.param.u64 %rd1, [out];\n\
        \tld.param.u64 %rd2, [in];\n\
        \tld.param.u32 %r1, [k];\n\
        \tld.param.u32 %r6, [bytes];\n\
        \tcvta.to.global.u64 %rd1, %rd1;\n\
        \tcvta.to.global.u64 %rd2, %rd2;\n\
        \tmov.u32 %r2, %tid.x;\n\
        \tshl.b32 %r3, %r2, 2;\n\
        \tadd.s32 %r4, %r3, %r1;\n\
        \tmul.wide.s32 %rd3, %r4, 4;\n\
        \tadd.s64 %rd4, %rd2, %rd3;\n\
        \tld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd4];\n\
        \tadd.f32 %f5, %f1, %f4;\n\
        \tcvt.u64.u32 %rd7, %r6;\n\
        \tadd.s64 %rd8, %rd2, %rd7;\n\
        \tld.global.u64 %rd9, [%rd8];\n\
        \tmul.wide.u32 %rd5, %r2, 16;\n\
        \tadd.s64 %rd6, %rd1, %rd5;\n\
        \tst.global.f32 [%rd6], %f5;\n\
        \tst.global.u64 [%rd6+8], %rd9;\n\
        \tret;\n\
        }\n";
    let (_dir, a) = scratch_file(ptx);
    let value = |text: &str, name: &str| {
        let line = text.lines().find(|l| l.starts_with(&format!("param {name} ("))).unwrap();
        u32::from_str_radix(line.rsplit("0x").next().unwrap(), 16).unwrap()
    };
    for seed in 1..=8 {
        for trial in ["0", "1", "2"] {
            let (_, text) = interp(&["run", &a, "--seed", &seed.to_string(), "--trial", trial]);
            let (k, bytes) = (value(&text, "k"), value(&text, "bytes"));
            assert_eq!((k % 4, bytes % 8), (0, 0), "seed {seed} trial {trial}: {text}");
            if trial == "0" {
                assert!(k > 0 && bytes > 0, "the tame trial rounds up: {text}");
            }
        }
    }
    let (code, text) = interp(&["diff", &a, &a]);
    assert_eq!(code, 0, "{text}");
}

/// A long loop of work outruns the step limit in the tame trial: the
/// limit grows 16 times (a spin would not: threads waiting for each other
/// make no progress however long they run), and the report says how many
/// instructions the kernel executed and with which limit.
#[test]
fn a_long_loop_gets_a_longer_step_limit_and_the_report_counts_instructions() {
    let ptx = ".version 7.0\n.target sm_80\n.address_size 64\n\
        .visible .entry long_sum(.param .u64 out)\n{\n\
        \t.reg .pred %p<2>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<4>;\n\
        \tld.param.u64 %rd1, [out];\n\tcvta.to.global.u64 %rd1, %rd1;\n\
        \tmov.u32 %r1, 0;\n\tmov.u32 %r2, 0;\nLOOP:\n\tadd.u32 %r1, %r1, %r2;\n\tadd.u32 %r2, %r2, 1;\n\
        \tsetp.lt.u32 %p1, %r2, 1000;\n\t@%p1 bra LOOP;\n\
        \tmov.u32 %r3, %tid.x;\n\tmul.wide.u32 %rd2, %r3, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n\tst.global.u32 [%rd3], %r1;\n\tret;\n}\n";
    let (_dir, a) = scratch_file(ptx);
    // 64 threads of 4 instructions 1000 times: 256,000 and more, past 20,000.
    let (code, text) = interp(&["diff", &a, &a, "--step-limit", "20000"]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("6 conclusive") && text.contains("step limit 320000"), "{text}");
    let executed: u64 = text.split("up to ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
    assert!((256_000..320_000).contains(&executed), "{text}");
    // Without the longer limit the run says it was not a spin.
    let (code, text) = interp(&["run", &a, "--step-limit", "20000"]);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("step limit of 20000 instructions reached") && !text.contains("spinning"), "{text}");
}

/// The same for a word of a struct passed by value: `k` at byte 8 of `s`
/// scales by 4 under a 16-byte load through the pointer at byte 0, so it
/// is a multiple of 4 (the pointer word is left alone).
#[test]
fn a_struct_word_offsetting_a_vector_access_is_drawn_aligned() {
    let ptx = ".version 7.0\n\
        .target sm_80\n\
        .address_size 64\n\
        .visible .entry by_struct(.param .u64 out, .param .align 8 .b8 s[16])\n\
        {\n\
        \t.reg .b32 %r<8>;\n\
        \t.reg .f32 %f<8>;\n\
        \t.reg .b64 %rd<12>;\n\
        \tld.param.u64 %rd1, [out];\n\
        \tld.param.u64 %rd2, [s];\n\
        \tld.param.u32 %r1, [s+8];\n\
        \tcvta.to.global.u64 %rd1, %rd1;\n\
        \tcvta.to.global.u64 %rd2, %rd2;\n\
        \tmul.wide.u32 %rd3, %r1, 4;\n\
        \tadd.s64 %rd4, %rd2, %rd3;\n\
        \tld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd4];\n\
        \tadd.f32 %f5, %f1, %f4;\n\
        \tmov.u32 %r2, %tid.x;\n\
        \tmul.wide.u32 %rd5, %r2, 4;\n\
        \tadd.s64 %rd6, %rd1, %rd5;\n\
        \tst.global.f32 [%rd6], %f5;\n\
        \tret;\n\
        }\n";
    let (_dir, a) = scratch_file(ptx);
    for seed in 1..=8 {
        for trial in ["0", "1", "2"] {
            let (_, text) = interp(&["run", &a, "--seed", &seed.to_string(), "--trial", trial]);
            let line = text.lines().find(|l| l.starts_with("param s (bytes) = 0x")).unwrap();
            // Printed as one number, byte 15 first: bytes 8..12 are digits 8..16.
            let hex = line.rsplit("0x").next().unwrap();
            let k = u32::from_str_radix(&hex[8..16], 16).unwrap();
            assert_eq!(k % 4, 0, "seed {seed} trial {trial}: {text}");
            assert_eq!(&hex[16..], "0000001001000000", "the pointer word: {text}");
        }
    }
    let (code, text) = diff_itself(ptx, &[]);
    assert_eq!(code, 0, "{text}");
}

/// A compared integer (a loop bound, a size) keeps its small and negative
/// edge values outside the tame trial, but not 2^31 - 1 or 0xffff: a
/// grid-stride loop to `n` over a 4 KiB buffer is compared in every trial.
#[test]
fn a_compared_parameter_is_drawn_within_reach_in_every_trial() {
    for (cmp, name) in [("lt.u32", "unsigned"), ("lt.s32", "signed")] {
        let ptx = format!(
            ".version 7.0\n.target sm_80\n.address_size 64\n\
            .visible .entry fill(.param .u64 out, .param .u32 n)\n{{\n\
            \t.reg .pred %p<2>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<4>;\n\
            \tld.param.u64 %rd1, [out];\n\tld.param.u32 %r2, [n];\n\tcvta.to.global.u64 %rd1, %rd1;\n\
            \tmov.u32 %r1, %tid.x;\n\tsetp.{cmp} %p1, %r1, %r2;\n\t@!%p1 bra DONE;\nLOOP:\n\
            \tmul.wide.u32 %rd2, %r1, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n\tst.global.u32 [%rd3], %r1;\n\
            \tadd.s32 %r1, %r1, 64;\n\tsetp.{cmp} %p1, %r1, %r2;\n\t@%p1 bra LOOP;\nDONE:\n\tret;\n}}\n"
        );
        let (code, text) = diff_itself(&ptx, &["--trials", "12"]);
        assert_eq!(code, 0, "{name}: {text}");
        assert!(text.contains("12 trials, 12 conclusive"), "{name}: {text}");
    }
}

/// Every kernel of the known-value set is also checked conclusively on
/// invented inputs (`diff F F`: every trial conclusive), the launch shape,
/// dynamic shared memory and inputs chosen without its `.run` file.
#[test]
fn every_known_value_kernel_is_conclusive_on_invented_inputs() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(known_values_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
        .collect();
    files.sort();
    let mut failures = Vec::new();
    for f in &files {
        let f = f.to_string_lossy();
        let (code, text) = interp(&["diff", &f, &f]);
        if code != 0 || !text.lines().all(|l| !l.starts_with("kernel ") || l.contains("6 trials, 6 conclusive")) {
            failures.push(format!("{f} (exit {code}):\n{text}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(files.len() >= 22, "{} known-value kernels", files.len());
}

/// PTX from NVRTC for CUDA sources the interpreter was not tuned on
/// (`testdata/interp/nvrtc/README.md`): every kernel is checked
/// conclusively on inputs invented from the PTX, except the one whose
/// shuffle reads lanes outside its membermask, which is reported as the
/// undefined behaviour it is.
#[test]
fn every_nvrtc_kernel_is_checked_on_invented_inputs() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/interp/nvrtc");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
        .collect();
    files.sort();
    let mut kernels = 0;
    let mut failures = Vec::new();
    for f in &files {
        let f = f.to_string_lossy();
        let (_, text) = interp(&["diff", &f, &f]);
        for line in text.lines().filter(|l| l.starts_with("kernel ")) {
            kernels += 1;
            let undefined_on_purpose = line.starts_with("kernel syncwarp_half: inconclusive")
                && line.contains("shfl reads lane 16, which does not take part");
            if !line.contains(": equivalent (") && !undefined_on_purpose {
                failures.push(format!("{f}: {line}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(kernels, 16, "kernels in {}", dir.display());
}

/// `run` prints a module `.global` variable after the launch as values of
/// its type (instrumentation counters are read this way).
#[test]
fn run_prints_module_globals_as_values_of_their_type() {
    let dir = tempfile::tempdir().unwrap();
    let ptx = ".version 7.0\n.target sm_80\n.address_size 64\n\
        .global .align 8 .u64 hits[3];\n.global .align 4 .s32 last = -5;\n\
        .visible .entry count()\n{\n\t.reg .b32 %r<4>;\n\
        \tred.global.add.u64 [hits+8], 1;\n\tmov.u32 %r1, %tid.x;\n\tneg.s32 %r2, %r1;\n\
        \tred.global.min.s32 [last], %r2;\n\tret;\n}\n";
    let a = dir.path().join("a.ptx");
    std::fs::write(&a, ptx).unwrap();
    let (code, text) = interp(&["run", &a.to_string_lossy(), "--grid", "2", "--block", "32"]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("global hits (.u64): 0 64 0\n"), "{text}");
    assert!(text.contains("global last (.s32): -31\n"), "{text}");
}
