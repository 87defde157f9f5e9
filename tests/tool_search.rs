//! Export for provider-side tool search: `--defer-loading`, `--pin-tool`, `--namespaces tag`
//! (OpenAI, Responses API) and `--input-examples` (Anthropic). Goldens on
//! `samples/tool-search.yaml`, every output checked against the providers' documented tool
//! definitions (`tests/fixtures/providers/`), GitHub's namespaces, and the flags' errors.
//! Refresh the goldens with `EXPECTORATE=overwrite cargo test --test integration tool_search::`.

use crate::common;

use std::process::{Command, Output};

use mcpgen::export::{self, Format, Options, ToolSearch, namespaces::MAX_NAMESPACE_TOOLS};
use mcpgen::pipeline::{PipelineOptions, run};
use serde_json::{Value, json};

const SAMPLE: &str = "samples/tool-search.yaml";

/// Samples whose exports are checked against the providers' schemas: tagged and untagged APIs,
/// bodies of every kind, hostile text, and function lists.
const SAMPLES: &[&str] = &[
    "tool-search.yaml",
    "petstore-oas30.json",
    "petstore-oas31.yaml",
    "petstore-swagger2.yaml",
    "bodies.yaml",
    "file-uploads.json",
    "hostile.yaml",
    "recursive-schemas.yaml",
    "openai-tools.json",
    "anthropic-tools.json",
    "mcp-tools-list.json",
];

fn mcpgen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcpgen")).args(args).output().unwrap()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn provider_schema(name: &str) -> jsonschema::Validator {
    let text = std::fs::read_to_string(format!("tests/fixtures/providers/{name}")).unwrap();
    jsonschema::validator_for(&serde_json::from_str(&text).unwrap()).unwrap()
}

/// Every place `list` breaks the provider's schema, one line each.
fn problems(validator: &jsonschema::Validator, list: &Value) -> Vec<String> {
    validator.iter_errors(list).map(|e| format!("{}: {e}", e.instance_path())).collect()
}

/// The tool-search export of a sample, through the library, as the command line makes it.
fn export_sample(sample: &str, format: Format, search: ToolSearch, strict: bool) -> export::Export {
    let spec = format!("samples/{sample}");
    let p = run(&spec, &PipelineOptions::default()).unwrap_or_else(|e| panic!("{spec}: {e}"));
    let opts = Options { strict, search, operations: export::operations_by_tool(&p.ir, &p.tools) };
    export::export_with(&p.tools.config, format, &opts).unwrap_or_else(|e| panic!("{spec}: {e}"))
}

fn every_search_option(format: Format) -> ToolSearch {
    ToolSearch {
        defer_loading: true,
        pinned: Vec::new(),
        namespaces: format == Format::Openai,
        input_examples: format == Format::Anthropic,
    }
}

