//! Swagger 2.0 upgraded to OpenAPI 3.0 as a `Value -> Value` pass, so that one walker reads both.
//!
//! host/basePath/schemes -> servers; `in: body` and `in: formData` parameters -> requestBody
//! (with consumes); response schemas -> content (with produces); definitions, parameters,
//! responses, securityDefinitions -> components; collectionFormat -> style/explode.
//! Schema keywords (`x-nullable`, `type: file`) are left for the schema converter.

use serde_json::{Map, Value, json};

use crate::diag::{DiagKind, Diagnostic, child};
use crate::schema::keywords;

const PARAM_SCHEMA_KEYS: [&str; 16] = [
    "type",
    "format",
    "items",
    "enum",
    "default",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "uniqueItems",
    "multipleOf",
];

pub(super) fn upgrade(doc: &Value, diags: &mut Vec<Diagnostic>) -> Value {
    let empty = Map::new();
    let root = doc.as_object().unwrap_or(&empty);
    let mut out = Map::new();
    out.insert("openapi".into(), json!("3.0.3"));
    for k in ["info", "tags", "externalDocs", "x-mcp"] {
        if let Some(v) = root.get(k) {
            out.insert(k.into(), v.clone());
        }
    }
    if let Some(v) = root.get("security") {
        out.insert("security".into(), v.clone());
    }
    out.insert("servers".into(), Value::Array(servers(root)));

    let global_consumes = str_list(root.get("consumes"));
    let global_produces = str_list(root.get("produces"));
    let ctx = Ctx { root, global_consumes, global_produces };

    let mut paths = Map::new();
    if let Some(Value::Object(src)) = root.get("paths") {
        for (path, item) in src {
            let at = child("#/paths", path);
            paths.insert(path.clone(), ctx.path_item(item, &at, diags));
        }
    }
    out.insert("paths".into(), Value::Object(paths));

    let mut components = Map::new();
    if let Some(Value::Object(defs)) = root.get("definitions") {
        let schemas = defs.iter().map(|(name, s)| (name.clone(), rewrite_refs(s))).collect();
        components.insert("schemas".into(), Value::Object(schemas));
    }
    if let Some(Value::Object(params)) = root.get("parameters") {
        let mut converted = Map::new();
        for (name, p) in params {
            // Body and form parameters only make sense inside an operation; they are inlined there.
            if !matches!(p.get("in").and_then(Value::as_str), Some("body" | "formData")) {
                converted.insert(name.clone(), ctx.parameter(p));
            }
        }
        components.insert("parameters".into(), Value::Object(converted));
    }
    if let Some(Value::Object(responses)) = root.get("responses") {
        let mut converted = Map::new();
        for (name, r) in responses {
            converted.insert(name.clone(), ctx.response(r, &ctx.global_produces));
        }
        components.insert("responses".into(), Value::Object(converted));
    }
    if let Some(Value::Object(schemes)) = root.get("securityDefinitions") {
        let mut converted = Map::new();
        for (name, s) in schemes {
            converted.insert(name.clone(), security_scheme(s));
        }
        components.insert("securitySchemes".into(), Value::Object(converted));
    }
    out.insert("components".into(), Value::Object(components));
    Value::Object(out)
}

struct Ctx<'a> {
    root: &'a Map<String, Value>,
    global_consumes: Vec<String>,
    global_produces: Vec<String>,
}

