use serde_json::{Value, json};

use super::*;

/// The IR of an OpenAPI 3.1 document with these `paths` and `components/schemas`.
fn ir_of(servers: Value, paths: Value, schemas: Value) -> ApiIr {
    let doc = json!({
        "openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "servers": servers,
        "paths": paths, "components": {"schemas": schemas}
    });
    let loaded = crate::load::load_str(&doc.to_string(), "api.json").expect("loads");
    crate::normalize::normalize(loaded, false).expect("normalises")
}

/// The sample of `GET /a` with these query parameters and this 200 response content.
fn sample_with(parameters: Value, content: Value, schemas: Value) -> Option<Sample> {
    let paths = json!({"/a": {"get": {"parameters": parameters,
        "responses": {"200": {"description": "ok", "content": content}}}}});
    let ir = ir_of(json!([{"url": "https://api.test.com/v1"}]), paths, schemas);
    sample_response(&ir, &ir.operations[0])
}

/// The synthesised sample of a JSON response with this schema, without parameters.
fn synthesised(schema: Value) -> Value {
    let content = json!({"application/json": {"schema": schema}});
    sample_with(json!([]), content, json!({})).expect("a sample").value
}

fn limit(schema: Value) -> Value {
    json!([{"name": "limit", "in": "query", "schema": schema}])
}

fn list_of_ids() -> Value {
    json!({"application/json": {"schema": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "integer"}}}}}})
}

#[test]
fn the_declared_example_is_the_value() {
    let content = json!({"application/json": {"schema": {"type": "object"}, "example": {"id": 7}}});
    let sample = sample_with(json!([]), content, json!({})).expect("a sample");
    assert_eq!(sample.value, json!({"id": 7}));
    assert_eq!(sample.source, SampleSource::Example);
    assert_eq!(sample.page_size, None);
    assert!(!sample.list_filled);
}

#[test]
fn without_an_example_the_value_is_made_from_the_schema() {
    let content =
        json!({"application/json": {"schema": {"type": "object", "properties": {"id": {"type": "integer"}}}}});
    let sample = sample_with(json!([]), content, json!({})).expect("a sample");
    assert_eq!(sample.value, json!({"id": 1}));
    assert_eq!(sample.source, SampleSource::Synthesised);
}

#[test]
fn a_response_that_is_not_json_has_no_sample() {
    let content = json!({"text/csv": {"schema": {"type": "string"}}});
    assert_eq!(sample_with(json!([]), content, json!({})), None);
}

#[test]
fn a_schema_that_says_nothing_has_no_sample() {
    let content = json!({"application/json": {}});
    assert_eq!(sample_with(json!([]), content, json!({})), None);
}

#[test]
fn a_response_without_content_has_no_sample() {
    let paths = json!({"/a": {"delete": {"responses": {"204": {"description": "gone"}}}}});
    let ir = ir_of(json!([]), paths, json!({}));
    assert_eq!(sample_response(&ir, &ir.operations[0]), None);
}

#[test]
fn application_json_is_preferred() {
    let content = json!({
        "application/hal+json": {"schema": {"type": "string"}, "example": "hal"},
        "application/json": {"schema": {"type": "string"}, "example": "plain"},
    });
    assert_eq!(sample_with(json!([]), content, json!({})).map(|s| s.value), Some(json!("plain")));
}

#[test]
fn a_json_suffix_is_json() {
    let content = json!({"application/vnd.api+json": {"example": [1]}, "text/html": {"example": "<p>"}});
    assert_eq!(sample_with(json!([]), content, json!({})).map(|s| s.source), Some(SampleSource::Example));
}

#[test]
fn any_media_type_is_read_as_json() {
    let content = json!({"*/*": {"schema": {"type": "boolean"}}});
    assert_eq!(sample_with(json!([]), content, json!({})).map(|s| s.value), Some(json!(false)));
}

#[test]
fn a_top_level_scalar_is_its_value() {
    assert_eq!(synthesised(json!({"type": "string"})), json!("example"));
}

#[test]
fn const_comes_first() {
    assert_eq!(synthesised(json!({"type": "string", "const": "c", "examples": ["e"]})), json!("c"));
}

#[test]
fn examples_come_before_the_type() {
    assert_eq!(synthesised(json!({"type": "string", "examples": ["octocat"]})), json!("octocat"));
}

#[test]
fn default_comes_before_enum() {
    assert_eq!(synthesised(json!({"type": "string", "default": "d", "enum": ["a", "d"]})), json!("d"));
}

#[test]
fn enum_gives_its_first_value_but_null() {
    assert_eq!(synthesised(json!({"type": ["string", "null"], "enum": [null, "open"]})), json!("open"));
}

