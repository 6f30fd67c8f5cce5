//! Streaming (`optimize` in batches of functions) gives what the whole-module
//! run gives: the same text, counters and remarks, on every corpus file and
//! every pipeline that streams; and it steps aside for what it cannot do.

use crate::corpus;
use ptx_opt::{Options, Output};

/// What a run produced, less the timings.
fn observable(output: &Output) -> (String, Vec<String>) {
    let passes = output
        .run
        .passes
        .iter()
        .map(|p| format!("{} changed={} {:?} {:?}", p.name, p.changed, p.stats.counters, p.stats.remarks))
        .collect();
    (output.ptx.clone(), passes)
}

fn check(source: &str, options: &Options, batch_bytes: usize) -> Result<(), String> {
    let whole = ptx_opt::optimize_whole(source, options).map_err(|e| format!("whole run failed: {e:?}"))?;
    let streamed = ptx_opt::optimize_in_batches(source, options, batch_bytes)
        .map_err(|e| format!("streamed run failed: {e:?}"))?;
    let streamed = match streamed {
        Some(streamed) => streamed,
        // A module that retargets in a body runs whole (see below).
        None if has_a_body_target(source) => ptx_opt::optimize(source, options).map_err(|e| format!("{e:?}"))?,
        None => return Err("the pipeline did not stream".into()),
    };
    let (whole, streamed) = (observable(&whole), observable(&streamed));
    if whole.0 != streamed.0 {
        return Err("different text".into());
    }
    if whole.1 != streamed.1 {
        return Err(format!("different counters or remarks:\n  whole:    {:?}\n  streamed: {:?}", whole.1, streamed.1));
    }
    Ok(())
}

/// Every pass but `verify` (the pipeline's own check) and `count-blocks`
/// (it declares module variables, so its pipeline runs on the whole module,
/// see `count_blocks_runs_whole`).
fn streams(pass: &str) -> bool {
    !matches!(pass, "verify" | "count-blocks")
}

/// A pass that declares module items is not streamed: each batch would
/// declare its own copy. `optimize` gives what the whole-module run gives.
#[test]
fn count_blocks_runs_whole() {
    let options = Options::with_passes(["count-blocks"]);
    let file = corpus::files().iter().max_by_key(|f| f.source.len()).expect("a corpus file");
    assert!(ptx_opt::optimize_in_batches(&file.source, &options, 1).expect("runs").is_none(), "it streamed");
    let whole = ptx_opt::optimize_whole(&file.source, &options).expect("runs");
    let run = ptx_opt::optimize(&file.source, &options).expect("runs");
    assert_eq!(observable(&run), observable(&whole));
}

