//! The runtime config as a contract: `config/schema/mcpgen-config.schema.json` is the JSON Schema
//! the config types derive (`config::schema`), every config mcpgen writes (the goldens of the
//! repository) validates against it, and it refuses what loading refuses. Refresh the file with
//! `EXPECTORATE=overwrite cargo test -p mcpgen-config --test config_schema`.

use std::path::{Path, PathBuf};

use mcpgen_config::{self as config, CONFIG_FORMAT_VERSION, RuntimeConfig, SCHEMA_ID, SCHEMA_KEY};
use serde_json::{Value, json};

/// The committed schema's path.
fn schema_file() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("schema/mcpgen-config.schema.json")
}

/// The committed schema.
fn committed() -> Value {
    let text = std::fs::read_to_string(schema_file()).expect("config/schema/mcpgen-config.schema.json");
    serde_json::from_str(&text).expect("the committed schema is JSON")
}

fn validator() -> jsonschema::Validator {
    jsonschema::validator_for(&committed()).expect("the committed schema compiles")
}

/// Why `value` fails the schema, one line per error; empty when it passes.
fn errors(validator: &jsonschema::Validator, value: &Value) -> String {
    validator.iter_errors(value).map(|e| format!("{}: {e}\n", e.instance_path())).collect()
}

#[test]
fn the_committed_schema_is_the_one_the_types_derive() {
    let mut generated = serde_json::to_string_pretty(&config::schema()).expect("the schema as JSON");
    generated.push('\n');
    let path = schema_file();
    if std::env::var("EXPECTORATE").as_deref() == Ok("overwrite") {
        std::fs::create_dir_all(path.parent().expect("config/schema")).expect("config/schema/");
        std::fs::write(&path, &generated).expect("write the schema");
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == generated,
        "{} is stale (the config types changed): run \
         EXPECTORATE=overwrite cargo test -p mcpgen-config --test config_schema",
        path.display()
    );
}

#[test]
fn the_schema_names_the_format_version() {
    let schema = config::schema();
    assert_eq!(schema["$id"], SCHEMA_ID);
    assert!(SCHEMA_ID.starts_with(env!("CARGO_PKG_REPOSITORY")), "the $id is under the crate's repository");
    assert!(SCHEMA_ID.ends_with(&format!("/mcpgen-config-{CONFIG_FORMAT_VERSION}.schema.json")), "{SCHEMA_ID}");
    assert_eq!(schema["title"], format!("mcpgen runtime config, format {CONFIG_FORMAT_VERSION}"));
    assert_eq!(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
    assert_eq!(schema["properties"]["mcpgen_config"]["enum"], json!(config::READ_FORMAT_VERSIONS));
    assert_eq!(config::READ_FORMAT_VERSIONS.last(), Some(&CONFIG_FORMAT_VERSION), "the one written is read");
    assert_eq!(schema["properties"][SCHEMA_KEY]["type"], "string");
    assert_eq!(schema["additionalProperties"], false);
}

/// The runtime configs of mcpgen's goldens: what `mcpgen config` writes for each sample (the
/// tools stage's config, `tests/golden/*.tools.json`) and the catalogues of generated crates
/// (with their token counts), by file name.
fn goldens() -> Vec<(String, Value)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden");
    let mut files: Vec<PathBuf> = Vec::new();
    for entry in std::fs::read_dir(&root).expect("tests/golden") {
        let path = entry.expect("an entry of tests/golden").path();
        if path.to_string_lossy().ends_with(".tools.json") {
            files.push(path);
        } else if path.join("src/catalogue.json").is_file() {
            files.push(path.join("src/catalogue.json"));
        }
    }
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let name = path.strip_prefix(&root).unwrap_or(&path).display().to_string();
            let text = std::fs::read_to_string(&path).expect("a golden");
            (name, serde_json::from_str(&text).expect("a golden is JSON"))
        })
        .collect()
}

