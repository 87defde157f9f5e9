//! One tool of the config ([`Tool`]): its MCP definition, its HTTP binding, its scopes and what
//! its response is; and what is measured of a tool list.

use std::borrow::Cow;
use std::collections::BTreeMap;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{Definitions, HttpBinding, JsonObject, ResponseInfo, assemble, binding, security};

/// No shared definitions: every schema self-contained.
static SELF_CONTAINED: Definitions = BTreeMap::new();

impl Tool {
    /// The tool as MCP's `tools/list` shows it, borrowed (serialise it without copying schemas),
    /// its schemas as they are (self-contained: see [`Tool::mcp_view_in`] for a config's stored
    /// ones).
    pub fn mcp_view(&self) -> McpToolView<'_> {
        self.mcp_view_in(&SELF_CONTAINED)
    }

    /// The tool as MCP's `tools/list` shows it, its schemas assembled with the config's shared
    /// `definitions` ([`assemble`]; borrowed when they reach none).
    pub fn mcp_view_in<'a>(&'a self, definitions: &Definitions) -> McpToolView<'a> {
        McpToolView {
            name: &self.name,
            title: self.title.as_deref(),
            description: &self.description,
            input_schema: assemble(&self.input_schema, definitions),
            output_schema: self.output_schema.as_ref().map(|o| assemble(o, definitions)),
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
    let mut bytes = r#"{"tools":[]}"#.len();
    for (i, t) in tools.into_iter().enumerate() {
        bytes += usize::from(i > 0) + json_bytes(&t);
        if bytes > limit {
            break;
        }
    }
    bytes
}

/// Bytes of `value` as compact JSON, counted as it is written, not kept (`0` should it not
/// write).
pub fn json_bytes(value: &impl Serialize) -> usize {
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
    let mut counter = Counter(0);
    serde_json::to_writer(&mut counter, value).map_or(0, |()| counter.0)
}

/// A tool in MCP's wire shape.
#[derive(Debug, Clone, Serialize)]
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
    /// [`Tool::input_schema`] (assembled), as `inputSchema`.
    pub input_schema: Cow<'a, JsonObject>,
    /// [`Tool::output_schema`] (assembled), as `outputSchema`; left out when `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Cow<'a, JsonObject>>,
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
    /// Arguments with values the server's owner fixed (a generated crate's `mcpgen.toml`): they
    /// are not in `input_schema`, so the model neither sees nor sets them (one it sends is refused
    /// as unknown), and every call carries these values.
    #[serde(default, skip_serializing_if = "JsonObject::is_empty")]
    pub fixed_arguments: JsonObject,
    /// Values the server's owner gave arguments the model may leave out (`mcpgen.toml`): a call
    /// without one of them carries this value.
    #[serde(default, skip_serializing_if = "JsonObject::is_empty")]
    pub default_arguments: JsonObject,
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
