//! `$ref` targets, and loading every document the root reaches through them.

use serde_json::Value;
use url::Url;

use super::{DocumentSet, LoadOptions, fetch_url, parse_document, read_file};
use crate::diag::escape_segment;
use crate::error::{Error, Location, Result};
use crate::schema::keywords;

/// What a `$ref` points at: a document id and a JSON pointer inside it (`""` = the whole document).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct RefTarget {
    pub doc: String,
    pub pointer: String,
}

/// Splits `reference`, relative to document `base`, into its target. Fragments are percent-decoded.
pub(crate) fn split_ref(base: &str, reference: &str) -> Result<RefTarget, String> {
    let (uri, fragment) = match reference.split_once('#') {
        Some((u, f)) => (u, f),
        None => (reference, ""),
    };
    let pointer = percent_encoding::percent_decode_str(fragment).decode_utf8_lossy().into_owned();
    if !pointer.is_empty() && !pointer.starts_with('/') {
        return Err(format!(
            "`#{pointer}` is a plain-name anchor; only JSON pointer fragments (`#/...`) are supported"
        ));
    }
    if uri.is_empty() {
        return Ok(RefTarget { doc: base.to_string(), pointer });
    }
    let base_url =
        Url::parse(base).map_err(|_| "a relative file reference from a document that has no location".to_string())?;
    let mut target = base_url.join(uri).map_err(|e| format!("invalid reference: {e}"))?;
    target.set_fragment(None);
    Ok(RefTarget { doc: target.to_string(), pointer })
}

/// Keys whose values are literal data (never schemas) where keys are keywords or OpenAPI's fixed
/// fields: `$ref`s under them are not followed.
fn is_data_key(key: &str) -> bool {
    keywords::is_data(key)
}

/// Keys whose values map user-chosen names to schemas or OpenAPI objects: the keys inside are
/// names, whatever they spell (a property `example`, a header `x-request-id`, the `default`
/// response), and each value is a schema or an object whose own keys are keywords again.
pub(crate) fn is_name_map(key: &str) -> bool {
    keywords::SCHEMA_MAP.contains(&key) || OPENAPI_NAME_MAPS.contains(&key)
}

/// OpenAPI's (and Swagger 2's) maps of names: paths, status codes, media types, header names, and
/// the named components (`parameters` is a list in operations, and a map only where it is an
/// object).
const OPENAPI_NAME_MAPS: [&str; 15] = [
    "paths",
    "webhooks",
    "responses",
    "content",
    "headers",
    "encoding",
    "links",
    "callbacks",
    "schemas",
    "parameters",
    "requestBodies",
    "securitySchemes",
    "securityDefinitions",
    "pathItems",
    "variables",
];

/// Loads, transitively, every document that `$ref`s in the set point to.
pub(super) fn load_referenced(docs: &mut DocumentSet, opts: &LoadOptions) -> Result<()> {
    let mut queue = vec![docs.root.clone()];
    while let Some(doc_id) = queue.pop() {
        let mut found = Vec::new();
        let mut path: Vec<PathSeg<'_>> = Vec::new();
        collect_external_refs(&docs.docs[&doc_id], false, &mut path, &mut found);
        for (reference, pointer) in found {
            let place = || Location::at_pointer(docs.display(&doc_id), pointer.clone());
            let target = split_ref(&doc_id, &reference).map_err(|message| Error::Ref {
                location: place(),
                reference: reference.clone(),
                message,
            })?;
            if docs.docs.contains_key(&target.doc) {
                continue;
            }
            let url = Url::parse(&target.doc).map_err(|e| Error::Ref {
                location: place(),
                reference: reference.clone(),
                message: e.to_string(),
            })?;
            let bytes = match url.scheme() {
                "file" => {
                    let path = url.to_file_path().map_err(|()| Error::Ref {
                        location: place(),
                        reference: reference.clone(),
                        message: "not a local file path".to_string(),
                    })?;
                    match read_file(&path, &display_name(docs, &url)) {
                        Ok(bytes) => bytes,
                        Err(e) => {
                            // Only the operations that reach this file fail (normalize says which).
                            docs.missing.insert(target.doc.clone(), e.to_string());
                            continue;
                        }
                    }
                }
                "http" | "https" if opts.allow_remote_refs => fetch_url(&url)?,
                "http" | "https" => {
                    return Err(Error::Ref {
                        location: place(),
                        reference,
                        message:
                            "remote references are not followed by default; pass --allow-remote-refs to fetch them"
                                .to_string(),
                    });
                }
                other => {
                    return Err(Error::Ref {
                        location: place(),
                        reference,
                        message: format!("unsupported URI scheme `{other}`"),
                    });
                }
            };
            let name = display_name(docs, &url);
            let value = parse_document(&bytes, &name)?;
            docs.names.insert(target.doc.clone(), name);
            docs.docs.insert(target.doc.clone(), value);
            queue.push(target.doc);
        }
    }
    Ok(())
}

