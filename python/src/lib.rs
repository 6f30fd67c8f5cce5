//! `ptx_opt._native`: the Rust side of the Python package `ptx_opt`.
//!
//! Thin on purpose: it converts arguments, releases the GIL around
//! [`ptx_opt::optimize`] and hands back plain tuples, lists and dicts; the
//! Python package (`ptx_opt/__init__.py`) wraps them in typed classes and
//! turns `_Failure` into `PtxError` / `ValueError` / `RuntimeError`.

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::Arc;
use std::time::Instant;

create_exception!(
    _native,
    _Failure,
    PyException,
    "Raised by the native module with (kind, rendered, diagnostics, detail); ptx_opt re-raises it as PtxError, \
     ValueError or RuntimeError."
);

/// One remark, located: (line, col, pass, function, demangled function, message).
type RemarkRow = (usize, usize, &'static str, String, Option<String>, String);
/// One diagnostic, located: (line, col, end_line, end_col, message, notes),
/// a note as (line, col, message).
type DiagnosticRow = (usize, usize, usize, usize, String, Vec<(usize, usize, String)>);

/// What a successful run hands to Python: (ptx, changed, stats, remarks),
/// stats as (pass, [(counter, value)]) in pipeline order.
type RunRows = (String, bool, Vec<(&'static str, Vec<(&'static str, u64)>)>, Vec<RemarkRow>);

/// The arguments of `optimize` that make [`ptx_opt::Options`].
struct Args {
    passes: Option<Vec<String>>,
    level: Option<u8>,
    verify: bool,
    target: Option<String>,
    set_target: bool,
    threads: Option<usize>,
    ptx_version: Option<String>,
    cuda: Option<String>,
    accept_newer_forms: bool,
}

fn options(args: Args) -> PyResult<ptx_opt::Options> {
    let Args { passes, level, verify, target, set_target, threads, ptx_version, cuda, accept_newer_forms } = args;
    let ptx_version = match (ptx_version, cuda) {
        (Some(_), Some(_)) => return Err(PyValueError::new_err("give ptx_version or cuda, not both")),
        (Some(v), None) => Some(ptx_opt::version::PtxVersion::parse(&v).ok_or_else(|| {
            PyValueError::new_err(format!("ptx_version takes \"min\" or a version ptxas knows (\"7.8\"), not '{v}'"))
        })?),
        (None, Some(c)) => {
            Some(ptx_opt::version::PtxVersion::for_cuda(&c).ok_or_else(|| {
                PyValueError::new_err(format!("cuda takes a CUDA release such as \"12.4\", not '{c}'"))
            })?)
        }
        (None, None) => None,
    };
    if set_target && target.is_none() {
        return Err(PyValueError::new_err("set_target needs a target"));
    }
    let mut options = match (passes, level) {
        (Some(_), Some(_)) => return Err(PyValueError::new_err("give passes or level, not both")),
        (Some(passes), None) => {
            // Each entry is a step of a pipeline text, as `--passes` takes
            // (`"dce"`, `"fold-byte-gathers<min-saving=1>"`, `"default<O2>"`),
            // checked here, before any work, as the command line does.
            let mut steps = Vec::with_capacity(passes.len());
            for step in &passes {
                if step.contains(',') {
                    return Err(PyValueError::new_err(format!("'{step}': one pipeline step per list entry")));
                }
                steps.extend(ptx_opt::parse_pipeline(step).map_err(|e| match e.kind {
                    ptx_opt::ErrorKind::UnknownPass(unknown) => PyValueError::new_err(format!(
                        "unknown pass '{unknown}' (registered: {})",
                        ptx_opt::passes().iter().map(|k| k.name).collect::<Vec<_>>().join(", ")
                    )),
                    _ => PyValueError::new_err(e.to_string()),
                })?);
            }
            ptx_opt::Options::with_passes(steps)
        }
        (None, Some(level)) => {
            ptx_opt::Options::try_with_level(level).map_err(|e| PyValueError::new_err(e.to_string()))?
        }
        (None, None) => ptx_opt::Options::default(),
    };
    options.skip_verify = !verify;
    options.accept_newer_forms = accept_newer_forms;
    options.threads = threads;
    options.target = target;
    options.set_target = set_target;
    options.ptx_version = ptx_version;
    Ok(options)
}

