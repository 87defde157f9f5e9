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
mod context;
pub mod definitions;
pub mod exposure;
pub mod features;
pub mod fragments;
pub mod keywords;
pub mod layout;
pub mod media;
pub mod refs;
pub mod response;
pub mod security;
pub mod text;
mod tool;

use std::collections::BTreeMap;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::{DeserializeSeed, Deserializer, IntoDeserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};

pub use crate::binding::{
    BodyBinding, BodyContent, BodyField, HttpBinding, Method, ParamBinding, ParamLocation, ParamStyle,
};
pub use crate::context::{Context, ListTokens, Resources, SchemaDetail, ScriptLimits, ToolMode};
pub use crate::definitions::{Definitions, assemble};
pub use crate::fragments::Fragments;
pub use crate::response::{ResponseDetail, ResponseFormat, ResponseInfo};
pub use crate::security::{ApiKeyLocation, SecurityRequirements, SecurityScheme, UpstreamIdentity};
pub use crate::tool::{
    Annotations, CredentialArgument, McpToolView, ScopeSets, Tool, json_bytes, scopes_allow, tools_list_bytes,
};

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

/// The version of the runtime config format that mcpgen writes; bumped on incompatible changes.
/// Format 2 keeps the definitions the tools' schemas share once ([`RuntimeConfig::definitions`]).
pub const CONFIG_FORMAT_VERSION: u32 = 2;

/// The format versions that load: 1 (every tool's schemas self-contained) and 2.
pub const READ_FORMAT_VERSIONS: [u32; 2] = [1, CONFIG_FORMAT_VERSION];

/// The `$id` of the JSON Schema of this format version ([`schema`]), and the `$schema` that
/// `mcpgen config` writes first in a config. It names the format version, and sits under the
/// repository address of the crate's manifest (a placeholder for now: nothing is served there; the
/// schema is the file `config/schema/mcpgen-config.schema.json` of mcpgen's repository). It
/// describes format 1 too (every version of [`READ_FORMAT_VERSIONS`]).
pub const SCHEMA_ID: &str = "https://example.invalid/mcpgen/schema/mcpgen-config-2.schema.json";

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
    #[schemars(
        schema_with = "format_version",
        description = "The format version: 2 (definitions shared by the tools' schemas kept once, in \
                       `definitions`), or 1 (each tool's schemas self-contained); mcpgen refuses any other."
    )]
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
    /// Format 2: the schema definitions the tools share, each kept once, by name. A tool's
    /// `input_schema` and `output_schema` refer to them as `#/$defs/<name>` without holding them;
    /// their own `$defs` hold only the definitions of a name that differ from these. Clients see
    /// each schema self-contained: its own `$defs` with every definition of this map its
    /// references reach, transitively ([`assemble`]). Omitted when empty (and in format 1).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub definitions: Definitions,
    /// Format 2: the subschemas several tools' schemas inline, each kept once, by name
    /// ([`fragments`]). `{"$fragment": "<name>"}` in a tool's schema, or in a fragment, stands for
    /// the one of that name. Loading puts each back in place, so a loaded config has none: only a
    /// written one ([`RuntimeConfig::into_stored`]). Omitted when empty (and in format 1).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub fragments: Fragments,
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
                // The derived (inherent) one, over the keys but `$schema`; the fragments put back.
                let mut config =
                    RuntimeConfig::deserialize(serde::de::value::MapAccessDeserializer::new(WithoutSchemaKey(map)))?;
                config.inline_fragments().map_err(|e| serde::de::Error::custom(e.0))?;
                Ok(config)
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

/// `mcpgen_config` in the schema: the versions this schema describes, the one written last.
fn format_version(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": "integer", "enum": READ_FORMAT_VERSIONS})
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
