//! The ISA sweep (`testdata/isa-sweep`, made by `scripts/isa-sweep/generate.py`):
//! instances of every instruction of the ISA text, each with ptxas 13.5's
//! verdict. Every instance ptxas accepts must parse, print back byte for byte
//! (also when its function counts as changed and is written into its source),
//! print canonically to text that parses to the same canonical text, and to
//! the same cubin; no instance, accepted or not, may make the parser panic.
//!
//! The accepted instances of a target are compiled together, in the module the
//! generator wrote (`kernels/<target>-<version>.ptx`, one kernel per
//! instruction file): ptxas runs twice per target. Each instance is also
//! parsed alone, in `template.ptx`, so that a failure names its instance.

use std::collections::BTreeMap;
use std::path::PathBuf;

use rayon::prelude::*;

use crate::corpus;

/// One row of `instances.tsv`.
struct Instance {
    file: String,
    target: String,
    version: String,
    accepted: bool,
    line: String,
}

fn sweep_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/isa-sweep")
}

fn read(name: &str) -> String {
    let path = sweep_dir().join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

fn instances() -> Vec<Instance> {
    read("instances.tsv")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            assert!(cols.len() >= 5, "malformed row: {l}");
            Instance {
                file: cols[0].to_string(),
                target: cols[1].to_string(),
                version: cols[2].to_string(),
                accepted: match cols[3] {
                    "accepted" => true,
                    "rejected" => false,
                    v => panic!("unknown verdict {v} in {l}"),
                },
                line: cols[4].to_string(),
            }
        })
        .collect()
}

/// The one-kernel module holding `inst` alone, as the generator writes it.
fn module_of(template: &str, inst: &Instance) -> String {
    template.replace("@VERSION@", &inst.version).replace("@TARGET@", &inst.target).replace("@INSTANCES@", &inst.line)
}

#[test]
fn every_accepted_instance_parses_and_prints_back_identically() {
    let template = read("template.ptx");
    let all = instances();
    let accepted: Vec<&Instance> = all.iter().filter(|i| i.accepted).collect();
    assert!(accepted.len() >= 10000, "the sweep has {} accepted instances", accepted.len());
    let failures: Vec<String> = accepted
        .par_iter()
        .filter_map(|inst| {
            let source = module_of(&template, inst);
            let what = match ptx_opt::parse(&source) {
                Err(e) => format!("does not parse: {e}"),
                Ok(module) if ptx_opt::print(&module) != source => "prints back differently".to_string(),
                Ok(module) => {
                    // Written into its source text as a changed function is
                    // (crate::layout), it is still the source.
                    let mut edited = module.clone();
                    crate::layout::edit_changing_nothing(&mut edited);
                    if ptx_opt::print(&edited) != source {
                        return Some(format!(
                            "{}: {}  (an edit that changes nothing prints it differently)",
                            inst.file, inst.line
                        ));
                    }
                    // The canonical print is a fixpoint (ARCHITECTURE.md, invariant 4).
                    let canonical = ptx_ir::print::print_module_canonical(&module);
                    match ptx_opt::parse(&canonical) {
                        Err(e) => format!("its canonical print does not parse: {e}"),
                        Ok(again) if ptx_ir::print::print_module_canonical(&again) != canonical => {
                            "its canonical print is not a fixpoint".to_string()
                        }
                        Ok(_) => return None,
                    }
                }
            };
            Some(format!("{}: {}  ({what})", inst.file, inst.line))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} accepted instances fail:\n{}",
        failures.len(),
        accepted.len(),
        failures.join("\n")
    );
}

#[test]
fn rejected_instances_do_not_make_the_parser_panic() {
    let template = read("template.ptx");
    let all = instances();
    let rejected: Vec<&Instance> = all.iter().filter(|i| !i.accepted).collect();
    assert!(!rejected.is_empty());
    let panics: Vec<String> = rejected
        .par_iter()
        .filter_map(|inst| {
            let source = module_of(&template, inst);
            std::panic::catch_unwind(|| {
                if let Ok(module) = ptx_opt::parse(&source) {
                    ptx_opt::print(&module);
                    ptx_ir::print::print_module_canonical(&module);
                }
            })
            .err()
            .map(|_| format!("{}: {}", inst.file, inst.line))
        })
        .collect();
    assert!(panics.is_empty(), "the parser panics on {} rejected instances:\n{}", panics.len(), panics.join("\n"));
}

