//! Golden files for every sample: the IR, the runtime config (tool list with bindings) and the
//! `inspect` report. Refresh with `EXPECTORATE=overwrite cargo test --test golden`.

use mcpgen::pipeline::OutputSchemaPolicy;
use mcpgen::pipeline::{self, PipelineOptions};

/// One test per sample (and per check), so that one failure hides no other.
macro_rules! samples {
    ($($name:ident => $sample:literal),* $(,)?) => {
        mod goldens {
            $(
                #[test]
                fn $name() {
                    super::matches_goldens($sample);
                }
            )*
        }
        mod client_safe {
            $(
                #[test]
                fn $name() {
                    super::is_client_safe($sample);
                }
            )*
        }
    };
}

samples! {
    petstore_swagger2 => "petstore-swagger2.yaml",
    petstore_oas30 => "petstore-oas30.json",
    petstore_oas31 => "petstore-oas31.yaml",
    multi_file_openapi => "multi-file/openapi.yaml",
    recursive_schemas => "recursive-schemas.yaml",
    schema_circular => "schema-circular.json",
    annotated_refs => "annotated-refs.yaml",
    parameter_styles => "parameter-styles.json",
    bodies => "bodies.yaml",
    form_data => "form-data.json",
    file_uploads => "file-uploads.json",
    security => "security.json",
    security_schemes => "security-schemes.yaml",
    hostile => "hostile.yaml",
    tool_search => "tool-search.yaml",
    openai_functions => "openai-functions.json",
    python_functions => "python-functions.json",
    openai_tools => "openai-tools.json",
    openai_chat_request => "openai-chat-request.json",
    anthropic_tools => "anthropic-tools.json",
    gemini_functions => "gemini-functions.json",
    mcp_tools_list => "mcp-tools-list.json",
    hostile_functions => "hostile-functions.json",
}

fn golden_name(sample: &str) -> String {
    sample.replace('/', "-").rsplit_once('.').map(|(stem, _)| stem.to_string()).unwrap_or_default()
}

fn pretty(v: &impl serde::Serialize) -> String {
    let mut s = serde_json::to_string_pretty(v).expect("serialize");
    s.push('\n');
    s
}

/// The IR, the runtime config and the inspect report of one sample match their goldens.
fn matches_goldens(sample: &str) {
    let spec = format!("samples/{sample}");
    let mut opts = PipelineOptions::default();
    // Output schemas are opt-in; the goldens show them too.
    opts.tools.output_schema = OutputSchemaPolicy::Full;
    let p = pipeline::run(&spec, &opts).unwrap_or_else(|e| panic!("{spec}: {e}"));
    let name = golden_name(sample);
    expectorate::assert_contents(format!("tests/golden/{name}.ir.json"), &pretty(&p.ir));
    expectorate::assert_contents(format!("tests/golden/{name}.tools.json"), &pretty(&p.tools.config));
    let report = mcpgen::InspectReport::new(&p).expect("report");
    expectorate::assert_contents(format!("tests/golden/{name}.inspect.txt"), &report.render());
}

/// Every input schema of one sample obeys the MCP rules that clients enforce.
fn is_client_safe(sample: &str) {
    let spec = format!("samples/{sample}");
    let p = pipeline::run(&spec, &PipelineOptions::default()).unwrap_or_else(|e| panic!("{spec}: {e}"));
    for tool in &p.tools.config.tools {
        let s = &serde_json::Value::Object(tool.input_schema.clone());
        let at = format!("{spec}: {}", tool.name);
        assert!(regex_like_name(&tool.name), "{at}: bad name");
        assert_eq!(s["type"], "object", "{at}: root must be an object");
        for k in ["anyOf", "oneOf", "allOf"] {
            assert!(s.get(k).is_none(), "{at}: top-level {k}");
        }
        check_refs_and_items(s, s, &at);
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