#[test]
fn strings_follow_their_format() {
    let schema = json!({"type": "object", "properties": {
        "when": {"type": "string", "format": "date-time"}, "mail": {"type": "string", "format": "email"},
        "key": {"type": "string", "format": "uuid"}, "day": {"type": "string", "format": "date"}}});
    assert_eq!(
        synthesised(schema),
        json!({"when": "2024-01-01T00:00:00Z", "mail": "user@example.com",
            "key": "00000000-0000-4000-8000-000000000000", "day": "2024-01-01"})
    );
}

#[test]
fn url_members_are_on_the_servers_origin() {
    let schema =
        json!({"type": "object", "properties": {"comments_url": {"type": "string"}, "href": {"type": "string"}}});
    assert_eq!(
        synthesised(schema),
        json!({"comments_url": "https://api.test.com/comments", "href": "https://api.test.com/resource"})
    );
}

#[test]
fn url_members_use_the_operations_own_server() {
    let paths = json!({"/a": {"get": {"servers": [{"url": "https://uploads.test.com/x"}],
        "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object",
            "properties": {"upload_url": {"type": "string", "format": "uri"}}}}}}}}}});
    let ir = ir_of(json!([{"url": "https://api.test.com"}]), paths, json!({}));
    let sample = sample_response(&ir, &ir.operations[0]).expect("a sample");
    assert_eq!(sample.value, json!({"upload_url": "https://uploads.test.com/upload"}));
}

#[test]
fn url_members_without_a_server_use_the_fallback_origin() {
    let paths = json!({"/a": {"get": {"responses": {"200": {"description": "ok",
        "content": {"application/json": {"schema": {"type": "object", "properties": {"url": {"type": "string"}}}}}}}}}});
    let ir = ir_of(json!([]), paths, json!({}));
    let sample = sample_response(&ir, &ir.operations[0]).expect("a sample");
    assert_eq!(sample.value, json!({"url": "https://api.example.com/resource"}));
}

#[test]
fn members_named_at_are_date_times() {
    let schema =
        json!({"type": "object", "properties": {"created_at": {"type": "string"}, "updatedAt": {"type": "string"}}});
    assert_eq!(synthesised(schema), json!({"created_at": "2024-01-01T00:00:00Z", "updatedAt": "2024-01-01T00:00:00Z"}));
}

#[test]
fn string_lengths_are_kept() {
    let schema = json!({"type": "object", "properties": {
        "code": {"type": "string", "maxLength": 3}, "long": {"type": "string", "minLength": 10}}});
    assert_eq!(synthesised(schema), json!({"code": "exa", "long": "examplexxx"}));
}

#[test]
fn numbers_stay_within_their_bounds() {
    let schema = json!({"type": "object", "properties": {
        "a": {"type": "integer", "minimum": 5}, "b": {"type": "number", "maximum": 0}, "c": {"type": "number"}}});
    assert_eq!(synthesised(schema), json!({"a": 5, "b": 0.0, "c": 1.5}));
}

#[test]
fn an_untyped_schema_with_properties_is_an_object() {
    assert_eq!(synthesised(json!({"properties": {"ok": {"type": "boolean"}}})), json!({"ok": false}));
}

