//! Pipeline texts as LLVM's `opt -passes=` writes them, and the target the
//! passes gate on.
//!
//! A pipeline text is a comma-separated list of steps: a pass name
//! (`fold-prmt`), a pass with options (`fold-byte-gathers<min-saving=1>`,
//! options separated by `;`), or a default pipeline (`default<O2>`; `O0` to
//! `O3` and `Os`, as the command line's `-O`). Spaces around steps are
//! ignored, and so are empty steps.

use crate::{Error, ErrorKind, PassSpec, MAX_LEVEL};
use ptx_pass::Pass;

/// The steps of a pipeline text, each a registered pass (with its options
/// as written), `default<ON>` expanded; [`ErrorKind::InvalidPipeline`] names
/// what is wrong, [`ErrorKind::UnknownPass`] a name that is not registered.
///
/// ```
/// let steps = ptx_opt::parse_pipeline("legalize-relaxed, default<O1>, fold-byte-gathers<min-saving=1>")?;
/// assert_eq!(steps, ["legalize-relaxed", "fold-prmt", "dce", "fold-byte-gathers<min-saving=1>"]);
/// assert!(ptx_opt::parse_pipeline("dce<aggressive>").is_err()); // dce takes no options
/// assert!(ptx_opt::parse_pipeline("default<O7>").is_err());
/// # Ok::<(), ptx_opt::Error>(())
/// ```
pub fn parse_pipeline(text: &str) -> Result<Vec<PassSpec>, Error> {
    let invalid = |message: String| Error { kind: ErrorKind::InvalidPipeline(message), diagnostics: Vec::new() };
    let mut steps = Vec::new();
    for step in split_steps(text).map_err(invalid)? {
        let step = step.trim();
        if step.is_empty() {
            continue;
        }
        let (name, options) = split_options(step).map_err(invalid)?;
        if name == "default" {
            let level = match options {
                Some("O0") => 0,
                Some("O1") => 1,
                Some("O2" | "O3" | "Os") => 2,
                _ => {
                    return Err(invalid(format!(
                        "'{step}': default<...> takes a level, O0 to O{MAX_LEVEL} (O3 and Os mean O2)"
                    )))
                }
            };
            steps.extend(ptx_passes::pipeline(level).iter().map(|&n| PassSpec::from(n)));
            continue;
        }
        check_step(name, options)?;
        steps.push(PassSpec::Named(step.to_string()));
    }
    Ok(steps)
}

