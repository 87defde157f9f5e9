//! The intermediate representation every input is normalised into.
//!
//! Structural parts (operations, parameters, bodies, security) are typed; schemas stay
//! `serde_json::Value`, already converted to JSON Schema 2020-12, with every `$ref` rewritten to
//! `#/$defs/<Name>` pointing into [`ApiIr::schemas`]. The IR refers to no document any more.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::diag::Diagnostic;
pub use mcpgen_config::{ApiKeyLocation, BodyContent, ParamLocation, ParamStyle};

/// The kind of input a document is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Dialect {
    /// Swagger 2.0 (`swagger: "2.0"`), upgraded to OpenAPI 3.0 before it is normalised.
    Swagger2,
    /// OpenAPI 3.0.x.
    Oas30,
    /// OpenAPI 3.1.x, and 3.2.x read as 3.1.
    Oas31,
    /// OpenAI's legacy functions: `{"functions": [...]}` or a bare array, entries with `name` and
    /// `parameters`.
    OpenAiFunctions,
    /// OpenAI tools: entries `{"type": "function", "function": {...}}` (a chat request's `tools`
    /// too).
    OpenAiTools,
    /// Anthropic tools: entries with `input_schema`.
    AnthropicTools,
    /// Gemini `functionDeclarations` (schemas in `parameters` or `parametersJsonSchema`).
    GeminiFunctions,
    /// MCP tools, as a `tools/list` result has them (entries with `inputSchema`).
    McpTools,
    /// A Postman Collection v2.0 or v2.1, converted to OpenAPI 3.1 when loaded (schemas inferred
    /// from its examples).
    Postman,
    /// A HAR 1.2 recording, converted to OpenAPI 3.1 when loaded (paths templated, schemas
    /// inferred from the traffic).
    Har,
}

impl Dialect {
    /// Swagger 2.0 or OpenAPI 3.x (or an input loading made one of), rather than a tool list.
    pub fn is_openapi(self) -> bool {
        matches!(self, Dialect::Swagger2 | Dialect::Oas30 | Dialect::Oas31 | Dialect::Postman | Dialect::Har)
    }

    /// A recording of calls (a Postman collection, a HAR file), whose schemas are inferred.
    pub fn is_recorded(self) -> bool {
        matches!(self, Dialect::Postman | Dialect::Har)
    }

    /// The dialect in words, as `inspect` reports it (`OpenAPI 3.1`).
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
            Dialect::Postman => "Postman collection",
            Dialect::Har => "HAR file",
        }
    }
}

/// An API as the stages after normalize see it (see the module's doc).
#[derive(Debug, Clone, Serialize)]
pub struct ApiIr {
    /// What the input was.
    pub dialect: Dialect,
    /// The API's title, version and description.
    pub info: ApiInfo,
    /// Servers with variables substituted by their defaults; relative URLs resolved against the
    /// document's URL when it has one.
    pub servers: Vec<String>,
    /// The document's security schemes by name (Swagger 2.0's `securityDefinitions` included); one
    /// mcpgen cannot read is dropped with a diagnostic.
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
    pub credentials: BTreeMap<String, mcpgen_config::SecurityScheme>,
    /// Static headers sent with every request (a bindings file's).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    /// The bindings file that bound the functions, if any: a function it left unbound cannot
    /// become a tool (it may still be filtered out).
    #[serde(skip)]
    pub bindings_file: Option<String>,
    /// What normalize noticed (operations skipped, values read leniently), for `inspect` and
    /// `--strict`. Not serialised.
    #[serde(skip)]
    pub diagnostics: Vec<Diagnostic>,
}

/// The API's `info`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ApiInfo {
    /// `info.title`; `API` when absent or blank. For a function list: its file name up to the first
    /// `.`.
    pub title: String,
    /// `info.version`; `0.0.0` when absent, and for function lists.
    pub version: String,
    /// `info.description`; `None` when absent or blank, and for function lists.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The document's `tags` that have a description: each tag's name and its description,
    /// trimmed (a tag declared twice keeps its first). Empty for function lists.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub tags: BTreeMap<String, String>,
}

