//! One data-driven table per instruction family. Every expected value was
//! worked out by hand from the ISA text quoted in `why` (spec/isa/*.md),
//! never by running the interpreter.

use crate::harness::{check_table, eval, expect_cannot_model, Case};
use ptx_interp::InterpError;

const F1: u64 = 0x3f80_0000; // 1.0f
const FM1: u64 = 0xbf80_0000; // -1.0f
const F2: u64 = 0x4000_0000; // 2.0f
const FNAN: u64 = 0x7fc0_0000;

#[test]
#[rustfmt::skip]
fn integer_add_sub() {
    check_table(&[
        Case { asm: "add.s32 %r1, %r2, %r3;", inputs: &[("%r2", 5), ("%r3", 0xffff_fff9)], expect: &[("%r1", 0xffff_fffe)], why: "5 + -7 = -2" },
        Case { asm: "add.u32 %r1, %r2, %r3;", inputs: &[("%r2", 0xffff_ffff), ("%r3", 1)], expect: &[("%r1", 0)], why: "wraps modulo 2^32" },
        Case { asm: "add.u16 %rs1, %rs2, %rs3;", inputs: &[("%rs2", 0xffff), ("%rs3", 2)], expect: &[("%rs1", 1)], why: "16-bit wrap" },
        Case { asm: "sub.s64 %rd1, %rd2, %rd3;", inputs: &[("%rd2", 0), ("%rd3", 1)], expect: &[("%rd1", u64::MAX)], why: "0 - 1" },
        Case { asm: "add.sat.s32 %r1, %r2, %r3;", inputs: &[("%r2", 0x7fff_ffff), ("%r3", 1)], expect: &[("%r1", 0x7fff_ffff)], why: ".sat clamps to MAXINT" },
        Case { asm: "add.sat.s32 %r1, %r2, %r3;", inputs: &[("%r2", 0x8000_0000), ("%r3", 0xffff_ffff)], expect: &[("%r1", 0x8000_0000)], why: ".sat clamps to MININT" },
        Case { asm: "sub.sat.s32 %r1, %r2, %r3;", inputs: &[("%r2", 0x8000_0000), ("%r3", 1)], expect: &[("%r1", 0x8000_0000)], why: "sub.sat clamps" },
        Case { asm: "add.u16x2 %r1, %r2, %r3;", inputs: &[("%r2", 0xffff_0001), ("%r3", 0x0001_0002)], expect: &[("%r1", 0x0000_0003)], why: "halves added separately" },
        Case { asm: "sub.s16x2 %r1, %r2, %r3;", inputs: &[("%r2", 0x0000_0005), ("%r3", 0x0001_0007)], expect: &[("%r1", 0xffff_fffe)], why: "0-1 | 5-7 per half" },
        Case {
            asm: "add.cc.u32 %r1, %r2, %r3;\n\taddc.u32 %r4, %r5, %r6;",
            inputs: &[("%r2", 0xffff_ffff), ("%r3", 1), ("%r5", 0), ("%r6", 0)],
            expect: &[("%r1", 0), ("%r4", 1)],
            why: "carry-out of add.cc feeds addc",
        },
        Case {
            asm: "sub.cc.u32 %r1, %r2, %r3;\n\tsubc.u32 %r4, %r5, %r6;",
            inputs: &[("%r2", 0), ("%r3", 1), ("%r5", 5), ("%r6", 1)],
            expect: &[("%r1", 0xffff_ffff), ("%r4", 3)],
            why: "0 - 1 borrows, so CF = 0 (not borrow); subc: 5 + ~1 + 0 = 3",
        },
        Case {
            asm: "mad.lo.cc.u32 %r1, %r2, %r3, %r4;\n\tmadc.hi.u32 %r5, %r2, %r3, %r6;",
            inputs: &[("%r2", 0x8000_0000), ("%r3", 2), ("%r4", 1), ("%r6", 0)],
            expect: &[("%r1", 1), ("%r5", 1)],
            why: "2^31*2 = 2^32: lo 0 (+1, no carry), hi 1 + 0 + CF(0)",
        },
    ]);
}

/// The carry flag as the hardware keeps it: ptxas 13.5 compiles `sub.cc`
/// to `IADD3 d, P0, a, -b` and `subc` to `IMAD.X d, a, 1, ~b, P0` (sm_80),
/// so CF is the carry of a + ~b + 1 (set when there is NO borrow) and subc
/// computes a + ~b + CF, whichever instruction set CF. The ISA text's
/// "d = a - (b + CC.CF)" agrees on sub.cc -> subc chains only.
#[test]
#[rustfmt::skip]
fn carry_chains_mixing_add_and_sub() {
    macro_rules! chain {
        ($first:literal, $second:literal) => {
            concat!($first, " %r1, %r2, %r3;\n\t", $second, " %r4, %r5, %r6;")
        };
    }
    check_table(&[
        Case { asm: chain!("sub.cc.u32", "subc.u32"), inputs: &[("%r2", 5), ("%r3", 3), ("%r5", 7), ("%r6", 2)], expect: &[("%r1", 2), ("%r4", 5)], why: "5-3: no borrow, CF=1; 7 + ~2 + 1 = 5" },
        Case { asm: chain!("add.cc.u32", "subc.u32"), inputs: &[("%r2", 0xffff_ffff), ("%r3", 1), ("%r5", 5), ("%r6", 1)], expect: &[("%r1", 0), ("%r4", 4)], why: "add carries, CF=1; 5 + ~1 + 1 = 4 (the ISA text would give 3)" },
        Case { asm: chain!("add.cc.u32", "subc.u32"), inputs: &[("%r2", 1), ("%r3", 1), ("%r5", 5), ("%r6", 1)], expect: &[("%r1", 2), ("%r4", 3)], why: "no carry, CF=0; 5 + ~1 + 0 = 3" },
        Case { asm: chain!("sub.cc.u32", "addc.u32"), inputs: &[("%r2", 5), ("%r3", 3), ("%r5", 10), ("%r6", 20)], expect: &[("%r1", 2), ("%r4", 31)], why: "no borrow, CF=1; 10 + 20 + 1" },
        Case { asm: chain!("sub.cc.u32", "addc.u32"), inputs: &[("%r2", 0), ("%r3", 1), ("%r5", 10), ("%r6", 20)], expect: &[("%r1", 0xffff_ffff), ("%r4", 30)], why: "borrow, CF=0; 10 + 20 + 0" },
        Case { asm: chain!("sub.cc.u32", "subc.u32"), inputs: &[("%r2", 3), ("%r3", 3), ("%r5", 0), ("%r6", 0)], expect: &[("%r1", 0), ("%r4", 0)], why: "equal operands do not borrow: CF=1; 0 + ~0 + 1 = 0" },
        Case {
            asm: "add.cc.u32 %r1, %r2, %r3;\n\taddc.cc.u32 %r4, %r5, %r6;\n\tsubc.u32 %r7, %r8, %r9;",
            inputs: &[("%r2", 0xffff_ffff), ("%r3", 1), ("%r5", 0xffff_ffff), ("%r6", 0), ("%r8", 5), ("%r9", 1)],
            expect: &[("%r1", 0), ("%r4", 0), ("%r7", 4)],
            why: "addc.cc: 0xffffffff + 0 + 1 carries again, CF=1; 5 + ~1 + 1 = 4",
        },
        Case {
            asm: "sub.cc.u32 %r1, %r2, %r3;\n\tsubc.cc.u32 %r4, %r5, %r6;\n\taddc.u32 %r7, %r8, %r9;",
            inputs: &[("%r2", 0), ("%r3", 1), ("%r5", 0), ("%r6", 0), ("%r8", 1), ("%r9", 1)],
            expect: &[("%r1", 0xffff_ffff), ("%r4", 0xffff_ffff), ("%r7", 2)],
            why: "CF=0; subc.cc 0 + ~0 + 0 = 0xffffffff, no carry out (a borrow): CF=0; 1 + 1 + 0",
        },
        Case {
            asm: "sub.cc.u32 %r1, %r2, %r3;\n\tsubc.cc.u32 %r4, %r5, %r6;\n\taddc.u32 %r7, %r8, %r9;",
            inputs: &[("%r2", 1), ("%r3", 1), ("%r5", 0), ("%r6", 0), ("%r8", 1), ("%r9", 1)],
            expect: &[("%r1", 0), ("%r4", 0), ("%r7", 3)],
            why: "CF=1; subc.cc 0 + ~0 + 1 = 2^32: d=0, CF=1; 1 + 1 + 1",
        },
        Case {
            asm: "sub.cc.u64 %rd1, %rd2, %rd3;\n\tsubc.u64 %rd4, %rd5, %rd6;",
            inputs: &[("%rd2", 0), ("%rd3", 1), ("%rd5", 1), ("%rd6", 0)],
            expect: &[("%rd1", u64::MAX), ("%rd4", 0)],
            why: "128-bit 2^64 - 1: low word borrows (CF=0), high 1 + ~0 + 0 = 0",
        },
        Case {
            asm: "sub.cc.u32 %r1, %r2, %r3;\n\tmadc.lo.u32 %r4, %r5, %r6, %r7;",
            inputs: &[("%r2", 9), ("%r3", 4), ("%r5", 2), ("%r6", 3), ("%r7", 10)],
            expect: &[("%r1", 5), ("%r4", 17)],
            why: "no borrow, CF=1; madc: 2*3 + 10 + 1",
        },
    ]);
}

