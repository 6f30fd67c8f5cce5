//! Tensor-core instructions against plain references: random A, B and C
//! are distributed into per-lane fragments by the layouts of the ISA's
//! figures (written out below per shape, independently of the
//! interpreter's general formula), one `mma.sync` runs in a 32-thread
//! kernel, and the gathered D is compared with a reference matrix multiply.
//! Float inputs are drawn so that every sum is exact in f64; the
//! reference rounds that sum once (the interpreter's fused model).
//! `ldmatrix`, `stmatrix` and `movmatrix` are checked element by element
//! against the layout of the ldmatrix figure, with scattered row addresses.

use crate::harness::{module_text, run_text};
use ptx_interp::SplitMix64;

#[derive(Clone, Copy, Debug, PartialEq)]
enum T {
    F16,
    Bf16,
    Tf32,
    F32,
    F64,
    S8,
    U8,
    S4,
    U4,
    S32,
}

impl T {
    fn name(self) -> &'static str {
        match self {
            T::F16 => "f16",
            T::Bf16 => "bf16",
            T::Tf32 => "tf32",
            T::F32 => "f32",
            T::F64 => "f64",
            T::S8 => "s8",
            T::U8 => "u8",
            T::S4 => "s4",
            T::U4 => "u4",
            T::S32 => "s32",
        }
    }
    fn bits(self) -> u32 {
        match self {
            T::S4 | T::U4 => 4,
            T::S8 | T::U8 => 8,
            T::F16 | T::Bf16 => 16,
            T::F64 => 64,
            _ => 32,
        }
    }
    fn reg_bits(self) -> u32 {
        if self == T::F64 {
            64
        } else {
            32
        }
    }
    fn per_reg(self) -> usize {
        (self.reg_bits() / self.bits()) as usize
    }
    /// A random element whose value keeps every sum exact in f64.
    fn random(self, rng: &mut SplitMix64) -> u64 {
        let r = rng.next_u64();
        let sign = r >> 63;
        let e = (r >> 32) % 7; // exponent offset 0..6, meaning -3..3
        match self {
            T::F16 => sign << 15 | (12 + e) << 10 | (r & 0x3ff),
            T::Bf16 => sign << 15 | (124 + e) << 7 | (r & 0x7f),
            // tf32: garbage in the 13 low bits, which mma ignores
            T::Tf32 => sign << 31 | (124 + e) << 23 | (r & 0x7f_ffff),
            T::F32 => sign << 31 | (125 + e % 5) << 23 | (r & 0x7f_ffff),
            T::F64 => sign << 63 | (1020 + e) << 52 | (r & 0xffff) << 36,
            _ => r & ((1 << self.bits()) - 1),
        }
    }
    fn value(self, raw: u64) -> f64 {
        match self {
            T::F16 => {
                let s = if raw >> 15 & 1 == 1 { -1.0 } else { 1.0 };
                let (e, m) = ((raw >> 10) & 31, raw & 0x3ff);
                if e == 0 {
                    s * m as f64 * 2f64.powi(-24)
                } else {
                    s * (1024 + m) as f64 * 2f64.powi(e as i32 - 25)
                }
            }
            T::Bf16 => f32::from_bits((raw as u32) << 16) as f64,
            T::Tf32 => f32::from_bits(raw as u32 & 0xffff_e000) as f64,
            T::F32 => f32::from_bits(raw as u32) as f64,
            T::F64 => f64::from_bits(raw),
            T::S8 => raw as u8 as i8 as f64,
            T::S4 => (((raw as u8) << 4) as i8 >> 4) as f64,
            T::S32 => raw as u32 as i32 as f64,
            T::U8 | T::U4 => raw as f64,
        }
    }
    fn is_int(self) -> bool {
        matches!(self, T::S8 | T::U8 | T::S4 | T::U4 | T::S32)
    }
}

