//! Stage 1, load: bytes from a file, URL or stdin to a [`Document`]: the parsed root, its
//! dialect, and every local file it reaches through `$ref`.

mod config;
mod dialect;
mod har;
mod parse;
mod postman;
mod recorded;
mod refs;

pub(crate) use refs::is_name_map;

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;
use std::time::Duration;

use serde_json::Value;
use url::Url;

pub(crate) use config::{from_value_at, read_config};
pub(crate) use dialect::{detect, is_apis_file, is_runtime_config};
pub use parse::parse_document;
pub(crate) use refs::{RefTarget, split_ref};

use crate::diag::Diagnostic;
use crate::error::{Error, Location, Result};
use crate::ir::Dialect;
use mcpgen_config::RuntimeConfig;

/// Documents larger than this are refused (Microsoft Graph beta, the largest real one, is 47 MB).
pub(crate) const MAX_DOCUMENT_BYTES: u64 = 512 * 1024 * 1024;

/// How inputs are loaded.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// Follow `$ref`s to http(s) URLs (refused by default: a document should not make mcpgen
    /// fetch from arbitrary hosts).
    pub allow_remote_refs: bool,
    /// For a HAR file: the hosts whose requests are kept (`--host`); empty: the one most
    /// requests went to.
    pub hosts: Vec<String>,
}

/// A loaded input: the root document, its dialect, and all documents it references.
#[derive(Debug)]
pub struct Document {
    /// What kind of input it is.
    pub dialect: Dialect,
    /// For tool lists: JSON pointer of the array of tools in the root.
    pub list_pointer: String,
    /// The root document and every local file it reaches through `$ref`.
    pub docs: DocumentSet,
    /// What loading noticed (an OpenAPI 3.2 document read as 3.1); normalize carries them on.
    pub warnings: Vec<Diagnostic>,
}

impl Document {
    /// The root document, parsed.
    pub fn root(&self) -> &Value {
        self.docs.root_value()
    }
    /// The name of the input for messages: the path or URL the user gave.
    pub fn origin(&self) -> &str {
        self.docs.display(&self.docs.root)
    }
    /// The root document's URL when it came from the network (relative servers resolve on it).
    pub fn root_url(&self) -> Option<&Url> {
        self.docs.root_url.as_ref().filter(|u| matches!(u.scheme(), "http" | "https"))
    }
}

/// Parsed documents keyed by their absolute URL (without fragment).
#[derive(Debug, Default)]
pub struct DocumentSet {
    pub root: String,
    root_url: Option<Url>,
    docs: BTreeMap<String, Value>,
    names: BTreeMap<String, String>,
    /// Referenced files that could not be read, with why: the operations that need them are
    /// skipped, the rest of the API still works.
    missing: BTreeMap<String, String>,
}

impl DocumentSet {
    /// A set holding one in-memory document (tests, and tool lists).
    pub fn single(id: &str, value: Value) -> Self {
        let mut set = DocumentSet { root: id.to_string(), ..Default::default() };
        set.names.insert(id.to_string(), id.to_string());
        set.docs.insert(id.to_string(), value);
        set
    }

    pub fn root_value(&self) -> &Value {
        &self.docs[&self.root]
    }

    /// The ids of every document, the root's first (then by id).
    pub fn ids(&self) -> Vec<String> {
        let others = self.docs.keys().filter(|id| **id != self.root).cloned();
        std::iter::once(self.root.clone()).chain(others).collect()
    }

    /// A document, to change it in place (cleaning its texts).
    pub fn value_mut(&mut self, doc: &str) -> Option<&mut Value> {
        self.docs.get_mut(doc)
    }

    pub fn get(&self, doc: &str) -> Option<&Value> {
        self.docs.get(doc)
    }

    /// Why a referenced document is not in the set, when it could not be read.
    pub fn missing(&self, doc: &str) -> Option<&str> {
        self.missing.get(doc).map(String::as_str)
    }

    /// The set's own copy of a document id (it lives as long as the set).
    pub fn doc_id(&self, doc: &str) -> Option<&str> {
        self.docs.get_key_value(doc).map(|(k, _)| k.as_str())
    }

    /// Replaces the root document's value (the Swagger 2.0 upgrade does this).
    pub fn replace_root(&mut self, value: Value) {
        self.docs.insert(self.root.clone(), value);
    }