/// Packed comparisons: each half on its own (f16 1.0 = 0x3c00, bf16 1.0 =
/// 0x3f80); setp writes the low half's result to p, the high half's to q.
#[test]
#[rustfmt::skip]
fn packed_half_comparisons() {
    check_table(&[
        Case { asm: "setp.lt.f16x2 %p1|%p2, %r2, %r3;", inputs: &[("%r2", 0x4000_3c00), ("%r3", 0x3c00_4000)], expect: &[("%p1", 1), ("%p2", 0)], why: "lo 1 < 2, hi 2 < 1 false" },
        Case { asm: "setp.eq.and.f16x2 %p1|%p2, %r2, %r3, %p3;", inputs: &[("%r2", 0x3c00_3c00), ("%r3", 0x3c00_3c00), ("%p3", 0)], expect: &[("%p1", 0), ("%p2", 0)], why: "both equal, and-ed with false" },
        Case { asm: "set.eq.f16x2.f16x2 %r1, %r2, %r3;", inputs: &[("%r2", 0x3c00_4000), ("%r3", 0x3c00_3c00)], expect: &[("%r1", 0x3c00_0000)], why: "hi equal: 1.0, lo not: 0" },
        Case { asm: "set.gt.u32.bf16x2 %r1, %r2, %r3;", inputs: &[("%r2", 0x4000_3f80), ("%r3", 0x3f80_3f80)], expect: &[("%r1", 0xffff_0000)], why: "hi 2 > 1: all ones in that half" },
        Case { asm: "set.neu.f16x2.f16x2 %r1, %r2, %r3;", inputs: &[("%r2", 0x7e00_3c00), ("%r3", 0x7e00_3c00)], expect: &[("%r1", 0x3c00_0000)], why: "NaN is unordered: neu true; 1 == 1" },
    ]);
}

#[test]
#[rustfmt::skip]
fn integer_mul_mad() {
    check_table(&[
        Case { asm: "mul.lo.s32 %r1, %r2, %r3;", inputs: &[("%r2", 0x10000), ("%r3", 0x10000)], expect: &[("%r1", 0)], why: "t<31..0> of 2^32" },
        Case { asm: "mul.hi.u32 %r1, %r2, %r3;", inputs: &[("%r2", 0x10000), ("%r3", 0x10000)], expect: &[("%r1", 1)], why: "t<63..32> of 2^32" },
        Case { asm: "mul.hi.s32 %r1, %r2, %r3;", inputs: &[("%r2", 0xffff_ffff), ("%r3", 1)], expect: &[("%r1", 0xffff_ffff)], why: "-1*1 = -1, high half all ones" },
        Case { asm: "mul.hi.u32 %r1, %r2, %r3;", inputs: &[("%r2", 0xffff_ffff), ("%r3", 0xffff_ffff)], expect: &[("%r1", 0xffff_fffe)], why: "0xfffffffe00000001" },
        Case { asm: "mul.wide.s32 %rd1, %r2, %r3;", inputs: &[("%r2", 0xffff_fffe), ("%r3", 3)], expect: &[("%rd1", 0xffff_ffff_ffff_fffa)], why: "-2*3 = -6 in 64 bits" },
        Case { asm: "mul.wide.u32 %rd1, %r2, %r3;", inputs: &[("%r2", 0xffff_ffff), ("%r3", 2)], expect: &[("%rd1", 0x1_ffff_fffe)], why: "unsigned 64-bit product" },
        Case { asm: "mul.wide.s16 %r1, %rs2, %rs3;", inputs: &[("%rs2", 0xffff), ("%rs3", 0xffff)], expect: &[("%r1", 1)], why: "16*16 -> 32, -1*-1" },
        Case { asm: "mul.hi.u64 %rd1, %rd2, %rd3;", inputs: &[("%rd2", u64::MAX), ("%rd3", 2)], expect: &[("%rd1", 1)], why: "(2^64-1)*2 >> 64" },
        Case { asm: "mul.hi.s64 %rd1, %rd2, %rd3;", inputs: &[("%rd2", u64::MAX), ("%rd3", u64::MAX)], expect: &[("%rd1", 0)], why: "-1*-1 = 1" },
        Case { asm: "mad.lo.s32 %r1, %r2, %r3, %r4;", inputs: &[("%r2", 3), ("%r3", 4), ("%r4", 5)], expect: &[("%r1", 17)], why: "3*4+5" },
        Case { asm: "mad.hi.u32 %r1, %r2, %r3, %r4;", inputs: &[("%r2", 0x10000), ("%r3", 0x10000), ("%r4", 1)], expect: &[("%r1", 2)], why: "t<63..32> + c" },
        Case { asm: "mad.wide.u32 %rd1, %r2, %r3, %rd4;", inputs: &[("%r2", 0xffff_ffff), ("%r3", 0xffff_ffff), ("%rd4", 1)], expect: &[("%rd1", 0xffff_fffe_0000_0002)], why: "full product + 64-bit c" },
        Case { asm: "mad.wide.s32 %rd1, %r2, %r3, %rd4;", inputs: &[("%r2", 0xffff_ffff), ("%r3", 4), ("%rd4", 0x100)], expect: &[("%rd1", 0xfc)], why: "-4 + 256" },
        Case { asm: "mad.hi.sat.s32 %r1, %r2, %r3, %r4;", inputs: &[("%r2", 0x7fff_ffff), ("%r3", 0x7fff_ffff), ("%r4", 0x7fff_ffff)], expect: &[("%r1", 0x7fff_ffff)], why: "0x3fffffff + MAXINT saturates" },
        Case { asm: "mul24.lo.u32 %r1, %r2, %r3;", inputs: &[("%r2", 0x0100_0002), ("%r3", 3)], expect: &[("%r1", 6)], why: "only a[23:0] count" },
        Case { asm: "mul24.hi.u32 %r1, %r2, %r3;", inputs: &[("%r2", 0xff_ffff), ("%r3", 0xff_ffff)], expect: &[("%r1", 0xffff_fe00)], why: "48-bit product bits 47..16" },
        Case { asm: "mul24.lo.s32 %r1, %r2, %r3;", inputs: &[("%r2", 0xff_ffff), ("%r3", 2)], expect: &[("%r1", 0xffff_fffe)], why: "24-bit -1 * 2" },
        Case { asm: "mad24.lo.u32 %r1, %r2, %r3, %r4;", inputs: &[("%r2", 2), ("%r3", 3), ("%r4", 4)], expect: &[("%r1", 10)], why: "2*3+4" },
    ]);
}

