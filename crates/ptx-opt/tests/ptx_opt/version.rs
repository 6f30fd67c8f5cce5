//! `.version` requirements and lowering (`ptx_opt::version`,
//! `--ptx-version`, `--cuda`): over the public corpus, every file written
//! at the lowest version the tool finds is accepted by ptxas and compiles
//! to the same machine code, kernel by kernel; instructions newer than
//! the version asked for are refused by name, for forms from the table of
//! needs; the CUDA-release table is the ISA's.

use crate::corpus;
use crate::round_trip::text_sections;
use ptx_opt::version::{check_version, lowest_version, ptx_version_of_cuda, Version, CUDA_RELEASES};
use rayon::prelude::*;
use std::collections::BTreeMap;

#[test]
fn every_corpus_file_at_its_lowest_version_compiles_to_the_same_code() {
    let results: Vec<Result<Option<(Version, Version)>, String>> = corpus::files()
        .par_iter()
        .map(|file| {
            let mut module = ptx_opt::parse(&file.source).expect("corpus parses");
            let written = module.version;
            let lowest = lowest_version(&module).version;
            if lowest == written {
                return Ok(None);
            }
            check_version(&module, lowest).map_err(|e| format!("{}: {lowest:?} refused: {e:?}", file.name))?;
            module.version = lowest;
            let text = ptx_opt::print(&module);
            let expected = file.source.replacen(
                &format!(".version {}.{}", written.0, written.1),
                &format!(".version {}.{}", lowest.0, lowest.1),
                1,
            );
            if text != expected {
                return Err(format!("{}: more than the .version line changed", file.name));
            }
            let cubin = corpus::toolchain()
                .compile(&text, &file.target, &[])
                .map_err(|e| format!("{}: ptxas rejects it at {lowest:?}: {e}", file.name))?;
            if text_sections(&cubin) != text_sections(&corpus::original_cubin(file)) {
                return Err(format!("{}: the code differs at {lowest:?}", file.name));
            }
            Ok(Some((written, lowest)))
        })
        .collect();
    let failures: Vec<&String> = results.iter().filter_map(|r| r.as_ref().err()).collect();
    assert!(failures.is_empty(), "{failures:#?}");
    let lowered: Vec<(Version, Version)> = results.iter().filter_map(|r| r.clone().ok().flatten()).collect();
    eprintln!("{} of {} corpus files lowered, all to identical code", lowered.len(), corpus::files().len());
    assert!(lowered.len() >= 150, "most corpus files need less than they declare: {}", lowered.len());
}