#[test]
fn every_config_mcpgen_writes_validates() {
    let validator = validator();
    let goldens = goldens();
    let names: Vec<&str> = goldens.iter().map(|(name, _)| name.as_str()).collect();
    for wanted in ["petstore-oas30.tools.json", "security.tools.json", "crate-petstore-mcp/src/catalogue.json"] {
        assert!(names.contains(&wanted), "{wanted} among {names:?}");
    }
    for (name, mut value) in goldens {
        assert_eq!(value["mcpgen_config"], CONFIG_FORMAT_VERSION, "{name}");
        assert_eq!(errors(&validator, &value), "", "{name}");
        let loaded: RuntimeConfig = serde_json::from_value(value.clone()).unwrap_or_else(|e| panic!("{name}: {e}"));
        // As `mcpgen config` writes it: `$schema` first. It validates and loads to the same config.
        let mut with_key = serde_json::Map::from_iter([(SCHEMA_KEY.to_string(), Value::from(SCHEMA_ID))]);
        with_key.append(value.as_object_mut().expect("a config is an object"));
        let with_key = Value::Object(with_key);
        assert_eq!(errors(&validator, &with_key), "", "{name} with $schema");
        let text = serde_json::to_string(&with_key).expect("JSON");
        assert_eq!(RuntimeConfig::from_json(&text).unwrap_or_else(|e| panic!("{name}: {e}")), loaded, "{name}");
    }
}

/// A small config with one tool of each part the mutations below change.
fn base() -> Value {
    json!({
        "$schema": SCHEMA_ID,
        "mcpgen_config": CONFIG_FORMAT_VERSION,
        "server": {"name": "t", "version": "1"},
        "upstream": {"base_url": "https://api.example.com", "headers": {"X-Client": "mcpgen"}},
        "security_schemes": {
            "key": {"type": "api_key", "location": "header", "name": "X-Key", "env": "KEY"},
            "cc": {"type": "oauth2_client_credentials", "token_url": "https://auth.example.com/token",
                   "client_id_env": "ID", "client_secret_env": "SECRET"}
        },
        "context": {"tool_mode": "discovery", "pin_tools": ["get_*"]},
        "resources": {"route_maps": true},
        "tools": [{
            "name": "add_pet",
            "input_schema": {"type": "object"},
            "annotations": {"readOnlyHint": false, "destructiveHint": false, "idempotentHint": false,
                            "openWorldHint": true},
            "scopes": ["write"],
            "http": {
                "method": "POST", "path": "/pets/{id}",
                "params": [{"arg": "id", "name": "id", "in": "path", "style": "simple", "explode": false}],
                "body": {"media_type": "application/json", "content": {"kind": "properties",
                         "fields": [{"arg": "name", "name": "name"}]}},
                "security": [["key"], ["cc"]]
            }
        }]
    })
}

/// Whether loading (`Deserialize`) takes `value`.
fn loads(value: &Value) -> bool {
    serde_json::from_value::<RuntimeConfig>(value.clone()).is_ok()
}