#[test]
#[rustfmt::skip]
fn integer_div_rem_min_max_abs_neg() {
    check_table(&[
        Case { asm: "div.u32 %r1, %r2, %r3;", inputs: &[("%r2", 7), ("%r3", 2)], expect: &[("%r1", 3)], why: "7/2" },
        Case { asm: "div.s32 %r1, %r2, %r3;", inputs: &[("%r2", 0xffff_fff9), ("%r3", 2)], expect: &[("%r1", 0xffff_fffd)], why: "-7/2 = -3, truncating" },
        Case { asm: "rem.s32 %r1, %r2, %r3;", inputs: &[("%r2", 0xffff_fff9), ("%r3", 2)], expect: &[("%r1", 0xffff_ffff)], why: "-7 % 2 = -1" },
        Case { asm: "rem.u64 %rd1, %rd2, %rd3;", inputs: &[("%rd2", 7), ("%rd3", 3)], expect: &[("%rd1", 1)], why: "7 % 3" },
        Case { asm: "min.s32 %r1, %r2, %r3;", inputs: &[("%r2", 0xffff_ffff), ("%r3", 1)], expect: &[("%r1", 0xffff_ffff)], why: "signed: -1 < 1" },
        Case { asm: "min.u32 %r1, %r2, %r3;", inputs: &[("%r2", 0xffff_ffff), ("%r3", 1)], expect: &[("%r1", 1)], why: "unsigned" },
        Case { asm: "max.u32 %r1, %r2, %r3;", inputs: &[("%r2", 0xffff_ffff), ("%r3", 1)], expect: &[("%r1", 0xffff_ffff)], why: "unsigned" },
        Case { asm: "max.s16 %rs1, %rs2, %rs3;", inputs: &[("%rs2", 0x8000), ("%rs3", 0x7fff)], expect: &[("%rs1", 0x7fff)], why: "16-bit signed" },
        Case { asm: "min.s16x2 %r1, %r2, %r3;", inputs: &[("%r2", 0x8000_0001), ("%r3", 0x0001_8000)], expect: &[("%r1", 0x8000_8000)], why: "per half" },
        Case { asm: "min.u16x2 %r1, %r2, %r3;", inputs: &[("%r2", 0x0001_ffff), ("%r3", 0xffff_0002)], expect: &[("%r1", 0x0001_0002)], why: "per half, unsigned" },
        Case { asm: "max.relu.s32 %r1, %r2, %r3;", inputs: &[("%r2", 0xffff_fffb), ("%r3", 0xffff_fff9)], expect: &[("%r1", 0)], why: "max(-5,-7) then relu" },
        Case { asm: "max.relu.s16x2 %r1, %r2, %r3;", inputs: &[("%r2", 0xffff_0005), ("%r3", 0xfffe_0003)], expect: &[("%r1", 0x0000_0005)], why: "per half, relu" },
        Case { asm: "abs.s32 %r1, %r2;", inputs: &[("%r2", 0xffff_fffb)], expect: &[("%r1", 5)], why: "|-5|" },
        Case { asm: "abs.s32 %r1, %r2;", inputs: &[("%r2", 0x8000_0000)], expect: &[("%r1", 0x8000_0000)], why: "|MININT| wraps" },
        Case { asm: "abs.s16 %rs1, %rs2;", inputs: &[("%rs2", 0xffff)], expect: &[("%rs1", 1)], why: "|-1|" },
        Case { asm: "neg.s32 %r1, %r2;", inputs: &[("%r2", 1)], expect: &[("%r1", 0xffff_ffff)], why: "-1" },
        Case { asm: "neg.s64 %rd1, %rd2;", inputs: &[("%rd2", 1 << 63)], expect: &[("%rd1", 1 << 63)], why: "-MININT wraps" },
        Case { asm: "sad.u32 %r1, %r2, %r3, %r4;", inputs: &[("%r2", 3), ("%r3", 10), ("%r4", 100)], expect: &[("%r1", 107)], why: "c + |a-b|" },
        Case { asm: "sad.s32 %r1, %r2, %r3, %r4;", inputs: &[("%r2", 0xffff_fffd), ("%r3", 3), ("%r4", 0)], expect: &[("%r1", 6)], why: "|-3-3|" },
    ]);
}

#[test]
#[rustfmt::skip]
fn division_by_zero_is_an_error_not_a_value() {
    for asm in ["div.u32 %r1, %r2, %r3;", "rem.s64 %rd1, %rd2, %rd3;"] {
        match eval(asm, &[("%r2", 1), ("%r3", 0), ("%rd2", 1), ("%rd3", 0)], &[]) {
            Err(InterpError::DivideByZero { .. }) => {}
            other => panic!("{asm}: {other:?}"),
        }
    }
    match eval("div.s32 %r1, %r2, %r3;", &[("%r2", 0x8000_0000), ("%r3", 0xffff_ffff)], &[]) {
        Err(InterpError::Undefined { .. }) => {}
        other => panic!("MININT / -1: {other:?}"),
    }
}

