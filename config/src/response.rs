//! How results are written for the model, as the runtime config says it: the context's
//! [`ResponseDetail`] and [`ResponseFormat`], and each tool's [`ResponseInfo`] (what the API
//! description says of its successful response). The engine's `response/` room applies them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How a JSON result's text is written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ResponseDetail {
    /// Minified, without the members that only link back into the API itself (a URL on the
    /// upstream's own origin, HAL `_links`, JSON:API `links`): the tools reach those already.
    #[default]
    Lean,
    /// The body as the API sent it, byte for byte, with the JSON value as structured content too
    /// (what mcpgen did before the lean rendering).
    Full,
}

/// Whether a list of objects is written as JSON or as a table.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ResponseFormat {
    /// Always JSON.
    #[default]
    Json,
    /// An array of objects that share scalar members as a header row and one tab-separated line
    /// per item; anything else as JSON.
    Table,
    /// A table where it is much shorter than the JSON (and loses nothing), JSON otherwise.
    Auto,
}

/// What the API description says of a tool's successful (2xx) response: what `_jq` and the
/// result budget go by.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResponseInfo {
    /// The media types it declares (empty: not declared). A tool whose response may be JSON (a
    /// JSON type, or none declared) takes the `_jq` argument.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub media_types: Vec<String>,
    /// The JSON value's shape, compact (top-level members, one level of nesting), e.g.
    /// `[{id, title, user: {login, …}, labels: [{…}], …}]`: shown by `describe_tools` so that a
    /// model can write a `_jq` filter before a first call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<String>,
    /// This tool's result budget in characters (`x-mcp: {maxResultChars: N}`), over the
    /// context's [`Context::max_result_chars`]; `0`: no limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_result_chars: Option<usize>,
}

impl ResponseInfo {
    /// Whether the response may be JSON: a JSON media type, or none declared.
    pub fn may_be_json(&self) -> bool {
        self.media_types.is_empty() || self.media_types.iter().any(|m| m.contains("json"))
    }
}
