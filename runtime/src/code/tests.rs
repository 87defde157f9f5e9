//! Declarations, one schema construct (or attack) per test.

use serde_json::{Value, json};

use super::declare::{NamedTypes, declare};
use super::*;
use crate::config::Tool;

const ANNOTATIONS: &str =
    r#"{"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": true}"#;

fn tool(name: &str, extra: Value) -> Tool {
    let mut t = json!({"name": name, "input_schema": {"type": "object"}});
    t["annotations"] = serde_json::from_str(ANNOTATIONS).expect("annotations");
    for (k, v) in extra.as_object().expect("an object") {
        t[k] = v.clone();
    }
    serde_json::from_value(t).expect("a tool")
}

/// The declaration of a tool with this input schema, and the named types it made.
fn with_args(schema: Value) -> (String, String) {
    let t = tool("t", json!({"input_schema": schema}));
    let mut types = NamedTypes::new();
    let decl = declare(&t, &ScriptNames::new(["t"]), &mut types, &Options::default());
    (decl, types.render())
}

/// Just the `args` type of a tool with this input schema.
fn args(schema: Value) -> String {
    let (decl, _) = with_args(schema);
    let start = decl.find(": ").expect("args") + 2;
    let end = decl.rfind("): Promise<").expect("returns");
    decl[start..end].to_string()
}

fn props(properties: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required})
}

#[test]
fn the_example_of_the_brief() {
    let t = tool(
        "pulls/list",
        json!({"title": "List pull requests", "description": "Lists pull requests. More text.", "input_schema": props(json!({
            "owner": {"type": "string"}, "repo": {"type": "string"},
            "state": {"type": "string", "enum": ["open", "closed", "all"]},
            "per_page": {"type": "integer", "maximum": 100}}), &["owner", "repo"]),
        "response": {"media_types": ["application/json"], "shape": "[{id, number, user: {login, …}, …}]"}}),
    );
    let decl = declare(&t, &ScriptNames::new(["pulls/list"]), &mut NamedTypes::new(), &Options::default());
    assert_eq!(
        decl,
        "/** List pull requests */\npulls_list(args: { owner: string; repo: string; per_page?: number /* max 100 */; \
         state?: \"open\" | \"closed\" | \"all\" }): Promise<{ id; number; user: { login; /* … */ }; /* … */ }[]>;"
    );
}

#[test]
fn no_required_argument_makes_args_optional() {
    let (decl, _) = with_args(json!({"type": "object", "properties": {}}));
    assert_eq!(decl, "t(args?: {}): Promise<unknown>;");
    let (decl, _) = with_args(json!({"type": "object", "properties": {"a": {"type": "boolean"}}, "required": []}));
    assert_eq!(decl, "t(args?: { a?: boolean }): Promise<unknown>;");
}

#[test]
fn scalars() {
    let got = args(props(
        json!({"s": {"type": "string"}, "i": {"type": "integer"}, "n": {"type": "number"}, "b": {"type": "boolean"},
               "z": {"type": "null"}, "u": {}, "f": false}),
        &[],
    ));
    assert_eq!(got, "{ b?: boolean; f?: never; i?: number; n?: number; s?: string; u?: unknown; z?: null }");
}

#[test]
fn enums_are_unions_of_literals() {
    let got = args(props(json!({"e": {"enum": ["a", 1, true, null, "a\"b"]}}), &["e"]));
    assert_eq!(got, r#"{ e: "a" | 1 | true | null | "a\"b" }"#);
}

#[test]
fn a_long_enum_is_cut_with_a_marker() {
    let values: Vec<String> = (0..40).map(|i| format!("v{i}")).collect();
    let got = args(props(json!({"e": {"enum": values}}), &["e"]));
    assert!(got.contains("\"v29\" /* … 10 more */"), "{got}");
    assert!(!got.contains("\"v30\""));
}

#[test]
fn const_is_a_literal() {
    assert_eq!(args(props(json!({"k": {"const": "fixed"}}), &["k"])), r#"{ k: "fixed" }"#);
    assert_eq!(args(props(json!({"k": {"const": {"a": 1}}}), &["k"])), "{ k: unknown }");
}

#[test]
fn arrays_and_tuples() {
    let got = args(props(
        json!({"a": {"type": "array", "items": {"type": "string"}}, "b": {"type": "array"},
               "c": {"type": "array", "items": {"enum": ["x", "y"]}},
               "d": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}], "items": false},
               "e": {"items": [{"type": "string"}], "additionalItems": {"type": "boolean"}}}),
        &[],
    ));
    assert_eq!(
        got,
        r#"{ a?: string[]; b?: unknown[]; c?: ("x" | "y")[]; d?: [string, number]; e?: [string, ...boolean[]] }"#
    );
}

