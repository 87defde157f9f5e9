//! The intermediate representation every input is normalised into.
//!
//! Structural parts (operations, parameters, bodies, security) are typed; schemas stay
//! `serde_json::Value`, already converted to JSON Schema 2020-12, with every `$ref` rewritten to
//! `#/$defs/<Name>` pointing into [`ApiIr::schemas`]. The IR refers to no document any more.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::diag::Diagnostic;
pub use crate::runtime::model::{ApiKeyLocation, BodyContent, ParamLocation, ParamStyle};

/// The kind of input a document is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Dialect {
    Swagger2,
    Oas30,
    Oas31,
    OpenAiFunctions,
    OpenAiTools,
    AnthropicTools,
    GeminiFunctions,
    McpTools,
}

impl Dialect {
    pub fn is_openapi(self) -> bool {
        matches!(self, Dialect::Swagger2 | Dialect::Oas30 | Dialect::Oas31)
    }

    pub fn label(self) -> &'static str {
        match self {
            Dialect::Swagger2 => "Swagger 2.0",
            Dialect::Oas30 => "OpenAPI 3.0",
            Dialect::Oas31 => "OpenAPI 3.1",
            Dialect::OpenAiFunctions => "OpenAI functions",
            Dialect::OpenAiTools => "OpenAI tools",
            Dialect::AnthropicTools => "Anthropic tools",
            Dialect::GeminiFunctions => "Gemini function declarations",
            Dialect::McpTools => "MCP tools/list",
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct ApiIr {
    pub dialect: Dialect,
    pub info: ApiInfo,
    /// Servers with variables substituted by their defaults; relative URLs resolved against the
    /// document's URL when it has one.
    pub servers: Vec<String>,
    pub security_schemes: BTreeMap<String, SecurityScheme>,
    /// The API-wide default security requirement.
    pub security: Vec<SecurityRequirement>,
    /// Sorted by path, then method; functions bound to HTTP (`--forward-url`, `--bindings`) in
    /// the list's order.
    pub operations: Vec<Operation>,
    /// Function-calling inputs without an HTTP binding: a generated crate answers them in Rust.
    pub functions: Vec<Function>,
    /// Named schemas referenced as `#/$defs/<name>` from the schemas above.
    pub schemas: BTreeMap<String, Value>,
    /// Credentials whose env var names are given (a bindings file's), taken as they are.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub credentials: BTreeMap<String, crate::runtime::model::SecurityScheme>,
    /// Static headers sent with every request (a bindings file's).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    /// The bindings file that bound the functions, if any: a function it left unbound cannot
    /// become a tool (it may still be filtered out).
    #[serde(skip)]
    pub bindings_file: Option<String>,
    #[serde(skip)]
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct ApiInfo {
    pub title: String,
    pub version: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// The HTTP method: one type for the IR, the runtime config and the engine.
pub use crate::runtime::model::Method;

#[derive(Debug, Clone, Serialize)]
pub struct Operation {
    /// JSON pointer of the operation in its document, e.g. `#/paths/~1pets/get`.
    pub pointer: String,
    pub method: Method,
    /// The path template, without a fragment or query its key carried.
    pub path: String,
    /// `name=value` pairs the path key carried after `#` or `?`: sent as query parameters.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fixed_query: Vec<(String, String)>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub operation_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub deprecated: bool,
    pub parameters: Vec<Parameter>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_body: Option<RequestBody>,
    /// The success response (first 2xx).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response: Option<Response>,
    /// Operation-level security; `None` means the API default, `Some([])` means none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub security: Option<Vec<SecurityRequirement>>,
    /// Server URLs declared on the path item or operation.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub servers: Vec<String>,
    #[serde(skip_serializing_if = "McpExtension::is_empty")]
    pub mcp: McpExtension,
    /// A function of a tool list bound to this request (`--forward-url`, `--bindings`): its tool
    /// is the function as declared (name, texts, schemas, annotations), sent as this operation.
    /// The other fields say the same in OpenAPI's terms, which is what `convert` writes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub function: Option<Box<Function>>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Parameter {
    pub name: String,
    #[serde(rename = "in")]
    pub location: ParamLocation,
    pub required: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub deprecated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub style: ParamStyle,
    pub explode: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub allow_reserved: bool,
    pub schema: Value,
    /// Media type when the parameter is described by `content` rather than `schema`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
    /// `x-mcp-argument`: the tool argument's name, when it differs from the wire name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub argument: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct RequestBody {
    pub required: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// In the document's order.
    pub content: Vec<MediaType>,
    /// How the arguments make up the body when a binding fixes it (a bound function: the
    /// arguments object, a call, or named fields). `None`: from the schema, as OpenAPI says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arguments: Option<BodyContent>,
}

#[derive(Debug, Clone, Serialize)]
pub struct MediaType {
    pub media_type: String,
    pub schema: Value,
    /// Per-property encoding (multipart/form): property -> content type.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub encoding: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Response {
    pub status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub content: Vec<MediaType>,
}

/// Scheme names mapped to required scopes; all must be satisfied together.
pub type SecurityRequirement = BTreeMap<String, Vec<String>>;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SecurityScheme {
    ApiKey {
        name: String,
        location: ApiKeyLocation,
    },
    Http {
        scheme: HttpScheme,
        #[serde(skip_serializing_if = "Option::is_none")]
        bearer_format: Option<String>,
    },
    #[serde(rename = "oauth2")]
    OAuth2 {
        #[serde(skip_serializing_if = "Option::is_none")]
        client_credentials: Option<OAuth2Flow>,
        /// Names of the other flows offered (authorizationCode, implicit, password).
        #[serde(skip_serializing_if = "Vec::is_empty")]
        other_flows: Vec<String>,
    },
    OpenIdConnect {
        url: String,
    },
    MutualTls,
}

/// An HTTP authentication scheme (RFC 7235; the IANA registry's names, case-insensitive).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HttpScheme {
    Basic,
    Bearer,
    /// Any other (`digest`, `hoba`, `negotiate`, ...), lower-case: the credential is the whole
    /// `Authorization` value.
    Other(String),
}

impl HttpScheme {
    /// The scheme named `name`, in any case.
    pub fn parse(name: &str) -> HttpScheme {
        match name.to_ascii_lowercase().as_str() {
            "basic" => HttpScheme::Basic,
            "bearer" => HttpScheme::Bearer,
            other => HttpScheme::Other(other.to_string()),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            HttpScheme::Basic => "basic",
            HttpScheme::Bearer => "bearer",
            HttpScheme::Other(name) => name,
        }
    }
}

impl Serialize for HttpScheme {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OAuth2Flow {
    pub token_url: String,
    pub scopes: Vec<String>,
}

/// The `x-mcp` extension on an operation: overrides for the tool it yields.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct McpExtension {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The tool's title (`x-mcp.title`): what clients show as its name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The title inside the tool's annotations (`x-mcp.annotations.title`, an MCP tool's
    /// `annotations.title`), which MCP keeps apart from the tool's own title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations_title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub hidden: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_only: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destructive: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idempotent: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub open_world: Option<bool>,
    /// The OAuth scopes a caller needs (`x-mcp.scopes`), instead of those of the operation's
    /// `security`; `Some([])`: none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scopes: Option<crate::runtime::model::ScopeSets>,
}

impl McpExtension {
    pub fn is_empty(&self) -> bool {
        *self == McpExtension::default()
    }
}

/// A function from a function-calling tool list.
#[derive(Debug, Clone, Serialize)]
pub struct Function {
    pub pointer: String,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Always an object schema.
    pub parameters: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub strict: bool,
    #[serde(skip_serializing_if = "McpExtension::is_empty")]
    pub mcp: McpExtension,
}
