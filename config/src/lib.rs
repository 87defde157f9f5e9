//! The contract between mcpgen's compiler and its engine: the runtime config format, and the
//! pure rules both sides must agree on.
//!
//! The runtime config is everything the engine needs to serve an API as MCP tools: the output of
//! the `tools` stage, the file `mcpgen config` writes and the catalogue a generated crate embeds.
//! This crate depends on serde and schemars alone (no async runtime, no HTTP stack); the engine,
//! `mcpgen-runtime`, re-exports it as `mcpgen_runtime::config`.
//!
//! The format is a contract: [`schema`] is its JSON Schema, derived from these types (it describes
//! what they deserialise); `config/schema/mcpgen-config.schema.json` in mcpgen's repository is
//! that schema, checked against the types by a test, and `mcpgen config` names it ([`SCHEMA_ID`])
//! in the `$schema` key of the configs it writes.
//!
//! The rules: [`exposure`] (what `tools/list` shows, and the result budget of a tool), [`text`]
//! (texts of API descriptions made plain for a model; numbers for people), [`media`] (which media
//! types are JSON or text), [`features`] (the engine's cargo features, tabled once).

#![deny(missing_docs)]

pub mod binding;
pub mod exposure;
pub mod features;
pub mod keywords;
pub mod media;
pub mod refs;
pub mod response;
pub mod security;
pub mod text;

use std::collections::BTreeMap;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::{DeserializeSeed, Deserializer, IntoDeserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};

pub use crate::binding::{
    BodyBinding, BodyContent, BodyField, HttpBinding, Method, ParamBinding, ParamLocation, ParamStyle,
};
pub use crate::response::{ResponseDetail, ResponseFormat, ResponseInfo};
pub use crate::security::{ApiKeyLocation, SecurityRequirements, SecurityScheme, UpstreamIdentity};

/// A runtime config that does not load, and why (serde's words, with line and column).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidConfig(pub String);

impl std::fmt::Display for InvalidConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the runtime config is invalid: {}", self.0)
    }
}

impl std::error::Error for InvalidConfig {}

/// A JSON object: tool schemas are always one.
pub type JsonObject = Map<String, Value>;

/// The version of the runtime config format; bumped on incompatible changes.
pub const CONFIG_FORMAT_VERSION: u32 = 1;

/// The `$id` of the JSON Schema of this format version ([`schema`]), and the `$schema` that
/// `mcpgen config` writes first in a config. It names the format version, and sits under the
/// repository address of the crate's manifest (a placeholder for now: nothing is served there; the
/// schema is the file `config/schema/mcpgen-config.schema.json` of mcpgen's repository).
pub const SCHEMA_ID: &str = "https://example.invalid/mcpgen/schema/mcpgen-config-1.schema.json";

/// The key of a config that names its JSON Schema (`"$schema": SCHEMA_ID`): read and checked to
/// be a string, then dropped; never written by [`RuntimeConfig`]'s own `Serialize`.
pub const SCHEMA_KEY: &str = "$schema";

/// The JSON Schema (2020-12) of the runtime config format, generated from these types: what their
/// `Deserialize` accepts, with [`SCHEMA_ID`] as `$id` and a title naming the format version. The
/// descriptions are the types' doc comments, as plain text. Deterministic (object keys sorted);
/// `config/schema/mcpgen-config.schema.json` is this value.
pub fn schema() -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12().for_deserialize().into_generator();
    let mut schema = generator.into_root_schema_for::<RuntimeConfig>();
    schema.insert("$id".into(), Value::from(SCHEMA_ID));
    schema.insert("title".into(), Value::from(format!("mcpgen runtime config, format {CONFIG_FORMAT_VERSION}")));
    let mut schema = schema.to_value();
    plain_descriptions(&mut schema);
    schema
}

