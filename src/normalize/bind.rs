//! Where the calls of function-calling tools go, applied to the IR. A function list carries no
//! HTTP binding, so one comes from `--forward-url` (one URL for the whole list) or from a bindings
//! file (a method and URL template per function, and where each argument goes). A bound function
//! becomes an [`Operation`] like any other (method, path, parameters, body, security, servers)
//! that keeps the function as declared for its tool. Without either, functions stay
//! [`Function`]s: a generated crate answers them with handlers written in Rust.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::DEFS_PREFIX;
use super::openapi::template_vars;
use crate::diag::{DiagKind, Diagnostic, child};
use crate::error::{Error, Location, Result};
use crate::ir::{
    ApiIr, BodyContent, Function, McpExtension, MediaType, Method, Operation, ParamLocation, ParamStyle, Parameter,
    RequestBody, Response, SecurityRequirement,
};
use mcpgen_config::{BodyField, SecurityScheme};

/// Applies `routing` to the functions of `ir`: bound functions become
/// operations. Bindings are checked here, all of them, whether or not filters keep their tools.
pub fn bind(mut ir: ApiIr, routing: &Routing) -> Result<ApiIr> {
    if matches!(routing, Routing::Unbound) {
        return Ok(ir);
    }
    if !ir.operations.is_empty() {
        return Err(Error::Usage {
            message: "--forward-url and --bindings apply to function lists; an OpenAPI document's operations \
                      already say where calls go (use --base-url to point them elsewhere)"
                .into(),
        });
    }
    let functions = std::mem::take(&mut ir.functions);
    match routing {
        Routing::Unbound => ir.functions = functions,
        Routing::Forward(fw) => {
            if !fw.url.is_empty() {
                ir.servers = vec![fw.url.clone()];
            }
            ir.operations = functions.into_iter().map(|f| fw.operation(f)).collect();
        }
        Routing::Bindings(b) => {
            b.check_names(&functions)?;
            if let Some(url) = &b.base_url {
                ir.servers = vec![url.trim_end_matches('/').to_string()];
            }
            ir.credentials = b.security_schemes.clone();
            ir.headers = b.headers.clone();
            ir.bindings_file = Some(b.origin.clone());
            for f in functions {
                if b.functions.contains_key(&f.name) {
                    let op = b.operation(f, &ir.schemas, &mut ir.diagnostics)?;
                    ir.operations.push(op);
                } else {
                    ir.functions.push(f);
                }
            }
        }
    }
    Ok(ir)
}

/// The error for a function that a bindings file leaves unbound, when its tool is wanted.
pub(crate) fn missing_binding(file: &str, function: &str) -> Error {
    Error::Invalid {
        location: Location::at_pointer(file, "#/functions"),
        message: format!("no binding for the function `{function}` (add one, or leave it out with --exclude-op)"),
    }
}

/// The operation that sends `f`. Its tool is the function as declared; the operation's own texts
/// say the same in OpenAPI's terms: the title in `x-mcp` (a summary would be merged into the
/// description), the output schema as the 200 response.
fn bound(
    f: Function,
    method: Method,
    path: String,
    parameters: Vec<Parameter>,
    request_body: Option<RequestBody>,
    security: Option<Vec<SecurityRequirement>>,
    servers: Vec<String>,
) -> Operation {
    let mcp = McpExtension {
        name: f.mcp.name.clone(),
        title: f.title.clone(),
        annotations_title: f.mcp.annotations_title.clone(),
        description: None,
        hidden: f.mcp.hidden,
        read_only: f.mcp.read_only,
        destructive: f.mcp.destructive,
        idempotent: f.mcp.idempotent,
        open_world: f.mcp.open_world,
        scopes: f.mcp.scopes.clone(),
        max_result_chars: f.mcp.max_result_chars,
        inferred: None,
    };
    let response = Response {
        status: "200".into(),
        description: Some("Success".into()),
        content: f.output_schema.iter().map(|s| json_media(s.clone())).collect(),
    };
    Operation {
        pointer: f.pointer.clone(),
        method,
        path,
        fixed_query: Vec::new(),
        operation_id: Some(f.name.clone()),
        summary: None,
        description: f.description.clone(),
        tags: Vec::new(),
        deprecated: false,
        parameters,
        request_body,
        response: Some(response),
        security,
        servers,
        mcp,
        function: Some(Box::new(f)),
    }
}