#[test]
#[rustfmt::skip]
fn logic_and_shifts() {
    check_table(&[
        Case { asm: "and.b32 %r1, %r2, %r3;", inputs: &[("%r2", 0xf0f0_f0f0), ("%r3", 0xff00_ff00)], expect: &[("%r1", 0xf000_f000)], why: "and" },
        Case { asm: "or.b32 %r1, %r2, %r3;", inputs: &[("%r2", 0xf0f0_f0f0), ("%r3", 0xff00_ff00)], expect: &[("%r1", 0xfff0_fff0)], why: "or" },
        Case { asm: "xor.b64 %rd1, %rd2, %rd3;", inputs: &[("%rd2", 0xf0f0_f0f0), ("%rd3", 0xff00_ff00)], expect: &[("%rd1", 0x0ff0_0ff0)], why: "xor" },
        Case { asm: "not.b32 %r1, %r2;", inputs: &[("%r2", 0xf0f0_f0f0)], expect: &[("%r1", 0x0f0f_0f0f)], why: "not" },
        Case { asm: "not.b16 %rs1, %rs2;", inputs: &[("%rs2", 0x00ff)], expect: &[("%rs1", 0xff00)], why: "not, 16 bits" },
        Case { asm: "cnot.b32 %r1, %r2;", inputs: &[("%r2", 0)], expect: &[("%r1", 1)], why: "d = (a==0) ? 1 : 0" },
        Case { asm: "cnot.b32 %r1, %r2;", inputs: &[("%r2", 5)], expect: &[("%r1", 0)], why: "d = (a==0) ? 1 : 0" },
        Case { asm: "and.pred %p1, %p2, %p3;", inputs: &[("%p2", 1), ("%p3", 0)], expect: &[("%p1", 0)], why: "pred and" },
        Case { asm: "or.pred %p1, %p2, %p3;", inputs: &[("%p2", 1), ("%p3", 0)], expect: &[("%p1", 1)], why: "pred or" },
        Case { asm: "xor.pred %p1, %p2, %p3;", inputs: &[("%p2", 1), ("%p3", 1)], expect: &[("%p1", 0)], why: "pred xor" },
        Case { asm: "not.pred %p1, %p2;", inputs: &[("%p2", 1)], expect: &[("%p1", 0)], why: "pred not" },
        Case { asm: "shl.b32 %r1, %r2, %r3;", inputs: &[("%r2", 1), ("%r3", 31)], expect: &[("%r1", 0x8000_0000)], why: "shift" },
        Case { asm: "shl.b32 %r1, %r2, %r3;", inputs: &[("%r2", 1), ("%r3", 32)], expect: &[("%r1", 0)], why: "amount >= width clamps: 0" },
        Case { asm: "shl.b32 %r1, %r2, %r3;", inputs: &[("%r2", 1), ("%r3", 0xffff_ffff)], expect: &[("%r1", 0)], why: "huge unsigned amount" },
        Case { asm: "shl.b16 %rs1, %rs2, %r3;", inputs: &[("%rs2", 0x8001), ("%r3", 1)], expect: &[("%rs1", 2)], why: "16-bit" },
        Case { asm: "shl.b64 %rd1, %rd2, %r3;", inputs: &[("%rd2", 1), ("%r3", 63)], expect: &[("%rd1", 1 << 63)], why: "64-bit, u32 amount" },
        Case { asm: "shr.u32 %r1, %r2, %r3;", inputs: &[("%r2", 0x8000_0000), ("%r3", 31)], expect: &[("%r1", 1)], why: "logical" },
        Case { asm: "shr.u32 %r1, %r2, %r3;", inputs: &[("%r2", 0x8000_0000), ("%r3", 32)], expect: &[("%r1", 0)], why: "clamped: 0" },
        Case { asm: "shr.b32 %r1, %r2, %r3;", inputs: &[("%r2", 0x8000_0000), ("%r3", 4)], expect: &[("%r1", 0x0800_0000)], why: "untyped fills with 0" },
        Case { asm: "shr.s32 %r1, %r2, %r3;", inputs: &[("%r2", 0x8000_0000), ("%r3", 31)], expect: &[("%r1", 0xffff_ffff)], why: "signed fills with the sign" },
        Case { asm: "shr.s32 %r1, %r2, %r3;", inputs: &[("%r2", 0x8000_0000), ("%r3", 40)], expect: &[("%r1", 0xffff_ffff)], why: "clamped: all sign bits" },
        Case { asm: "shr.s32 %r1, %r2, %r3;", inputs: &[("%r2", 0x4000_0000), ("%r3", 40)], expect: &[("%r1", 0)], why: "clamped, positive" },
        Case { asm: "shr.s16 %rs1, %rs2, %r3;", inputs: &[("%rs2", 0x8000), ("%r3", 3)], expect: &[("%rs1", 0xf000)], why: "16-bit arithmetic" },
        Case { asm: "shr.s64 %rd1, %rd2, %r3;", inputs: &[("%rd2", 1 << 63), ("%r3", 64)], expect: &[("%rd1", u64::MAX)], why: "64-bit clamped" },
        Case { asm: "shf.l.wrap.b32 %r1, %r2, %r3, %r4;", inputs: &[("%r2", 0x8000_0001), ("%r3", 1), ("%r4", 4)], expect: &[("%r1", 0x18)], why: "msbs of [b,a] << 4" },
        Case { asm: "shf.r.wrap.b32 %r1, %r2, %r3, %r4;", inputs: &[("%r2", 0x8000_0001), ("%r3", 1), ("%r4", 4)], expect: &[("%r1", 0x1800_0000)], why: "lsbs of [b,a] >> 4" },
        Case { asm: "shf.l.wrap.b32 %r1, %r2, %r3, %r4;", inputs: &[("%r2", 0x8000_0001), ("%r3", 1), ("%r4", 36)], expect: &[("%r1", 0x18)], why: ".wrap: c & 0x1f" },
        Case { asm: "shf.l.clamp.b32 %r1, %r2, %r3, %r4;", inputs: &[("%r2", 0x8000_0001), ("%r3", 1), ("%r4", 40)], expect: &[("%r1", 0x8000_0001)], why: ".clamp: n = 32 gives a" },
        Case { asm: "shf.r.clamp.b32 %r1, %r2, %r3, %r4;", inputs: &[("%r2", 0x8000_0001), ("%r3", 1), ("%r4", 32)], expect: &[("%r1", 1)], why: ".clamp: n = 32 gives b" },
        Case { asm: "lop3.b32 %r1, %r2, %r3, %r4, 0x80;", inputs: &[("%r2", 0xff00_ff00), ("%r3", 0xf0f0_f0f0), ("%r4", 0xcccc_cccc)], expect: &[("%r1", 0xc000_c000)], why: "0x80 = a & b & c" },
        Case { asm: "lop3.b32 %r1, %r2, %r3, %r4, 0x96;", inputs: &[("%r2", 0xff00_ff00), ("%r3", 0xf0f0_f0f0), ("%r4", 0xcccc_cccc)], expect: &[("%r1", 0xc33c_c33c)], why: "0x96 = a ^ b ^ c" },
    ]);
}