    /// Adds a document under an id (used for the schema roots of function lists).
    pub fn insert(&mut self, id: &str, name: &str, value: Value) {
        self.names.insert(id.to_string(), name.to_string());
        self.docs.insert(id.to_string(), value);
    }

    /// How a document is named in messages: as the user wrote it for the root, relative to the
    /// root's folder for the others.
    pub fn display<'a>(&'a self, doc: &'a str) -> &'a str {
        self.names.get(doc).map(String::as_str).unwrap_or(doc)
    }

    /// The local files of the set: the documents read, and the referenced ones that could not be
    /// (creating one changes the API too).
    pub fn local_files(&self) -> Vec<std::path::PathBuf> {
        let ids = self.docs.keys().chain(self.missing.keys());
        ids.filter_map(|id| Url::parse(id).ok())
            .filter(|u| u.scheme() == "file")
            .filter_map(|u| u.to_file_path().ok())
            .collect()
    }

    /// A pointer prefixed with its file when it is not in the root document.
    pub fn place(&self, doc: &str, pointer: &str) -> String {
        if doc == self.root { pointer.to_string() } else { format!("{}{}", self.display(doc), pointer) }
    }
}

/// One input: an API description, or a runtime config `mcpgen config` wrote.
pub(crate) enum Input {
    Api(Box<Document>),
    Config(Box<RuntimeConfig>),
}

/// What every command but `convert` reads (`crate::merge::open`): one input, or a multi-API
/// file (`mcpgen_apis`).
pub(crate) enum AnyInput {
    One(Input),
    Apis(Box<ApisFile>),
}

/// A multi-API file, parsed: its entries are read by `crate::merge`.
pub(crate) struct ApisFile {
    /// The file as the user named it.
    pub origin: String,
    /// Its URL, which relative `spec`s resolve against.
    pub url: Option<Url>,
    pub value: Value,
}

/// Loads `spec` (a file path, an http(s) URL, or `-` for stdin) as an API description, a
/// runtime config or a multi-API file, whichever it is.
pub(crate) fn load_any(spec: &str, opts: &LoadOptions) -> Result<AnyInput> {
    let started = std::time::Instant::now();
    let (origin, root_id, root_url, value) = read_value(spec)?;
    tracing::debug!(read_ms = started.elapsed().as_millis() as u64, "stage: load (read and parse)");
    let spec = origin.as_str();
    if is_runtime_config(&value) {
        return Ok(AnyInput::One(Input::Config(Box::new(read_config(&value, spec)?))));
    }
    if is_apis_file(&value) {
        return Ok(AnyInput::Apis(Box::new(ApisFile { origin: spec.to_string(), url: root_url, value })));
    }
    Ok(AnyInput::One(Input::Api(Box::new(finish(spec, root_id, root_url, value, opts)?))))
}

/// A runtime config given where an API description is needed (`convert`, [`load`]).
fn runtime_config_here(spec: &str) -> Error {
    Error::Invalid {
        location: Location::doc(spec),
        message: "this is an mcpgen runtime config (written by `mcpgen config`), not an API description: \
                  `mcpgen convert` needs the API description it was made from (the other commands read the \
                  config)"
            .into(),
    }
}

/// A multi-API file given where one API description is needed (`convert`, [`load`]).
fn apis_file_here(spec: &str) -> Error {
    Error::Invalid {
        location: Location::doc(spec),
        message: "this is an mcpgen multi-API file (`mcpgen_apis`), not an API description: `mcpgen convert` \
                  needs one API description (the other commands read the file)"
            .into(),
    }
}

/// Loads `spec`, which must be an API description: a file path, an http(s) URL, or `-` for stdin.
pub fn load(spec: &str, opts: &LoadOptions) -> Result<Document> {
    let (origin, root_id, root_url, value) = read_value(spec)?;
    let spec = origin.as_str();
    if is_runtime_config(&value) {
        return Err(runtime_config_here(spec));
    }
    if is_apis_file(&value) {
        return Err(apis_file_here(spec));
    }
    finish(spec, root_id, root_url, value, opts)
}