/// Names a referenced file relative to the root document's folder when it can.
fn display_name(docs: &DocumentSet, url: &Url) -> String {
    if let Some(root) = &docs.root_url
        && let Some(rel) = root.make_relative(url)
    {
        return rel;
    }
    match url.to_file_path() {
        Ok(p) => p.display().to_string(),
        Err(()) => url.to_string(),
    }
}

/// A segment of the path walked so far; turned into a pointer only when a `$ref` is found.
#[derive(Clone, Copy)]
enum PathSeg<'a> {
    Key(&'a str),
    Index(usize),
}

fn collect_external_refs<'a>(
    v: &'a Value,
    in_name_map: bool,
    path: &mut Vec<PathSeg<'a>>,
    out: &mut Vec<(String, String)>,
) {
    match v {
        Value::Object(map) => {
            // In a map of names, `$ref` would be a name (a property's) and holds no reference.
            if let Some(Value::String(r)) = map.get("$ref").filter(|_| !in_name_map)
                && !r.starts_with('#')
            {
                let pointer: String = path
                    .iter()
                    .map(|s| match s {
                        PathSeg::Key(k) => format!("/{}", escape_segment(k)),
                        PathSeg::Index(i) => format!("/{i}"),
                    })
                    .collect();
                out.push((r.clone(), format!("#{pointer}/$ref")));
            }
            for (k, child) in map {
                if !in_name_map && is_data_key(k) {
                    continue;
                }
                if matches!(child, Value::Object(_) | Value::Array(_)) {
                    path.push(PathSeg::Key(k));
                    // Inside a map of names, a key is a name: it never makes a map itself.
                    collect_external_refs(child, !in_name_map && is_name_map(k), path, out);
                    path.pop();
                }
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                if matches!(child, Value::Object(_) | Value::Array(_)) {
                    path.push(PathSeg::Index(i));
                    collect_external_refs(child, false, path, out);
                    path.pop();
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split() {
        let t = split_ref("file:///a/b/root.yaml", "#/components/schemas/Pet").unwrap();
        assert_eq!(t, RefTarget { doc: "file:///a/b/root.yaml".into(), pointer: "/components/schemas/Pet".into() });
        let t = split_ref("file:///a/b/root.yaml", "schemas/pet.yaml#/Pet").unwrap();
        assert_eq!(t.doc, "file:///a/b/schemas/pet.yaml");
        assert_eq!(t.pointer, "/Pet");
        let t = split_ref("file:///a/b/root.yaml", "../c.json").unwrap();
        assert_eq!((t.doc.as_str(), t.pointer.as_str()), ("file:///a/c.json", ""));
        let t = split_ref("file:///a/root.yaml", "#/paths/~1pets%7Bid%7D").unwrap();
        assert_eq!(t.pointer, "/paths/~1pets{id}");
        assert!(split_ref("file:///a/root.yaml", "#Pet").is_err());
        assert!(split_ref("mem", "other.yaml").is_err());
    }

    #[test]
    fn refs_in_data_are_not_followed() {
        let doc = serde_json::json!({
            "responses": {"default": {"$ref": "responses.yaml#/Error"}},
            "schema": {
                "enum": [{"$ref": "no.yaml"}], "const": {"$ref": "no.yaml"}, "examples": [{"$ref": "no.yaml"}],
                "example": {"$ref": "no.yaml"}, "x-data": {"$ref": "no.yaml"}, "default": {"$ref": "default.yaml"},
                "properties": {"example": {"$ref": "example.yaml"}},
                "dependentSchemas": {"enum": {"$ref": "enum.yaml"}},
            },
            "components": {"schemas": {"x-named": {"$ref": "named.yaml"}}},
        });
        let mut found = Vec::new();
        collect_external_refs(&doc, false, &mut Vec::new(), &mut found);
        let mut refs: Vec<&str> = found.iter().map(|(r, _)| r.as_str()).collect();
        refs.sort_unstable();
        // A schema's `default` is data; the `default` response is a name in `responses`.
        assert_eq!(refs, ["enum.yaml", "example.yaml", "named.yaml", "responses.yaml#/Error"]);
    }

    #[test]
    fn names_that_spell_keywords_are_names_and_keywords_under_them_are_keywords() {
        let doc = serde_json::json!({
            "paths": {"/a": {"get": {"responses": {"200": {
                "headers": {"x-request-id": {"$ref": "headers.yaml#/RequestId"}},
                "content": {"application/json": {"schema": {"$ref": "body.yaml"}, "example": {"$ref": "no.yaml"}}}}}}}},
            "components": {
                "schemas": {"properties": {"type": "object", "default": {"$ref": "no.yaml"},
                    "properties": {"properties": {"enum": [{"$ref": "no.yaml"}], "items": {"$ref": "items.yaml"}}}}},
                "parameters": {"enum": {"$ref": "param.yaml"}},
                "examples": {"one": {"$ref": "no.yaml"}}},
        });
        let mut found = Vec::new();
        collect_external_refs(&doc, false, &mut Vec::new(), &mut found);
        let mut refs: Vec<&str> = found.iter().map(|(r, _)| r.as_str()).collect();
        refs.sort_unstable();
        assert_eq!(refs, ["body.yaml", "headers.yaml#/RequestId", "items.yaml", "param.yaml"]);
    }
}