#[test]
#[rustfmt::skip]
fn bit_fields_and_counts() {
    check_table(&[
        Case { asm: "bfe.u32 %r1, %r2, %r3, %r4;", inputs: &[("%r2", 0xdead_beef), ("%r3", 4), ("%r4", 8)], expect: &[("%r1", 0xee)], why: "bits 4..11" },
        Case { asm: "bfe.s32 %r1, %r2, %r3, %r4;", inputs: &[("%r2", 0xdead_beef), ("%r3", 4), ("%r4", 8)], expect: &[("%r1", 0xffff_ffee)], why: "sign of the field" },
        Case { asm: "bfe.s32 %r1, %r2, %r3, %r4;", inputs: &[("%r2", 0xdead_beef), ("%r3", 28), ("%r4", 8)], expect: &[("%r1", 0xffff_fffd)], why: "field past msb: sbit = a[31]" },
        Case { asm: "bfe.u32 %r1, %r2, %r3, %r4;", inputs: &[("%r2", 0xdead_beef), ("%r3", 28), ("%r4", 8)], expect: &[("%r1", 0xd)], why: "unsigned: zero fill" },
        Case { asm: "bfe.s32 %r1, %r2, %r3, %r4;", inputs: &[("%r2", 0xdead_beef), ("%r3", 4), ("%r4", 0)], expect: &[("%r1", 0)], why: "len 0 gives 0" },
        Case { asm: "bfe.u32 %r1, %r2, %r3, %r4;", inputs: &[("%r2", 0xdead_beef), ("%r3", 0x104), ("%r4", 0x108)], expect: &[("%r1", 0xee)], why: "b, c restricted to 0..255" },
        Case { asm: "bfe.s32 %r1, %r2, %r3, %r4;", inputs: &[("%r2", 0xdead_beef), ("%r3", 40), ("%r4", 4)], expect: &[("%r1", 0xffff_ffff)], why: "start beyond msb: replicated sign" },
        Case { asm: "bfe.u64 %rd1, %rd2, %r3, %r4;", inputs: &[("%rd2", 0xfedc_ba98_7654_3210), ("%r3", 60), ("%r4", 8)], expect: &[("%rd1", 0xf)], why: "64-bit" },
        Case { asm: "bfi.b32 %r1, %r2, %r3, %r4, %r5;", inputs: &[("%r2", 0xff), ("%r3", 0x1234_5678), ("%r4", 8), ("%r5", 8)], expect: &[("%r1", 0x1234_ff78)], why: "insert 8 bits at 8" },
        Case { asm: "bfi.b32 %r1, %r2, %r3, %r4, %r5;", inputs: &[("%r2", 0xff), ("%r3", 0), ("%r4", 28), ("%r5", 8)], expect: &[("%r1", 0xf000_0000)], why: "stops at msb" },
        Case { asm: "bfi.b32 %r1, %r2, %r3, %r4, %r5;", inputs: &[("%r2", 0xff), ("%r3", 7), ("%r4", 32), ("%r5", 8)], expect: &[("%r1", 7)], why: "start beyond msb: b" },
        Case { asm: "bfi.b32 %r1, %r2, %r3, %r4, %r5;", inputs: &[("%r2", 0xff), ("%r3", 7), ("%r4", 4), ("%r5", 0)], expect: &[("%r1", 7)], why: "len 0: b" },
        Case { asm: "popc.b32 %r1, %r2;", inputs: &[("%r2", 0xf0f0_f0f1)], expect: &[("%r1", 17)], why: "count ones" },
        Case { asm: "popc.b64 %r1, %rd2;", inputs: &[("%rd2", u64::MAX)], expect: &[("%r1", 64)], why: "64 ones, u32 result" },
        Case { asm: "clz.b32 %r1, %r2;", inputs: &[("%r2", 0)], expect: &[("%r1", 32)], why: "all zero: 32" },
        Case { asm: "clz.b32 %r1, %r2;", inputs: &[("%r2", 1)], expect: &[("%r1", 31)], why: "clz" },
        Case { asm: "clz.b64 %r1, %rd2;", inputs: &[("%rd2", 1)], expect: &[("%r1", 63)], why: "clz 64" },
        Case { asm: "brev.b32 %r1, %r2;", inputs: &[("%r2", 0x1234_5678)], expect: &[("%r1", 0x1e6a_2c48)], why: "bit reversal" },
        Case { asm: "brev.b64 %rd1, %rd2;", inputs: &[("%rd2", 1)], expect: &[("%rd1", 1 << 63)], why: "64-bit reversal" },
        Case { asm: "bfind.u32 %r1, %r2;", inputs: &[("%r2", 0x00f0_0000)], expect: &[("%r1", 23)], why: "msb position" },
        Case { asm: "bfind.u32 %r1, %r2;", inputs: &[("%r2", 0)], expect: &[("%r1", 0xffff_ffff)], why: "none: 0xffffffff" },
        Case { asm: "bfind.s32 %r1, %r2;", inputs: &[("%r2", 0xffff_f000)], expect: &[("%r1", 11)], why: "negative: msb 0" },
        Case { asm: "bfind.s32 %r1, %r2;", inputs: &[("%r2", 0xffff_ffff)], expect: &[("%r1", 0xffff_ffff)], why: "all sign bits" },
        Case { asm: "bfind.shiftamt.u32 %r1, %r2;", inputs: &[("%r2", 0x00f0_0000)], expect: &[("%r1", 8)], why: "31 - 23" },
        Case { asm: "bmsk.clamp.b32 %r1, %r2, %r3;", inputs: &[("%r2", 4), ("%r3", 8)], expect: &[("%r1", 0xff0)], why: "8 bits from bit 4" },
        Case { asm: "bmsk.wrap.b32 %r1, %r2, %r3;", inputs: &[("%r2", 4), ("%r3", 0)], expect: &[("%r1", 0)], why: "width 0" },
        Case { asm: "bmsk.clamp.b32 %r1, %r2, %r3;", inputs: &[("%r2", 40), ("%r3", 4)], expect: &[("%r1", 0)], why: "clamp: position >= 32" },
        Case { asm: "bmsk.wrap.b32 %r1, %r2, %r3;", inputs: &[("%r2", 36), ("%r3", 4)], expect: &[("%r1", 0xf0)], why: "wrap: a & 0x1f" },
        Case { asm: "bmsk.clamp.b32 %r1, %r2, %r3;", inputs: &[("%r2", 28), ("%r3", 8)], expect: &[("%r1", 0xf000_0000)], why: "sum overflow: to the top" },
        Case { asm: "szext.clamp.s32 %r1, %r2, %r3;", inputs: &[("%r2", 0x80), ("%r3", 8)], expect: &[("%r1", 0xffff_ff80)], why: "8-bit signed" },
        Case { asm: "szext.clamp.u32 %r1, %r2, %r3;", inputs: &[("%r2", 0x180), ("%r3", 8)], expect: &[("%r1", 0x80)], why: "8-bit unsigned" },
        Case { asm: "szext.clamp.s32 %r1, %r2, %r3;", inputs: &[("%r2", 0x80), ("%r3", 40)], expect: &[("%r1", 0x80)], why: "clamp: too large keeps a" },
        Case { asm: "szext.wrap.s32 %r1, %r2, %r3;", inputs: &[("%r2", 0x80), ("%r3", 40)], expect: &[("%r1", 0xffff_ff80)], why: "wrap: b & 0x1f = 8" },
        Case { asm: "dp4a.u32.u32 %r1, %r2, %r3, %r4;", inputs: &[("%r2", 0x0102_0304), ("%r3", 0x0101_0101), ("%r4", 10)], expect: &[("%r1", 20)], why: "1+2+3+4+10" },
        Case { asm: "dp4a.s32.s32 %r1, %r2, %r3, %r4;", inputs: &[("%r2", 0xffff_ffff), ("%r3", 0x0102_0304), ("%r4", 0)], expect: &[("%r1", 0xffff_fff6)], why: "-(1+2+3+4)" },
        Case { asm: "dp2a.lo.u32.u32 %r1, %r2, %r3, %r4;", inputs: &[("%r2", 0x0002_0003), ("%r3", 0x0403_0201), ("%r4", 0)], expect: &[("%r1", 7)], why: "3*1 + 2*2" },
        Case { asm: "dp2a.hi.u32.u32 %r1, %r2, %r3, %r4;", inputs: &[("%r2", 0x0002_0003), ("%r3", 0x0403_0201), ("%r4", 0)], expect: &[("%r1", 17)], why: "3*3 + 2*4" },
    ]);
}