/// The text split at the commas that are not inside `<...>`.
fn split_steps(text: &str) -> Result<Vec<&str>, String> {
    let mut steps = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    for (i, c) in text.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth = depth.checked_sub(1).ok_or_else(|| format!("'>' without '<' in '{text}'"))?,
            ',' if depth == 0 => {
                steps.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if depth != 0 {
        return Err(format!("'<' without '>' in '{text}'"));
    }
    steps.push(&text[start..]);
    Ok(steps)
}

/// `name<options>` as (name, Some(options)); `name` as (name, None).
fn split_options(step: &str) -> Result<(&str, Option<&str>), String> {
    let Some(open) = step.find('<') else {
        return Ok((step, None));
    };
    let inner = step[open + 1..]
        .strip_suffix('>')
        .filter(|inner| !inner.contains('<') && !inner.contains('>'))
        .ok_or_else(|| format!("'{step}': options are written NAME<OPTION;OPTION>"))?;
    Ok((step[..open].trim_end(), Some(inner)))
}

/// Checks a step against the registry: the name is registered and takes the options given.
fn check_step(name: &str, options: Option<&str>) -> Result<(), Error> {
    let Some(info) = ptx_passes::lookup(name) else {
        return Err(Error { kind: ErrorKind::UnknownPass(name.to_string()), diagnostics: Vec::new() });
    };
    match options {
        Some(options) => create_with_options(info, options)?,
        None => create_bare(info)?,
    };
    Ok(())
}

/// The pass of a registry entry named without options: through its option
/// parser when it takes options, so that a pass whose options are required
/// (`lower-ptx-version<to=X.Y>`) says so before anything runs.
fn create_bare(info: &ptx_pass::PassInfo) -> Result<Box<dyn Pass>, Error> {
    match info.create_with {
        Some(create) => create("").map_err(|e| Error {
            kind: ErrorKind::InvalidPipeline(format!("pass '{}' needs options: {e}", info.name)),
            diagnostics: Vec::new(),
        }),
        None => Ok((info.create)()),
    }
}

/// The pass of a registry entry made with `options`.
pub(crate) fn create_with_options(info: &ptx_pass::PassInfo, options: &str) -> Result<Box<dyn Pass>, Error> {
    let invalid = |message: String| Error { kind: ErrorKind::InvalidPipeline(message), diagnostics: Vec::new() };
    match info.create_with {
        Some(create) => create(options).map_err(|e| invalid(format!("{}<{options}>: {e}", info.name))),
        None => Err(invalid(format!("pass '{}' takes no options ('{}<{options}>')", info.name, info.name))),
    }
}

/// Makes the pass a pipeline step names (`NAME` or `NAME<OPTIONS>`).
pub(crate) fn create_named(step: &str) -> Result<Box<dyn Pass>, Error> {
    let invalid = |message: String| Error { kind: ErrorKind::InvalidPipeline(message), diagnostics: Vec::new() };
    let (name, options) = split_options(step.trim()).map_err(invalid)?;
    let Some(info) = ptx_passes::lookup(name) else {
        // The step Options::with_level puts in place of a level that does not exist.
        let kind = match name.strip_prefix("-O").and_then(|l| l.parse().ok()) {
            Some(level) => ErrorKind::UnknownLevel(level),
            None => ErrorKind::UnknownPass(name.to_string()),
        };
        return Err(Error { kind, diagnostics: Vec::new() });
    };
    match options {
        None => create_bare(info),
        Some(options) => create_with_options(info, options),
    }
}

/// Checks a target name given to [`crate::Options::target`]
/// ([`ptx_verify::Target::is_sm_name`]).
pub(crate) fn check_target(target: &str) -> Result<(), Error> {
    if ptx_verify::Target::is_sm_name(target) {
        Ok(())
    } else {
        Err(Error { kind: ErrorKind::InvalidTarget(target.to_string()), diagnostics: Vec::new() })
    }
}

/// `entries` (a `.target` directive's) with its `sm_`/`compute_` entry
/// replaced by `target`, or `target` first if it has none.
pub(crate) fn set_sm_target(entries: &mut Vec<String>, target: &str) {
    match entries.iter().position(|t| t.starts_with("sm_") || t.starts_with("compute_")) {
        Some(i) => entries[i] = target.to_string(),
        None => entries.insert(0, target.to_string()),
    }
}

/// `text` (a module printed from its source) with its header's `.target`
/// lines saying `entries`, when the last of them (ptxas accepts the line
/// repeated; the last counts) says something else; None when it says
/// `entries` already or the header is not plain (`.version`, `.target`,
/// with blank lines and `//` comments between them). `.target` directives
/// inside function bodies stay as written.
pub(crate) fn retarget_text(text: &str, entries: &[String]) -> Option<String> {
    // The header's `.target` lines: (offset, line).
    let mut targets: Vec<(usize, &str)> = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let directive = line.trim_start().split("//").next().unwrap_or("").trim_end();
        if directive.strip_prefix(".target").is_some_and(|r| r.starts_with([' ', '\t'])) {
            targets.push((offset, line));
        } else if !(directive.is_empty() || (directive.starts_with(".version") && targets.is_empty())) {
            break;
        }
        offset += line.len();
    }
    let says = |line: &str| {
        let written = line.trim_start().split("//").next().unwrap_or("").trim_end();
        let written = written.trim_start_matches(".target");
        written.split(',').map(str::trim).eq(entries.iter().map(String::as_str))
    };
    if targets.last().is_none_or(|(_, line)| says(line)) {
        return None;
    }
    let mut out = String::with_capacity(text.len() + 16 * targets.len());
    let mut copied = 0;
    for (at, line) in targets {
        out.push_str(&text[copied..at]);
        let trimmed = line.trim_start();
        out.push_str(&line[..line.len() - trimmed.len()]);
        out.push_str(".target ");
        out.push_str(&entries.join(", "));
        out.push_str(&line[line.trim_end_matches(['\r', '\n']).len()..]);
        copied = at + line.len();
    }
    out.push_str(&text[copied..]);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_and_options() {
        assert_eq!(parse_pipeline("").unwrap(), Vec::<PassSpec>::new());
        assert_eq!(parse_pipeline(" dce , ,fold-prmt").unwrap(), ["dce", "fold-prmt"]);
        assert_eq!(parse_pipeline("default<O3>").unwrap(), crate::pipeline(2));
        assert_eq!(parse_pipeline("default<Os>,dce").unwrap().len(), crate::pipeline(2).len() + 1);
        for bad in ["dce<", "dce>", "dce<x>", "default", "default<O9>", "fold-byte-gathers<min-saving=x>", "a<b<c>>"] {
            let err = parse_pipeline(bad).unwrap_err();
            assert!(matches!(err.kind, ErrorKind::InvalidPipeline(_)), "{bad}: {err:?}");
        }
        assert_eq!(parse_pipeline("nope").unwrap_err().kind, ErrorKind::UnknownPass("nope".into()));
        assert!(create_named("fold-byte-gathers<min-saving=0>").is_ok());
        assert!(create_named("fold-byte-gathers<speed=9>").is_err());
    }

    #[test]
    fn targets() {
        for ok in ["sm_70", "sm_90a", "sm_100f", "sm_120"] {
            assert!(check_target(ok).is_ok(), "{ok}");
        }
        for bad in ["sm70", "sm_", "sm_9", "sm_1000", "compute_80", "sm_80x", ""] {
            assert!(check_target(bad).is_err(), "{bad}");
        }
        let mut entries = vec!["sm_70".to_string(), "debug".to_string()];
        set_sm_target(&mut entries, "sm_90");
        assert_eq!(entries, ["sm_90", "debug"]);
        let text = "// c\n\n.version 8.0\n.target sm_70, debug // t\r\n.address_size 64\n.visible .entry k()\n{\n}\n";
        assert_eq!(
            retarget_text(text, &entries).unwrap(),
            "// c\n\n.version 8.0\n.target sm_90, debug\r\n.address_size 64\n.visible .entry k()\n{\n}\n"
        );
        assert_eq!(retarget_text(&text.replace("sm_70", "sm_90"), &entries), None);
        assert_eq!(retarget_text(".version 8.0\n.visible .entry k()\n.target x\n", &entries), None);
        // ptxas reads the last of repeated .target lines: every one says it.
        let repeated =
            ".version 8.0\n.target sm_70\n.target sm_75\n.address_size 64\n.entry k()\n{\n.target sm_75\n}\n";
        assert_eq!(retarget_text(&repeated.replace("sm_75\n.a", "sm_90, debug\n.a"), &entries), None);
        assert_eq!(
            retarget_text(repeated, &entries).unwrap(),
            ".version 8.0\n.target sm_90, debug\n.target sm_90, debug\n.address_size 64\n.entry k()\n{\n.target sm_75\n}\n"
        );
    }
}
