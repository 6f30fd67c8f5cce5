//! The `ptx-interp` binary: exit codes 0 (equivalent), 1 (different),
//! 2 (usage), 3 (cannot check), and what `run` prints.

use std::process::Command;

const KERNEL: &str = ".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 k_out, .param .u32 k_n)\n{\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<4>;\n\tld.param.u64 %rd1, [k_out];\n\tld.param.u32 %r1, [k_n];\n\tcvta.to.global.u64 %rd2, %rd1;\n\tmov.u32 %r2, %tid.x;\n\tmul.wide.u32 %rd3, %r2, 4;\n\tadd.s64 %rd3, %rd2, %rd3;\n\tshl.b32 %r3, %r1, 1;\n\tst.global.u32 [%rd3], %r3;\n\tret;\n}\n";

fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> String {
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

fn interp(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ptx-interp")).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

#[test]
fn exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(&dir, "a.ptx", KERNEL);
    let same = write(&dir, "same.ptx", &KERNEL.replace("shl.b32 %r3, %r1, 1;", "add.s32 %r3, %r1, %r1;"));
    let wrong = write(&dir, "wrong.ptx", &KERNEL.replace("shl.b32 %r3, %r1, 1;", "shl.b32 %r3, %r1, 2;"));
    let unmodelled = write(&dir, "brkpt.ptx", &KERNEL.replace("shl.b32 %r3, %r1, 1;", "brkpt;"));
    let (code, text) = interp(&["diff", &a, &same]);
    assert_eq!(code, 0, "{text}");
    let (code, text) = interp(&["diff", &a, &wrong, "--trials", "3", "--seed", "0x10"]);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("DIFFERENT") && text.contains("--seed 0x10"), "{text}");
    let (code, text) = interp(&["diff", &a, &unmodelled]);
    assert_eq!(code, 3, "{text}");
    assert!(text.contains("unsupported: brkpt at 14"), "{text}");
    let (code, _) = interp(&["diff", &a]);
    assert_eq!(code, 2);
    let (code, _) = interp(&["diff", &a, &dir.path().join("missing.ptx").to_string_lossy()]);
    assert_eq!(code, 2);
}

#[test]
fn run_prints_parameters_and_buffers() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(&dir, "a.ptx", KERNEL);
    let (code, text) = interp(&["run", &a, "--kernel", "k", "--seed", "7", "--grid", "1", "--block", "2"]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("param k_out (pointer) = 0x0000001000000000"), "{text}");
    let n = text.lines().find(|l| l.starts_with("param k_n")).unwrap();
    let n = u32::from_str_radix(n.rsplit("0x").next().unwrap(), 16).unwrap();
    let row = text.lines().find(|l| l.trim_start().starts_with("000000:")).unwrap();
    let want = format!("{:08x}", (2 * n).swap_bytes());
    // Two threads wrote 2n; the rest of the buffer keeps its random contents.
    assert!(row.contains(&format!("000000: {want} {want} ")), "{row} vs n={n}");
}
