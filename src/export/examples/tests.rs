//! Input examples from each source, checked and capped.

use serde_json::json;

use super::*;
use crate::pipeline::{PipelineOptions, run_str};

/// The input examples of the tool `name` of an OpenAPI document (YAML), with its operation
/// (`with_op`) or from its schema alone, as for a runtime config.
fn examples(yaml: &str, name: &str, with_op: bool) -> ToolExamples {
    let p = run_str(yaml, "api.yaml", &PipelineOptions::default()).expect("pipeline");
    let tool = p.tools.config.tools.iter().find(|t| t.name == name).expect("tool");
    let pointer = &p.tools.source(name).expect("source").pointer;
    let op = p.ir.operations.iter().find(|o| &o.pointer == pointer).filter(|_| with_op);
    let schema = crate::export::openapi::fold_local_defs(&tool.input_schema);
    input_examples(tool, &schema, op)
}

fn doc(paths: &str) -> String {
    format!("openapi: 3.1.0\ninfo: {{title: t, version: '1'}}\npaths:\n{paths}")
}

const SEARCH: &str = "  /books:
    get:
      operationId: search
      parameters:
      - {name: q, in: query, required: true, schema: {type: string}, example: dune}
      - name: limit
        in: query
        schema: {type: integer, maximum: 100}
        examples: {large: {value: 50}, small: {value: 5}}
      responses: {'200': {description: ok}}
";

#[test]
fn parameter_examples_fill_their_arguments() {
    let got = examples(&doc(SEARCH), "search", true);
    assert_eq!(
        got.kept,
        vec![json!({"q": "dune", "limit": 50}), json!({"q": "dune"}), json!({"q": "dune", "limit": 5})]
    );
    assert!(got.dropped.is_empty(), "{:?}", got.dropped);
}

#[test]
fn parameter_examples_need_the_description() {
    let got = examples(&doc(SEARCH), "search", false);
    assert_eq!(got, ToolExamples::default());
}

#[test]
fn schema_examples_need_no_description() {
    let paths = "  /books/{id}:
    get:
      operationId: get_book
      parameters:
      - {name: id, in: path, required: true, schema: {type: integer, example: 7}}
      responses: {'200': {description: ok}}
";
    assert_eq!(examples(&doc(paths), "get_book", false).kept, vec![json!({"id": 7})]);
}

const CREATE: &str = "  /books/{shelf}:
    post:
      operationId: create
      parameters:
      - {name: shelf, in: path, required: true, schema: {type: string}, example: sci-fi}
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [title]
              properties:
                id: {type: integer, readOnly: true}
                title: {type: string}
                year: {type: integer, minimum: 1450}
            example: {id: 1, title: Dune, year: 1965}
            examples:
              broken: {value: {title: Incunable, year: 1200}}
              short: {value: {title: Emma}}
      responses: {'200': {description: ok}}
";

#[test]
fn body_examples_fill_the_body_arguments_and_read_only_fields_go() {
    let got = examples(&doc(CREATE), "create", true);
    assert_eq!(got.kept[0], json!({"shelf": "sci-fi", "title": "Dune", "year": 1965}));
    assert_eq!(got.kept[1], json!({"shelf": "sci-fi", "title": "Dune"}));
}

#[test]
fn examples_that_break_the_schema_are_left_out_with_the_reason() {
    let got = examples(&doc(CREATE), "create", true);
    assert_eq!(got.kept.len(), 3);
    assert_eq!(got.kept[2], json!({"shelf": "sci-fi", "title": "Emma"}));
    assert_eq!(got.dropped.len(), 1, "{:?}", got.dropped);
    assert!(got.dropped[0].starts_with("example 3 left out: /year:"), "{}", got.dropped[0]);
}

#[test]
fn a_required_argument_without_an_example_makes_no_candidate() {
    let paths = "  /books/{id}/loans:
    get:
      operationId: loans
      parameters:
      - {name: id, in: path, required: true, schema: {type: string}}
      - {name: since, in: query, schema: {type: string}, example: '2024-01-01'}
      responses: {'200': {description: ok}}
";
    assert_eq!(examples(&doc(paths), "loans", true), ToolExamples::default());
}

