use serde_json::{Value, json};

#[allow(unused_imports)]
use super::compare::gained_optional_args;
#[allow(unused_imports)]
use super::file::{Definition, PINNED_FIELDS, PINS_FORMAT_VERSION, canonical, definition_in, sha256, what_changed};
use super::*;
use crate::config::Tool;

/// A tool's definition, its schemas self-contained.
fn definition(tool: &Tool) -> Value {
    definition_in(tool, &Arc::default())
}

/// A tool as a config has it: `extra` over a GET tool with one required `id`.
fn tool(name: &str, extra: Value) -> Tool {
    let mut t = json!({
        "name": name,
        "description": "Get a pet.",
        "input_schema": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
        "annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": true},
    });
    if let (Value::Object(t), Value::Object(extra)) = (&mut t, extra) {
        t.extend(extra);
    }
    serde_json::from_value(t).unwrap()
}

fn defs(tools: &[Tool]) -> Definitions {
    definitions(tools)
}

#[test]
fn the_canonical_form_sorts_keys_at_every_depth_and_is_compact() {
    let a: Value = serde_json::from_str(r#"{"b": {"y": 1, "x": [{"d": 2, "c": 3}]}, "a": "é"}"#).unwrap();
    assert_eq!(canonical(&a), r#"{"a":"é","b":{"x":[{"c":3,"d":2}],"y":1}}"#);
    let b = json!({"a": "é", "b": {"x": [{"c": 3, "d": 2}], "y": 1}});
    assert_eq!(sha256(&a), sha256(&b));
    // The SHA-256 of the canonical text, in hex.
    assert_eq!(sha256(&json!({})), "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a");
    assert_ne!(sha256(&json!({"a": 1})), sha256(&json!({"a": 1.5})));
}

#[test]
fn a_definition_is_what_clients_are_shown_and_only_that() {
    let t = tool("getPet", json!({"title": "Get pet", "scopes": [["read"]], "tags": ["pets"]}));
    let d = definition(&t);
    let keys: Vec<&str> = d.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["annotations", "description", "inputSchema", "name", "title"]);
    assert_eq!(d["annotations"]["readOnlyHint"], true);
    // Who may call it and how search files it are not part of it.
    let plain = tool("getPet", json!({"title": "Get pet"}));
    assert_eq!(definition(&plain), d);
    // Every word clients read is.
    let reworded = tool("getPet", json!({"title": "Get pet", "description": "Get a pet, then delete it."}));
    assert_ne!(sha256(&definition(&reworded)), sha256(&d));
}

#[test]
fn what_changed_names_fields_and_arguments() {
    let old = definition(&tool("t", json!({})));
    let described = definition(&tool("t", json!({"description": "Other."})));
    assert_eq!(what_changed(Some(&old), &described), ["description"]);
    let schema = json!({
        "type": "object",
        "properties": {"id": {"type": "integer"}, "force": {"type": "boolean"}, "note": {"type": "string"}},
        "required": ["id", "force"],
    });
    let reshaped = definition(&tool("t", json!({"input_schema": schema})));
    assert_eq!(
        what_changed(Some(&old), &reshaped),
        ["input schema (new required `force`, new optional `note`, changed `id`)"]
    );
    let loosened = definition(&tool("t", json!({"input_schema": {"type": "object", "additionalProperties": false}})));
    assert_eq!(what_changed(Some(&old), &loosened), ["input schema (removed `id`, other keywords)"]);
    assert_eq!(what_changed(None, &old), ["its definition (the pin keeps none to compare with)"]);
}

#[test]
fn gaining_an_optional_argument_is_the_only_change_approved_automatically() {
    let base = definition(&tool("t", json!({})));
    let with = |props: Value, required: Value, extra: Value| {
        let mut t = json!({"input_schema": {"type": "object", "properties": props, "required": required}});
        if let (Value::Object(t), Value::Object(extra)) = (&mut t, extra) {
            t.extend(extra);
        }
        definition(&tool("t", t))
    };
    let id = json!({"type": "string"});
    let optional = with(json!({"id": id, "limit": {"type": "integer"}}), json!(["id"]), json!({}));
    assert_eq!(gained_optional_args(&base, &optional), Some(vec!["limit".to_string()]));
    // A new required argument, a changed one, a change beside it, or no change at all: no.
    let required = with(json!({"id": id, "limit": {"type": "integer"}}), json!(["id", "limit"]), json!({}));
    assert_eq!(gained_optional_args(&base, &required), None);
    let changed = with(json!({"id": {"type": "integer"}, "limit": {"type": "integer"}}), json!(["id"]), json!({}));
    assert_eq!(gained_optional_args(&base, &changed), None);
    let reworded = with(json!({"id": id, "limit": {}}), json!(["id"]), json!({"description": "Delete a pet."}));
    assert_eq!(gained_optional_args(&base, &reworded), None);
    let loosened = with(json!({"id": id}), json!([]), json!({}));
    assert_eq!(gained_optional_args(&base, &loosened), None);
    assert_eq!(gained_optional_args(&base, &base), None);
}

#[test]
fn a_review_withholds_changed_and_new_tools_and_keeps_the_rest() {
    let pinned = PinFile::of(&defs(&[tool("a", json!({})), tool("b", json!({})), tool("gone", json!({}))]));
    let limit = json!({"input_schema": {"type": "object", "properties": {"id": {"type": "string"}, "limit": {"type": "integer"}}, "required": ["id"]}});
    let now = defs(&[
        tool("a", json!({})),
        tool("b", limit),
        tool("c", json!({})),
        tool("gone2", json!({"description": "x"})),
    ]);
    let strict = review(&pinned, &now, &[]);
    assert_eq!(strict.matching, 1);
    assert_eq!(strict.withheld["b"], Reason::Changed(vec!["input schema (new optional `limit`)".into()]));
    assert_eq!(strict.withheld["c"], Reason::New);
    assert_eq!((strict.count("changed"), strict.count("new")), (1, 2));
    assert_eq!(strict.stale, ["gone"]);
    let lenient = review(&pinned, &now, &[AutoApprove::OptionalArgs]);
    assert_eq!(lenient.approved, [("b".to_string(), vec!["limit".to_string()])]);
    assert!(!lenient.withheld.contains_key("b") && lenient.withheld.contains_key("c"));
}

#[test]
fn a_pin_whose_definition_was_edited_does_not_approve_automatically() {
    let old = defs(&[tool("b", json!({}))]);
    let mut pinned = PinFile::of(&old);
    let limit = json!({"input_schema": {"type": "object", "properties": {"id": {"type": "string"}, "limit": {"type": "integer"}}, "required": ["id"]}});
    let now = defs(&[tool("b", limit)]);
    // The definition kept no longer matches its hash: it says nothing.
    pinned.tools.get_mut("b").unwrap().definition = Some(now["b"].value.clone());
    let r = review(&pinned, &now, &[AutoApprove::OptionalArgs]);
    assert!(r.approved.is_empty());
    assert_eq!(r.withheld["b"], Reason::Changed(vec!["its definition (the pin keeps none to compare with)".into()]));
}

#[test]
fn the_file_is_written_whole_sorted_and_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pins.json");
    assert_eq!(PinFile::read(&path).unwrap(), None, "no file: nothing pinned yet");
    let pins = PinFile::of(&defs(&[tool("b", json!({})), tool("a", json!({}))]));
    pins.write(&path).unwrap();
    assert_eq!(PinFile::read(&path).unwrap(), Some(pins.clone()));
    let text = std::fs::read_to_string(&path).unwrap();
    let value: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(value["version"], 1);
    assert_eq!(value["tools"]["a"]["sha256"].as_str().unwrap().len(), 64);
    assert!(text.find("\"a\"").unwrap() < text.find("\"b\"").unwrap(), "{text}");
    let names: Vec<String> =
        std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    assert_eq!(names, ["pins.json"], "no temporary file left");
}