/// The modules of accepted instances, one per target, are exactly the
/// accepted rows; printed canonically, each compiles to the identical cubin.
#[test]
fn accepted_instances_print_canonically_to_the_same_cubin() {
    let all = instances();
    let mut expected: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for inst in all.iter().filter(|i| i.accepted) {
        expected.entry(format!("{}-{}.ptx", inst.target, inst.version)).or_default().push(&inst.line);
    }
    let mut names: Vec<String> = std::fs::read_dir(sweep_dir().join("kernels"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, expected.keys().cloned().collect::<Vec<_>>(), "one module per target of accepted instances");
    let failures: Vec<String> = names
        .par_iter()
        .filter_map(|name| {
            let source = read(&format!("kernels/{name}"));
            let mut lines: Vec<&str> = source.lines().collect();
            lines.sort_unstable();
            let mut want = expected[name].clone();
            want.sort_unstable();
            if !want.iter().all(|l| lines.binary_search(l).is_ok()) {
                return Some(format!("{name}: does not hold every accepted instance of its target"));
            }
            let target = ptx_toolchain::target_of(&source).expect("a .target");
            let module = match ptx_opt::parse(&source) {
                Ok(m) => m,
                Err(e) => return Some(format!("{name}: does not parse: {e}")),
            };
            if ptx_opt::print(&module) != source {
                return Some(format!("{name}: does not print back identically"));
            }
            let compile = |text: &str| corpus::toolchain().compile(text, &target, &[]);
            let original = match compile(&source) {
                Ok(c) => c,
                Err(e) => return Some(format!("{name}: ptxas rejects the generated module: {e}")),
            };
            match compile(&ptx_ir::print::print_module_canonical(&module)) {
                Ok(cubin) if cubin == original => None,
                Ok(cubin)
                    if crate::round_trip::text_sections(&cubin) == crate::round_trip::text_sections(&original) =>
                {
                    Some(format!("{name}: the canonical print changes the cubin (not the machine code)"))
                }
                Ok(_) => Some(format!("{name}: the canonical print changes the machine code")),
                Err(e) => Some(format!("{name}: ptxas rejects the canonical print: {e}")),
            }
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every accepted instance that is valid at an older `.version` than its
/// template's (`ptx_opt::version::lowest_version`), written at that version
/// (instances that lower alike compiled together): ptxas accepts it and
/// gives the same machine code as at the template's version.
#[test]
fn instances_valid_at_an_older_version_lower_to_the_same_code() {
    let template = read("template.ptx");
    let all = instances();
    // Key: target, version, lowest version, instruction file (the generator
    // compiles one file's instances together).
    type Key = (String, String, String, String);
    let lowered: Vec<(Key, &str)> = all
        .par_iter()
        .filter(|i| i.accepted)
        .filter_map(|inst| {
            let module = ptx_opt::parse(&module_of(&template, inst)).expect("an accepted instance parses");
            let lowest = ptx_opt::version::lowest_version(&module).version;
            (lowest < module.version).then(|| {
                let lowest = format!("{}.{}", lowest.0, lowest.1);
                ((inst.target.clone(), inst.version.clone(), lowest, inst.file.clone()), inst.line.as_str())
            })
        })
        .collect();
    let mut groups: BTreeMap<Key, Vec<&str>> = BTreeMap::new();
    for (key, line) in &lowered {
        groups.entry(key.clone()).or_default().push(line);
    }
    let failures: Vec<String> = groups
        .par_iter()
        .filter_map(|((target, version, lowest, file), lines)| {
            let at = |v: &str| {
                template.replace("@VERSION@", v).replace("@TARGET@", target).replace("@INSTANCES@", &lines.join("\n"))
            };
            let module = ptx_opt::parse(&at(version)).expect("accepted instances parse together");
            let written = ptx_opt::version::lowest_version(&module).version;
            if format!("{}.{}", written.0, written.1) != *lowest {
                return Some(format!("{file} {target} {version} -> {lowest}: together they need {written:?}"));
            }
            let same_code = |lines: &[&str]| {
                let at = |v: &str| {
                    template
                        .replace("@VERSION@", v)
                        .replace("@TARGET@", target)
                        .replace("@INSTANCES@", &lines.join("\n"))
                };
                let compile = |text: &str| corpus::toolchain().compile(text, target, &[]);
                let original = compile(&at(version)).map_err(|e| (true, e.to_string()))?;
                match compile(&at(lowest)) {
                    Ok(c) if crate::round_trip::text_sections(&c) == crate::round_trip::text_sections(&original) => {
                        Ok(())
                    }
                    Ok(_) => Err((false, "the machine code differs".to_string())),
                    Err(e) => Err((false, format!("ptxas rejects it: {e}"))),
                }
            };
            match same_code(lines) {
                Ok(()) => None,
                // Instances ptxas will not take together (tcgen05's CTA
                // groups): one by one.
                Err((true, _)) => lines
                    .iter()
                    .find_map(|line| same_code(&[line]).err())
                    .map(|(_, e)| format!("{file} {target} {version} -> {lowest}: {e}")),
                Err((false, e)) => Some(format!("{file} {target} {version} -> {lowest}: {e}")),
            }
        })
        .collect();
    eprintln!("{} accepted instances lowered, in {} groups", lowered.len(), groups.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(lowered.len() >= 1000, "{} instances lowered", lowered.len());
}