fn json_media(schema: Value) -> MediaType {
    MediaType {
        media_type: "application/json".into(),
        schema,
        encoding: BTreeMap::new(),
        example: None,
        examples: Vec::new(),
    }
}

/// How `--forward-url` sends calls.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ForwardMode {
    /// `POST URL/{name}` with the arguments object as the JSON body.
    #[default]
    PerTool,
    /// `POST URL` with `{"name": ..., "arguments": {...}}`.
    Single,
}

/// Every call of a function list goes to one URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Forward {
    /// The URL, absolute http(s), without a trailing `/`.
    pub url: String,
    /// One URL per function (`URL/{name}`), or one for all.
    pub mode: ForwardMode,
}

impl Forward {
    /// Checks the URL: absolute http(s), no query or fragment to confuse the path.
    pub fn new(url: &str, mode: ForwardMode) -> Result<Forward> {
        let usage = |message| Error::Usage { message };
        let parsed = url::Url::parse(url).map_err(|e| usage(format!("invalid --forward-url {url:?}: {e}")))?;
        if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
            return Err(usage(format!("--forward-url must be an absolute http(s) URL, got {url:?}")));
        }
        Ok(Forward { url: url.trim_end_matches('/').to_string(), mode })
    }

    /// `POST URL/{name}` (or `POST URL`) with the arguments (or the call) as the JSON body.
    fn operation(&self, f: Function) -> Operation {
        let (path, arguments) = match self.mode {
            // The name as a path segment, encoded: it can never add segments or template variables.
            ForwardMode::PerTool => {
                (format!("/{}", crate::runtime::tooling::encode_component(&f.name)), BodyContent::Arguments)
            }
            ForwardMode::Single => (String::new(), BodyContent::Call { name: f.name.clone() }),
        };
        let body = RequestBody {
            required: true,
            description: None,
            content: vec![json_media(f.parameters.clone())],
            arguments: Some(arguments),
        };
        bound(f, Method::Post, path, Vec::new(), Some(body), None, Vec::new())
    }
}

/// A bindings file: each function's HTTP request. See docs/function-calling.md.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bindings {
    /// Base URL of the API (`--base-url` overrides it).
    #[serde(default)]
    pub base_url: Option<String>,
    /// Static, non-secret headers sent with every request.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// Credentials, in the runtime config's format (env var names, never secrets).
    #[serde(default)]
    pub security_schemes: BTreeMap<String, SecurityScheme>,
    /// Schemes every function uses unless it says otherwise (all of them together).
    #[serde(default)]
    pub security: Vec<String>,
    /// Each function's request, by function name. Naming a function the list lacks is an error; a
    /// function without one cannot become a tool (it may be filtered out).
    pub functions: BTreeMap<String, FunctionBinding>,
    /// The file, for error messages.
    #[serde(skip)]
    pub origin: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FunctionBinding {
    pub method: String,
    /// Path template relative to the base URL, e.g. `/weather/{city}`.
    pub path: String,
    /// Where arguments go, by argument name; the others go into the path when the template
    /// names them, else into the query (GET, HEAD, DELETE, OPTIONS) or the JSON body.
    #[serde(default)]
    pub args: BTreeMap<String, ArgPlace>,
    /// Media type of the body (default `application/json`).
    #[serde(default)]
    pub body_type: Option<String>,
    /// Overrides the file's `security` (`[]`: no credentials).
    #[serde(default)]
    pub security: Option<Vec<String>>,
    /// A server of this function's own.
    #[serde(default)]
    pub base_url: Option<String>,
}

