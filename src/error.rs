//! The library's error type: every variant says what is wrong and where.

use std::fmt;

use crate::diag::Diagnostic;

/// Where a problem is: a document (file path or URL) and, when known, a line/column or a JSON pointer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub origin: String,
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub pointer: Option<String>,
}

impl Location {
    // Boxed: errors stay small on the happy path's `Result`s.
    pub fn doc(origin: impl Into<String>) -> Box<Self> {
        Box::new(Location { origin: origin.into(), line: None, column: None, pointer: None })
    }
    pub fn at_line(origin: impl Into<String>, line: usize, column: usize) -> Box<Self> {
        Box::new(Location { origin: origin.into(), line: Some(line), column: Some(column), pointer: None })
    }
    pub fn at_pointer(origin: impl Into<String>, pointer: impl Into<String>) -> Box<Self> {
        Box::new(Location { origin: origin.into(), line: None, column: None, pointer: Some(pointer.into()) })
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.origin)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(col) = self.column {
                write!(f, ":{col}")?;
            }
        }
        if let Some(p) = &self.pointer {
            write!(f, " at {p}")?;
        }
        Ok(())
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{location}: cannot read: {message}")]
    Read { location: Box<Location>, message: String },

    #[error("{location}: not valid UTF-8 (first bad byte at offset {offset}); save the file as UTF-8")]
    NotUtf8 { location: Box<Location>, offset: usize },

    #[error("{location}: the document is empty")]
    Empty { location: Box<Location> },

    #[error("{location}: the document is {size} bytes, over the limit of {limit} bytes")]
    TooLarge { location: Box<Location>, size: u64, limit: u64 },

    #[error("{location}: invalid {format}: {message}")]
    Syntax { location: Box<Location>, format: &'static str, message: String },

    #[error("{location}: {message}")]
    UnknownDialect { location: Box<Location>, message: String },

    #[error("{location}: broken $ref {reference:?}: {message}")]
    Ref { location: Box<Location>, reference: String, message: String },

    /// The input is well-formed but says something mcpgen cannot use.
    #[error("{location}: {message}")]
    Invalid { location: Box<Location>, message: String },

    /// Command-line options that cannot work together, or a value no input could fix.
    #[error("{message}")]
    Usage { message: String },

    /// Writing an output (a file, a crate directory, stdout) failed.
    #[error("{}: cannot {action}: {source}", path.display())]
    Io {
        path: std::path::PathBuf,
        /// What was being done, as a verb: `write`, `create the directory`, ...
        action: &'static str,
        #[source]
        source: std::io::Error,
    },

    /// The engine could not serve `spec` (a bad base URL, the port in use, ...).
    #[error("{spec}: {source}")]
    Runtime {
        spec: String,
        #[source]
        source: crate::runtime::Error,
    },

    /// Something mcpgen's own code should have made impossible.
    #[error(
        "{what}: {message}\nThis is a bug in mcpgen; please report it at {} with the command line, \
         mcpgen {}, and the input if you can share it.",
        env!("CARGO_PKG_REPOSITORY"),
        env!("CARGO_PKG_VERSION")
    )]
    Internal { what: String, message: String },

    #[error("{origin}: no tools: {reason}{}", render_reasons(.diagnostics))]
    NoTools { origin: String, reason: String, diagnostics: Vec<Diagnostic> },

    #[error("{origin}: {} problem(s) and --strict is set:{}", .diagnostics.len(), render_reasons(.diagnostics))]
    Strict { origin: String, diagnostics: Vec<Diagnostic> },
}

impl Error {
    /// An [`Error::Internal`]: `what` was being done when `message` happened.
    pub fn internal(what: impl Into<String>, message: impl ToString) -> Self {
        Error::Internal { what: what.into(), message: message.to_string() }
    }

    /// An [`Error::Io`] for `path`.
    pub fn io(path: impl Into<std::path::PathBuf>, action: &'static str, source: std::io::Error) -> Self {
        Error::Io { path: path.into(), action, source }
    }
}

fn render_reasons(diags: &[Diagnostic]) -> String {
    const SHOWN: usize = 20;
    let mut out = String::new();
    for d in diags.iter().take(SHOWN) {
        out.push_str("\n  - ");
        out.push_str(&d.to_string());
    }
    if diags.len() > SHOWN {
        out.push_str(&format!("\n  ... and {} more", diags.len() - SHOWN));
    }
    out
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
