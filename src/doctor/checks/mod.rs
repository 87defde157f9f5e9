//! The checks, one module per group of rules (see `super::CHECKS`), and what they share.

pub(super) mod arguments;
pub(super) mod auth;
pub(super) mod lists;
pub(super) mod pipeline;
pub(super) mod poisoning;
pub(super) mod size;
pub(super) mod summaries;

pub(crate) use mcpgen_config::text::group_digits;
use mcpgen_config::text::{WordSplit, split_words};

/// The words of `text`, lower case: split at anything but letters and digits, and between a
/// lower-case letter (or digit) and an upper-case one (`listPets`: `list`, `pets`).
pub(crate) fn words(text: &str) -> Vec<String> {
    let words = split_words(text, WordSplit::default());
    words.map(|w| w.chars().flat_map(char::to_lowercase).collect()).collect()
}

/// The first `shown` of `items` joined with `, `, and how many more there are.
pub(crate) fn some_of(items: &[String], shown: usize) -> String {
    let mut text = items.iter().take(shown).cloned().collect::<Vec<_>>().join(", ");
    if items.len() > shown {
        text.push_str(&format!(" and {} more", items.len() - shown));
    }
    text
}

/// `n thing` or `n things`.
pub(crate) fn plural(n: usize, thing: &str) -> String {
    if n == 1 { format!("1 {thing}") } else { format!("{} {thing}s", group_digits(n)) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_at_case_and_punctuation() {
        assert_eq!(words("listPets"), ["list", "pets"]);
        assert_eq!(words("GET /pets/{petId}"), ["get", "pets", "pet", "id"]);
        assert_eq!(words("list_all-items v2"), ["list", "all", "items", "v2"]);
        assert_eq!(words("HTTPServer"), ["httpserver"]);
        assert!(words(" -- ").is_empty());
    }

    #[test]
    fn some_of_counts_the_rest() {
        let items: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
        assert_eq!(some_of(&items, 2), "a, b and 1 more");
        assert_eq!(some_of(&items, 3), "a, b, c");
    }
}