/// Every `description` of a schema through [`plain_description`].
fn plain_descriptions(schema: &mut Value) {
    match schema {
        Value::Object(o) => {
            for (key, value) in o.iter_mut() {
                match value {
                    Value::String(text) if key == "description" => *text = plain_description(text),
                    _ => plain_descriptions(value),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(plain_descriptions),
        _ => {}
    }
}

/// A doc comment as plain text: rustdoc links as the code they show ([`Tool::api`] and
/// [`upstream`](Self::upstream) as `` `Tool::api` `` and `` `upstream` ``), the lines of a
/// paragraph joined.
fn plain_description(doc: &str) -> String {
    let mut out = String::with_capacity(doc.len());
    let mut rest = doc;
    while let Some(start) = rest.find("[`") {
        let Some(len) = rest[start + 2..].find("`]") else { break };
        out.push_str(&rest[..start]);
        out.push_str(&rest[start + 1..start + len + 3]);
        rest = &rest[start + len + 4..];
        if rest.starts_with('(')
            && let Some(close) = rest.find(')')
        {
            rest = &rest[close + 1..];
        }
    }
    out.push_str(rest);
    out.split("\n\n").map(|paragraph| paragraph.replace('\n', " ")).collect::<Vec<_>>().join("\n\n")
}

/// The runtime config: everything the engine serves, as `mcpgen config` writes it and a generated
/// crate embeds it (`catalogue.json`). The format is described in `docs/config.md` and by
/// [`schema`]; unknown keys fail to load, but for `$schema` ([`SCHEMA_KEY`]), which editors read.
///
/// Its `Serialize` and `Deserialize` are serde's derived ones (`remote = "Self"` makes them the
/// inherent `RuntimeConfig::serialize` and `RuntimeConfig::deserialize`), the latter behind a map
/// that skips `$schema`: `deny_unknown_fields` stays for every other key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(remote = "Self", deny_unknown_fields)]
#[schemars(
    transform = with_schema_key,
    description = "The runtime config of an MCP server made by mcpgen: `mcpgen config` writes it, `mcpgen serve` \
                   runs it, a generated crate embeds it (`src/catalogue.json`). Described in mcpgen's \
                   docs/config.md. Unknown keys fail to load."
)]
pub struct RuntimeConfig {
    /// Always [`CONFIG_FORMAT_VERSION`] when written by this version of mcpgen.
    #[schemars(schema_with = "format_version", description = "The format version: 1 (mcpgen refuses any other).")]
    pub mcpgen_config: u32,
    /// What `initialize` reports about the server.
    pub server: ServerInfo,
    /// What each area of the API is for: the tags (OpenAPI `tags`) that are some tool's first
    /// (its area), each with the first sentence of its description, as plain text. The server instructions' map of
    /// the API shows them beside the areas. Omitted when empty (and, in a config of several APIs,
    /// each API's are in its entry of [`apis`](Self::apis)).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tags: BTreeMap<String, String>,
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

impl Serialize for RuntimeConfig {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // The derived (inherent) one: `$schema` is the writer's to add.
        RuntimeConfig::serialize(self, serializer)
    }
}

impl<'de> Deserialize<'de> for RuntimeConfig {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Config;
        impl<'de> Visitor<'de> for Config {
            type Value = RuntimeConfig;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an mcpgen runtime config (an object)")
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<RuntimeConfig, A::Error> {
                // The derived (inherent) one, over the keys but `$schema`.
                RuntimeConfig::deserialize(serde::de::value::MapAccessDeserializer::new(WithoutSchemaKey(map)))
            }
        }
        deserializer.deserialize_map(Config)
    }
}

/// A config's keys without `$schema` (its value checked to be a string and dropped).
struct WithoutSchemaKey<A>(A);

/// One key of a config: `$schema`, or another for the derived `Deserialize`'s own key seed.
enum Key<T> {
    Schema,
    Other(T),
}

/// Reads a key; gives it to the derived seed unless it is `$schema`. The key is read inside the
/// map's own `next_key_seed`, so errors about it (`unknown field`) keep their place in the document
/// (`serde_path_to_error`, mcpgen's pointers).
struct KeySeed<'a, K>(&'a mut Option<K>);

