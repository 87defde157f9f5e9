use super::*;

fn config(tools: Value) -> RuntimeConfig {
    serde_json::from_value(json!({
        "mcpgen_config": 1,
        "server": {"name": "pets", "version": "1.2.0", "title": "Pet Store", "instructions": "Pets."},
        "upstream": {"base_url": "https://api.example.com/v1"},
        "security_schemes": {
            "key": {"type": "api_key", "location": "header", "name": "X-Key", "env": "PETS_KEY"},
            "token": {"type": "bearer", "env": "PETS_TOKEN"},
            "login": {"type": "basic", "username_env": "U", "password_env": "P"},
            "cc": {"type": "oauth2_client_credentials", "token_url": "https://auth/token",
                   "scopes": ["read", "write"], "client_id_env": "I", "client_secret_env": "S"},
            "sso": {"type": "external", "description": "OpenID Connect", "env": "PETS_SSO"}
        },
        "tools": tools
    }))
    .expect("valid config")
}

fn annotations(read_only: bool, destructive: bool, idempotent: bool) -> Value {
    json!({"readOnlyHint": read_only, "destructiveHint": destructive, "idempotentHint": idempotent,
           "openWorldHint": true})
}

fn forward_tool() -> Value {
    json!({
        "name": "add_tree",
        "title": "Add a tree",
        "description": "Stores a tree.",
        "input_schema": {
            "type": "object",
            "required": ["root"],
            "properties": {
                "root": {"type": "object", "properties": {
                    "kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}},
                "label": {"type": "string", "description": "A label."}
            },
            "$defs": {"Node": {"type": "object", "properties": {
                "kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}}
        },
        "annotations": annotations(false, false, false),
        "http": {"method": "POST", "path": "/add_tree", "body": {"media_type": "application/json",
                 "content": {"kind": "arguments"}}}
    })
}

#[test]
fn forward_tool_with_recursive_defs() {
    let doc = to_openapi(&config(json!([forward_tool()]))).expect("converts");
    assert_eq!(doc["openapi"], "3.1.0");
    assert_eq!(doc["info"], json!({"title": "Pet Store", "version": "1.2.0", "description": "Pets."}));
    assert_eq!(doc["servers"], json!([{"url": "https://api.example.com/v1"}]));
    let op = &doc["paths"]["/add_tree"]["post"];
    assert_eq!(op["operationId"], "add_tree");
    assert_eq!(op["description"], "Stores a tree.");
    assert_eq!(op["x-mcp"], json!({"title": "Add a tree"}), "POST hints are the defaults");
    assert!(op.get("summary").is_none());
    let node = json!({"type": "object", "properties": {
        "kids": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}}}});
    assert_eq!(doc["components"]["schemas"], json!({ "Node": node }));
    assert_eq!(
        op["requestBody"],
        json!({"required": true, "content": {"application/json": {"schema": {
            "type": "object",
            "required": ["root"],
            "properties": {
                "root": {"$ref": "#/components/schemas/Node"},
                "label": {"type": "string", "description": "A label."}
            }
        }}}})
    );
    assert_eq!(op["responses"], json!({"200": {"description": "Success"}}));
    assert!(op.get("security").is_none() && op.get("parameters").is_none());
}

#[test]
fn shared_and_clashing_defs_and_root_refs() {
    let mut other = forward_tool();
    other["name"] = json!("add_other");
    other["http"]["path"] = json!("/add_other");
    let mut clash = forward_tool();
    clash["name"] = json!("add_list");
    clash["http"]["path"] = json!("/add_list");
    clash["input_schema"]["$defs"]["Node"] = json!({"type": "array", "items": {"$ref": "#/$defs/Node"}});
    let recursive_root = json!({
        "name": "nest", "description": "", "annotations": annotations(false, false, false),
        "input_schema": {"type": "object", "properties": {"child": {"$ref": "#"}}},
        "http": {"method": "POST", "path": "/nest", "body": {"media_type": "application/json",
                 "content": {"kind": "arguments"}}}
    });
    let doc = to_openapi(&config(json!([forward_tool(), other, clash, recursive_root]))).expect("converts");
    let schemas = &doc["components"]["schemas"];
    assert_eq!(
        schemas.as_object().map(|s| s.keys().cloned().collect::<Vec<_>>()).unwrap_or_default(),
        ["Node", "Node_2", "nest"]
    );
    assert_eq!(schemas["Node_2"], json!({"type": "array", "items": {"$ref": "#/components/schemas/Node_2"}}));
    let root_ref = json!({"$ref": "#/components/schemas/nest"});
    assert_eq!(schemas["nest"], json!({"type": "object", "properties": {"child": root_ref}}));
    let body = |path: &str| doc["paths"][path]["post"]["requestBody"]["content"]["application/json"]["schema"].clone();
    assert_eq!(body("/add_other"), body("/add_tree"));
    assert_eq!(
        body("/add_list")["properties"]["root"]["properties"]["kids"],
        json!({"$ref": "#/components/schemas/Node_2"}),
        "the inlined array of the other tool's `Node` folds back into a reference"
    );
    assert_eq!(body("/nest"), schemas["nest"]);
    assert!(doc["paths"]["/nest"]["post"].get("description").is_none());
}

#[test]
fn bindings_tool_with_params_and_fields() {
    let tool = json!({
        "name": "update_pet",
        "description": "Updates a pet.",
        "input_schema": {
            "type": "object",
            "required": ["petId", "name", "X-Trace"],
            "properties": {
                "petId": {"type": "integer", "description": "The pet."},
                "dry_run": {"type": "boolean", "description": " padded "},
                "X-Trace": {"type": "string"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "filter": {"type": "object"},
                "name": {"type": "string", "description": "New name."},
                "body_id": {"type": "integer"}
            }
        },
        "annotations": annotations(false, true, true),
        "http": {
            "method": "PUT", "path": "/pets/{petId}",
            "params": [
                {"arg": "petId", "name": "petId", "in": "path", "style": "simple", "explode": false},
                {"arg": "dry_run", "name": "dry-run", "in": "query", "style": "form", "explode": true},
                {"arg": "X-Trace", "name": "X-Trace", "in": "header", "style": "simple", "explode": false},
                {"arg": "tags", "name": "tags", "in": "query", "style": "pipeDelimited", "explode": false,
                 "allow_reserved": true},
                {"arg": "filter", "name": "filter", "in": "query", "style": "form", "explode": true,
                 "content_type": "application/json"}
            ],
            "body": {"media_type": "application/json", "content": {"kind": "properties", "fields": [
                {"arg": "name", "name": "name"}, {"arg": "body_id", "name": "id"}]}},
            "security": [["key"], ["token", "login"], []],
            "base_url": "https://other.example.com"
        }
    });
    let doc = to_openapi(&config(json!([tool]))).expect("converts");
    let op = &doc["paths"]["/pets/{petId}"]["put"];
    assert!(op.get("x-mcp").is_none(), "PUT hints are the defaults: {op}");
    assert_eq!(
        op["parameters"],
        json!([
            {"name": "petId", "in": "path", "required": true, "description": "The pet.",
             "schema": {"type": "integer"}},
            {"name": "dry-run", "in": "query", "schema": {"type": "boolean", "description": " padded "},
             "x-mcp-argument": "dry_run"},
            {"name": "X-Trace", "in": "header", "required": true, "schema": {"type": "string"}},
            {"name": "tags", "in": "query", "style": "pipeDelimited", "allowReserved": true,
             "schema": {"type": "array", "items": {"type": "string"}}},
            {"name": "filter", "in": "query", "content": {"application/json": {"schema": {"type": "object"}}}}
        ])
    );
    assert_eq!(
        op["requestBody"],
        json!({"required": true, "content": {"application/json": {"schema": {
            "type": "object", "required": ["name"],
            "properties": {"name": {"type": "string", "description": "New name."}, "id": {"type": "integer"}}
        }}}})
    );
    assert_eq!(op["security"], json!([{"key": []}, {"token": [], "login": []}, {}]));
    assert_eq!(op["servers"], json!([{"url": "https://other.example.com"}]));
    assert_eq!(
        doc["components"]["securitySchemes"],
        json!({
            "key": {"type": "apiKey", "in": "header", "name": "X-Key"},
            "token": {"type": "http", "scheme": "bearer"},
            "login": {"type": "http", "scheme": "basic"},
            "cc": {"type": "oauth2", "flows": {"clientCredentials": {"tokenUrl": "https://auth/token",
                   "scopes": {"read": "", "write": ""}}}},
            "sso": {"type": "http", "scheme": "bearer", "description": "OpenID Connect"}
        })
    );
}

#[test]
fn style_and_explode_only_when_not_default() {
    let param = |location: &str, style: &str, explode: bool| {
        let tool = json!({
            "name": "t", "input_schema": {"type": "object", "properties": {"a": {"type": "string"}}},
            "annotations": annotations(true, false, true),
            "http": {"method": "GET", "path": "/{a}", "params": [
                {"arg": "a", "name": "a", "in": location, "style": style, "explode": explode}]}
        });
        let doc = to_openapi(&config(json!([tool]))).expect("converts");
        let p = doc["paths"]["/{a}"]["get"]["parameters"][0].clone();
        (p.get("style").cloned(), p.get("explode").cloned())
    };
    assert_eq!(param("query", "form", true), (None, None));
    assert_eq!(param("query", "form", false), (None, Some(json!(false))));
    assert_eq!(param("query", "deepObject", true), (Some(json!("deepObject")), Some(json!(true))));
    assert_eq!(param("query", "spaceDelimited", false), (Some(json!("spaceDelimited")), None));
    assert_eq!(param("path", "simple", false), (None, None));
    assert_eq!(param("path", "label", true), (Some(json!("label")), Some(json!(true))));
    assert_eq!(param("header", "simple", true), (None, Some(json!(true))));
    assert_eq!(param("cookie", "form", true), (None, None));
}

#[test]
fn whole_bodies_multipart_and_hints() {
    let tool = |name: &str, media: &str, body: Value, schema: Value| {
        json!({
            "name": name, "input_schema": {"type": "object", "properties": schema},
            "annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": false,
                            "openWorldHint": false},
            "http": {"method": "POST", "path": format!("/{name}"),
                     "body": {"media_type": media, "content": body}}
        })
    };
    let whole = json!({"kind": "whole", "arg": "body"});
    let tools = json!([
        tool(
            "list",
            "application/json",
            whole.clone(),
            json!({"body": {"type": "array", "items": {"type": "string"}, "description": "Names."}})
        ),
        tool(
            "raw",
            "application/octet-stream",
            whole.clone(),
            json!({"body": {"type": "string", "contentEncoding": "base64", "description": "Bytes."}})
        ),
        tool("csv", "text/csv", whole, json!({"body": {"type": "string"}})),
        tool(
            "upload",
            "multipart/form-data",
            json!({"kind": "properties", "fields": [
                 {"arg": "file", "name": "file", "content_type": "image/png", "file": true},
                 {"arg": "pages", "name": "pages", "file": true}, {"arg": "note", "name": "note"}]}),
            json!({"file": {"type": "string", "description": "Photo (file content: base64-encoded, or plain text)"},
                    "pages": {"type": "array", "items": {"type": "string", "description": "(file content: base64-encoded, or plain text)"}},
                    "note": {"type": "string"}})
        )
    ]);
    let doc = to_openapi(&config(tools)).expect("converts");
    let body = |name: &str| doc["paths"][format!("/{name}")]["post"]["requestBody"].clone();
    assert_eq!(
        body("list"),
        json!({"content": {"application/json": {"schema":
            {"type": "array", "items": {"type": "string"}, "description": "Names."}}}})
    );
    assert_eq!(
        body("raw"),
        json!({"description": "Bytes.", "content": {"application/octet-stream": {"schema":
            {"type": "string", "format": "binary"}}}})
    );
    assert_eq!(body("csv"), json!({"content": {"text/csv": {"schema": {"type": "string"}}}}));
    let upload = &body("upload")["content"]["multipart/form-data"];
    assert_eq!(upload["encoding"], json!({"file": {"contentType": "image/png"}}));
    assert_eq!(
        upload["schema"]["properties"],
        json!({
            "file": {"type": "string", "format": "binary", "description": "Photo"},
            "pages": {"type": "array", "items": {"type": "string", "format": "binary"}},
            "note": {"type": "string"}
        })
    );
    let ext = &doc["paths"]["/list"]["post"]["x-mcp"];
    assert_eq!(ext, &json!({"annotations": {"readOnlyHint": true, "openWorldHint": false}}));
}

#[test]
fn forward_tool_without_arguments_has_no_body_and_output_schemas_move_defs() {
    let tool = json!({
        "name": "ping", "description": " Pings. ",
        "input_schema": {"type": "object", "properties": {}},
        "output_schema": {"type": "object", "properties": {"tree": {"$ref": "#/$defs/T"}},
                          "$defs": {"T": {"type": "array", "items": {"$ref": "#/$defs/T"}}}},
        "annotations": annotations(false, false, false),
        "http": {"method": "POST", "path": "/ping", "body": {"media_type": "application/json",
                 "content": {"kind": "arguments"}}}
    });
    let doc = to_openapi(&config(json!([tool]))).expect("converts");
    let op = &doc["paths"]["/ping"]["post"];
    assert!(op.get("requestBody").is_none());
    assert_eq!(op["x-mcp"], json!({"description": " Pings. "}));
    assert_eq!(
        op["responses"]["200"]["content"]["application/json"]["schema"],
        json!({"type": "object", "properties": {"tree": {"$ref": "#/components/schemas/T"}}})
    );
    assert_eq!(doc["components"]["schemas"]["T"]["items"]["$ref"], "#/components/schemas/T");
}

#[test]
fn a_recursive_response_root_is_a_reference() {
    let mut tool = forward_tool();
    let node = tool["input_schema"]["$defs"]["Node"].clone();
    let mut output = node.clone();
    output["$defs"] = json!({ "Node": node });
    tool["output_schema"] = output;
    let doc = to_openapi(&config(json!([tool]))).expect("converts");
    let schema = &doc["paths"]["/add_tree"]["post"]["responses"]["200"]["content"]["application/json"]["schema"];
    assert_eq!(schema, &json!({"$ref": "#/components/schemas/Node"}), "shared with the input's Node");
    assert_eq!(doc["components"]["schemas"].as_object().map(Map::len), Some(1));
}

#[test]
fn errors() {
    let mut unbound = forward_tool();
    unbound.as_object_mut().map(|o| o.remove("http"));
    let err = to_openapi(&config(json!([unbound]))).expect_err("no binding");
    assert!(err.contains("`add_tree`") && err.contains("--forward-url URL or --bindings FILE"), "{err}");

    let mut call = forward_tool();
    call["http"]["body"]["content"] = json!({"kind": "call", "name": "add_tree"});
    call["http"]["path"] = json!("");
    assert_eq!(to_openapi(&config(json!([call]))).expect_err("call mode"), CALL_MODE);

    let mut twin = forward_tool();
    twin["name"] = json!("add_tree_again");
    let err = to_openapi(&config(json!([forward_tool(), twin]))).expect_err("same path");
    assert!(err.contains("`add_tree`") && err.contains("`add_tree_again`") && err.contains("POST /add_tree"), "{err}");

    let mut missing = forward_tool();
    missing["http"]["params"] = json!([{"arg": "nope", "name": "q", "in": "query", "style": "form", "explode": true}]);
    assert!(to_openapi(&config(json!([missing]))).expect_err("unknown arg").contains("`nope`"));

    let mut unknown = forward_tool();
    unknown["http"]["security"] = json!([["ghost"]]);
    assert!(to_openapi(&config(json!([unknown]))).expect_err("unknown scheme").contains("`ghost`"));
}
