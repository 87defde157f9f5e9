//! Where the calls of function-calling tools go. A function list carries no HTTP binding, so one
//! comes from `--forward-url` (one URL for the whole list) or from a bindings file (a method and
//! URL template per function, and where each argument goes), expressed in the engine's own
//! [`HttpBinding`] model. Without either, a tool stays unbound: a generated crate answers it with
//! a handler written in Rust.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use crate::diag::{DiagKind, Diagnostic, child};
use crate::error::{Error, Location, Result};
use crate::ir::{Function, Method};
use crate::normalize::template_vars;
use crate::runtime::model::{
    BodyBinding, BodyContent, BodyField, HttpBinding, ParamBinding, ParamLocation, ParamStyle, SecurityScheme,
};

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
    pub url: String,
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

    fn binding(&self, f: &Function) -> HttpBinding {
        let (path, content) = match self.mode {
            // The name as a path segment, encoded: it can never add segments or template variables.
            ForwardMode::PerTool => (format!("/{}", crate::runtime::encode::encode(&f.name)), BodyContent::Arguments),
            ForwardMode::Single => (String::new(), BodyContent::Call { name: f.name.clone() }),
        };
        HttpBinding {
            method: Method::Post,
            path,
            params: Vec::new(),
            body: Some(BodyBinding { media_type: "application/json".into(), required: true, content }),
            security: Vec::new(),
            base_url: None,
            headers: BTreeMap::new(),
            query: BTreeMap::new(),
        }
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

    /// The binding of `f`, whose tool input schema is `schema` (path arguments are made required).
    pub fn binding(&self, f: &Function, schema: &mut Value, diags: &mut Vec<Diagnostic>) -> Result<HttpBinding> {
        let at = child("#/functions", &f.name);
        let Some(b) = self.functions.get(&f.name) else {
            return Err(self.error(
                "#/functions",
                format!("no binding for the function `{}` (add one, or leave it out with --exclude-op)", f.name),
            ));
        };
        let method = Method::parse(&b.method)
            .ok_or_else(|| self.error(&child(&at, "method"), format!("unknown HTTP method {:?}", b.method)))?;
        if !b.path.starts_with('/') {
            return Err(self.error(&child(&at, "path"), format!("the path must start with `/`, got {:?}", b.path)));
        }
        let properties: Vec<String> = schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default();
        for arg in b.args.keys() {
            if !properties.contains(arg) {
                return Err(self.error(
                    &child(&child(&at, "args"), arg),
                    format!("`{}` has no argument `{arg}` (it has: {})", f.name, properties.join(", ")),
                ));
            }
        }
        let vars = template_vars(&b.path);
        let mut params = Vec::new();
        let mut fields = Vec::new();
        for arg in &properties {
            let (location, wire) = match b.args.get(arg).map(ArgPlace::parts) {
                Some((l, name)) => (l, name.unwrap_or(arg).to_string()),
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
                ArgLocation::Body => {
                    fields.push(BodyField { arg: arg.clone(), name: wire, content_type: None, file: false });
                    continue;
                }
                ArgLocation::Path => ParamLocation::Path,
                ArgLocation::Query => ParamLocation::Query,
                ArgLocation::Header => ParamLocation::Header,
                ArgLocation::Cookie => ParamLocation::Cookie,
            };
            if location == ParamLocation::Path && !vars.contains(&wire.as_str()) {
                return Err(self.error(
                    &child(&child(&at, "args"), arg),
                    format!("`{arg}` goes into the path, but {:?} has no `{{{wire}}}`", b.path),
                ));
            }
            let style = ParamStyle::default_for(location);
            let explode = style == ParamStyle::Form;
            params.push(ParamBinding {
                arg: arg.clone(),
                name: wire,
                location,
                style,
                explode,
                allow_reserved: false,
                content_type: None,
            });
        }
        // In the order OpenAPI operations list them: path, query, header, cookie.
        params.sort_by_key(|p| p.location);
        for var in &vars {
            let bound = params.iter().find(|p| p.location == ParamLocation::Path && p.name == *var);
            let Some(p) = bound else {
                return Err(self.error(&child(&at, "path"), format!("no argument of `{}` fills `{{{var}}}`", f.name)));
            };
            require(schema, &p.arg, &f.pointer, diags);
        }
        let required =
            |arg: &str| schema.get("required").and_then(Value::as_array).is_some_and(|r| r.iter().any(|v| v == arg));
        let body = (!fields.is_empty()).then(|| BodyBinding {
            media_type: b.body_type.clone().unwrap_or_else(|| "application/json".into()),
            required: fields.iter().any(|f| required(&f.arg)),
            content: BodyContent::Properties { fields, extra_arg: None },
        });
        let security = b.security.as_ref().unwrap_or(&self.security);
        Ok(HttpBinding {
            method,
            path: b.path.clone(),
            params,
            body,
            security: if security.is_empty() { Vec::new() } else { vec![security.clone()] },
            base_url: b.base_url.as_ref().map(|u| u.trim_end_matches('/').to_string()),
            headers: BTreeMap::new(),
            query: BTreeMap::new(),
        })
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
    Forward(Forward),
    Bindings(Box<Bindings>),
}

impl Routing {
    pub fn binding(
        &self,
        f: &Function,
        schema: &mut Value,
        diags: &mut Vec<Diagnostic>,
    ) -> Result<Option<HttpBinding>> {
        match self {
            Routing::Unbound => Ok(None),
            Routing::Forward(fw) => Ok(Some(fw.binding(f))),
            Routing::Bindings(b) => b.binding(f, schema, diags).map(Some),
        }
    }

    /// The upstream base URL the routing implies.
    pub fn base_url(&self) -> Option<String> {
        match self {
            Routing::Unbound => None,
            Routing::Forward(fw) => Some(fw.url.clone()).filter(|u| !u.is_empty()),
            Routing::Bindings(b) => b.base_url.as_ref().map(|u| u.trim_end_matches('/').to_string()),
        }
    }
}
