//! `--emit=cfg-dot` / `--emit=defuse-dot`: one graph per function (one file
//! each with `--dot-dir`, or a `--filter-function`), drawn by graphviz.
//!
//! Each graph is checked twice: parsed here (one `digraph` per file, every
//! edge between declared nodes, balanced braces), and rendered with
//! `dot -Tsvg`, which must succeed with nothing on standard error. CI has no
//! system graphviz, so scripts/test.sh installs graphviz-pure from PyPI
//! (scripts/fetch-graphviz.sh: graphviz's `dot` command line ported to Rust,
//! Graphviz 16.1.0's layout, one static executable; about 5 s and a 6 MB
//! download the first time) and hands it over as `$PTX_OPT_DOT`; [`renderer`]
//! says what else is used. With no renderer the test fails in CI; elsewhere
//! (a bare `cargo test` on a machine without graphviz that never ran
//! scripts/test.sh) it only parses, and says so on the test output.
//!
//! The def-use graph of a 100-instruction kernel must lay out as a readable
//! page: one box per instruction, top to bottom, no wider than a screen.
//! Both renderers measure it alike (graphviz 2.43: 601 x 7834 pt;
//! graphviz-pure 0.2.2: 609 x 7910 pt), since the labels are in Courier,
//! whose metrics every graphviz has.

use crate::{ptx_opt, stderr_of, testdata};
use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::Path;
use std::process::{Command, Stdio};

/// A straight-line kernel of `n` instructions whose values feed the next
/// few instructions (chains, as real kernels have).
fn kernel(n: usize) -> String {
    let mut out = String::from(
        ".version 8.0\n.target sm_80\n.address_size 64\n\n.visible .entry k100(.param .u64 out, .param .u32 n)\n{\n\
         \t.reg .b32 %r<200>;\n\t.reg .b64 %rd<4>;\n\tld.param.u64 %rd1, [out];\n\tld.param.u32 %r1, [n];\n\tmov.u32 %r2, %tid.x;\n",
    );
    let ops = ["add.s32", "xor.b32", "mul.lo.s32", "sub.s32", "and.b32", "shl.b32"];
    let mut k = 3;
    while k < n - 3 {
        let op = ops[k % ops.len()];
        let b = if k % 3 != 0 { k - 2 } else { k.saturating_sub(7).max(1) };
        if op == "shl.b32" {
            out.push_str(&format!("\t{op} %r{k}, %r{}, {};\n", k - 1, k % 7 + 1));
        } else {
            out.push_str(&format!("\t{op} %r{k}, %r{}, %r{b};\n", k - 1));
        }
        k += 1;
    }
    out.push_str(&format!("\tcvta.to.global.u64 %rd2, %rd1;\n\tst.global.u32 [%rd2], %r{};\n\tret;\n}}\n", k - 1));
    out
}

/// What a DOT file holds, read the way graphviz reads these simple ones.
struct Dot {
    /// `digraph NAME {` (the def-use graph names its function; petgraph's
    /// control-flow graph is `digraph {`).
    name: Option<String>,
    nodes: BTreeSet<String>,
    edges: Vec<(String, String)>,
}

/// Parses one `digraph NAME { ... }` as ptx-opt writes it: statements one
/// per line (`;` at the end optional, as in DOT); node statements
/// `ID [..]`, edges `A -> B [..]`.
fn parse_dot(text: &str) -> Dot {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with("//"));
    let head = lines.next().expect("a digraph line");
    let name = head
        .strip_prefix("digraph")
        .and_then(|r| r.strip_suffix('{'))
        .unwrap_or_else(|| panic!("not a digraph header: {head:?}"))
        .trim()
        .trim_matches('"');
    let name = (!name.is_empty()).then(|| name.to_string());
    let mut nodes = BTreeSet::new();
    let mut edges = Vec::new();
    let mut closed = false;
    for line in lines {
        assert!(!closed, "text after the closing brace: {line:?}");
        let line = line.trim();
        if line == "}" {
            closed = true;
            continue;
        }
        assert!(line.ends_with(';') || line.ends_with(']'), "not a statement: {line:?}");
        let stmt = line.split(" [").next().expect("a statement").trim_end_matches(';').trim();
        if matches!(stmt, "graph" | "node" | "edge") {
            continue;
        }
        if let Some((from, to)) = stmt.split_once(" -> ") {
            edges.push((from.trim().to_string(), to.trim().to_string()));
        } else {
            nodes.insert(stmt.trim().to_string());
        }
    }
    assert!(closed, "no closing brace");
    for (from, to) in &edges {
        // A CFG edge may name a block before its statement; every edge end
        // must be a declared node.
        assert!(nodes.contains(from) && nodes.contains(to), "edge {from} -> {to} between undeclared nodes");
    }
    Dot { name, nodes, edges }
}