impl<'de, K: DeserializeSeed<'de>> DeserializeSeed<'de> for KeySeed<'_, K> {
    type Value = Key<K::Value>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        let key = String::deserialize(deserializer)?;
        if key == SCHEMA_KEY {
            return Ok(Key::Schema);
        }
        let seed = self.0.take().ok_or_else(|| serde::de::Error::custom("a config key read twice"))?;
        seed.deserialize(key.into_deserializer()).map(Key::Other)
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for WithoutSchemaKey<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, A::Error> {
        let mut seed = Some(seed);
        loop {
            match self.0.next_key_seed(KeySeed(&mut seed))? {
                None => return Ok(None),
                Some(Key::Other(key)) => return Ok(Some(key)),
                Some(Key::Schema) => {
                    self.0.next_value::<String>()?;
                }
            }
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.0.next_value_seed(seed)
    }

    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

/// `mcpgen_config` in the schema: the one version this schema describes.
fn format_version(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": "integer", "const": CONFIG_FORMAT_VERSION})
}

/// `$schema` in the schema: the one key of a config outside [`RuntimeConfig`]'s fields.
fn with_schema_key(schema: &mut Schema) {
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        let key = serde_json::json!({
            "description": "The JSON Schema of the config, for editors (mcpgen writes its `$id`); ignored when loading.",
            "type": "string",
        });
        properties.insert(SCHEMA_KEY.into(), key);
    }
}

/// One API of a config that serves several: where its tools' requests go.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
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
    /// What each of its areas is for, as [`RuntimeConfig::tags`] for one API.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tags: BTreeMap<String, String>,
    /// The API's base URL and static headers, as [`RuntimeConfig::upstream`] for one API; the
    /// top-level `upstream`'s headers are sent too, and `--base-url` overrides every API's URL.
    #[serde(default)]
    pub upstream: Upstream,
}

/// What the MCP server says about itself in `initialize`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
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
    /// The `instructions` of `initialize`: what the API is, for the model. mcpgen writes the first
    /// paragraph of the API's description as plain text, at most 300 characters (and
    /// `--max-description-len`). The engine appends a map of the API (its areas, with
    /// [`RuntimeConfig::tags`]) and, in discovery mode, how to use the discovery tools. `None`:
    /// no instructions but those.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
}

/// Where requests go.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Upstream {
    /// Base URL that tool paths are appended to. May be relative when the document's own URL was
    /// unknown; `--base-url` then has to supply it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    /// Static headers sent with every request (no secrets here: those come from env vars).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    /// Whose identity the requests carry; `None`: the server's own credentials.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth: Option<UpstreamIdentity>,
}

/// Limits on upstream requests. `serve`'s `--timeout` and `--max-response-bytes` (and a generated
/// crate's) override them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
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
    /// A sentence-embedding model directory for discovery's search (`--search-model`); `None`:
    /// search by words only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search_model: Option<std::path::PathBuf>,
    /// The cost of listing every tool, measured by mcpgen with OpenAI's o200k_base tokenizer.
    /// Absent (or stale after hand edits), the engine estimates it from the size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_list_tokens: Option<ListTokens>,
    /// Characters of a tool result at most (`--max-result-chars`; a tool's
    /// [`ResponseInfo::max_result_chars`] overrides it): a longer result is reduced to fit (lists
    /// keep their first items, long strings are shortened) with a note on how to get the rest.
    /// `0`: no limit.
    #[serde(default = "Context::default_max_result_chars")]
    pub max_result_chars: usize,
    /// How JSON results are written for the model (`--response-detail`).
    #[serde(default)]
    pub response_detail: ResponseDetail,
    /// Whether lists of objects are written as tables (`--response-format`).
    #[serde(default)]
    pub response_format: ResponseFormat,
    /// Discovery mode offers `run_script` as a fourth tool (`--run-script`; code mode always has it).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub run_script: bool,
    /// The limits of one `run_script` (`--script-*`).
    #[serde(default, skip_serializing_if = "ScriptLimits::is_default")]
    pub script: ScriptLimits,
}

