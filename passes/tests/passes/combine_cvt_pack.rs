//! `combine-cvt-pack` on one huge basic block (a shape found by fuzzing):
//! 25 000 packs of saturations, 8 MB of PTX, with no branch. Each candidate
//! asks the def-use analysis about points that do not read the register in
//! question (`value_unchanged_between(source, saturation, pack)`), which
//! was answered by scanning the block from its start: quadratic, 28 s for
//! this input in a release build (0.6 s now, by binary search). This test
//! checks the result (every pack combined, the output valid), not the time:
//! speed is measured by hand or in benchmarks, never in tests.
//!
//! The generated input is left in `CARGO_TARGET_TMPDIR` as
//! `combine-cvt-pack-big-block.ptx`, to time `ptx-opt
//! --passes=combine-cvt-pack` on it by hand.

use ptx_pass::{PassManager, PassManagerOptions};

/// Packs in the block.
const PACKS: usize = 25_000;

/// Pattern slots: pattern `i` uses the registers of slot `i % SLOTS`, so
/// every register is redefined hundreds of times in the block (the queries
/// must pick the latest definition among many).
const SLOTS: usize = 64;

/// One kernel whose body is a single basic block of `packs` patterns,
/// cycling through four shapes the pass recognises (those of
/// `testdata/passes/combine-cvt-pack`): `prmt 0x5410` of two `cvt.sat.u16`,
/// `mov.b32 {lo, hi}` of two `cvt.sat.s16`, `cvt`/`shl`/`or` of two
/// `cvt.sat.s16`, and four `u8` clamps (`max`/`min`) packed with `shl`/`or`.
fn big_block(packs: usize) -> String {
    let mut s = String::from(
        ".version 8.0\n.target sm_80\n.address_size 64\n\n\
         .visible .entry big_block(\n\t.param .u64 big_block_param_0\n)\n{\n",
    );
    s.push_str(&format!(
        "\t.reg .b16 \t%rs<{}>;\n\t.reg .b32 \t%r<{}>;\n\t.reg .b64 \t%rd<3>;\n\n",
        SLOTS * 4,
        SLOTS * 16
    ));
    s.push_str("\tld.param.u64 \t%rd1, [big_block_param_0];\n\tcvta.to.global.u64 \t%rd2, %rd1;\n");
    for i in 0..packs {
        let r = |k: usize| format!("%r{}", (i % SLOTS) * 16 + k);
        let rs = |k: usize| format!("%rs{}", (i % SLOTS) * 4 + k);
        let at = |k: usize| (i * 20 + k * 4) % (1 << 20);
        let loads = |s: &mut String, n: usize| {
            for k in 0..n {
                s.push_str(&format!("\tld.global.u32 \t{}, [%rd2+{}];\n", r(k), at(k)));
            }
        };
        let packed = match i % 4 {
            0 => {
                loads(&mut s, 2);
                s.push_str(&format!("\tcvt.sat.u16.s32 \t{}, {};\n", r(2), r(0)));
                s.push_str(&format!("\tcvt.sat.u16.s32 \t{}, {};\n", r(3), r(1)));
                s.push_str(&format!("\tprmt.b32 \t{}, {}, {}, 0x5410;\n", r(4), r(2), r(3)));
                r(4)
            }
            1 => {
                loads(&mut s, 2);
                s.push_str(&format!("\tcvt.sat.s16.s32 \t{}, {};\n", rs(0), r(0)));
                s.push_str(&format!("\tcvt.sat.s16.s32 \t{}, {};\n", rs(1), r(1)));
                s.push_str(&format!("\tmov.b32 \t{}, {{{}, {}}};\n", r(4), rs(0), rs(1)));
                r(4)
            }
            2 => {
                loads(&mut s, 2);
                s.push_str(&format!("\tcvt.sat.s16.s32 \t{}, {};\n", rs(0), r(0)));
                s.push_str(&format!("\tcvt.sat.s16.s32 \t{}, {};\n", rs(1), r(1)));
                s.push_str(&format!("\tcvt.u32.u16 \t{}, {};\n", r(2), rs(0)));
                s.push_str(&format!("\tcvt.u32.u16 \t{}, {};\n", r(3), rs(1)));
                s.push_str(&format!("\tshl.b32 \t{}, {}, 16;\n", r(4), r(3)));
                s.push_str(&format!("\tor.b32 \t{}, {}, {};\n", r(5), r(4), r(2)));
                r(5)
            }
            _ => {
                loads(&mut s, 4);
                for k in 0..4 {
                    s.push_str(&format!("\tmax.s32 \t{}, {}, 0;\n", r(4 + 2 * k), r(k)));
                    s.push_str(&format!("\tmin.s32 \t{}, {}, 255;\n", r(5 + 2 * k), r(4 + 2 * k)));
                }
                s.push_str(&format!("\tshl.b32 \t{}, {}, 8;\n", r(12), r(7)));
                s.push_str(&format!("\tor.b32 \t{}, {}, {};\n", r(13), r(12), r(5)));
                s.push_str(&format!("\tshl.b32 \t{}, {}, 16;\n", r(12), r(9)));
                s.push_str(&format!("\tor.b32 \t{}, {}, {};\n", r(14), r(13), r(12)));
                s.push_str(&format!("\tshl.b32 \t{}, {}, 24;\n", r(12), r(11)));
                s.push_str(&format!("\tor.b32 \t{}, {}, {};\n", r(15), r(14), r(12)));
                r(15)
            }
        };
        s.push_str(&format!("\tst.global.u32 \t[%rd2+{}], {packed};\n", at(4)));
    }
    s.push_str("\tret;\n}\n");
    s
}

#[test]
fn one_huge_block_of_packs() {
    let text = big_block(PACKS);
    assert!(text.len() > 8_000_000, "{} bytes", text.len());
    let _ =
        std::fs::write(std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("combine-cvt-pack-big-block.ptx"), &text);
    let mut module = ptx_parse::parse(&text).expect("the generated kernel parses");
    let func = module.functions.values().next().expect("one kernel");
    let before = func.inst_ids().count();
    let cfg = ptx_analysis::Cfg::build(func);
    assert_eq!(cfg.num_blocks(), 1, "one basic block");

    let passes = vec![(ptx_passes::lookup("combine-cvt-pack").unwrap().create)()];
    let options = PassManagerOptions { verify_each: true, ..PassManagerOptions::default() };
    let run =
        PassManager::new(passes, Some(ptx_verify::Verifier::new()), options).run(&mut module).expect("the pass runs");
    let stats = &run.passes[0].stats;
    assert_eq!(stats.counter("combined"), Some(PACKS as u64), "{:?}", stats.counters);

    let out = ptx_ir::print::print_module(&module);
    let count = |needle: &str| out.lines().filter(|l| l.trim_start().starts_with(needle)).count();
    // Two cvt.pack per four-byte pattern (every fourth), one for the others.
    assert_eq!(count("cvt.pack.sat."), PACKS + PACKS / 4);
    // Every saturation and packing step went away; loads and stores stay.
    for gone in ["cvt.sat.", "prmt.", "mov.b32", "shl.", "or.", "max.", "min.", "cvt.u32.u16"] {
        assert_eq!(count(gone), 0, "{gone} left in the output");
    }
    assert_eq!(count("st.global.u32"), PACKS);
    let after = module.functions.values().next().expect("one kernel").inst_ids().count();
    assert_eq!(stats.counter("insts-removed"), Some((before - after) as u64));
    ptx_parse::parse(&out).expect("the output parses");
}