/// The root document parsed, with the name messages give it, its id and its URL. A root that is
/// only a `$ref` to another document (`$ref: ./openapi.yaml`, a common entry file) is that
/// document, read in its place: a missing one is named as the file that cannot be read.
fn read_value(spec: &str) -> Result<(String, String, Option<Url>, Value)> {
    let (mut root_id, mut root_url, bytes) = read_source(spec)?;
    let mut origin = spec.to_string();
    let mut value = parse_document(&bytes, spec)?;
    for _ in 0..MAX_ROOT_REFS {
        let Some(target) = whole_document_ref(&value) else { return Ok((origin, root_id, root_url, value)) };
        let next = followed_origin(&origin, root_url.as_ref(), target)?;
        let (id, url, bytes) = read_source(&next).map_err(|e| match e {
            Error::Read { message, .. } => Error::Read {
                location: Location::doc(&next),
                message: format!("{message} (the document {origin} is only a `$ref` to it)"),
            },
            other => other,
        })?;
        value = parse_document(&bytes, &next)?;
        (root_id, root_url, origin) = (id, url, next);
    }
    Err(Error::Invalid {
        location: Location::doc(&origin),
        message: format!("more than {MAX_ROOT_REFS} documents that are each only a `$ref` to the next: give the last"),
    })
}

/// Whole-document `$ref`s followed from the root at most (a loop of them stops here).
const MAX_ROOT_REFS: usize = 8;

/// The target of a document that is only `{"$ref": "other.yaml"}` (no fragment: a pointer into
/// another document is not a whole API description).
fn whole_document_ref(value: &Value) -> Option<&str> {
    let Value::Object(root) = value else { return None };
    let target = root.get("$ref")?.as_str()?;
    (root.len() == 1 && !target.contains('#')).then_some(target)
}

/// Where a root's `$ref` to `target` leads, as an input `read_source` reads: a path beside the
/// referring file, or a URL of the same scheme as the referring one.
fn followed_origin(origin: &str, base: Option<&Url>, target: &str) -> Result<String> {
    let refused = |why: &str| Error::Invalid {
        location: Location::at_pointer(origin, "#/$ref"),
        message: format!("the document is only a `$ref` to {target:?}, which {why}: give that document instead"),
    };
    let url = base.and_then(|b| b.join(target).ok()).ok_or_else(|| refused("is not a reference mcpgen can read"))?;
    match (base.map(Url::scheme), url.scheme()) {
        (Some("file"), "file") if names_a_file(origin) => {
            let beside = Path::new(origin).parent().unwrap_or(Path::new("")).join(target);
            Ok(lexically_normal(&beside).to_string_lossy().into_owned())
        }
        (Some("file"), "file") => url
            .to_file_path()
            .ok()
            .map(|p| p.to_string_lossy().into_owned())
            .ok_or_else(|| refused("is not a file path")),
        (Some(from), to) if from == to => Ok(url.to_string()),
        _ => Err(refused("is on another scheme than the document (remote references need the API's own URL)")),
    }
}

/// An API description's dialect and the documents it refers to.
fn finish(spec: &str, root_id: String, root_url: Option<Url>, value: Value, opts: &LoadOptions) -> Result<Document> {
    let mut detected = detect(&value, spec)?;
    let value = converted(value, &mut detected, spec, opts)?;
    let mut docs = DocumentSet { root: root_id.clone(), root_url, ..Default::default() };
    docs.names.insert(root_id.clone(), spec.to_string());
    docs.docs.insert(root_id, value);
    if detected.dialect.is_openapi() && !detected.dialect.is_recorded() {
        refs::load_referenced(&mut docs, opts)?;
    }
    Ok(Document { dialect: detected.dialect, list_pointer: detected.list_pointer, docs, warnings: detected.warnings })
}

/// A recording (a Postman collection, a HAR file) as the OpenAPI 3.1 document inferred from it,
/// its warnings added to the detected ones; any other document as it is.
fn converted(value: Value, detected: &mut dialect::Detected, spec: &str, opts: &LoadOptions) -> Result<Value> {
    let (doc, warnings) = match detected.dialect {
        Dialect::Postman => postman::convert(&value, spec)?,
        Dialect::Har => har::convert(&value, spec, &opts.hosts)?,
        _ => return Ok(value),
    };
    detected.warnings.extend(warnings);
    Ok(doc)
}

/// Parses an in-memory document as if it were loaded from `origin` (tests and stdin-like uses).
pub(crate) fn load_str(text: &str, origin: &str) -> Result<Document> {
    let value = parse_document(text.as_bytes(), origin)?;
    let mut detected = detect(&value, origin)?;
    let value = converted(value, &mut detected, origin, &LoadOptions::default())?;
    Ok(Document {
        dialect: detected.dialect,
        list_pointer: detected.list_pointer,
        docs: DocumentSet::single(origin, value),
        warnings: detected.warnings,
    })
}

