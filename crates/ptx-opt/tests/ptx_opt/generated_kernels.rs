//! Generated kernels (the idea of Binaryen's `fuzz_opt`): a structure-aware
//! generator writes valid straight-line kernels from a seed, and every
//! registered pass must keep them valid and keep what they compute.
//!
//! Why: the corpus exercises what compilers happen to emit; passes also
//! meet combinations no compiler emitted yet (relaxed loads into every
//! register width, saturating narrowing cvts, prmt with constant selectors
//! in registers, guarded rewrites, packed halves). The generator produces
//! them on purpose, deterministically (splitmix64 with fixed seeds), so a
//! failure is reproduced by its kernel number.
//!
//! Each kernel loads its inputs from one buffer (`ld.global` of every
//! integer width, also u8/s8/u16/s16 into b16/b32/b64 registers), computes
//! with mov, cvt (narrowing, widening, `.sat`), prmt (immediate selectors,
//! selectors moved into registers, modes), add/sub/mul/and/or/xor/shl/shr,
//! setp/selp, guards `@%p`/`@!%p`, and `cvt.sat.s16.s32` pairs packed with
//! `mov.b32 d, {lo, hi}`, then stores every live value to a second buffer
//! (also with relaxed narrowing stores). Checked:
//!
//! - ptxas accepts a sample of the kernels, before and after every pass;
//! - for every kernel and every registered pass alone (and all of them in
//!   a row), with `verify_each`, the pass succeeds, its output parses, and
//!   the reference interpreter (`ptx-interp`) finds the kernel before and
//!   after equivalent: the same bytes in the output buffer on every trial.

use crate::corpus;
use ptx_interp::{diff_modules, DiffOptions, LaunchConfig, Verdict};
use ptx_opt::Options;
use std::fmt::Write;

/// How many kernels the interpreter check covers.
const KERNELS: u64 = 200;
/// Every how many kernels one is also compiled by ptxas (before and after each pass).
const PTXAS_EVERY: u64 = 10;

/// splitmix64: small, fast, and the same sequence everywhere.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0).
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// True with probability `percent`/100.
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

/// A register class: the width of the `.b` registers it declares.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Class {
    B16,
    B32,
    B64,
}

impl Class {
    fn bits(self) -> u32 {
        match self {
            Class::B16 => 16,
            Class::B32 => 32,
            Class::B64 => 64,
        }
    }

    fn prefix(self) -> &'static str {
        match self {
            Class::B16 => "%rs",
            Class::B32 => "%r",
            Class::B64 => "%rd",
        }
    }

    fn of_bits(bits: u32) -> Class {
        match bits {
            16 => Class::B16,
            32 => Class::B32,
            _ => Class::B64,
        }
    }
}

const CLASSES: [Class; 3] = [Class::B16, Class::B32, Class::B64];

/// Registers per class: `%rs0..`, `%r0..`, `%rd2..` (`%rd0`/`%rd1` are the
/// buffer pointers), predicates `%p0..`.
const NUM_REGS: [u32; 3] = [10, 14, 10];
const NUM_PREDS: u32 = 4;
/// The first value register of each class.
const FIRST_REG: [u32; 3] = [0, 0, 2];

/// Integer types by width, unsigned and signed.
fn int_type(bits: u32, signed: bool) -> String {
    format!("{}{bits}", if signed { 's' } else { 'u' })
}

struct Gen {
    rng: SplitMix64,
    body: String,
    /// Next free byte of the output buffer.
    out_offset: u32,
}

impl Gen {
    fn reg(&mut self, class: Class) -> String {
        let i = class_index(class);
        let n = FIRST_REG[i] + self.rng.below(u64::from(NUM_REGS[i])) as u32;
        format!("{}{n}", class.prefix())
    }

    fn pred(&mut self) -> String {
        format!("%p{}", self.rng.below(u64::from(NUM_PREDS)))
    }

    /// A guard prefix, sometimes.
    fn guard(&mut self) -> String {
        if self.rng.chance(20) {
            let not = if self.rng.chance(50) { "!" } else { "" };
            format!("@{not}{} ", self.pred())
        } else {
            String::new()
        }
    }

