//! Compact schemas: what a client is shown of a tool may be smaller than what the engine
//! validates against. Nested descriptions keep their first sentence; examples, `externalDocs`,
//! `x-*` extensions and titles that only repeat the property name go. Nothing that constrains a
//! value is touched.

use serde_json::{Map, Value};

use super::keywords::{self, SCHEMA, SCHEMA_LIST, SCHEMA_MAP};

/// Longest first sentence kept, in characters.
pub const SENTENCE_MAX: usize = 200;

/// The compact form of a tool's schema. The root's own description is kept whole.
pub fn compact_schema(schema: &Map<String, Value>) -> Map<String, Value> {
    compact_node(schema, None, true)
}

fn compact_node(schema: &Map<String, Value>, property: Option<&str>, root: bool) -> Map<String, Value> {
    let mut out = Map::with_capacity(schema.len());
    for (key, value) in schema {
        let key_str = key.as_str();
        if keywords::DOCUMENTATION.contains(&key_str) || keywords::is_extension(key_str) {
            continue;
        }
        let compacted = match (key_str, value) {
            ("description", Value::String(text)) if !root => Value::String(first_sentence(text, SENTENCE_MAX)),
            ("title", Value::String(title)) if property.is_some_and(|p| same_words(p, title)) => continue,
            (k, Value::Object(map)) if SCHEMA_MAP.contains(&k) => {
                let names_properties = k == "properties";
                Value::Object(
                    map.iter()
                        .map(|(name, sub)| {
                            let prop = names_properties.then_some(name.as_str());
                            (name.clone(), compact_value(sub, prop))
                        })
                        .collect(),
                )
            }
            (k, sub) if SCHEMA.contains(&k) => compact_value(sub, None),
            (k, Value::Array(list)) if SCHEMA_LIST.contains(&k) => {
                Value::Array(list.iter().map(|s| compact_value(s, None)).collect())
            }
            // Everything else is a constraint or data (`enum`, `default`, `required`...): as it is.
            _ => value.clone(),
        };
        out.insert(key.clone(), compacted);
    }
    out
}

fn compact_value(value: &Value, property: Option<&str>) -> Value {
    match value {
        Value::Object(map) => Value::Object(compact_node(map, property, false)),
        // `items: [..]` (older drafts) or a boolean schema.
        Value::Array(list) => Value::Array(list.iter().map(|s| compact_value(s, None)).collect()),
        other => other.clone(),
    }
}

/// `petId` and `Pet ID` say the same: letters and digits compared without case.
fn same_words(a: &str, b: &str) -> bool {
    let norm =
        |s: &str| s.chars().filter(char::is_ascii_alphanumeric).map(|c| c.to_ascii_lowercase()).collect::<String>();
    norm(a) == norm(b)
}

/// A tool's description, compact: without a leading copy of its title (clients show the title
/// anyway), then its first sentence.
pub fn compact_description(description: &str, title: Option<&str>) -> String {
    let text = description.trim();
    let rest = match title.map(str::trim).filter(|t| !t.is_empty()) {
        Some(t) => text.strip_prefix(t).map(|r| r.trim_start_matches(['.', ':']).trim()).unwrap_or(text),
        None => text,
    };
    let rest = if rest.is_empty() { text } else { rest };
    let deprecated = rest.starts_with("[Deprecated]") || text.starts_with("[Deprecated]");
    let sentence = first_sentence(rest.trim_start_matches("[Deprecated]"), SENTENCE_MAX);
    if deprecated { format!("[Deprecated] {sentence}") } else { sentence }
}

/// Abbreviations whose period does not end a sentence.
const ABBREVIATIONS: [&str; 10] = ["e.g", "i.e", "etc", "vs", "approx", "incl", "no", "eg", "ie", "cf"];