#[test]
#[rustfmt::skip]
fn comparisons_and_selects() {
    check_table(&[
        Case { asm: "setp.lt.s32 %p1, %r2, %r3;", inputs: &[("%r2", 0xffff_ffff), ("%r3", 1)], expect: &[("%p1", 1)], why: "-1 < 1 signed" },
        Case { asm: "setp.lt.u32 %p1, %r2, %r3;", inputs: &[("%r2", 0xffff_ffff), ("%r3", 1)], expect: &[("%p1", 0)], why: "unsigned type" },
        Case { asm: "setp.lo.s32 %p1, %r2, %r3;", inputs: &[("%r2", 0xffff_ffff), ("%r3", 1)], expect: &[("%p1", 0)], why: "lo is unsigned" },
        Case { asm: "setp.ge.s32 %p1, %r2, %r3;", inputs: &[("%r2", 0x8000_0000), ("%r3", 0)], expect: &[("%p1", 0)], why: "MININT >= 0" },
        Case { asm: "setp.ls.u32 %p1, %r2, %r3;", inputs: &[("%r2", 5), ("%r3", 5)], expect: &[("%p1", 1)], why: "ls: <=" },
        Case { asm: "setp.hi.u16 %p1, %rs2, %rs3;", inputs: &[("%rs2", 0x8000), ("%rs3", 1)], expect: &[("%p1", 1)], why: "hi: unsigned >" },
        Case { asm: "setp.ne.b64 %p1, %rd2, %rd3;", inputs: &[("%rd2", 1 << 40), ("%rd3", 0)], expect: &[("%p1", 1)], why: "ne" },
        Case { asm: "setp.lt.s32 %p1|%p2, %r2, %r3;", inputs: &[("%r2", 1), ("%r3", 2)], expect: &[("%p1", 1), ("%p2", 0)], why: "q = !t" },
        Case { asm: "setp.lt.and.s32 %p1|%p2, %r2, %r3, %p3;", inputs: &[("%r2", 1), ("%r3", 2), ("%p3", 0)], expect: &[("%p1", 0), ("%p2", 0)], why: "t and c" },
        Case { asm: "setp.lt.or.s32 %p1|%p2, %r2, %r3, %p3;", inputs: &[("%r2", 1), ("%r3", 2), ("%p3", 1)], expect: &[("%p1", 1), ("%p2", 1)], why: "(!t) or c" },
        Case { asm: "setp.gt.xor.s32 %p1|%p2, %r2, %r3, %p3;", inputs: &[("%r2", 1), ("%r3", 2), ("%p3", 1)], expect: &[("%p1", 1), ("%p2", 0)], why: "t=0: 0^1, 1^1" },
        Case { asm: "setp.lt.and.s32 %p1, %r2, %r3, !%p3;", inputs: &[("%r2", 1), ("%r3", 2), ("%p3", 0)], expect: &[("%p1", 1)], why: "negated c" },
        Case { asm: "setp.lt.f32 %p1, %f2, %f3;", inputs: &[("%f2", FNAN), ("%f3", F1)], expect: &[("%p1", 0)], why: "ordered: NaN false" },
        Case { asm: "setp.ltu.f32 %p1, %f2, %f3;", inputs: &[("%f2", FNAN), ("%f3", F1)], expect: &[("%p1", 1)], why: "unordered: NaN true" },
        Case { asm: "setp.ne.f32 %p1, %f2, %f3;", inputs: &[("%f2", FNAN), ("%f3", FNAN)], expect: &[("%p1", 0)], why: "ne is ordered" },
        Case { asm: "setp.neu.f32 %p1, %f2, %f3;", inputs: &[("%f2", FNAN), ("%f3", FNAN)], expect: &[("%p1", 1)], why: "neu" },
        Case { asm: "setp.nan.f32 %p1, %f2, %f3;", inputs: &[("%f2", F1), ("%f3", FNAN)], expect: &[("%p1", 1)], why: "nan" },
        Case { asm: "setp.num.f32 %p1, %f2, %f3;", inputs: &[("%f2", F1), ("%f3", FNAN)], expect: &[("%p1", 0)], why: "num" },
        Case { asm: "setp.eq.f32 %p1, %f2, %f3;", inputs: &[("%f2", 0), ("%f3", 0x8000_0000)], expect: &[("%p1", 1)], why: "+0 == -0" },
        Case { asm: "setp.gt.ftz.f32 %p1, %f2, %f3;", inputs: &[("%f2", 1), ("%f3", 0)], expect: &[("%p1", 0)], why: ".ftz: subnormal is 0" },
        Case { asm: "setp.gt.f32 %p1, %f2, %f3;", inputs: &[("%f2", 1), ("%f3", 0)], expect: &[("%p1", 1)], why: "subnormal > 0" },
        Case { asm: "setp.le.f64 %p1, %fd2, %fd3;", inputs: &[("%fd2", 0xbff0_0000_0000_0000), ("%fd3", 0)], expect: &[("%p1", 1)], why: "-1 <= 0" },
        Case { asm: "set.lt.u32.s32 %r1, %r2, %r3;", inputs: &[("%r2", 0xffff_ffff), ("%r3", 0)], expect: &[("%r1", 0xffff_ffff)], why: "integer true: 0xffffffff" },
        Case { asm: "set.lt.f32.s32 %f1, %r2, %r3;", inputs: &[("%r2", 0xffff_ffff), ("%r3", 0)], expect: &[("%f1", F1)], why: "float true: 1.0f" },
        Case { asm: "set.gt.u32.s32 %r1, %r2, %r3;", inputs: &[("%r2", 0xffff_ffff), ("%r3", 0)], expect: &[("%r1", 0)], why: "false: 0" },
        Case { asm: "selp.b32 %r1, %r2, %r3, %p1;", inputs: &[("%r2", 7), ("%r3", 9), ("%p1", 1)], expect: &[("%r1", 7)], why: "c true: a" },
        Case { asm: "selp.b32 %r1, %r2, %r3, %p1;", inputs: &[("%r2", 7), ("%r3", 9), ("%p1", 0)], expect: &[("%r1", 9)], why: "c false: b" },
        Case { asm: "selp.f64 %fd1, %fd2, %fd3, !%p1;", inputs: &[("%fd2", 1), ("%fd3", 2), ("%p1", 1)], expect: &[("%fd1", 2)], why: "negated predicate" },
        Case { asm: "selp.b32 %r1, %r2, %r3, !0;", inputs: &[("%r2", 7), ("%r3", 9)], expect: &[("%r1", 7)], why: "!0 is 1: true" },
        Case { asm: "selp.b32 %r1, %r2, %r3, !2;", inputs: &[("%r2", 7), ("%r3", 9)], expect: &[("%r1", 9)], why: "!2 is 0 (C's not, ptxas: 0x16 of 11, 22), not bit 0 of ~2" },
        Case { asm: "selp.b32 %r1, %r2, %r3, 2;", inputs: &[("%r2", 7), ("%r3", 9)], expect: &[("%r1", 7)], why: "a constant other than 0 is true" },
        Case { asm: "mov.pred %p1, 2;", inputs: &[], expect: &[("%p1", 1)], why: "ptxas: mov.pred %p, 2 is true" },
        Case { asm: "mov.pred %p1, !0;", inputs: &[], expect: &[("%p1", 1)], why: "negated constant" },
        Case { asm: "and.pred %p1, %p2, !1;", inputs: &[("%p2", 1)], expect: &[("%p1", 0)], why: "!1 is false" },
        Case { asm: "setp.lt.and.s32 %p1, %r2, %r3, !0;", inputs: &[("%r2", 1), ("%r3", 2)], expect: &[("%p1", 1)], why: "t and !0" },
        Case { asm: "and.b32 %r1, %r2, !2;", inputs: &[("%r2", 0xffff_ffff)], expect: &[("%r1", 0)], why: "!2 is the integer 0 (ptxas stores RZ)" },
        Case { asm: "add.u32 %r1, %r2, !0;", inputs: &[("%r2", 5)], expect: &[("%r1", 6)], why: "!0 is the integer 1 (ptxas: IADD3 +1)" },
        Case { asm: "slct.b32.s32 %r1, %r2, %r3, %r4;", inputs: &[("%r2", 1), ("%r3", 2), ("%r4", 0)], expect: &[("%r1", 1)], why: "c >= 0: a" },
        Case { asm: "slct.b32.s32 %r1, %r2, %r3, %r4;", inputs: &[("%r2", 1), ("%r3", 2), ("%r4", 0xffff_ffff)], expect: &[("%r1", 2)], why: "c < 0: b" },
        Case { asm: "slct.b32.f32 %r1, %r2, %r3, %f4;", inputs: &[("%r2", 1), ("%r3", 2), ("%f4", 0x8000_0000)], expect: &[("%r1", 1)], why: "-0.0 >= 0" },
    ]);
}