#[test]
fn the_schema_takes_what_loading_takes() {
    let validator = validator();
    assert!(loads(&base()), "the base config loads");
    assert_eq!(errors(&validator, &base()), "");
    type Edit = fn(&mut Value);
    let cases: &[(&str, Edit)] = &[
        ("no $schema", |c| drop(c.as_object_mut().map(|o| o.remove("$schema")))),
        ("$schema not a string", |c| c["$schema"] = json!(1)),
        ("an unknown key", |c| c["mcpgen_confg"] = json!(1)),
        ("an unknown key in a tool", |c| c["tools"][0]["descripton"] = json!("x")),
        ("an unknown key in a binding", |c| c["tools"][0]["http"]["url"] = json!("/x")),
        ("no tools", |c| drop(c.as_object_mut().map(|o| o.remove("tools")))),
        ("no server version", |c| drop(c["server"].as_object_mut().map(|o| o.remove("version")))),
        ("a lower-case method", |c| c["tools"][0]["http"]["method"] = json!("post")),
        ("an unknown method", |c| c["tools"][0]["http"]["method"] = json!("FETCH")),
        ("a parameter in the body", |c| c["tools"][0]["http"]["params"][0]["in"] = json!("body")),
        ("an unknown style", |c| c["tools"][0]["http"]["params"][0]["style"] = json!("csv")),
        ("an input schema that is no object", |c| c["tools"][0]["input_schema"] = json!(true)),
        ("an output schema", |c| c["tools"][0]["output_schema"] = json!({"type": "object"})),
        ("an output schema that is no object", |c| c["tools"][0]["output_schema"] = json!("string")),
        ("a null title", |c| c["tools"][0]["title"] = Value::Null),
        ("no annotations", |c| drop(c["tools"][0].as_object_mut().map(|o| o.remove("annotations")))),
        ("a snake_case annotation", |c| c["tools"][0]["annotations"]["read_only_hint"] = json!(true)),
        ("scopes as sets", |c| c["tools"][0]["scopes"] = json!([["a", "b"], ["c"]])),
        ("no scopes", |c| c["tools"][0]["scopes"] = json!([])),
        ("scopes and sets mixed", |c| c["tools"][0]["scopes"] = json!(["a", ["b"]])),
        ("a scope that is no string", |c| c["tools"][0]["scopes"] = json!([1])),
        ("a whole body", |c| c["tools"][0]["http"]["body"]["content"] = json!({"kind": "whole", "arg": "pet"})),
        ("a whole body without its argument", |c| c["tools"][0]["http"]["body"]["content"] = json!({"kind": "whole"})),
        ("an unknown body kind", |c| c["tools"][0]["http"]["body"]["content"] = json!({"kind": "form"})),
        ("the arguments as body", |c| c["tools"][0]["http"]["body"]["content"] = json!({"kind": "arguments"})),
        ("a call body", |c| c["tools"][0]["http"]["body"]["content"] = json!({"kind": "call", "name": "f"})),
        ("a bearer scheme", |c| c["security_schemes"]["b"] = json!({"type": "bearer", "env": "T"})),
        ("a bearer scheme with a name", |c| {
            c["security_schemes"]["b"] = json!({"type": "bearer", "env": "T", "name": "x"})
        }),
        ("a scheme without its env var", |c| c["security_schemes"]["b"] = json!({"type": "bearer"})),
        ("an unknown scheme type", |c| c["security_schemes"]["b"] = json!({"type": "digest", "env": "T"})),
        ("an API key in the body", |c| c["security_schemes"]["key"]["location"] = json!("body")),
        ("a requirement that is no list", |c| c["tools"][0]["http"]["security"] = json!(["key"])),
        ("limits with one key", |c| c["limits"] = json!({"timeout_secs": 5})),
        ("a negative size cap", |c| c["limits"] = json!({"max_response_bytes": -1})),
        ("a timeout as text", |c| c["limits"] = json!({"timeout_secs": "5"})),
        ("an unknown tool mode", |c| c["context"]["tool_mode"] = json!("some")),
        ("compact schemas", |c| c["context"]["schema_detail"] = json!("compact")),
        ("token counts", |c| c["context"]["tools_list_tokens"] = json!({"full": 10, "compact": 5})),
        ("half the token counts", |c| c["context"]["tools_list_tokens"] = json!({"full": 10})),
        ("a resource scheme", |c| c["resources"]["scheme"] = json!("pets")),
        ("apis", |c| {
            c["apis"] = json!([{"name": "a", "prefix": "a_", "upstream": {"base_url": "https://a.example.com"}}])
        }),
        ("an API without a name", |c| c["apis"] = json!([{"prefix": "a_"}])),
        ("tags", |c| c["tags"] = json!({"pet": "Everything about your Pets."})),
        ("a tag description that is no string", |c| c["tags"] = json!({"pet": 1})),
        ("tags that are a list", |c| c["tags"] = json!(["pet"])),
        ("an API's tags", |c| c["apis"] = json!([{"name": "a", "tags": {"pet": "Pets."}}])),
        ("a header that is no string", |c| c["upstream"]["headers"]["X-Client"] = json!(1)),
    ];
    let mut differ = Vec::new();
    for (what, edit) in cases {
        let mut value = base();
        edit(&mut value);
        let (valid, loaded) = (validator.is_valid(&value), loads(&value));
        if valid != loaded {
            differ.push(format!(
                "{what}: the schema says {valid}, loading says {loaded}: {}",
                errors(&validator, &value)
            ));
        }
    }
    assert!(differ.is_empty(), "the schema and loading disagree:\n{}", differ.join("\n"));
}

/// A config written before `tags` (the base has none) loads, with no area described.
#[test]
fn a_config_without_tags_loads() {
    let config: RuntimeConfig = serde_json::from_value(base()).unwrap();
    assert!(config.tags.is_empty());
}