fn failure(file: &str, source: &str, error: ptx_opt::Error) -> PyErr {
    let index = ptx_opt::LineIndex::new(source);
    // Synthesized code has no place in the input (line 0), except in the
    // parser's errors, where 0..0 is the start of the file.
    let locate = |span: ptx_opt::Span| {
        if span.is_synthetic() && error.kind != ptx_opt::ErrorKind::Parse {
            return ((0, 0), (0, 0));
        }
        let start = index.line_col(source, span.start as usize);
        (start, index.line_col(source, (span.end as usize).max(span.start as usize)))
    };
    let rows: Vec<DiagnosticRow> = error
        .diagnostics
        .iter()
        .map(|d| {
            let ((line, col), (end_line, end_col)) = locate(d.span);
            let notes = d
                .notes
                .iter()
                .map(|n| {
                    let ((line, col), _) = locate(n.span);
                    (line, col, n.message.clone())
                })
                .collect();
            (line, col, end_line, end_col, d.message.clone(), notes)
        })
        .collect();
    // What the `ptx-opt` tool prints: `FILE:LINE:COL: error: MESSAGE`, the
    // source line with carets, notes; at most DEFAULT_ERROR_LIMIT of them.
    let rendered = ptx_opt::render_error(file, source, &error, &ptx_opt::RenderOptions::default());
    let rendered = rendered.trim_end().to_string();
    let (kind, detail) = match &error.kind {
        ptx_opt::ErrorKind::Parse => ("parse", String::new()),
        ptx_opt::ErrorKind::InvalidInput => ("invalid-input", String::new()),
        ptx_opt::ErrorKind::Pass(p) => ("pass", p.clone()),
        ptx_opt::ErrorKind::BrokeIr(p) => ("broke-ir", p.clone()),
        ptx_opt::ErrorKind::UnknownPass(p) => ("unknown-pass", p.clone()),
        ptx_opt::ErrorKind::Threads(e) => ("threads", e.clone()),
        ptx_opt::ErrorKind::UnknownLevel(_) => ("unknown-level", String::new()),
        ptx_opt::ErrorKind::InvalidTarget(_) => ("invalid-target", String::new()),
        ptx_opt::ErrorKind::NeedsTarget(header) => ("needs-target", header.clone()),
        ptx_opt::ErrorKind::NeedsVersion(version) => ("needs-version", version.clone()),
        // A kind added to the library after this binding: its message says what.
        _ => ("other", error.to_string()),
    };
    _Failure::new_err((kind, rendered, rows, detail))
}

fn run(source: &Arc<str>, options: &ptx_opt::Options) -> Result<RunRows, ptx_opt::Error> {
    let out = ptx_opt::optimize_shared(source.clone(), options)?;
    let changed = out.run.passes.iter().any(|p| p.changed);
    let stats =
        out.run.passes.iter().map(|p| (p.name, p.stats.counters.iter().map(|(c, n)| (c.id, *n)).collect())).collect();
    let mut remarks = Vec::new();
    if out.run.passes.iter().any(|p| !p.stats.remarks.is_empty()) {
        let index = ptx_opt::LineIndex::new(source);
        for remark in out.run.passes.iter().flat_map(|p| &p.stats.remarks) {
            let (line, col) =
                if remark.span.is_synthetic() { (0, 0) } else { index.line_col(source, remark.span.start as usize) };
            let demangled = ptx_opt::demangle(&remark.function);
            remarks.push((line, col, remark.pass, remark.function.clone(), demangled, remark.message.clone()));
        }
    }
    Ok((out.ptx, changed, stats, remarks))
}