#[test]
fn arrays_have_one_item() {
    assert_eq!(
        synthesised(json!({"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}}}})),
        json!({"tags": ["example"]})
    );
}

#[test]
fn refs_are_followed() {
    let content = json!({"application/json": {"schema": {"$ref": "#/components/schemas/User"}}});
    let schemas =
        json!({"User": {"type": "object", "properties": {"login": {"type": "string", "example": "octocat"}}}});
    let sample = sample_with(json!([]), content, schemas).expect("a sample");
    assert_eq!(sample.value, json!({"login": "octocat"}));
}

#[test]
fn all_of_merges_its_objects() {
    let schema = json!({"allOf": [
        {"type": "object", "properties": {"id": {"type": "integer"}}},
        {"type": "object", "properties": {"name": {"type": "string"}}}]});
    assert_eq!(synthesised(schema), json!({"id": 1, "name": "example"}));
}

#[test]
fn one_of_takes_its_first_branch_that_is_not_null() {
    let schema = json!({"oneOf": [{"type": "null"}, {"type": "integer"}, {"type": "string"}]});
    assert_eq!(synthesised(schema), json!(1));
}

#[test]
fn a_reference_back_is_left_out() {
    let content = json!({"application/json": {"schema": {"$ref": "#/components/schemas/Node"}}});
    let schemas = json!({"Node": {"type": "object", "properties": {
        "id": {"type": "integer"}, "parent": {"$ref": "#/components/schemas/Node"},
        "children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}}}}});
    let sample = sample_with(json!([]), content, schemas).expect("a sample");
    assert_eq!(sample.value, json!({"id": 1, "children": []}));
}

#[test]
fn deep_objects_are_cut_at_the_depth_limit() {
    let mut schema = json!({"type": "integer"});
    for _ in 0..10 {
        schema = json!({"type": "object", "properties": {"a": schema}});
    }
    let value = synthesised(schema);
    let depth = std::iter::successors(Some(&value), |v| v.get("a")).count();
    assert_eq!(depth, MAX_DEPTH + 1);
    assert_eq!(std::iter::successors(Some(&value), |v| v.get("a")).last(), Some(&json!({})));
}

#[test]
fn an_array_response_is_filled_to_the_declared_default() {
    let sample =
        sample_with(limit(json!({"type": "integer", "default": 3})), list_of_ids(), json!({})).expect("a sample");
    assert_eq!(sample.value, json!([{"id": 1}, {"id": 1}, {"id": 1}]));
    assert_eq!(sample.page_size, Some(3));
    assert!(sample.list_filled);
}

#[test]
fn without_a_default_the_page_size_is_twenty() {
    let sample = sample_with(limit(json!({"type": "integer"})), list_of_ids(), json!({})).expect("a sample");
    assert_eq!(sample.page_size, Some(DEFAULT_PAGE_SIZE));
    assert_eq!(sample.value.as_array().map(Vec::len), Some(DEFAULT_PAGE_SIZE));
}

#[test]
fn without_a_default_the_page_size_stays_under_the_maximum() {
    let sample =
        sample_with(limit(json!({"type": "integer", "maximum": 10})), list_of_ids(), json!({})).expect("a sample");
    assert_eq!(sample.page_size, Some(10));
}

#[test]
fn without_a_default_the_page_size_stays_over_the_minimum() {
    let sample =
        sample_with(limit(json!({"type": "integer", "minimum": 25})), list_of_ids(), json!({})).expect("a sample");
    assert_eq!(sample.page_size, Some(25));
}

#[test]
fn a_default_written_as_a_string_counts() {
    let sample =
        sample_with(limit(json!({"type": "string", "default": "5"})), list_of_ids(), json!({})).expect("a sample");
    assert_eq!(sample.page_size, Some(5));
}

#[test]
fn the_page_size_is_capped() {
    let sample =
        sample_with(limit(json!({"type": "integer", "default": 5000})), list_of_ids(), json!({})).expect("a sample");
    assert_eq!(sample.page_size, Some(MAX_PAGE_SIZE));
}

#[test]
fn a_parameter_that_takes_no_number_is_not_a_page_size() {
    let params = json!([{"name": "size", "in": "query", "schema": {"type": "string", "enum": ["small", "large"]}},
        {"name": "count", "in": "query", "schema": {"type": "integer", "default": 4}}]);
    let sample = sample_with(params, list_of_ids(), json!({})).expect("a sample");
    assert_eq!(sample.page_size, Some(4));
}

#[test]
fn page_size_names_ignore_case_and_punctuation() {
    let params = json!([{"name": "$top", "in": "query", "schema": {"type": "integer", "default": 7}}]);
    assert_eq!(sample_with(params, list_of_ids(), json!({})).and_then(|s| s.page_size), Some(7));
    let params = json!([{"name": "maxResults", "in": "query", "schema": {"type": "integer", "default": 8}}]);
    assert_eq!(sample_with(params, list_of_ids(), json!({})).and_then(|s| s.page_size), Some(8));
}

#[test]
fn per_page_is_preferred_over_limit() {
    let params = json!([{"name": "limit", "in": "query", "schema": {"type": "integer", "default": 2}},
        {"name": "per_page", "in": "query", "schema": {"type": "integer", "default": 30}}]);
    assert_eq!(sample_with(params, list_of_ids(), json!({})).and_then(|s| s.page_size), Some(30));
}

#[test]
fn a_page_size_outside_the_query_does_not_count() {
    let params = json!([{"name": "limit", "in": "header", "schema": {"type": "integer", "default": 2}}]);
    assert_eq!(sample_with(params, list_of_ids(), json!({})).and_then(|s| s.page_size), Some(DEFAULT_PAGE_SIZE));
}

#[test]
fn an_array_response_without_a_page_size_parameter_is_filled_to_twenty() {
    let sample = sample_with(json!([]), list_of_ids(), json!({})).expect("a sample");
    assert_eq!(sample.page_size, Some(DEFAULT_PAGE_SIZE));
    assert_eq!(sample.value.as_array().map(Vec::len), Some(DEFAULT_PAGE_SIZE));
}

#[test]
fn an_example_list_is_filled_with_its_first_item() {
    let content = json!({"application/json": {"example": [{"n": 1}, {"n": 2}]}});
    let sample = sample_with(limit(json!({"type": "integer", "default": 4})), content, json!({})).expect("a sample");
    assert_eq!(sample.value, json!([{"n": 1}, {"n": 2}, {"n": 1}, {"n": 1}]));
}

#[test]
fn an_empty_example_list_is_filled_with_items_made_from_the_schema() {
    let content = json!({"application/json": {"example": [],
        "schema": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "integer"}}}}}});
    let sample = sample_with(limit(json!({"type": "integer", "default": 2})), content, json!({})).expect("a sample");
    assert_eq!(sample.value, json!([{"id": 1}, {"id": 1}]));
    assert_eq!(sample.source, SampleSource::Example);
}

#[test]
fn an_empty_list_without_an_item_schema_stays_empty() {
    let content = json!({"application/json": {"example": []}});
    let sample = sample_with(json!([]), content, json!({})).expect("a sample");
    assert_eq!(sample.value, json!([]));
    assert!(!sample.list_filled);
    assert_eq!(sample.page_size, Some(DEFAULT_PAGE_SIZE));
}

#[test]
fn a_list_longer_than_the_page_is_kept() {
    let content = json!({"application/json": {"example": [1, 2, 3]}});
    let sample = sample_with(limit(json!({"type": "integer", "default": 2})), content, json!({})).expect("a sample");
    assert_eq!(sample.value, json!([1, 2, 3]));
    assert!(!sample.list_filled);
}

#[test]
fn an_objects_main_array_is_filled() {
    let content = json!({"application/json": {"schema": {"type": "object", "properties": {
        "object": {"const": "list"}, "has_more": {"type": "boolean"},
        "data": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "string"}}}}}}}});
    let sample = sample_with(limit(json!({"type": "integer", "default": 3})), content, json!({})).expect("a sample");
    assert_eq!(sample.value["data"], json!([{"id": "example"}, {"id": "example"}, {"id": "example"}]));
    assert_eq!(sample.value["object"], json!("list"));
}

