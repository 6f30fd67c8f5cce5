//! Rendering for people: diagnostics (through the library's renderer, which
//! the C ABI and JITs share), statistics and timings.

use ptx_opt::{Error, PassRun, RenderOptions};
use std::io::Write;
use std::time::{Duration, Instant};

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

/// Wall time of each step of a run, in order.
#[derive(Default)]
pub struct Times {
    steps: Vec<(String, Duration)>,
}

impl Times {
    /// Runs `step`, adding its wall time under `name`.
    pub fn measure<T>(&mut self, name: &str, step: impl FnOnce() -> T) -> T {
        let start = Instant::now();
        let result = step();
        self.add(name, start.elapsed());
        result
    }

    pub fn add(&mut self, name: &str, time: Duration) {
        self.steps.push((name.to_string(), time));
    }
}

/// `--time-passes`: each step with its share of the total.
pub fn times(out: &mut impl Write, times: &Times) {
    let _ = writeln!(out, "=== ptx-opt timing ===");
    let total: f64 = times.steps.iter().map(|(_, t)| t.as_secs_f64()).sum();
    for (name, time) in &times.steps {
        let share = if total > 0.0 { 100.0 * time.as_secs_f64() / total } else { 0.0 };
        let _ = writeln!(out, "{name:<20} {:>10.3} ms {share:>6.1}%", time.as_secs_f64() * 1e3);
    }
    let _ = writeln!(out, "{:<20} {:>10.3} ms {:>6.1}%", "total", total * 1e3, 100.0);
}
