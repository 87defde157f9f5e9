//! Compact schemas: what a client is shown of a tool may be smaller than what the engine
//! validates against. Nested descriptions keep their first sentence without links, cut at
//! [`PARAM_MAX`] characters, and go when they only restate the property's and the tool's names;
//! examples, `externalDocs`, `x-*` extensions, titles that only repeat the property name and
//! titles that are a generator's schema names go.
//! A tool's description is its summary (or its description's first sentence), and its title goes
//! when that says it; annotations lose the hints that say what MCP assumes anyway. Nothing that
//! constrains a value is touched.

use std::collections::HashSet;

use rmcp::model::ToolAnnotations;
use serde_json::{Map, Value};

use crate::config::keywords::{self, Holds};
use crate::discovery::analyzer::api_terms;
pub use crate::text::{cap, cap_words, first_sentence};

/// Longest first sentence kept, in characters.
pub const SENTENCE_MAX: usize = 200;

/// Longest nested (parameter) description kept, in characters: one short clause is what a model
/// reads of an argument; the rest is in the full schema that `describe_tools` and the docs show.
pub const PARAM_MAX: usize = 80;

/// Words a description may use and still say nothing of its own: what kind of value (a name, a
/// number, an id) rather than what it is for.
const GENERIC_WORDS: [&str; 12] =
    ["name", "number", "id", "identifier", "unique", "value", "given", "specified", "slug", "handle", "key", "the"];

/// The words a tool's name and title already say: a parameter description made only of these
/// (and of its own name's) tells a model nothing.
pub struct Known {
    words: HashSet<String>,
}

impl Known {
    /// The words of these texts (a tool's name and title), stemmed.
    pub fn new(texts: &[&str]) -> Known {
        let mut words = Vec::new();
        for text in texts.iter().chain(&GENERIC_WORDS) {
            api_terms(text, &mut words);
        }
        Known { words: words.into_iter().collect() }
    }

    /// Whether `text` says nothing beyond these words and `property`'s.
    fn restates(&self, text: &str, property: &str) -> bool {
        let (mut said, mut own) = (Vec::new(), Vec::new());
        api_terms(text, &mut said);
        api_terms(property, &mut own);
        !said.is_empty() && said.iter().all(|w| self.words.contains(w) || own.contains(w))
    }
}

/// The compact form of a tool's schema. The root's own description is kept whole; `known` holds
/// the words of the tool's name and title.
pub fn compact_schema(schema: &Map<String, Value>, known: &Known) -> Map<String, Value> {
    compact_node(schema, None, true, known)
}

/// A nested description, compact: its first sentence without links, capped at [`PARAM_MAX`];
/// `None` when that only restates the names around it.
fn param_description(text: &str, property: Option<&str>, known: &Known) -> Option<String> {
    let sentence = first_sentence(&without_links(text), SENTENCE_MAX);
    if sentence.is_empty() || property.is_some_and(|p| known.restates(&sentence, p)) {
        return None;
    }
    Some(cap_words(&sentence, PARAM_MAX))
}

fn compact_node(schema: &Map<String, Value>, property: Option<&str>, root: bool, known: &Known) -> Map<String, Value> {
    let mut out = Map::with_capacity(schema.len());
    for (key, value) in schema {
        let key_str = key.as_str();
        if keywords::DOCUMENTATION.contains(&key_str) || keywords::is_extension(key_str) {
            continue;
        }
        let compacted = match (key_str, value) {
            ("description", Value::String(text)) if !root => match param_description(text, property, known) {
                Some(text) => Value::String(text),
                None => continue,
            },
            ("title", Value::String(title))
                if !root && (is_identifier(title) || property.is_some_and(|p| same_words(p, title))) =>
            {
                continue;
            }
            (k, Value::Object(map)) if keywords::holds(k) == Holds::NamedSchemas => {
                let names_properties = k == "properties";
                Value::Object(
                    map.iter()
                        .map(|(name, sub)| {
                            let prop = names_properties.then_some(name.as_str());
                            (name.clone(), compact_value(sub, prop, known))
                        })
                        .collect(),
                )
            }
            // Other subschemas, and everything else as it is: a constraint or data (`enum`,
            // `default`, `required`...).
            (k, _) => {
                keywords::map_held(k, value, |sub| compact_value(sub, None, known)).unwrap_or_else(|| value.clone())
            }
        };
        out.insert(key.clone(), compacted);
    }
    out
}

fn compact_value(value: &Value, property: Option<&str>, known: &Known) -> Value {
    match value {
        Value::Object(map) => Value::Object(compact_node(map, property, false, known)),
        // A boolean schema.
        other => other.clone(),
    }
}