/// The limits of one script of code mode; each hit ends the script with an error result, and the
/// server goes on serving.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ScriptLimits {
    /// Wall time from start to answer, in seconds (`--script-timeout`).
    pub timeout_secs: f64,
    /// Memory of the script's sandbox, in MiB (`--script-memory`).
    pub memory_mib: usize,
    /// API calls (`--script-max-calls`).
    pub max_calls: usize,
    /// Characters of output: the answer plus what it prints (`--script-max-output`). Within it,
    /// the answer is reduced to the result budget (`max_result_chars`) like any result.
    pub max_output_chars: usize,
}

impl ScriptLimits {
    /// The defaults, which a config leaves out.
    pub fn is_default(&self) -> bool {
        *self == ScriptLimits::default()
    }
}

impl Default for ScriptLimits {
    fn default() -> Self {
        ScriptLimits { timeout_secs: 10.0, memory_mib: 64, max_calls: 200, max_output_chars: 1_000_000 }
    }
}

impl Context {
    /// [`auto_max_tools`](Self::auto_max_tools) when absent.
    pub const DEFAULT_MAX_TOOLS: usize = 40;
    /// [`auto_max_tokens`](Self::auto_max_tokens) when absent.
    pub const DEFAULT_MAX_TOKENS: usize = 20_000;
    /// [`max_result_chars`](Self::max_result_chars) when absent: under every client's limit
    /// (Claude Code moves a result over 50,000 characters to a file; see `docs/context.md`).
    pub const DEFAULT_MAX_RESULT_CHARS: usize = 40_000;

    fn default_max_tools() -> usize {
        Self::DEFAULT_MAX_TOOLS
    }

    fn default_max_tokens() -> usize {
        Self::DEFAULT_MAX_TOKENS
    }

    fn default_max_result_chars() -> usize {
        Self::DEFAULT_MAX_RESULT_CHARS
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
            search_model: None,
            tools_list_tokens: None,
            max_result_chars: Self::DEFAULT_MAX_RESULT_CHARS,
            response_detail: ResponseDetail::default(),
            response_format: ResponseFormat::default(),
            run_script: false,
            script: ScriptLimits::default(),
        }
    }
}

/// Route maps (`--resources`): GET operations read as MCP resources, besides the API description
/// resource, which is always served (see `docs/resources.md`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ToolMode {
    /// Every tool when the API is small (see `auto_max_tools`, `auto_max_tokens`), discovery otherwise.
    #[default]
    Auto,
    /// Every tool.
    All,
    /// `search_tools`, `describe_tools` and `call_tool` (and pinned tools).
    Discovery,
    /// `search_tools`, `describe_tools` (TypeScript declarations) and `run_script`, which runs a
    /// JavaScript script calling the tools (feature `code`).
    Code,
}

/// How much of each tool's schema is advertised.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListTokens {
    /// Tokens with every tool's full definition: what `auto` compares with `auto_max_tokens`.
    pub full: usize,
    /// Tokens with compact schemas and descriptions (a record: the engine decides on `full`).
    pub compact: usize,
}

impl RuntimeConfig {
    /// A config from its JSON text (a generated crate's embedded catalogue).
    pub fn from_json(text: &str) -> Result<RuntimeConfig, InvalidConfig> {
        serde_json::from_str(text).map_err(|e| InvalidConfig(e.to_string()))
    }

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