/// Every function-local pass alone and -O2, one group of items per batch
/// (the most cuts) and 64 KiB batches, over the whole corpus.
#[test]
fn streamed_pipelines_match_the_whole_module_run() {
    let mut pipelines: Vec<Vec<&str>> = vec![ptx_opt::pipeline(2).to_vec()];
    pipelines
        .extend(ptx_opt::passes().iter().filter(|p| streams(p.name) && crate::runs_bare(p.name)).map(|p| vec![p.name]));
    let mut failures = Vec::new();
    for file in corpus::files() {
        for passes in &pipelines {
            let options = Options::with_passes(passes.iter().copied());
            for batch_bytes in [1, 64 << 10] {
                if let Err(e) = check(&file.source, &options, batch_bytes) {
                    failures.push(format!("{} {passes:?} batches of {batch_bytes}: {e}", file.name));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} runs differ:\n{}", failures.len(), failures.join("\n"));
}

/// A target override streams: the passes gate on it, and each batch is
/// checked against its header as the whole run checks the module. Where the
/// target lets a pass write what the header does not allow, streaming steps
/// aside and the whole run reports it.
#[test]
fn a_target_override_streams_like_the_whole_module() {
    let mut failures = Vec::new();
    let mut refused = 0;
    for file in corpus::files() {
        for target in ["sm_90a", "sm_75"] {
            let options = Options::with_passes(ptx_opt::pipeline(2).iter().copied()).with_target(target);
            let whole = ptx_opt::optimize_whole(&file.source, &options);
            let streamed = ptx_opt::optimize_in_batches(&file.source, &options, 64 << 10);
            match (whole, streamed) {
                (Ok(_), Ok(None)) => failures.push(format!("{} {target}: did not stream", file.name)),
                (Ok(w), Ok(Some(s))) if observable(&w) != observable(&s) => {
                    failures.push(format!("{} {target}: differs", file.name))
                }
                (Ok(_), Ok(Some(_))) => {}
                (Err(w), Ok(None)) if matches!(w.kind, ptx_opt::ErrorKind::NeedsTarget(_)) => {
                    refused += 1;
                    let through_optimize = ptx_opt::optimize(&file.source, &options).unwrap_err();
                    assert_eq!(through_optimize, w, "{}", file.name);
                }
                (w, s) => failures.push(format!("{} {target}: whole {:?}, streamed {:?}", file.name, w.err(), s.err())),
            }
        }
    }
    assert!(failures.is_empty(), "{} runs differ:\n{}", failures.len(), failures.join("\n"));
    eprintln!("{refused} runs refused (the header does not allow what the target let the passes write)");
}

/// `--ptx-version` and `--cuda` stream: each batch is lowered and checked at
/// the version asked (or gives the lowest it allows), the header is written
/// once all are known, and the output, counters, remarks and refusals are
/// the whole-module run's. Batches of 4 KiB, so most files have several.
#[test]
fn a_version_request_streams_like_the_whole_module() {
    use ptx_opt::version::PtxVersion;
    let mut failures = Vec::new();
    let (mut streamed_runs, mut refused, mut rewritten) = (0, 0, 0);
    let requests =
        [PtxVersion::Lowest, PtxVersion::Exactly((7, 0)), PtxVersion::Exactly((6, 3)), PtxVersion::AtMost((8, 4))];
    let cases = corpus::testdata_files("passes/lower-ptx-version");
    let cases: Vec<(String, String)> =
        cases.iter().map(|p| (p.display().to_string(), std::fs::read_to_string(p).expect("readable"))).collect();
    let files = corpus::files().iter().map(|f| (f.name.clone(), f.source.clone())).chain(cases);
    for (name, source) in files {
        for request in requests {
            let options =
                Options { ptx_version: Some(request), ..Options::with_passes(ptx_opt::pipeline(2).iter().copied()) };
            let whole = ptx_opt::optimize_whole(&source, &options);
            let streamed = ptx_opt::optimize_in_batches(&source, &options, 4 << 10);
            match (whole, streamed) {
                (Ok(_), Ok(None)) if !has_a_body_target(&source) => {
                    failures.push(format!("{name} {request:?}: did not stream"))
                }
                (Ok(w), Ok(Some(s))) if observable(&w) != observable(&s) => {
                    failures.push(format!("{name} {request:?}: differs"))
                }
                (Ok(w), Ok(Some(_))) => {
                    streamed_runs += 1;
                    rewritten += usize::from(w.run.passes.iter().any(|p| p.name == "lower-ptx-version" && p.changed));
                }
                (Ok(_), Ok(None)) => {}
                // A batch that cannot be written at the version gives the run
                // to the whole module, which names every instruction.
                (Err(w), Ok(None)) if matches!(w.kind, ptx_opt::ErrorKind::NeedsVersion(_)) => {
                    refused += 1;
                    assert_eq!(ptx_opt::optimize(&source, &options).unwrap_err(), w, "{name}");
                }
                (w, s) => failures.push(format!("{name} {request:?}: whole {:?}, streamed {:?}", w.err(), s.err())),
            }
        }
    }
    assert!(failures.is_empty(), "{} runs differ:\n{}", failures.len(), failures.join("\n"));
    assert!(
        streamed_runs > 600 && refused > 50 && rewritten > 3,
        "{streamed_runs} streamed, {refused} refused, {rewritten} rewritten"
    );
}

/// What needs the whole module does not stream: the verifier (it resolves
/// names across the module), verify-each, print-after, reformat, a target
/// written into the header.
#[test]
fn whole_module_options_do_not_stream() {
    let source = &corpus::files()[0].source;
    let o2 = || Options::with_passes(ptx_opt::pipeline(2).iter().copied());
    for options in [
        Options::with_passes(["fold-prmt", "verify"]),
        Options { verify_each: true, ..o2() },
        Options { print_after_all: true, ..o2() },
        Options { print_after: vec!["fold-prmt".into()], ..o2() },
        Options { reformat: true, ..o2() },
        Options { set_target: true, ..o2().with_target("sm_90") },
    ] {
        assert!(ptx_opt::optimize_in_batches(source, &options, 1).unwrap().is_none(), "{options:?}");
    }
}

fn has_a_body_target(source: &str) -> bool {
    let Ok(module) = ptx_opt::parse(source) else { return false };
    let mut statements = module.functions.values().flat_map(|f| f.body().unwrap_or(&[]).iter().map(move |s| (f, s)));
    statements.any(|(f, stmt)| matches!(stmt, ptx_opt::ir::Stmt::Raw(d) if f.directives[*d].name == "target"))
}

/// A `.target` inside a function body is the target of the rest of the file
/// (ptxas 13.5 reads it so), which a later batch would not know: such a
/// module runs whole, and a pass writes nothing the body's target forbids.
#[test]
fn a_target_in_a_function_body_is_run_whole() {
    let source =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/parse/repeated-targets.ptx"))
            .unwrap();
    let o2 = Options::with_passes(ptx_opt::pipeline(2).iter().copied());
    assert!(ptx_opt::optimize_in_batches(&source, &o2, 1).unwrap().is_none());
    let without = source.replace("\n.target sm_80\n", "\n").replace("\t.target sm_90\n", "");
    assert!(ptx_opt::optimize_in_batches(&without, &o2, 1).unwrap().is_some());
}

/// An error in a late function: streaming gives up and `optimize` reports
/// exactly what the whole-module run reports.
#[test]
fn a_late_parse_error_is_reported_as_by_the_whole_run() {
    let file = corpus::files().iter().max_by_key(|f| f.source.len()).unwrap();
    let at = file.source.rfind("ret;").expect("the largest file returns");
    let broken = format!("{}@%undeclared_guard ret;{}", &file.source[..at], &file.source[at + 4..]);
    let options = Options::with_passes(ptx_opt::pipeline(2).iter().copied());
    assert!(ptx_opt::optimize_in_batches(&broken, &options, 1).unwrap().is_none());
    let streamed = ptx_opt::optimize(&broken, &options).unwrap_err();
    let whole = ptx_opt::optimize_whole(&broken, &options).unwrap_err();
    assert_eq!(format!("{streamed:?}"), format!("{whole:?}"));
}

/// The crafted inputs of `testdata/` (nested scopes, labels in inner blocks,
/// initializers, debug sections, malformed files): streamed -O2 and every
/// function-local pass give the whole-module result, errors included.
#[test]
fn testdata_streams_like_the_whole_module() {
    let files = corpus::testdata_files("");
    assert!(files.len() > 50, "testdata found");
    let mut pipelines: Vec<Vec<&str>> = vec![ptx_opt::pipeline(2).to_vec()];
    pipelines
        .extend(ptx_opt::passes().iter().filter(|p| streams(p.name) && crate::runs_bare(p.name)).map(|p| vec![p.name]));
    let mut failures = Vec::new();
    for path in &files {
        let Ok(source) = std::fs::read_to_string(path) else { continue };
        for passes in &pipelines {
            let options = Options::with_passes(passes.iter().copied());
            let outcome = match ptx_opt::optimize_whole(&source, &options) {
                Ok(_) => check(&source, &options, 1),
                Err(whole) => match ptx_opt::optimize(&source, &options) {
                    Err(streamed) if format!("{streamed:?}") == format!("{whole:?}") => Ok(()),
                    other => Err(format!("whole run failed with {whole:?}, optimize gave {other:?}")),
                },
            };
            if let Err(e) = outcome {
                failures.push(format!("{} {passes:?}: {e}", path.display()));
            }
        }
    }
    assert!(failures.is_empty(), "{} runs differ:\n{}", failures.len(), failures.join("\n"));
}

/// Every run verifies its input, batch by batch when it streams (no pass
/// at all streams too): a type error in the last function of the largest
/// file stops the stream, and `optimize` reports what the whole-module run
/// reports, with or without passes; `skip_verify` lets it through.
#[test]
fn a_late_verify_error_is_reported_as_by_the_whole_run() {
    let file = corpus::files().iter().max_by_key(|f| f.source.len()).unwrap();
    assert!(ptx_opt::optimize_in_batches(&file.source, &Options::default(), 1).unwrap().is_some(), "no pass streams");
    let at = file.source.rfind("\tret;").expect("the largest file returns");
    let broken =
        format!("{}\t.reg .f64 %fd_bad;\n\tadd.s32 %fd_bad, 1, 2;\n{}", &file.source[..at], &file.source[at..]);
    let line = broken[..at].lines().count() + 2;
    for options in [Options::default(), Options::with_passes(ptx_opt::pipeline(2).iter().copied())] {
        assert!(ptx_opt::optimize_in_batches(&broken, &options, 1).unwrap().is_none(), "{options:?}");
        let streamed = ptx_opt::optimize(&broken, &options).unwrap_err();
        let whole = ptx_opt::optimize_whole(&broken, &options).unwrap_err();
        assert_eq!(streamed.kind, ptx_opt::ErrorKind::InvalidInput);
        assert_eq!(format!("{streamed:?}"), format!("{whole:?}"));
        let found = broken[..streamed.diagnostics[0].span.start as usize].lines().count();
        assert_eq!(found, line, "{streamed:?}");
        let skipped = Options { skip_verify: true, ..options };
        assert!(ptx_opt::optimize(&broken, &skipped).is_ok(), "{skipped:?}");
    }
}

/// A batch sees the module-level names every earlier batch declared, and
/// not those a later batch declares (the parser may already have read
/// them): one item per batch, the verdicts are the whole-module run's.
#[test]
fn a_batch_sees_the_names_earlier_batches_declared() {
    let kernel = |name: &str, symbol: &str| {
        format!(
            ".visible .entry {name}()\n{{\n\t.reg .b32 %r<2>;\n\tld.global.u32 %r1, [{symbol}];\n\t\
             st.global.u32 [{symbol}], %r1;\n\tret;\n}}\n"
        )
    };
    let header = ".version 8.0\n.target sm_80\n.address_size 64\n";
    let valid = format!("{header}.global .align 4 .u32 early;\n{}{}", kernel("a", "early"), kernel("b", "early"));
    for threads in [1, 2] {
        let options = Options { threads: Some(threads), ..Options::default() };
        let streamed = ptx_opt::optimize_in_batches(&valid, &options, 1).unwrap().expect("streams");
        assert_eq!(streamed.ptx, valid);
    }
    let late = format!("{header}{}{}.global .align 4 .u32 late;\n", kernel("a", "late"), kernel("b", "early"));
    for threads in [1, 2] {
        let options = Options { threads: Some(threads), ..Options::default() };
        assert!(ptx_opt::optimize_in_batches(&late, &options, 1).unwrap().is_none());
        let streamed = ptx_opt::optimize(&late, &options).unwrap_err();
        let whole = ptx_opt::optimize_whole(&late, &options).unwrap_err();
        assert_eq!(format!("{streamed:?}"), format!("{whole:?}"));
        let messages: Vec<&str> = whole.diagnostics.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "ld: 'late' is not declared",
                "st: 'late' is not declared",
                "ld: 'early' is not declared",
                "st: 'early' is not declared"
            ]
        );
    }
}

/// On two or more threads the next batches are parsed while the earlier
/// ones are verified and optimized; on one thread the batches go one after
/// the other. Both give the whole-module result, errors included.
#[test]
fn parsing_beside_processing_gives_the_sequential_result() {
    let files = corpus::files();
    let o2 = Options::with_passes(ptx_opt::pipeline(2).iter().copied());
    for file in files.iter().step_by(7) {
        for options in [Options::default(), o2.clone()] {
            let one = ptx_opt::optimize_in_batches(&file.source, &Options { threads: Some(1), ..options.clone() }, 1)
                .unwrap()
                .expect("streams");
            let two = ptx_opt::optimize_in_batches(&file.source, &Options { threads: Some(2), ..options.clone() }, 1)
                .unwrap()
                .expect("streams");
            assert_eq!(observable(&one), observable(&two), "{} {:?}", file.name, options.passes);
        }
    }
    let file = files.iter().max_by_key(|f| f.source.len()).unwrap();
    let at = file.source.rfind("\tret;").expect("the largest file returns");
    let broken = format!("{}\tadd.s32 %nosuch, 1, 2;\n{}", &file.source[..at], &file.source[at..]);
    for threads in [1, 2, 3] {
        let options = Options { threads: Some(threads), ..o2.clone() };
        assert!(ptx_opt::optimize_in_batches(&broken, &options, 1).unwrap().is_none(), "{threads} threads");
        assert!(ptx_opt::optimize(&broken, &options).is_err(), "{threads} threads");
    }
}

#[test]
fn output_text_refers_to_the_input_where_nothing_changed() {
    let file = corpus::files().iter().max_by_key(|f| f.source.len()).unwrap();
    let input: std::sync::Arc<str> = std::sync::Arc::from(file.source.as_str());
    let (text, _) = ptx_opt::optimize_text(input.clone(), &Options::default()).expect("valid");
    let slices: Vec<&str> = text.slices().collect();
    assert_eq!(slices.len(), 1, "an unchanged run is one piece");
    assert!(std::ptr::eq(slices[0], &*input), "the piece is the input itself, not a copy");

    let o2 = Options::with_level(2);
    let (text, _) = ptx_opt::optimize_text(input.clone(), &o2).expect("valid");
    let from_input = text.slices().filter(|s| input.as_bytes().as_ptr_range().contains(&s.as_ptr())).count();
    assert!(from_input > 0 && from_input < text.slices().count(), "-O2 changes some functions and keeps others");
    let mut written = Vec::new();
    text.write_to(&mut written).unwrap();
    assert_eq!(written, ptx_opt::optimize(&file.source, &o2).unwrap().ptx.as_bytes());
    assert_eq!(text.len(), written.len());
}
