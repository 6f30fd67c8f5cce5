//! Integration tests: these download the toolchain on first use (into the default cache,
//! `<workspace>/.cache/toolchain`, or `$PTX_OPT_TOOLCHAIN_DIR`).

use ptx_toolchain::{cached, ensure, target_of, PtxasError, Toolchain};

fn tc() -> &'static Toolchain {
    match cached() {
        Ok(tc) => tc,
        Err(e) => panic!("toolchain unavailable: {e}"),
    }
}

/// A tiny kernel valid for every target from sm_70 on (`.target` is replaced per test).
fn kernel(target: &str) -> String {
    format!(
        r#".version 8.7
.target {target}
.address_size 64

.visible .entry add_one(
	.param .u64 p
)
{{
	.reg .b32 %r<3>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [p];
	cvta.to.global.u64 %rd2, %rd1;
	ld.global.u32 %r1, [%rd2];
	add.s32 %r2, %r1, 1;
	st.global.u32 [%rd2], %r2;
	ret;
}}
"#
    )
}

#[test]
fn ensure_gives_runnable_tools() {
    let tc = ensure().expect("ensure");
    assert_eq!(&tc, self::tc(), "ensure() and cached() agree");
    for p in [&tc.ptxas13, &tc.ptxas12, &tc.nvdisasm] {
        let out = std::process::Command::new(p).arg("--version").output().expect("run");
        assert!(out.status.success(), "{} --version failed", p.display());
        let v = String::from_utf8_lossy(&out.stdout);
        assert!(v.contains("Cuda compilation tools"), "{v}");
    }
    // Second call is the cached fast path and gives the same paths.
    assert_eq!(ensure().expect("ensure again"), tc);
}

fn check_deterministic(target: &str) -> Vec<u8> {
    let ptx = kernel(target);
    assert_eq!(target_of(&ptx).as_deref(), Some(target));
    let a = tc().compile(&ptx, target, &[]).unwrap_or_else(|e| panic!("{target}: {e}"));
    let b = tc().compile(&ptx, target, &[]).unwrap_or_else(|e| panic!("{target}: {e}"));
    assert!(!a.is_empty());
    assert_eq!(&a[..4], b"\x7fELF", "cubin is an ELF file");
    assert_eq!(a, b, "ptxas is deterministic for {target}");
    a
}

#[test]
fn compile_sm80_deterministic() {
    let cubin = check_deterministic("sm_80");
    let counts = tc().sass_instruction_count(&cubin).expect("nvdisasm");
    assert_eq!(counts.functions.len(), 1);
    assert_eq!(counts.functions[0].name, "add_one");
    let n = counts.total();
    assert!((4..=20).contains(&n), "{counts:?}");
    assert!(counts.total_slots() > n, "padding is counted in slots only: {counts:?}");
}

#[test]
fn compile_sm70_uses_ptxas12() {
    assert_eq!(tc().ptxas_for_target("sm_70"), tc().ptxas12.as_path());
    check_deterministic("sm_70");
}

#[test]
fn compile_newer_targets() {
    for t in ["sm_75", "sm_90a", "sm_100a", "sm_120"] {
        check_deterministic(t);
    }
}

#[test]
fn options_change_output() {
    let ptx = kernel("sm_80");
    let o3 = tc().compile(&ptx, "sm_80", &[]).unwrap();
    let o0 = tc().compile(&ptx, "sm_80", &["-O0"]).unwrap();
    assert_ne!(o0, o3);
    let log = tc().compile_with_log(&ptx, "sm_80", &["-v"]).unwrap().log;
    assert!(log.contains("Used"), "ptxas -v prints register usage: {log}");
}

#[test]
fn invalid_ptx_is_rejected() {
    let ptx = kernel("sm_80").replace("add.s32 %r2, %r1, 1;", "add.s32 %r2, %r1, %rd1;");
    match tc().compile(&ptx, "sm_80", &[]) {
        Err(PtxasError::Rejected { stderr }) => {
            assert!(stderr.contains("ptxas in.ptx, line 14; error"), "{stderr}");
            assert!(stderr.contains("Arguments mismatch"), "{stderr}");
        }
        other => panic!("expected Rejected, got {other:?}"),
    }
    match tc().compile("this is not ptx", "sm_80", &[]) {
        Err(PtxasError::Rejected { stderr }) => {
            assert!(stderr.contains("ptxas in.ptx, line 1; fatal"), "{stderr}")
        }
        other => panic!("expected Rejected, got {other:?}"),
    }
}

#[test]
fn nvdisasm_rejects_sm70() {
    // nvdisasm 13.5 no longer reads sm_70 cubins (there is no CUDA 12 nvdisasm wheel on PyPI).
    let cubin = tc().compile(&kernel("sm_70"), "sm_70", &[]).unwrap();
    match tc().sass_instruction_count(&cubin) {
        Err(PtxasError::Rejected { stderr }) => assert!(stderr.contains("SM70"), "{stderr}"),
        other => panic!("expected Rejected, got {other:?}"),
    }
}

#[test]
fn crash_is_reported_apart_from_rejection() {
    use std::os::unix::fs::PermissionsExt;
    // A stand-in "ptxas" that dies of SIGSEGV after printing something.
    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join("ptxas");
    std::fs::write(&fake, "#!/bin/sh\necho 'about to die' >&2\nkill -SEGV $$\n").unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let tc = Toolchain { ptxas13: fake.clone(), ptxas12: fake.clone(), nvdisasm: fake };
    match tc.compile(&kernel("sm_80"), "sm_80", &[]) {
        Err(e @ PtxasError::Crashed { .. }) => {
            let PtxasError::Crashed { signal, ref stderr } = e else { unreachable!() };
            assert_eq!(signal, 11);
            assert!(stderr.contains("about to die"), "{stderr}");
            assert!(e.to_string().contains("SIGSEGV"), "{e}");
        }
        other => panic!("expected Crashed, got {other:?}"),
    }
}

#[test]
fn download_failure_is_an_error() {
    // Through the binary, so that the environment of this (multi-threaded) process is untouched:
    // an empty cache directory and a "python" that always fails.
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ptx-toolchain"))
        .arg("fetch")
        .env(ptx_toolchain::TOOLCHAIN_DIR_ENV, dir.path().join("tc"))
        .env(ptx_toolchain::PYTHON_ENV, "false")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert!(stderr.contains("`pip download nvidia-cuda-nvcc==13.5.37` failed"), "{stderr}");
}

#[test]
fn cli_compile_and_sass() {
    let dir = tempfile::tempdir().unwrap();
    let ptx = dir.path().join("k.ptx");
    let cubin = dir.path().join("k.cubin");
    std::fs::write(&ptx, kernel("sm_86")).unwrap();
    let bin = env!("CARGO_BIN_EXE_ptx-toolchain");
    let st = std::process::Command::new(bin).arg("compile").arg(&ptx).arg("-o").arg(&cubin).status().unwrap();
    assert!(st.success());
    let bytes = std::fs::read(&cubin).unwrap();
    assert_eq!(bytes, tc().compile(&kernel("sm_86"), "sm_86", &[]).unwrap());
    let out = std::process::Command::new(bin).arg("sass").arg(&cubin).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("add_one\t") && text.contains("TOTAL\t"), "{text}");
}
