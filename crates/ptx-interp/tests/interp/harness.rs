//! Helpers: wrap instructions in a one-thread kernel, preload registers,
//! run, and read back the registers that were stored.

use ptx_interp::{run_kernel, Buffer, InterpError, KernelArgs, LaunchConfig, RunOutput};

/// Register families declared by the wrapper kernel: name prefix, type.
/// `%p` pred, `%rs` b16, `%r` b32, `%rd` b64, `%f` f32, `%fd` f64, `%q` b128.
pub const DECLS: &str = "\t.reg .pred %p<8>;\n\t.reg .b16 %rs<8>;\n\t.reg .b32 %r<16>;\n\t.reg .b64 %rd<16>;\n\t.reg .f32 %f<8>;\n\t.reg .f64 %fd<8>;\n\t.reg .b128 %q<4>;\n\t.reg .b8 %rc<4>;\n";

/// The bit width of a register of the wrapper kernel, from its name.
pub fn reg_bits(name: &str) -> u32 {
    let prefix: String = name.trim_start_matches('%').chars().take_while(|c| c.is_ascii_alphabetic()).collect();
    match prefix.as_str() {
        "p" => 1,
        "rc" => 8,
        "rs" => 16,
        "r" | "f" => 32,
        "rd" | "fd" => 64,
        "q" => 128,
        other => panic!("unknown register family {other}"),
    }
}

/// A complete module around a kernel body; the kernel is `t(out, in)` with
/// `%rd14` = out buffer and `%rd15` = in buffer (global addresses).
pub fn module_text(body: &str, extra_decls: &str, module_level: &str) -> String {
    format!(
        ".version 8.5\n.target sm_90\n.address_size 64\n{module_level}\n.visible .entry t(\n\t.param .u64 t_out,\n\t.param .u64 t_in\n)\n{{\n{DECLS}{extra_decls}\tld.param.u64 %rd14, [t_out];\n\tld.param.u64 %rd15, [t_in];\n{body}\n\tret;\n}}\n"
    )
}

/// Runs `text`'s kernel `t` on `threads` threads of one CTA with a 4 KiB
/// output buffer and the given input bytes.
pub fn run_text(text: &str, input: &[u8], threads: u32) -> Result<RunOutput, InterpError> {
    run_grid(text, input, 1, threads, 4096)
}

/// Runs kernel `t` of `text` on `ctas` CTAs of `threads` threads, with an
/// output buffer of `out_size` bytes (`%rd14`) and `input` (`%rd15`).
pub fn run_grid(text: &str, input: &[u8], ctas: u32, threads: u32, out_size: usize) -> Result<RunOutput, InterpError> {
    let module = ptx_parse::parse(text).unwrap_or_else(|e| panic!("test kernel does not parse: {e:?}\n{text}"));
    let mut in_data = input.to_vec();
    in_data.resize(in_data.len().max(4096), 0);
    let out = Buffer { name: "out".into(), base: 0x10_0000_0000, data: vec![0; out_size] };
    let inp = Buffer { name: "in".into(), base: 0x11_0000_0000, data: in_data };
    let args = KernelArgs {
        params: vec![out.base.to_le_bytes().to_vec(), inp.base.to_le_bytes().to_vec()],
        buffers: vec![out, inp],
    };
    let cfg = LaunchConfig { grid: [ctas, 1, 1], block: [threads, 1, 1], ..LaunchConfig::default() };
    run_kernel(&module, "t", &args, &cfg)
}

/// The little-endian 32-bit words of a buffer.
pub fn words(data: &[u8]) -> Vec<u32> {
    data.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn mov_for(reg: &str, value: u64) -> String {
    match reg_bits(reg) {
        1 => format!("\tmov.pred {reg}, {};\n", value & 1),
        8 => format!("\tcvt.u8.u32 {reg}, {value:#x};\n"),
        16 => format!("\tmov.b16 {reg}, {:#x};\n", value & 0xffff),
        32 => format!("\tmov.b32 {reg}, {:#x};\n", value & 0xffff_ffff),
        64 => format!("\tmov.b64 {reg}, {value:#x};\n"),
        _ => format!("\tmov.b64 %rd13, {value:#x};\n\tmov.b128 {reg}, {{%rd13, %rd13}};\n"),
    }
}

fn store_for(reg: &str, offset: usize) -> String {
    match reg_bits(reg) {
        1 => format!("\tselp.u32 %r15, 1, 0, {reg};\n\tst.global.u32 [%rd14+{offset}], %r15;\n"),
        8 => format!("\tst.global.b8 [%rd14+{offset}], {reg};\n"),
        16 => format!("\tst.global.b16 [%rd14+{offset}], {reg};\n"),
        32 => format!("\tst.global.b32 [%rd14+{offset}], {reg};\n"),
        64 => format!("\tst.global.b64 [%rd14+{offset}], {reg};\n"),
        _ => format!("\tst.global.b128 [%rd14+{offset}], {reg};\n"),
    }
}

/// Preloads `inputs`, runs `asm`, and returns the values of `outputs`
/// (each zero-extended to 64 bits; b128 registers give their low half).
pub fn eval(asm: &str, inputs: &[(&str, u64)], outputs: &[&str]) -> Result<Vec<u64>, InterpError> {
    let mut body = String::new();
    for (reg, v) in inputs {
        body.push_str(&mov_for(reg, *v));
    }
    body.push('\t');
    body.push_str(asm);
    body.push('\n');
    for (i, reg) in outputs.iter().enumerate() {
        body.push_str(&store_for(reg, i * 16));
    }
    let out = run_text(&module_text(&body, "", ""), &[], 1)?;
    let data = &out.buffers[0].data;
    Ok(outputs
        .iter()
        .enumerate()
        .map(|(i, reg)| {
            let n = match reg_bits(reg) {
                1 => 4,
                b => (b as usize / 8).min(8),
            };
            let mut bytes = [0u8; 8];
            bytes[..n].copy_from_slice(&data[i * 16..i * 16 + n]);
            u64::from_le_bytes(bytes)
        })
        .collect())
}

/// One row of a data-driven instruction table.
pub struct Case {
    /// The instruction(s) under test.
    pub asm: &'static str,
    /// Registers to preload.
    pub inputs: &'static [(&'static str, u64)],
    /// Register to read and its expected value.
    pub expect: &'static [(&'static str, u64)],
    /// Where the expected value comes from.
    pub why: &'static str,
}

