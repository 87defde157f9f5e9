//! Export and convert: goldens for each conversion, round trips (OpenAPI → tool list → tools, and
//! function list → OpenAPI → tools give the same tools), and OpenAI strict mode on every sample.

use std::process::Command;

use mcpgen::export::{self, Format, strict};
use mcpgen::pipeline::{Bindings, Forward, ForwardMode, Routing};
use mcpgen::pipeline::{Pipeline, PipelineOptions, run, run_str};
use mcpgen_config::{RuntimeConfig, Tool};
use serde_json::{Value, json};

const OPENAPI_SAMPLES: &[&str] = &[
    "annotated-refs.yaml",
    "bodies.yaml",
    "file-uploads.json",
    "form-data.json",
    "hostile.yaml",
    "keyword-properties.yaml",
    "multi-file/openapi.yaml",
    "parameter-styles.json",
    "petstore-oas30.json",
    "petstore-oas31.yaml",
    "petstore-swagger2.yaml",
    "recursive-schemas.yaml",
    "schema-circular.json",
    "security-schemes.yaml",
    "security.json",
    "tool-search.yaml",
];

const FUNCTION_SAMPLES: &[&str] = &[
    "anthropic-tools.json",
    "hostile-functions.json",
    "gemini-functions.json",
    "mcp-tools-list.json",
    "openai-chat-request.json",
    "openai-functions.json",
    "openai-tools.json",
];

const FORMATS: [(Format, &str); 5] = [
    (Format::Openai, "openai"),
    (Format::OpenaiLegacy, "openai-legacy"),
    (Format::Anthropic, "anthropic"),
    (Format::Gemini, "gemini"),
    (Format::Mcp, "mcp"),
];

const BINDINGS: &str = "samples/bindings/openai-functions.bindings.yaml";

fn tools(spec: &str, routing: Routing) -> RuntimeConfig {
    pipeline(spec, routing).tools.config
}

fn pipeline(spec: &str, routing: Routing) -> Pipeline {
    let opts = PipelineOptions { routing, ..Default::default() };
    run(spec, &opts).unwrap_or_else(|e| panic!("{spec}: {e}"))
}

/// What `mcpgen convert` writes for a pipeline's tools.
fn converted(p: Pipeline) -> Value {
    let spec = p.origin.clone();
    export::openapi::to_openapi(&export::openapi::of_tools(p.ir, &p.tools)).unwrap_or_else(|e| panic!("{spec}: {e}"))
}

/// Reading back what mcpgen wrote: its texts pass as written (the samples' own were cleaned, or
/// kept with `x-mcp-allow-text` as the hostile sample's are, when they were first read; the
/// round trip checks the conversion, not the cleaning).
fn reading_back() -> PipelineOptions {
    PipelineOptions { trust: mcpgen::trust::TrustOptions { allow: vec!["#".into()] }, ..Default::default() }
}

fn reload(text: &str, origin: &str) -> RuntimeConfig {
    let mut opts = reading_back();
    // Output schemas of function lists (MCP's) come back from the 2xx response schema.
    opts.tools.output_schema = mcpgen::pipeline::OutputSchemaPolicy::Full;
    run_str(text, origin, &opts).unwrap_or_else(|e| panic!("{origin}: {e}\n{text}")).tools.config
}

fn forward() -> Routing {
    Routing::Forward(Forward::new("https://tools.example.com/call", ForwardMode::PerTool).unwrap())
}

fn mcpgen(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_mcpgen")).args(args).output().unwrap()
}

