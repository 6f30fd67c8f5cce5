//! The interpreter names modifier words by their `ptx_ir::Word` constants
//! (`Word::UNI`, `Word::L2__CACHE_HINT`) and opcodes by `ptx_ir::Opcode`,
//! never by their spelling: a misspelt or missing word is then a compile
//! error, not a test that silently answers "no".
//!
//! The check: no string literal in `crates/ptx-interp/src` is, without a
//! leading dot, a word of `ptx_ir::WORDS` or the name of an opcode. That
//! catches `Self::word(at, "uni")`, `&["uni", "sync"]`, `== "rn"` and
//! `"nc" | "ca"`, and lets messages through (`"shfl mode"` is not a word).
//! The few literals that are spelt like a word without being one are
//! listed in [`ALLOWED`], with why.

use ptx_ir::opcodes::OPCODES;
use ptx_ir::words::WORDS;
use std::path::{Path, PathBuf};

/// Literals spelt like a word or an opcode that are not modifiers: the
/// file (under `src/`), the literals, and why they may stay.
const ALLOWED: &[(&str, &[&str], &str)] = &[
    (
        "given.rs",
        &["u8", "b8", "u16", "b16", "u32", "b32", "u64", "b64", "s8", "s16", "s32", "s64", "f32", "f64"],
        "element types of the `given` input format (`buffer p = u32 1 2 3`), read from its text",
    ),
    ("given.rs", &["zero", "param", "shared"], "keywords of the `given` input format"),
    ("printf.rs", &["nan"], "what C's printf writes for a NaN"),
    (
        "diff.rs",
        &[".global", ".shared", ".local", ".const", ".param"],
        "state spaces searched for in the text of a memory fault's message",
    ),
];

/// The string literals of Rust source `text` (their contents, escapes
/// left as written), with their line numbers; comments, char literals and
/// lifetimes are skipped.
fn string_literals(text: &str) -> Vec<(usize, String)> {
    let c: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    let ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    while i < c.len() {
        match c[i] {
            '\n' => {
                line += 1;
                i += 1;
            }
            '/' if c.get(i + 1) == Some(&'/') => {
                while i < c.len() && c[i] != '\n' {
                    i += 1;
                }
            }
            '/' if c.get(i + 1) == Some(&'*') => {
                let mut depth = 0;
                while i < c.len() {
                    if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                        depth += 1;
                        i += 2;
                    } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        line += (c[i] == '\n') as usize;
                        i += 1;
                    }
                }
            }
            // A char literal ('"', '\'', 'x') or a lifetime ('a).
            '\'' => {
                if c.get(i + 1) == Some(&'\\') {
                    i += 2;
                    while i < c.len() && c[i] != '\'' {
                        i += 1;
                    }
                    i += 1;
                } else if c.get(i + 2) == Some(&'\'') {
                    i += 3;
                } else {
                    i += 1;
                }
            }
            // A raw string r"..." / r#"..."# (br"..." too); not r#ident.
            'r' if (i == 0 || !ident(c[i - 1]) || (c[i - 1] == 'b' && (i < 2 || !ident(c[i - 2]))))
                && matches!(c.get(i + 1), Some('"') | Some('#')) =>
            {
                let mut j = i + 1;
                while c.get(j) == Some(&'#') {
                    j += 1;
                }
                let hashes = j - i - 1;
                if c.get(j) != Some(&'"') {
                    i = j;
                    continue;
                }
                let (start, start_line) = (j + 1, line);
                j += 1;
                loop {
                    if j >= c.len() {
                        break;
                    }
                    if c[j] == '"' && (0..hashes).all(|h| c.get(j + 1 + h) == Some(&'#')) {
                        break;
                    }
                    line += (c[j] == '\n') as usize;
                    j += 1;
                }
                out.push((start_line, c[start..j.min(c.len())].iter().collect()));
                i = j + 1 + hashes;
            }
            '"' => {
                let (start, start_line) = (i + 1, line);
                let mut j = i + 1;
                while j < c.len() && c[j] != '"' {
                    if c[j] == '\\' {
                        j += 1;
                    }
                    line += (c.get(j) == Some(&'\n')) as usize;
                    j += 1;
                }
                out.push((start_line, c[start..j.min(c.len())].iter().collect()));
                i = j + 1;
            }
            _ => i += 1,
        }
    }
    out
}

/// True if `literal` is spelt like a modifier word or an opcode.
fn spells_a_word(literal: &str) -> bool {
    let bare = literal.strip_prefix('.').unwrap_or(literal);
    WORDS.contains(&bare) || OPCODES.iter().any(|o| o.name == bare)
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut pending = vec![dir.to_path_buf()];
    let mut files = Vec::new();
    while let Some(path) = pending.pop() {
        if path.is_dir() {
            pending.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files.sort();
    files
}

#[test]
fn no_modifier_word_or_opcode_is_spelt_as_a_string() {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let files = rust_files(&src);
    assert!(files.len() >= 10, "only {} files under {}", files.len(), src.display());
    let mut offenders = Vec::new();
    let mut used = vec![false; ALLOWED.len()];
    for path in &files {
        let rel = path.strip_prefix(&src).unwrap().to_string_lossy().replace('\\', "/");
        let text = std::fs::read_to_string(path).unwrap();
        for (line, literal) in string_literals(&text) {
            if !spells_a_word(&literal) {
                continue;
            }
            match ALLOWED.iter().position(|(file, words, _)| *file == rel && words.contains(&literal.as_str())) {
                Some(k) => used[k] = true,
                None => offenders.push(format!("src/{rel}:{line}: \"{literal}\"")),
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "modifier words or opcodes spelt as strings (use ptx_ir::Word / ptx_ir::Opcode, or add the \
         literal to ALLOWED with why it is not a modifier):\n{}",
        offenders.join("\n")
    );
    for ((file, words, _), used) in ALLOWED.iter().zip(used) {
        assert!(used, "ALLOWED entry for {file} ({words:?}) matches nothing: remove it");
    }
}

/// The check finds the patterns words used to be compared in, and not
/// messages, comments, char literals or lifetimes.
#[test]
fn the_check_finds_word_comparisons_and_skips_messages() {
    let old = r##"
        if len == n || (len == n + 1 && Self::word(at, "L2::cache_hint")) {}
        self.check(at, &["uni"], 0)?;
        let r = if mode == "rn" { 1 } else { 2 };
        matches!(w, "nc" | "ca");
        Some(("ld", 2));
        let s = r#".wide"#;
    "##;
    let found: Vec<String> =
        string_literals(old).into_iter().filter(|(_, l)| spells_a_word(l)).map(|(_, l)| l).collect();
    assert_eq!(found, ["L2::cache_hint", "uni", "rn", "nc", "ca", "ld", ".wide"]);

    let fine = r#"
        // Self::word(at, "uni") in a comment
        /* "rn" in a block /* nested "nc" */ comment */
        return Err(self.invalid(at, "shfl mode"));
        let q = '"'; let e = '\''; fn f<'a>(x: &'a str) {}
        let name = "%tid"; let msg = format!("modifier {text}");
        let sym = "WARP_SZ";
    "#;
    let found: Vec<(usize, String)> = string_literals(fine);
    assert!(found.iter().all(|(_, l)| !spells_a_word(l)), "{found:?}");
    assert_eq!(
        found.iter().map(|(_, l)| l.as_str()).collect::<Vec<_>>(),
        ["shfl mode", "%tid", "modifier {text}", "WARP_SZ"]
    );
    assert_eq!(found[0].0, 4, "line numbers count comment lines");
}
