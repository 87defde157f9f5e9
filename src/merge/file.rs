//! The multi-API file: `mcpgen_apis:` lists the APIs one server serves, each with options of its
//! own (prefix, base URL, headers, credentials, filters). Errors name the file and the JSON
//! pointer of the bad value.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer};

use crate::error::{Error, Location, Result};
use crate::load::ApisFile;
use crate::pipeline::PipelineOptions;
use crate::tools::Filter;
use mcpgen_config::UpstreamIdentity;

/// The file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Document {
    mcpgen_apis: Vec<Entry>,
}

/// One API of the file. Every option but `spec` may be left out: the command line's applies.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    spec: String,
    #[serde(default)]
    prefix: Option<String>,
    #[serde(default)]
    base_url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    #[serde(default, deserialize_with = "one_or_many")]
    auth: Vec<String>,
    #[serde(default)]
    env_prefix: Option<String>,
    /// Whose identity this API's requests carry (`upstream.auth` of the config written).
    #[serde(default)]
    upstream_auth: Option<UpstreamIdentity>,
    #[serde(default, deserialize_with = "one_or_many")]
    include_tag: Vec<String>,
    #[serde(default, deserialize_with = "one_or_many")]
    exclude_tag: Vec<String>,
    #[serde(default, deserialize_with = "one_or_many")]
    include_op: Vec<String>,
    #[serde(default, deserialize_with = "one_or_many")]
    exclude_op: Vec<String>,
    #[serde(default, deserialize_with = "one_or_many")]
    include_path: Vec<String>,
    #[serde(default, deserialize_with = "one_or_many")]
    method: Vec<String>,
}

/// A string or a list of strings (`include_tag: pets` or `include_tag: [pets, store]`).
fn one_or_many<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
    }
    Ok(match OneOrMany::deserialize(d)? {
        OneOrMany::One(s) => vec![s],
        OneOrMany::Many(v) => v,
    })
}

/// One API to serve: where it is read from and how its tools are built.
#[derive(Debug, Clone)]
pub(crate) struct Wanted {
    /// The path or URL to read (a file's entries resolved against the file).
    pub spec: String,
    /// The pipeline's options: the command line's, with the entry's own in their place.
    pub opts: PipelineOptions,
    /// The tool name prefix asked for (ending in `_` or `-`, or empty for none); `None`: derived.
    pub prefix: Option<String>,
    /// Static headers of this API's requests.
    pub headers: BTreeMap<String, String>,
    /// Whose identity this API's requests carry, when its entry says.
    pub upstream_auth: Option<UpstreamIdentity>,
    /// The file and the JSON pointer of its entry, when it comes from a multi-API file.
    pub entry: Option<(String, String)>,
}

impl Wanted {
    /// An input named on the command line, with the command line's options.
    pub(crate) fn cli(spec: &str, opts: &PipelineOptions) -> Wanted {
        Wanted {
            spec: spec.to_string(),
            opts: opts.clone(),
            prefix: None,
            headers: BTreeMap::new(),
            upstream_auth: None,
            entry: None,
        }
    }

    /// An error about this API, at its entry of the multi-API file when it has one.
    pub(crate) fn invalid(&self, field: &str, message: String) -> Error {
        match &self.entry {
            Some((file, pointer)) => {
                Error::Invalid { location: Location::at_pointer(file, format!("{pointer}/{field}")), message }
            }
            None => Error::Invalid { location: Location::doc(&self.spec), message },
        }
    }
}

/// The APIs of a multi-API file, each with its options over the command line's (`cli`).
pub(crate) fn entries(file: &ApisFile, cli: &PipelineOptions) -> Result<Vec<Wanted>> {
    let doc: Document = crate::load::from_value_at(&file.value, &file.origin, "mcpgen multi-API file")?;
    if doc.mcpgen_apis.is_empty() {
        return Err(Error::Invalid {
            location: Location::at_pointer(&file.origin, "#/mcpgen_apis"),
            message: "lists no API: give each as `- spec: path-or-URL`".into(),
        });
    }
    doc.mcpgen_apis.into_iter().enumerate().map(|(i, e)| wanted(file, &format!("#/mcpgen_apis/{i}"), e, cli)).collect()
}

