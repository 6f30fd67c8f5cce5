//! Rendering for people: diagnostics (through the library's renderer, which
//! the C ABI and JITs share), statistics and timings.

use ptx_opt::{Error, PassRun, RenderOptions};
use std::io::Write;

/// Writes an error to standard error.
pub fn diagnostics(file: &str, source: &str, error: &Error, options: &RenderOptions) {
    let _ = std::io::stderr().write_all(ptx_opt::render_error(file, source, error, options).as_bytes());
}

/// `--stats`
pub fn stats(out: &mut impl Write, run: &PassRun) {
    let _ = writeln!(out, "=== ptx-opt statistics ===");
    for p in &run.passes {
        if p.stats.counters.is_empty() {
            let _ = writeln!(out, "{:<20} (no rewrites)", p.name);
        }
        for (counter, v) in &p.stats.counters {
            let _ = writeln!(out, "{:<20} {v:>8} {:<20} {}", p.name, counter.id, counter.description);
        }
    }
}

/// `--time-passes`
pub fn times(out: &mut impl Write, run: &PassRun) {
    let _ = writeln!(out, "=== ptx-opt pass timing ===");
    let total: f64 = run.passes.iter().map(|p| p.time.as_secs_f64()).sum();
    for p in &run.passes {
        let _ = writeln!(out, "{:<20} {:>10.3} ms", p.name, p.time.as_secs_f64() * 1e3);
    }
    let _ = writeln!(out, "{:<20} {:>10.3} ms", "total", total * 1e3);
}