#[test]
fn anthropic_golden() {
    let out = mcpgen(&[
        "export",
        SAMPLE,
        "--format",
        "anthropic",
        "--defer-loading",
        "--pin-tool",
        "listBooks,getBook",
        "--input-examples",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    expectorate::assert_contents("tests/golden/export/tool-search.anthropic-search.json", &stdout(&out));
    expectorate::assert_contents("tests/golden/export/tool-search.anthropic-search.stderr.txt", &stderr(&out));
}

#[test]
fn openai_namespaces_golden() {
    let out = mcpgen(&[
        "export",
        SAMPLE,
        "--format",
        "openai",
        "--namespaces",
        "tag",
        "--defer-loading",
        "--pin-tool",
        "listBooks",
        "--pin-tool",
        "getBook",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
    expectorate::assert_contents("tests/golden/export/tool-search.openai-namespaces.json", &stdout(&out));
}

#[test]
fn openai_deferred_golden() {
    let out = mcpgen(&["export", SAMPLE, "--format", "openai", "--defer-loading", "--pin-tool", "health"]);
    assert!(out.status.success(), "{}", stderr(&out));
    expectorate::assert_contents("tests/golden/export/tool-search.openai-deferred.json", &stdout(&out));
}

/// Without the new flags, the lists keep their shape: no key of tool search appears.
#[test]
fn without_the_flags_nothing_changes() {
    for format in ["openai", "anthropic"] {
        let out = mcpgen(&["export", SAMPLE, "--format", format]);
        assert!(out.status.success(), "{}", stderr(&out));
        let text = stdout(&out);
        for key in ["defer_loading", "input_examples", "\"namespace\""] {
            assert!(!text.contains(key), "{format}: {key}");
        }
    }
    let list: Value = serde_json::from_str(&stdout(&mcpgen(&["export", SAMPLE, "--format", "openai"]))).unwrap();
    assert!(list[0]["function"]["parameters"].is_object(), "Chat Completions' shape: {}", list[0]);
}

#[test]
fn anthropic_exports_follow_the_documented_tool_definition() {
    let schema = provider_schema("anthropic-tools.schema.json");
    let mut examples = 0;
    for sample in SAMPLES {
        let list = export_sample(sample, Format::Anthropic, every_search_option(Format::Anthropic), false).value;
        assert_eq!(problems(&schema, &list), Vec::<String>::new(), "{sample}");
        for tool in list.as_array().unwrap() {
            let input = jsonschema::validator_for(&tool["input_schema"]).unwrap();
            for example in tool.get("input_examples").and_then(Value::as_array).into_iter().flatten() {
                assert!(input.is_valid(example), "{sample}: {}: {example}", tool["name"]);
                examples += 1;
            }
        }
    }
    assert!(examples > 20, "only {examples} input examples: the check checked little");
}

#[test]
fn openai_namespaces_follow_the_documented_responses_tools() {
    let schema = provider_schema("openai-responses-tools.schema.json");
    for sample in SAMPLES {
        for strict in [false, true] {
            let list = export_sample(sample, Format::Openai, every_search_option(Format::Openai), strict).value;
            assert_eq!(problems(&schema, &list), Vec::<String>::new(), "{sample}, strict: {strict}");
        }
    }
}

#[test]
fn openai_deferred_functions_follow_the_documented_responses_tools() {
    let schema = provider_schema("openai-responses-tools.schema.json");
    let search = ToolSearch { defer_loading: true, ..ToolSearch::default() };
    for sample in SAMPLES {
        let list = export_sample(sample, Format::Openai, search.clone(), false).value;
        assert_eq!(problems(&schema, &list), Vec::<String>::new(), "{sample}");
        assert!(
            list.as_array().unwrap().iter().all(|f| f["defer_loading"] == json!(true) && f["strict"] == json!(false))
        );
    }
}

/// The schemas are no formality: the shapes of other APIs and misplaced fields fail them.
#[test]
fn provider_schemas_refuse_other_shapes() {
    let openai = provider_schema("openai-responses-tools.schema.json");
    let chat = json!([{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]);
    assert!(!openai.is_valid(&chat), "Chat Completions' nested function");
    let deferred_namespace = json!([{"type": "namespace", "name": "n", "description": "d", "defer_loading": true,
        "tools": [{"type": "function", "name": "f"}]}]);
    assert!(!openai.is_valid(&deferred_namespace), "defer_loading on a namespace");
    let empty = json!([{"type": "namespace", "name": "n", "description": "", "tools": []}]);
    assert!(!openai.is_valid(&empty), "an empty namespace");
    let anthropic = provider_schema("anthropic-tools.schema.json");
    assert!(!anthropic.is_valid(&json!([{"name": "f", "parameters": {"type": "object"}}])), "OpenAI's key");
    assert!(!anthropic.is_valid(&json!([{"name": "f", "input_schema": {"type": "object"}, "input_examples": [1]}])));
    assert!(!anthropic.is_valid(&json!([{"name": "f", "input_schema": {"type": "object"}, "defer_loading": "yes"}])));
}

/// GitHub's 1,223 operations: every tool in exactly one namespace of at most ten, names unique,
/// the whole a valid Responses API tools array.
#[test]
fn github_namespaces_hold_at_most_ten_tools() {
    let Some(github) = common::corpus_file(common::GITHUB) else { return };
    let p = run(github.to_str().unwrap(), &PipelineOptions::default()).unwrap();
    let search = ToolSearch { defer_loading: true, namespaces: true, ..ToolSearch::default() };
    let opts = Options { search, ..Options::default() };
    let out = export::export_with(&p.tools.config, Format::Openai, &opts).unwrap();
    let list = out.value.as_array().unwrap();
    assert_eq!(out.namespaces, list.len());
    let mut names: Vec<&str> = list.iter().map(|n| n["name"].as_str().unwrap()).collect();
    let mut tools: Vec<&str> =
        list.iter().flat_map(|n| n["tools"].as_array().unwrap()).map(|t| t["name"].as_str().unwrap()).collect();
    for ns in list {
        let count = ns["tools"].as_array().unwrap().len();
        assert!((1..=MAX_NAMESPACE_TOOLS).contains(&count), "{}: {count} tools", ns["name"]);
    }
    assert_eq!(tools.len(), p.tools.config.tools.len());
    tools.sort_unstable();
    tools.dedup();
    assert_eq!(tools.len(), p.tools.config.tools.len(), "a tool in two namespaces");
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), list.len(), "two namespaces of one name");
    assert_eq!(problems(&provider_schema("openai-responses-tools.schema.json"), &out.value), Vec::<String>::new());
}

/// A runtime config has no IR: its tools' input examples come from their schemas alone.
#[test]
fn a_runtime_config_gives_its_schemas_examples() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("bookshop.mcp.json");
    let made = mcpgen(&["config", SAMPLE, "-o", config.to_str().unwrap()]);
    assert!(made.status.success(), "{}", stderr(&made));
    let out = mcpgen(&["export", config.to_str().unwrap(), "--format", "anthropic", "--input-examples"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let list: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let examples = |name: &str| {
        list.as_array().unwrap().iter().find(|t| t["name"] == name).unwrap().get("input_examples").cloned()
    };
    assert_eq!(
        examples("createAuthor"),
        Some(json!([{"name": "Frank Herbert", "born": 1920, "address": {"city": "Tacoma", "country": "US"}}]))
    );
    assert_eq!(examples("listBooks"), None, "a parameter's own examples are in the API description only");
}

/// Bad flag values: exit 1 (2 for what clap refuses) with a message that names the flag and says
/// what to do; never a panic.
fn refused(args: &[&str], code: i32, needle: &str) {
    let mut all = vec!["export", SAMPLE];
    all.extend_from_slice(args);
    let out = mcpgen(&all);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
    assert!(err.contains(needle), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    assert!(out.stdout.is_empty(), "{args:?}");
}

#[test]
fn an_unknown_pinned_tool_is_named_with_the_closest_name() {
    refused(
        &["--format", "anthropic", "--defer-loading", "--pin-tool", "listBook"],
        1,
        "error: --pin-tool `listBook`: no tool of the list has this name; did you mean `listBooks`?",
    );
}

#[test]
fn a_pinned_tool_filtered_out_is_unknown() {
    refused(
        &["--format", "openai", "--defer-loading", "--pin-tool", "health", "--include-tag", "books"],
        1,
        "`mcpgen inspect` lists the names, after the same filters",
    );
}

#[test]
fn pinning_needs_defer_loading() {
    refused(&["--format", "anthropic", "--pin-tool", "listBooks"], 1, "add --defer-loading");
}

#[test]
fn defer_loading_needs_a_format_with_tool_search() {
    refused(&["--format", "gemini", "--defer-loading"], 1, "use it with --format openai or --format anthropic");
}

#[test]
fn namespaces_need_the_openai_format() {
    refused(&["--format", "anthropic", "--namespaces", "tag"], 1, "use it with --format openai");
}

#[test]
fn input_examples_need_the_anthropic_format() {
    refused(&["--format", "openai", "--input-examples"], 1, "use it with --format anthropic");
}

#[test]
fn an_unknown_namespace_rule_lists_the_known_ones() {
    refused(&["--format", "openai", "--namespaces", "path"], 2, "[possible values: tag]");
}

#[test]
fn writing_a_file_reports_the_namespaces() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tools.json");
    let out = mcpgen(&["export", SAMPLE, "--format", "openai", "--namespaces", "tag", "-o", file.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("(20 tools in 5 namespaces, openai format)"), "{}", stderr(&out));
    let list: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert!(list.as_array().unwrap().iter().all(|n| n["type"] == "namespace"));
}
