//! Legacy forms: `mad.f32`/`mad.f64` with no rounding modifier (the ISA's
//! errata: it defaults to `mad.rn`, a fused multiply-add; for a `.target
//! sm_1x` module ptxas emits FFMA.FTZ), and module-scope `.local`
//! variables (one copy per thread).

use crate::harness::{eval, run_text, words};
use ptx_interp::SplitMix64;

fn canonical32(f: f32) -> u32 {
    if f.is_nan() {
        0x7fff_ffff
    } else {
        f.to_bits()
    }
}

/// mad.f32 without rounding is fma.rn.f32: 3000 random triples (raw bits,
/// so NaNs, infinities and subnormals too) against Rust's correctly
/// rounded `mul_add`.
#[test]
fn legacy_mad_f32_is_fma_rn() {
    let mut rng = SplitMix64::new(17);
    for _ in 0..3000 {
        let pick = |rng: &mut SplitMix64| match rng.below(4) {
            0 => rng.next_u64() as u32,
            1 => (rng.below(1 << 24) as f32 / 4096.0 - 2048.0).to_bits(),
            2 => (rng.next_u64() as u32) & 0x807f_ffff, // subnormals
            _ => [0u32, 0x8000_0000, 0x7f80_0000, 0xff80_0000, 0x3f80_0000][rng.below(5) as usize],
        };
        let (a, b, c) = (pick(&mut rng), pick(&mut rng), pick(&mut rng));
        let got =
            eval("mad.f32 %f4, %f1, %f2, %f3;", &[("%f1", a as u64), ("%f2", b as u64), ("%f3", c as u64)], &["%f4"])
                .expect("legacy mad runs")[0] as u32;
        let expect = canonical32(f32::from_bits(a).mul_add(f32::from_bits(b), f32::from_bits(c)));
        assert_eq!(got, expect, "mad.f32 {a:#x} {b:#x} {c:#x}");
    }
}

/// mad.f64 without rounding is fma.rn.f64.
#[test]
fn legacy_mad_f64_is_fma_rn() {
    let mut rng = SplitMix64::new(23);
    for _ in 0..1000 {
        let (a, b, c) = (rng.next_u64(), (rng.below(1 << 30) as f64 / 1024.0).to_bits(), rng.next_u64());
        let got = eval("mad.f64 %fd4, %fd1, %fd2, %fd3;", &[("%fd1", a), ("%fd2", b), ("%fd3", c)], &["%fd4"])
            .expect("legacy mad runs")[0];
        let r = f64::from_bits(a).mul_add(f64::from_bits(b), f64::from_bits(c));
        let expect = if r.is_nan() { 0x7fff_ffff_ffff_ffff } else { r.to_bits() };
        assert_eq!(got, expect, "mad.f64 {a:#x} {b:#x} {c:#x}");
    }
}

/// For `.target sm_13`, mad.f32 flushes subnormal inputs and results
/// (fma.rn.ftz.f32); for sm_20 it keeps them.
#[test]
fn legacy_mad_f32_on_sm_1x_flushes_subnormals() {
    let kernel = |target: &str| {
        format!(
            ".version 2.3\n.target {target}\n.address_size 64\n.entry t(.param .u64 o, .param .u64 i)\n{{\n\t.reg .f32 %f<5>;\n\t.reg .u64 %rd<3>;\n\
             \tld.param.u64 %rd1, [o];\n\tld.param.u64 %rd2, [i];\n\tld.global.f32 %f1, [%rd2];\n\tld.global.f32 %f2, [%rd2+4];\n\
             \tld.global.f32 %f3, [%rd2+8];\n\tmad.f32 %f4, %f1, %f2, %f3;\n\tst.global.f32 [%rd1], %f4;\n\
             \tmad.f32 %f4, %f2, %f2, %f3;\n\tst.global.f32 [%rd1+4], %f4;\n\texit;\n}}\n"
        )
    };
    // a = 2^-130 (subnormal), b = 1, c = 0: ftz gives +0.
    let mut input = Vec::new();
    for v in [0x0002_0000u32, 0x3f80_0000, 0] {
        input.extend(v.to_le_bytes());
    }
    let sm13 = words(&run_text(&kernel("sm_13"), &input, 1).expect("runs").buffers[0].data);
    let sm20 = words(&run_text(&kernel("sm_20"), &input, 1).expect("runs").buffers[0].data);
    assert_eq!(sm13[0], 0, "sm_13: subnormal input flushed");
    assert_eq!(sm20[0], 0x0002_0000, "sm_20: subnormal kept");
    assert_eq!(sm13[1], 0x3f80_0000);
    assert_eq!(sm20[1], 0x3f80_0000);
}

/// A module-scope `.local` variable: each thread has its own copy, at the
/// same address, reachable by name, through `mov` of its address and
/// through the generic window.
#[test]
fn module_scope_local_is_per_thread() {
    let text = ".version 7.0\n.target sm_75\n.address_size 64\n.local .align 8 .b8 scratch[32];\n\
        .visible .entry t(.param .u64 o, .param .u64 i)\n{\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<8>;\n\
        \tld.param.u64 %rd1, [o];\n\tmov.u32 %r1, %tid.x;\n\tst.local.u32 [scratch+4], %r1;\n\tbar.sync 0;\n\
        \tmov.u64 %rd2, scratch;\n\tcvta.local.u64 %rd3, %rd2;\n\tld.u32 %r2, [%rd3+4];\n\tmul.lo.u32 %r3, %r2, 3;\n\
        \tst.local.u32 [%rd2+8], %r3;\n\tld.local.u32 %r4, [scratch+8];\n\tld.local.u32 %r5, [scratch];\n\
        \tadd.u32 %r4, %r4, %r5;\n\tmul.wide.u32 %rd4, %r1, 4;\n\tadd.u64 %rd5, %rd1, %rd4;\n\tst.global.u32 [%rd5], %r4;\n\tret;\n}\n";
    let out = run_text(text, &[], 32).expect("runs");
    let expect: Vec<u32> = (0..32).map(|t| 3 * t).collect();
    assert_eq!(&words(&out.buffers[0].data)[..32], &expect[..]);
}