    /// An immediate that fits `bits` (negative for signed types, sometimes).
    fn imm(&mut self, bits: u32, signed: bool) -> String {
        let v = match self.rng.below(4) {
            0 => self.rng.below(16),
            1 => self.rng.next(),
            2 => [0, 1, 0xff, 0x7f, 0x80, 0x7fff, 0x8000, 0xffff][self.rng.below(8) as usize],
            _ => u64::MAX >> (64 - bits),
        };
        let v = if bits == 64 { v } else { v & ((1u64 << bits) - 1) };
        if signed && self.rng.chance(30) {
            let small = self.rng.below(1 << (bits.min(31) - 1));
            format!("-{}", small.max(1))
        } else if self.rng.chance(50) {
            format!("{v}")
        } else {
            format!("0x{v:X}")
        }
    }

    fn line(&mut self, text: &str) {
        let _ = writeln!(self.body, "\t{text};");
    }

    /// `ld.global` of a random integer type into a register of `class`
    /// (relaxed: 8- and 16-bit types into wider registers).
    fn load(&mut self, dst: &str, class: Class) {
        let widths: &[u32] = match class {
            Class::B16 => &[8, 16],
            Class::B32 => &[8, 16, 32],
            Class::B64 => &[8, 16, 32, 64],
        };
        let bits = *self.rng.pick(widths);
        let ty = match self.rng.below(3) {
            0 if bits > 8 => format!("b{bits}"),
            1 => int_type(bits, true),
            _ => int_type(bits, false),
        };
        let align = (bits / 8).max(1);
        let offset = self.rng.below(u64::from(256 / align)) as u32 * align;
        self.line(&format!("ld.global.{ty} {dst}, [%rd0+{offset}]"));
    }

    /// `st.global` of `src` (a register of `class`), sometimes narrowed
    /// (relaxed: the register is wider than the type).
    fn store(&mut self, src: &str, class: Class) {
        let bits = if self.rng.chance(30) {
            *self.rng.pick(&[8, 16, 32, 64].iter().copied().filter(|&b| b <= class.bits()).collect::<Vec<_>>())
        } else {
            class.bits()
        };
        let ty = if bits == 8 || self.rng.chance(50) { int_type(bits, false) } else { format!("b{bits}") };
        let offset = self.out_offset.next_multiple_of(8);
        self.out_offset = offset + 8;
        self.line(&format!("st.global.{ty} [%rd1+{offset}], {src}"));
    }

    /// One random instruction or idiom; `nested` idioms may interleave
    /// further steps between their parts (so that a pass matching the
    /// idiom meets redefined or guarded operands in between).
    fn step(&mut self, nested: bool) {
        match self.rng.below(12) {
            0 | 1 => self.binary(),
            2 => self.mul_wide(),
            3 => self.shift(),
            4 => self.mov(),
            5 | 6 => self.cvt(),
            7 | 8 => self.prmt(nested),
            9 => self.setp(),
            10 => self.selp(),
            _ => self.pack(nested),
        }
        if self.rng.chance(5) {
            let class = *self.rng.pick(&CLASSES);
            let src = self.reg(class);
            self.store(&src, class);
        }
    }

    /// Sometimes a few unrelated steps, when `nested`.
    fn interleave(&mut self, nested: bool) {
        if nested && self.rng.chance(25) {
            for _ in 0..1 + self.rng.below(3) {
                self.step(false);
            }
        }
    }

    fn binary(&mut self) {
        let class = *self.rng.pick(&CLASSES);
        let bits = class.bits();
        let (d, a) = (self.reg(class), self.reg(class));
        let b = if self.rng.chance(30) {
            let signed = self.rng.chance(50);
            self.imm(bits, signed)
        } else {
            self.reg(class)
        };
        let g = self.guard();
        let signed = self.rng.chance(50);
        let op = match self.rng.below(6) {
            0 => format!("add.{}", int_type(bits, signed)),
            1 => format!("sub.{}", int_type(bits, signed)),
            2 => format!("mul.lo.{}", int_type(bits, signed)),
            3 => format!("and.b{bits}"),
            4 => format!("or.b{bits}"),
            _ => format!("xor.b{bits}"),
        };
        let b = if b.starts_with('-') && !op.contains(".s") { b.trim_start_matches('-').to_string() } else { b };
        self.line(&format!("{g}{op} {d}, {a}, {b}"));
    }