#[test]
#[rustfmt::skip]
fn moves_and_special_registers() {
    check_table(&[
        Case { asm: "mov.b64 %rd1, {%r2, %r3};", inputs: &[("%r2", 0x1111_1111), ("%r3", 0x2222_2222)], expect: &[("%rd1", 0x2222_2222_1111_1111)], why: "first element is the low half" },
        Case { asm: "mov.b64 {%r1, %r2}, %rd3;", inputs: &[("%rd3", 0x0123_4567_89ab_cdef)], expect: &[("%r1", 0x89ab_cdef), ("%r2", 0x0123_4567)], why: "unpack low, high" },
        Case { asm: "mov.b32 %r1, {%rs2, %rs3};", inputs: &[("%rs2", 0x1234), ("%rs3", 0xabcd)], expect: &[("%r1", 0xabcd_1234)], why: "pack halves" },
        Case { asm: "mov.b32 {%rs1, %rs2}, %r3;", inputs: &[("%r3", 0xabcd_1234)], expect: &[("%rs1", 0x1234), ("%rs2", 0xabcd)], why: "unpack halves" },
        Case { asm: "mov.b32 {%rs1, _}, %r3;", inputs: &[("%r3", 0xabcd_1234)], expect: &[("%rs1", 0x1234)], why: "sink element" },
        Case { asm: "mov.b128 %q1, {%rd2, %rd3};\n\tmov.b128 {%rd4, %rd5}, %q1;", inputs: &[("%rd2", 5), ("%rd3", 6)], expect: &[("%rd4", 5), ("%rd5", 6)], why: "b128 round trip" },
        Case { asm: "mov.u32 %r1, %tid.x;", inputs: &[], expect: &[("%r1", 0)], why: "one thread" },
        Case { asm: "mov.u32 %r1, %ntid.x;", inputs: &[], expect: &[("%r1", 1)], why: "block of 1" },
        Case { asm: "mov.u32 %r1, %nctaid.y;", inputs: &[], expect: &[("%r1", 1)], why: "grid of 1" },
        Case { asm: "mov.u32 %r1, %laneid;", inputs: &[], expect: &[("%r1", 0)], why: "lane 0" },
        Case { asm: "mov.u32 %r1, %lanemask_le;", inputs: &[], expect: &[("%r1", 1)], why: "lanes <= 0" },
        Case { asm: "mov.u32 %r1, %lanemask_gt;", inputs: &[], expect: &[("%r1", 0xffff_fffe)], why: "lanes > 0" },
        Case { asm: "mov.f32 %f1, 0f3FC00000;", inputs: &[], expect: &[("%f1", 0x3fc0_0000)], why: "hex float" },
        Case { asm: "mov.f32 %f1, 1.5;", inputs: &[], expect: &[("%f1", 0x3fc0_0000)], why: "decimal float" },
        Case { asm: "mov.f64 %fd1, 0d3FF0000000000000;", inputs: &[], expect: &[("%fd1", 0x3ff0_0000_0000_0000)], why: "double" },
        Case { asm: "mov.b32 %r1, -1;", inputs: &[], expect: &[("%r1", 0xffff_ffff)], why: "negative literal" },
        Case { asm: "mov.u16 %rs1, 0xffff;", inputs: &[], expect: &[("%rs1", 0xffff)], why: "16-bit" },
        Case { asm: "mov.pred %p1, %p2;", inputs: &[("%p2", 1)], expect: &[("%p1", 1)], why: "predicate" },
        Case { asm: "mov.u32 %r1, WARP_SZ;", inputs: &[], expect: &[("%r1", 32)], why: "the predefined constant" },
    ]);
}

#[test]
#[rustfmt::skip]
fn float_unary_and_misc() {
    check_table(&[
        Case { asm: "neg.f32 %f1, %f2;", inputs: &[("%f2", F1)], expect: &[("%f1", FM1)], why: "sign flip" },
        Case { asm: "abs.f32 %f1, %f2;", inputs: &[("%f2", 0x8000_0000)], expect: &[("%f1", 0)], why: "|-0| = +0" },
        Case { asm: "abs.ftz.f32 %f1, %f2;", inputs: &[("%f2", 0x8000_0001)], expect: &[("%f1", 0)], why: "subnormal flushed" },
        Case { asm: "neg.f64 %fd1, %fd2;", inputs: &[("%fd2", 0)], expect: &[("%fd1", 1 << 63)], why: "-(+0) = -0" },
        Case { asm: "copysign.f32 %f1, %f2, %f3;", inputs: &[("%f2", FM1), ("%f3", F2)], expect: &[("%f1", 0xc000_0000)], why: "sign of a, value of b" },
        Case { asm: "testp.finite.f32 %p1, %f2;", inputs: &[("%f2", 0x7f80_0000)], expect: &[("%p1", 0)], why: "inf is not finite" },
        Case { asm: "testp.normal.f32 %p1, %f2;", inputs: &[("%f2", 0)], expect: &[("%p1", 1)], why: "zeros count as normal" },
        Case { asm: "testp.subnormal.f32 %p1, %f2;", inputs: &[("%f2", 1)], expect: &[("%p1", 1)], why: "denormal" },
        Case { asm: "testp.notanumber.f64 %p1, %fd2;", inputs: &[("%fd2", 0x7ff8_0000_0000_0000)], expect: &[("%p1", 1)], why: "NaN" },
        Case { asm: "div.rn.f32 %f1, %f2, %f3;", inputs: &[("%f2", F1), ("%f3", 0x4040_0000)], expect: &[("%f1", 0x3eaa_aaab)], why: "1/3 rounded to nearest" },
        Case { asm: "sqrt.rn.f32 %f1, %f2;", inputs: &[("%f2", F2)], expect: &[("%f1", 0x3fb5_04f3)], why: "sqrt(2) rounded to nearest" },
        Case { asm: "rcp.rn.f32 %f1, %f2;", inputs: &[("%f2", F2)], expect: &[("%f1", 0x3f00_0000)], why: "1/2" },
        Case { asm: "fma.rn.f32 %f1, %f2, %f3, %f4;", inputs: &[("%f2", F2), ("%f3", F2), ("%f4", FM1)], expect: &[("%f1", 0x4040_0000)], why: "2*2-1 = 3" },
        Case { asm: "mad.rn.f32 %f1, %f2, %f3, %f4;", inputs: &[("%f2", F2), ("%f3", F2), ("%f4", FM1)], expect: &[("%f1", 0x4040_0000)], why: "mad.rn.f32 is fused" },
        Case { asm: "fma.rn.sat.f32 %f1, %f2, %f3, %f4;", inputs: &[("%f2", F2), ("%f3", F2), ("%f4", FM1)], expect: &[("%f1", F1)], why: ".sat clamps 3 to 1" },
        Case { asm: "fma.rn.relu.f16 %rs1, %rs2, %rs3, %rs4;", inputs: &[("%rs2", 0x3c00), ("%rs3", 0xbc00), ("%rs4", 0)], expect: &[("%rs1", 0)], why: ".relu: -1 -> +0" },
        Case { asm: "add.rz.f32 %f1, %f2, %f3;", inputs: &[("%f2", F1), ("%f3", 0x3380_0000)], expect: &[("%f1", F1)], why: "1 + 2^-24 toward zero" },
        Case { asm: "add.rp.f32 %f1, %f2, %f3;", inputs: &[("%f2", F1), ("%f3", 0x3380_0000)], expect: &[("%f1", 0x3f80_0001)], why: "1 + 2^-24 upward" },
        Case { asm: "add.rn.f32 %f1, %f2, %f3;", inputs: &[("%f2", F1), ("%f3", 0x3380_0000)], expect: &[("%f1", F1)], why: "tie to even" },
        Case { asm: "mul.rn.f32 %f1, %f2, %f3;", inputs: &[("%f2", 0x7f80_0000), ("%f3", 0)], expect: &[("%f1", 0x7fff_ffff)], why: "inf * 0: canonical NaN" },
        Case { asm: "min.xorsign.abs.f32 %f1, %f2, %f3;", inputs: &[("%f2", 0xc040_0000), ("%f3", F2)], expect: &[("%f1", 0xc000_0000)], why: "min(3, 2) with sign 1^0: -2" },
        Case { asm: "max.xorsign.abs.f32 %f1, %f2, %f3;", inputs: &[("%f2", 0xc040_0000), ("%f3", 0xc000_0000)], expect: &[("%f1", 0x4040_0000)], why: "max(3, 2) with sign 1^1: 3" },
    ]);
}

