//! Packs the sources a generated crate vendors (the engine crate `runtime/` and the contract crate
//! `config/`: each one's Cargo.toml and every file under its `src/`) into one DEFLATE-compressed
//! blob that `src/generate/runtime_crate.rs` embeds: 1.2 MB of Rust as text made the binary a
//! megabyte larger than it need be (docs/performance.md, "The binary's size").
//!
//! The blob is a list of files, each `path \0 length \0 contents`, the paths relative to their
//! crate's root behind the crate's folder (`runtime/src/lib.rs`), in sorted order.

use std::path::{Path, PathBuf};

/// The crates vendored into generated crates, as folders of this repository.
const CRATES: [&str; 2] = ["runtime", "config"];

fn main() {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let mut blob = Vec::new();
    for krate in CRATES {
        let dir = root.join(krate);
        let mut files = vec![dir.join("Cargo.toml")];
        files_under(&dir.join("src"), &mut files);
        println!("cargo::rerun-if-changed={}", dir.join("Cargo.toml").display());
        println!("cargo::rerun-if-changed={}", dir.join("src").display());
        let mut named: Vec<(String, PathBuf)> = files
            .into_iter()
            .map(|f| (f.strip_prefix(&root).expect("under the root").to_string_lossy().replace('\\', "/"), f))
            .collect();
        // By path as text, Cargo.toml first: the order the files were listed in by hand before.
        named.sort_by(|(a, _), (b, _)| (!a.ends_with("Cargo.toml"), a).cmp(&(!b.ends_with("Cargo.toml"), b)));
        for (name, file) in named {
            let text = std::fs::read(&file).unwrap_or_else(|e| panic!("reading {}: {e}", file.display()));
            blob.extend_from_slice(name.as_bytes());
            blob.push(0);
            blob.extend_from_slice(text.len().to_string().as_bytes());
            blob.push(0);
            blob.extend_from_slice(&text);
        }
    }
    let packed = miniz_oxide::deflate::compress_to_vec(&blob, 10);
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("vendored.deflate");
    std::fs::write(&out, packed).unwrap_or_else(|e| panic!("writing {}: {e}", out.display()));
}

/// Every file below `dir`.
fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()));
    for path in entries.map(|e| e.expect("a directory entry").path()) {
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.push(path);
        }
    }
}