    fn mul_wide(&mut self) {
        let (from, to) = if self.rng.chance(50) { (Class::B16, Class::B32) } else { (Class::B32, Class::B64) };
        let signed = self.rng.chance(50);
        let (d, a, b) = (self.reg(to), self.reg(from), self.reg(from));
        self.line(&format!("mul.wide.{} {d}, {a}, {b}", int_type(from.bits(), signed)));
    }

    fn shift(&mut self) {
        let class = *self.rng.pick(&CLASSES);
        let bits = class.bits();
        let (d, a) = (self.reg(class), self.reg(class));
        let amount = if self.rng.chance(50) {
            format!("{}", self.rng.below(u64::from(bits) + 4))
        } else {
            // Shift amounts are always .u32 registers; mask to keep them meaningful.
            let r = self.reg(Class::B32);
            let t = "%r0".to_string();
            self.line(&format!("and.b32 {t}, {r}, {}", bits + 3));
            t
        };
        let g = self.guard();
        let op = match self.rng.below(4) {
            0 => format!("shl.b{bits}"),
            1 => format!("shr.u{bits}"),
            2 => format!("shr.s{bits}"),
            _ => format!("shr.b{bits}"),
        };
        self.line(&format!("{g}{op} {d}, {a}, {amount}"));
    }

    fn mov(&mut self) {
        let class = *self.rng.pick(&CLASSES);
        let d = self.reg(class);
        let g = self.guard();
        if self.rng.chance(50) {
            let a = self.reg(class);
            self.line(&format!("{g}mov.b{} {d}, {a}", class.bits()));
        } else {
            let v = self.imm(class.bits(), false);
            let ty = if self.rng.chance(50) { format!("u{}", class.bits()) } else { format!("b{}", class.bits()) };
            self.line(&format!("{g}mov.{ty} {d}, {v}"));
        }
    }

    /// Integer cvt: narrowing, widening, sign changes, `.sat`; 8- and
    /// 16-bit operands sometimes in wider registers (relaxed).
    fn cvt(&mut self) {
        let widths = [8, 16, 32, 64];
        let (dbits, sbits) = (*self.rng.pick(&widths), *self.rng.pick(&widths));
        let (dsigned, ssigned) = (self.rng.chance(50), self.rng.chance(50));
        if dbits == sbits && dsigned == ssigned {
            return self.mov();
        }
        let reg_class = |rng: &mut SplitMix64, bits: u32| match bits {
            8 | 16 if rng.chance(30) => Class::B32,
            8 | 16 => Class::B16,
            b => Class::of_bits(b),
        };
        let dclass = reg_class(&mut self.rng, dbits);
        let sclass = reg_class(&mut self.rng, sbits);
        // ptxas allows .sat only where the destination type cannot hold
        // every source value: not when it widens to the same or a signed type.
        let can_saturate = !(dbits > sbits && (dsigned || !ssigned));
        let sat = if can_saturate && self.rng.chance(40) { ".sat" } else { "" };
        let (d, a) = (self.reg(dclass), self.reg(sclass));
        let g = self.guard();
        self.line(&format!("{g}cvt{sat}.{}.{} {d}, {a}", int_type(dbits, dsigned), int_type(sbits, ssigned)));
    }