/// Runs the passes on `ptx` with the GIL released. Returns (ptx, changed,
/// stats, remarks); stats is {pass: {counter: value}} (counters of a pass
/// listed twice are summed), remarks are (line, col, pass, function,
/// demangled function, message).
#[pyfunction]
#[pyo3(signature = (ptx, passes=None, level=None, verify=true, target=None, set_target=false, threads=None, source_name="<input>", ptx_version=None, cuda=None, accept_newer_forms=false))]
#[allow(clippy::type_complexity, clippy::too_many_arguments)]
fn optimize<'py>(
    py: Python<'py>,
    ptx: &str,
    passes: Option<Vec<String>>,
    level: Option<u8>,
    verify: bool,
    target: Option<String>,
    set_target: bool,
    threads: Option<usize>,
    source_name: &str,
    ptx_version: Option<String>,
    cuda: Option<String>,
    accept_newer_forms: bool,
) -> PyResult<(String, bool, Bound<'py, PyDict>, Vec<RemarkRow>)> {
    let options =
        options(Args { passes, level, verify, target, set_target, threads, ptx_version, cuda, accept_newer_forms })?;
    let source: Arc<str> = Arc::from(ptx);
    let result = py.detach(|| run(&source, &options));
    let (text, changed, stats, remarks) = match result {
        Ok(rows) => rows,
        Err(error) => return Err(failure(source_name, &source, error)),
    };
    let dict = PyDict::new(py);
    for (pass, counters) in stats {
        let entry = match dict.get_item(pass)? {
            Some(existing) => existing.cast_into::<PyDict>()?,
            None => {
                let d = PyDict::new(py);
                dict.set_item(pass, &d)?;
                d
            }
        };
        for (id, n) in counters {
            let before: u64 = entry.get_item(id)?.map(|v| v.extract()).transpose()?.unwrap_or(0);
            entry.set_item(id, before + n)?;
        }
    }
    Ok((text, changed, dict, remarks))
}

/// Registered passes: [(name, description)], alphabetically.
#[pyfunction]
fn passes() -> Vec<(&'static str, &'static str)> {
    ptx_opt::passes().into_iter().map(|p| (p.name, p.description)).collect()
}

/// The pass names of an optimization level's default pipeline.
#[pyfunction]
fn pipeline(level: u8) -> PyResult<Vec<&'static str>> {
    if level > ptx_opt::MAX_LEVEL {
        let error = ptx_opt::Error { kind: ptx_opt::ErrorKind::UnknownLevel(level), diagnostics: Vec::new() };
        return Err(PyValueError::new_err(error.to_string()));
    }
    Ok(ptx_opt::pipeline(level).to_vec())
}

/// For the overhead benchmark: seconds each of `iterations` runs of
/// `ptx_opt::optimize` takes in Rust alone (no conversion to or from
/// Python objects), with the GIL released.
#[pyfunction]
#[pyo3(signature = (ptx, passes=None, level=None, verify=true, threads=None, iterations=1))]
fn _time_rust(
    py: Python<'_>,
    ptx: &str,
    passes: Option<Vec<String>>,
    level: Option<u8>,
    verify: bool,
    threads: Option<usize>,
    iterations: usize,
) -> PyResult<Vec<f64>> {
    let options = options(Args {
        passes,
        level,
        verify,
        target: None,
        set_target: false,
        threads,
        ptx_version: None,
        cuda: None,
        accept_newer_forms: false,
    })?;
    py.detach(|| {
        (0..iterations)
            .map(|_| {
                let start = Instant::now();
                // The output is dropped inside the timing, as a Python caller's is.
                drop(std::hint::black_box(ptx_opt::optimize(ptx, &options)?));
                Ok(start.elapsed().as_secs_f64())
            })
            .collect::<Result<Vec<f64>, ptx_opt::Error>>()
    })
    .map_err(|e| failure("<bench>", ptx, e))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(optimize, m)?)?;
    m.add_function(wrap_pyfunction!(passes, m)?)?;
    m.add_function(wrap_pyfunction!(pipeline, m)?)?;
    m.add_function(wrap_pyfunction!(_time_rust, m)?)?;
    m.add("_Failure", m.py().get_type::<_Failure>())?;
    m.add("LIBRARY_VERSION", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
