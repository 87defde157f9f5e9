//! The runtime configuration: everything the engine needs to serve an API as MCP tools.
//!
//! This is the output of the `tools` stage, the file `mcpgen config` writes and the catalogue a
//! generated crate embeds. It depends on nothing but serde, so the runtime module can be copied
//! verbatim into a generated crate.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub use super::binding::{
    BodyBinding, BodyContent, BodyField, HttpBinding, Method, ParamBinding, ParamLocation, ParamStyle,
};

/// A JSON object: tool schemas are always one.
pub type JsonObject = Map<String, Value>;

/// The version of the runtime config format; bumped on incompatible changes.
pub const CONFIG_FORMAT_VERSION: u32 = 1;

/// The runtime config: everything the engine serves, as `mcpgen config` writes it and a generated
/// crate embeds it (`catalogue.json`). The format is described in `docs/config.md`; unknown keys
/// fail to load.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuntimeConfig {
    /// Always [`CONFIG_FORMAT_VERSION`] when written by this version of mcpgen.
    pub mcpgen_config: u32,
    /// What `initialize` reports about the server.
    pub server: ServerInfo,
    /// The API the tools call: its base URL and the static headers sent with every request.
    pub upstream: Upstream,
    /// Several APIs served as one (`mcpgen serve a.yaml b.yaml`): each one's base URL and
    /// headers, which its tools ([`Tool::api`]) use instead of [`upstream`](Self::upstream)'s.
    /// Omitted when empty (one API).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub apis: Vec<Api>,
    /// How to send credentials, by scheme name: the names [`HttpBinding::security`] refers to.
    /// Omitted when empty.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub security_schemes: BTreeMap<String, SecurityScheme>,
    /// The upstream timeout and response size cap; [`Limits::default`] when absent.
    #[serde(default)]
    pub limits: Limits,
    /// How tools are shown to clients (every tool, or search-describe-call discovery).
    #[serde(default)]
    pub context: Context,
    /// Which GET operations are also resources (`--resources`); omitted when off.
    #[serde(default, skip_serializing_if = "Resources::is_off")]
    pub resources: Resources,
    /// The tools, in the order `tools/list` shows them.
    pub tools: Vec<Tool>,
}

/// One API of a config that serves several: where its tools' requests go.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Api {
    /// The API's key, unique in the config: its tools' [`Tool::api`], and the namespace of its
    /// security schemes (`github/bearer`).
    pub name: String,
    /// The API's title (server instructions, the discovery map).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The API's own version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// What its tools' names start with (`github_`); a record for people and the discovery map.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub prefix: String,
    /// The API's base URL and static headers, as [`RuntimeConfig::upstream`] for one API; the
    /// top-level `upstream`'s headers are sent too, and `--base-url` overrides every API's URL.
    #[serde(default)]
    pub upstream: Upstream,
}

/// What the MCP server says about itself in `initialize`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerInfo {
    /// The server's name (`serverInfo.name`); mcpgen writes the API title sanitised to lower-case
    /// letters, digits, `_` and `-` (`swagger_petstore`).
    pub name: String,
    /// The server's version (`serverInfo.version`): the API's own version (OpenAPI `info.version`).
    pub version: String,
    /// A display name (`serverInfo.title`): the API title. `None`: [`name`](Self::name) is shown
    /// instead (logs, the HTTP endpoint's page, a generated crate's README).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The `instructions` of `initialize`: the API's description, for the model (capped at
    /// `--max-description-len`). In discovery mode the engine appends how to use the discovery
    /// tools and a map of the API. `None`: no instructions but those.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
}

/// Where requests go.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Upstream {
    /// Base URL that tool paths are appended to. May be relative when the document's own URL was
    /// unknown; `--base-url` then has to supply it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    /// Static headers sent with every request (no secrets here: those come from env vars).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
}