    fn prmt(&mut self, nested: bool) {
        let (d, a, b) = (self.reg(Class::B32), self.reg(Class::B32), self.reg(Class::B32));
        let mode =
            if self.rng.chance(20) { *self.rng.pick(&[".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16"]) } else { "" };
        let selector = self.rng.below(0x1_0000);
        let g = self.guard();
        if self.rng.chance(50) {
            self.line(&format!("{g}prmt.b32{mode} {d}, {a}, {b}, 0x{selector:04x}"));
        } else {
            // The selector as a constant in a register (sometimes set under
            // a guard, sometimes with other steps before the prmt).
            let s = self.reg(Class::B32);
            let sg = if self.rng.chance(15) { self.guard() } else { String::new() };
            self.line(&format!("{sg}mov.b32 {s}, 0x{selector:04x}"));
            self.interleave(nested);
            let (a, b) = (if a == s { d.clone() } else { a }, if b == s { d.clone() } else { b });
            self.line(&format!("{g}prmt.b32{mode} {d}, {a}, {b}, {s}"));
        }
    }

    fn setp(&mut self) {
        let class = *self.rng.pick(&CLASSES);
        let bits = class.bits();
        let p = self.pred();
        let a = self.reg(class);
        let signed = self.rng.chance(50);
        let b = if self.rng.chance(30) { self.imm(bits, signed) } else { self.reg(class) };
        let cmp = *self.rng.pick(&["eq", "ne", "lt", "le", "gt", "ge"]);
        self.line(&format!("setp.{cmp}.{} {p}, {a}, {b}", int_type(bits, signed)));
    }

    fn selp(&mut self) {
        let class = *self.rng.pick(&CLASSES);
        let (d, a, b) = (self.reg(class), self.reg(class), self.reg(class));
        let p = self.pred();
        self.line(&format!("selp.b{} {d}, {a}, {b}, {p}", class.bits()));
    }

    /// Two saturating narrowings packed into one 32-bit register, or the reverse.
    fn pack(&mut self, nested: bool) {
        if self.rng.chance(70) {
            let (lo, hi) = (self.reg(Class::B16), self.reg(Class::B16));
            let (x, y) = (self.reg(Class::B32), self.reg(Class::B32));
            let g = if self.rng.chance(10) { self.guard() } else { String::new() };
            self.line(&format!("{g}cvt.sat.s16.s32 {lo}, {x}"));
            self.interleave(nested);
            // Mostly two different halves; sometimes the same one twice.
            let hi = if hi == lo && self.rng.chance(70) {
                if lo == "%rs0" {
                    "%rs1".to_string()
                } else {
                    "%rs0".to_string()
                }
            } else {
                hi
            };
            self.line(&format!("cvt.sat.s16.s32 {hi}, {y}"));
            self.interleave(nested);
            let d = self.reg(Class::B32);
            self.line(&format!("mov.b32 {d}, {{{lo}, {hi}}}"));
        } else if self.rng.chance(50) {
            let (lo, hi) = (self.reg(Class::B16), self.reg(Class::B16));
            let hi = if hi == lo {
                if lo == "%rs0" {
                    "%rs1".to_string()
                } else {
                    "%rs0".to_string()
                }
            } else {
                hi
            };
            let s = self.reg(Class::B32);
            self.line(&format!("mov.b32 {{{lo}, {hi}}}, {s}"));
        } else {
            let (lo, hi) = (self.reg(Class::B32), self.reg(Class::B32));
            let d = self.reg(Class::B64);
            self.line(&format!("mov.b64 {d}, {{{lo}, {hi}}}"));
        }
    }
}

fn class_index(class: Class) -> usize {
    CLASSES.iter().position(|&c| c == class).expect("a class")
}

