//! Mutation test: a few hundred broken variants of small public corpus files
//! (truncations, byte flips, deleted, duplicated and swapped lines, inserted
//! tokens, huge numbers, NUL bytes, invalid UTF-8) plus a handful of
//! pathological inputs built in memory (100 000 nested `{`, a megabyte-long
//! line, a megabyte-long name) and the inputs that once crashed ptx-opt
//! ([`REGRESSIONS`], found by the fuzz target) go through the real `ptx-opt`
//! binary with every registered pass and `--verify-each`, every other one
//! also with `--reformat` (everything printed afresh).
//!
//! Why: bad input must be an error, never a crash, a hang or lost output.
//! Each run must exit with 0 or 1 (never a signal, never 101 from a panic);
//! finish within [`HANG_LIMIT`], enforced by killing the child (a hang
//! detector, not a timing test); on 1 print a first line
//! `FILE:LINE:COL: error: ...`; on 0 print PTX that parses again. The
//! mutants come from a fixed seed, so every run tests the same inputs; the
//! fuzz target in `fuzz/` explores further without that constraint.

use crate::corpus_file;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Longer than any healthy run takes, even in a debug build on a loaded
/// machine; reaching it means ptx-opt hangs.
const HANG_LIMIT: Duration = Duration::from_secs(20);

/// Small corpus files from each producer (llc 14 and 19, Triton with debug
/// sections, NVRTC with inline-asm scopes).
const SOURCES: &[&str] = &[
    "llc-14__i8_arith__sm_80.ptx",
    "llc-19__pack_unpack__sm_90.ptx",
    "llc-19__calls__sm_90.ptx",
    "llc-14__byte_interleave__sm_80.ptx",
    "triton-3.9.0__vector_add_f16_b256__sm_80.ptx",
    "nvrtc-12.4__int4_pack_asm__sm_86.ptx",
];

/// Mutants per source file.
const PER_SOURCE: usize = 50;

/// Text inserted at random places: punctuation, limits and broken tokens.
const TOKENS: &[&str] = &[
    ";",
    "{",
    "}",
    ",",
    "[",
    "]",
    "@%p1 ",
    "99999999999999999999999",
    "-99999999999999999999999",
    "0x1FFFFFFFFFFFFFFFFF",
    "%r<4000000000>",
    ".reg .b32 %r<4000000000>;",
    ".reg .b16 %q<1048576>;",
    "\u{0}",
    "\u{0}\u{0}\u{0}\u{0}",
    "/*",
    "//",
    "\"",
    ".entry",
    ".func",
    ".reg .pred %p<3>;",
    "ret;",
    "bra $L__BB0_1;",
    "L: ",
    "{%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8, %r9}",
    "mov.b32 {%rs1, %rs2}, %r1;",
    "cvt.sat.s16.s32 %rs1, %r1;",
    "prmt.b32 %r1, %r2, %r3, 0x99999;",
    "ld.global.u8 %r1, [%rd1+-9223372036854775808];",
    "\u{feff}",
    "é",
];

/// Inputs that once crashed a pass, found by the fuzz target in `fuzz/`
/// (reduced by hand), kept here as regression tests.
const REGRESSIONS: &[(&str, &str)] = &[
    // combine-cvt-pack indexed operands 1 and 2 of or/and/shl/shr without
    // checking that the instruction has them (index out of bounds).
    (
        "combine-cvt-pack-short-or",
        ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\t.reg .b32 %r<4>;\n\tor.b32 %r1, %r2;\n\tret;\n}\n",
    ),
    (
        "combine-cvt-pack-short-shl",
        ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\t.reg .b32 %r<4>;\n\tshl.b32 %r3, %r2;\n\tmov.b32 %r1, %r3;\n\tret;\n}\n",
    ),
    // `%p<0>` declares no register, and the canonical printer took the
    // family's name from the register after it: out of bounds when it was
    // the last declaration, another family's name otherwise (found by cargo
    // fuzz as a printer that is not a fixpoint).
    (
        "zero-family-last",
        ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\t.reg .pred %p<0>;\n\tmov.b32 %r1, 0;\n\tret;\n}\n",
    ),
    (
        "zero-family-first",
        ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\t.reg .pred %q<0>;\n\t.reg .b32 %a<0>, %r<2>, %b<0>;\n\tmov.b32 %r1, 0;\n\tret;\n}\n",
    ),
];

/// splitmix64: a tiny deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// The byte ranges of the lines of `bytes`, newline included.
fn lines(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'\n' {
            out.push((start, i + 1));
            start = i + 1;
        }
    }
    if start < bytes.len() {
        out.push((start, bytes.len()));
    }
    out
}