fn read_source(spec: &str) -> Result<(String, Option<Url>, Vec<u8>)> {
    if spec == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .lock()
            .take(MAX_DOCUMENT_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| Error::Read { location: Location::doc("<stdin>"), message: e.to_string() })?;
        check_size(bytes.len() as u64, "<stdin>")?;
        // Relative `$ref`s in a document read from stdin resolve against the current directory.
        let base = std::env::current_dir().ok().and_then(|d| Url::from_directory_path(d).ok());
        let url = base.and_then(|b| b.join("stdin").ok());
        let id = url.as_ref().map(Url::to_string).unwrap_or_else(|| "stdin".to_string());
        return Ok((id, url, bytes));
    }
    if is_url(spec) {
        let url = Url::parse(spec)
            .map_err(|e| Error::Read { location: Location::doc(spec), message: format!("invalid URL: {e}") })?;
        let bytes = fetch_url(&url)?;
        return Ok((url.to_string(), Some(url), bytes));
    }
    let path = Path::new(spec);
    let bytes = read_file(path, spec)?;
    let abs =
        std::path::absolute(path).map_err(|e| Error::Read { location: Location::doc(spec), message: e.to_string() })?;
    let url = Url::from_file_path(&abs).ok();
    let id = url.as_ref().map(Url::to_string).unwrap_or_else(|| abs.display().to_string());
    Ok((id, url, bytes))
}

/// `path` without `.` steps and with each `..` taking back the step before it (when there is
/// one): the name of a file reached through references, as the user would write it, from which
/// the names of the files it refers to are made.
fn lexically_normal(path: &Path) -> std::path::PathBuf {
    use std::path::Component;
    let mut out: Vec<Component<'_>> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir if matches!(out.last(), Some(Component::Normal(_))) => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out.iter().collect()
}

/// Whether an input names an http(s) URL (which `load` fetches).
pub(crate) fn is_url(spec: &str) -> bool {
    spec.starts_with("http://") || spec.starts_with("https://")
}

/// Whether an input names a local file: not stdin (`-`), not a URL.
pub(crate) fn names_a_file(spec: &str) -> bool {
    spec != "-" && !is_url(spec)
}

pub(crate) fn read_file(path: &Path, origin: &str) -> Result<Vec<u8>> {
    let meta =
        std::fs::metadata(path).map_err(|e| Error::Read { location: Location::doc(origin), message: e.to_string() })?;
    if meta.is_dir() {
        return Err(Error::Read { location: Location::doc(origin), message: "is a directory, not a file".to_string() });
    }
    check_size(meta.len(), origin)?;
    std::fs::read(path).map_err(|e| Error::Read { location: Location::doc(origin), message: e.to_string() })
}

fn check_size(size: u64, origin: &str) -> Result<()> {
    if size > MAX_DOCUMENT_BYTES {
        return Err(Error::TooLarge { location: Location::doc(origin), size, limit: MAX_DOCUMENT_BYTES });
    }
    Ok(())
}

/// The innermost cause of an error, which says what went wrong ("connection refused") where the
/// outer layers say what was being done ("error sending request").
fn root_cause(e: &(dyn std::error::Error + 'static)) -> String {
    let mut cause = e;
    while let Some(inner) = cause.source() {
        cause = inner;
    }
    let text = cause.to_string();
    let text = text.split(" (os error").next().unwrap_or(&text).to_string();
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => text,
    }
}

pub(crate) fn fetch_url(url: &Url) -> Result<Vec<u8>> {
    crate::runtime::install_crypto_provider();
    let origin = url.as_str();
    let err = |message: String| Error::Read { location: Location::doc(origin), message };
    let client = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(120))
        .user_agent(concat!("mcpgen/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| err(e.to_string()))?;
    let resp =
        client.get(url.clone()).send().map_err(|e| err(format!("download failed: {} ({origin})", root_cause(&e))))?;
    if !resp.status().is_success() {
        return Err(err(format!("download failed: HTTP {}", resp.status())));
    }
    if let Some(len) = resp.content_length() {
        check_size(len, origin)?;
    }
    let mut bytes = Vec::new();
    resp.take(MAX_DOCUMENT_BYTES + 1).read_to_end(&mut bytes).map_err(|e| err(format!("download failed: {e}")))?;
    check_size(bytes.len() as u64, origin)?;
    Ok(bytes)
}
