//! The verifier measured against ptxas on cases made from the ISA text that
//! nobody tuned it on: the form-mutation set
//! (`testdata/form-mutations/mutants.tsv`, made by
//! `scripts/form-mutations/generate.py`): accepted instances of every syntax
//! family with one change each (a modifier swapped for another of its set,
//! one dropped, one added from another instruction, an optional operand
//! dropped or added), each with ptxas 13.5's verdict on it alone in the
//! ISA sweep's template.
//!
//! Two rules, as for the sweep: no case ptxas accepts is rejected (listed on
//! failure), and of those it rejects, the share caught does not fall below
//! [`CATCH_FLOOR_PERMILLE`]. `cargo test -p ptx-verify --test verify
//! form_mutations -- --nocapture` prints the table by kind and the missed
//! cases by ptxas's message.

use crate::alone::{self, Template};
use crate::repo_root;
use std::collections::BTreeMap;

/// Of the mutants ptxas rejects, the least share (in thousandths) we must
/// reject too. Measured: see the commit that last changed it (960: 3642 of
/// 3775, 0 of 2087 accepted ones rejected).
const CATCH_FLOOR_PERMILLE: usize = 960;

struct Mutant {
    family: String,
    kind: String,
    target: String,
    version: String,
    accepted: bool,
    line: String,
    message: String,
}

fn mutants() -> Vec<Mutant> {
    let path = repo_root().join("testdata/form-mutations/mutants.tsv");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let c: Vec<&str> = l.split('\t').collect();
            assert!(c.len() >= 7, "malformed row: {l}");
            Mutant {
                family: c[0].to_string(),
                kind: c[1].to_string(),
                target: c[2].to_string(),
                version: c[3].to_string(),
                accepted: alone::accepted(c[4], l),
                line: c[6].to_string(),
                message: c.get(7).unwrap_or(&"").to_string(),
            }
        })
        .collect()
}

#[derive(Default)]
struct Row {
    accepted: usize,
    false_rejects: usize,
    rejected: usize,
    caught: usize,
}

#[test]
fn verify_form_mutations_against_ptxas() {
    let template = Template::load();
    let all = mutants();
    assert!(all.len() >= 5000, "the set has {} mutants", all.len());
    let outcomes = alone::judge_all(&all, |m| template.judge(&m.version, &m.target, &m.line));
    let mut rows: BTreeMap<&str, Row> = BTreeMap::new();
    let mut false_rejects = Vec::new();
    let mut missed: BTreeMap<String, usize> = BTreeMap::new();
    for (m, out) in all.iter().zip(&outcomes) {
        let rejected = &out.rejected;
        for key in [m.kind.as_str(), "all"] {
            let row = rows.entry(key).or_default();
            if m.accepted {
                row.accepted += 1;
                row.false_rejects += *rejected as usize;
            } else {
                row.rejected += 1;
                row.caught += *rejected as usize;
            }
        }
        if m.accepted && *rejected {
            false_rejects.push(format!("{} {} {}: {}\n    {}", m.family, m.target, m.version, m.line, out.first_error));
        }
        if !m.accepted && !rejected {
            *missed.entry(alone::without_quoted(&m.message)).or_default() += 1;
        }
    }
    println!("verify against ptxas 13.5 on the form-mutation set ({} mutants):\n", all.len());
    println!("| kind | ptxas accepts | we reject of those | ptxas rejects | caught |\n|---|---:|---:|---:|---:|");
    for (kind, r) in &rows {
        println!(
            "| {kind} | {} | {} | {} | {} ({:.1}%) |",
            r.accepted,
            r.false_rejects,
            r.rejected,
            r.caught,
            100.0 * r.caught as f64 / r.rejected.max(1) as f64
        );
    }
    let mut by_message: Vec<(&String, &usize)> = missed.iter().collect();
    by_message.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    println!("\nmissed, by ptxas's message:");
    for (message, n) in by_message.iter().take(25) {
        println!("  {n:5} {message}");
    }
    assert!(
        false_rejects.is_empty(),
        "{} mutants ptxas accepts are rejected:\n{}",
        false_rejects.len(),
        false_rejects.join("\n")
    );
    let total = &rows["all"];
    let permille = total.caught * 1000 / total.rejected.max(1);
    assert!(
        permille >= CATCH_FLOOR_PERMILLE,
        "verify catches {permille}\u{2030} of what ptxas rejects in the form-mutation set, below the floor of \
         {CATCH_FLOOR_PERMILLE}\u{2030}"
    );
}
