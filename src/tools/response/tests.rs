use serde_json::json;

use super::*;

/// The IR of `GET /a` with this 200 response content, `x-mcp` and `components/schemas`.
fn ir_of(content: Value, x_mcp: Value, schemas: Value) -> ApiIr {
    let doc = json!({
        "openapi": "3.1.0", "info": {"title": "t", "version": "1"},
        "paths": {"/a": {"get": {"x-mcp": x_mcp, "responses": {"200": {"description": "ok", "content": content}}}}},
        "components": {"schemas": schemas}
    });
    let loaded = crate::load::load_str(&doc.to_string(), "api.json").expect("loads");
    crate::normalize::normalize(loaded, false).expect("normalises")
}

fn info(content: Value, schemas: Value) -> Option<ResponseInfo> {
    let ir = ir_of(content, json!({}), schemas);
    response_info(&ir.operations[0], &ir)
}

/// The shape of a JSON response with this schema.
fn shape(schema: Value, schemas: Value) -> Option<String> {
    info(json!({"application/json": {"schema": schema}}), schemas).and_then(|i| i.shape)
}

fn object_of(names: &[&str]) -> Value {
    let props: serde_json::Map<String, Value> =
        names.iter().map(|n| (n.to_string(), json!({"type": "string"}))).collect();
    json!({"type": "object", "properties": props})
}

#[test]
fn media_types_are_listed() {
    let got = info(json!({"application/json": {}, "text/plain": {}}), json!({}));
    assert_eq!(got.map(|i| i.media_types), Some(vec!["application/json".to_string(), "text/plain".to_string()]));
}

#[test]
fn nothing_known_is_none() {
    let ir = ir_of(json!({}), json!({}), json!({}));
    assert_eq!(response_info(&ir.operations[0], &ir), None);
}

#[test]
fn the_budget_comes_from_x_mcp() {
    let ir = ir_of(json!({}), json!({"maxResultChars": 1234}), json!({}));
    let got = response_info(&ir.operations[0], &ir);
    assert_eq!(got, Some(ResponseInfo { max_result_chars: Some(1234), ..Default::default() }));
}

#[test]
fn an_object_lists_its_members() {
    assert_eq!(shape(object_of(&["id", "title"]), json!({})), Some("{id, title}".into()));
}

#[test]
fn a_nested_object_lists_five_members() {
    let user = object_of(&["a", "b", "c", "d", "e", "f"]);
    let schema = json!({"type": "object", "properties": {"id": {"type": "integer"}, "user": user}});
    assert_eq!(shape(schema, json!({})), Some("{id, user: {a, b, c, d, e, …}}".into()));
}

#[test]
fn a_nested_array_of_objects_is_shown() {
    let schema =
        json!({"type": "object", "properties": {"labels": {"type": "array", "items": object_of(&["color", "name"])}}});
    assert_eq!(shape(schema, json!({})), Some("{labels: [{name, color}]}".into()));
}