/// Where the schema is stricter than loading: keys serde reads past without a word, and which mean
/// nothing. A body of `kind: arguments` (a unit variant of an internally tagged enum) ignores
/// the other keys despite `deny_unknown_fields`.
#[test]
fn the_schema_refuses_keys_loading_ignores() {
    let mut value = base();
    value["tools"][0]["http"]["body"]["content"] = json!({"kind": "arguments", "arg": "x"});
    assert!(loads(&value));
    assert!(!validator().is_valid(&value));
}

/// The format version is checked by the loader (mcpgen's `read_config`), not by the type: the
/// schema takes the versions that load, no other.
#[test]
fn the_schema_takes_only_the_format_versions_that_load() {
    let mut value = base();
    value["mcpgen_config"] = json!(CONFIG_FORMAT_VERSION + 1);
    assert!(!validator().is_valid(&value));
    value["mcpgen_config"] = json!(0);
    assert!(!validator().is_valid(&value));
}

/// Format 1 (each tool's schemas self-contained) and format 2 (definitions shared, kept once)
/// both validate and load, to the same tools once assembled.
#[test]
fn format_1_and_format_2_validate_and_load_alike() {
    let node = json!({"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}});
    let schema = json!({"type": "object", "properties": {"head": {"$ref": "#/$defs/Node"}}, "$defs": {"Node": node}});
    let mut v1 = base();
    v1["mcpgen_config"] = json!(1);
    v1["tools"][0]["input_schema"] = schema.clone();
    v1["tools"][0]["output_schema"] = schema.clone();
    assert_eq!(errors(&validator(), &v1), "");
    let mut config: RuntimeConfig = serde_json::from_value(v1).expect("format 1 loads");
    config.share_definitions();
    config.mcpgen_config = CONFIG_FORMAT_VERSION;
    let v2 = serde_json::to_value(&config).expect("JSON");
    assert_eq!(v2["definitions"], json!({"Node": node}));
    assert!(v2["tools"][0]["input_schema"].get("$defs").is_none(), "{v2}");
    assert_eq!(errors(&validator(), &v2), "");
    let loaded: RuntimeConfig = serde_json::from_value(v2).expect("format 2 loads");
    let tool = &loaded.tools[0];
    assert_eq!(Value::Object(config::assemble(&tool.input_schema, &loaded.definitions).into_owned()), schema);
    let output = tool.output_schema.as_ref().expect("an output schema");
    assert_eq!(Value::Object(config::assemble(output, &loaded.definitions).into_owned()), schema);
}

/// A `$schema` key is skipped wherever it is in the config, and unknown keys keep failing.
#[test]
fn loading_skips_the_schema_key_only() {
    let config = |text: &str| RuntimeConfig::from_json(text).map(|c| c.tools.len());
    let tools = r#""tools": []"#;
    let head = r#""mcpgen_config": 1, "server": {"name": "t", "version": "1"}, "upstream": {}"#;
    assert_eq!(config(&format!(r#"{{"$schema": "{SCHEMA_ID}", {head}, {tools}}}"#)).ok(), Some(0));
    assert_eq!(config(&format!(r#"{{{head}, "$schema": "./mcpgen-config.schema.json", {tools}}}"#)).ok(), Some(0));
    let e = config(&format!(r#"{{{head}, "$schema": 1, {tools}}}"#)).unwrap_err().to_string();
    assert!(e.contains("invalid type: integer `1`, expected a string"), "{e}");
    let e = config(&format!(r#"{{{head}, "$schemas": "x", {tools}}}"#)).unwrap_err().to_string();
    assert!(e.contains("unknown field `$schemas`"), "{e}");
    let e = config(&format!(r#"{{"$schema": "x", {head}}}"#)).unwrap_err().to_string();
    assert!(e.contains("missing field `tools`"), "{e}");
    let e = config("[]").unwrap_err().to_string();
    assert!(e.contains("expected an mcpgen runtime config (an object)"), "{e}");
    // Written without it: the key is the writer's (`mcpgen config`) to add.
    let c = RuntimeConfig::from_json(&format!(r#"{{"$schema": "x", {head}, {tools}}}"#)).expect("loads");
    let back = serde_json::to_value(&c).expect("JSON");
    assert!(back.get(SCHEMA_KEY).is_none() && back["mcpgen_config"] == 1, "{back}");
}