/// One random mutation of `src` (1 to 3 edits stacked).
fn mutate(src: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut bytes = src.to_vec();
    for _ in 0..1 + rng.below(3) {
        if bytes.is_empty() {
            break;
        }
        let ls = lines(&bytes);
        match rng.below(8) {
            // Truncate anywhere, also inside a UTF-8 sequence or a token.
            0 => bytes.truncate(rng.below(bytes.len())),
            // Flip one bit of one byte (may make the input invalid UTF-8).
            1 => {
                let i = rng.below(bytes.len());
                bytes[i] ^= 1 << rng.below(8);
            }
            // Delete a line.
            2 => {
                let (s, e) = ls[rng.below(ls.len())];
                bytes.drain(s..e);
            }
            // Duplicate a line.
            3 => {
                let (s, e) = ls[rng.below(ls.len())];
                let line = bytes[s..e].to_vec();
                bytes.splice(s..s, line);
            }
            // Swap two lines.
            4 => {
                let (a, b) = (ls[rng.below(ls.len())], ls[rng.below(ls.len())]);
                let (first, second) = if a.0 <= b.0 { (a, b) } else { (b, a) };
                if first.1 <= second.0 {
                    let mut out = bytes[..first.0].to_vec();
                    out.extend_from_slice(&bytes[second.0..second.1]);
                    out.extend_from_slice(&bytes[first.1..second.0]);
                    out.extend_from_slice(&bytes[first.0..first.1]);
                    out.extend_from_slice(&bytes[second.1..]);
                    bytes = out;
                }
            }
            // Insert a token at a random byte.
            5 => {
                let at = rng.below(bytes.len() + 1);
                let token = TOKENS[rng.below(TOKENS.len())].as_bytes();
                bytes.splice(at..at, token.iter().copied());
            }
            // Replace a number with a huge one.
            6 => {
                let digits: Vec<usize> = (0..bytes.len()).filter(|&i| bytes[i].is_ascii_digit()).collect();
                if !digits.is_empty() {
                    let at = digits[rng.below(digits.len())];
                    bytes.splice(at..at + 1, b"99999999999999999999999".iter().copied());
                }
            }
            // Invalid UTF-8 bytes or a NUL somewhere.
            _ => {
                let at = rng.below(bytes.len() + 1);
                let junk: &[u8] = [&b"\xff"[..], b"\xc3", b"\xed\xa0\x80", b"\x00"][rng.below(4)];
                bytes.splice(at..at, junk.iter().copied());
            }
        }
    }
    bytes
}

/// Inputs that are dangerous by size or depth, built in memory.
fn pathological(valid: &[u8]) -> Vec<(&'static str, Vec<u8>)> {
    let text = String::from_utf8(valid.to_vec()).expect("corpus file is UTF-8");
    let body_at = text.find("\n{").expect("a function body") + 2;
    let insert = |what: &str| {
        let mut s = text.clone();
        s.insert_str(body_at, what);
        s.into_bytes()
    };
    let long_line: String = "\tadd.s32 %r1, %r1, 1;".repeat(50_000);
    vec![
        ("nested-braces", insert(&"{".repeat(100_000))),
        ("nested-braces-closed", insert(&format!("{}{}", "{".repeat(100_000), "}".repeat(100_000)))),
        ("nested-brackets", insert(&"[(".repeat(50_000))),
        ("long-line", insert(&format!("\n\t.reg .b32 %r<2>;\n{long_line}\n"))),
        ("long-name", insert(&format!("\n\t.reg .b32 %{};\n", "n".repeat(1 << 20)))),
        ("long-number", insert(&format!("\n\tmov.u32 %r1, {};\n", "7".repeat(1 << 20)))),
        ("huge-family", insert("\n\t.reg .b32 %r<4000000000>;\n")),
        ("huge-number", insert("\n\t.reg .b32 %big;\n\tmov.u32 %big, 99999999999999999999999;\n")),
        ("many-families", insert(&"\n\t.reg .b64 %x<1048576>, %y<1048576>, %z<1048576>;".repeat(3))),
        ("nul-bytes", insert("\u{0}\u{0}\u{0}")),
        ("invalid-utf8", {
            let mut b = valid.to_vec();
            b.splice(body_at..body_at, [0xff, 0xfe, 0xfd]);
            b
        }),
        ("only-nul", vec![0; 4096]),
        ("empty", Vec::new()),
    ]
}