impl Ctx<'_> {
    fn path_item(&self, item: &Value, at: &str, diags: &mut Vec<Diagnostic>) -> Value {
        let Some(item) = item.as_object() else { return item.clone() };
        if item.contains_key("$ref") {
            return Value::Object(item.clone());
        }
        let path_params: Vec<Value> = self.inline_params(item.get("parameters"));
        let mut out = Map::new();
        for (k, v) in item {
            match k.as_str() {
                "get" | "put" | "post" | "delete" | "options" | "head" | "patch" => {
                    out.insert(k.clone(), self.operation(v, &path_params, &child(at, k), diags));
                }
                "parameters" => {}
                _ => {
                    out.insert(k.clone(), v.clone());
                }
            }
        }
        // Path-level body/form parameters are folded into each operation above; the rest stay.
        let plain: Vec<Value> = path_params
            .iter()
            .enumerate()
            .filter(|(_, p)| !is_body_like(p))
            .map(|(i, p)| declared_at(self.parameter(p), i))
            .collect();
        if !plain.is_empty() {
            out.insert("parameters".into(), Value::Array(plain));
        }
        Value::Object(out)
    }

    /// Replaces `#/parameters/X` references by the parameter itself (body parameters must be seen).
    fn inline_params(&self, params: Option<&Value>) -> Vec<Value> {
        let Some(Value::Array(list)) = params else { return Vec::new() };
        list.iter()
            .map(|p| match p.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/parameters/")) {
                Some(name) => {
                    let name = name.replace("~1", "/").replace("~0", "~");
                    self.root.get("parameters").and_then(|ps| ps.get(&name)).cloned().unwrap_or_else(|| p.clone())
                }
                None => p.clone(),
            })
            .collect()
    }

    fn operation(&self, op: &Value, path_params: &[Value], at: &str, diags: &mut Vec<Diagnostic>) -> Value {
        let Some(op) = op.as_object() else { return op.clone() };
        let consumes = str_list(op.get("consumes")).or_default(&self.global_consumes);
        let produces = str_list(op.get("produces")).or_default(&self.global_produces);
        let own = self.inline_params(op.get("parameters"));
        // Operation parameters override path parameters with the same name and location. Path
        // parameters kept here are body-like (the others stay on the path item): no index.
        let mut params: Vec<(Option<usize>, Value)> = path_params
            .iter()
            .filter(|pp| !own.iter().any(|o| o.get("name") == pp.get("name") && o.get("in") == pp.get("in")))
            .filter(|pp| is_body_like(pp))
            .map(|pp| (None, pp.clone()))
            .collect();
        params.extend(own.into_iter().enumerate().map(|(i, p)| (Some(i), p)));

        let mut out = Map::new();
        for (k, v) in op {
            match k.as_str() {
                "parameters" | "consumes" | "produces" | "responses" | "schemes" => {}
                _ => {
                    out.insert(k.clone(), v.clone());
                }
            }
        }
        let mut plain = Vec::new();
        let mut body: Option<&Value> = None;
        let mut form: Vec<&Value> = Vec::new();
        for (index, p) in &params {
            match p.get("in").and_then(Value::as_str) {
                Some("body") => body = Some(p),
                Some("formData") => form.push(p),
                _ => plain.push(index.map_or_else(|| self.parameter(p), |i| declared_at(self.parameter(p), i))),
            }
        }
        if !plain.is_empty() {
            out.insert("parameters".into(), Value::Array(plain));
        }
        if let Some(b) = body {
            let schema = rewrite_refs(b.get("schema").unwrap_or(&json!({})));
            let types = if consumes.is_empty() { vec!["application/json".to_string()] } else { consumes.clone() };
            let mut content = Map::new();
            for t in types {
                content.insert(t, json!({ "schema": schema }));
            }
            let mut rb = Map::new();
            rb.insert("content".into(), Value::Object(content));
            rb.insert("required".into(), b.get("required").cloned().unwrap_or(json!(false)));
            if let Some(d) = b.get("description") {
                rb.insert("description".into(), d.clone());
            }
            out.insert("requestBody".into(), Value::Object(rb));
            if !form.is_empty() {
                diags.push(Diagnostic::new(
                    DiagKind::Lenient,
                    at,
                    "both `in: body` and `in: formData` parameters; the formData ones are ignored",
                ));
            }
        } else if !form.is_empty() {
            out.insert("requestBody".into(), form_body(&form, &consumes));
        }
        let mut responses = Map::new();
        if let Some(Value::Object(src)) = op.get("responses") {
            for (code, r) in src {
                responses.insert(code.clone(), self.response(r, &produces));
            }
        }
        out.insert("responses".into(), Value::Object(responses));
        Value::Object(out)
    }

    fn parameter(&self, p: &Value) -> Value {
        let Some(obj) = p.as_object() else { return p.clone() };
        if let Some(Value::String(r)) = obj.get("$ref") {
            return json!({ "$ref": rewrite_ref(r) });
        }
        let mut out = Map::new();
        let mut schema = Map::new();
        for (k, v) in obj {
            match k.as_str() {
                "collectionFormat" | "allowEmptyValue" => {}
                k if PARAM_SCHEMA_KEYS.contains(&k) => {
                    schema.insert(k.into(), rewrite_keyword_refs(k, v));
                }
                "x-nullable" => {
                    schema.insert(k.into(), v.clone());
                }
                _ => {
                    out.insert(k.into(), v.clone());
                }
            }
        }
        let location = obj.get("in").and_then(Value::as_str).unwrap_or("");
        if schema.get("type") == Some(&json!("array")) {
            let format = obj.get("collectionFormat").and_then(Value::as_str).unwrap_or("csv");
            let (style, explode) = match (format, location) {
                ("multi", _) => ("form", true),
                ("ssv", _) => ("spaceDelimited", false),
                ("pipes", _) => ("pipeDelimited", false),
                (_, "query" | "cookie") => ("form", false),
                _ => ("simple", false),
            };
            out.insert("style".into(), json!(style));
            out.insert("explode".into(), json!(explode));
        }
        out.insert("schema".into(), Value::Object(schema));
        Value::Object(out)
    }

    fn response(&self, r: &Value, produces: &[String]) -> Value {
        let Some(obj) = r.as_object() else { return r.clone() };
        if let Some(Value::String(reference)) = obj.get("$ref") {
            return json!({ "$ref": rewrite_ref(reference) });
        }
        let mut out = Map::new();
        out.insert("description".into(), obj.get("description").cloned().unwrap_or(json!("")));
        // `examples` maps media types to example values: each goes to its media type's `example`.
        let examples = obj.get("examples").and_then(Value::as_object);
        let example = |t: &str| examples.and_then(|e| e.get(t)).cloned();
        if let Some(schema) = obj.get("schema") {
            let types = if produces.is_empty() { vec!["application/json".to_string()] } else { produces.to_vec() };
            let schema = rewrite_refs(schema);
            let mut content = Map::new();
            for t in types {
                let mut media = json!({ "schema": schema });
                if let Some(e) = example(&t) {
                    media["example"] = e;
                }
                content.insert(t, media);
            }
            out.insert("content".into(), Value::Object(content));
        } else if let Some(examples) = examples.filter(|e| !e.is_empty()) {
            let content = examples.iter().map(|(t, e)| (t.clone(), json!({ "example": e })));
            out.insert("content".into(), Value::Object(content.collect()));
        }
        if let Some(h) = obj.get("headers") {
            out.insert("headers".into(), h.clone());
        }
        Value::Object(out)
    }
}

