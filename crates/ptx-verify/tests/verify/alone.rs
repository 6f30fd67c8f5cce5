//! One instruction line alone in the ISA sweep's template
//! (`testdata/isa-sweep/template.ptx`, its `.version` and `.target`
//! substituted), parsed and verified: how the ISA sweep and the
//! form-mutation set both put a case to the verifier, the way their
//! generators put it to ptxas. A parse error counts as a rejection.

use crate::{line_of, repo_root};
use ptx_ir::Diagnostic;

/// The template, split where the instruction goes.
pub struct Template {
    head: String,
    tail: String,
}

/// What the verifier said of one case.
pub struct Judged {
    /// Parser or verifier reported an error.
    pub rejected: bool,
    /// One of the errors is on the case's own line.
    pub on_line: bool,
    /// The first error, `line N: message` (empty if none).
    pub first_error: String,
}

impl Template {
    pub fn load() -> Template {
        let path = repo_root().join("testdata/isa-sweep/template.ptx");
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        let (head, tail) = text.split_once("@INSTANCES@").expect("the template has @INSTANCES@");
        Template { head: head.to_string(), tail: tail.to_string() }
    }

    /// Judges `line` alone in the template under `.version version` and
    /// `.target target`.
    pub fn judge(&self, version: &str, target: &str, line: &str) -> Judged {
        let subst = |s: &str| s.replace("@VERSION@", version).replace("@TARGET@", target);
        let head = subst(&self.head);
        let own_line = head.matches('\n').count() + 1;
        let source = format!("{head}{line}{}", subst(&self.tail));
        let errors = diagnose(&source);
        Judged {
            rejected: !errors.is_empty(),
            on_line: errors.iter().any(|d| line_of(&source, d.span.start) == own_line),
            first_error: errors
                .first()
                .map(|d| format!("line {}: {}", line_of(&source, d.span.start), d.message))
                .unwrap_or_default(),
        }
    }
}

/// What the parser or the verifier says of `source`: empty if valid.
pub fn diagnose(source: &str) -> Vec<Diagnostic> {
    match ptx_parse::parse(source) {
        Ok(module) => crate::verify(&module),
        Err(errors) => errors,
    }
}

/// `judge` of every case, on a few threads (the cases are independent), in
/// order.
pub fn judge_all<T: Sync>(cases: &[T], judge: impl Fn(&T) -> Judged + Sync) -> Vec<Judged> {
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 4);
    let chunk = cases.len().div_ceil(workers).max(1);
    let judge = &judge;
    std::thread::scope(|s| {
        let handles: Vec<_> =
            cases.chunks(chunk).map(|part| s.spawn(move || part.iter().map(judge).collect::<Vec<_>>())).collect();
        handles.into_iter().flat_map(|h| h.join().expect("worker")).collect()
    })
}

/// A verdict column of the generators' tables: `accepted` or `rejected`.
pub fn accepted(column: &str, row: &str) -> bool {
    match column {
        "accepted" => true,
        "rejected" => false,
        v => panic!("unknown verdict {v} in {row}"),
    }
}

/// ptxas's message without its quoted specifics (`'_'`), to group misses.
pub fn without_quoted(message: &str) -> String {
    message.split('\'').step_by(2).collect::<Vec<_>>().join("'_'")
}