/// Kernel number `n`: its name and PTX text.
fn kernel(n: u64) -> (String, String) {
    let mut g = Gen { rng: SplitMix64(0x9E37_79B9_0000_0000 ^ n), body: String::new(), out_offset: 0 };
    // Every register gets a value first, so guarded writes never expose an undefined one.
    for (i, class) in CLASSES.into_iter().enumerate() {
        for k in FIRST_REG[i]..FIRST_REG[i] + NUM_REGS[i] {
            let dst = format!("{}{k}", class.prefix());
            if g.rng.chance(70) {
                g.load(&dst, class);
            } else {
                let v = g.imm(class.bits(), false);
                g.line(&format!("mov.b{} {dst}, {v}", class.bits()));
            }
        }
    }
    for p in 0..NUM_PREDS {
        let a = g.reg(Class::B32);
        let v = g.imm(32, false);
        g.line(&format!("setp.ne.u32 %p{p}, {a}, {v}"));
    }
    let steps = 20 + g.rng.below(60);
    for _ in 0..steps {
        g.step(true);
    }
    // Everything that is left goes to the output.
    for (i, class) in CLASSES.into_iter().enumerate() {
        for k in FIRST_REG[i]..FIRST_REG[i] + NUM_REGS[i] {
            if g.rng.chance(85) {
                g.store(&format!("{}{k}", class.prefix()), class);
            }
        }
    }
    for p in 0..NUM_PREDS {
        g.line(&format!("selp.u32 %r0, 1, 0, %p{p}"));
        g.store("%r0", Class::B32);
    }
    let name = format!("gen_{n}");
    let mut ptx = String::from(".version 8.0\n.target sm_80\n.address_size 64\n\n");
    let _ = writeln!(ptx, ".visible .entry {name}(\n\t.param .u64 {name}_in,\n\t.param .u64 {name}_out\n)\n{{");
    let _ = writeln!(ptx, "\t.reg .pred %p<{NUM_PREDS}>;");
    for (i, class) in CLASSES.into_iter().enumerate() {
        let _ = writeln!(ptx, "\t.reg .b{} {}<{}>;", class.bits(), class.prefix(), FIRST_REG[i] + NUM_REGS[i]);
    }
    let _ = writeln!(ptx, "\n\tld.param.u64 %rd0, [{name}_in];\n\tld.param.u64 %rd1, [{name}_out];");
    ptx.push_str("\tcvta.to.global.u64 %rd0, %rd0;\n\tcvta.to.global.u64 %rd1, %rd1;\n");
    ptx.push_str(&g.body);
    ptx.push_str("\tret;\n}\n");
    (name, ptx)
}

/// The pass runs checked: each registered pass alone, then all of them.
fn pass_runs() -> Vec<Vec<&'static str>> {
    let names: Vec<&'static str> = ptx_opt::passes().iter().map(|p| p.name).filter(|&n| crate::runs_bare(n)).collect();
    let mut runs: Vec<Vec<&'static str>> = names.iter().map(|&n| vec![n]).collect();
    runs.push(names);
    runs
}

fn diff_options() -> DiffOptions {
    // Straight-line code computes the same in every thread: one is enough.
    let launch = LaunchConfig { grid: [1, 1, 1], block: [1, 1, 1], ..LaunchConfig::default() };
    DiffOptions { kernel: None, trials: 4, seed: 0x6E4_C0DE, launch, buffer_size: 4096 }
}

#[test]
fn generator_is_deterministic_and_varied() {
    assert_eq!(kernel(7), kernel(7));
    let texts: Vec<String> = (0..KERNELS).map(|n| kernel(n).1).collect();
    let all = texts.join("");
    // Every construct the generator promises appears somewhere.
    for needle in [
        "ld.global.u8 %rs",
        "ld.global.s8 %r",
        "ld.global.u16 %rd",
        "ld.global.s16 %r",
        "cvt.sat.",
        "cvt.sat.s16.s32",
        "}, %r",
        "mov.b32 %r",
        "prmt.b32 ",
        "prmt.b32.f4e",
        "add.",
        "sub.",
        "mul.lo.",
        "mul.wide.",
        "and.b",
        "or.b",
        "xor.b",
        "shl.b",
        "shr.",
        "setp.",
        "selp.b",
        "@%p",
        "@!%p",
        "st.global.u8",
    ] {
        assert!(all.contains(needle), "no generated kernel contains {needle:?}");
    }
    let distinct: std::collections::BTreeSet<&String> = texts.iter().collect();
    assert_eq!(distinct.len(), texts.len(), "kernels are distinct");
}