/// How a credential reaches the upstream. Secrets are never stored: only the names of the
/// environment variables that hold them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum SecurityScheme {
    /// `api_key`: a key sent in a header, a query parameter or a cookie.
    ApiKey {
        /// Where the key goes.
        location: ApiKeyLocation,
        /// The header, query parameter or cookie the key is sent as, spelt as the API expects it.
        name: String,
        /// The env var that holds the key.
        env: String,
    },
    /// `bearer`: `Authorization: Bearer <token>`.
    Bearer {
        /// The env var that holds the token (without `Bearer `).
        env: String,
    },
    /// `basic`: HTTP basic authentication (`Authorization: Basic ...`).
    Basic {
        /// The env var that holds the user name; the scheme is used only when it is set.
        username_env: String,
        /// The env var that holds the password; unset means an empty password.
        password_env: String,
    },
    /// `oauth2_client_credentials`: unless `token_env` holds a token, the engine fetches access
    /// tokens from the token endpoint with the client ID and secret (HTTP basic), caches them until
    /// shortly before they expire, and sends them as `Authorization: Bearer <token>`.
    #[serde(rename = "oauth2_client_credentials")]
    OAuth2ClientCredentials {
        /// The token endpoint, POSTed a `grant_type=client_credentials` form.
        token_url: String,
        /// The scopes to request, sent space-separated as `scope` (no `scope` when empty). Omitted
        /// when empty.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        scopes: Vec<String>,
        /// The env var that holds the client ID.
        client_id_env: String,
        /// The env var that holds the client secret.
        client_secret_env: String,
        /// An access token the user already has: sent as a bearer token when set, so that the
        /// client id and secret are needed only for mcpgen to fetch tokens itself.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        token_env: Option<String>,
    },
    /// A scheme the engine cannot perform itself (OAuth2 user flows, OpenID Connect, mutual TLS):
    /// an access token obtained elsewhere may be supplied as a bearer token in `env`.
    External {
        /// How to obtain the credential, in words for people (`inspect`, a generated crate's help);
        /// [`describe`](SecurityScheme::describe) returns it.
        description: String,
        /// The env var that holds the token: sent as `Authorization: Bearer <value>`, or as the
        /// whole `Authorization` value when it contains a space (`Digest ...`).
        env: String,
    },
}

impl SecurityScheme {
    /// The environment variables that hold this scheme's credentials, in order.
    pub fn env_vars(&self) -> Vec<&str> {
        match self {
            SecurityScheme::ApiKey { env, .. }
            | SecurityScheme::Bearer { env }
            | SecurityScheme::External { env, .. } => {
                vec![env]
            }
            SecurityScheme::Basic { username_env, password_env } => vec![username_env, password_env],
            SecurityScheme::OAuth2ClientCredentials { client_id_env, client_secret_env, token_env, .. } => token_env
                .iter()
                .map(String::as_str)
                .chain([client_id_env.as_str(), client_secret_env.as_str()])
                .collect(),
        }
    }

    /// What to set for this scheme, in words: `A`, `A and B`, or `T, or A and B`.
    pub fn env_hint(&self) -> String {
        match self {
            SecurityScheme::OAuth2ClientCredentials {
                client_id_env, client_secret_env, token_env: Some(t), ..
            } => {
                format!("{t}, or {client_id_env} and {client_secret_env}")
            }
            other => other.env_vars().join(" and "),
        }
    }

    /// The scheme in words, for people: `API key in header `X-API-Key``, `bearer token`, `HTTP
    /// basic`, `OAuth2 client credentials`, or an external scheme's own description. `inspect`,
    /// generated crates' help and OpenAPI exports all say it so.
    pub fn describe(&self) -> String {
        match self {
            // Only the location is lower-case: the key's own name is case-sensitive on the wire.
            SecurityScheme::ApiKey { location, name, .. } => format!("API key in {} `{name}`", location.as_str()),
            SecurityScheme::Bearer { .. } => "bearer token".to_string(),
            SecurityScheme::Basic { .. } => "HTTP basic".to_string(),
            SecurityScheme::OAuth2ClientCredentials { .. } => "OAuth2 client credentials".to_string(),
            SecurityScheme::External { description, .. } => description.clone(),
        }
    }

