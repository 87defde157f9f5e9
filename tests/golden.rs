//! Golden files for every sample: the IR, the runtime config (tool list with bindings) and the
//! `inspect` report. Refresh with `EXPECTORATE=overwrite cargo test --test golden`.

use mcpgen::pipeline::{self, PipelineOptions};
use mcpgen::tools::OutputSchemaPolicy;

const SAMPLES: &[&str] = &[
    "petstore-swagger2.yaml",
    "petstore-oas30.json",
    "petstore-oas31.yaml",
    "multi-file/openapi.yaml",
    "recursive-schemas.yaml",
    "schema-circular.json",
    "annotated-refs.yaml",
    "parameter-styles.json",
    "bodies.yaml",
    "form-data.json",
    "file-uploads.json",
    "security.json",
    "security-schemes.yaml",
    "hostile.yaml",
    "openai-functions.json",
    "python-functions.json",
    "openai-tools.json",
    "openai-chat-request.json",
    "anthropic-tools.json",
    "gemini-functions.json",
    "mcp-tools-list.json",
    "hostile-functions.json",
];

fn golden_name(sample: &str) -> String {
    sample.replace('/', "-").rsplit_once('.').map(|(stem, _)| stem.to_string()).unwrap_or_default()
}

fn pretty(v: &impl serde::Serialize) -> String {
    let mut s = serde_json::to_string_pretty(v).expect("serialize");
    s.push('\n');
    s
}

#[test]
fn samples_match_goldens() {
    for sample in SAMPLES {
        let spec = format!("samples/{sample}");
        let mut opts = PipelineOptions::default();
        // Output schemas are opt-in; the goldens show them too.
        opts.tools.output_schema = OutputSchemaPolicy::Full;
        let p = pipeline::run(&spec, &opts).unwrap_or_else(|e| panic!("{spec}: {e}"));
        let name = golden_name(sample);
        expectorate::assert_contents(format!("tests/golden/{name}.ir.json"), &pretty(&p.ir));
        expectorate::assert_contents(format!("tests/golden/{name}.tools.json"), &pretty(&p.tools.config));
        let report = mcpgen::cli::InspectReport::new(&p).expect("report");
        expectorate::assert_contents(format!("tests/golden/{name}.inspect.txt"), &report.render());
    }
}

/// Every input schema obeys the MCP rules that clients enforce.
#[test]
fn tool_schemas_are_client_safe() {
    for sample in SAMPLES {
        let spec = format!("samples/{sample}");
        let p = pipeline::run(&spec, &PipelineOptions::default()).unwrap_or_else(|e| panic!("{spec}: {e}"));
        for tool in &p.tools.config.tools {
            let s = &tool.input_schema;
            let at = format!("{spec}: {}", tool.name);
            assert!(regex_like_name(&tool.name), "{at}: bad name");
            assert_eq!(s["type"], "object", "{at}: root must be an object");
            for k in ["anyOf", "oneOf", "allOf"] {
                assert!(s.get(k).is_none(), "{at}: top-level {k}");
            }
            check_refs_and_items(s, s, &at);
        }
    }
}

fn regex_like_name(n: &str) -> bool {
    let mut chars = n.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    first_ok && n.len() <= 64 && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn check_refs_and_items(root: &serde_json::Value, v: &serde_json::Value, at: &str) {
    match v {
        serde_json::Value::Object(o) => {
            if let Some(serde_json::Value::String(r)) = o.get("$ref") {
                let target = r.strip_prefix('#').and_then(|p| root.pointer(p));
                assert!(target.is_some(), "{at}: unresolved $ref {r}");
            }
            if o.get("type") == Some(&serde_json::json!("array")) {
                assert!(o.contains_key("items"), "{at}: array without items");
            }
            for (k, child) in o {
                if !["enum", "const", "default", "examples"].contains(&k.as_str()) {
                    check_refs_and_items(root, child, at);
                }
            }
        }
        serde_json::Value::Array(items) => items.iter().for_each(|i| check_refs_and_items(root, i, at)),
        _ => {}
    }
}