#[test]
fn whole_bodies_take_their_example_as_the_body_argument() {
    let paths = "  /tags:
    put:
      operationId: set_tags
      requestBody:
        content:
          application/json:
            schema: {type: array, items: {type: string}}
            example: [classic, space]
      responses: {'200': {description: ok}}
";
    assert_eq!(examples(&doc(paths), "set_tags", true).kept, vec![json!({"body": ["classic", "space"]})]);
}

#[test]
fn nested_examples_are_assembled_into_objects_and_arrays() {
    let paths = "  /authors:
    post:
      operationId: add_author
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                name: {type: string, example: Herbert}
                address:
                  type: object
                  required: [city]
                  properties:
                    city: {type: string, example: Tacoma}
                    zip: {type: string}
                aliases: {type: array, items: {type: string, example: Frank}}
                agent:
                  type: object
                  required: [phone]
                  properties:
                    phone: {type: string}
                    name: {type: string, example: Lurton}
      responses: {'200': {description: ok}}
";
    let got = examples(&doc(paths), "add_author", false);
    assert_eq!(got.kept, vec![json!({"name": "Herbert", "address": {"city": "Tacoma"}, "aliases": ["Frank"]})]);
}

#[test]
fn multipart_files_are_left_out() {
    let paths = "  /covers:
    post:
      operationId: upload_cover
      requestBody:
        content:
          multipart/form-data:
            schema:
              type: object
              properties:
                caption: {type: string}
                file: {type: string, format: binary}
            example: {caption: front, file: not-base64}
      responses: {'200': {description: ok}}
";
    assert_eq!(examples(&doc(paths), "upload_cover", true).kept, vec![json!({"caption": "front"})]);
}

#[test]
fn long_examples_are_left_out() {
    let long = "x".repeat(MAX_EXAMPLE_CHARS);
    let paths = format!(
        "  /notes:
    post:
      operationId: note
      parameters:
      - {{name: text, in: query, required: true, schema: {{type: string}}, examples: {{a: {{value: {long}}}, b: {{value: ok}}}}}}
      responses: {{'200': {{description: ok}}}}
"
    );
    let got = examples(&doc(&paths), "note", true);
    assert_eq!(got.kept, vec![json!({"text": "ok"})]);
    assert!(got.dropped[0].contains("characters, over"), "{:?}", got.dropped);
}

#[test]
fn at_most_three_are_kept() {
    let named: Vec<String> = (0..6).map(|i| format!("e{i}: {{value: {i}}}")).collect();
    let paths = format!(
        "  /n:
    get:
      operationId: count_books
      parameters:
      - {{name: n, in: query, required: true, schema: {{type: integer}}, examples: {{{}}}}}
      responses: {{'200': {{description: ok}}}}
",
        named.join(", ")
    );
    let got = examples(&doc(&paths), "count_books", true);
    assert_eq!(got.kept, vec![json!({"n": 0}), json!({"n": 1}), json!({"n": 2})]);
    assert!(got.dropped.is_empty());
}

#[test]
fn a_tool_without_arguments_has_none() {
    let paths = "  /ping:\n    get:\n      operationId: ping\n      responses: {'200': {description: ok}}\n";
    assert_eq!(examples(&doc(paths), "ping", true), ToolExamples::default());
}

#[test]
fn long_problems_are_cut() {
    let text = problem_text("/a", &"y".repeat(500));
    assert_eq!(text.chars().count(), 161);
    assert!(text.ends_with('…'));
}

#[test]
fn body_examples_are_not_mixed_with_their_fields_examples() {
    let paths = "  /books:
    post:
      operationId: add
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                title: {type: string, example: Dune}
                year: {type: integer, example: 1965}
            examples:
              a: {value: {title: Emma}}
      responses: {'200': {description: ok}}
";
    assert_eq!(examples(&doc(paths), "add", true).kept, vec![json!({"title": "Emma"})]);
}