/// A title that is a generator's name for the schema (`customer_param`, `optional_fields_address`,
/// `RepositoryRuleParams`) rather than words for people: Stripe's document gives one to almost
/// every nested object, 41 KB of its compact list, and the property's name already says as much.
fn is_identifier(title: &str) -> bool {
    let camel = title.as_bytes().windows(2).any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase());
    !title.contains(char::is_whitespace) && (title.contains(['_', '-', '.']) || camel)
}

/// `petId` and `Pet ID` say the same: letters and digits compared without case.
fn same_words(a: &str, b: &str) -> bool {
    let norm =
        |s: &str| s.chars().filter(char::is_ascii_alphanumeric).map(|c| c.to_ascii_lowercase()).collect::<String>();
    norm(a) == norm(b)
}

/// A tool's title, compact: `None` when its words are all in the tool's (compact) description or
/// name, which clients show anyway.
pub fn compact_title(title: &str, description: &str, name: &str) -> Option<String> {
    let (mut own, mut said) = (Vec::new(), Vec::new());
    api_terms(title, &mut own);
    api_terms(description, &mut said);
    api_terms(name, &mut said);
    let redundant = own.iter().all(|w| said.contains(w));
    (!redundant).then(|| title.to_string())
}

/// A tool's annotations, compact: without the hints that equal MCP's defaults (not read-only,
/// destructive, not idempotent, open world) or that MCP says mean nothing (destructive and
/// idempotent on a read-only tool). `None` when no hint is left.
pub fn compact_annotations(a: &ToolAnnotations) -> Option<ToolAnnotations> {
    let read_only = a.read_only_hint == Some(true);
    let mut out = ToolAnnotations::new();
    out.title = a.title.clone();
    out.read_only_hint = read_only.then_some(true);
    out.destructive_hint = a.destructive_hint.filter(|d| !d && !read_only);
    out.idempotent_hint = a.idempotent_hint.filter(|i| *i && !read_only);
    out.open_world_hint = a.open_world_hint.filter(|o| !o);
    let empty = out.title.is_none()
        && out.read_only_hint.is_none()
        && out.destructive_hint.is_none()
        && out.idempotent_hint.is_none()
        && out.open_world_hint.is_none();
    (!empty).then_some(out)
}

/// A tool's description as a search hit shows it beside the title: without a leading copy of the
/// title, a leading note or links, then its first sentence.
pub fn compact_description(description: &str, title: Option<&str>) -> String {
    let text = without_links(description);
    let text = text.trim();
    let (deprecated, text) = match text.strip_prefix("[Deprecated]") {
        Some(rest) => (true, rest.trim_start()),
        None => (false, text),
    };
    let rest = match title.map(str::trim).filter(|t| !t.is_empty()) {
        Some(t) => text.strip_prefix(t).map(|r| r.trim_start_matches(['.', ':']).trim()).unwrap_or(text),
        None => text,
    };
    // The title was the whole text: it is then the description too.
    let rest = if rest.is_empty() { text } else { rest };
    let sentence = first_sentence(without_leading_note(rest), SENTENCE_MAX);
    if deprecated { format!("[Deprecated] {sentence}") } else { sentence }
}

/// A tool's description in a compact `tools/list`: its title (the operation's summary) when it
/// has one, else its description's first sentence. Models are shown a tool's name, description
/// and schema but not its title, and a summary is the one line an API's authors wrote to say what
/// the operation does; the description's first sentence is often a note or boilerplate ("Protected
/// branches are available in public repositories with GitHub Free…" on 34 GitHub operations).
pub fn listed_description(description: &str, title: Option<&str>) -> String {
    let Some(title) = title.map(str::trim).filter(|t| !t.is_empty()) else {
        return compact_description(description, None);
    };
    let title = cap(&without_links(title), SENTENCE_MAX);
    if description.trim_start().starts_with("[Deprecated]") && !title.starts_with("[Deprecated]") {
        format!("[Deprecated] {title}")
    } else {
        title
    }
}

/// A tool's description as `describe_tools` shows it, compact: the summary, then the description's
/// first sentence when that says more. A model describes a tool it is about to call, so the
/// sentence after the summary is worth its tokens there ("The `parent` and `source` objects are
/// present when the repository is a fork."), where a list of every tool keeps to the summary.
pub fn described_description(description: &str, title: Option<&str>) -> String {
    let summary = listed_description(description, title);
    let sentence = compact_description(description, title);
    let said = |s: &str| s.trim_end_matches('.').to_lowercase();
    if title.is_none_or(|t| t.trim().is_empty()) || sentence.is_empty() || said(&summary).contains(&said(&sentence)) {
        return summary;
    }
    let sentence = sentence.strip_prefix("[Deprecated] ").unwrap_or(&sentence);
    if summary.ends_with(['.', '!', '?']) { format!("{summary} {sentence}") } else { format!("{summary}. {sentence}") }
}

