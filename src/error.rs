//! The library's error type: every variant says what is wrong and where.

use std::fmt;

use crate::diag::Diagnostic;

/// Where a problem is: a document (file path or URL) and, when known, a line/column or a JSON pointer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The document as messages name it: the path or URL the user gave (`<stdin>` for stdin), a
    /// referenced file relative to the root's folder.
    pub origin: String,
    /// Line, from 1; `None` when not known (problems found after parsing have a pointer instead).
    pub line: Option<usize>,
    /// Column, from 1; `None` when not known.
    pub column: Option<usize>,
    /// JSON pointer of the value at fault, e.g. `#/paths/~1pets/get`; `None` when not known.
    pub pointer: Option<String>,
}

impl Location {
    // Boxed: errors stay small on the happy path's `Result`s.
    /// The whole document `origin`.
    pub fn doc(origin: impl Into<String>) -> Box<Self> {
        Box::new(Location { origin: origin.into(), line: None, column: None, pointer: None })
    }
    /// Line and column (from 1) of `origin`.
    pub fn at_line(origin: impl Into<String>, line: usize, column: usize) -> Box<Self> {
        Box::new(Location { origin: origin.into(), line: Some(line), column: Some(column), pointer: None })
    }
    /// The value at a JSON pointer of `origin`.
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

/// What went wrong, and where. Each variant's message names the input and, when known, the line
/// or the JSON pointer at fault.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The input (a file, a URL, stdin) or a file it references could not be read.
    #[error("{location}: cannot read: {message}")]
    Read {
        /// The document.
        location: Box<Location>,
        /// Why: the system's or the download's error.
        message: String,
    },

    /// The document is not UTF-8.
    #[error("{location}: not valid UTF-8 (first bad byte at offset {offset}); save the file as UTF-8")]
    NotUtf8 {
        /// Line and column of the first bad byte.
        location: Box<Location>,
        /// Byte offset of the first bad byte (after a byte order mark, if any).
        offset: usize,
    },

    /// The document holds nothing but whitespace.
    #[error("{location}: the document is empty")]
    Empty {
        /// The document.
        location: Box<Location>,
    },

    /// The document is larger than mcpgen reads (512 MiB).
    #[error("{location}: the document is {size} bytes, over the limit of {limit} bytes")]
    TooLarge {
        /// The document.
        location: Box<Location>,
        /// Its size in bytes: a file's, a download's declared length, or else what was read
        /// (one byte past the limit).
        size: u64,
        /// The limit in bytes.
        limit: u64,
    },

    /// The document is not valid JSON or YAML.
    #[error("{location}: invalid {format}: {message}")]
    Syntax {
        /// Where the parser stopped, when it says.
        location: Box<Location>,
        /// `JSON` or `YAML`: what the document was parsed as (JSON when it starts with `{` or `[`).
        format: &'static str,
        /// The parser's message, without its position.
        message: String,
    },

    /// The document is neither an OpenAPI (or Swagger 2.0) description nor a tool list mcpgen
    /// reads, or is of an unsupported version.
    #[error("{location}: {message}")]
    UnknownDialect {
        /// The document, with the pointer of the value that decided.
        location: Box<Location>,
        /// What was expected.
        message: String,
    },

    /// An external `$ref` cannot be followed (remote without `--allow-remote-refs`, an
    /// unsupported scheme, a malformed reference).
    #[error("{location}: broken $ref {reference:?}: {message}")]
    Ref {
        /// The document and pointer of the `$ref`.
        location: Box<Location>,
        /// The reference as written.
        reference: String,
        /// Why it cannot be followed.
        message: String,
    },

    /// The input is well-formed but says something mcpgen cannot use.
    #[error("{location}: {message}")]
    Invalid {
        /// The document and, when known, the pointer of the value at fault.
        location: Box<Location>,
        /// What is wrong with it.
        message: String,
    },

    /// Command-line options that cannot work together, or a value no input could fix.
    #[error("{message}")]
    Usage {
        /// What is wrong, naming the options.
        message: String,
    },

    /// Writing an output (a file, a crate directory, stdout) failed.
    #[error("{}: cannot {action}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: std::path::PathBuf,
        /// What was being done, as a verb: `write`, `create the directory`, ...
        action: &'static str,
        /// The system's error.
        #[source]
        source: std::io::Error,
    },

    /// The engine could not serve `spec` (a bad base URL, the port in use, ...).
    #[error("{spec}: {source}")]
    Runtime {
        /// The input served, as the user gave it.
        spec: String,
        /// The engine's error.
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
    Internal {
        /// What was being done.
        what: String,
        /// What happened.
        message: String,
    },

    /// The input yields no tool at all.
    #[error("{origin}: no tools: {reason}{}", render_reasons(.diagnostics))]
    NoTools {
        /// The input, as the user gave it.
        origin: String,
        /// Why: every operation hidden by `x-mcp`, excluded by the filters, or not convertible.
        reason: String,
        /// The operations or functions skipped, and why (listed in the message, up to 20).
        diagnostics: Vec<Diagnostic>,
    },

    /// `--strict` is set and the input has warnings.
    #[error("{origin}: {} problem(s) and --strict is set:{}", .diagnostics.len(), render_reasons(.diagnostics))]
    Strict {
        /// The input, as the user gave it.
        origin: String,
        /// The warnings (listed in the message, up to 20).
        diagnostics: Vec<Diagnostic>,
    },
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

/// The library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
