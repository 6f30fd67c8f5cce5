//! Criterion benchmarks of each stage of ptx-opt over real corpus files:
//! parse, print (verbatim and canonical), parse+print, the analyses of
//! every function, each registered pass alone and -O2 end to end, all on
//! one thread. Throughput is reported in input bytes.
//!
//! Files: the largest public corpus file and a mid-sized one by default;
//! set `PTX_BENCH_FILES` to a `:`-separated list of paths (`.ptx` or
//! `.ptx.gz`) to measure others, e.g. the 54 MB bench file (slow: criterion
//! wants many samples, `ptx-bench` is the tool for one-shot figures).

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use ptx_bench::{load, parse_ok, short_name, Stage};
use std::path::PathBuf;
use std::time::Duration;

fn files() -> Vec<PathBuf> {
    match std::env::var("PTX_BENCH_FILES") {
        Ok(list) => list.split(':').filter(|s| !s.is_empty()).map(PathBuf::from).collect(),
        Err(_) => vec![
            ptx_bench::largest_public_file(),
            ptx_bench::public_corpus_dir().join("nvrtc-13.5__cub_block__sm_80.ptx"),
        ],
    }
}

fn stages(c: &mut Criterion) {
    for path in files() {
        let source: std::sync::Arc<str> = match load(&path) {
            Ok(s) => s.into(),
            Err(e) => panic!("{}: {e}", path.display()),
        };
        let mut group = c.benchmark_group(short_name(&path));
        group.throughput(Throughput::Bytes(source.len() as u64));
        group.sample_size(10);
        group.warm_up_time(Duration::from_millis(500));
        group.measurement_time(Duration::from_secs(5));
        let module = parse_ok(&source);
        for stage in Stage::all() {
            let name = stage.name();
            match &stage {
                Stage::Parse => group.bench_function(&name, |b| b.iter(|| parse_ok(&source))),
                Stage::Print => group.bench_function(&name, |b| b.iter(|| ptx_opt::print(&module))),
                Stage::PrintCanonical => {
                    group.bench_function(&name, |b| b.iter(|| ptx_ir::print::print_module_canonical(&module)))
                }
                Stage::ParsePrint | Stage::ParsePrintNoVerify => {
                    let skip_verify = stage == Stage::ParsePrintNoVerify;
                    let options = ptx_bench::one_thread(ptx_opt::Options { skip_verify, ..Default::default() });
                    group.bench_function(&name, |b| b.iter(|| ptx_opt::optimize(&source, &options)))
                }
                Stage::ParsePrintModule => {
                    group.bench_function(&name, |b| b.iter(|| ptx_opt::print(&parse_ok(&source))))
                }
                Stage::Analyses => group.bench_function(&name, |b| b.iter(|| ptx_bench::run_analyses(&module))),
                Stage::Pass(pass) => {
                    let options = ptx_bench::one_thread(ptx_opt::Options {
                        skip_verify: true,
                        ..ptx_opt::Options::with_passes([pass.as_str()])
                    });
                    group.bench_function(&name, |b| {
                        b.iter_batched(
                            || module.clone(),
                            |mut m| ptx_opt::run_passes(&mut m, &options).map(|_| m),
                            BatchSize::PerIteration,
                        )
                    })
                }
                Stage::O2 => {
                    let options = ptx_bench::one_thread(ptx_opt::Options::with_level(2));
                    group.bench_function(&name, |b| b.iter(|| ptx_opt::optimize(&source, &options)))
                }
                Stage::O2AllCores => {
                    let options = ptx_opt::Options::with_level(2);
                    group.bench_function(&name, |b| b.iter(|| ptx_opt::optimize(&source, &options)))
                }
                Stage::ParsePrintAllCores => {
                    let options = ptx_opt::Options::default();
                    group.bench_function(&name, |b| b.iter(|| ptx_opt::optimize(&source, &options)))
                }
            };
        }
        group.finish();
    }
}

criterion_group!(benches, stages);
criterion_main!(benches);