/// `p` with the index of its declaration (see [`super::DECLARED_INDEX`]).
fn declared_at(mut p: Value, index: usize) -> Value {
    if let Value::Object(obj) = &mut p {
        obj.insert(super::DECLARED_INDEX.into(), json!(index));
    }
    p
}

fn is_body_like(p: &Value) -> bool {
    matches!(p.get("in").and_then(Value::as_str), Some("body" | "formData"))
}

/// formData parameters become one object schema; files make it multipart.
fn form_body(form: &[&Value], consumes: &[String]) -> Value {
    let mut props = Map::new();
    let mut required = Vec::new();
    let mut has_file = false;
    for p in form {
        let Some(name) = p.get("name").and_then(Value::as_str) else { continue };
        let mut schema = Map::new();
        if let Some(obj) = p.as_object() {
            for (k, v) in obj {
                if PARAM_SCHEMA_KEYS.contains(&k.as_str()) || k == "description" {
                    schema.insert(k.clone(), rewrite_keyword_refs(k, v));
                }
            }
        }
        if schema.get("type") == Some(&json!("file")) {
            has_file = true;
            schema.insert("type".into(), json!("string"));
            schema.insert("format".into(), json!("binary"));
        }
        if p.get("required") == Some(&json!(true)) {
            required.push(json!(name));
        }
        props.insert(name.to_string(), Value::Object(schema));
    }
    let media = if has_file || consumes.iter().any(|c| c.starts_with("multipart/form-data")) {
        "multipart/form-data"
    } else {
        "application/x-www-form-urlencoded"
    };
    let mut schema = json!({"type": "object", "properties": props});
    if !required.is_empty() {
        schema["required"] = Value::Array(required.clone());
    }
    json!({ "required": !required.is_empty(), "content": { media: { "schema": schema } } })
}