    /// Takes out the arguments bound where a credential of the tool's security goes (same
    /// location, same name: an API that declares its tenant header both as an API key and as a
    /// parameter): the credential is the operator's, never the model's to choose. Returns what
    /// was taken out; `schemes` are the config's.
    pub fn strip_credential_arguments(
        &mut self,
        schemes: &BTreeMap<String, security::SecurityScheme>,
    ) -> Vec<CredentialArgument> {
        let Some(http) = &mut self.http else { return Vec::new() };
        let places: Vec<(&str, security::CredentialPlace<'_>)> = http
            .security
            .iter()
            .flatten()
            .filter_map(|name| Some((name.as_str(), schemes.get(name)?.credential_place())))
            .collect();
        let mut taken = Vec::new();
        http.params.retain(|p| {
            let Some((scheme, _)) = places.iter().find(|(_, place)| place.holds(p.location, &p.name)) else {
                return true;
            };
            taken.push(CredentialArgument {
                arg: p.arg.clone(),
                name: p.name.clone(),
                location: p.location,
                scheme: scheme.to_string(),
            });
            false
        });
        for t in &taken {
            if let Some(Value::Object(props)) = self.input_schema.get_mut("properties") {
                props.remove(&t.arg);
            }
            if let Some(Value::Array(required)) = self.input_schema.get_mut("required") {
                required.retain(|r| r.as_str() != Some(t.arg.as_str()));
                if required.is_empty() {
                    self.input_schema.remove("required");
                }
            }
        }
        taken
    }
}

/// An argument [`Tool::strip_credential_arguments`] took out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CredentialArgument {
    /// The argument's name in the input schema.
    pub arg: String,
    /// The header, query parameter or cookie name.
    pub name: String,
    /// Where it went.
    pub location: binding::ParamLocation,
    /// The security scheme whose credential goes there.
    pub scheme: String,
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
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
    #[schemars(schema_with = "scope_sets_schema")]
    pub scopes: ScopeSets,
    /// In a config of several APIs: the [`Api::name`] whose base URL and headers this tool's
    /// requests use. `None`: the top-level `upstream`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api: Option<String>,
    /// What the API description says of the tool's successful response; `None`: nothing known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<ResponseInfo>,
}

/// Alternatives (any one suffices) of sets of OAuth scopes (all needed together); empty = none.
pub type ScopeSets = Vec<Vec<String>>;

/// Whether a caller holding the scopes `has` says yes to satisfies `sets`.
pub fn scopes_allow(sets: &[Vec<String>], has: impl Fn(&str) -> bool) -> bool {
    sets.is_empty() || sets.iter().any(|set| set.iter().all(|s| has(s)))
}

/// What [`scope_sets`] reads: a list of scopes, or a list of lists of scopes.
fn scope_sets_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "anyOf": [
            {"type": "array", "items": {"type": "string"}},
            {"type": "array", "items": {"type": "array", "items": {"type": "string"}}}
        ]
    })
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
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

    #[test]
    fn an_argument_at_a_credentials_place_is_taken_out() {
        let mut tool: Tool = serde_json::from_value(serde_json::json!({
            "name": "contactsAll",
            "input_schema": {"type": "object", "properties": {"tenant": {"type": "string"}, "filter": {"type": "string"}}, "required": ["tenant"]},
            "annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": true},
            "http": {"method": "GET", "path": "/contacts", "security": [["consumer"]], "params": [
                {"arg": "tenant", "name": "X-Consumer-Id", "in": "header", "style": "simple", "explode": false},
                {"arg": "filter", "name": "filter", "in": "query", "style": "form", "explode": true}
            ]}
        }))
        .unwrap();
        let schemes = BTreeMap::from([(
            "consumer".to_string(),
            security::SecurityScheme::ApiKey {
                location: ApiKeyLocation::Header,
                name: "x-consumer-id".into(),
                env: "CONSUMER".into(),
            },
        )]);
        let taken = tool.strip_credential_arguments(&schemes);
        assert_eq!(taken.len(), 1);
        assert_eq!((taken[0].arg.as_str(), taken[0].scheme.as_str()), ("tenant", "consumer"));
        assert_eq!(
            tool.input_schema,
            *serde_json::json!({"type": "object", "properties": {"filter": {"type": "string"}}}).as_object().unwrap()
        );
        assert_eq!(tool.http.as_ref().unwrap().params.len(), 1);
        // A query parameter of that name is no header: it stays.
        assert!(tool.strip_credential_arguments(&schemes).is_empty());
    }

    #[test]
    fn doc_comments_become_plain_descriptions() {
        assert_eq!(
            plain_description("Its tools ([`Tool::api`]) use [`upstream`](Self::upstream)'s;\n[`Limits::default`]."),
            "Its tools (`Tool::api`) use `upstream`'s; `Limits::default`."
        );
        assert_eq!(plain_description("One\nparagraph.\n\nTwo."), "One paragraph.\n\nTwo.");
        assert_eq!(
            plain_description("`[Deprecated] ` and `[]` and [`unclosed"),
            "`[Deprecated] ` and `[]` and [`unclosed"
        );
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
}