    /// Each env var of [`env_vars`](Self::env_vars) with what it holds, in words: the scheme's
    /// [`describe`](Self::describe), and the part of the credential when there are several.
    pub fn describe_env_vars(&self) -> Vec<(&str, String)> {
        let what = self.describe();
        match self {
            SecurityScheme::Basic { username_env, password_env } => {
                vec![(username_env, format!("{what} user name")), (password_env, format!("{what} password"))]
            }
            SecurityScheme::OAuth2ClientCredentials { client_id_env, client_secret_env, token_env, .. } => token_env
                .iter()
                .map(|t| (t.as_str(), format!("{what}: an access token you already have, or set the two below")))
                .chain([
                    (client_id_env.as_str(), format!("{what}: client ID")),
                    (client_secret_env.as_str(), format!("{what}: client secret")),
                ])
                .collect(),
            _ => self.env_vars().into_iter().map(|env| (env, what.clone())).collect(),
        }
    }
}

/// Where an API key goes (`location` in the config, lower-case).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ApiKeyLocation {
    /// `header`: a request header.
    Header,
    /// `query`: a query parameter.
    Query,
    /// `cookie`: a cookie of the `Cookie` header.
    Cookie,
}

impl ApiKeyLocation {
    /// `header`, `query` or `cookie`, as OpenAPI and the config spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            ApiKeyLocation::Header => "header",
            ApiKeyLocation::Query => "query",
            ApiKeyLocation::Cookie => "cookie",
        }
    }
}

/// Alternatives (any one suffices) of sets of schemes (all needed together); empty = no auth.
pub type SecurityRequirements = Vec<Vec<String>>;

/// Limits on upstream requests. `serve`'s `--timeout` and `--max-response-bytes` (and a generated
/// crate's) override them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Limits {
    /// Per-request timeout toward the upstream, in seconds.
    pub timeout_secs: f64,
    /// Responses larger than this are truncated with a marker.
    pub max_response_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { timeout_secs: 30.0, max_response_bytes: 1024 * 1024 }
    }
}

/// How the tools are shown to clients. Every tool definition costs the model context on every
/// turn, so a large API is better served through three discovery tools (search, describe, call).
/// Only what is advertised changes: calls are validated against the full schemas in every mode.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Context {
    /// Which tools `tools/list` shows; `auto` when absent (`--tool-mode` overrides).
    #[serde(default)]
    pub tool_mode: ToolMode,
    /// How much of each tool's schema is advertised; `auto` when absent (`--schema-detail`
    /// overrides).
    #[serde(default)]
    pub schema_detail: SchemaDetail,
    /// `auto` lists every tool when there are at most this many...
    #[serde(default = "Context::default_max_tools")]
    pub auto_max_tools: usize,
    /// ... and their `tools/list` costs at most this many tokens.
    #[serde(default = "Context::default_max_tokens")]
    pub auto_max_tokens: usize,
    /// Globs of tool names listed directly in discovery mode too.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pin_tools: Vec<String>,
    /// The cost of listing every tool, measured by mcpgen with OpenAI's o200k_base tokenizer.
    /// Absent (or stale after hand edits), the engine estimates it from the size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_list_tokens: Option<ListTokens>,
}

impl Context {
    /// [`auto_max_tools`](Self::auto_max_tools) when absent.
    pub const DEFAULT_MAX_TOOLS: usize = 40;
    /// [`auto_max_tokens`](Self::auto_max_tokens) when absent.
    pub const DEFAULT_MAX_TOKENS: usize = 20_000;

    fn default_max_tools() -> usize {
        Self::DEFAULT_MAX_TOOLS
    }

    fn default_max_tokens() -> usize {
        Self::DEFAULT_MAX_TOKENS
    }
}

impl Default for Context {
    fn default() -> Self {
        Context {
            tool_mode: ToolMode::default(),
            schema_detail: SchemaDetail::default(),
            auto_max_tools: Self::DEFAULT_MAX_TOOLS,
            auto_max_tokens: Self::DEFAULT_MAX_TOKENS,
            pin_tools: Vec::new(),
            tools_list_tokens: None,
        }
    }
}