/// The first sentence of a text (up to `.`, `!` or `?` before white space, or a blank line), on one
/// line, at most `max` characters (cut with `…`).
pub fn first_sentence(text: &str, max: usize) -> String {
    let text = text.trim();
    let mut end = text.len();
    let bytes = text.as_bytes();
    for (i, c) in text.char_indices() {
        if c == '\n' && bytes.get(i + 1) == Some(&b'\n') {
            end = i;
            break;
        }
        if matches!(c, '.' | '!' | '?') && bytes.get(i + 1).is_none_or(u8::is_ascii_whitespace) {
            let word = text[..i].rsplit(|ch: char| ch.is_whitespace() || ch == '(').next().unwrap_or("");
            if c == '.' && ABBREVIATIONS.contains(&word.to_ascii_lowercase().as_str()) {
                continue;
            }
            end = i + 1;
            break;
        }
    }
    cap(&text[..end].split_whitespace().collect::<Vec<_>>().join(" "), max)
}

/// Cuts text to at most `max` characters, marking the cut with `…`.
pub fn cap(text: &str, max: usize) -> String {
    let text = text.trim();
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.truncate(out.trim_end().len());
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn compact(v: Value) -> Value {
        Value::Object(compact_schema(v.as_object().unwrap()))
    }

    #[test]
    fn first_sentences() {
        assert_eq!(first_sentence("Lists pets. Paginated.", 200), "Lists pets.");
        assert_eq!(first_sentence("Sort order, e.g. asc. Default desc.", 200), "Sort order, e.g. asc.");
        assert_eq!(first_sentence("Version 1.2 of the API. More.", 200), "Version 1.2 of the API.");
        assert_eq!(first_sentence("No period\nbut lines\n\nand a paragraph", 200), "No period but lines");
        assert_eq!(first_sentence("abcdef", 4), "abc…");
        assert_eq!(first_sentence("  ", 10), "");
    }

    #[test]
    fn tool_descriptions_lose_the_repeated_title() {
        assert_eq!(
            compact_description("Get a repository\n\nThe parent is shown. More.", Some("Get a repository")),
            "The parent is shown."
        );
        assert_eq!(compact_description("Get a repository", Some("Get a repository")), "Get a repository");
        assert_eq!(compact_description("[Deprecated] List\n\nAll of them. Really.", None), "[Deprecated] List");
        assert_eq!(compact_description("Lists pets. Paged.", Some("Other")), "Lists pets.");
    }

    #[test]
    fn nested_descriptions_keep_their_first_sentence() {
        let s = compact(json!({"type": "object", "description": "Root. Kept whole.",
            "properties": {"a": {"type": "string", "description": "The a. Long story."}}}));
        assert_eq!(s["description"], "Root. Kept whole.");
        assert_eq!(s["properties"]["a"]["description"], "The a.");
    }

    #[test]
    fn examples_docs_and_extensions_go() {
        let s = compact(json!({"type": "object", "properties": {"a": {"type": "string", "example": "x",
            "examples": ["y"], "externalDocs": {"url": "u"}, "x-internal": true, "pattern": "^a"}}}));
        assert_eq!(s["properties"]["a"], json!({"type": "string", "pattern": "^a"}));
    }

    #[test]
    fn titles_that_repeat_the_name_go() {
        let s = compact(json!({"type": "object", "properties": {
            "petId": {"type": "integer", "title": "Pet ID"},
            "tag": {"type": "string", "title": "Label of the pet"}}}));
        assert!(s["properties"]["petId"].get("title").is_none());
        assert_eq!(s["properties"]["tag"]["title"], "Label of the pet");
    }

    #[test]
    fn properties_named_like_keywords_and_data_are_kept() {
        let s = compact(json!({"type": "object", "properties": {
            "example": {"type": "string"}, "x-id": {"type": "string"},
            "mode": {"enum": ["x-a"], "default": {"example": 1}}}}));
        assert!(s["properties"].get("example").is_some());
        assert!(s["properties"].get("x-id").is_some());
        assert_eq!(s["properties"]["mode"]["default"], json!({"example": 1}));
    }

    #[test]
    fn every_schema_position_is_compacted() {
        let s = compact(json!({"type": "object", "$defs": {"N": {"type": "object", "example": 1}},
            "properties": {"l": {"type": "array", "items": {"anyOf": [{"type": "string", "examples": ["a"]}]}}}}));
        assert_eq!(s["$defs"]["N"], json!({"type": "object"}));
        assert_eq!(s["properties"]["l"]["items"]["anyOf"][0], json!({"type": "string"}));
    }
}