/// A text without the note it opens with (GitHub's `> [!NOTE]` and `> [!TIP]` blocks: "this
/// endpoint is in public preview"), when more text follows: the note is about the endpoint's
/// status, the text after it says what the endpoint does. Warnings and cautions stay.
fn without_leading_note(text: &str) -> &str {
    let first = text.lines().next().unwrap_or("").trim_start_matches('>').trim();
    if !(first.starts_with("[!NOTE]") || first.starts_with("[!TIP]")) {
        return text;
    }
    let mut rest = text;
    while rest.starts_with('>') {
        rest = rest.split_once('\n').map_or("", |(_, r)| r).trim_start();
    }
    if rest.is_empty() { text } else { rest }
}

/// Text with Markdown links reduced to their text (`[Link header](https://…)` -> `Link header`)
/// and bare URLs dropped: a model cannot follow them, and they cost many tokens.
pub fn without_links(text: &str) -> String {
    let out = crate::text::link_labels(text);
    if !out.contains("://") {
        return out;
    }
    // Bare URLs, and the angle brackets or parentheses around them.
    let words: Vec<&str> = out
        .split(' ')
        .filter(|w| {
            !w.trim_start_matches(['(', '<']).starts_with("http://")
                && !w.trim_start_matches(['(', '<']).starts_with("https://")
        })
        .collect();
    words.join(" ").replace(" .", ".").replace(" ,", ",")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn compact(v: Value) -> Value {
        compact_in(v, &[])
    }

    fn compact_in(v: Value, names: &[&str]) -> Value {
        Value::Object(compact_schema(v.as_object().unwrap(), &Known::new(names)))
    }

    fn described(description: &str) -> Value {
        json!({"type": "object", "properties": {"a": {"type": "string", "description": description}}})
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
    fn a_leading_note_gives_way_to_what_the_tool_does() {
        let preview = "> [!NOTE]\n> This endpoint is in public preview.\n\nReturns a task by ID. More.";
        assert_eq!(compact_description(preview, None), "Returns a task by ID.");
        let warning = "> [!WARNING]\n> Deletes everything.\n\nDeletes a repository.";
        assert_eq!(compact_description(warning, None), "> [!WARNING] > Deletes everything.");
        assert_eq!(compact_description("> [!NOTE]\n> Only a note.", None), "> [!NOTE] > Only a note.");
        let titled = "List tasks\n\n> [!NOTE]\n> This endpoint is in public preview.\n\nReturns the tasks. More.";
        assert_eq!(compact_description(titled, Some("List tasks")), "Returns the tasks.", "a note after the title");
    }

    #[test]
    fn a_listed_description_is_the_summary() {
        let boilerplate = "Get branch protection\n\nProtected branches are available in public repositories.";
        assert_eq!(listed_description(boilerplate, Some("Get branch protection")), "Get branch protection");
        assert_eq!(listed_description("Lists pets. Paged.", None), "Lists pets.");
        assert_eq!(listed_description("[Deprecated] List\n\nAll.", Some("List")), "[Deprecated] List");
        assert_eq!(listed_description("", Some("See [the docs](https://x.io)")), "See the docs");
        assert_eq!(listed_description("Lists pets.", Some("  ")), "Lists pets.");
    }

    #[test]
    fn a_described_description_is_the_summary_and_a_sentence() {
        let repo = "Get a repository\n\nThe parent is shown when it is a fork. More.";
        assert_eq!(
            described_description(repo, Some("Get a repository")),
            "Get a repository. The parent is shown when it is a fork."
        );
        assert_eq!(described_description("Get a pet", Some("Get a pet")), "Get a pet", "nothing more to say");
        assert_eq!(described_description("Lists pets. Paged.", None), "Lists pets.");
        assert_eq!(
            described_description("[Deprecated] List\n\nAll of them. Really.", Some("List")),
            "[Deprecated] List. All of them."
        );
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
    fn titles_that_are_schema_names_go() {
        let s = compact(json!({"type": "object", "title": "root_title", "properties": {
            "address": {"type": "object", "title": "optional_fields_address"},
            "rule": {"type": "object", "title": "RepositoryRuleParams"},
            "owner": {"type": "object", "title": "Simple User"},
            "kind": {"type": "string", "title": "Kind"}}}));
        assert_eq!(s["title"], "root_title", "the root is the tool's own");
        assert!(s["properties"]["address"].get("title").is_none());
        assert!(s["properties"]["rule"].get("title").is_none());
        assert_eq!(s["properties"]["owner"]["title"], "Simple User");
        assert!(s["properties"]["kind"].get("title").is_none(), "it repeats the name");
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
    fn references_still_resolve_in_the_compact_form() {
        let s = compact(json!({"type": "object", "$defs": {"B": {"type": "boolean", "examples": [true]}},
            "properties": {"required": {"$ref": "#/$defs/B"}, "examples": {"items": {"$ref": "#/$defs/B"}},
                "description": {"type": "string", "title": "description"}}}));
        assert_eq!(s["$defs"]["B"], json!({"type": "boolean"}));
        assert_eq!(s["properties"]["required"], json!({"$ref": "#/$defs/B"}));
        assert_eq!(s["properties"]["examples"]["items"], json!({"$ref": "#/$defs/B"}));
        assert_eq!(s["properties"]["description"], json!({"type": "string"}));
        assert!(crate::config::refs::unresolved_refs(s.as_object().unwrap()).is_empty());
    }

    #[test]
    fn every_schema_position_is_compacted() {
        let s = compact(json!({"type": "object", "$defs": {"N": {"type": "object", "example": 1}},
            "properties": {"l": {"type": "array", "items": {"anyOf": [{"type": "string", "examples": ["a"]}]}}}}));
        assert_eq!(s["$defs"]["N"], json!({"type": "object"}));
        assert_eq!(s["properties"]["l"]["items"]["anyOf"][0], json!({"type": "string"}));
    }

    #[test]
    fn descriptions_that_restate_the_names_go() {
        let s = compact_in(
            json!({"type": "object", "properties": {
                "secret_name": {"type": "string", "description": "The name of the secret."},
                "org": {"type": "string", "description": "The organization name."},
                "repo": {"type": "string", "description": "The name of the repository without the `.git` extension."}}}),
            &["orgs_get-secret", "Get an organization secret"],
        );
        assert!(s["properties"]["secret_name"].get("description").is_none());
        assert!(s["properties"]["org"].get("description").is_none(), "the tool's title says organization");
        assert_eq!(s["properties"]["repo"]["description"], "The name of the repository without the `.git` extension.");
    }

    #[test]
    fn long_parameter_descriptions_are_cut_at_a_word() {
        let long = "Whether this repository acts as a template that can be used to generate new repositories.";
        let s = compact(described(long));
        assert_eq!(
            s["properties"]["a"]["description"],
            "Whether this repository acts as a template that can be used to generate new…"
        );
        assert!(s["properties"]["a"]["description"].as_str().unwrap().chars().count() <= PARAM_MAX);
    }

    #[test]
    fn links_keep_their_text_and_urls_go() {
        assert_eq!(
            without_links("A cursor, as given in the [Link header](https://docs.github.com/rest#link)."),
            "A cursor, as given in the Link header."
        );
        assert_eq!(without_links("See https://example.com/docs for more."), "See for more.");
        assert_eq!(without_links("Array [0] and (x)"), "Array [0] and (x)");
        assert_eq!(compact_description("Lists [pets](http://p). More.", None), "Lists pets.");
    }

    #[test]
    fn titles_the_description_says_go() {
        assert_eq!(
            compact_title("List repository issues", "List issues in a repository.", "issues_list-for-repo"),
            None
        );
        assert_eq!(compact_title("Delete a pet", "", "deletePet"), None, "the name says it");
        assert_eq!(
            compact_title("Start a task", "This endpoint is in public preview.", "agent-tasks_create"),
            Some("Start a task".to_string())
        );
    }

    #[test]
    fn annotations_lose_what_mcp_assumes() {
        let full = |r, d, i, o| ToolAnnotations::new().read_only(r).destructive(d).idempotent(i).open_world(o);
        let read = compact_annotations(&full(true, false, true, true)).unwrap();
        assert_eq!(serde_json::to_value(read).unwrap(), json!({"readOnlyHint": true}));
        let put = compact_annotations(&full(false, true, true, true)).unwrap();
        assert_eq!(serde_json::to_value(put).unwrap(), json!({"idempotentHint": true}));
        let post = compact_annotations(&full(false, false, false, false)).unwrap();
        assert_eq!(serde_json::to_value(post).unwrap(), json!({"destructiveHint": false, "openWorldHint": false}));
        assert!(compact_annotations(&full(false, true, false, true)).is_none(), "all defaults: nothing to say");
    }
}