/// `required` lists as sets: the loader lists path, query and header arguments first.
fn sort_required(v: &mut Value) {
    match v {
        Value::Object(o) => {
            for (k, c) in o.iter_mut() {
                match c {
                    Value::Array(a) if k == "required" => a.sort_by_key(|x| x.to_string()),
                    _ => sort_required(c),
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(sort_required),
        _ => {}
    }
}

/// What a client sees of a tool (annotation titles aside: OpenAPI has no place for them).
fn seen(t: &Tool) -> Value {
    let mut v = json!({
        "name": t.name, "title": t.title, "description": t.description, "input": t.input_schema,
        "output": t.output_schema, "readOnly": t.annotations.read_only_hint,
        "destructive": t.annotations.destructive_hint, "idempotent": t.annotations.idempotent_hint,
        "openWorld": t.annotations.open_world_hint,
    });
    sort_required(&mut v);
    v
}

#[test]
fn export_goldens() {
    for (_, name) in FORMATS {
        let out = mcpgen(&["export", "samples/openai-functions.json", "--format", name]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        expectorate::assert_contents(
            format!("tests/golden/export/openai-functions.{name}.json"),
            &String::from_utf8_lossy(&out.stdout),
        );
    }
    // Every function-list format into another one.
    for (sample, format) in [
        ("anthropic-tools.json", "openai"),
        ("gemini-functions.json", "anthropic"),
        ("mcp-tools-list.json", "gemini"),
        ("openai-tools.json", "anthropic"),
        ("openai-chat-request.json", "mcp"),
    ] {
        let out = mcpgen(&["export", &format!("samples/{sample}"), "--format", format]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let stem = sample.trim_end_matches(".json");
        expectorate::assert_contents(
            format!("tests/golden/export/{stem}.{format}.json"),
            &String::from_utf8_lossy(&out.stdout),
        );
    }
    for (sample, golden) in [
        ("petstore-oas30.json", "petstore-oas30"),
        ("openai-tools.json", "openai-tools"),
        ("keyword-properties.yaml", "keyword-properties"),
    ] {
        let out = mcpgen(&["export", &format!("samples/{sample}"), "--format", "openai", "--strict"]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        expectorate::assert_contents(
            format!("tests/golden/export/{golden}.openai-strict.json"),
            &String::from_utf8_lossy(&out.stdout),
        );
        expectorate::assert_contents(
            format!("tests/golden/export/{golden}.openai-strict.stderr.txt"),
            &String::from_utf8_lossy(&out.stderr),
        );
    }
}

#[test]
fn convert_goldens() {
    for (args, golden) in [
        (vec!["samples/openai-functions.json", "--bindings", BINDINGS], "openai-functions.bindings.yaml"),
        (
            vec!["samples/openai-functions.json", "--forward-url", "https://tools.example.com"],
            "openai-functions.forward.yaml",
        ),
        (
            vec!["samples/openai-tools.json", "--forward-url", "https://shop.example.com/tools"],
            "openai-tools.forward.yaml",
        ),
        (vec!["samples/mcp-tools-list.json"], "mcp-tools-list.yaml"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("out.yaml");
        let mut a = vec!["convert"];
        a.extend(&args);
        a.extend(["--to", "openapi", "-o", file.to_str().unwrap()]);
        let out = mcpgen(&a);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        expectorate::assert_contents(
            format!("tests/golden/convert/{golden}"),
            &std::fs::read_to_string(&file).unwrap(),
        );
    }
}

/// OpenAPI → every export format → load: the same tool names and input schemas.
#[test]
fn openapi_to_tool_lists_and_back() {
    for sample in OPENAPI_SAMPLES.iter().chain(FUNCTION_SAMPLES) {
        let original = tools(&format!("samples/{sample}"), Routing::Unbound);
        for (format, name) in FORMATS {
            let list = export::export(&original, format, false).unwrap().value;
            let back = reload(&list.to_string(), &format!("{sample}.{name}.json"));
            let names = |c: &RuntimeConfig| c.tools.iter().map(|t| t.name.clone()).collect::<Vec<_>>();
            assert_eq!(names(&back), names(&original), "{sample} via {name}");
            for (a, b) in original.tools.iter().zip(&back.tools) {
                assert_eq!(a.input_schema, b.input_schema, "{sample} via {name}: {}", a.name);
                assert_eq!(a.description, b.description, "{sample} via {name}: {}", a.name);
            }
        }
    }
}

/// Function list (+ bindings, or the forward convention) → OpenAPI 3.1 → load: the same tools.
#[test]
fn function_lists_to_openapi_and_back() {
    let bindings = || Routing::Bindings(Box::new(Bindings::read(BINDINGS).unwrap()));
    // Not hostile-functions.json: OpenAPI body fields become arguments under MCP-safe names, so a
    // property named `名前` comes back as `param` (documented in docs/function-calling.md).
    let mut cases: Vec<(String, Routing)> = FUNCTION_SAMPLES
        .iter()
        .filter(|s| **s != "hostile-functions.json")
        .map(|s| (format!("samples/{s}"), forward()))
        .collect();
    cases.push(("samples/openai-functions.json".into(), bindings()));
    for (spec, routing) in cases {
        let p = pipeline(&spec, routing);
        let original = p.tools.config.clone();
        let doc = converted(p);
        assert_eq!(doc["openapi"], "3.1.0");
        let back = reload(&doc.to_string(), &format!("{spec}.openapi.json"));
        assert_eq!(back.tools.len(), original.tools.len(), "{spec}");
        for a in &original.tools {
            let b = back.tools.iter().find(|b| b.name == a.name).unwrap_or_else(|| panic!("{spec}: {}", a.name));
            assert_eq!(seen(a), seen(b), "{spec}: {}", a.name);
            let (ha, hb) = (a.http.as_ref().unwrap(), b.http.as_ref().unwrap());
            assert_eq!((&ha.method, &ha.path, &ha.security), (&hb.method, &hb.path, &hb.security), "{spec}");
            assert_eq!(ha.params, hb.params, "{spec}: {} sends each argument to the same place", a.name);
        }
        assert_eq!(back.upstream.base_url, original.upstream.base_url, "{spec}");
        assert_eq!(
            back.security_schemes.keys().collect::<Vec<_>>(),
            original.security_schemes.keys().collect::<Vec<_>>()
        );
    }
}

/// OpenAPI (2.0, 3.0, 3.1) → `convert` (the IR written as OpenAPI 3.1) → load: the same tools,
/// bindings and all.
#[test]
fn openapi_to_openapi_and_back() {
    for sample in OPENAPI_SAMPLES {
        let spec = format!("samples/{sample}");
        let p = pipeline(&spec, Routing::Unbound);
        let original = p.tools.config.clone();
        let doc = converted(p);
        let text = doc.to_string();
        let back = run_str(&text, &format!("{sample}.openapi.json"), &reading_back())
            .unwrap_or_else(|e| panic!("{sample}: {e}\n{text}"))
            .tools
            .config;
        let names =
            |c: &RuntimeConfig| c.tools.iter().map(|t| t.name.clone()).collect::<std::collections::BTreeSet<_>>();
        assert_eq!(names(&back), names(&original), "{sample}");
        for a in &original.tools {
            assert_eq!(Some(a), back.tools.iter().find(|b| b.name == a.name), "{sample}");
        }
        assert_eq!(back.upstream, original.upstream, "{sample}");
        assert_eq!(back.security_schemes, original.security_schemes, "{sample}");
    }
}

/// `--strict` output obeys every OpenAI strict-mode rule, for every sample, and says so per tool.
#[test]
fn strict_exports_follow_openai_rules() {
    for sample in OPENAPI_SAMPLES.iter().chain(FUNCTION_SAMPLES) {
        let config = tools(&format!("samples/{sample}"), Routing::Unbound);
        let out = export::export(&config, Format::Openai, true).unwrap();
        for item in out.value.as_array().unwrap() {
            let f = &item["function"];
            let problems = strict::violations(&f["parameters"]);
            let name = f["name"].as_str().unwrap();
            if f["strict"] == json!(true) {
                assert!(problems.is_empty(), "{sample}: {name}: {problems:?}");
            } else {
                assert!(!problems.is_empty() && problems.iter().all(|v| v.rule.is_limit()), "{sample}: {name}");
                assert!(out.not_strict.iter().any(|(t, _)| t == name));
            }
        }
    }
}

#[test]
fn strict_needs_the_openai_format() {
    let out = mcpgen(&["export", "samples/openai-functions.json", "--format", "anthropic", "--strict"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--format openai"));
}

#[test]
fn single_forward_mode_cannot_be_described_in_openapi() {
    let out = mcpgen(&[
        "convert",
        "samples/openai-functions.json",
        "--forward-url",
        "http://localhost:9/x",
        "--forward-mode",
        "single",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("single"), "{}", String::from_utf8_lossy(&out.stderr));
}