/// The HTTP method: one type for the IR, the runtime config and the engine.
pub use mcpgen_config::Method;

/// One operation of the API, or a function bound to HTTP (see [`function`](Self::function)).
#[derive(Debug, Clone, Serialize)]
pub struct Operation {
    /// JSON pointer of the operation in its document, e.g. `#/paths/~1pets/get`.
    pub pointer: String,
    /// The HTTP method.
    pub method: Method,
    /// The path template, without a fragment or query its key carried.
    pub path: String,
    /// `name=value` pairs the path key carried after `#` or `?`: sent as query parameters.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fixed_query: Vec<(String, String)>,
    /// The `operationId` (a bound function's name); `None` when absent or blank.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub operation_id: Option<String>,
    /// The operation's `summary`, else the path item's; `None` when neither has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// The operation's `description`, trimmed; `None` when absent or blank.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The operation's `tags`, in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// `deprecated: true` (the tool's description then starts with `[Deprecated]`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub deprecated: bool,
    /// The path item's and the operation's parameters merged (the operation's win on name and
    /// location), one for every `{variable}` of the path (a string when undeclared) and no other
    /// path parameter; sorted by location (path, query, header, cookie), else in declaration order.
    pub parameters: Vec<Parameter>,
    /// The request body; `None`: none (or one without `content`).
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
    /// `x-mcp`: overrides for the operation's tool (a bound function's: its title and annotations).
    #[serde(skip_serializing_if = "McpExtension::is_empty")]
    pub mcp: McpExtension,
    /// A function of a tool list bound to this request (`--forward-url`, `--bindings`): its tool
    /// is the function as declared (name, texts, schemas, annotations), sent as this operation.
    /// The other fields say the same in OpenAPI's terms, which is what `convert` writes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub function: Option<Box<Function>>,
}

/// One parameter: where it goes on the wire, how it is serialised, and its schema.
#[derive(Debug, Clone, Serialize)]
pub struct Parameter {
    /// JSON pointer of the parameter where it is declared, e.g. `#/paths/~1pets/get/parameters/0`
    /// (the path item's `parameters` for one declared there, the original index for Swagger 2.0);
    /// the operation's pointer for an undeclared path variable; empty for a bound function's
    /// argument (its function's schema declares it). Not serialised.
    #[serde(skip)]
    pub pointer: String,
    /// The name on the wire (path variable, query key, header or cookie name).
    pub name: String,
    /// Where it goes; `in` when serialised.
    #[serde(rename = "in")]
    pub location: ParamLocation,
    /// OpenAPI's `required`; always true for path parameters.
    pub required: bool,
    /// `deprecated: true`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub deprecated: bool,
    /// The description, trimmed; `None` when absent or blank.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// OpenAPI's `style`; the location's default when absent or not valid for the location.
    pub style: ParamStyle,
    /// OpenAPI's `explode`; when absent, true for the `form` style only.
    pub explode: bool,
    /// OpenAPI's `allowReserved` (query parameters).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub allow_reserved: bool,
    /// The value's JSON Schema (the `content` media type's for such parameters); `{"type":
    /// "string"}` when the parameter gives none.
    pub schema: Value,
    /// Media type when the parameter is described by `content` rather than `schema`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
    /// `x-mcp-argument`: the tool argument's name, when it differs from the wire name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub argument: Option<String>,
    /// Example values as declared beside the schema: the parameter's (or its `content` media
    /// type's) `example`, then the `value` of each of its `examples` by name (see
    /// [`MediaType::examples`]). Schema-level examples stay in [`schema`](Self::schema).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<Value>,
}

