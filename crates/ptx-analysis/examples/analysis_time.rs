//! Measures how long the analyses take on real PTX: for every function of
//! each file given (a `.gz` file is read through `zcat`), the time to build
//! the CFG, the dominator tree and the reaching definitions / def-use chains,
//! single-threaded. Then the same for every function with its body repeated
//! four times (labels renamed, `ret`/`exit` of all but the last copy turned
//! into a branch to the next copy, so every copy is reachable), to see
//! whether the cost grows linearly with function size.
//!
//! Run in release mode:
//! `cargo run --release -p ptx-analysis --example analysis_time -- FILE...`
//! (without arguments: the largest public corpus file and the bench file).

use ptx_analysis::{Cfg, DefUse, DomTree};
use ptx_ir::{Function, Inst, LabelData, LabelId, Opcode, Operand, Span, Stmt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn read(path: &Path) -> Result<String, String> {
    if path.extension().is_some_and(|e| e == "gz") {
        let out = std::process::Command::new("zcat").arg(path).output().map_err(|e| format!("zcat: {e}"))?;
        if !out.status.success() {
            return Err(format!("zcat {} failed", path.display()));
        }
        String::from_utf8(out.stdout).map_err(|e| e.to_string())
    } else {
        std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
    }
}

#[derive(Default)]
struct Totals {
    functions: usize,
    insts: usize,
    blocks: usize,
    uses: usize,
    cfg: Duration,
    dom: Duration,
    defuse: Duration,
    /// The slowest function: (time, name, insts, blocks, columns, rounds).
    worst: Option<(Duration, String, usize, usize, usize, usize)>,
    max_rounds: usize,
    /// Largest bit matrix (blocks × columns), in bytes.
    max_matrix: usize,
}

impl Totals {
    fn total(&self) -> Duration {
        self.cfg + self.dom + self.defuse
    }

    fn add(&mut self, func: &Function) {
        let t0 = Instant::now();
        let cfg = Cfg::build(func);
        let t1 = Instant::now();
        let dom = DomTree::build(&cfg);
        let t2 = Instant::now();
        let du = DefUse::build(func, &cfg, &dom);
        let t3 = Instant::now();
        self.functions += 1;
        self.insts += func.inst_ids().count();
        self.blocks += cfg.num_blocks();
        self.uses += du.use_sites().len();
        self.cfg += t1 - t0;
        self.dom += t2 - t1;
        self.defuse += t3 - t2;
        self.max_rounds = self.max_rounds.max(du.rounds());
        self.max_matrix = self.max_matrix.max(cfg.num_blocks() * du.num_columns().div_ceil(64) * 8);
        let t = t3 - t0;
        if self.worst.as_ref().is_none_or(|w| t > w.0) {
            let insts = func.inst_ids().count();
            self.worst = Some((t, func.name.clone(), insts, cfg.num_blocks(), du.num_columns(), du.rounds()));
        }
    }

    fn print(&self, what: &str) {
        println!(
            "  {what}: {} functions, {} instructions, {} blocks, {} uses: cfg {:.1} ms, dominators {:.1} ms, reaching defs + def-use {:.1} ms, total {:.1} ms ({:.0} ns/instruction)",
            self.functions,
            self.insts,
            self.blocks,
            self.uses,
            ms(self.cfg),
            ms(self.dom),
            ms(self.defuse),
            ms(self.total()),
            self.total().as_nanos() as f64 / self.insts.max(1) as f64,
        );
        if let Some((t, name, insts, blocks, cols, rounds)) = &self.worst {
            println!(
                "    slowest function: {name}: {insts} instructions, {blocks} blocks, {cols} columns, {rounds} rounds, {:.2} ms",
                ms(*t)
            );
        }
        println!("    most rounds: {}, largest bit matrix: {} KiB", self.max_rounds, self.max_matrix / 1024);
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// `func` with its body repeated `k` times (see the file comment).
fn repeat(func: &Function, k: usize) -> Function {
    let mut f = func.clone();
    let Some(body) = func.body() else { return f };
    let starts: Vec<LabelId> = (1..k)
        .map(|c| {
            let name = f.names.intern(&format!("$ptxopt_copy{c}"));
            f.labels.push(LabelData { name, span: Span::default() })
        })
        .collect();
    let mut out = Vec::with_capacity(body.len() * k + k);
    for c in 0..k {
        let labels: Vec<LabelId> = if c == 0 {
            func.labels.keys().collect()
        } else {
            func.labels
                .iter()
                .map(|(_, d)| {
                    let name = f.names.intern(&format!("{}_c{c}", func.names.get(d.name)));
                    f.labels.push(LabelData { name, span: Span::default() })
                })
                .collect()
        };
        if c > 0 {
            out.push(Stmt::Label(starts[c - 1]));
        }
        for stmt in body {
            match stmt {
                Stmt::Inst(id) => {
                    let mut inst: Inst = func.insts[*id].clone();
                    for op in &mut inst.operands {
                        if let Operand::Label(l) = op {
                            *l = labels[l.as_u32() as usize];
                        }
                    }
                    if c + 1 < k && matches!(inst.opcode, Opcode::Ret | Opcode::Exit) {
                        let guard = inst.guard;
                        inst = Inst::new(Opcode::Bra, Vec::new(), vec![Operand::Label(starts[c])]);
                        inst.guard = guard;
                    }
                    out.push(Stmt::Inst(f.insts.push(inst)));
                }
                Stmt::Label(l) => out.push(Stmt::Label(labels[l.as_u32() as usize])),
                Stmt::ScopeOpen(_) | Stmt::ScopeClose(_) => out.push(*stmt),
                _ if c == 0 => out.push(*stmt),
                _ => {}
            }
        }
    }
    f.set_body(Some(out));
    f.mark_changed();
    f
}

fn main() {
    let mut paths: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    if paths.is_empty() {
        let shared = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
        paths.push(shared.join("public/nvcc-13.5__thrust_cub_device__sm_80.ptx"));
        if let Ok(dir) = std::fs::read_dir(shared.join("bench")) {
            let mut gz: Vec<PathBuf> = dir.filter_map(|e| e.ok()).map(|e| e.path()).collect();
            gz.sort();
            paths.extend(gz);
        }
    }
    for path in &paths {
        let text = match read(path) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(1);
            }
        };
        let t = Instant::now();
        let module = match ptx_parse::parse(&text) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("{}: {} parse errors", path.display(), e.len());
                std::process::exit(1);
            }
        };
        println!("{} ({:.1} MB, parsed in {:.0} ms)", path.display(), text.len() as f64 / 1e6, ms(t.elapsed()));
        let funcs: Vec<&Function> = module.functions.values().filter(|f| f.has_body()).collect();
        let mut one = Totals::default();
        for f in &funcs {
            one.add(f);
        }
        one.print("1x");
        let mut four = Totals::default();
        for f in &funcs {
            four.add(&repeat(f, 4));
        }
        four.print("4x");
        println!(
            "  4x / 1x time: {:.2} (linear = 4); per instruction: {:.2}x",
            four.total().as_secs_f64() / one.total().as_secs_f64(),
            (four.total().as_secs_f64() / four.insts as f64) / (one.total().as_secs_f64() / one.insts as f64)
        );
    }
}
