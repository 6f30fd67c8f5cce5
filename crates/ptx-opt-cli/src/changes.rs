//! `--check`, `--print-changed`, `--print-after` with `--filter-function`:
//! the pipeline run one pass at a time on a kept module, so that what each
//! pass changed can be shown function by function.
//!
//! A function counts as changed when its canonical print differs: a pass
//! that touched a function and left it as it was (or only the printer's
//! layout would differ) changes nothing a user can see, and comparing the
//! canonical texts keeps comments and spacing of the input out of the diffs.

use crate::render::Times;
use ptx_opt::ir::print::write_function;
use ptx_opt::{Error, Module, Options, PassRun};
use std::io::Write;

/// One function whose text a pass (or the pipeline) changed.
pub struct FunctionChange {
    pub name: String,
    pub before: String,
    pub after: String,
}

/// The functions of `after` whose canonical text differs from that of the
/// same function in `before` (the module before the pass: passes add and
/// remove no functions, so they pair by position; a name that does not pair
/// is compared with nothing).
pub fn changed_functions(before: &Module, after: &Module) -> Vec<FunctionChange> {
    let mut changes = Vec::new();
    let earlier: Vec<_> = before.functions.values().collect();
    for (position, func) in after.functions.values().enumerate() {
        if func.is_pristine() {
            continue;
        }
        let mut after_text = String::new();
        write_function(func, &mut after_text);
        let mut before_text = String::new();
        if let Some(old) = earlier.get(position).filter(|f| f.name == func.name) {
            write_function(old, &mut before_text);
        }
        if before_text != after_text {
            changes.push(FunctionChange { name: func.name.clone(), before: before_text, after: after_text });
        }
    }
    changes
}

/// What a stepwise run prints to standard error as it goes.
pub struct Observers<'a> {
    pub print_changed: bool,
    pub print_after: &'a [String],
    pub print_after_all: bool,
    /// Empty: every function.
    pub functions: &'a [String],
}

impl Observers<'_> {
    fn shows(&self, function: &str) -> bool {
        self.functions.is_empty() || self.functions.iter().any(|f| f == function)
    }

    fn prints_after(&self, pass: &str) -> bool {
        self.print_after_all || self.print_after.iter().any(|p| p == pass)
    }
}

/// Runs `options`' passes one at a time on `module` (the input is verified
/// once, before the first), printing diffs and dumps to `err` as each pass
/// finishes. The records are those of one run of the whole pipeline.
pub fn run_stepwise(
    module: &mut Module,
    options: &Options,
    observers: &Observers<'_>,
    times: &mut Times,
    err: &mut dyn Write,
) -> Result<PassRun, Error> {
    let mut run = PassRun::default();
    // The input check on its own, so that its time is its own.
    if !options.skip_verify {
        let verify_only = Options {
            passes: Vec::new(),
            print_after: Vec::new(),
            print_after_all: false,
            ptx_version: None,
            ..options.clone()
        };
        times.measure("verify", || ptx_opt::run_passes(module, &verify_only))?;
    }
    // The passes one by one, then (with --ptx-version or --cuda) the step
    // that lowers what needs more than the version asked and writes it.
    let steps = options.passes.iter().map(|pass| (vec![pass.clone()], None));
    let version_step = options.ptx_version.map(|version| (Vec::new(), Some(version)));
    for (passes, ptx_version) in steps.chain(version_step) {
        let step = Options {
            passes,
            skip_verify: true,
            print_after: Vec::new(),
            print_after_all: false,
            ptx_version,
            ..options.clone()
        };
        let before = observers.print_changed.then(|| module.clone());
        let record = ptx_opt::run_passes(module, &step)?;
        for record in &record.passes {
            times.add(record.name, record.time);
        }
        let Some(name) = record.passes.last().map(|p| p.name) else { continue };
        run.passes.extend(record.passes);
        if let Some(before) = before {
            for change in changed_functions(&before, module).iter().filter(|c| observers.shows(&c.name)) {
                let _ = err.write_all(unified_diff(name, change).as_bytes());
            }
        }
        if observers.prints_after(name) {
            let _ = err.write_all(dump(name, module, observers).as_bytes());
        }
    }
    Ok(run)
}

/// The unified diff of one function, headed by a PTX comment naming the pass.
pub fn unified_diff(pass: &str, change: &FunctionChange) -> String {
    let diff = similar::TextDiff::from_lines(&change.before, &change.after);
    let mut out = format!("// *** {pass} changed {} ***\n", change.name);
    out.push_str(
        &diff
            .unified_diff()
            .context_radius(3)
            .header(&format!("{} (before {pass})", change.name), &format!("{} (after {pass})", change.name))
            .to_string(),
    );
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// The module after `pass`, or only the chosen functions: PTX text whose
/// banner is a comment, so that a dump of a whole module can be fed back.
pub fn dump(pass: &str, module: &Module, observers: &Observers<'_>) -> String {
    let mut out = format!("// *** IR after {pass} ***\n");
    if observers.functions.is_empty() {
        out.push_str(&ptx_opt::print(module));
    } else {
        for func in module.functions.values().filter(|f| observers.shows(&f.name)) {
            write_function(func, &mut out);
            if !out.ends_with('\n') {
                out.push('\n');
            }
        }
    }
    out
}