#[test]
fn a_nested_array_of_scalars_is_its_name() {
    let schema = json!({"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}}}});
    assert_eq!(shape(schema, json!({})), Some("{tags}".into()));
}

#[test]
fn nothing_below_the_second_level_is_shown() {
    let schema =
        json!({"type": "object", "properties": {"a": {"type": "object", "properties": {"b": object_of(&["c"])}}}});
    assert_eq!(shape(schema, json!({})), Some("{a: {b}}".into()));
}

#[test]
fn an_array_of_objects_is_bracketed() {
    let schema = json!({"type": "array", "items": {"$ref": "#/components/schemas/Issue"}});
    let schemas = json!({"Issue": object_of(&["id", "state"])});
    assert_eq!(shape(schema, schemas), Some("[{id, state}]".into()));
}

#[test]
fn a_top_level_scalar_is_its_type() {
    assert_eq!(shape(json!({"type": ["string", "null"]}), json!({})), Some("string".into()));
}

#[test]
fn a_top_level_array_of_scalars_is_its_item_type() {
    assert_eq!(shape(json!({"type": "array", "items": {"type": "integer"}}), json!({})), Some("[integer]".into()));
}

#[test]
fn an_object_without_members_is_open() {
    assert_eq!(
        shape(json!({"type": "object", "additionalProperties": {"type": "string"}}), json!({})),
        Some("{…}".into())
    );
}

#[test]
fn the_top_level_lists_forty_members() {
    let names: Vec<String> = (0..45).map(|i| format!("m{i:02}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let got = shape(object_of(&names), json!({})).expect("a shape");
    assert!(got.ends_with("m39, …}"), "{got}");
    assert_eq!(got.matches(", ").count(), TOP_MEMBERS);
}

#[test]
fn a_long_shape_is_cut_between_members() {
    let names: Vec<String> = (0..30).map(|i| format!("a_rather_long_member_name_{i:02}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let got = shape(object_of(&names), json!({})).expect("a shape");
    assert!(got.chars().count() <= MAX_SHAPE_CHARS, "{}", got.len());
    assert!(got.ends_with("_name_18, …}"), "{got}");
}

#[test]
fn names_that_identify_come_first() {
    let got = shape(object_of(&["body", "title", "state", "number", "id"]), json!({}));
    assert_eq!(got, Some("{id, number, title, state, body}".into()));
}

#[test]
fn links_come_last() {
    let got = shape(object_of(&["_links", "url", "html_url", "body", "id"]), json!({}));
    assert_eq!(got, Some("{id, body, _links, html_url, url}".into()));
}

#[test]
fn names_come_before_nesting() {
    let wide: Vec<String> = (0..5).map(|i| format!("a_long_nested_member_name_{i}")).collect();
    let wide: Vec<&str> = wide.iter().map(String::as_str).collect();
    let mut props = serde_json::Map::new();
    for i in 0..6 {
        props.insert(format!("object_{i}"), object_of(&wide));
    }
    props.insert("z".into(), json!({"type": "string"}));
    let got = shape(json!({"type": "object", "properties": props}), json!({})).expect("a shape");
    assert!(got.chars().count() <= MAX_SHAPE_CHARS, "{got}");
    assert!(got.ends_with(", object_4, object_5, z}"), "{got}");
    assert!(got.starts_with("{object_0: {a_long_nested_member_name_0"), "{got}");
}

#[test]
fn combinators_merge_their_members() {
    let schema = json!({"allOf": [{"$ref": "#/components/schemas/Base"}, {"properties": {"extra": {"type": "string"}}}],
        "oneOf": [object_of(&["kind"])]});
    let schemas = json!({"Base": object_of(&["id"])});
    assert_eq!(shape(schema, schemas), Some("{id, extra, kind}".into()));
}

#[test]
fn a_cycle_ends() {
    let schemas = json!({"Node": {"type": "object", "allOf": [{"$ref": "#/components/schemas/Node"}],
        "properties": {"id": {"type": "integer"}, "parent": {"$ref": "#/components/schemas/Node"}}}});
    assert_eq!(shape(json!({"$ref": "#/components/schemas/Node"}), schemas), Some("{id, parent: {id, parent}}".into()));
}

#[test]
fn names_that_are_not_identifiers_are_quoted() {
    assert_eq!(shape(object_of(&["@type", "ok"]), json!({})), Some("{\"@type\", ok}".into()));
}

#[test]
fn without_a_schema_the_example_gives_the_shape() {
    let got = info(json!({"application/json": {"example": [{"id": 1, "user": {"login": "o"}}]}}), json!({}));
    assert_eq!(got.and_then(|i| i.shape), Some("[{id, user: {login}}]".into()));
}

#[test]
fn a_response_that_is_not_json_has_no_shape() {
    let got = info(json!({"text/csv": {"schema": {"type": "string"}}}), json!({}));
    assert_eq!(got.map(|i| (i.media_types, i.shape)), Some((vec!["text/csv".to_string()], None)));
}