/// An exact f64 rounded to nearest even f16 (finite results only).
fn f16_bits(x: f64) -> u64 {
    if x == 0.0 {
        return (x.is_sign_negative() as u64) << 15;
    }
    let sign = (x < 0.0) as u64;
    let a = x.abs();
    let e = ((a.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    let q = if e < -14 { -24 } else { e - 10 };
    let n = (a / 2f64.powi(q)).round_ties_even() as u64;
    let (n, q) = if n == 2048 { (1024, q + 1) } else { (n, q) };
    if n < 1024 {
        return sign << 15 | n;
    }
    sign << 15 | ((q + 25) as u64) << 10 | (n - 1024)
}

struct Shape {
    m: usize,
    n: usize,
    k: usize,
}

/// (row, column) of element `i` of lane `lane`'s A fragment, per the ISA's figures.
fn a_pos(s: &Shape, t: T, lane: usize, i: usize) -> (usize, usize) {
    let (g, tg) = (lane / 4, lane % 4);
    match (t.bits(), s.m, s.k) {
        // f16/bf16 m16n8k16: a0,a1,a4,a5 in row g, the others g+8; a4..a7 columns + 8
        (16, 16, 16) => (g + 8 * ((i / 2) % 2), tg * 2 + (i & 1) + 8 * (i / 4)),
        (16, 16, 8) => (g + 8 * (i / 2), tg * 2 + (i & 1)),
        // tf32 m16n8k8: a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4)
        (32, 16, 8) => (g + 8 * (i % 2), tg + 4 * (i / 2)),
        (32, 16, 4) => (g + 8 * i, tg),
        // f64
        (64, 8, 4) => (g, tg),
        (64, 16, 4) => (g + 8 * i, tg),
        (64, 16, 8) => (g + 8 * (i % 2), tg + 4 * (i / 2)),
        // f64 m16n8k16: row g for even i, col (i * 2) + t (even i), (i * 2) - 2 + t (odd i)
        (64, 16, 16) => (g + 8 * (i % 2), if i.is_multiple_of(2) { i * 2 + tg } else { i * 2 - 2 + tg }),
        // s8/u8 m16n8k32: a0..a3 and a8..a11 in row g; a8..a15 columns + 16
        (8, 16, 32) => (g + 8 * ((i / 4) % 2), tg * 4 + (i & 3) + 16 * (i / 8)),
        (8, 16, 16) => (g + 8 * (i / 4), tg * 4 + (i & 3)),
        (8, 8, 16) => (g, tg * 4 + i),
        // s4/u4 m8n8k32: eight nibbles per thread
        (4, 8, 32) => (g, tg * 8 + i),
        // s4/u4 m16n8k64: a0..a7 and a16..a23 in row g; a16.. columns + 32
        (4, 16, 64) => (g + 8 * ((i / 8) % 2), tg * 8 + (i & 7) + 32 * (i / 16)),
        (4, 16, 32) => (g + 8 * (i / 8), tg * 8 + (i & 7)),
        other => panic!("no A layout for {other:?}"),
    }
}

fn b_pos(s: &Shape, t: T, lane: usize, i: usize) -> (usize, usize) {
    let (g, tg) = (lane / 4, lane % 4);
    let row = match (t.bits(), s.k) {
        (16, 16) => tg * 2 + (i & 1) + 8 * (i / 2),
        (16, 8) => tg * 2 + i,
        (32, 8) | (64, 8) | (64, 16) => tg + 4 * i,
        (32, 4) | (64, 4) => tg,
        (8, 32) => tg * 4 + (i & 3) + 16 * (i / 4),
        (8, 16) => tg * 4 + i,
        (4, 32) => tg * 8 + i,
        (4, 64) => tg * 8 + (i & 7) + 32 * (i / 8),
        other => panic!("no B layout for {other:?}"),
    };
    (row, g)
}

fn c_pos(s: &Shape, lane: usize, i: usize) -> (usize, usize) {
    let (g, tg) = (lane / 4, lane % 4);
    if s.m == 16 {
        (g + 8 * (i / 2), tg * 2 + (i & 1))
    } else {
        (g, tg * 2 + i)
    }
}

/// Packs lane fragments: `elems` per lane, `per_reg` per register of `reg_bits`.
fn pack(values: &[u64], bits: u32, per_reg: usize) -> Vec<u64> {
    values
        .chunks(per_reg)
        .map(|c| {
            c.iter().enumerate().fold(0u64, |acc, (i, &v)| if bits == 64 { v } else { acc | v << (bits as usize * i) })
        })
        .collect()
}

/// Runs one `mma` on random fragments and compares D with the reference.
fn check_mma(s: Shape, d: T, a: T, b: T, c: T, satfinite: bool, seed: u64) {
    let mut rng = SplitMix64::new(seed);
    let mut am = vec![vec![0u64; s.k]; s.m];
    let mut bm = vec![vec![0u64; s.n]; s.k];
    let mut cm = vec![vec![0u64; s.n]; s.m];
    am.iter_mut().flatten().for_each(|x| *x = a.random(&mut rng));
    bm.iter_mut().flatten().for_each(|x| *x = b.random(&mut rng));
    cm.iter_mut().flatten().for_each(|x| *x = c.random(&mut rng));
    if satfinite {
        // Large accumulators, so that some sums leave the s32 range.
        cm.iter_mut().flatten().for_each(|x| *x = if rng.next_u64() & 1 == 1 { 0x7fff_ff00 } else { 0x8000_0100 });
    }
    let (na, nb, nc) = (s.m * s.k / 32, s.k * s.n / 32, s.m * s.n / 32);
    // Per lane: the A, B and C registers, as the kernel loads them.
    let mut input = Vec::new();
    let rb = a.reg_bits().max(c.reg_bits()) as usize / 8;
    let mut lane_regs = Vec::new();
    for lane in 0..32 {
        let av: Vec<u64> = (0..na).map(|i| a_pos(&s, a, lane, i)).map(|(r, k)| am[r][k]).collect();
        let bv: Vec<u64> = (0..nb).map(|i| b_pos(&s, b, lane, i)).map(|(k, col)| bm[k][col]).collect();
        let cv: Vec<u64> = (0..nc).map(|i| c_pos(&s, lane, i)).map(|(r, col)| cm[r][col]).collect();
        let mut regs = pack(&av, a.bits(), a.per_reg());
        regs.extend(pack(&bv, b.bits(), b.per_reg()));
        regs.extend(pack(&cv, c.bits(), c.per_reg()));
        lane_regs.push(regs);
    }
    let per_lane = lane_regs[0].len();
    for regs in &lane_regs {
        for r in regs {
            input.extend_from_slice(&r.to_le_bytes()[..rb]);
        }
    }
    let (ra, rbn, rc, rd) = (na / a.per_reg(), nb / b.per_reg(), nc / c.per_reg(), nc / d.per_reg());
    let reg = |i: usize, t: T| if t.reg_bits() == 64 { format!("%fx{i}") } else { format!("%x{i}") };
    let list = |from: usize, n: usize, t: T| (from..from + n).map(|i| reg(i, t)).collect::<Vec<_>>().join(", ");
    let mut body =
        format!("\tmov.u32 %r0, %tid.x;\n\tmul.wide.u32 %rd0, %r0, {};\n\tadd.s64 %rd1, %rd15, %rd0;\n", per_lane * rb);
    let mut idx = 0;
    for (n, t) in [(ra, a), (rbn, b), (rc, c)] {
        for _ in 0..n {
            body.push_str(&format!("\tld.global.b{} {}, [%rd1+{}];\n", 8 * rb, reg(idx, t), idx * rb));
            idx += 1;
        }
    }
    let sat = if satfinite { ".satfinite" } else { "" };
    body.push_str(&format!(
        "\tmma.sync.aligned.m{}n{}k{}.row.col{sat}.{}.{}.{}.{} {{{}}}, {{{}}}, {{{}}}, {{{}}};\n",
        s.m,
        s.n,
        s.k,
        d.name(),
        a.name(),
        b.name(),
        c.name(),
        list(idx, rd, d),
        list(0, ra, a),
        list(ra, rbn, b),
        list(ra + rbn, rc, c),
    ));
    let db = d.reg_bits() as usize / 8;
    body.push_str(&format!("\tmul.wide.u32 %rd2, %r0, {};\n\tadd.s64 %rd3, %rd14, %rd2;\n", rd * db));
    for j in 0..rd {
        body.push_str(&format!("\tst.global.b{} [%rd3+{}], {};\n", d.reg_bits(), j * db, reg(idx + j, d)));
    }
    let decls = "\t.reg .b32 %x<40>;\n\t.reg .b64 %fx<40>;\n";
    let text = module_text(&body, decls, "");
    let out = run_text(&text, &input, 32).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let data = &out.buffers[0].data;
    // Reference D.
    let mut want = vec![vec![0u64; s.n]; s.m];
    for r in 0..s.m {
        for col in 0..s.n {
            if d.is_int() {
                let mut sum = c.value(cm[r][col]) as i64;
                for k in 0..s.k {
                    sum += a.value(am[r][k]) as i64 * b.value(bm[k][col]) as i64;
                }
                let v = if satfinite { sum.clamp(i32::MIN as i64, i32::MAX as i64) } else { sum };
                want[r][col] = v as u32 as u64;
            } else {
                let mut sum = c.value(cm[r][col]);
                for k in 0..s.k {
                    sum += a.value(am[r][k]) * b.value(bm[k][col]);
                }
                want[r][col] = match d {
                    T::F32 => (sum as f32).to_bits() as u64,
                    T::F64 => sum.to_bits(),
                    _ => f16_bits(sum),
                };
            }
        }
    }
    let nd = nc;
    for lane in 0..32 {
        for i in 0..nd {
            let (r, col) = c_pos(&s, lane, i);
            let (j, h) = (i / d.per_reg(), i % d.per_reg());
            let at = lane * rd * db + j * db;
            let word =
                u64::from_le_bytes(data[at..at + 8].try_into().unwrap()) & if db == 8 { u64::MAX } else { 0xffff_ffff };
            let got = if d.bits() == 16 { (word >> (16 * h)) & 0xffff } else { word };
            assert_eq!(
                got, want[r][col],
                "m{}n{}k{} {d:?}.{a:?}.{b:?}.{c:?} seed {seed}: D[{r}][{col}] (lane {lane}, element {i})",
                s.m, s.n, s.k
            );
        }
    }
}

fn sh(m: usize, n: usize, k: usize) -> Shape {
    Shape { m, n, k }
}

#[test]
fn mma_f16_and_bf16_to_f32() {
    for seed in 1..4 {
        check_mma(sh(16, 8, 16), T::F32, T::F16, T::F16, T::F32, false, seed);
        check_mma(sh(16, 8, 8), T::F32, T::F16, T::F16, T::F32, false, seed);
        check_mma(sh(16, 8, 16), T::F16, T::F16, T::F16, T::F16, false, seed);
        check_mma(sh(16, 8, 16), T::F32, T::F16, T::F16, T::F16, false, seed);
        check_mma(sh(16, 8, 16), T::F32, T::Bf16, T::Bf16, T::F32, false, seed);
        check_mma(sh(16, 8, 8), T::F32, T::Bf16, T::Bf16, T::F32, false, seed);
    }
}

#[test]
fn mma_tf32_and_f64() {
    for seed in 1..4 {
        check_mma(sh(16, 8, 8), T::F32, T::Tf32, T::Tf32, T::F32, false, seed);
        check_mma(sh(16, 8, 4), T::F32, T::Tf32, T::Tf32, T::F32, false, seed);
        check_mma(sh(8, 8, 4), T::F64, T::F64, T::F64, T::F64, false, seed);
        check_mma(sh(16, 8, 4), T::F64, T::F64, T::F64, T::F64, false, seed);
        check_mma(sh(16, 8, 8), T::F64, T::F64, T::F64, T::F64, false, seed);
        check_mma(sh(16, 8, 16), T::F64, T::F64, T::F64, T::F64, false, seed);
    }
}

#[test]
fn mma_integer() {
    for seed in 1..4 {
        for (a, b) in [(T::S8, T::S8), (T::U8, T::U8), (T::S8, T::U8), (T::U8, T::S8)] {
            check_mma(sh(16, 8, 32), T::S32, a, b, T::S32, false, seed);
            check_mma(sh(16, 8, 16), T::S32, a, b, T::S32, false, seed);
            check_mma(sh(8, 8, 16), T::S32, a, b, T::S32, false, seed);
        }
        check_mma(sh(16, 8, 32), T::S32, T::S8, T::S8, T::S32, true, seed);
        check_mma(sh(16, 8, 32), T::S32, T::U8, T::U8, T::S32, false, seed + 100);
        check_mma(sh(8, 8, 32), T::S32, T::S4, T::S4, T::S32, false, seed);
        check_mma(sh(8, 8, 32), T::S32, T::U4, T::S4, T::S32, true, seed);
        check_mma(sh(16, 8, 64), T::S32, T::S4, T::U4, T::S32, false, seed);
        check_mma(sh(16, 8, 32), T::S32, T::U4, T::U4, T::S32, false, seed);
    }
}

/// One-instruction kernel with fragments given as registers: D of lane 0.
fn mma_lane0(instr: &str, a: &[u32], b: &[u32], c: &[u32], nd: usize) -> Vec<u32> {
    let mut body = String::new();
    let mut regs = Vec::new();
    for (i, v) in a.iter().chain(b).chain(c).enumerate() {
        body.push_str(&format!("\tmov.b32 %x{i}, {v:#x};\n"));
        regs.push(format!("%x{i}"));
    }
    let (ra, rest) = regs.split_at(a.len());
    let (rb, rc) = rest.split_at(b.len());
    let rd: Vec<String> = (0..nd).map(|i| format!("%x{}", 30 + i)).collect();
    body.push_str(&format!(
        "\t{instr} {{{}}}, {{{}}}, {{{}}}, {{{}}};\n\tmov.u32 %r0, %tid.x;\n\tmul.wide.u32 %rd0, %r0, 16;\n\tadd.s64 %rd1, %rd14, %rd0;\n",
        rd.join(", "),
        ra.join(", "),
        rb.join(", "),
        rc.join(", ")
    ));
    for (j, r) in rd.iter().enumerate() {
        body.push_str(&format!("\tst.global.b32 [%rd1+{}], {r};\n", 4 * j));
    }
    let text = module_text(&body, "\t.reg .b32 %x<40>;\n", "");
    let out = run_text(&text, &[], 32).unwrap_or_else(|e| panic!("{e}\n{text}"));
    crate::harness::words(&out.buffers[0].data[..4 * nd])
}

#[test]
fn mma_special_values() {
    let f16 = "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32";
    // Every lane holds the same fragments: A = 1.0 everywhere (0x3c00), B = 2.0 (0x4000).
    // D = 8 * 1 * 2 + C.
    assert_eq!(mma_lane0(f16, &[0x3c003c00; 2], &[0x40004000], &[0; 4], 4), [0x41800000; 4]);
    // An infinite A gives inf; inf * 0 gives the canonical NaN; +inf + -inf too.
    assert_eq!(mma_lane0(f16, &[0x7c003c00; 2], &[0x40004000], &[0; 4], 4), [0x7f800000; 4]);
    assert_eq!(mma_lane0(f16, &[0x7c003c00; 2], &[0], &[0; 4], 4), [0x7fffffff; 4]);
    assert_eq!(mma_lane0(f16, &[0x7c003c00; 2], &[0x40004000], &[0xff800000; 4], 4), [0x7fffffff; 4]);
    // All-zero terms: -0 only if every term is -0 (products -0 * +0 and C = -0).
    assert_eq!(mma_lane0(f16, &[0x80008000; 2], &[0], &[0x80000000; 4], 4), [0x80000000; 4]);
    assert_eq!(mma_lane0(f16, &[0x80008000; 2], &[0], &[0; 4], 4), [0; 4]);
    // Products are exact: 65504 * 65504 * 8 overflows f16 but an f32 D holds
    // 8 * 65504^2 = 2^35 - 2^25 + 2^13 = 34326192128 exactly (0x50ffc004).
    assert_eq!(mma_lane0(f16, &[0x7bff7bff; 2], &[0x7bff7bff], &[0; 4], 4), [0x50ffc004; 4]);
    // Subnormal f16 inputs count, and cancellation is exact: 8 * (1 * 2^-24) - 2^-21 = +0.
    assert_eq!(mma_lane0(f16, &[0x3c003c00; 2], &[0x00010001], &[0xb5000000; 4], 4), [0; 4]);
    // Integer wrap-around without .satfinite, clamping with it.
    let s8 = "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32";
    // A = B = -128 everywhere: each D = 32 * 16384 + C = 524288 + C.
    assert_eq!(mma_lane0(s8, &[0x80808080; 4], &[0x80808080; 2], &[0x7fffffff; 4], 4), [0x8007ffff; 4]);
    let s8sat = "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32";
    assert_eq!(mma_lane0(s8sat, &[0x80808080; 4], &[0x80808080; 2], &[0x7fffffff; 4], 4), [0x7fffffff; 4]);
}

/// 64 row slots of 16 bytes in shared memory; `rows[lane]` is the slot
/// lane's address names (distinct, scattered).
fn scattered_rows(rng: &mut SplitMix64) -> Vec<u32> {
    let mut slots: Vec<u32> = (0..64).collect();
    for i in (1..64).rev() {
        let j = (rng.next_u64() % (i as u64 + 1)) as usize;
        slots.swap(i, j);
    }
    slots.truncate(32);
    slots
}

const XDECL: &str = "\t.reg .b32 %x<40>;\n";
const SMEM: &str = ".shared .align 16 .b8 sm[1024];";

/// Input layout for the matrix-movement kernels: 1024 bytes of shared
/// memory contents, then 32 row slots (u32), then 32 lanes x 4 registers.
fn movement_input(rng: &mut SplitMix64, rows: &[u32]) -> (Vec<u8>, Vec<u32>) {
    let mut input: Vec<u8> = (0..1024).map(|_| rng.next_u64() as u8).collect();
    for r in rows {
        input.extend_from_slice(&(r * 16).to_le_bytes());
    }
    let regs: Vec<u32> = (0..128).map(|_| rng.next_u64() as u32).collect();
    for r in &regs {
        input.extend_from_slice(&r.to_le_bytes());
    }
    (input, regs)
}

const MOVE_PROLOGUE: &str = "\tmov.u32 %r0, %tid.x;\n\tmul.wide.u32 %rd0, %r0, 32;\n\tadd.s64 %rd1, %rd15, %rd0;\n\tld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd1];\n\tld.global.v4.u32 {%r5, %r6, %r7, %r8}, [%rd1+16];\n\tmov.u64 %rd2, sm;\n\tadd.s64 %rd3, %rd2, %rd0;\n\tst.shared.v4.u32 [%rd3], {%r1, %r2, %r3, %r4};\n\tst.shared.v4.u32 [%rd3+16], {%r5, %r6, %r7, %r8};\n\tbar.sync 0;\n\tmul.wide.u32 %rd4, %r0, 4;\n\tadd.s64 %rd5, %rd15, %rd4;\n\tld.global.u32 %r9, [%rd5+1024];\n\tcvt.u64.u32 %rd6, %r9;\n\tadd.s64 %rd7, %rd2, %rd6;\n\tmul.wide.u32 %rd8, %r0, 16;\n\tadd.s64 %rd9, %rd15, %rd8;\n\tld.global.v4.u32 {%r10, %r11, %r12, %r13}, [%rd9+1152];\n\tadd.s64 %rd10, %rd14, %rd8;\n";

fn half(word: u32, h: usize) -> u16 {
    (word >> (16 * h)) as u16
}

#[test]
fn ldmatrix_layouts() {
    for (seed, num, trans) in [(1, 1, false), (2, 2, false), (3, 4, false), (4, 1, true), (5, 2, true), (6, 4, true)] {
        let mut rng = SplitMix64::new(seed);
        let rows = scattered_rows(&mut rng);
        let (input, _) = movement_input(&mut rng, &rows);
        let dst: Vec<String> = (0..num).map(|i| format!("%x{}", 20 + i)).collect();
        let t = if trans { ".trans" } else { "" };
        let mut body = MOVE_PROLOGUE.to_string();
        body.push_str(&format!("\tldmatrix.sync.aligned.m8n8.x{num}{t}.shared.b16 {{{}}}, [%rd7];\n", dst.join(", ")));
        for (j, r) in dst.iter().enumerate() {
            body.push_str(&format!("\tst.global.u32 [%rd10+{}], {r};\n", 4 * j));
        }
        let out = run_text(&module_text(&body, XDECL, SMEM), &input, 32).unwrap();
        let got = crate::harness::words(&out.buffers[0].data[..512]);
        // Element (r, c) of matrix m: the 16-bit word c of the row lane 8m + r addressed.
        let elem = |m: usize, r: usize, c: usize| -> u16 {
            let at = rows[8 * m + r] as usize * 16 + 2 * c;
            u16::from_le_bytes([input[at], input[at + 1]])
        };
        for lane in 0..32 {
            let (g, tg) = (lane / 4, lane % 4);
            for m in 0..num {
                let w = got[lane * 4 + m];
                let want = if trans {
                    [elem(m, 2 * tg, g), elem(m, 2 * tg + 1, g)]
                } else {
                    [elem(m, g, 2 * tg), elem(m, g, 2 * tg + 1)]
                };
                assert_eq!([half(w, 0), half(w, 1)], want, "x{num}{t} lane {lane} matrix {m}");
            }
        }
    }
}

#[test]
fn stmatrix_layouts_and_round_trip() {
    for (seed, num, trans) in [(11, 1, false), (12, 2, false), (13, 4, false), (14, 1, true), (15, 4, true)] {
        let mut rng = SplitMix64::new(seed);
        let rows = scattered_rows(&mut rng);
        let (input, regs) = movement_input(&mut rng, &rows);
        let src: Vec<String> = (0..num).map(|i| format!("%r{}", 10 + i)).collect();
        let t = if trans { ".trans" } else { "" };
        let mut body = MOVE_PROLOGUE.to_string();
        body.push_str(&format!("\tstmatrix.sync.aligned.m8n8.x{num}{t}.shared.b16 [%rd7], {{{}}};\n", src.join(", ")));
        // Read back the rows through ldmatrix with the same qualifiers: the registers again.
        let back: Vec<String> = (0..num).map(|i| format!("%x{}", 20 + i)).collect();
        body.push_str(&format!(
            "\tbar.sync 0;\n\tldmatrix.sync.aligned.m8n8.x{num}{t}.shared.b16 {{{}}}, [%rd7];\n",
            back.join(", ")
        ));
        for (j, r) in back.iter().enumerate() {
            body.push_str(&format!("\tst.global.u32 [%rd10+{}], {r};\n", 4 * j));
        }
        // And the shared memory itself, 32 bytes per lane, after the 512 bytes of registers.
        body.push_str("\tbar.sync 0;\n\tld.shared.v4.u32 {%r1, %r2, %r3, %r4}, [%rd3];\n\tld.shared.v4.u32 {%r5, %r6, %r7, %r8}, [%rd3+16];\n\tadd.s64 %rd11, %rd14, %rd0;\n\tst.global.v4.u32 [%rd11+512], {%r1, %r2, %r3, %r4};\n\tst.global.v4.u32 [%rd11+528], {%r5, %r6, %r7, %r8};\n");
        let out = run_text(&module_text(&body, XDECL, SMEM), &input, 32).unwrap();
        let data = &out.buffers[0].data;
        let got = crate::harness::words(&data[..512]);
        let reg = |lane: usize, m: usize| regs[lane * 4 + m];
        for lane in 0..32 {
            for m in 0..num {
                assert_eq!(got[lane * 4 + m], reg(lane, m), "x{num}{t} round trip lane {lane} matrix {m}");
            }
        }
        let smem = &data[512..1536];
        for m in 0..num {
            for r in 0..8 {
                for c in 0..8 {
                    let at = rows[8 * m + r] as usize * 16 + 2 * c;
                    let stored = u16::from_le_bytes([smem[at], smem[at + 1]]);
                    let want =
                        if trans { half(reg(4 * c + r / 2, m), r % 2) } else { half(reg(4 * r + c / 2, m), c % 2) };
                    assert_eq!(stored, want, "x{num}{t} matrix {m} ({r}, {c})");
                }
            }
        }
        // Rows no lane named keep their contents.
        for slot in 0..64u32 {
            if !rows[..8 * num].contains(&slot) {
                let at = slot as usize * 16;
                assert_eq!(&smem[at..at + 16], &input[at..at + 16], "untouched slot {slot}");
            }
        }
    }
}

#[test]
fn movmatrix_transposes() {
    let mut rng = SplitMix64::new(21);
    let rows = scattered_rows(&mut rng);
    let (input, regs) = movement_input(&mut rng, &rows);
    let mut body = MOVE_PROLOGUE.to_string();
    body.push_str("\tmovmatrix.sync.aligned.m8n8.trans.b16 %x20, %r10;\n\tst.global.u32 [%rd10], %x20;\n");
    let out = run_text(&module_text(&body, XDECL, SMEM), &input, 32).unwrap();
    let got = crate::harness::words(&out.buffers[0].data[..512]);
    // Element (r, c) of the source is in lane 4r + c/2, half c % 2; lane l
    // receives the transposed row g: (2t, g) and (2t+1, g).
    let src = |r: usize, c: usize| half(regs[(4 * r + c / 2) * 4], c % 2);
    for lane in 0..32 {
        let (g, tg) = (lane / 4, lane % 4);
        let w = got[lane * 4];
        assert_eq!([half(w, 0), half(w, 1)], [src(2 * tg, g), src(2 * tg + 1, g)], "lane {lane}");
    }
}

#[test]
fn tensor_errors_are_reported() {
    let run = |body: &str, threads: u32| {
        let text = module_text(body, "\t.reg .b32 %x<40>;\n", SMEM);
        run_text(&text, &[], threads).map(|_| ()).map_err(|e| e.to_string())
    };
    // A warp of fewer than 32 lanes never completes the collective.
    let mma = "\tmma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%x0, %x1, %x2, %x3}, {%x4, %x5}, {%x6}, {%x7, %x8, %x9, %x10};\n";
    assert!(run(mma, 16).is_err());
    assert!(run(mma, 32).is_ok());
    // Wrong fragment sizes, layouts and unmodelled shapes are errors, not guesses.
    let e = run("\tmma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%x0, %x1, %x2}, {%x4, %x5}, {%x6}, {%x7, %x8, %x9, %x10};\n", 32);
    assert!(e.unwrap_err().contains("fragment operand count"));
    let e = run("\tmma.sync.aligned.m16n8k8.col.row.f32.f16.f16.f32 {%x0, %x1, %x2, %x3}, {%x4, %x5}, {%x6}, {%x7, %x8, %x9, %x10};\n", 32);
    assert!(e.unwrap_err().contains("unsupported"));
    let e = run("\tmma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7}, {%x8, %x9}, {%x10, %x11}, {%x12, %x13, %x14, %x15, %x16, %x17, %x18, %x19};\n", 32);
    assert!(e.unwrap_err().contains("unsupported"));
    // ldmatrix: a misaligned row, and an address outside shared memory.
    let e = run(
        "\tmov.u64 %rd1, sm;\n\tadd.s64 %rd1, %rd1, 8;\n\tldmatrix.sync.aligned.m8n8.x1.shared.b16 {%x0}, [%rd1];\n",
        32,
    );
    assert!(e.unwrap_err().contains("misaligned"));
    let e = run("\tldmatrix.sync.aligned.m8n8.x1.b16 {%x0}, [%rd14];\n", 32);
    assert!(e.unwrap_err().contains("outside .shared"));
}

/// Places a rows x cols matrix of `t` elements in memory: `col` layout
/// (column-major) or row-major, `stride` elements between the starts of
/// consecutive rows (columns).
fn store_matrix(buf: &mut Vec<u8>, at: usize, m: &[Vec<u64>], t: T, col: bool, stride: usize) {
    let size = t.bits() as usize / 8;
    for (r, row) in m.iter().enumerate() {
        for (c, &v) in row.iter().enumerate() {
            let off = at + if col { c * stride + r } else { r * stride + c } * size;
            if buf.len() < off + size {
                buf.resize(off + size, 0);
            }
            buf[off..off + size].copy_from_slice(&v.to_le_bytes()[..size]);
        }
    }
}

/// Registers of a wmma fragment: eight f16x2 for f16 A and B, else one
/// per element (four s8, two bf16 or f16 in a register).
fn wmma_regs(rows: usize, cols: usize, t: T, a_or_b: bool) -> usize {
    if t == T::F16 && a_or_b {
        8
    } else {
        rows * cols / 32 / t.per_reg()
    }
}

/// wmma.load a, b, c; wmma.mma; wmma.store d, with the given layouts and
/// strides larger than the matrices: D in memory against the reference.
#[allow(clippy::too_many_arguments)]
fn check_wmma(s: Shape, d: T, a: T, b: T, c: T, layouts: [bool; 4], seed: u64) {
    let mut rng = SplitMix64::new(seed);
    let mut am = vec![vec![0u64; s.k]; s.m];
    let mut bm = vec![vec![0u64; s.n]; s.k];
    let mut cm = vec![vec![0u64; s.n]; s.m];
    am.iter_mut().flatten().for_each(|x| *x = a.random(&mut rng));
    bm.iter_mut().flatten().for_each(|x| *x = b.random(&mut rng));
    cm.iter_mut().flatten().for_each(|x| *x = c.random(&mut rng));
    let [la, lb, lc, ld] = layouts;
    // Leading dimension plus a gap of 8 elements.
    let lead = |rows: usize, cols: usize, col: bool| if col { rows } else { cols } + 8;
    let (sa, sb, sc, sd) = (lead(s.m, s.k, la), lead(s.k, s.n, lb), lead(s.m, s.n, lc), lead(s.m, s.n, ld));
    let mut input = Vec::new();
    store_matrix(&mut input, 0, &am, a, la, sa);
    let off_b = input.len().div_ceil(256) * 256;
    store_matrix(&mut input, off_b, &bm, b, lb, sb);
    let off_c = input.len().div_ceil(256) * 256;
    store_matrix(&mut input, off_c, &cm, c, lc, sc);
    let wide = |t: T| t.reg_bits() == 64;
    let regs = |from: usize, n: usize, t: T| {
        (from..from + n)
            .map(|i| if wide(t) { format!("%fx{i}") } else { format!("%x{i}") })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let (na, nb, nc, nd) = (
        wmma_regs(s.m, s.k, a, true),
        wmma_regs(s.k, s.n, b, true),
        wmma_regs(s.m, s.n, c, false),
        wmma_regs(s.m, s.n, d, false),
    );
    let lay = |col: bool| if col { "col" } else { "row" };
    let shape = format!("m{}n{}k{}", s.m, s.n, s.k);
    let types = if a == T::F16 {
        format!("{}.{}", d.name(), c.name())
    } else {
        format!("{}.{}.{}.{}", d.name(), a.name(), b.name(), c.name())
    };
    let rn = if a == T::F64 { ".rn" } else { "" };
    let (ra, rb, rc, rd) = (regs(0, na, a), regs(na, nb, b), regs(na + nb, nc, c), regs(na + nb + nc, nd, d));
    let body = format!(
        "\tadd.s64 %rd1, %rd15, {off_b};\n\tadd.s64 %rd2, %rd15, {off_c};\n\
         \twmma.load.a.sync.aligned.{}.{shape}.global.{} {{{ra}}}, [%rd15], {sa};\n\
         \twmma.load.b.sync.aligned.{}.{shape}.global.{} {{{rb}}}, [%rd1], {sb};\n\
         \twmma.load.c.sync.aligned.{}.{shape}.global.{} {{{rc}}}, [%rd2], {sc};\n\
         \twmma.mma.sync.aligned.{}.{}.{shape}{rn}.{types} {{{rd}}}, {{{ra}}}, {{{rb}}}, {{{rc}}};\n\
         \twmma.store.d.sync.aligned.{}.{shape}.global.{} [%rd14], {{{rd}}}, {sd};\n",
        lay(la),
        a.name(),
        lay(lb),
        b.name(),
        lay(lc),
        c.name(),
        lay(la),
        lay(lb),
        lay(ld),
        d.name(),
    );
    let text = module_text(&body, "\t.reg .b32 %x<64>;\n\t.reg .b64 %fx<16>;\n", "");
    let out = run_text(&text, &input, 32).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let data = &out.buffers[0].data;
    let size = d.bits() as usize / 8;
    for r in 0..s.m {
        for col in 0..s.n {
            let want = if d.is_int() {
                let mut sum = c.value(cm[r][col]) as i64;
                for k in 0..s.k {
                    sum += a.value(am[r][k]) as i64 * b.value(bm[k][col]) as i64;
                }
                sum as u32 as u64
            } else {
                let mut sum = c.value(cm[r][col]);
                for k in 0..s.k {
                    sum += a.value(am[r][k]) * b.value(bm[k][col]);
                }
                match d {
                    T::F32 => (sum as f32).to_bits() as u64,
                    T::F64 => sum.to_bits(),
                    _ => f16_bits(sum),
                }
            };
            let off = if ld { col * sd + r } else { r * sd + col } * size;
            let mut raw = [0u8; 8];
            raw[..size].copy_from_slice(&data[off..off + size]);
            assert_eq!(u64::from_le_bytes(raw), want, "wmma {shape} {types} {layouts:?} seed {seed}: D[{r}][{col}]");
        }
    }
    // Memory between the rows (the stride's gap) is untouched.
    let gap = if ld { (s.m, sd) } else { (s.n, sd) };
    assert!(data[gap.0 * size..gap.1 * size].iter().all(|&x| x == 0), "wmma {shape}: store wrote past a row");
}

#[test]
fn wmma_load_mma_store() {
    let (r, c) = (false, true);
    for seed in 1..3 {
        check_wmma(sh(16, 16, 16), T::F32, T::F16, T::F16, T::F32, [r, c, r, r], seed);
        check_wmma(sh(16, 16, 16), T::F32, T::F16, T::F16, T::F32, [c, r, c, c], seed);
        check_wmma(sh(32, 8, 16), T::F16, T::F16, T::F16, T::F16, [r, c, r, c], seed);
        check_wmma(sh(8, 32, 16), T::F32, T::F16, T::F16, T::F16, [r, r, r, r], seed);
        check_wmma(sh(16, 16, 16), T::F32, T::Bf16, T::Bf16, T::F32, [r, r, c, r], seed);
        check_wmma(sh(32, 8, 16), T::F32, T::Bf16, T::Bf16, T::F32, [c, c, r, r], seed);
        check_wmma(sh(16, 16, 8), T::F32, T::Tf32, T::Tf32, T::F32, [r, r, r, c], seed);
        check_wmma(sh(16, 16, 16), T::S32, T::S8, T::S8, T::S32, [r, c, r, r], seed);
        check_wmma(sh(8, 32, 16), T::S32, T::U8, T::U8, T::S32, [c, r, r, c], seed);
        check_wmma(sh(8, 8, 4), T::F64, T::F64, T::F64, T::F64, [r, c, r, r], seed);
    }
}

#[test]
fn cvt_to_tf32() {
    use crate::harness::eval;
    let cases: &[(&str, u32, u32)] = &[
        // 1 + 2^-11 is halfway between tf32 neighbours 1 and 1 + 2^-10.
        ("cvt.rna.tf32.f32", 0x3f80_1000, 0x3f80_2000),
        ("cvt.rn.tf32.f32", 0x3f80_1000, 0x3f80_0000),
        ("cvt.rz.tf32.f32", 0x3f80_1fff, 0x3f80_0000),
        ("cvt.rn.tf32.f32", 0x3f80_3000, 0x3f80_4000),
        ("cvt.rna.tf32.f32", 0x3f80_0fff, 0x3f80_0000),
        ("cvt.rna.tf32.f32", 0xbf80_1000, 0xbf80_2000),
        // Rounding up past the largest finite value: inf, or the largest tf32 with .satfinite.
        ("cvt.rna.tf32.f32", 0x7f7f_ffff, 0x7f80_0000),
        ("cvt.rna.satfinite.tf32.f32", 0x7f7f_ffff, 0x7f7f_e000),
        ("cvt.rna.satfinite.tf32.f32", 0xff80_0000, 0xff7f_e000),
        ("cvt.rna.tf32.f32", 0x7fc0_0001, 0x7fff_e000),
        ("cvt.rn.relu.tf32.f32", 0xbfc0_0000, 0),
        // Subnormals round on the same 2^-13-of-the-fraction grid.
        ("cvt.rna.tf32.f32", 0x0000_1000, 0x0000_2000),
    ];
    for &(op, x, want) in cases {
        let got = eval(&format!("{op} %r1, %r2;"), &[("%r2", x as u64)], &["%r1"]).unwrap();
        assert_eq!(got[0] as u32, want, "{op} {x:#x}");
    }
}

/// Malformed tensor-core instructions are errors, never panics.
#[test]
fn malformed_tensor_instructions_are_errors() {
    let bodies = [
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%x0, %x1, %x2, %x3}, {%x4, %x5, %x6, %x7}, {%x8, %x9}, 0;",
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%x0, %x1, %x2, %x3}, {%x4, %x5, %x6, %x7}, [%rd14], {%x8, %x9, %x10, %x11};",
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16 {%x0, %x1, %x2, %x3}, {%x4, %x5, %x6, %x7}, {%x8, %x9}, {%x8, %x9, %x10, %x11};",
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32;",
        "mma.sync.aligned.m99n8k16.row.col.f32.f16.f16.f32 {%x0}, {%x4}, {%x8}, {%x9};",
        "mma.sync.aligned.mnk.row.col.f32.f16.f16.f32 {%x0}, {%x4}, {%x8}, {%x9};",
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {1, %x1, %x2, %x3}, {%x4, %x5, %x6, %x7}, {%x8, %x9}, {%x8, %x9, %x10, %x11};",
        "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%x0, %x1}, [%rd14];",
        "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%x0, %x1, %x2, %x3}, %x5;",
        "ldmatrix.sync.aligned.m8n8.shared.b16 {%x0}, [%rd14];",
        "stmatrix.sync.aligned.m8n8.x1.shared.b16 {%x0}, [%rd14];",
        "movmatrix.sync.aligned.m8n8.trans.b16 %x0;",
        "wmma.load.a.sync.aligned.row.m16n16k16.f16 {%x0, %x1}, [%rd14];",
        "wmma.load.a.sync.aligned.row.m16n16k16.f16 {%x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7}, [%rd14], 16, 3;",
        "wmma.load.e.sync.aligned.row.m16n16k16.f16 {%x0}, [%rd14];",
        "wmma.store.d.sync.aligned.row.m16n16k16.f32 {%x0}, [%rd14];",
        "wmma.mma.sync.aligned.row.m16n16k16.f32.f32 {%x0}, {%x1}, {%x2}, {%x3};",
        "wmma.load.c.sync.aligned.row.m16n16k16.local.f32 {%x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7}, [%rd14];",
        "cvt.rna.tf32.f32 %x0;",
    ];
    let mut parsed = 0;
    for b in bodies {
        let text = module_text(&format!("\t{b}\n"), XDECL, SMEM);
        let Ok(module) = ptx_parse::parse(&text) else { continue };
        parsed += 1;
        let result = ptx_interp::run_kernel(
            &module,
            "t",
            &ptx_interp::KernelArgs {
                params: vec![0x10_0000_0000u64.to_le_bytes().to_vec(), 0x11_0000_0000u64.to_le_bytes().to_vec()],
                buffers: vec![ptx_interp::Buffer { name: "out".into(), base: 0x10_0000_0000, data: vec![0; 4096] }],
            },
            &ptx_interp::LaunchConfig { grid: [1, 1, 1], block: [32, 1, 1], ..Default::default() },
        );
        assert!(result.is_err(), "{b}: {result:?}");
    }
    assert!(parsed >= 15, "only {parsed} of {} parse", bodies.len());
}
