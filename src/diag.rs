//! Warnings collected along the pipeline. A stage that can go on after a problem records a
//! [`Diagnostic`] instead of failing; `--strict` turns the warnings into an error.

use std::fmt;

use serde::Serialize;

/// What kind of problem a diagnostic reports; stable identifiers for `--json` output and sweeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DiagKind {
    /// An operation could not be converted and yields no tool.
    OperationSkipped,
    /// A tool name was changed (sanitised, shortened or de-duplicated).
    ToolRenamed,
    /// An input property was renamed because two locations share a name.
    ArgumentRenamed,
    /// An optional argument became required because a binding puts it into the URL path.
    ArgumentRequired,
    /// A `$ref` inside a schema could not be resolved; an unconstrained schema stands in.
    SchemaRef,
    /// A schema was cut short (too deep or too large for a tool schema).
    SchemaTruncated,
    /// A part of the document is ignored (not supported or not meaningful for MCP).
    Unsupported,
    /// The document breaks the specification in a way we could work around.
    Lenient,
    /// Two operations share an operationId.
    DuplicateOperationId,
    /// A passage of a text the model would read was withheld: instruction-like text (`src/trust/`).
    TextWithheld,
    /// A parameter declared where a security scheme's credential goes is that credential: the
    /// operator's value is sent, and the model has no argument for it.
    CredentialParameter,
}

impl DiagKind {
    /// Warnings mean something of the API is lost or guessed (`--strict` fails on them); the
    /// other kinds are notes on how the API was mapped.
    pub fn is_warning(self) -> bool {
        !matches!(
            self,
            DiagKind::ToolRenamed
                | DiagKind::ArgumentRenamed
                | DiagKind::ArgumentRequired
                | DiagKind::SchemaTruncated
                | DiagKind::CredentialParameter
        )
    }
}

/// One problem a stage worked around, or a note on how the API was mapped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// What kind of problem; [`DiagKind::is_warning`] tells warnings from notes.
    pub kind: DiagKind,
    /// JSON pointer (with the file for multi-file documents) of the place concerned.
    pub pointer: String,
    /// What happened, in words for people.
    pub message: String,
}

impl Diagnostic {
    /// A diagnostic of `kind` at `pointer`.
    pub fn new(kind: DiagKind, pointer: impl Into<String>, message: impl Into<String>) -> Self {
        Diagnostic { kind, pointer: pointer.into(), message: message.into() }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.pointer.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.pointer, self.message)
        }
    }
}

/// Escapes one JSON pointer segment (RFC 6901).
pub(crate) fn escape_segment(seg: &str) -> String {
    seg.replace('~', "~0").replace('/', "~1")
}

/// Appends escaped segments to a pointer: `child("#/paths", "/pets")` is `#/paths/~1pets`.
pub(crate) fn child(pointer: &str, seg: impl AsRef<str>) -> String {
    let mut p = String::with_capacity(pointer.len() + seg.as_ref().len() + 1);
    p.push_str(pointer);
    p.push('/');
    p.push_str(&escape_segment(seg.as_ref()));
    p
}

/// Why a piece of the document could not be converted, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fault {
    pub at: String,
    pub message: String,
}

impl Fault {
    pub(crate) fn new(at: impl Into<String>, message: impl Into<String>) -> Self {
        Fault { at: at.into(), message: message.into() }
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.at, self.message)
    }
}