fn wanted(file: &ApisFile, at: &str, mut e: Entry, cli: &PipelineOptions) -> Result<Wanted> {
    let bad = |field: &str, message: String| Error::Invalid {
        location: Location::at_pointer(&file.origin, format!("{at}/{field}")),
        message,
    };
    let spec = resolve(&e.spec, file).map_err(|m| bad("spec", m))?;
    let prefix = e.prefix.as_deref().map(check_prefix).transpose().map_err(|m| bad("prefix", m))?;
    let mut opts = cli.clone();
    let tools = &mut opts.tools;
    if let Some(url) = e.base_url.take() {
        if !url.starts_with("http://") && !url.starts_with("https://") {
            return Err(bad("base_url", format!("{url:?} is not an http(s) URL")));
        }
        tools.base_url = Some(url.trim_end_matches('/').to_string());
    }
    if !e.auth.is_empty() {
        tools.auth = e
            .auth
            .iter()
            .enumerate()
            .map(|(j, a)| crate::tools::security::parse_auth(a).map_err(|m| bad(&format!("auth/{j}"), m)))
            .collect::<Result<_>>()?;
    }
    if e.env_prefix.is_some() {
        tools.env_prefix = e.env_prefix.take();
    }
    entry_filter(&mut e, &mut tools.filter, &bad)?;
    check_headers(&e.headers, &bad)?;
    Ok(Wanted {
        spec,
        opts,
        prefix,
        headers: e.headers,
        upstream_auth: e.upstream_auth,
        entry: Some((file.origin.clone(), at.to_string())),
    })
}

/// An entry's filter takes the place of the command line's, one kind at a time (an entry that
/// names tags alone keeps the command line's `--include-op`). `bad` names the entry's field.
fn entry_filter(e: &mut Entry, filter: &mut Filter, bad: &dyn Fn(&str, String) -> Error) -> Result<()> {
    let globs = |field: &str, list: &[String]| -> Result<Vec<glob::Pattern>> {
        list.iter()
            .enumerate()
            .map(|(j, g)| {
                glob::Pattern::new(g).map_err(|err| bad(&format!("{field}/{j}"), format!("invalid glob {g:?}: {err}")))
            })
            .collect()
    };
    if !e.include_tag.is_empty() {
        filter.include_tags = std::mem::take(&mut e.include_tag);
    }
    if !e.exclude_tag.is_empty() {
        filter.exclude_tags = std::mem::take(&mut e.exclude_tag);
    }
    if !e.include_op.is_empty() {
        filter.include_ops = globs("include_op", &e.include_op)?;
    }
    if !e.exclude_op.is_empty() {
        filter.exclude_ops = globs("exclude_op", &e.exclude_op)?;
    }
    if !e.include_path.is_empty() {
        filter.include_paths = globs("include_path", &e.include_path)?;
    }
    if !e.method.is_empty() {
        filter.methods = e
            .method
            .iter()
            .enumerate()
            .map(|(j, m)| {
                crate::ir::Method::parse(m)
                    .ok_or_else(|| bad(&format!("method/{j}"), format!("unknown HTTP method {m:?}")))
            })
            .collect::<Result<_>>()?;
    }
    Ok(())
}

/// An entry's static headers are sent as they are: each name a token and no value with a line
/// break, so that none can add a header or a request of its own.
fn check_headers(headers: &BTreeMap<String, String>, bad: &dyn Fn(&str, String) -> Error) -> Result<()> {
    for (name, value) in headers {
        let ok_name =
            !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
        if !ok_name || value.contains(['\r', '\n']) {
            return Err(bad(
                &format!("headers/{}", crate::diag::escape_segment(name)),
                format!("invalid header {name:?}"),
            ));
        }
    }
    Ok(())
}

/// An entry's `spec`: URLs and absolute paths as they are, relative ones against the file.
fn resolve(spec: &str, file: &ApisFile) -> std::result::Result<String, String> {
    if spec == "-" {
        return Err("a multi-API file cannot name stdin (`-`): name a file or URL".into());
    }
    if spec.is_empty() {
        return Err("is empty: name a file or URL".into());
    }
    if spec.starts_with("http://") || spec.starts_with("https://") || std::path::Path::new(spec).is_absolute() {
        return Ok(spec.to_string());
    }
    match &file.url {
        Some(url) if url.scheme() == "file" => {
            let path = url.to_file_path().map_err(|()| format!("cannot resolve {spec:?} against {url}"))?;
            let dir = path.parent().unwrap_or(std::path::Path::new("."));
            Ok(dir.join(spec).display().to_string())
        }
        Some(url) => url.join(spec).map(|u| u.to_string()).map_err(|e| format!("cannot resolve {spec:?}: {e}")),
        None => Ok(spec.to_string()),
    }
}