#[test]
fn the_main_array_is_the_one_of_objects() {
    let content = json!({"application/json": {"example": {"warnings": ["a", "b", "c"], "channels": [{"id": "C1"}]}}});
    let sample = sample_with(limit(json!({"type": "integer", "default": 2})), content, json!({})).expect("a sample");
    assert_eq!(sample.value["channels"], json!([{"id": "C1"}, {"id": "C1"}]));
    assert_eq!(sample.value["warnings"], json!(["a", "b", "c"]));
}

#[test]
fn the_main_array_is_the_one_with_most_items() {
    let content = json!({"application/json": {"example": {"a": [{"x": 1}], "b": [{"y": 1}, {"y": 2}]}}});
    let sample = sample_with(limit(json!({"type": "integer", "default": 3})), content, json!({})).expect("a sample");
    assert_eq!(sample.value["b"].as_array().map(Vec::len), Some(3));
    assert_eq!(sample.value["a"].as_array().map(Vec::len), Some(1));
}

#[test]
fn an_empty_main_array_is_found_by_its_schema() {
    let schema = json!({"type": "object", "properties": {
        "tags": {"type": "array", "items": {"type": "string"}},
        "items": {"type": "array", "items": {"$ref": "#/components/schemas/Item"}}}});
    let content = json!({"application/json": {"schema": schema, "example": {"tags": ["t"], "items": []}}});
    let schemas = json!({"Item": {"type": "object", "properties": {"id": {"type": "integer"}}}});
    let sample = sample_with(limit(json!({"type": "integer", "default": 2})), content, schemas).expect("a sample");
    assert_eq!(sample.value["items"], json!([{"id": 1}, {"id": 1}]));
}

#[test]
fn an_object_without_a_page_size_parameter_has_no_list() {
    let content = json!({"application/json": {"example": {"name": "repo", "topics": ["a"]}}});
    let sample = sample_with(json!([]), content, json!({})).expect("a sample");
    assert_eq!(sample.value, json!({"name": "repo", "topics": ["a"]}));
    assert_eq!(sample.page_size, None);
}

#[test]
fn samples_are_deterministic() {
    let content = json!({"application/json": {"schema": {"type": "object", "properties": {
        "b": {"type": "string"}, "a": {"type": "array", "items": {"type": "integer"}}}}}});
    let one = sample_with(json!([]), content.clone(), json!({}));
    assert_eq!(one, sample_with(json!([]), content, json!({})));
}