/// A request body: its media types and, for a bound function, how the arguments make it up.
#[derive(Debug, Clone, Serialize)]
pub struct RequestBody {
    /// OpenAPI's `required`; true for a forwarded function.
    pub required: bool,
    /// The body's description; `None`: none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Sorted by media type (parsed documents keep no key order).
    pub content: Vec<MediaType>,
    /// How the arguments make up the body when a binding fixes it (a bound function: the
    /// arguments object, a call, or named fields). `None`: from the schema, as OpenAPI says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arguments: Option<BodyContent>,
}

/// One media type of a body or response, with its schema.
#[derive(Debug, Clone, Serialize)]
pub struct MediaType {
    /// The media type as declared (`application/json`, `multipart/form-data`, `*/*`, ...).
    pub media_type: String,
    /// Its JSON Schema; `{}` when it declares none (or, in a response, one that could not be
    /// converted).
    pub schema: Value,
    /// Per-property encoding (multipart/form): property -> content type.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub encoding: BTreeMap<String, String>,
    /// An example of a response's value as declared: OpenAPI 3's `example`, else the `value` of
    /// the first of its `examples` (by name; a `$ref` into `components/examples` followed),
    /// Swagger 2.0's `examples` for this media type. `None`: none (always, for request bodies).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub example: Option<Value>,
    /// Request bodies only: every example of the body as declared, its `example` first, then the
    /// `value` of each of its `examples` by name (`$ref`s into `components/examples` followed), at
    /// most [`MAX_DECLARED_EXAMPLES`]. Empty for responses (see [`example`](Self::example)).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<Value>,
}

/// The most examples the IR keeps of one parameter or request body: `mcpgen export` shows a model
/// a few, and an API may declare hundreds.
pub const MAX_DECLARED_EXAMPLES: usize = 10;

/// The success response of an operation.
#[derive(Debug, Clone, Serialize)]
pub struct Response {
    /// The status key as the document writes it: the first 2xx code in numeric order, else `2XX`
    /// (`200` for a bound function).
    pub status: String,
    /// The response's description; `None`: none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its media types, sorted by name; empty when it declares no content.
    pub content: Vec<MediaType>,
}

/// Scheme names mapped to required scopes; all must be satisfied together.
pub type SecurityRequirement = BTreeMap<String, Vec<String>>;

/// A security scheme as the document declares it. The tools stage makes it the runtime's
/// [`SecurityScheme`](mcpgen_config::SecurityScheme), with the env var names.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SecurityScheme {
    /// `apiKey`: a key in a header, a query parameter or a cookie.
    ApiKey {
        /// The header, query parameter or cookie name.
        name: String,
        /// Where the key goes (`in`).
        location: ApiKeyLocation,
    },
    /// `http`: an HTTP authentication scheme (the `Authorization` header).
    Http {
        /// Which one; `bearer` when the document names none.
        scheme: HttpScheme,
        /// `bearerFormat`, a hint such as `JWT`; `None` when absent.
        #[serde(skip_serializing_if = "Option::is_none")]
        bearer_format: Option<String>,
    },
    /// `oauth2`.
    #[serde(rename = "oauth2")]
    OAuth2 {
        /// The client-credentials flow, the one the engine performs; `None` when it is not offered
        /// (or has no `tokenUrl`).
        #[serde(skip_serializing_if = "Option::is_none")]
        client_credentials: Option<OAuth2Flow>,
        /// The authorization-code flow (each user's own authorization, `--upstream-auth user`);
        /// `None` when it is not offered (or lacks a URL).
        #[serde(skip_serializing_if = "Option::is_none")]
        authorization_code: Option<AuthorizationCodeFlow>,
        /// Names of the other flows offered (implicit, password).
        #[serde(skip_serializing_if = "Vec::is_empty")]
        other_flows: Vec<String>,
    },
    /// `openIdConnect`: the engine cannot perform it; a token obtained elsewhere stands in.
    OpenIdConnect {
        /// `openIdConnectUrl`; empty when absent.
        url: String,
    },
    /// `mutualTLS`: client certificates, which the engine does not support.
    MutualTls,
}

