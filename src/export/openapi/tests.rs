use super::*;
use crate::ir::{Method, ParamLocation};
use crate::normalize::{Bindings, Forward, ForwardMode, Routing};
use crate::pipeline::{Pipeline, PipelineOptions, run_str};

fn pipeline(text: &str, routing: Routing) -> Pipeline {
    let opts = PipelineOptions { routing, ..Default::default() };
    run_str(text, "test.json", &opts).unwrap_or_else(|e| panic!("{e}"))
}

fn convert(text: &str, routing: Routing) -> Result<Value, String> {
    let p = pipeline(text, routing);
    to_openapi(&of_tools(p.ir, &p.tools))
}

fn forward(mode: ForwardMode) -> Routing {
    Routing::Forward(Forward::new("https://tools.example.com/v1", mode).unwrap())
}

/// An OpenAI tools list with a recursive tree, a function without arguments and one whose
/// schema refers to its own root.
fn functions() -> String {
    json!([
        {"type": "function", "function": {
            "name": "add_tree", "description": "Stores a tree.",
            "parameters": {
                "type": "object", "required": ["root"],
                "properties": {
                    "root": {"$ref": "#/$defs/Node"},
                    "label": {"type": "string", "description": "A label."}
                },
                "$defs": {"Node": {"type": "object", "properties": {
                    "kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}}
            }
        }},
        {"type": "function", "function": {"name": "ping", "description": "Pings."}},
        {"type": "function", "function": {
            "name": "nest",
            "parameters": {"type": "object", "properties": {"child": {"$ref": "#"}}}
        }}
    ])
    .to_string()
}

#[test]
fn forwarded_functions_refer_to_the_ir_schemas() {
    let doc = convert(&functions(), forward(ForwardMode::PerTool)).expect("converts");
    assert_eq!(doc["openapi"], "3.1.0");
    assert_eq!(doc["info"], json!({"title": "test", "version": "0.0.0"}));
    assert_eq!(doc["servers"], json!([{"url": "https://tools.example.com/v1"}]));
    let op = &doc["paths"]["/add_tree"]["post"];
    assert_eq!(op["operationId"], "add_tree");
    assert_eq!(op["description"], "Stores a tree.");
    assert!(op.get("x-mcp").is_none() && op.get("summary").is_none(), "{op}");
    let schemas = doc["components"]["schemas"].as_object().expect("schemas");
    let node = schemas.iter().find(|(_, s)| s.get("properties").is_some_and(|p| p.get("kids").is_some()));
    let (name, node) = node.expect("the tree's node is a component");
    let node_ref = json!({ "$ref": format!("#/components/schemas/{name}") });
    assert_eq!(node["properties"]["kids"]["items"], node_ref, "the recursion closes on the component");
    assert_eq!(
        op["requestBody"],
        json!({"required": true, "content": {"application/json": {"schema": {
            "type": "object",
            "required": ["root"],
            "properties": {"root": node_ref, "label": {"type": "string", "description": "A label."}}
        }}}})
    );
    assert_eq!(op["responses"], json!({"200": {"description": "Success"}}));
    let ping = &doc["paths"]["/ping"]["post"];
    assert!(ping.get("requestBody").is_none(), "no arguments, no body (it would come back as a `body` argument)");
    let nest = &doc["paths"]["/nest"]["post"]["requestBody"]["content"]["application/json"]["schema"];
    let child = nest["properties"]["child"]["$ref"].as_str().expect("a reference");
    let root = child.strip_prefix("#/components/schemas/").expect("into components");
    assert_eq!(&schemas[root], nest, "the root a schema refers to is a component");
}

#[test]
fn bindings_place_arguments_and_keep_their_names() {
    let list = json!([{"name": "update_pet", "description": "Updates a pet.", "parameters": {
        "type": "object",
        "required": ["petId", "name", "trace"],
        "properties": {
            "petId": {"type": "integer", "description": "The pet."},
            "dry_run": {"type": "boolean", "description": " padded "},
            "trace": {"type": "string"},
            "name": {"type": "string", "description": "New name."},
            "id": {"type": "integer"}
        }
    }}]);
    let mut bindings: Bindings = serde_json::from_value(json!({
        "base_url": "https://api.example.com/",
        "security_schemes": {"key": {"type": "api_key", "location": "header", "name": "X-Key", "env": "PETS_KEY"}},
        "security": ["key"],
        "functions": {"update_pet": {
            "method": "PUT", "path": "/pets/{petId}", "base_url": "https://other.example.com",
            "args": {"dry_run": {"in": "query", "name": "dry-run"}, "trace": {"in": "header", "name": "X-Trace"},
                     "id": {"in": "body", "name": "pet_id"}}
        }}
    }))
    .unwrap();
    bindings.origin = "bindings.yaml".into();
    let doc = convert(&list.to_string(), Routing::Bindings(Box::new(bindings))).expect("converts");
    assert_eq!(doc["servers"], json!([{"url": "https://api.example.com"}]));
    let op = &doc["paths"]["/pets/{petId}"]["put"];
    assert!(op.get("x-mcp").is_none(), "PUT hints are the defaults: {op}");
    assert_eq!(
        op["parameters"],
        json!([
            {"name": "petId", "in": "path", "required": true, "description": "The pet.",
             "schema": {"type": "integer"}},
            {"name": "dry-run", "in": "query", "schema": {"type": "boolean", "description": " padded "},
             "x-mcp-argument": "dry_run"},
            {"name": "X-Trace", "in": "header", "required": true, "schema": {"type": "string"},
             "x-mcp-argument": "trace"}
        ])
    );
    assert_eq!(
        op["requestBody"],
        json!({"required": true, "content": {"application/json": {"schema": {
            "type": "object", "required": ["name"],
            "properties": {"name": {"type": "string", "description": "New name."}, "pet_id": {"type": "integer"}}
        }}}})
    );
    assert_eq!(op["security"], json!([{"key": []}]));
    assert_eq!(op["servers"], json!([{"url": "https://other.example.com"}]));
    assert_eq!(
        doc["components"]["securitySchemes"],
        json!({"key": {"type": "apiKey", "in": "header", "name": "X-Key"}})
    );
}

#[test]
fn style_and_explode_only_when_not_default() {
    let param = |location: ParamLocation, style: ParamStyle, explode: bool| {
        let p = Parameter {
            pointer: String::new(),
            name: "a".into(),
            location,
            required: false,
            deprecated: false,
            description: None,
            style,
            explode,
            allow_reserved: false,
            schema: json!({"type": "string"}),
            content_type: None,
            argument: None,
            examples: Vec::new(),
        };
        let p = parameter(&p, &mut BTreeSet::new());
        (p.get("style").cloned(), p.get("explode").cloned())
    };
    use {ParamLocation as L, ParamStyle as S};
    assert_eq!(param(L::Query, S::Form, true), (None, None));
    assert_eq!(param(L::Query, S::Form, false), (None, Some(json!(false))));
    assert_eq!(param(L::Query, S::DeepObject, true), (Some(json!("deepObject")), Some(json!(true))));
    assert_eq!(param(L::Query, S::SpaceDelimited, false), (Some(json!("spaceDelimited")), None));
    assert_eq!(param(L::Path, S::Simple, false), (None, None));
    assert_eq!(param(L::Path, S::Label, true), (Some(json!("label")), Some(json!(true))));
    assert_eq!(param(L::Header, S::Simple, true), (None, Some(json!(true))));
    assert_eq!(param(L::Cookie, S::Form, true), (None, None));
}

/// An OpenAPI document's IR, written: what the loader reads in its own way survives.
#[test]
fn openapi_operations_as_the_ir_has_them() {
    let api = json!({
        "openapi": "3.0.3",
        "info": {"title": "Shop", "version": "2"},
        "servers": [{"url": "https://shop.example.com/api/"}],
        "security": [{"sso": []}],
        "paths": {
            "/#Action=List": {"get": {"operationId": "ListThings", "summary": "List.", "tags": ["things"],
                "x-mcp": {"annotations": {"openWorldHint": false, "readOnlyHint": true}}}},
            "/items": {"get": {"operationId": "first", "deprecated": true}},
            "/items#2": {"get": {"operationId": "second", "security": [],
                "servers": [{"url": "https://other.example.com"}]}},
            "/upload": {"post": {"operationId": "upload", "requestBody": {"required": true, "content": {
                "multipart/form-data": {
                    "schema": {"type": "object", "properties": {"file": {"type": "string", "format": "binary"}}},
                    "encoding": {"file": {"contentType": "image/png"}}}}}}}
        },
        "components": {"securitySchemes": {
            "sso": {"type": "openIdConnect", "openIdConnectUrl": "https://id.example.com"},
            "oauth": {"type": "oauth2", "flows": {
                "clientCredentials": {"tokenUrl": "https://id.example.com/token", "scopes": {"read": "Read."}},
                "implicit": {"authorizationUrl": "https://id.example.com/auth", "scopes": {}}}},
            "basic": {"type": "http", "scheme": "Basic"}
        }}
    });
    let doc = convert(&api.to_string(), Routing::Unbound).expect("converts");
    assert_eq!(doc["servers"], json!([{"url": "https://shop.example.com/api"}]));
    assert_eq!(doc["security"], json!([{"sso": []}]));
    let list = &doc["paths"]["/?Action=List"]["get"];
    assert_eq!(list["summary"], "List.");
    assert_eq!(list["tags"], json!(["things"]));
    assert_eq!(list["x-mcp"], json!({"annotations": {"openWorldHint": false}}), "GET is read-only anyway");
    assert_eq!(doc["paths"]["/items"]["get"]["deprecated"], true);
    let second = &doc["paths"]["/items#second"]["get"];
    assert_eq!(second["security"], json!([]));
    assert_eq!(second["servers"], json!([{"url": "https://other.example.com"}]));
    let upload = &doc["paths"]["/upload"]["post"]["requestBody"]["content"]["multipart/form-data"];
    assert_eq!(upload["encoding"], json!({"file": {"contentType": "image/png"}}));
    assert_eq!(upload["schema"]["properties"]["file"], json!({"type": "string", "format": "binary"}));
    assert_eq!(
        doc["components"]["securitySchemes"],
        json!({
            "sso": {"type": "openIdConnect", "openIdConnectUrl": "https://id.example.com"},
            "oauth": {"type": "oauth2", "flows": {
                "clientCredentials": {"tokenUrl": "https://id.example.com/token", "scopes": {"read": ""}},
                "implicit": {"scopes": {}}}},
            "basic": {"type": "http", "scheme": "basic"}
        })
    );
}

/// Only the operations that became tools are written, each under its tool's name.
#[test]
fn tools_pick_and_name_the_operations() {
    let api = json!({
        "openapi": "3.1.0", "info": {"title": "T", "version": "1"},
        "paths": {
            "/a": {"get": {"operationId": "same"}, "post": {"operationId": "same"}},
            "/b": {"get": {"operationId": "hidden", "x-mcp": {"hidden": true}}}
        }
    });
    let p = pipeline(&api.to_string(), Routing::Unbound);
    let names: Vec<&str> = p.tools.config.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names.len(), 2);
    let ir = of_tools(p.ir.clone(), &p.tools);
    assert_eq!(ir.operations.len(), 2, "the hidden operation is no tool");
    let renamed = ir.operations.iter().find(|op| op.method == Method::Post).expect("POST /a");
    assert_eq!(renamed.mcp.name.as_deref(), Some(names[1]), "the second `same` is pinned to its tool's name");
    let first = ir.operations.iter().find(|op| op.method == Method::Get).expect("GET /a");
    assert_eq!(first.mcp.name, None, "the loader derives this one's name");
}

#[test]
fn errors() {
    let err = convert(&functions(), Routing::Unbound).expect_err("no binding");
    assert!(err.contains("`add_tree`") && err.contains("--forward-url URL or --bindings FILE"), "{err}");
    assert_eq!(convert(&functions(), forward(ForwardMode::Single)).expect_err("call mode"), CALL_MODE);
    let mut p = pipeline(&functions(), forward(ForwardMode::PerTool));
    p.ir.operations[0].path = "add_tree".into();
    let err = to_openapi(&p.ir).expect_err("relative path");
    assert!(err.contains("`add_tree`") && err.contains("does not start with `/`"), "{err}");
}