/// The graphviz `dot` that renders the graphs, first found of:
/// `$PTX_OPT_DOT` (scripts/test.sh sets it to what
/// scripts/fetch-graphviz.sh installed); graphviz-pure in the workspace's
/// `.cache/graphviz` (left there by an earlier scripts/test.sh); `dot` on
/// the PATH. None when there is none, outside CI only: in CI (`$CI` set, as
/// .ci/run has it) a missing renderer fails the test.
fn renderer() -> Option<OsString> {
    if let Some(dot) = std::env::var_os("PTX_OPT_DOT").filter(|d| !d.is_empty()) {
        return Some(dot);
    }
    let cached = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.cache/graphviz/venv/bin/graphviz-pure");
    if cached.is_file() {
        return Some(cached.into_os_string());
    }
    match Command::new("dot").arg("-V").stdin(Stdio::null()).output() {
        Ok(_) => Some("dot".into()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let ci = std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "false" && v != "0");
            assert!(
                !ci,
                "CI must render the graphs, and there is no graphviz: run the tests with scripts/test.sh \
                 (it installs graphviz-pure with scripts/fetch-graphviz.sh and sets PTX_OPT_DOT)"
            );
            None
        }
        Err(e) => panic!("dot -V: {e}"),
    }
}

/// `dot -Tsvg` of `file` (with [`renderer`]): the drawing's (width, height)
/// in points, or None when no renderer is there (outside CI only).
fn render(file: &Path) -> Option<(f64, f64)> {
    let Some(dot) = renderer() else {
        println!("graphviz's dot is not installed and PTX_OPT_DOT is not set: {} parsed, not rendered", file.display());
        return None;
    };
    let output = Command::new(&dot)
        .arg("-Tsvg")
        .arg(file)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", dot.to_string_lossy()));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stderr.trim().is_empty(),
        "{} -Tsvg {}: {stderr}",
        dot.to_string_lossy(),
        file.display()
    );
    let svg = String::from_utf8_lossy(&output.stdout);
    let size = |attr: &str| -> f64 {
        let at = svg.find("<svg width=\"").expect("an <svg> element");
        let rest = &svg[at..];
        let start = rest.find(&format!("{attr}=\"")).expect("a size") + attr.len() + 2;
        let value = &rest[start..];
        value[..value.find("pt\"").expect("a size in points")].parse().expect("a number")
    };
    let (width, height) = (size("width"), size("height"));
    println!("{}: {width} x {height} pt ({})", file.display(), dot.to_string_lossy());
    Some((width, height))
}

#[test]
fn dot_dir_writes_one_renderable_file_per_function() {
    let input = testdata("passes").join("fold-dot-shuffles").join("dp2a-modes.ptx");
    let input = input.to_str().expect("UTF-8 path");
    let functions =
        ["dp2a_swapped_halves_and_bytes", "dp2a_lo_of_high_bytes_is_hi", "trap_dp2a_halves_swapped_bytes_not"];
    for (emit, suffix) in [("--emit=cfg-dot", "cfg.dot"), ("--emit=defuse-dot", "defuse.dot")] {
        let dir = tempfile::tempdir().expect("scratch directory");
        let output = ptx_opt(dir.path(), &[emit, "--dot-dir=graphs", input], b"");
        assert_eq!(output.status.code(), Some(0), "{}", stderr_of(&output));
        assert!(output.stdout.is_empty(), "with --dot-dir nothing goes to standard output");
        let mut written: Vec<String> = std::fs::read_dir(dir.path().join("graphs"))
            .expect("the directory was made")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        written.sort();
        let mut expected: Vec<String> = functions.iter().map(|f| format!("{f}.{suffix}")).collect();
        expected.sort();
        assert_eq!(written, expected, "{emit}");
        for function in functions {
            let file = dir.path().join("graphs").join(format!("{function}.{suffix}"));
            let dot = parse_dot(&std::fs::read_to_string(&file).expect("readable"));
            if suffix == "defuse.dot" {
                assert_eq!(dot.name.as_deref(), Some(function));
            }
            assert!(!dot.nodes.is_empty() && !dot.edges.is_empty(), "{emit} {function}: an empty graph");
            render(&file);
        }
        // A function filter: only that function's graph.
        let dir = tempfile::tempdir().expect("scratch directory");
        let output = ptx_opt(dir.path(), &[emit, "--filter-function=dp2a_lo_of_high_bytes_is_hi", input], b"");
        assert_eq!(output.status.code(), Some(0), "{}", stderr_of(&output));
        let text = String::from_utf8(output.stdout).expect("UTF-8");
        assert_eq!(text.matches("digraph ").count(), 1, "{text}");
        std::fs::write(dir.path().join("one.dot"), &text).expect("writable");
        assert!(text.starts_with("// function dp2a_lo_of_high_bytes_is_hi\n"), "{text}");
        parse_dot(&text);
        render(&dir.path().join("one.dot"));
    }
    // --dot-dir without a graph is a usage error.
    let dir = tempfile::tempdir().expect("scratch directory");
    let output = ptx_opt(dir.path(), &["--dot-dir=graphs", input], b"");
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr_of(&output).contains("--dot-dir needs --emit"), "{}", stderr_of(&output));
}

