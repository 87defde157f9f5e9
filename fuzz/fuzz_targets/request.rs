//! Request building from arbitrary tool arguments against a fixed catalogue of every parameter
//! style and body kind: whatever the arguments, the URL stays on the API's origin and under its
//! base path, no `..` segment appears, and no header value holds a control character.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use mcpgen::pipeline::{self, PipelineOptions};
use mcpgen::runtime::config::HttpBinding;
use mcpgen::runtime::tooling::prepare_request;
use serde_json::{Map, Value};

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

fuzz_target!(|data: &[u8]| {
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
});
