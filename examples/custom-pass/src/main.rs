//! `custom-pass FILE.ptx`: runs the registered `fold-prmt` pass, then the
//! example's own `fold-int-identities`, through `ptx_opt::optimize`, and
//! writes the optimized PTX to standard output.
//!
//! Exit codes: 0 success; 1 invalid input (each diagnostic on standard error
//! as `FILE:LINE:COL: error: MESSAGE`, then the source line and a caret);
//! 2 usage (no file, unreadable file, output not written).

use custom_pass::FoldIntIdentities;
use ptx_opt::{Error, LineIndex, Options};
use std::io::Write;
use std::process::ExitCode;

const USAGE: &str = "usage: custom-pass FILE.ptx";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [file] = args.as_slice() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    if file == "-h" || file == "--help" {
        println!("{USAGE}\nRuns fold-prmt, then fold-int-identities, and prints the optimized PTX.");
        return ExitCode::SUCCESS;
    }
    let source = match std::fs::read_to_string(file) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("custom-pass: cannot read {file}: {e}");
            return ExitCode::from(2);
        }
    };
    let options = Options::with_passes(["fold-prmt"]).with_function_pass(FoldIntIdentities);
    match ptx_opt::optimize(&source, &options) {
        Ok(out) => {
            let mut stdout = std::io::stdout().lock();
            if let Err(e) = stdout.write_all(out.ptx.as_bytes()).and_then(|()| stdout.flush()) {
                eprintln!("custom-pass: cannot write the output: {e}");
                return ExitCode::from(2);
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprint!("{}", render(file, &source, &error));
            ExitCode::from(1)
        }
    }
}

/// `FILE:LINE:COL: error: MESSAGE`, the source line and a caret under the
/// column, for each diagnostic (or one line if the error has none).
fn render(file: &str, source: &str, error: &Error) -> String {
    if error.diagnostics.is_empty() {
        return format!("{file}: error: {error}\n");
    }
    let index = LineIndex::new(source);
    let mut out = String::new();
    for d in &error.diagnostics {
        let (line, col) = index.line_col(source, d.span.start as usize);
        out.push_str(&format!("{file}:{line}:{col}: error: {}\n", d.message));
        if d.span.is_synthetic() && !matches!(error.kind, ptx_opt::ErrorKind::Parse) {
            continue; // code a pass made: no place in the input to show
        }
        let text = index.line_text(source, line);
        // Keep tabs so the caret lines up under the column.
        let pad: String = text.chars().take(col - 1).map(|c| if c == '\t' { '\t' } else { ' ' }).collect();
        out.push_str(&format!("{text}\n{pad}^\n"));
    }
    out
}
