//! The string formats inference recognises, checked with the validator the engine checks
//! arguments with (`jsonschema`, format assertions on), so that a format mcpgen infers is one the
//! engine accepts the value for.

use std::sync::LazyLock;

use serde_json::{Value, json};

/// The formats recognised, most specific first: a value that is both a `date` and a `uri`
/// (never, in practice) is reported as the first.
pub(crate) const FORMATS: [&str; 5] = ["date-time", "date", "uuid", "email", "uri"];

struct Checkers(Vec<Option<jsonschema::Validator>>);

static CHECKERS: LazyLock<Checkers> = LazyLock::new(|| {
    Checkers(
        FORMATS
            .iter()
            .map(|f| {
                jsonschema::options()
                    .with_draft(jsonschema::Draft::Draft202012)
                    .should_validate_formats(true)
                    .build(&json!({"type": "string", "format": f}))
                    .ok()
            })
            .collect(),
    )
});

/// The formats `text` satisfies, as a bit set over [`FORMATS`]. A `uri` must name a host
/// (`scheme://...`) or be a `urn:`: the validator takes any `word:rest`, which a time such as
/// `a:1` would be.
pub(crate) fn formats_of(text: &str) -> u8 {
    let value = Value::String(text.to_string());
    let mut bits = 0u8;
    for (i, checker) in CHECKERS.0.iter().enumerate() {
        let Some(checker) = checker else { continue };
        if FORMATS[i] == "uri" && !(text.contains("://") || text.starts_with("urn:")) {
            continue;
        }
        if checker.is_valid(&value) {
            bits |= 1 << i;
        }
    }
    bits
}

/// The most specific format of a bit set, if any.
pub(crate) fn first(bits: u8) -> Option<&'static str> {
    FORMATS.iter().enumerate().find(|(i, _)| bits & (1 << i) != 0).map(|(_, f)| *f)
}

/// The bit of one format.
pub(crate) fn bit(format: &str) -> u8 {
    FORMATS.iter().position(|f| *f == format).map_or(0, |i| 1 << i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_the_five() {
        assert_eq!(first(formats_of("2024-05-01T10:00:00Z")), Some("date-time"));
        assert_eq!(first(formats_of("2024-05-01")), Some("date"));
        assert_eq!(first(formats_of("6f1c1c4e-8a5b-4c1d-9f2e-3b7a2d1e0c9f")), Some("uuid"));
        assert_eq!(first(formats_of("ada@example.com")), Some("email"));
        assert_eq!(first(formats_of("https://example.com/a")), Some("uri"));
        assert_eq!(first(formats_of("hello")), None);
        assert_eq!(first(formats_of("note:thing")), None);
        assert_eq!(first(formats_of("2024-13-45")), None);
    }
}