/// Route maps (`--resources`): GET operations read as MCP resources, besides the API description
/// resource, which is always served (see `docs/resources.md`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Resources {
    /// GET operations without required arguments become resources, and those whose only
    /// required arguments are path parameters become resource templates.
    pub route_maps: bool,
    /// The URI scheme of those resources: `SCHEME://path` (`api` when absent).
    pub scheme: String,
}

impl Resources {
    /// The scheme when none is given.
    pub const DEFAULT_SCHEME: &str = "api";

    /// Off, with the default scheme: nothing worth writing into a config.
    pub fn is_off(&self) -> bool {
        *self == Resources::default()
    }
}

impl Default for Resources {
    fn default() -> Self {
        Resources { route_maps: false, scheme: Self::DEFAULT_SCHEME.to_string() }
    }
}

/// Which tools `tools/list` shows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolMode {
    /// Every tool when the API is small (see `auto_max_tools`, `auto_max_tokens`), discovery otherwise.
    #[default]
    Auto,
    /// Every tool.
    All,
    /// `search_tools`, `describe_tools` and `call_tool` (and pinned tools).
    Discovery,
}

/// How much of each tool's schema is advertised.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SchemaDetail {
    /// Compact when listing every tool in full would cost more than `auto_max_tokens`.
    #[default]
    Auto,
    /// The schemas and descriptions as the config has them.
    Full,
    /// Nested descriptions cut to their first sentence; examples, `externalDocs`, `x-*` and
    /// titles that repeat the property name dropped.
    Compact,
}

/// Tokens of the all-tools `tools/list`, with full and with compact schemas.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListTokens {
    /// Tokens with every tool's full definition: what `auto` compares with `auto_max_tokens`.
    pub full: usize,
    /// Tokens with compact schemas and descriptions (a record: the engine decides on `full`).
    pub compact: usize,
}

impl RuntimeConfig {
    /// The tools without an HTTP binding: function-calling tools that need a handler.
    pub fn unbound_tools(&self) -> impl Iterator<Item = &Tool> {
        self.tools.iter().filter(|t| t.http.is_none())
    }
}

impl Tool {
    /// The tool as MCP's `tools/list` shows it, borrowed (serialise it without copying schemas).
    pub fn mcp_view(&self) -> McpToolView<'_> {
        McpToolView {
            name: &self.name,
            title: self.title.as_deref(),
            description: &self.description,
            input_schema: &self.input_schema,
            output_schema: self.output_schema.as_ref(),
            annotations: &self.annotations,
        }
    }
}

