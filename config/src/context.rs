//! How the tools are shown to clients (`context` in the config): the tool mode, schema detail,
//! results, scripts, and the resources a config serves.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{ResponseDetail, ResponseFormat};

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
