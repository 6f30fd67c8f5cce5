//! The public corpus and ptxas, shared by the tests of this binary: files are
//! read once and original cubins compiled once per process.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

/// One corpus file.
pub struct CorpusFile {
    pub name: String,
    pub source: String,
    pub target: String,
}

/// Every public corpus file, sorted by name.
pub fn files() -> &'static [CorpusFile] {
    static FILES: OnceLock<Vec<CorpusFile>> = OnceLock::new();
    FILES.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/public");
        let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
            .collect();
        paths.sort();
        paths
            .into_iter()
            .map(|p| {
                let source = std::fs::read_to_string(&p).unwrap();
                let target = ptx_toolchain::target_of(&source).expect("every corpus file has a target");
                CorpusFile { name: p.file_name().unwrap().to_string_lossy().into_owned(), source, target }
            })
            .collect()
    })
}

/// Every `.ptx` file below `testdata/<dir>` (all of testdata for `""`), sorted.
pub fn testdata_files(dir: &str) -> Vec<PathBuf> {
    fn walk(dir: &std::path::Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|x| x == "ptx") {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata").join(dir), &mut files);
    files.sort();
    files
}

/// The toolchain (downloaded on first use).
pub fn toolchain() -> &'static ptx_toolchain::Toolchain {
    ptx_toolchain::cached().expect("ptxas is available")
}

/// The cubin of the unmodified file, compiled once.
pub fn original_cubin(file: &CorpusFile) -> Vec<u8> {
    static CACHE: OnceLock<Mutex<BTreeMap<String, Vec<u8>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(c) = cache.lock().unwrap().get(&file.name) {
        return c.clone();
    }
    let cubin = toolchain()
        .compile(&file.source, &file.target, &[])
        .unwrap_or_else(|e| panic!("{}: ptxas rejects the original: {e}", file.name));
    cache.lock().unwrap().insert(file.name.clone(), cubin.clone());
    cubin
}