/// Compact JSON size of `{"tools":[...]}` for these tools, measured without building it.
/// Counting stops once it passes `limit` (pass `usize::MAX` for the exact size).
pub fn tools_list_bytes<'a>(tools: impl IntoIterator<Item = McpToolView<'a>>, limit: usize) -> usize {
    struct Counter(usize);
    impl std::io::Write for Counter {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter(r#"{"tools":[]}"#.len());
    for (i, t) in tools.into_iter().enumerate() {
        counter.0 += usize::from(i > 0);
        let _ = serde_json::to_writer(&mut counter, &t);
        if counter.0 > limit {
            break;
        }
    }
    counter.0
}

/// A tool in MCP's wire shape.
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct McpToolView<'a> {
    /// [`Tool::name`].
    pub name: &'a str,
    /// [`Tool::title`]; left out when `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<&'a str>,
    /// [`Tool::description`]; left out when empty.
    #[serde(skip_serializing_if = "str::is_empty")]
    pub description: &'a str,
    /// [`Tool::input_schema`], as `inputSchema`.
    pub input_schema: &'a JsonObject,
    /// [`Tool::output_schema`], as `outputSchema`; left out when `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<&'a JsonObject>,
    /// [`Tool::annotations`].
    pub annotations: &'a Annotations,
}

/// One MCP tool and how a call becomes an HTTP request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tool {
    /// The name clients call the tool by; unique in the config. mcpgen writes names that match
    /// `^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$` by default (`--max-name-len` sets the length).
    pub name: String,
    /// A display title: `x-mcp.title` or the operation's summary (at most 120 characters), or a
    /// function's title. `None`: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The OpenAPI operationId, when it differs from the name (search finds tools by it too).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operation_id: Option<String>,
    /// The operation's tags (search and the discovery map group tools by them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// What the tool does, for the model: the operation's `x-mcp.description`, else its summary
    /// and description (`[Deprecated] ` first for a deprecated one), or a function's description;
    /// cut to `--max-description-len` characters. Empty when there is none, and then not sent.
    #[serde(default)]
    pub description: String,
    /// A JSON Schema for the arguments; MCP requires an object (a config with anything else fails
    /// to load).
    pub input_schema: JsonObject,
    /// A JSON Schema of the result's structured content, object-rooted (other schemas are wrapped
    /// as `{"result": ...}`, as results are); written only with `--output-schema full`. When set, a
    /// result that breaks it is an error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<JsonObject>,
    /// The MCP annotations clients see.
    pub annotations: Annotations,
    /// How a call reaches the upstream API; `None` for function-calling tools without one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http: Option<HttpBinding>,
    /// The OAuth scopes a caller's access token needs to see and call this tool when the server
    /// checks tokens (`--oauth-issuer`): any one of the sets, each needed whole. Empty: no scope
    /// needed. Read as a list of sets or, for one set, as a list of scopes (`[read, write]`).
    #[serde(default, skip_serializing_if = "Vec::is_empty", deserialize_with = "scope_sets")]
    pub scopes: ScopeSets,
    /// In a config of several APIs: the [`Api::name`] whose base URL and headers this tool's
    /// requests use. `None`: the top-level `upstream`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api: Option<String>,
}

/// Alternatives (any one suffices) of sets of OAuth scopes (all needed together); empty = none.
pub type ScopeSets = Vec<Vec<String>>;

/// Whether a caller holding the scopes `has` says yes to satisfies `sets`.
pub fn scopes_allow(sets: &[Vec<String>], has: impl Fn(&str) -> bool) -> bool {
    sets.is_empty() || sets.iter().any(|set| set.iter().all(|s| has(s)))
}

/// `scopes` as a list of sets, or a flat list of scopes for one set; an empty set among them
/// means no scope is needed (the whole is then empty).
fn scope_sets<'de, D: serde::Deserializer<'de>>(d: D) -> Result<ScopeSets, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Item {
        Scope(String),
        Set(Vec<String>),
    }
    let items = Vec::<Item>::deserialize(d)?;
    let mut flat = Vec::new();
    let mut sets = Vec::new();
    for item in items {
        match item {
            Item::Scope(s) => flat.push(s),
            Item::Set(set) => sets.push(set),
        }
    }
    if !flat.is_empty() && !sets.is_empty() {
        return Err(serde::de::Error::custom("`scopes` is either a list of scopes or a list of lists of scopes"));
    }
    if !flat.is_empty() {
        sets.push(flat);
    }
    if sets.iter().any(Vec::is_empty) {
        sets.clear();
    }
    Ok(sets)
}

