//! Function lists in the Python-first convention (`"type": "dict"`, `float`, `tuple`, `list`,
//! `any`, `str`, `int`, `bool`, as Gorilla/BFCL and Python frameworks write them): 300 lists,
//! written by a seeded generator with every type at every depth, each of which must load, export
//! to OpenAI strict mode (checked by the independent checker), and forward calls exactly — the
//! arguments as sent, and the same with the `null`s strict mode makes models send for optional
//! arguments.

use crate::common;

use common::*;
use mcpgen::export::{self, Format, strict};
use mcpgen::pipeline::{self, PipelineOptions};
use mcpgen::pipeline::{Forward, ForwardMode, Routing};
use mcpgen::runtime::{Engine, EngineOptions};
use serde_json::{Map, Value, json};

/// xorshift64*: a tiny seeded generator, so that the lists are the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
}

const SCALARS: [&str; 8] = ["str", "int", "float", "bool", "any", "string", "integer", "number"];

/// A parameter schema in the Python convention, nested up to `depth`.
fn param(rng: &mut Rng, depth: u32) -> Value {
    let kind = if depth == 0 { rng.below(6) } else { rng.below(9) };
    match kind {
        0..=5 => {
            let t = rng.pick(&SCALARS);
            let mut s = json!({"type": t, "description": format!("a {t} value")});
            if t == "str" && rng.below(4) == 0 {
                s["enum"] = json!(["celsius", "fahrenheit"]);
            }
            s
        }
        6 => json!({"type": rng.pick(&["list", "tuple"]), "items": param(rng, depth - 1)}),
        _ => {
            let (props, required) = properties(rng, depth - 1);
            json!({"type": rng.pick(&["dict", "Dict", "object"]), "properties": props, "required": required})
        }
    }
}

fn properties(rng: &mut Rng, depth: u32) -> (Map<String, Value>, Vec<String>) {
    let mut props = Map::new();
    let mut required = Vec::new();
    for i in 0..=rng.below(4) {
        let name = format!("p{i}");
        props.insert(name.clone(), param(rng, depth));
        if rng.below(2) == 0 {
            required.push(name);
        }
    }
    (props, required)
}

fn function_list(rng: &mut Rng, n: usize) -> Value {
    let functions: Vec<Value> = (0..=rng.below(4))
        .map(|i| {
            let (props, required) = properties(rng, 2);
            json!({"name": format!("fn_{n}_{i}"), "description": "A generated function.",
                   "parameters": {"type": "dict", "properties": props, "required": required}})
        })
        .collect();
    Value::Array(functions)
}

/// Arguments that fit a (converted, JSON Schema) schema: every property, required or not.
fn instance(schema: &Value) -> Value {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return values[0].clone();
    }
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    };
    match types.first().copied() {
        Some("object") => {
            let props = schema.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
            Value::Object(props.iter().map(|(k, s)| (k.clone(), instance(s))).collect())
        }
        Some("array") => json!([instance(schema.get("items").unwrap_or(&json!({})))]),
        Some("string") => json!("text"),
        Some("integer") => json!(7),
        Some("number") => json!(2.5),
        Some("boolean") => json!(true),
        _ => json!("anything"),
    }
}

/// The same arguments as a strict-mode model sends them when it leaves optional ones out:
/// `null` for every optional property, at every depth.
fn with_strict_nulls(schema: &Value, args: &Value) -> Value {
    let (Some(props), Some(obj)) = (schema.get("properties").and_then(Value::as_object), args.as_object()) else {
        return args.clone();
    };
    let required: Vec<&str> =
        schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    let mut out = Map::new();
    for (k, s) in props {
        if required.contains(&k.as_str()) {
            out.insert(k.clone(), with_strict_nulls(s, &obj[k]));
        } else if s.get("type").is_some() {
            // An untyped (`any`) argument takes `null` as a value: left out instead.
            out.insert(k.clone(), Value::Null);
        }
    }
    Value::Object(out)
}

/// The arguments without the optional ones (what the upstream must see after `null`s are dropped).
fn required_only(schema: &Value, args: &Value) -> Value {
    let (Some(props), Some(obj)) = (schema.get("properties").and_then(Value::as_object), args.as_object()) else {
        return args.clone();
    };
    let required: Vec<&str> =
        schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    Value::Object(
        props
            .iter()
            .filter(|(k, _)| required.contains(&k.as_str()))
            .map(|(k, s)| (k.clone(), required_only(s, &obj[k])))
            .collect(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_hundred_python_style_lists() {
    mcpgen::runtime::install_crypto_provider();
    let mock = start_mock().await;
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut functions, mut strict_tools, mut calls) = (0, 0, 0);
    for n in 0..300 {
        let list = function_list(&mut rng, n);
        let forward = Forward::new(&format!("{}/fn", mock.url()), ForwardMode::PerTool).unwrap();
        let opts = PipelineOptions { routing: Routing::Forward(forward), ..Default::default() };
        let origin = format!("list-{n}.json");
        let p =
            pipeline::run_str(&list.to_string(), &origin, &opts).unwrap_or_else(|e| panic!("{origin}: {e}\n{list}"));
        assert!(p.diagnostics().any(|d| d.message.contains("Python-style type names")), "{origin}: one note");
        let config = p.tools.config;
        assert_eq!(config.tools.len(), list.as_array().unwrap().len(), "{origin}");
        functions += config.tools.len();

        let out = export::export(&config, Format::Openai, true).unwrap();
        for item in out.value.as_array().unwrap() {
            let f = &item["function"];
            let problems = strict::violations(&f["parameters"]);
            if f["strict"] == json!(true) {
                assert!(problems.is_empty(), "{origin}: {problems:?}");
                strict_tools += 1;
            } else {
                assert!(problems.iter().all(|v| v.rule.is_limit()), "{origin}: {problems:?}");
            }
        }

        let engine = Engine::new(config.clone(), EngineOptions::default()).unwrap();
        for tool in &config.tools {
            let schema = Value::Object(tool.input_schema.clone());
            let args = instance(&schema);
            let r = engine.call(&tool.name, args.as_object().cloned().unwrap()).await.unwrap();
            assert_eq!(r.is_error, Some(false), "{origin} {}: {:?}", tool.name, r.content);
            let req = mock.last();
            assert_eq!(req.path, format!("/fn/{}", tool.name));
            assert_eq!(serde_json::from_slice::<Value>(&req.body).unwrap(), args, "{origin}: exactly the arguments");

            let nulls = with_strict_nulls(&schema, &args);
            let r = engine.call(&tool.name, nulls.as_object().cloned().unwrap()).await.unwrap();
            assert_eq!(r.is_error, Some(false), "{origin} {}: {:?}", tool.name, r.content);
            let body: Value = serde_json::from_slice(&mock.last().body).unwrap();
            assert_eq!(body, required_only(&schema, &args), "{origin}: optional nulls are left out");
            calls += 2;
        }
    }
    eprintln!(
        "300 lists, {functions} functions: all load; {strict_tools} strict in OpenAI strict mode; {calls} calls forwarded exactly"
    );
    assert!(functions >= 300);
}