#[test]
fn a_corrupt_file_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pins.json");
    for (text, says) in [
        ("{\"version\": 1, \"tools\": ", "not a pins file"),
        ("{\"version\": 2, \"tools\": {}}", "format version 2"),
        ("{\"version\": 1, \"tools\": {\"a\": {\"sha256\": \"xyz\"}}}", "the pin of `a` is not a SHA-256"),
        ("{\"version\": 1, \"tools\": {}, \"extra\": 1}", "unknown field `extra`"),
    ] {
        std::fs::write(&path, text).unwrap();
        let e = PinFile::read(&path).unwrap_err().to_string();
        assert!(e.starts_with(&format!("pins file {}: ", path.display())) && e.contains(says), "{e}");
    }
}

#[test]
fn approving_pins_all_tools_or_the_named_ones() {
    let mut pins = PinFile::of(&defs(&[tool("a", json!({})), tool("b", json!({})), tool("gone", json!({}))]));
    let now = defs(&[tool("a", json!({"description": "New."})), tool("b", json!({})), tool("c", json!({}))]);
    let mut only_a = pins.clone();
    let approval = only_a.approve(&now, &["a".into()]).unwrap();
    assert_eq!(approval.changed, [("a".to_string(), vec!["description".to_string()])]);
    assert!(approval.added.is_empty() && approval.removed.is_empty());
    assert!(!only_a.tools.contains_key("c") && only_a.tools.contains_key("gone"));
    assert_eq!(pins.approve(&now, &["nope".into()]), Err("no tool and no pin named `nope`".into()));
    let all = pins.approve(&now, &[]).unwrap();
    assert_eq!((all.added, all.removed), (vec!["c".to_string()], vec!["gone".to_string()]));
    assert_eq!(pins, PinFile::of(&now));
    assert!(pins.approve(&now, &[]).unwrap().is_empty());
}

#[test]
fn the_server_trusts_on_first_use_then_withholds() {
    let dir = tempfile::tempdir().unwrap();
    let pinner = Pinner::new(dir.path().join("pins.json"), Vec::new());
    let config = |tools: Vec<Tool>| -> RuntimeConfig {
        let mut c: RuntimeConfig = serde_json::from_value(json!({
            "mcpgen_config": 1, "server": {"name": "t", "version": "1"}, "upstream": {}, "tools": [],
        }))
        .unwrap();
        c.tools = tools;
        c
    };
    let mut first = config(vec![tool("a", json!({})), tool("b", json!({}))]);
    assert!(pinner.apply(&mut first).unwrap().is_empty());
    assert_eq!(first.tools.len(), 2);
    assert!(pinner.path().exists(), "the pins are written");
    let mut next = config(vec![tool("a", json!({"description": "Now delete it."})), tool("b", json!({}))]);
    let withheld = pinner.apply(&mut next).unwrap();
    assert_eq!(withheld.reason("a"), Some(&Reason::Changed(vec!["description".into()])));
    assert_eq!((withheld.len(), withheld.count("changed"), withheld.count("new")), (1, 1, 0));
    let names: Vec<&str> = next.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["b"], "the changed tool is out of the catalogue");
}
