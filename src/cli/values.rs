//! Command-line spellings of library options. `clap::ValueEnum` lives here, at the edge; each
//! enum maps onto the library type the stages use, which know nothing of clap.

use clap::ValueEnum;

use crate::export::Format;
use crate::normalize::ForwardMode;
use crate::tools::OutputSchemaPolicy;

/// `--format` of `mcpgen export`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// OpenAI `tools`: `[{"type": "function", "function": {name, description, parameters}}]`.
    Openai,
    /// OpenAI legacy `functions`: `[{name, description, parameters}]`.
    OpenaiLegacy,
    /// Anthropic: `[{name, description, input_schema}]`.
    Anthropic,
    /// Gemini: `[{"functionDeclarations": [{name, description, parametersJsonSchema}]}]`.
    Gemini,
    /// MCP `tools/list` result: `{"tools": [{name, title, description, inputSchema, ...}]}`.
    Mcp,
}

impl From<FormatArg> for Format {
    fn from(f: FormatArg) -> Format {
        match f {
            FormatArg::Openai => Format::Openai,
            FormatArg::OpenaiLegacy => Format::OpenaiLegacy,
            FormatArg::Anthropic => Format::Anthropic,
            FormatArg::Gemini => Format::Gemini,
            FormatArg::Mcp => Format::Mcp,
        }
    }
}

/// `--namespaces` of `mcpgen export`: what groups OpenAI's tools into namespaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum NamespacesArg {
    /// By each tool's first tag (untagged tools: by API), at most 10 tools a namespace.
    Tag,
}

/// `--output-schema`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputSchemaArg {
    /// No output schemas (results still carry structured content).
    None,
    /// The 2xx JSON response schema, object-wrapped (`{"result": ...}`) when it is not an object.
    Full,
}

impl From<OutputSchemaArg> for OutputSchemaPolicy {
    fn from(p: OutputSchemaArg) -> OutputSchemaPolicy {
        match p {
            OutputSchemaArg::None => OutputSchemaPolicy::None,
            OutputSchemaArg::Full => OutputSchemaPolicy::Full,
        }
    }
}

/// `--forward-mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ForwardModeArg {
    /// `POST URL/{name}` with the arguments object as the JSON body.
    PerTool,
    /// `POST URL` with `{"name": ..., "arguments": {...}}`.
    Single,
}

impl From<ForwardModeArg> for ForwardMode {
    fn from(m: ForwardModeArg) -> ForwardMode {
        match m {
            ForwardModeArg::PerTool => ForwardMode::PerTool,
            ForwardModeArg::Single => ForwardMode::Single,
        }
    }
}

/// The name a value has on the command line.
pub(super) fn name_of(value: &impl ValueEnum) -> String {
    value.to_possible_value().map(|v| v.get_name().to_string()).unwrap_or_default()
}

/// `--fail-on` of `mcpgen doctor`: the least severe finding that fails the command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum FailOnArg {
    /// Exit with code 1 when a finding is an error.
    Error,
    /// Exit with code 1 when a finding is a warning or an error.
    Warning,
}

impl From<FailOnArg> for crate::doctor::Severity {
    fn from(f: FailOnArg) -> crate::doctor::Severity {
        match f {
            FailOnArg::Error => crate::doctor::Severity::Error,
            FailOnArg::Warning => crate::doctor::Severity::Warning,
        }
    }
}