/// Every corpus file asked for the lowest version its `.target` allows (and
/// the memory model: 6.0) is
/// written at it exactly or refused by name: either ptxas accepts the output
/// at that version, with the same code kernel by kernel where
/// `lower-ptx-version` rewrote nothing and kernels the interpreter finds
/// equivalent where it did; or the run fails with errors each at an
/// instruction, naming what it needs. The tally of what blocks is the
/// README's table (printed with --nocapture).
#[test]
fn every_corpus_file_asked_for_its_target_s_lowest_version_is_lowered_exactly_or_refused_by_name() {
    use ptx_opt::version::{lowest_for_target, PtxVersion};
    #[derive(Debug)]
    enum Outcome {
        AsIs,
        Rewritten(Vec<String>),
        Refused(Vec<String>),
    }
    let results: Vec<Result<Option<Outcome>, String>> = corpus::files()
        .par_iter()
        .map(|file| {
            let module = ptx_opt::parse(&file.source).expect("corpus parses");
            // Below 6.0 memory instructions change meaning (a refusal of its own).
            let floor = lowest_for_target(&file.target).expect("a known target").max((6, 0));
            if floor >= module.version {
                return Ok(None);
            }
            let options = ptx_opt::Options { ptx_version: Some(PtxVersion::Exactly(floor)), ..Default::default() };
            let out = match ptx_opt::optimize(&file.source, &options) {
                Err(e) => {
                    if e.kind != ptx_opt::ErrorKind::NeedsVersion(format!("{}.{}", floor.0, floor.1)) {
                        return Err(format!("{}: {e}", file.name));
                    }
                    let mut blockers = Vec::new();
                    for d in &e.diagnostics {
                        let named = d.message.strip_prefix('\'').and_then(|m| m.split_once("' needs PTX "));
                        match named {
                            Some((what, _)) if d.span.end > d.span.start => blockers.push(what.to_string()),
                            _ => {
                                return Err(format!("{}: an error that names no instruction: {}", file.name, d.message))
                            }
                        }
                    }
                    return Ok(Some(Outcome::Refused(blockers)));
                }
                Ok(out) => out,
            };
            let cubin = corpus::toolchain()
                .compile(&out.ptx, &file.target, &[])
                .map_err(|e| format!("{}: ptxas rejects it at {floor:?}: {e}", file.name))?;
            let lowering = out.run.passes.iter().find(|p| p.name == "lower-ptx-version").expect("the lowering ran");
            if !lowering.changed {
                if text_sections(&cubin) != text_sections(&corpus::original_cubin(file)) {
                    return Err(format!("{}: the code differs at {floor:?}", file.name));
                }
                return Ok(Some(Outcome::AsIs));
            }
            ptx_interp::assert_equivalent(&file.source, &out.ptx)
                .map_err(|report| format!("{}: lowered, not shown equivalent:\n{report}", file.name))?;
            Ok(Some(Outcome::Rewritten(lowering.stats.counters.keys().map(|k| k.to_string()).collect())))
        })
        .collect();
    let failures: Vec<&String> = results.iter().filter_map(|r| r.as_ref().err()).collect();
    assert!(failures.is_empty(), "{failures:#?}");
    let outcomes: Vec<&Outcome> = results.iter().filter_map(|r| r.as_ref().ok().and_then(Option::as_ref)).collect();
    let mut blocked_files: BTreeMap<&str, usize> = BTreeMap::new();
    let mut rewritten: BTreeMap<&str, usize> = BTreeMap::new();
    for outcome in &outcomes {
        let (Outcome::Refused(names) | Outcome::Rewritten(names)) = outcome else { continue };
        let tally = if matches!(outcome, Outcome::Refused(_)) { &mut blocked_files } else { &mut rewritten };
        let mut names: Vec<&str> = names.iter().map(String::as_str).collect();
        names.sort();
        names.dedup();
        for name in names {
            *tally.entry(name).or_default() += 1;
        }
    }
    let as_is = outcomes.iter().filter(|o| matches!(o, Outcome::AsIs)).count();
    eprintln!("{} corpus files declare more than their .target needs: {as_is} written at its lowest version as they are, rewritten: {rewritten:?}, refused, files per blocker: {blocked_files:?}", outcomes.len());
    assert!(rewritten.contains_key("cvt-pack-expanded"), "the cvt.pack files are lowered: {rewritten:?}");
    assert!(as_is >= 150, "most files need no rewrite: {as_is}");
}

/// A kernel around `line` (the scripts/verify-target probe template).
fn probe_kernel(version: Version, target: &str, line: &str) -> String {
    format!(
        ".version {}.{}\n.target {target}\n.address_size 64\n.shared .align 16 .b8 smem[1024];\n.global .align 16 .b8 gmem[1024];\n.func probe_callee()\n{{\nret;\n}}\n.visible .entry probe(.param .u64 p0)\n{{\n.reg .b32 %r<40>; .reg .b64 %rd<20>; .reg .b16 %h<20>; .reg .f32 %f<40>; .reg .f64 %fd<20>; .reg .pred %p<8>;\n{line}\nL0:\nret;\n}}\n",
        version.0, version.1
    )
}