#[test]
fn nested_objects_are_inline() {
    let got = args(props(json!({"o": props(json!({"x": {"type": "integer"}}), &["x"])}), &["o"]));
    assert_eq!(got, "{ o: { x: number } }");
}

#[test]
fn additional_properties_are_an_index() {
    let got = args(props(
        json!({"m": {"type": "object", "additionalProperties": {"type": "string"}},
               "n": {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": true},
               "o": {"type": "object"},
               "p": {"type": "object", "properties": {}, "additionalProperties": false}}),
        &[],
    ));
    assert_eq!(
        got,
        "{ m?: { [key: string]: string }; n?: { a?: string; [key: string]: unknown }; o?: { [key: string]: unknown }; p?: {} }"
    );
}

#[test]
fn any_of_and_one_of_are_unions() {
    let got = args(props(
        json!({"u": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
               "v": {"oneOf": [{"type": "array", "items": {"type": "string"}}, {"type": "string"}]},
               "w": {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "number"}]}}}),
        &[],
    ));
    assert_eq!(got, "{ u?: string | number; v?: string[] | string; w?: (string | number)[] }");
}

#[test]
fn all_of_is_an_intersection() {
    let got = args(props(
        json!({"x": {"allOf": [props(json!({"a": {"type": "string"}}), &["a"]), {"anyOf": [{"type": "string"}, {"type": "null"}]}]}}),
        &[],
    ));
    assert_eq!(got, "{ x?: { a: string } & (string | null) }");
}

#[test]
fn nullable_is_or_null() {
    let got = args(props(
        json!({"a": {"type": ["string", "null"]}, "b": {"type": "integer", "nullable": true},
               "c": {"type": "array", "items": {"type": "string"}, "nullable": true},
               "d": {"anyOf": [{"type": "string"}, {"type": "number"}], "nullable": true}}),
        &[],
    ));
    assert_eq!(got, "{ a?: string | null; b?: number | null; c?: string[] | null; d?: (string | number) | null }");
}

#[test]
fn constraints_are_short_comments() {
    let got = args(props(
        json!({"n": {"type": "integer", "minimum": 1, "maximum": 100, "default": 30, "format": "int32"},
               "s": {"type": "string", "maxLength": 50, "pattern": "^[a-z]+$", "format": "date-time"},
               "d": {"type": "string", "default": "open", "deprecated": true},
               "b": {"type": "string", "contentEncoding": "base64"},
               "plain": {"type": "string", "description": "Not shown by default."}}),
        &[],
    ));
    assert_eq!(
        got,
        "{ b?: string /* base64 */; d?: string /* default \"open\", deprecated */; \
         n?: number /* min 1, max 100, default 30 */; plain?: string; \
         s?: string /* maxLength 50, pattern \"^[a-z]+$\", date-time */ }"
    );
}

#[test]
fn property_descriptions_when_asked() {
    let t = tool(
        "t",
        json!({"input_schema": props(json!({"a": {"type": "string", "maxLength": 3,
        "description": "The **owner** of the [repo](https://x.io). More."}}), &["a"])}),
    );
    let options = Options { param_descriptions: true, ..Options::default() };
    let decl = declare(&t, &ScriptNames::new(["t"]), &mut NamedTypes::new(), &options);
    assert_eq!(decl, "t(args: { a: string /* The owner of the repo, maxLength 3 */ }): Promise<unknown>;");
}