#[test]
fn ptxas_accepts_generated_kernels_before_and_after_every_pass() {
    let toolchain = corpus::toolchain();
    let mut failures = Vec::new();
    for n in (0..KERNELS).step_by(PTXAS_EVERY as usize) {
        let (name, ptx) = kernel(n);
        if let Err(e) = toolchain.compile(&ptx, "sm_80", &[]) {
            failures.push(format!("{name}: ptxas rejects the generated kernel: {e}\n{ptx}"));
            continue;
        }
        for passes in pass_runs() {
            let options = Options { verify_each: true, ..Options::with_passes(passes.iter().copied()) };
            match ptx_opt::optimize(&ptx, &options) {
                Ok(out) => {
                    if let Err(e) = toolchain.compile(&out.ptx, "sm_80", &[]) {
                        failures.push(format!("{name}: ptxas rejects the output of {passes:?}: {e}\n{}", out.ptx));
                    }
                }
                Err(e) => failures.push(format!("{name}: {passes:?} failed: {e}")),
            }
        }
    }
    assert!(failures.is_empty(), "{} failure(s):\n{}", failures.len(), failures.join("\n\n"));
}

#[test]
fn every_pass_preserves_what_generated_kernels_compute() {
    let opts = diff_options();
    let mut failures = Vec::new();
    let mut checked = 0;
    let mut changed = std::collections::BTreeMap::<&str, u32>::new();
    for n in 0..KERNELS {
        let (name, ptx) = kernel(n);
        let before = ptx_opt::parse(&ptx).unwrap_or_else(|e| panic!("{name} does not parse: {e}\n{ptx}"));
        for passes in pass_runs() {
            let mut after = before.clone();
            let options = Options { verify_each: true, ..Options::with_passes(passes.iter().copied()) };
            match ptx_opt::run_passes(&mut after, &options) {
                Ok(run) => {
                    for p in run.passes.iter().filter(|p| p.changed) {
                        *changed.entry(p.name).or_insert(0) += 1;
                    }
                }
                Err(e) => {
                    failures.push(format!("{name}: {passes:?} failed: {e}"));
                    continue;
                }
            }
            // What is checked is the printed text, as ptx-opt writes it.
            let printed = ptx_opt::print(&after);
            let after = match ptx_opt::parse(&printed) {
                Ok(m) => m,
                Err(e) => {
                    failures.push(format!("{name}: output of {passes:?} does not parse: {e}"));
                    continue;
                }
            };
            let report = diff_modules(&before, &after, &opts);
            checked += 1;
            let k = &report.kernels[0];
            match &k.verdict {
                Verdict::Equivalent if k.conclusive == opts.trials => {}
                _ => failures.push(format!("{name}: {passes:?}: {report}\nbefore:\n{ptx}\nafter:\n{printed}")),
            }
        }
        if failures.len() > 5 {
            break;
        }
    }
    eprintln!("{checked} interpreter checks; kernels changed per pass: {changed:?}");
    assert!(failures.is_empty(), "{} failure(s) (of {checked} checks):\n{}", failures.len(), failures.join("\n\n"));
    // The kernels give the rewriting passes work, or this test proves little.
    for pass in ["legalize-relaxed", "fold-prmt"] {
        if ptx_opt::passes().iter().any(|p| p.name == pass) {
            assert!(changed.get(pass).copied().unwrap_or(0) >= 20, "{pass} rewrote too few kernels: {changed:?}");
        }
    }
}

#[test]
fn the_check_detects_a_wrong_rewrite() {
    // A "pass" that moves the first store elsewhere must be caught.
    let (name, ptx) = kernel(3);
    let first_store = ptx.find("[%rd1+0]").expect("kernel 3 stores at offset 0");
    let wrong = format!("{}[%rd1+4000]{}", &ptx[..first_store], &ptx[first_store + "[%rd1+0]".len()..]);
    let before = ptx_opt::parse(&ptx).expect("the kernel parses");
    let after = ptx_opt::parse(&wrong).expect("the broken kernel parses");
    let report = diff_modules(&before, &after, &diff_options());
    assert!(matches!(report.kernels[0].verdict, Verdict::Different(_)), "{name}: not caught:\n{report}");
}