/// MCP tool annotations; always written out explicitly.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Annotations {
    /// The annotations' own `title` (from `x-mcp`); `None`: left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// `readOnlyHint`: the tool changes nothing. By default true for GET, HEAD, OPTIONS and TRACE;
    /// `x-mcp` overrides.
    pub read_only_hint: bool,
    /// `destructiveHint`: the tool may delete or overwrite. By default true for PUT, DELETE and
    /// PATCH; `x-mcp` overrides.
    pub destructive_hint: bool,
    /// `idempotentHint`: repeating a call has no further effect. By default true for every method
    /// but POST and PATCH; `x-mcp` overrides.
    pub idempotent_hint: bool,
    /// `openWorldHint`: the tool reaches outside systems. True by default (an API is the open
    /// world); `x-mcp` overrides.
    pub open_world_hint: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn oauth2(token_env: Option<&str>) -> SecurityScheme {
        SecurityScheme::OAuth2ClientCredentials {
            token_url: "https://auth.example.com/token".into(),
            scopes: vec![],
            client_id_env: "ID".into(),
            client_secret_env: "SECRET".into(),
            token_env: token_env.map(String::from),
        }
    }

    #[test]
    fn scopes_are_sets_or_one_flat_set() {
        let tool = |scopes: &str| -> Result<Tool, serde_json::Error> {
            serde_json::from_str(&format!(
                r#"{{"name": "t", "input_schema": {{"type": "object"}}, "annotations": {{"readOnlyHint": true,
                "destructiveHint": false, "idempotentHint": true, "openWorldHint": true}}{scopes}}}"#
            ))
        };
        assert_eq!(tool("").unwrap().scopes, ScopeSets::new(), "old configs load: no scope needed");
        assert_eq!(tool(r#", "scopes": ["a", "b"]"#).unwrap().scopes, vec![vec!["a".to_string(), "b".into()]]);
        assert_eq!(
            tool(r#", "scopes": [["a"], ["b"]]"#).unwrap().scopes,
            vec![vec!["a".to_string()], vec!["b".into()]]
        );
        assert_eq!(tool(r#", "scopes": [["a"], []]"#).unwrap().scopes, ScopeSets::new(), "an empty set needs nothing");
        assert!(tool(r#", "scopes": ["a", ["b"]]"#).is_err());
        let t = tool(r#", "scopes": [["a", "b"], ["c"]]"#).unwrap();
        assert!(scopes_allow(&t.scopes, |s| s == "c"));
        assert!(!scopes_allow(&t.scopes, |s| s == "a"));
        assert!(scopes_allow(&[], |_| false));
        let back: Tool = serde_json::from_value(serde_json::to_value(&t).unwrap()).unwrap();
        assert_eq!(back, t);
    }

    #[test]
    fn api_key_locations_as_openapi_spells_them() {
        for location in [ApiKeyLocation::Header, ApiKeyLocation::Query, ApiKeyLocation::Cookie] {
            assert_eq!(serde_json::to_value(location).unwrap(), location.as_str());
        }
    }

    #[test]
    fn schemes_in_words() {
        let key =
            SecurityScheme::ApiKey { location: ApiKeyLocation::Cookie, name: "SESSIONID".into(), env: "K".into() };
        assert_eq!(key.describe(), "API key in cookie `SESSIONID`");
        assert_eq!(SecurityScheme::Bearer { env: "T".into() }.describe(), "bearer token");
        let basic = SecurityScheme::Basic { username_env: "U".into(), password_env: "P".into() };
        assert_eq!(basic.describe(), "HTTP basic");
        assert_eq!(oauth2(None).describe(), "OAuth2 client credentials");
        let external = SecurityScheme::External { description: "mutual TLS".into(), env: "T".into() };
        assert_eq!(external.describe(), "mutual TLS");
    }

    #[test]
    fn single_env_vars_hold_the_scheme() {
        let key = SecurityScheme::ApiKey { location: ApiKeyLocation::Header, name: "X-Key".into(), env: "K".into() };
        assert_eq!(key.describe_env_vars(), [("K", "API key in header `X-Key`".to_string())]);
    }

    #[test]
    fn several_env_vars_say_their_part() {
        let basic = SecurityScheme::Basic { username_env: "U".into(), password_env: "P".into() };
        assert_eq!(
            basic.describe_env_vars(),
            [("U", "HTTP basic user name".to_string()), ("P", "HTTP basic password".to_string())]
        );
        let with_token = oauth2(Some("T"));
        let vars: Vec<&str> = with_token.describe_env_vars().into_iter().map(|(env, _)| env).collect();
        assert_eq!(vars, with_token.env_vars());
        let without = oauth2(None);
        assert_eq!(without.describe_env_vars()[0], ("ID", "OAuth2 client credentials: client ID".to_string()));
    }
}
