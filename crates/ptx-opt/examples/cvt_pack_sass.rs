//! Benchmark (not a test) for `combine-cvt-pack`: for every public corpus
//! kernel where the pass fires, the SASS instruction count before and after,
//! from ptxas (default -O3) and nvdisasm. Exits 1 if any kernel got longer.
//!
//! Run with `scripts/bench-cvt-pack.sh` (or `cargo run --release -p ptx-opt
//! --example cvt_pack_sass -- [CORPUS_DIR]`). nvdisasm 13.5 cannot read
//! sm_70/sm_72 cubins, and the pass is gated off below sm_72 anyway.

use std::path::PathBuf;

fn main() {
    let dir = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/public"));
    let toolchain = ptx_toolchain::ensure().unwrap_or_else(|e| {
        eprintln!("cannot get ptxas: {e}");
        std::process::exit(2)
    });
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
        .collect();
    paths.sort();
    let options = ptx_opt::Options::with_passes(["combine-cvt-pack"]);
    let (mut kernels, mut before_total, mut after_total, mut longer) = (0usize, 0usize, 0usize, 0usize);
    println!("{:<48} {:<36} {:>7} {:>7} {:>6}", "file", "kernel", "before", "after", "delta");
    for path in paths {
        let source = std::fs::read_to_string(&path).expect("readable corpus file");
        let Some(target) = ptx_toolchain::target_of(&source) else { continue };
        let module = ptx_opt::parse(&source).expect("corpus parses");
        let mut after = module.clone();
        let run = ptx_opt::run_passes(&mut after, &options).expect("pass runs");
        if !run.passes[0].changed {
            continue;
        }
        let changed: Vec<String> =
            after.functions.values().filter(|f| f.has_body() && !f.is_pristine()).map(|f| f.name.clone()).collect();
        let count = |ptx: &str| {
            let cubin = toolchain.compile(ptx, &target, &[]).expect("ptxas accepts");
            toolchain.sass_instruction_count(&cubin)
        };
        let (Ok(b), Ok(a)) = (count(&source), count(&ptx_opt::print(&after))) else {
            println!("{:<48} (nvdisasm cannot read {target})", path.file_name().unwrap().to_string_lossy());
            continue;
        };
        for fb in &b.functions {
            let Some(fa) = a.functions.iter().find(|f| f.name == fb.name) else { continue };
            if !changed.contains(&fb.name) && fa.instructions == fb.instructions {
                continue;
            }
            kernels += 1;
            before_total += fb.instructions;
            after_total += fa.instructions;
            let delta = fa.instructions as i64 - fb.instructions as i64;
            if delta > 0 {
                longer += 1;
            }
            let file = path.file_name().unwrap().to_string_lossy();
            println!("{file:<48} {:<36} {:>7} {:>7} {delta:>+6}", fb.name, fb.instructions, fa.instructions);
        }
    }
    println!(
        "\n{kernels} kernels where the pass fired: {before_total} -> {after_total} SASS instructions ({:+}), {longer} longer",
        after_total as i64 - before_total as i64
    );
    if longer > 0 {
        std::process::exit(1);
    }
}
