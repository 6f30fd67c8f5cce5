//! Textures and surfaces on the bound model (`exec/texture.rs`): every texel
//! a `tex` reads, every footprint `tld4` gathers and every byte `suld`
//! reads is checked against the documented contents `texel_byte(h, ...)`,
//! with the sampler's rules (point filtering, clamp to edge) written again
//! here; and the checker sees a rewrite that changes a texture read or a
//! surface store.

use crate::harness::{module_text, run_grid, run_text, words};
use ptx_interp::{assert_equivalent, texel_byte, InterpError, SURF_WIDTH, TEX_HEIGHT, TEX_LAYERS, TEX_WIDTH};

/// The handle every test kernel uses (a texture object in a register).
const H: u64 = 0x5eed_7e57;

/// The texel the sampler picks for a float coordinate (point, clamp).
fn pick(f: f32, limit: u32) -> u32 {
    if f.is_nan() {
        0
    } else {
        (f.floor().clamp(-1e9, 1e9) as i64).clamp(0, limit as i64 - 1) as u32
    }
}

/// Every texel of a 2D texture, read with `tex.2d.v4.u32.f32` by 64
/// threads (x = tid + 0.25, every y), is `texel_byte` channel by channel.
#[test]
fn tex_2d_reads_every_texel_of_the_model() {
    let body = format!(
        "\tmov.b64 %rd3, {H:#x};\n\tmov.u32 %r1, %tid.x;\n\tcvt.rn.f32.u32 %f1, %r1;\n\tadd.f32 %f1, %f1, 0f3E800000;\n\
         \tmov.u32 %r2, 0;\n$y:\n\tcvt.rn.f32.u32 %f2, %r2;\n\tadd.f32 %f2, %f2, 0f3F400000;\n\
         \ttex.2d.v4.u32.f32 {{%r4, %r5, %r6, %r7}}, [%rd3, {{%f1, %f2}}];\n\
         \tmad.lo.u32 %r8, %r2, 64, %r1;\n\tmul.wide.u32 %rd4, %r8, 16;\n\tadd.u64 %rd5, %rd14, %rd4;\n\
         \tst.global.v4.u32 [%rd5], {{%r4, %r5, %r6, %r7}};\n\tadd.u32 %r2, %r2, 1;\n\tsetp.lt.u32 %p1, %r2, 64;\n\t@%p1 bra $y;\n"
    );
    let out = run_grid(&module_text(&body, "", ""), &[], 1, 64, 64 * 64 * 16).expect("runs");
    let w = words(&out.buffers[0].data);
    for y in 0..TEX_HEIGHT {
        for x in 0..TEX_WIDTH {
            for c in 0..4 {
                let got = w[((y * 64 + x) * 4 + c) as usize];
                assert_eq!(got, texel_byte(H, 0, 0, y, x, c) as u32, "texel ({x}, {y}) channel {c}");
            }
        }
    }
}

/// Float coordinates outside the texture (negative, huge, NaN, infinite)
/// clamp to the edge; `.f32` data is the byte / 255; integer coordinates
/// and offsets; array layers clamp.
#[test]
fn tex_clamps_and_converts() {
    let coords: [(f32, f32); 8] = [
        (-5.0, 3.5),
        (1000.0, 2.0),
        (f32::NAN, 7.9),
        (f32::INFINITY, f32::NEG_INFINITY),
        (63.99, 64.0),
        (0.0, -0.0),
        (17.5, 40.25),
        (-0.5, 0.999),
    ];
    let mut input = Vec::new();
    for (x, y) in coords {
        input.extend(x.to_bits().to_le_bytes());
        input.extend(y.to_bits().to_le_bytes());
    }
    let body = format!(
        "\tmov.b64 %rd3, {H:#x};\n\tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd4, %r1, 8;\n\tadd.u64 %rd5, %rd15, %rd4;\n\
         \tld.global.v2.f32 {{%f1, %f2}}, [%rd5];\n\
         \ttex.2d.v4.f32.f32 {{%f3, %f4, %f5, %f6}}, [%rd3, {{%f1, %f2}}];\n\
         \tmul.wide.u32 %rd6, %r1, 32;\n\tadd.u64 %rd7, %rd14, %rd6;\n\tst.global.v4.f32 [%rd7], {{%f3, %f4, %f5, %f6}};\n\
         \tcvt.rzi.s32.f32 %r2, %f1;\n\tcvt.rzi.s32.f32 %r3, %f2;\n\
         \ttex.a2d.v4.s32.s32 {{%r4, %r5, %r6, %r7}}, [%rd3, {{%r1, %r2, %r3, %r3}}], {{%r1, %r1}};\n\
         \tst.global.v4.u32 [%rd7+16], {{%r4, %r5, %r6, %r7}};\n"
    );
    let out = run_text(&module_text(&body, "", ""), &input, 8).expect("runs");
    let w = words(&out.buffers[0].data);
    for (t, &(x, y)) in coords.iter().enumerate() {
        let (px, py) = (pick(x, TEX_WIDTH), pick(y, TEX_HEIGHT));
        for c in 0..4 {
            let expect = (texel_byte(H, 0, 0, py, px, c) as f32 / 255.0).to_bits();
            assert_eq!(w[t * 8 + c as usize], expect, "thread {t} channel {c}");
        }
        // Integer coordinates: cvt.rzi of the floats (NaN -> 0, saturating), plus the offset t.
        let int = |f: f32| if f.is_nan() { 0i64 } else { f.trunc().clamp(i32::MIN as f32, i32::MAX as f32) as i64 };
        let ix = (int(x) + t as i64).clamp(0, TEX_WIDTH as i64 - 1) as u32;
        let iy = (int(y) + t as i64).clamp(0, TEX_HEIGHT as i64 - 1) as u32;
        let layer = (t as u32).min(TEX_LAYERS - 1);
        for c in 0..4 {
            assert_eq!(w[t * 8 + 4 + c as usize], texel_byte(H, layer, 0, iy, ix, c) as u32, "array read {t}");
        }
    }
}