fn servers(root: &Map<String, Value>) -> Vec<Value> {
    let base_path = root.get("basePath").and_then(Value::as_str).unwrap_or("");
    let Some(host) = root.get("host").and_then(Value::as_str) else {
        // No host: the API lives on the host that serves the document.
        return vec![json!({ "url": if base_path.is_empty() { "/" } else { base_path } })];
    };
    let schemes = str_list(root.get("schemes"));
    let scheme = if schemes.is_empty() || schemes.iter().any(|s| s == "https") { "https" } else { schemes[0].as_str() };
    vec![json!({ "url": format!("{scheme}://{host}{base_path}") })]
}

fn security_scheme(s: &Value) -> Value {
    let Some(obj) = s.as_object() else { return s.clone() };
    match obj.get("type").and_then(Value::as_str) {
        Some("basic") => json!({"type": "http", "scheme": "basic", "description": obj.get("description")}),
        Some("apiKey") => s.clone(),
        Some("oauth2") => {
            let scopes = obj.get("scopes").cloned().unwrap_or(json!({}));
            let flow = obj.get("flow").and_then(Value::as_str).unwrap_or("");
            let (name, mut f) = match flow {
                "implicit" => ("implicit", json!({})),
                "password" => ("password", json!({})),
                "application" => ("clientCredentials", json!({})),
                _ => ("authorizationCode", json!({})),
            };
            if let Some(u) = obj.get("authorizationUrl") {
                f["authorizationUrl"] = u.clone();
            }
            if let Some(u) = obj.get("tokenUrl") {
                f["tokenUrl"] = u.clone();
            }
            f["scopes"] = scopes;
            json!({"type": "oauth2", "flows": { name: f }})
        }
        _ => s.clone(),
    }
}

fn rewrite_ref(r: &str) -> String {
    if let Some(rest) = r.strip_prefix("#/definitions/") {
        format!("#/components/schemas/{rest}")
    } else if let Some(rest) = r.strip_prefix("#/parameters/") {
        format!("#/components/parameters/{rest}")
    } else if let Some(rest) = r.strip_prefix("#/responses/") {
        format!("#/components/responses/{rest}")
    } else {
        r.to_string()
    }
}

/// A schema with every local `$ref` pointed at its OpenAPI 3 location: at schema positions only,
/// so that data (`default`, `enum`, `example`, `x-*`) stays as written.
fn rewrite_refs(schema: &Value) -> Value {
    let Value::Object(map) = schema else { return schema.clone() };
    Value::Object(map.iter().map(|(k, v)| (k.clone(), rewrite_keyword_refs(k, v))).collect())
}

/// The value of one schema keyword, with [`rewrite_refs`] applied to the subschemas it holds.
fn rewrite_keyword_refs(key: &str, value: &Value) -> Value {
    match (key, value) {
        ("$ref", Value::String(r)) => Value::String(rewrite_ref(r)),
        _ => keywords::map_held(key, value, rewrite_refs).unwrap_or_else(|| value.clone()),
    }
}

fn str_list(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).map(str::to_string).collect(),
        _ => Vec::new(),
    }
}

trait OrDefault {
    fn or_default(self, d: &[String]) -> Vec<String>;
}