/// An HTTP authentication scheme (RFC 7235; the IANA registry's names, case-insensitive).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HttpScheme {
    /// `basic`: a user name and a password.
    Basic,
    /// `bearer`: a token.
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

    /// The scheme's name, lower-case (`basic`, `bearer`, `digest`, ...).
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

/// An OAuth2 client-credentials flow.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OAuth2Flow {
    /// `tokenUrl`: where access tokens are fetched.
    pub token_url: String,
    /// The names of the scopes the flow defines (the keys of its `scopes`, sorted); the engine asks
    /// for all of them.
    pub scopes: Vec<String>,
}

/// An OAuth2 authorization-code flow.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuthorizationCodeFlow {
    /// `authorizationUrl`: where users consent.
    pub authorization_url: String,
    /// `tokenUrl`: where codes and refresh tokens are exchanged.
    pub token_url: String,
    /// The names of the scopes the flow defines (sorted); all are asked for.
    pub scopes: Vec<String>,
}

/// The `x-mcp` extension on an operation: overrides for the tool it yields.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct McpExtension {
    /// `x-mcp.name`: the tool's name instead of the operationId or the one derived from method and
    /// path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The tool's title (`x-mcp.title`): what clients show as its name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The title inside the tool's annotations (`x-mcp.annotations.title`, an MCP tool's
    /// `annotations.title`), which MCP keeps apart from the tool's own title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations_title: Option<String>,
    /// `x-mcp.description`: the tool's description as it is, instead of the summary and
    /// description.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `x-mcp.hidden: true` or `x-mcp: false`: the operation yields no tool.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub hidden: bool,
    /// `readOnlyHint` (in `x-mcp.annotations` or beside `name`; an MCP tool's own annotations);
    /// `None`: the method's default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_only: Option<bool>,
    /// `destructiveHint`, read as [`read_only`](Self::read_only); `None`: the method's default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destructive: Option<bool>,
    /// `idempotentHint`, read as [`read_only`](Self::read_only); `None`: the method's default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idempotent: Option<bool>,
    /// `openWorldHint`, read as [`read_only`](Self::read_only); `None`: true.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub open_world: Option<bool>,
    /// The OAuth scopes a caller needs (`x-mcp.scopes`), instead of those of the operation's
    /// `security`; `Some([])`: none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scopes: Option<mcpgen_config::ScopeSets>,
    /// `x-mcp.maxResultChars`: the tool's result budget in characters, over the context's
    /// (`0`: no limit).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_result_chars: Option<usize>,
    /// `x-mcp.inferred`: the operation was inferred from recorded calls (a Postman collection, a
    /// HAR file), to be reviewed; `doctor` reports it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inferred: Option<Inferred>,
}

/// How an operation was inferred (`x-mcp.inferred`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Inferred {
    /// How many recorded calls (examples) it was inferred from.
    pub examples: usize,
    /// What recorded them: `Postman collection`, `HAR file`.
    pub from: String,
}

impl McpExtension {
    /// Whether nothing is set (then it is not serialised).
    pub fn is_empty(&self) -> bool {
        *self == McpExtension::default()
    }
}

/// A function from a function-calling tool list.
#[derive(Debug, Clone, Serialize)]
pub struct Function {
    /// JSON pointer of the function in its document, e.g. `#/tools/0/function`.
    pub pointer: String,
    /// The name as declared; the tool's name, sanitised, unless [`mcp`](Self::mcp) names another.
    pub name: String,
    /// The declared `title` (MCP tools have one); `None`: none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The description, trimmed; `None` when absent or blank.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Always an object schema.
    pub parameters: Value,
    /// An MCP tool's `outputSchema`, converted; `None` when absent and for other dialects.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// OpenAI's `strict: true` as declared (recorded; no later stage reads it).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub strict: bool,
    /// An MCP tool's annotations (hints and their title); empty for other dialects.
    #[serde(skip_serializing_if = "McpExtension::is_empty")]
    pub mcp: McpExtension,
}
