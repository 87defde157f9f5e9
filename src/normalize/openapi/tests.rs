//! The walker's tests: server templates, response examples, `x-mcp`.

use super::*;
use serde_json::json;

#[test]
fn templates_and_variables() {
    assert_eq!(template_vars("/a/{x}/b/{y}.json"), vec!["x", "y"]);
    assert_eq!(template_vars("/a/{x"), Vec::<&str>::new());
    let vars = serde_json::json!({"region": {"default": "eu"}, "v": {"enum": ["v2"]}});
    assert_eq!(substitute_variables("https://{region}.x.com/{v}", Some(&vars)), "https://eu.x.com/v2");
}

/// The example of the first operation's response, for its one media type.
fn response_example(responses: serde_json::Value) -> (Option<Value>, Vec<Diagnostic>) {
    let doc = serde_json::json!({
        "openapi": "3.0.3", "info": {"title": "t", "version": "1"},
        "paths": {"/a": {"get": {"responses": responses}}},
        "components": {"examples": {"one": {"value": {"id": 1}}, "loop": {"$ref": "#/components/examples/loop"}}}
    });
    let loaded = crate::load::load_str(&doc.to_string(), "api.json").expect("loads");
    let ir = crate::normalize::normalize(loaded, false).expect("normalises");
    let op = &ir.operations[0];
    let example = op.response.as_ref().and_then(|r| r.content.first()).and_then(|m| m.example.clone());
    (example, ir.diagnostics)
}

/// The first operation's `x-mcp` and the warnings it gave.
fn read_x_mcp(x_mcp: serde_json::Value) -> (McpExtension, Vec<Diagnostic>) {
    let doc = serde_json::json!({
        "openapi": "3.0.3", "info": {"title": "t", "version": "1"},
        "paths": {"/a": {"get": {"x-mcp": x_mcp, "responses": {"200": {"description": "ok"}}}}}
    });
    let loaded = crate::load::load_str(&doc.to_string(), "api.json").expect("loads");
    let ir = crate::normalize::normalize(loaded, false).expect("normalises");
    (ir.operations[0].mcp.clone(), ir.diagnostics)
}

#[test]
fn max_result_chars_is_read() {
    let (ext, diags) = read_x_mcp(serde_json::json!({"maxResultChars": 8000}));
    assert_eq!(ext.max_result_chars, Some(8000));
    assert!(diags.is_empty(), "{diags:?}");
}

#[test]
fn max_result_chars_that_is_not_a_count_is_a_warning() {
    let (ext, diags) = read_x_mcp(serde_json::json!({"maxResultChars": "lots"}));
    assert_eq!(ext.max_result_chars, None);
    assert!(diags.iter().any(|d| d.message.contains("must be a number of characters")), "{diags:?}");
}

#[test]
fn max_result_chars_spelled_otherwise_is_a_warning() {
    let (ext, diags) = read_x_mcp(serde_json::json!({"max-result-chars": 8000}));
    assert_eq!(ext.max_result_chars, None);
    assert!(diags.iter().any(|d| d.message.contains("spelled `maxResultChars`")), "{diags:?}");
}

#[test]
fn response_example_from_example() {
    let (example, _) = response_example(serde_json::json!({"200": {"description": "ok",
        "content": {"application/json": {"example": [1], "examples": {"a": {"value": [2]}}}}}}));
    assert_eq!(example, Some(serde_json::json!([1])));
}

#[test]
fn response_example_from_the_first_of_examples() {
    let (example, _) = response_example(serde_json::json!({"200": {"description": "ok",
        "content": {"application/json": {"examples": {"b": {"value": "b"}, "a": {"summary": "no value"}, "c": {"value": "c"}}}}}}));
    assert_eq!(example, Some(serde_json::json!("b")));
}

#[test]
fn response_example_through_a_ref() {
    let (example, _) = response_example(serde_json::json!({"200": {"description": "ok",
        "content": {"application/json": {"examples": {"x": {"$ref": "#/components/examples/one"}}}}}}));
    assert_eq!(example, Some(serde_json::json!({"id": 1})));
}

#[test]
fn response_example_with_a_circular_ref_is_a_warning() {
    let (example, diags) = response_example(serde_json::json!({"200": {"description": "ok",
        "content": {"application/json": {"examples": {"x": {"$ref": "#/components/examples/loop"}}}}}}));
    assert_eq!(example, None);
    assert!(diags.iter().any(|d| d.message.contains("example ignored")), "{diags:?}");
}

/// The first operation of a document whose `/a` has `post` as given, and the warnings.
fn post_operation(post: serde_json::Value) -> (Operation, Vec<Diagnostic>) {
    let doc = serde_json::json!({
        "openapi": "3.0.3", "info": {"title": "t", "version": "1"},
        "paths": {"/a": {"post": post}},
        "components": {"examples": {"one": {"value": {"id": 1}}, "loop": {"$ref": "#/components/examples/loop"}}}
    });
    let loaded = crate::load::load_str(&doc.to_string(), "api.json").expect("loads");
    let mut ir = crate::normalize::normalize(loaded, false).expect("normalises");
    (ir.operations.remove(0), ir.diagnostics)
}

fn ok() -> serde_json::Value {
    serde_json::json!({"200": {"description": "ok"}})
}

#[test]
fn parameter_examples_are_kept_example_first_then_examples_by_name() {
    let (op, _) = post_operation(serde_json::json!({"responses": ok(), "parameters": [{
        "name": "q", "in": "query", "schema": {"type": "string"}, "example": "first",
        "examples": {"b": {"value": "by name b"}, "a": {"value": "by name a"}, "none": {"summary": "no value"}}
    }]}));
    assert_eq!(op.parameters[0].examples, vec![json!("first"), json!("by name a"), json!("by name b")]);
}

#[test]
fn content_parameter_examples_come_from_its_media_type() {
    let (op, _) = post_operation(serde_json::json!({"responses": ok(), "parameters": [{
        "name": "filter", "in": "query",
        "content": {"application/json": {"schema": {"type": "object"}, "examples": {"x": {"$ref": "#/components/examples/one"}}}}
    }]}));
    assert_eq!(op.parameters[0].examples, vec![json!({"id": 1})]);
}

#[test]
fn request_body_examples_are_kept_per_media_type() {
    let (op, diags) = post_operation(serde_json::json!({"responses": ok(), "requestBody": {"content": {
        "application/json": {"schema": {"type": "object"}, "example": {"n": 1},
            "examples": {"loop": {"$ref": "#/components/examples/loop"}, "two": {"value": {"n": 2}}}},
        "text/plain": {"schema": {"type": "string"}}
    }}}));
    let body = op.request_body.expect("body");
    assert_eq!(body.content[0].examples, vec![json!({"n": 1}), json!({"n": 2})]);
    assert!(body.content[1].examples.is_empty());
    assert!(diags.iter().any(|d| d.message.contains("example ignored")), "{diags:?}");
}

#[test]
fn declared_examples_are_capped() {
    let named: serde_json::Map<String, Value> =
        (0..30).map(|i| (format!("e{i:02}"), serde_json::json!({"value": i}))).collect();
    let (op, _) = post_operation(serde_json::json!({"responses": ok(), "parameters": [{
        "name": "n", "in": "query", "schema": {"type": "integer"}, "examples": named
    }]}));
    let expected: Vec<Value> = (0..crate::ir::MAX_DECLARED_EXAMPLES).map(|i| json!(i)).collect();
    assert_eq!(op.parameters[0].examples, expected);
}
