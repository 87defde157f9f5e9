//! `ARCHITECTURE.md` is the map of the code: every path it names exists. A path is a backticked
//! token with a `/` or a file extension; it is looked up from the repository's root, from each
//! crate's source folder (`src/`, `runtime/src/`, `config/src/`), and from the folder its section's
//! heading names (`## export (`src/export/`)`), as the document names files within their section;
//! a bare file name (`mod.rs`) must exist somewhere in the tree. `<crate>/…` is a path in a
//! generated crate: it is looked up in the golden crates (`tests/golden/crate-*`) and the copies
//! they carry (`mcpgen-runtime/` is `runtime/`, `mcpgen-config/` is `config/`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Where a path the document names may start.
const ROOTS: [&str; 4] = ["", "src", "runtime/src", "config/src"];

/// Extensions of the files the document names.
const EXTENSIONS: [&str; 9] = ["rs", "md", "json", "toml", "txt", "yaml", "sh", "hbs", "lock"];

/// The backticked tokens of `text` that name files or folders.
fn named_paths(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (i, token) in text.split('`').enumerate() {
        if i % 2 == 0 || token.contains(char::is_whitespace) || token.contains("://") || token.starts_with('-') {
            continue;
        }
        let is_file = Path::new(token).extension().is_some_and(|e| EXTENSIONS.iter().any(|x| e == *x));
        let plain = |c: char| c.is_ascii_alphanumeric() || "/_-.<>".contains(c);
        let is_folder = token.ends_with('/') && token.chars().all(plain);
        if (is_file || is_folder) && !token.contains('*') && !token.contains('{') && !token.starts_with("...") {
            out.insert(token.to_string());
        }
    }
    out
}

/// Each section's paths with the folder its heading names (the first backticked folder of a `##`
/// or `###` heading; none for a heading without one).
fn sections(text: &str) -> Vec<(Option<String>, BTreeSet<String>)> {
    let mut out = Vec::new();
    let mut folder = None;
    let mut body = String::new();
    for line in text.lines() {
        if line.starts_with("## ") || line.starts_with("### ") {
            out.push((folder.take(), named_paths(&body)));
            body.clear();
            folder = named_paths(line).into_iter().find(|p| p.ends_with('/'));
        }
        body.push_str(line);
        body.push('\n');
    }
    out.push((folder, named_paths(&body)));
    out
}

/// Whether `<crate>/rest`, a path of a generated crate, is one.
fn in_a_generated_crate(root: &Path, rest: &str) -> bool {
    for (copy, ours) in [("mcpgen-runtime", "runtime"), ("mcpgen-config", "config")] {
        if let Some(inner) = rest.strip_prefix(copy) {
            return root.join(ours).join(inner.trim_start_matches('/')).exists();
        }
    }
    std::fs::read_dir(root.join("tests/golden"))
        .into_iter()
        .flatten()
        .flatten()
        .any(|e| e.file_name().to_string_lossy().starts_with("crate-") && e.path().join(rest).exists())
}

/// Every file name in the tree (but `target/` and `.git/`).
fn file_names(dir: &Path, out: &mut BTreeSet<String>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if name != "target" && name != ".git" && name != "node_modules" {
                file_names(&path, out);
            }
        } else {
            out.insert(name);
        }
    }
}

#[test]
fn every_path_the_architecture_names_exists() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let mut names = BTreeSet::new();
    file_names(&root, &mut names);
    let mut missing = Vec::new();
    for (folder, paths) in sections(&text) {
        for p in paths {
            let bare = p.trim_end_matches('/');
            let found = if let Some(rest) = bare.strip_prefix("<crate>/") {
                in_a_generated_crate(&root, rest)
            } else if !bare.contains('/') && !p.ends_with('/') {
                names.contains(bare)
            } else {
                ROOTS.iter().copied().chain(folder.as_deref()).any(|r| root.join(r).join(bare).exists())
            };
            if !found {
                missing.push(p);
            }
        }
    }
    assert!(missing.is_empty(), "ARCHITECTURE.md names paths that do not exist: {missing:#?}");
}

#[test]
fn paths_are_found_in_backticks() {
    let found = named_paths(
        "a `src/ir.rs`, `engine/`, `mod.rs`, `--flag`, `http://x/y.json`, `a b.rs`, `Tool`, `<crate>/src/lib.rs`",
    );
    assert_eq!(found.into_iter().collect::<Vec<_>>(), ["<crate>/src/lib.rs", "engine/", "mod.rs", "src/ir.rs"]);
    let s = sections("intro `a.rs`\n## export (`src/export/`)\n- `openapi/`\n");
    assert_eq!(s[1].0.as_deref(), Some("src/export/"));
    assert!(s[1].1.contains("openapi/"));
}
