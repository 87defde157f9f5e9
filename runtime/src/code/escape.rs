//! Untrusted text written into declarations: an API description's descriptions, enum values,
//! defaults, patterns and property names reach them, and none may end the comment or string
//! literal it is in, start a line of its own, or close a `<script>` element the text is
//! embedded in.
//!
//! A string literal is JSON's (quotes, backslashes and control characters escaped), with U+2028
//! and U+2029 (line terminators in older JavaScript) and `<`, `>` escaped too (`</script>`,
//! `<!--`). A comment's text is on one line (control characters and line separators as spaces)
//! and never holds `*/` (written `*\/`).

use serde_json::Value;

use crate::code::names::is_property_identifier;

/// Bidirectional formatting characters: text that shows in another order than it reads
/// ("Trojan Source"): escaped in literals, dropped from comments.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{200E}' | '\u{200F}' | '\u{061C}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// `text` as a JavaScript (and TypeScript) string literal, in double quotes.
pub fn string_literal(text: &str) -> String {
    let json = Value::String(text.to_string()).to_string();
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '\u{2028}' | '\u{2029}' | '<' | '>' => out.push_str(&format!("\\u{:04x}", c as u32)),
            c if is_bidi_control(c) => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// A property name as written in an object type: bare when it is an identifier, else a quoted
/// string literal (`"user-id"`).
pub fn property_key(name: &str) -> String {
    if is_property_identifier(name) { name.to_string() } else { string_literal(name) }
}

/// `text` fit for the inside of a comment: on one line (control characters, U+2028, U+2029 as
/// spaces, runs of white space as one), without bidirectional controls nor `*/`, trimmed.
pub fn comment_text(text: &str) -> String {
    let spaced: String = text
        .chars()
        .filter(|c| !is_bidi_control(*c))
        .map(|c| if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}') { ' ' } else { c })
        .collect();
    let one_line = spaced.split_whitespace().collect::<Vec<_>>().join(" ");
    // `*/` ends a comment; `*\/` reads the same to a model and ends nothing.
    let mut out = one_line.replace("*/", "*\\/");
    // A comment whose text ends with `*` would read `**/` at its end: still closed where meant.
    // One that ends with `/` after our ` ` is fine too; nothing else can close it.
    out.truncate(out.trim_end().len());
    out
}

/// `/* text */`, or nothing for empty text.
pub fn comment(text: &str) -> String {
    let text = comment_text(text);
    if text.is_empty() { String::new() } else { format!("/* {text} */") }
}

/// `/** text */`, or nothing for empty text.
pub fn doc_comment(text: &str) -> String {
    let text = comment_text(text);
    if text.is_empty() { String::new() } else { format!("/** {text} */") }
}

/// A JSON scalar as a TypeScript literal type (`"open"`, `3`, `true`, `null`); `None` for arrays
/// and objects, which have none short enough.
pub fn literal(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(string_literal(s)),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Null => Some("null".to_string()),
        Value::Array(_) | Value::Object(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hostile sample's texts, and more.
    const HOSTILE: [&str; 9] = [
        "bidi \u{202E}override\u{202C} and \u{2067}isolate\u{2069}",
        "end-comment */ start-comment /* brace } {{ mustache }}",
        "Multi-line\ndescription\r\nwith\ttabs and a NUL \u{0} and U+2028 [\u{2028}] and U+2029 [\u{2029}] and NEL [\u{85}]",
        "script </script><script>alert(1)</script> <!-- -->",
        "Quote \" backslash \\ backtick ` ${template} $(rm -rf /)",
        "***/*/**/",
        "trailing star *",
        "\"; } declare const evil: 1; /*",
        "*\\/ already escaped",
    ];

    #[test]
    fn string_literals_read_back_as_the_text() {
        for text in HOSTILE {
            let lit = string_literal(text);
            assert!(lit.starts_with('"') && lit.ends_with('"'));
            let back: String = serde_json::from_str(&lit).expect("JSON, which JavaScript reads the same");
            assert_eq!(back, text);
            let inner = &lit[1..lit.len() - 1];
            assert!(!inner.contains(['\n', '\r', '\u{2028}', '\u{2029}', '<', '>']), "{lit}");
            assert!(!inner.chars().any(is_bidi_control), "{lit}");
            assert!(!inner.replace("\\\\", "").replace("\\\"", "").contains('"'), "no bare quote: {lit}");
        }
    }

    #[test]
    fn comments_never_close_early_nor_break_a_line() {
        for text in HOSTILE {
            for c in [comment(text), doc_comment(text)] {
                let open = if c.starts_with("/**") { 3 } else { 2 };
                let inner = &c[open..c.len() - 2];
                assert!(!inner.contains("*/"), "{c}");
                assert!(!c.chars().any(|ch| ch.is_control() || matches!(ch, '\u{2028}' | '\u{2029}')), "{c:?}");
                assert!(c.ends_with(" */"), "{c}");
                assert!(!c.chars().any(is_bidi_control), "{c}");
            }
        }
        assert_eq!(comment("a */ b"), "/* a *\\/ b */");
        assert_eq!(comment("one\ntwo"), "/* one two */");
        assert_eq!(comment("  \n "), "");
    }

    #[test]
    fn names_that_are_not_identifiers_are_quoted() {
        assert_eq!(property_key("owner"), "owner");
        assert_eq!(property_key("user-id"), "\"user-id\"");
        assert_eq!(property_key("a\"b\n</script>"), "\"a\\\"b\\n\\u003c/script\\u003e\"");
        assert_eq!(property_key(""), "\"\"");
    }

    #[test]
    fn scalars_are_literal_types() {
        assert_eq!(literal(&Value::from("a\u{2028}")), Some("\"a\\u2028\"".to_string()));
        assert_eq!(literal(&serde_json::json!(1.5)), Some("1.5".to_string()));
        assert_eq!(literal(&Value::Null), Some("null".to_string()));
        assert_eq!(literal(&serde_json::json!([1])), None);
    }
}