/// A prefix as asked for: letters, digits, `_` and `-`, not leading with a digit or `-`, at most
/// [`crate::names::API_PREFIX_MAX`] characters; `_` is appended unless it ends in `_` or `-`.
/// Empty: no prefix.
pub(crate) fn check_prefix(prefix: &str) -> std::result::Result<String, String> {
    if prefix.is_empty() {
        return Ok(String::new());
    }
    let chars_ok = prefix.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    let lead_ok = prefix.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_');
    if !chars_ok || !lead_ok {
        return Err(format!(
            "{prefix:?} cannot start a tool name: use letters, digits, `_` and `-`, starting with a letter"
        ));
    }
    let with_sep = if prefix.ends_with(['_', '-']) { prefix.to_string() } else { format!("{prefix}_") };
    if with_sep.len() > crate::names::API_PREFIX_MAX {
        return Err(format!("{prefix:?} is longer than {} characters", crate::names::API_PREFIX_MAX - 1));
    }
    Ok(with_sep)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn file(value: serde_json::Value) -> ApisFile {
        let url = url::Url::parse("file:///srv/apis/apis.yaml").ok();
        ApisFile { origin: "apis.yaml".into(), url, value }
    }

    #[test]
    fn entries_take_their_own_options_over_the_command_line() {
        let f = file(json!({"mcpgen_apis": [
            {"spec": "github.json", "prefix": "gh", "include_tag": "repos", "auth": "bearer:GH_TOKEN"},
            {"spec": "https://example.com/stripe.yaml", "base_url": "https://api.stripe.com/"}
        ]}));
        let mut cli = PipelineOptions::default();
        cli.tools.filter.include_tags = vec!["cli".into()];
        let w = entries(&f, &cli).unwrap();
        assert_eq!(w[0].spec, "/srv/apis/github.json");
        assert_eq!(w[0].prefix.as_deref(), Some("gh_"));
        assert_eq!(w[0].opts.tools.filter.include_tags, ["repos"]);
        assert_eq!(w[0].opts.tools.auth.len(), 1);
        assert_eq!(w[1].spec, "https://example.com/stripe.yaml");
        assert_eq!(w[1].opts.tools.filter.include_tags, ["cli"], "the command line's filter where none is given");
        assert_eq!(w[1].opts.tools.base_url.as_deref(), Some("https://api.stripe.com"));
        assert_eq!(w[1].entry, Some(("apis.yaml".to_string(), "#/mcpgen_apis/1".to_string())));
    }

    #[test]
    fn bad_entries_are_named_by_pointer() {
        let cli = PipelineOptions::default();
        let err = |v| entries(&file(v), &cli).unwrap_err().to_string();
        let e = err(json!({"mcpgen_apis": [{"spec": "a.yaml"}, {"spec": "b.yaml", "auth": ["bearer:not a name"]}]}));
        assert!(e.starts_with("apis.yaml at #/mcpgen_apis/1/auth/0: "), "{e}");
        let e = err(json!({"mcpgen_apis": [{"spec": "a.yaml", "prefx": "a"}]}));
        assert!(e.starts_with("apis.yaml at #/mcpgen_apis/0/prefx: ") && e.contains("unknown field"), "{e}");
        let e = err(json!({"mcpgen_apis": [{"spec": "a.yaml", "prefix": "1a"}]}));
        assert!(e.starts_with("apis.yaml at #/mcpgen_apis/0/prefix: "), "{e}");
        let e = err(json!({"mcpgen_apis": [{"spec": "a.yaml", "method": ["FETCH"]}]}));
        assert!(e.starts_with("apis.yaml at #/mcpgen_apis/0/method/0: unknown HTTP method"), "{e}");
        let e = err(json!({"mcpgen_apis": [{"spec": "-"}]}));
        assert!(e.starts_with("apis.yaml at #/mcpgen_apis/0/spec: "), "{e}");
        let e = err(json!({"mcpgen_apis": []}));
        assert!(e.starts_with("apis.yaml at #/mcpgen_apis: lists no API"), "{e}");
    }

    #[test]
    fn prefixes_end_in_a_separator() {
        assert_eq!(check_prefix("gh").unwrap(), "gh_");
        assert_eq!(check_prefix("gh-").unwrap(), "gh-");
        assert_eq!(check_prefix("").unwrap(), "");
        assert!(check_prefix("a b").is_err() && check_prefix("-a").is_err());
        assert!(check_prefix(&"x".repeat(16)).is_err());
    }
}