#[test]
#[rustfmt::skip]
fn video_simd_and_shift() {
    check_table(&[
        Case { asm: "vabsdiff4.u32.u32.u32.add %r1, %r2, %r3, %r4;", inputs: &[("%r2", 0x0102_0304), ("%r3", 0x0403_0201), ("%r4", 10)], expect: &[("%r1", 18)], why: "c + 3+1+1+3" },
        Case { asm: "vabsdiff4.u32.u32.u32 %r1, %r2, %r3, %r4;", inputs: &[("%r2", 0x0102_0304), ("%r3", 0x0403_0201), ("%r4", 0xffff_ffff)], expect: &[("%r1", 0x0301_0103)], why: "merge, full mask: |a-b| per byte" },
        Case { asm: "vadd4.u32.u32.u32.sat %r1, %r2, %r3, %r4;", inputs: &[("%r2", 0xff01_ff01), ("%r3", 0x0101_0101), ("%r4", 0)], expect: &[("%r1", 0xff02_ff02)], why: "256 clamps to 255" },
        Case { asm: "vsub4.s32.s32.s32.sat %r1, %r2, %r3, %r4;", inputs: &[("%r2", 0x80), ("%r3", 1), ("%r4", 0)], expect: &[("%r1", 0x80)], why: "-129 clamps to -128" },
        Case { asm: "vset4.u32.u32.gt %r1, %r2, %r3, %r4;", inputs: &[("%r2", 0x0500_0300), ("%r3", 0x0401_0300), ("%r4", 0)], expect: &[("%r1", 0x0100_0000)], why: "only byte 3: 5 > 4" },
        Case { asm: "vmin2.u32.u32.u32 %r1, %r2, %r3, %r4;", inputs: &[("%r2", 0x0005_ffff), ("%r3", 0x0007_0001), ("%r4", 0)], expect: &[("%r1", 0x0005_0001)], why: "per half" },
        Case { asm: "vsub2.s32.s32.s32.sat %r1, %r2, %r3, %r4;", inputs: &[("%r2", 0x8000_0005), ("%r3", 0x0001_0007), ("%r4", 0)], expect: &[("%r1", 0x8000_fffe)], why: "-32769 clamps; 5-7 = -2" },
        Case { asm: "vavrg4.u32.u32.u32 %r1, %r2, %r3, %r4;", inputs: &[("%r2", 0x0102_0304), ("%r3", 0x0202_0202), ("%r4", 0)], expect: &[("%r1", 0x0202_0303)], why: "(a+b+1)>>1 per byte" },
        Case { asm: "vshr.u32.u32.u32.clamp.add %r1, %r2, %r3, %r4;", inputs: &[("%r2", 0x8000_0000), ("%r3", 40), ("%r4", 5)], expect: &[("%r1", 5)], why: "clamped to 32: 0, + c" },
        Case { asm: "vshr.u32.u32.u32.clamp.add %r1, %r2, %r3, %r4;", inputs: &[("%r2", 0x8000_0000), ("%r3", 4), ("%r4", 5)], expect: &[("%r1", 0x0800_0005)], why: "shift, + c" },
        Case { asm: "vshr.s32.s32.u32.wrap %r1, %r2, %r3;", inputs: &[("%r2", 0x8000_0000), ("%r3", 33)], expect: &[("%r1", 0xc000_0000)], why: "wrap: 1, arithmetic" },
    ]);
}

/// Instructions whose results depend on hardware approximations, or
/// forms not modelled, are reported, never guessed.
#[test]
#[rustfmt::skip]
fn unknown_forms_are_unsupported() {
    for asm in [
        "ex2.f32 %f1, %f2;",
        "ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%r1, %r2}, [%rd2];",
        "add.f32x2 %rd1, %rd2, %rd3;",
        "mul.lo.u32.frobnicate %r1, %r2, %r3;",
        "vabsdiff4.u32.u32.u32.b3210 %r1, %r2, %r3, %r4;",
        "mov.u32 %r1, %warpid;",
        "brkpt;",
    ] {
        expect_cannot_model(asm, &[]);
    }
}

#[test]
#[rustfmt::skip]
fn the_unsupported_error_names_the_instruction_and_line() {
    let err = eval("wgmma.fence.sync.aligned;", &[], &[]).unwrap_err();
    let text = err.to_string();
    assert!(text.starts_with("unsupported: wgmma.fence.sync.aligned at "), "{text}");
    match err {
        InterpError::Unsupported { line, .. } => assert!(line > 10, "line {line}"),
        other => panic!("{other:?}"),
    }
}

#[test]
#[rustfmt::skip]
fn guards_skip_instructions() {
    check_table(&[
        Case { asm: "@%p1 mov.b32 %r1, 7;", inputs: &[("%r1", 3), ("%p1", 0)], expect: &[("%r1", 3)], why: "false guard: nothing" },
        Case { asm: "@%p1 mov.b32 %r1, 7;", inputs: &[("%r1", 3), ("%p1", 1)], expect: &[("%r1", 7)], why: "true guard" },
        Case { asm: "@!%p1 mov.b32 %r1, 7;", inputs: &[("%r1", 3), ("%p1", 1)], expect: &[("%r1", 3)], why: "negated guard" },
        Case { asm: "@%p1 div.u32 %r1, %r2, %r3;", inputs: &[("%r1", 3), ("%r2", 1), ("%r3", 0), ("%p1", 0)], expect: &[("%r1", 3)], why: "guarded-off division by zero does nothing" },
    ]);
}