/// Runs one input: its exit code (0 or 1), or what went wrong.
fn run_one(dir: &Path, name: &str, bytes: &[u8], passes: &str, reformat: bool) -> Result<i32, String> {
    let input = format!("{name}.ptx");
    std::fs::write(dir.join(&input), bytes).expect("writable scratch directory");
    let stdout_path = dir.join(format!("{name}.out"));
    let stderr_path = dir.join(format!("{name}.err"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_ptx-opt"))
        .args([&format!("--passes={passes}"), "--verify-each", &input])
        .args(reformat.then_some("--reformat"))
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&stdout_path).expect("stdout file"))
        .stderr(std::fs::File::create(&stderr_path).expect("stderr file"))
        .spawn()
        .expect("ptx-opt starts");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("waitable child") {
            break status;
        }
        if started.elapsed() > HANG_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("{input}: still running after {HANG_LIMIT:?} (hang), killed"));
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let stdout = std::fs::read(&stdout_path).expect("stdout readable");
    let stderr = String::from_utf8_lossy(&std::fs::read(&stderr_path).expect("stderr readable")).into_owned();
    let first = stderr.lines().next().unwrap_or("").to_string();
    match status.code() {
        None => Err(format!("{input}: killed by a signal ({status}); stderr:\n{stderr}")),
        Some(0) => {
            let text = String::from_utf8(stdout).map_err(|_| "non-UTF-8 output");
            match text.as_deref().map(ptx_opt::parse) {
                Ok(Ok(_)) => Ok(0),
                Ok(Err(e)) => Err(format!("{input}: exit 0 but the output does not parse: {e}")),
                Err(e) => Err(format!("{input}: exit 0 but {e}")),
            }
        }
        Some(1) => {
            let prefix = format!("{input}:");
            let located = first.strip_prefix(&prefix).and_then(|rest| {
                let mut parts = rest.splitn(3, ':');
                let line = parts.next()?.parse::<usize>().ok()?;
                let col = parts.next()?.parse::<usize>().ok()?;
                (line > 0 && col > 0 && parts.next()?.starts_with(" error: ")).then_some(())
            });
            if located.is_none() {
                Err(format!("{input}: exit 1 without 'FILE:LINE:COL: error:' first; stderr:\n{stderr}"))
            } else if !stdout.is_empty() {
                Err(format!("{input}: exit 1 but wrote {} bytes to standard output", stdout.len()))
            } else {
                Ok(1)
            }
        }
        Some(code) => Err(format!("{input}: exit {code}; stderr:\n{stderr}")),
    }
}

#[test]
fn mutants_exit_cleanly_with_located_errors() {
    let listing = Command::new(env!("CARGO_BIN_EXE_ptx-opt")).arg("--list-passes").output().expect("ptx-opt runs");
    assert!(listing.status.success());
    let passes: Vec<String> = String::from_utf8_lossy(&listing.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        // The pass that needs its options gets them (the oldest version it judges).
        .map(|name| if name == "lower-ptx-version" { format!("{name}<to=6.0>") } else { name })
        .collect();
    assert!(!passes.is_empty(), "--list-passes lists passes");
    let passes = passes.join(",");

    let dir = tempfile::tempdir().expect("scratch directory");
    let mut rng = Rng(0x5EED_0F97_0000_0009);
    let mut failures = Vec::new();
    let mut runs = 0;
    let mut exits = [0usize; 2];
    for (k, source) in SOURCES.iter().enumerate() {
        let valid = std::fs::read(corpus_file(source)).expect("the shared corpus is beside the workspace");
        // (name, input, --reformat): every other mutant is printed
        // canonically (everything afresh), every regression both ways.
        let mut mutants: Vec<(String, Vec<u8>, bool)> =
            (0..PER_SOURCE).map(|i| (format!("s{k}-m{i:03}"), mutate(&valid, &mut rng), i % 2 == 1)).collect();
        if k == 0 {
            mutants.extend(pathological(&valid).into_iter().map(|(n, b)| (n.to_string(), b, false)));
            for (n, text) in REGRESSIONS {
                mutants.push((n.to_string(), text.as_bytes().to_vec(), false));
                mutants.push((format!("{n}-reformat"), text.as_bytes().to_vec(), true));
            }
        }
        for (name, bytes, reformat) in &mutants {
            runs += 1;
            match run_one(dir.path(), name, bytes, &passes, *reformat) {
                Ok(code) => exits[code as usize] += 1,
                Err(f) => failures.push(f),
            }
            for ext in ["ptx", "out", "err"] {
                let _ = std::fs::remove_file(dir.path().join(format!("{name}.{ext}")));
            }
        }
    }
    eprintln!("{runs} mutants: {} exit 0, {} exit 1, {} failures", exits[0], exits[1], failures.len());
    assert!(failures.is_empty(), "{} of {runs} mutants failed:\n{}", failures.len(), failures.join("\n"));
    // The mutants must exercise both outcomes, or the test proves little.
    assert!(exits[0] > 0 && exits[1] > 0, "exit 0 / exit 1: {exits:?}");
}