impl OrDefault for Vec<String> {
    fn or_default(self, d: &[String]) -> Vec<String> {
        if self.is_empty() { d.to_vec() } else { self }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upgrades_petstore_shapes() {
        let doc = json!({
            "swagger": "2.0", "host": "petstore.swagger.io", "basePath": "/v2", "schemes": ["https", "http"],
            "consumes": ["application/json"],
            "paths": {"/pet/{id}": {
                "parameters": [{"name": "id", "in": "path", "required": true, "type": "integer"}],
                "post": {"consumes": ["application/x-www-form-urlencoded"], "parameters": [
                    {"name": "name", "in": "formData", "type": "string", "required": true},
                    {"name": "tags", "in": "query", "type": "array", "items": {"type": "string"}}],
                    "responses": {"200": {"description": "ok", "schema": {"$ref": "#/definitions/Pet"}}}},
                "put": {"parameters": [{"in": "body", "name": "body", "required": true, "schema": {"$ref": "#/definitions/Pet"}}],
                    "responses": {}}}},
            "definitions": {"Pet": {"type": "object", "x-nullable": true}},
            "securityDefinitions": {"basic": {"type": "basic"}, "o": {"type": "oauth2", "flow": "application", "tokenUrl": "https://t", "scopes": {"a": "b"}}}
        });
        let mut diags = Vec::new();
        let up = upgrade(&doc, &mut diags);
        assert_eq!(up["servers"][0]["url"], "https://petstore.swagger.io/v2");
        let post = &up["paths"]["/pet/{id}"]["post"];
        assert_eq!(post["parameters"][0]["style"], "form");
        assert_eq!(post["parameters"][0]["explode"], false);
        assert_eq!(
            post["requestBody"]["content"]["application/x-www-form-urlencoded"]["schema"]["required"],
            json!(["name"])
        );
        assert_eq!(
            post["responses"]["200"]["content"]["application/json"]["schema"]["$ref"],
            "#/components/schemas/Pet"
        );
        let put = &up["paths"]["/pet/{id}"]["put"];
        assert_eq!(put["requestBody"]["content"]["application/json"]["schema"]["$ref"], "#/components/schemas/Pet");
        assert_eq!(up["paths"]["/pet/{id}"]["parameters"][0]["schema"]["type"], "integer");
        assert_eq!(up["components"]["securitySchemes"]["basic"]["scheme"], "basic");
        assert_eq!(up["components"]["securitySchemes"]["o"]["flows"]["clientCredentials"]["tokenUrl"], "https://t");
        assert!(diags.is_empty());
    }

    #[test]
    fn refs_are_rewritten_at_schema_positions_only() {
        let schema = json!({"type": "object", "properties": {
            "$ref": {"$ref": "#/definitions/Id"}, "default": {"items": {"$ref": "#/definitions/Id"}},
            "example": {"type": "object", "example": {"$ref": "#/definitions/Id"}, "default": {"$ref": "#/definitions/Id"},
                        "enum": [{"$ref": "#/definitions/Id"}], "x-ref": {"$ref": "#/definitions/Id"}}}});
        let up = rewrite_refs(&schema);
        assert_eq!(up["properties"]["$ref"]["$ref"], "#/components/schemas/Id");
        assert_eq!(up["properties"]["default"]["items"]["$ref"], "#/components/schemas/Id");
        assert_eq!(up["properties"]["example"], schema["properties"]["example"], "data stays as written");
        let form = form_body(
            &[&json!({"name": "ids", "in": "formData", "type": "array",
            "items": {"$ref": "#/definitions/Id"}, "default": [{"$ref": "#/definitions/Id"}]})],
            &[],
        );
        let ids = &form["content"]["application/x-www-form-urlencoded"]["schema"]["properties"]["ids"];
        assert_eq!(ids["items"]["$ref"], "#/components/schemas/Id");
        assert_eq!(ids["default"], json!([{"$ref": "#/definitions/Id"}]));
    }

    #[test]
    fn response_examples_go_to_their_media_types() {
        let root = Map::new();
        let ctx = Ctx { root: &root, global_consumes: Vec::new(), global_produces: Vec::new() };
        let r = json!({"description": "ok", "schema": {"type": "object"},
            "examples": {"application/json": {"id": 1}, "text/plain": "one"}});
        let up = ctx.response(&r, &["application/json".to_string(), "application/xml".to_string()]);
        assert_eq!(up["content"]["application/json"]["example"], json!({"id": 1}));
        assert!(up["content"]["application/xml"].get("example").is_none());
    }

    #[test]
    fn response_examples_without_a_schema_still_declare_content() {
        let root = Map::new();
        let ctx = Ctx { root: &root, global_consumes: Vec::new(), global_produces: Vec::new() };
        let r = json!({"description": "ok", "examples": {"application/json": [1, 2]}});
        let up = ctx.response(&r, &[]);
        assert_eq!(up["content"], json!({"application/json": {"example": [1, 2]}}));
    }
}