/// `tld4.comp` gathers channel `comp` of the 2x2 footprint around
/// (x - 0.5, y - 0.5), counter-clockwise from the lower left.
#[test]
fn tld4_gathers_the_footprint() {
    let body = format!(
        "\tmov.b64 %rd3, {H:#x};\n\tmov.u32 %r1, %tid.x;\n\tcvt.rn.f32.u32 %f1, %r1;\n\tmul.f32 %f2, %f1, 0f3FC00000;\n\
         \ttld4.g.2d.v4.u32.f32 {{%r4, %r5, %r6, %r7}}, [%rd3, {{%f1, %f2}}];\n\
         \tmul.wide.u32 %rd6, %r1, 16;\n\tadd.u64 %rd7, %rd14, %rd6;\n\tst.global.v4.u32 [%rd7], {{%r4, %r5, %r6, %r7}};\n"
    );
    let out = run_text(&module_text(&body, "", ""), &[], 64).expect("runs");
    let w = words(&out.buffers[0].data);
    for t in 0..64u32 {
        let (x, y) = (t as f32, t as f32 * 1.5);
        let x0 = (x - 0.5).floor() as i64;
        let y0 = (y - 0.5).floor() as i64;
        let cx = |v: i64| v.clamp(0, TEX_WIDTH as i64 - 1) as u32;
        let cy = |v: i64| v.clamp(0, TEX_HEIGHT as i64 - 1) as u32;
        let expect = [(x0, y0 + 1), (x0 + 1, y0 + 1), (x0 + 1, y0), (x0, y0)]
            .map(|(a, b)| texel_byte(H, 0, 0, cy(b), cx(a), 1) as u32);
        assert_eq!(&w[t as usize * 4..t as usize * 4 + 4], &expect, "thread {t}");
    }
}

/// `txq` and `suq` answer the model's sizes, for a `.texref` variable and
/// for a texture object alike.
#[test]
fn txq_reports_the_model() {
    let body = format!(
        "\tmov.b64 %rd3, {H:#x};\n\ttxq.width.b32 %r1, [tref];\n\ttxq.height.b32 %r2, [%rd3];\n\ttxq.array_size.b32 %r3, [tref];\n\
         \ttxq.filter_mode.b32 %r4, [%rd3];\n\tsuq.width.b32 %r5, [%rd3];\n\ttxq.num_mipmap_levels.b32 %r6, [tref];\n\
         \tst.global.v4.u32 [%rd14], {{%r1, %r2, %r3, %r4}};\n\tst.global.v2.u32 [%rd14+16], {{%r5, %r6}};\n"
    );
    let out = run_text(&module_text(&body, "", ".global .texref tref;"), &[], 1).expect("runs");
    assert_eq!(&words(&out.buffers[0].data)[..6], &[TEX_WIDTH, TEX_HEIGHT, TEX_LAYERS, 0, SURF_WIDTH, 1]);
}