#[test]
fn property_names_that_are_not_identifiers_are_quoted() {
    let got = args(props(json!({"user-id": {"type": "string"}, "1st": {}, "delete": {}}), &["user-id"]));
    assert_eq!(got, r#"{ "user-id": string; "1st"?: unknown; delete?: unknown }"#);
}

#[test]
fn depth_is_capped() {
    let mut schema = json!({"type": "string"});
    for _ in 0..10 {
        schema = props(json!({"a": schema}), &["a"]);
    }
    let got = args(schema);
    assert!(got.contains("a: unknown /* … */"), "{got}");
    assert_eq!(got.matches('{').count(), Options::default().max_depth + 1, "{got}");
}

#[test]
fn properties_are_capped() {
    let properties: serde_json::Map<String, Value> =
        (0..70).map(|i| (format!("p{i:02}"), json!({"type": "string"}))).collect();
    let got = args(json!({"type": "object", "properties": properties}));
    assert!(got.ends_with("p59?: string; /* … 10 more */ }"), "{got}");
}

#[test]
fn defs_are_named_types_declared_once() {
    let schema = json!({"type": "object", "required": ["a"], "properties": {
        "a": {"$ref": "#/$defs/Pet"}, "b": {"type": "array", "items": {"$ref": "#/$defs/Pet"}}},
        "$defs": {"Pet": props(json!({"name": {"type": "string"}}), &["name"])}});
    let (decl, types) = with_args(schema);
    assert_eq!(decl, "t(args: { a: Pet; b?: Pet[] }): Promise<unknown>;");
    assert_eq!(types, "type Pet = { name: string };\n");
}

#[test]
fn recursive_defs_refer_to_themselves() {
    let schema = json!({"type": "object", "properties": {"root": {"$ref": "#/$defs/Node"}},
        "$defs": {"Node": {"type": "object", "properties": {
            "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}, "parent": {"$ref": "#/$defs/Node"}}}}});
    let (decl, types) = with_args(schema);
    assert_eq!(decl, "t(args?: { root?: Node }): Promise<unknown>;");
    assert_eq!(types, "type Node = { children?: Node[]; parent?: Node };\n");
}

#[test]
fn other_references_are_inlined_and_loops_end() {
    let schema = json!({"type": "object", "properties": {
        "a": {"type": "string"}, "b": {"$ref": "#/properties/a"}, "self": {"$ref": "#"}, "gone": {"$ref": "#/$defs/X"}}});
    let got = args(schema);
    assert_eq!(
        got,
        "{ a?: string; b?: string; gone?: unknown; self?: { a?: string; b?: string; gone?: unknown; self?: unknown /* recursive */ } }"
    );
}

#[test]
fn identical_defs_are_shared_across_tools_and_different_ones_renamed() {
    let pet = |field: &str| {
        json!({"type": "object", "properties": {"p": {"$ref": "#/$defs/Pet"}},
            "$defs": {"Pet": props(json!({field: {"type": "string"}}), &[])}})
    };
    let tools = [
        tool("a", json!({"input_schema": pet("name")})),
        tool("b", json!({"input_schema": pet("name")})),
        tool("c", json!({"input_schema": pet("tag")})),
    ];
    let block = declare_tools(&tools, &ScriptNames::new(["a", "b", "c"]), &Options::default());
    assert_eq!(
        block,
        "type Pet = { name?: string };\ntype Pet_2 = { tag?: string };\ndeclare const api: {\n  \
         a(args?: { p?: Pet }): Promise<unknown>;\n  b(args?: { p?: Pet }): Promise<unknown>;\n  \
         c(args?: { p?: Pet_2 }): Promise<unknown>;\n};\n"
    );
}

#[test]
fn defs_that_reach_different_defs_are_different_types() {
    let with_inner = |inner: &str| {
        json!({"type": "object", "properties": {"o": {"$ref": "#/$defs/Outer"}}, "$defs": {
            "Outer": {"type": "object", "properties": {"i": {"$ref": "#/$defs/Inner"}}},
            "Inner": {"type": inner}}})
    };
    let tools = [
        tool("a", json!({"input_schema": with_inner("string")})),
        tool("b", json!({"input_schema": with_inner("number")})),
    ];
    let block = declare_tools(&tools, &ScriptNames::new(["a", "b"]), &Options::default());
    assert!(block.contains("type Outer = { i?: Inner };\ntype Outer_2 = { i?: Inner_2 };"), "{block}");
}

#[test]
fn def_names_become_type_identifiers() {
    let schema = json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/Promise"}, "b": {"$ref": "#/$defs/pet-input.v1"}},
        "$defs": {"Promise": {"type": "string"}, "pet-input.v1": {"type": "number"}}});
    let (decl, types) = with_args(schema);
    assert_eq!(decl, "t(args?: { a?: Promise_; b?: pet_input_v1 }): Promise<unknown>;");
    assert_eq!(types, "type Promise_ = string;\ntype pet_input_v1 = number;\n");
}

#[test]
fn the_return_type_prefers_the_output_schema() {
    let t = tool(
        "t",
        json!({"output_schema": {"type": "object", "properties": {"result": {"type": "array", "items": {"type": "string"}}}, "required": ["result"]},
               "response": {"shape": "[string]"}}),
    );
    let decl = declare(&t, &ScriptNames::new(["t"]), &mut NamedTypes::new(), &Options::default());
    assert_eq!(decl, "t(args?: { [key: string]: unknown }): Promise<{ result: string[] }>;");
}

#[test]
fn the_return_type_from_the_shape_text_or_nothing() {
    let returns = |response: Value| {
        let t = tool("t", json!({"input_schema": {"type": "object", "properties": {}}, "response": response}));
        let decl = declare(&t, &ScriptNames::new(["t"]), &mut NamedTypes::new(), &Options::default());
        decl.trim_start_matches("t(args?: {}): Promise<").trim_end_matches(">;").to_string()
    };
    assert_eq!(returns(json!({"shape": "[integer]"})), "number[]");
    assert_eq!(returns(json!({"shape": "not a shape"})), "unknown");
    assert_eq!(returns(json!({"media_types": ["text/csv"]})), "string");
    assert_eq!(returns(json!({"media_types": ["image/png"], "shape": "{id}"})), "unknown");
    assert_eq!(returns(json!({})), "unknown");
}

#[test]
fn the_description_is_one_sentence() {
    let t = tool(
        "t",
        json!({"description": "Lists pets.\n\nPaged. */ evil();", "input_schema": {"type": "object", "properties": {}}}),
    );
    let decl = declare(&t, &ScriptNames::new(["t"]), &mut NamedTypes::new(), &Options::default());
    assert_eq!(decl, "/** Lists pets. */\nt(args?: {}): Promise<unknown>;");
    let old = tool(
        "t",
        json!({"title": "Old", "description": "[Deprecated] Old.", "input_schema": {"type": "object", "properties": {}}}),
    );
    let decl = declare(&old, &ScriptNames::new(["t"]), &mut NamedTypes::new(), &Options::default());
    assert!(decl.starts_with("/** [Deprecated] Old */\n"), "{decl}");
}

/// Hostile text everywhere text goes: nothing leaves its comment or string literal.
#[test]
fn hostile_text_stays_where_it_is_put() {
    let evil = "x */ }); evil(); /* \n\u{2028}</script><script>\"'`${1}";
    let t = tool(
        "delete",
        json!({"title": evil, "description": evil, "input_schema": {"type": "object",
            "properties": {evil: {"type": "string", "enum": [evil], "default": evil, "pattern": evil,
                "format": evil, "description": evil},
                "ok": {"$ref": format!("#/$defs/{}", "E*~1v")}},
            "$defs": {"E*/v": {"const": evil}}},
            "response": {"shape": format!("{{{}, b: {{{}}}}}", Value::from(evil), Value::from(evil))}}),
    );
    let options = Options { param_descriptions: true, ..Options::default() };
    let block = declare_tools([&t], &ScriptNames::new(["delete"]), &options);
    let mut scan = Scan::default();
    for c in block.chars() {
        scan.push(c);
    }
    assert!(scan.is_code(), "ends outside any comment or literal: {block}");
    assert_eq!(scan.code.matches("evil").count(), 0, "no text in code position: {}", scan.code);
    assert!(!block.contains(['\u{2028}', '\u{2029}']), "{block}");
    assert!(!block.contains("</script"), "{block}");
    assert_eq!(block.lines().count(), 5, "one line per type, comment and declaration: {block}");
    assert!(block.starts_with("type E__v = "), "{block}");
    assert!(block.contains("delete_(args"), "{block}");
}

/// A tiny lexer of what declarations use: code, `/* */` comments, `"..."` literals.
#[derive(Default)]
struct Scan {
    state: u8,
    prev: char,
    code: String,
}

impl Scan {
    const CODE: u8 = 0;
    const COMMENT: u8 = 1;
    const STRING: u8 = 2;
    const ESCAPE: u8 = 3;

    fn push(&mut self, c: char) {
        match self.state {
            Self::CODE if self.prev == '/' && c == '*' => {
                self.state = Self::COMMENT;
                self.code.pop();
                self.prev = ' ';
                return;
            }
            Self::CODE if c == '"' => self.state = Self::STRING,
            Self::CODE => self.code.push(c),
            Self::COMMENT if self.prev == '*' && c == '/' => {
                self.state = Self::CODE;
                self.prev = ' ';
                return;
            }
            Self::STRING if c == '\\' => self.state = Self::ESCAPE,
            Self::ESCAPE => self.state = Self::STRING,
            Self::STRING if c == '"' => self.state = Self::CODE,
            Self::STRING => assert!(!matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}'), "a line break in a literal"),
            _ => {}
        }
        self.prev = c;
    }

    fn is_code(&self) -> bool {
        self.state == Self::CODE
    }
}
