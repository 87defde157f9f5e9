//! What each fuzz target checks, as a plain function of its input: `fuzz_targets/` hand these
//! libFuzzer's inputs, and mcpgen's own tests (`tests/fuzz_seeds.rs`) their seeds on the stable
//! toolchain, so that CI needs no nightly build of the targets.

use std::sync::OnceLock;

use mcpgen::export::strict::{strictify, violations};
use mcpgen::pipeline::{self, PipelineOptions};
use mcpgen::runtime::config::{HttpBinding, RuntimeConfig};
use mcpgen::runtime::tooling::prepare_request;
use mcpgen::runtime::{Engine, EngineOptions};
use serde_json::{Map, Value};

/// Load -> normalize -> tools on arbitrary bytes, read as JSON and as YAML: any input gives tools
/// or an error, never a panic.
pub fn pipeline(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let opts = PipelineOptions::default();
    let _ = pipeline::run_str(text, "fuzz.json", &opts);
    let _ = pipeline::run_str(text, "fuzz.yaml", &opts);
}

/// A runtime config from arbitrary bytes: it is refused or an engine is built from it, never a
/// panic.
pub fn runtime_config(data: &[u8]) {
    let Ok(config) = serde_json::from_slice::<RuntimeConfig>(data) else { return };
    let _ = Engine::new(config, EngineOptions::default());
}

const BASE: &str = "https://api.example.com/v1";

fn catalogue() -> &'static [HttpBinding] {
    static BINDINGS: OnceLock<Vec<HttpBinding>> = OnceLock::new();
    BINDINGS.get_or_init(|| {
        let samples = [
            ("parameter-styles.json", include_str!("../../samples/parameter-styles.json")),
            ("bodies.yaml", include_str!("../../samples/bodies.yaml")),
            ("hostile.yaml", include_str!("../../samples/hostile.yaml")),
        ];
        let mut out = Vec::new();
        for (name, text) in samples {
            let p = pipeline::run_str(text, name, &PipelineOptions::default()).expect("a sample loads");
            out.extend(p.tools.config.tools.into_iter().filter_map(|t| t.http));
        }
        out
    })
}

/// Request building from arbitrary tool arguments (the first byte picks the tool) against a fixed
/// catalogue of every parameter style and body kind: whatever the arguments, the URL stays on the
/// API's origin and under its base path, no `..` segment appears, and no header value holds a
/// control character.
pub fn request(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else { return };
    let bindings = catalogue();
    let binding = &bindings[pick as usize % bindings.len()];
    let Ok(args) = serde_json::from_slice::<Map<String, Value>>(rest) else { return };
    let Ok(req) = prepare_request(BASE, binding, &args) else { return };
    assert_eq!(req.url.origin().ascii_serialization(), "https://api.example.com", "{}", req.url);
    assert!(req.url.path() == "/v1" || req.url.path().starts_with("/v1/"), "left the base path: {}", req.url);
    assert!(!req.url.path().split('/').any(|s| s == ".." || s == "."), "dot segment: {}", req.url);
    for (name, value) in &req.headers {
        assert!(
            !value.as_bytes().iter().any(|&b| (b < 0x20 && b != b'\t') || b == 0x7f),
            "control character in header {name}: {value:?}"
        );
    }
}

/// Strict-mode export on arbitrary schemas: the checker accepts what the rewriter emits, but for
/// the limits it reports (a tool with those is marked non-strict).
pub fn strict(data: &[u8]) {
    let Ok(schema) = serde_json::from_slice::<serde_json::Value>(data) else { return };
    let strict = strictify(&schema);
    assert!(
        strict.violations.iter().all(|v| v.rule.is_limit()),
        "a rewritten schema breaks a rule that is not a limit: {:?}",
        strict.violations
    );
    assert_eq!(violations(&strict.schema), strict.violations, "the checker and strictify disagree");
}
