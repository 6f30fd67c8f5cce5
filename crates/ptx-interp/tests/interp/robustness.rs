//! No input makes the interpreter panic: random instructions (every known
//! opcode, random modifiers and operands of every kind and register type)
//! either run or come back as an error value.

use crate::harness::module_text;
use ptx_interp::SplitMix64;

const TYPES: &[&str] = &[
    "u8", "s8", "b16", "u16", "s16", "b32", "u32", "s32", "f32", "b64", "u64", "s64", "f64", "f16", "f16x2", "bf16",
    "pred", "b128", "u4", "e4m3x2",
];
const MODS: &[&str] = &[
    "rn",
    "rz",
    "rm",
    "rp",
    "rni",
    "rzi",
    "sat",
    "ftz",
    "lo",
    "hi",
    "wide",
    "cc",
    "global",
    "shared",
    "local",
    "const",
    "param",
    "v2",
    "v4",
    "sync",
    "up",
    "down",
    "bfly",
    "idx",
    "and",
    "or",
    "xor",
    "eq",
    "lt",
    "ge",
    "ltu",
    "nan",
    "f4e",
    "rc16",
    "to",
    "pack",
    "relu",
    "satfinite",
    "approx",
    "clamp",
    "wrap",
    "l",
    "r",
    "add",
    "min",
    "max",
    "cas",
    "inc",
    "all",
    "ballot",
    "red",
    "popc",
    "uni",
    "shiftamt",
    "xorsign",
    "abs",
    "NaN",
    "async",
    "ca",
];
const OPERANDS: &[&str] = &[
    "%r1",
    "%r2",
    "%rd1",
    "%rd14",
    "%rs1",
    "%p1",
    "!%p2",
    "%f1",
    "%fd1",
    "%q1",
    "0",
    "1",
    "-1",
    "255",
    "0x7fffffff",
    "0f3F800000",
    "0d3FF0000000000000",
    "1.5",
    "[%rd14]",
    "[%rd14+4]",
    "[%rd15+-8]",
    "[%r1]",
    "[0]",
    "{%r1, %r2}",
    "{%r1, %r2, %r3, %r4}",
    "{%rs1, _}",
    "%p1|%p2",
    "_",
    "%tid.x",
    "%laneid",
    "%clock",
    "t_out",
    "WARP_SZ",
];

#[test]
fn random_instructions_never_panic() {
    let opcodes: Vec<&str> = ptx_ir::opcodes::OPCODES.iter().map(|entry| entry.name).filter(|n| *n != "bra").collect();
    let mut rng = SplitMix64::new(2024);
    let mut ran = 0;
    for _ in 0..2500 {
        let op = opcodes[rng.below(opcodes.len() as u64) as usize];
        let mut text = op.to_string();
        for _ in 0..rng.below(4) {
            text.push('.');
            text.push_str(MODS[rng.below(MODS.len() as u64) as usize]);
        }
        for _ in 0..1 + rng.below(2) {
            text.push('.');
            text.push_str(TYPES[rng.below(TYPES.len() as u64) as usize]);
        }
        let n = rng.below(6);
        for i in 0..n {
            text.push_str(if i == 0 { " " } else { ", " });
            text.push_str(OPERANDS[rng.below(OPERANDS.len() as u64) as usize]);
        }
        text.push(';');
        let body = format!("\tmov.b32 %r1, 3;\n\tmov.b32 %r2, 0x80000001;\n\t{text}");
        let module = module_text(&body, "", "");
        let Ok(parsed) = ptx_parse::parse(&module) else { continue };
        let args = ptx_interp::KernelArgs {
            params: vec![0x10_0000_0000u64.to_le_bytes().to_vec(), 0x11_0000_0000u64.to_le_bytes().to_vec()],
            buffers: vec![
                ptx_interp::Buffer { name: "out".into(), base: 0x10_0000_0000, data: vec![0; 64] },
                ptx_interp::Buffer { name: "in".into(), base: 0x11_0000_0000, data: vec![0xa5; 64] },
            ],
        };
        let cfg =
            ptx_interp::LaunchConfig { grid: [1, 1, 1], block: [2, 1, 1], step_limit: 1000, ..Default::default() };
        let result = std::panic::catch_unwind(|| ptx_interp::run_kernel(&parsed, "t", &args, &cfg));
        assert!(result.is_ok(), "panicked on: {text}");
        ran += 1;
    }
    assert!(ran > 1000, "only {ran} random instructions parsed");
}