#[test]
fn def_use_graph_of_a_100_instruction_kernel_is_readable() {
    let dir = tempfile::tempdir().expect("scratch directory");
    let source = kernel(100);
    let instructions = source.lines().filter(|l| l.starts_with('\t') && !l.contains(".reg")).count();
    assert_eq!(instructions, 100);
    std::fs::write(dir.path().join("k100.ptx"), &source).expect("writable");
    let output = ptx_opt(dir.path(), &["--emit=defuse-dot", "--dot-dir=g", "k100.ptx"], b"");
    assert_eq!(output.status.code(), Some(0), "{}", stderr_of(&output));
    let file = dir.path().join("g").join("k100.defuse.dot");
    let text = std::fs::read_to_string(&file).expect("the graph was written");
    let dot = parse_dot(&text);
    // One box per instruction (and ENTRY for the values from outside).
    assert_eq!(dot.nodes.iter().filter(|n| n.starts_with('i')).count(), 100);
    // Each definition joined to the instructions that read it: the chain
    // k-1 -> k of every arithmetic instruction is there.
    let edges: BTreeSet<(String, String)> = dot.edges.iter().cloned().collect();
    for k in 3..97 {
        // Node i{n} is the n-th instruction; %r{k} is written by i{k} and read by i{k+1}.
        let (def, user) = (format!("i{}", k - 1), format!("i{k}"));
        assert!(edges.contains(&(def.clone(), user.clone())), "no edge {def} -> {user}");
    }
    assert!(dot.edges.len() < 4 * 100, "about one or two edges per instruction, not {}", dot.edges.len());
    if let Some((width, height)) = render(&file) {
        // Top to bottom in program order: tall and at most a screen wide
        // (the first def-use drawings were a 13,000 x 155 px row).
        assert!(width < 1500.0, "{width} x {height} pt: too wide to read");
        assert!(height > width, "{width} x {height} pt: not laid out top to bottom");
        assert!(height < 100.0 * 100.0, "{width} x {height} pt: boxes too far apart");
    }
}

/// A label that names a `.callprototype` is not code: a straight-line
/// kernel that declares one for an indirect call is one block.
#[test]
fn a_call_prototype_starts_no_block() {
    let source = "\
.version 8.0
.target sm_80
.address_size 64

.visible .entry k(.param .u64 p)
{
\t.reg .b32 %r<3>;
\t.reg .b64 %rd<3>;
\tld.param.u64 %rd1, [p];
\tmov.u32 %r1, 7;
\t{
\t.param .b32 param0;
\tst.param.b32 [param0], %r1;
\t.param .b32 retval0;
\tprototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _);
\tcall (retval0), %rd1, (param0), prototype_0;
\tld.param.b32 %r2, [retval0];
\t}
\tcvta.to.global.u64 %rd2, %rd1;
\tst.global.u32 [%rd2], %r2;
\tret;
}
";
    let dir = tempfile::tempdir().expect("scratch directory");
    let output = ptx_opt(dir.path(), &["--emit=cfg-dot", "-"], source.as_bytes());
    assert_eq!(output.status.code(), Some(0), "{}", stderr_of(&output));
    let text = String::from_utf8(output.stdout).expect("UTF-8");
    let dot = parse_dot(&text);
    // entry, exit and one block.
    assert_eq!(dot.nodes.len(), 3, "{text}");
    assert_eq!(text.matches("block").count(), 1, "{text}");
}