#[test]
fn an_instruction_newer_than_the_version_asked_for_is_refused_by_name() {
    let mut refused = BTreeMap::new();
    for need in ptx_isa::ISA.needs.iter().filter(|n| n.min_version > 60 && !n.opcode.starts_with('%')) {
        let at = (need.min_version / 10, need.min_version % 10);
        let target = need.probe_target.as_str();
        let module = match ptx_opt::parse(&probe_kernel(at, target, need.probe.as_str())) {
            Ok(m) => m,
            Err(_) => continue,
        };
        if check_version(&module, at).is_err() {
            continue; // the probe needs more than its row says (another row's form)
        }
        let below = ptx_opt::version::known_versions().filter(|v| *v < at).last().expect("an older version");
        let errors = check_version(&module, below).expect_err("a newer instruction is refused");
        // The first row the instruction falls under names it (a row of the
        // same opcode with fewer words may come first, with its version).
        let wanted = format!("needs PTX {}.{}, --ptx-version asks for {}.{}", at.0, at.1, below.0, below.1);
        let names = |e: &ptx_opt::Diagnostic| e.message.starts_with(&format!("'{}", need.opcode.as_str()));
        let line_of = |e: &ptx_opt::Diagnostic| {
            module.source.as_deref().unwrap()[..e.span.start as usize].matches('\n').count() + 1
        };
        let named = errors.iter().any(|e| names(e) && e.message.ends_with(&wanted) && line_of(e) == 13);
        let target_floor = errors.iter().any(|e| e.message.starts_with("'.target"));
        assert!(named || target_floor, "{}: {errors:?}, wanted {wanted}", need.probe.as_str());
        if named {
            refused.insert(need.opcode.to_string(), wanted);
        } else {
            continue;
        }
    }
    assert!(refused.len() >= 20, "refusals for {} opcodes only: {refused:#?}", refused.len());
}

#[test]
fn every_cuda_release_of_the_isa_table_maps_to_its_ptx_version() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/spec/ptx-isa-9.1/13_release_notes/overview.md");
    let text = std::fs::read_to_string(path).expect("the ISA's release notes");
    let mut current: Option<Version> = None;
    let mut rows = 0;
    for line in text.lines().filter(|l| l.starts_with("| ")) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let first = cells[1];
        let release_cell = if let Some(v) = first.strip_prefix("PTX ISA ") {
            let Some((a, b)) = v.split_once('.') else { continue };
            current = Some((a.parse().unwrap(), b.parse().unwrap()));
            cells[2]
        } else {
            first
        };
        let Some(release) = release_cell.strip_prefix("CUDA ") else { continue };
        let release = release.split(',').next().unwrap().trim();
        let expected = current.expect("a version row first");
        assert_eq!(ptx_version_of_cuda(release), Some(expected), "CUDA {release}");
        rows += 1;
    }
    assert!(rows >= 45, "{rows} rows read");
    // A driver newer than a known release accepts at least its version.
    assert_eq!(ptx_version_of_cuda("12.10"), Some((8, 8)));
    assert_eq!(ptx_version_of_cuda("13.3"), Some((9, 1)));
    assert_eq!(ptx_version_of_cuda("13.5"), Some((9, 5)));
    assert_eq!(ptx_version_of_cuda("0.9"), None);
    assert_eq!(ptx_version_of_cuda("twelve"), None);
    assert!(CUDA_RELEASES.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 <= w[1].1));
}

/// A version may be raised as well as lowered (only the line changes), an
/// `--cuda` driver newer than the module leaves it as it is, and a version
/// ptxas does not know is not a request.
#[test]
fn a_version_is_raised_kept_or_not_a_request() {
    use ptx_opt::version::PtxVersion;
    let file = corpus::files().iter().find(|f| f.name == "llc-19__bitops__sm_80.ptx").expect("a corpus file");
    let own = ptx_opt::parse(&file.source).expect("parses").version;
    let written =
        |request| ptx_opt::optimize(&file.source, &ptx_opt::Options { ptx_version: request, ..Default::default() });
    let raised = written(PtxVersion::parse("9.5")).expect("raised").ptx;
    assert_eq!(raised, file.source.replacen(&format!(".version {}.{}", own.0, own.1), ".version 9.5", 1));
    assert_eq!(written(PtxVersion::for_cuda("13.5")).expect("kept").ptx, file.source);
    assert_eq!(PtxVersion::parse("7.9"), None);
    assert_eq!(PtxVersion::parse("min"), Some(PtxVersion::Lowest));
    assert_eq!(PtxVersion::for_cuda("12.4"), Some(PtxVersion::AtMost((8, 4))));
}