/// Runs every case, reporting all mismatches at once.
pub fn check_table(cases: &[Case]) {
    let mut failures = Vec::new();
    for c in cases {
        let regs: Vec<&str> = c.expect.iter().map(|(r, _)| *r).collect();
        match eval(c.asm, c.inputs, &regs) {
            Ok(got) => {
                for ((reg, want), got) in c.expect.iter().zip(got) {
                    if *want != got {
                        failures.push(format!("{}: {reg} = {got:#x}, expected {want:#x} ({})", c.asm, c.why));
                    }
                }
            }
            Err(e) => failures.push(format!("{}: error {e} ({})", c.asm, c.why)),
        }
    }
    assert!(failures.is_empty(), "{} of {} cases failed:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

/// Asserts that the instruction is reported as unsupported or invalid.
pub fn expect_cannot_model(asm: &str, inputs: &[(&str, u64)]) {
    match eval(asm, inputs, &[]) {
        Err(e) if e.class() == ptx_interp::ErrorClass::CannotModel => {}
        other => panic!("{asm}: expected unsupported/invalid, got {other:?}"),
    }
}

fn load_for(reg: &str, offset: usize) -> String {
    match reg_bits(reg) {
        1 => format!("\tld.global.u32 %mx3, [%mx1+{offset}];\n\tsetp.ne.u32 {reg}, %mx3, 0;\n"),
        8 => format!("\tld.global.b8 {reg}, [%mx1+{offset}];\n"),
        16 => format!("\tld.global.b16 {reg}, [%mx1+{offset}];\n"),
        32 => format!("\tld.global.b32 {reg}, [%mx1+{offset}];\n"),
        _ => format!("\tld.global.b64 {reg}, [%mx1+{offset}];\n"),
    }
}

fn map_store(reg: &str, offset: usize) -> String {
    match reg_bits(reg) {
        1 => format!("\tselp.u32 %mx3, 1, 0, {reg};\n\tst.global.u32 [%mx2+{offset}], %mx3;\n"),
        8 => format!("\tst.global.b8 [%mx2+{offset}], {reg};\n"),
        16 => format!("\tst.global.b16 [%mx2+{offset}], {reg};\n"),
        32 => format!("\tst.global.b32 [%mx2+{offset}], {reg};\n"),
        _ => format!("\tst.global.b64 [%mx2+{offset}], {reg};\n"),
    }
}

/// Runs `asm` once per record in a loop of one thread: the input registers
/// are loaded from each record, the outputs stored and returned (each
/// zero-extended to 64 bits). Output slots start zeroed, so an output the
/// instruction does not write reads 0.
pub fn map(asm: &str, ins: &[&str], outs: &[&str], records: &[Vec<u64>]) -> Result<Vec<Vec<u64>>, InterpError> {
    let (si, so) = (8 * ins.len().max(1), 8 * outs.len().max(1));
    let mut body = String::from("\tmov.u64 %mx0, 0;\nMAP_LOOP:\n");
    body.push_str(&format!("\tmad.lo.u64 %mx1, %mx0, {si}, %rd15;\n\tmad.lo.u64 %mx2, %mx0, {so}, %rd14;\n"));
    for (k, r) in ins.iter().enumerate() {
        body.push_str(&load_for(r, 8 * k));
    }
    body.push('\t');
    body.push_str(asm);
    body.push('\n');
    for (k, r) in outs.iter().enumerate() {
        body.push_str(&map_store(r, 8 * k));
    }
    body.push_str(&format!(
        "\tadd.u64 %mx0, %mx0, 1;\n\tsetp.lt.u64 %mxp, %mx0, {};\n\t@%mxp bra MAP_LOOP;\n",
        records.len()
    ));
    let text = module_text(&body, "\t.reg .b64 %mx<3>;\n\t.reg .b32 %mx3;\n\t.reg .pred %mxp;\n", "");
    let mut input = Vec::with_capacity(records.len() * si);
    for rec in records {
        assert_eq!(rec.len(), ins.len(), "record width");
        for v in rec {
            input.extend(v.to_le_bytes());
        }
    }
    let out = run_grid(&text, &input, 1, 1, (records.len() * so).max(16))?;
    let data = &out.buffers[0].data;
    Ok((0..records.len())
        .map(|i| {
            (0..outs.len())
                .map(|k| {
                    let at = i * so + 8 * k;
                    u64::from_le_bytes(data[at..at + 8].try_into().expect("8 bytes"))
                })
                .collect()
        })
        .collect())
}