/// `sust.b` then `suld.b` round-trips; bytes never stored read as the
/// model's; `.zero` reads zeros out of range, `.clamp` the last element,
/// `.trap` faults.
#[test]
fn surfaces_store_and_load() {
    let body = format!(
        "\tmov.b64 %rd3, {H:#x};\n\tmov.u32 %r1, %tid.x;\n\tshl.b32 %r2, %r1, 3;\n\
         \tmad.lo.u32 %r3, %r1, 0x01010101, 0x10203040;\n\
         \tsust.b.2d.b32.trap [%rd3, {{%r2, %r1}}], %r3;\n\
         \tsuld.b.2d.v2.b32.trap {{%r4, %r5}}, [%rd3, {{%r2, %r1}}];\n\
         \tsuld.b.2d.b32.zero %r6, [%rd3, {{%r2, 1000}}];\n\
         \tsuld.b.1d.b16.clamp %rs1, [%rd3, {{5000}}];\n\tcvt.u32.u16 %r7, %rs1;\n\
         \tmul.wide.u32 %rd6, %r1, 16;\n\tadd.u64 %rd7, %rd14, %rd6;\n\tst.global.v4.u32 [%rd7], {{%r4, %r5, %r6, %r7}};\n"
    );
    let out = run_text(&module_text(&body, "", ""), &[], 8).expect("runs");
    let w = words(&out.buffers[0].data);
    let byte = |y: u32, x: u32| texel_byte(H, 0, 0, y, x, 0) as u32;
    for t in 0..8u32 {
        let row = &w[t as usize * 4..t as usize * 4 + 4];
        assert_eq!(row[0], t.wrapping_mul(0x0101_0101).wrapping_add(0x1020_3040), "stored word, thread {t}");
        let x = 8 * t + 4;
        let unstored = byte(t, x) | byte(t, x + 1) << 8 | byte(t, x + 2) << 16 | byte(t, x + 3) << 24;
        assert_eq!(row[1], unstored, "never-stored word, thread {t}");
        assert_eq!(row[2], 0, ".zero out of range");
        assert_eq!(row[3], byte(0, SURF_WIDTH - 2) | byte(0, SURF_WIDTH - 1) << 8, ".clamp to the last b16");
    }
    let trap = "\tmov.b64 %rd3, 7;\n\tsuld.b.1d.b32.trap %r1, [%rd3, {300}];\n";
    match run_text(&module_text(trap, "", ""), &[], 1) {
        Err(InterpError::MemoryFault { message, .. }) => assert!(message.contains("surface"), "{message}"),
        other => panic!("expected a fault, got {other:?}"),
    }
}

/// The checker compares texture-derived values and surface stores: the
/// same kernel is equivalent, a changed coordinate or stored value is not.
#[test]
fn diff_sees_texture_and_surface_changes() {
    let kernel = |coord: &str, stored: &str| {
        format!(
            ".version 7.0\n.target sm_75\n.address_size 64\n.visible .entry k(.param .u64 p, .param .u64 t)\n{{\n\
             \t.reg .b32 %r<8>;\n\t.reg .f32 %f<8>;\n\t.reg .b64 %rd<8>;\n\tld.param.u64 %rd1, [p];\n\tld.param.u64 %rd2, [t];\n\
             \tmov.u32 %r1, %tid.x;\n\tcvt.rn.f32.u32 %f1, %r1;\n\tadd.f32 %f2, %f1, {coord};\n\
             \ttex.1d.v4.f32.f32 {{%f3, %f4, %f5, %f6}}, [%rd2, {{%f2}}];\n\
             \tmul.wide.u32 %rd3, %r1, 4;\n\tadd.u64 %rd4, %rd1, %rd3;\n\tst.global.f32 [%rd4], %f3;\n\
             \tshl.b32 %r2, %r1, 2;\n\tsust.b.1d.b32.trap [%rd2, {{%r2}}], {stored};\n\tret;\n}}\n"
        )
    };
    let base = kernel("0f3F000000", "%r1");
    assert_equivalent(&base, &base).expect("a kernel is equivalent to itself");
    let moved = kernel("0f3FC00000", "%r1");
    let err = assert_equivalent(&base, &moved).expect_err("a different coordinate reads other texels");
    assert!(err.contains("DIFFERENT"), "{err}");
    let stored = kernel("0f3F000000", "%r2");
    let err = assert_equivalent(&base, &stored).expect_err("a different surface store");
    assert!(err.contains("surface stores"), "{err}");
}

/// A texture or surface object parameter is a handle, not a pointer: it
/// gets a scalar, not a buffer.
#[test]
fn texture_handles_are_not_pointers() {
    let text = ".version 7.0\n.target sm_75\n.address_size 64\n.visible .entry k(.param .u64 p, .param .u64 t)\n{\n\
        \t.reg .b32 %r<8>;\n\t.reg .b64 %rd<4>;\n\tld.param.u64 %rd1, [p];\n\tld.param.u64 %rd2, [t];\n\
        \ttex.1d.v4.u32.s32 {%r1, %r2, %r3, %r4}, [%rd2, {%r1}];\n\tst.global.u32 [%rd1], %r1;\n\tret;\n}\n";
    let module = ptx_parse::parse(text).expect("parses");
    let prog = ptx_interp::Program::new(&module);
    let specs = ptx_interp::infer_params(&prog, prog.function("k").expect("kernel"));
    assert_eq!(specs[0].kind, ptx_interp::ParamKind::Pointer);
    assert_eq!(specs[1].kind, ptx_interp::ParamKind::Int { bits: 64, signed: false });
}