/// `query`, or `{in: header, name: X-Request-Id}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum ArgPlace {
    In(ArgLocation),
    Named {
        #[serde(rename = "in")]
        location: ArgLocation,
        /// The name on the wire (default: the argument's).
        #[serde(default)]
        name: Option<String>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ArgLocation {
    Path,
    Query,
    Header,
    Cookie,
    Body,
}

impl ArgPlace {
    fn parts(&self) -> (ArgLocation, Option<&str>) {
        match self {
            ArgPlace::In(l) => (*l, None),
            ArgPlace::Named { location, name } => (*location, name.as_deref()),
        }
    }
}

impl Bindings {
    /// Reads a bindings file (YAML or JSON). Errors name the file and the place in it.
    pub fn read(path: &str) -> Result<Bindings> {
        let bytes = crate::load::read_file(Path::new(path), path)?;
        let value = crate::load::parse_document(&bytes, path)?;
        let mut bindings: Bindings = crate::load::from_value_at(&value, path, "bindings file")?;
        bindings.origin = path.to_string();
        let own = bindings
            .functions
            .iter()
            .filter_map(|(n, f)| Some((child(&child("#/functions", n), "security"), f.security.as_ref()?)));
        for (at, schemes) in std::iter::once(("#/security".to_string(), &bindings.security)).chain(own) {
            if let Some(unknown) = schemes.iter().find(|s| !bindings.security_schemes.contains_key(*s)) {
                return Err(
                    bindings.error(&at, format!("unknown security scheme `{unknown}` (not in security_schemes)"))
                );
            }
        }
        Ok(bindings)
    }

    fn error(&self, pointer: &str, message: String) -> Error {
        Error::Invalid { location: Location::at_pointer(&self.origin, pointer), message }
    }

    /// Fails on bindings for functions the list does not have.
    pub fn check_names(&self, functions: &[Function]) -> Result<()> {
        for name in self.functions.keys() {
            if !functions.iter().any(|f| &f.name == name) {
                let known: Vec<&str> = functions.iter().map(|f| f.name.as_str()).take(10).collect();
                return Err(self.error(
                    &child("#/functions", name),
                    format!("no function `{name}` in the list (it has: {})", known.join(", ")),
                ));
            }
        }
        Ok(())
    }

    /// The operation that sends `f` as its binding says. Path arguments are made required.
    fn operation(
        &self,
        mut f: Function,
        schemas: &BTreeMap<String, Value>,
        diags: &mut Vec<Diagnostic>,
    ) -> Result<Operation> {
        let at = child("#/functions", &f.name);
        let Some(b) = self.functions.get(&f.name) else { return Err(missing_binding(&self.origin, &f.name)) };
        let method = Method::parse(&b.method)
            .ok_or_else(|| self.error(&child(&at, "method"), format!("unknown HTTP method {:?}", b.method)))?;
        if !b.path.starts_with('/') {
            return Err(self.error(&child(&at, "path"), format!("the path must start with `/`, got {:?}", b.path)));
        }
        let properties = declared(&f.parameters, schemas).0;
        for arg in b.args.keys() {
            if !properties.contains_key(arg) {
                let known: Vec<&str> = properties.keys().map(String::as_str).collect();
                return Err(self.error(
                    &child(&child(&at, "args"), arg),
                    format!("`{}` has no argument `{arg}` (it has: {})", f.name, known.join(", ")),
                ));
            }
        }
        let vars = template_vars(&b.path);
        let places = self.places(&at, b, method, properties, &vars)?;
        for var in &vars {
            let bound = places.iter().find(|p| p.2 == Some(ParamLocation::Path) && p.1 == *var);
            let Some((arg, ..)) = bound else {
                return Err(self.error(&child(&at, "path"), format!("no argument of `{}` fills `{{{var}}}`", f.name)));
            };
            require(&mut f.parameters, arg, &f.pointer, diags);
        }
        let required = declared(&f.parameters, schemas).1;
        // Closed arguments make a closed body (which the loader reads back as closed arguments).
        let closed = f.parameters.get("additionalProperties") == Some(&json!(false));
        let (parameters, body) = parameters_and_body(places, &required, closed, b.body_type.as_deref());
        let names = b.security.as_ref().unwrap_or(&self.security);
        let security = (!names.is_empty()).then(|| vec![names.iter().map(|n| (n.clone(), Vec::new())).collect()]);
        let servers = b.base_url.iter().map(|u| u.trim_end_matches('/').to_string()).collect();
        Ok(bound(f, method, b.path.clone(), parameters, body, security, servers))
    }

    /// Where each argument goes: as `b.args` says, else into the path when the template names it,
    /// else into the query (GET, HEAD, DELETE, OPTIONS, TRACE) or the body. `at` is the binding's
    /// pointer, for errors.
    fn places(
        &self,
        at: &str,
        b: &FunctionBinding,
        method: Method,
        properties: BTreeMap<String, Value>,
        vars: &[&str],
    ) -> Result<Vec<Place>> {
        let mut places: Vec<Place> = Vec::new();
        for (arg, schema) in properties {
            let (location, wire) = match b.args.get(&arg).map(ArgPlace::parts) {
                Some((l, name)) => (l, name.unwrap_or(&arg).to_string()),
                None if vars.contains(&arg.as_str()) => (ArgLocation::Path, arg.clone()),
                None if matches!(
                    method,
                    Method::Get | Method::Head | Method::Delete | Method::Options | Method::Trace
                ) =>
                {
                    (ArgLocation::Query, arg.clone())
                }
                None => (ArgLocation::Body, arg.clone()),
            };
            let location = match location {
                ArgLocation::Body => None,
                ArgLocation::Path => Some(ParamLocation::Path),
                ArgLocation::Query => Some(ParamLocation::Query),
                ArgLocation::Header => Some(ParamLocation::Header),
                ArgLocation::Cookie => Some(ParamLocation::Cookie),
            };
            if location == Some(ParamLocation::Path) && !vars.contains(&wire.as_str()) {
                return Err(self.error(
                    &child(&child(at, "args"), &arg),
                    format!("`{arg}` goes into the path, but {:?} has no `{{{wire}}}`", b.path),
                ));
            }
            places.push((arg, wire, location, schema));
        }
        // In the order OpenAPI operations list them: path, query, header, cookie.
        places.sort_by_key(|p| p.2);
        Ok(places)
    }
}

/// (argument, name on the wire, location or `None` for the body, schema)
type Place = (String, String, Option<ParamLocation>, Value);

/// The operation's parameters and body from its arguments' places: `required` are the required
/// arguments, `closed` whether the arguments admit no others (then neither does the body),
/// `body_type` the body's media type (default `application/json`).
fn parameters_and_body(
    places: Vec<Place>,
    required: &[String],
    closed: bool,
    body_type: Option<&str>,
) -> (Vec<Parameter>, Option<RequestBody>) {
    let mut parameters = Vec::new();
    let (mut fields, mut props, mut body_required) = (Vec::new(), Map::new(), Vec::new());
    for (arg, wire, location, schema) in places {
        let Some(location) = location else {
            if required.contains(&arg) {
                body_required.push(json!(wire));
            }
            props.insert(wire.clone(), schema);
            fields.push(BodyField { arg, name: wire, content_type: None, file: false });
            continue;
        };
        let (schema, description) = crate::conventions::parameter_description(schema);
        let style = ParamStyle::default_for(location);
        parameters.push(Parameter {
            pointer: String::new(),
            required: location == ParamLocation::Path || required.contains(&arg),
            argument: (arg != wire).then_some(arg),
            name: wire,
            location,
            deprecated: false,
            description,
            style,
            explode: style == ParamStyle::Form,
            allow_reserved: false,
            schema,
            content_type: None,
            examples: Vec::new(),
        });
    }
    let body = (!fields.is_empty()).then(|| {
        let mut schema = json!({"type": "object", "properties": props});
        if !body_required.is_empty() {
            schema["required"] = Value::Array(body_required.clone());
        }
        if closed {
            schema["additionalProperties"] = json!(false);
        }
        let media_type = body_type.unwrap_or("application/json").to_string();
        RequestBody {
            required: !body_required.is_empty(),
            description: None,
            content: vec![MediaType {
                media_type,
                schema,
                encoding: BTreeMap::new(),
                example: None,
                examples: Vec::new(),
            }],
            arguments: Some(BodyContent::Properties { fields, extra_arg: None }),
        }
    });
    (parameters, body)
}

/// The arguments a function declares (name -> schema) and the required ones: the properties of
/// its parameters schema, also through a root `$ref` and the root's `allOf`/`anyOf`/`oneOf`
/// branches, which the tools stage merges into one object (required: every `allOf` branch's, and
/// what all `anyOf`/`oneOf` branches require).
fn declared(schema: &Value, schemas: &BTreeMap<String, Value>) -> (BTreeMap<String, Value>, Vec<String>) {
    let mut properties = BTreeMap::new();
    let mut required = Vec::new();
    collect(schema, schemas, &mut properties, &mut required, 0);
    (properties, required)
}

fn collect(
    schema: &Value,
    schemas: &BTreeMap<String, Value>,
    properties: &mut BTreeMap<String, Value>,
    required: &mut Vec<String>,
    depth: usize,
) {
    if depth > 16 {
        return;
    }
    let names = |s: &Value| -> Vec<String> {
        let list = s.get("required").and_then(Value::as_array);
        list.into_iter().flatten().filter_map(Value::as_str).map(str::to_string).collect()
    };
    if let Some(Value::Object(props)) = schema.get("properties") {
        for (k, v) in props {
            properties.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    required.extend(names(schema).into_iter().filter(|r| !required.contains(r)).collect::<Vec<_>>());
    let target = schema.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix(DEFS_PREFIX));
    if let Some(target) = target.and_then(|name| schemas.get(name)) {
        collect(target, schemas, properties, required, depth + 1);
    }
    for b in schema.get("allOf").and_then(Value::as_array).into_iter().flatten() {
        collect(b, schemas, properties, required, depth + 1);
    }
    for key in ["anyOf", "oneOf"] {
        let Some(branches) = schema.get(key).and_then(Value::as_array) else { continue };
        let mut shared: Option<Vec<String>> = None;
        for b in branches {
            let mut own = Vec::new();
            collect(b, schemas, properties, &mut own, depth + 1);
            shared = Some(match shared {
                None => own,
                Some(s) => s.into_iter().filter(|r| own.contains(r)).collect(),
            });
        }
        required.extend(shared.unwrap_or_default().into_iter().filter(|r| !required.contains(r)).collect::<Vec<_>>());
    }
}

/// Path arguments must be present: a function that made one optional gets it required, noted.
fn require(schema: &mut Value, arg: &str, pointer: &str, diags: &mut Vec<Diagnostic>) {
    let Some(obj) = schema.as_object_mut() else { return };
    let required = obj.entry("required").or_insert_with(|| Value::Array(Vec::new()));
    if let Value::Array(list) = required
        && !list.iter().any(|v| v == arg)
    {
        list.push(Value::String(arg.to_string()));
        diags.push(Diagnostic::new(
            DiagKind::ArgumentRequired,
            pointer,
            format!("`{arg}` goes into the URL path, so it is required"),
        ));
    }
}

/// The calls of a function list: forwarded, bound by a file, or left to handlers.
#[derive(Debug, Clone, Default)]
pub enum Routing {
    /// No HTTP binding: `serve` refuses, a generated crate gets handler stubs.
    #[default]
    Unbound,
    /// `--forward-url`: every call goes to one URL.
    Forward(Forward),
    /// `--bindings`: each function's request from a bindings file.
    Bindings(Box<Bindings>),
}
