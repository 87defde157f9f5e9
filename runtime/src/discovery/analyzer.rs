//! Text to search terms, the same for a tool's fields and for a request: words split at
//! non-alphanumerics and case changes, lower-cased, stop words dropped, irregular verb forms
//! brought to their base, stemmed (Snowball English).

use std::collections::HashMap;

use rust_stemmers::{Algorithm, Stemmer};

use crate::config::text::WordSplit;
use crate::discovery::lexicon::{IRREGULAR, STOP_WORDS};

/// Text to terms: words split at non-alphanumerics and case changes, lower-cased, stop words
/// dropped, stemmed (Snowball English).
pub struct Analyzer {
    stemmer: Stemmer,
}

impl Default for Analyzer {
    fn default() -> Self {
        Analyzer { stemmer: Stemmer::create(Algorithm::English) }
    }
}

impl Analyzer {
    /// Appends the terms of `text` to `out`.
    pub fn terms(&self, text: &str, out: &mut Vec<String>) {
        out.extend(split_words(text).filter_map(|word| self.term(word)));
    }

    /// The term of one word; `None` for a stop word or a single letter.
    fn term(&self, word: &str) -> Option<String> {
        let word = singular_acronym(word);
        let lower = word.to_lowercase();
        if lower.len() < 2 && !lower.chars().all(|c| c.is_ascii_digit()) || STOP_WORDS.contains(&lower.as_str()) {
            return None;
        }
        // The stemmer knows regular endings only: "paid" is "pay" by the table.
        let base = IRREGULAR.iter().find(|(form, _)| *form == lower).map_or(lower.as_str(), |(_, base)| base);
        Some(self.stemmer.stem(base).into_owned())
    }

    pub(crate) fn all_terms(&self, words: &[&str]) -> Vec<String> {
        let mut out = Vec::new();
        for w in words {
            self.terms(w, &mut out);
        }
        out
    }

    /// This analyzer with each word's term kept once found: indexing thousands of tools meets the
    /// same few thousand words again and again (Microsoft Graph: stemming was a sixth of start-up).
    pub(crate) fn memo(&self) -> Memo<'_> {
        Memo { analyzer: self, terms: HashMap::new() }
    }
}

/// An [`Analyzer`] that remembers each word's term, for as long as it lives (one index build: a
/// server's requests do not grow it).
pub(crate) struct Memo<'a> {
    analyzer: &'a Analyzer,
    terms: HashMap<String, Option<String>>,
}

impl Memo<'_> {
    /// Appends the terms of `text` to `out`, as [`Analyzer::terms`] does.
    pub(crate) fn terms(&mut self, text: &str, out: &mut Vec<String>) {
        for word in split_words(text) {
            let term = match self.terms.get(word) {
                Some(term) => term,
                None => self.terms.entry(word.to_string()).or_insert_with(|| self.analyzer.term(word)),
            };
            out.extend(term.iter().cloned());
        }
    }
}

/// Most words a thread remembers for [`api_terms`]: an API's vocabulary fits (Microsoft Graph's
/// descriptions use about 9,000 words), and the memory stays bounded whatever the texts.
const API_WORDS_REMEMBERED: usize = 32_768;

thread_local! {
    static API_WORDS: std::cell::RefCell<(Analyzer, HashMap<String, Option<String>>)> =
        std::cell::RefCell::new((Analyzer::default(), HashMap::new()));
}

/// Appends the terms of `text`, a text of the API description (never a client's), to `out`, as
/// [`Analyzer::terms`] does; each word's term is remembered by the thread, up to
/// [`API_WORDS_REMEMBERED`] words. Compact schemas weigh every description's words against the
/// tool's name: Microsoft Graph's 11,422 tools meet the same words millions of times.
pub(crate) fn api_terms(text: &str, out: &mut Vec<String>) {
    API_WORDS.with_borrow_mut(|(analyzer, remembered)| {
        for word in split_words(text) {
            match remembered.get(word) {
                Some(term) => out.extend(term.iter().cloned()),
                None => {
                    let term = analyzer.term(word);
                    out.extend(term.iter().cloned());
                    if remembered.len() < API_WORDS_REMEMBERED {
                        remembered.insert(word.to_string(), term);
                    }
                }
            }
        }
    });
}

/// An acronym's plural is the acronym (`PRs`, `URLs`).
pub(crate) fn singular_acronym(word: &str) -> &str {
    match word.strip_suffix('s') {
        Some(acronym) if acronym.len() >= 2 && acronym.chars().all(|c| c.is_ascii_uppercase()) => acronym,
        _ => word,
    }
}

/// Words of a text: runs of letters and digits, split again where lower case turns upper
/// (`getPetById`) and where an upper-case run turns into a word (`HTMLParser` -> HTML Parser).
fn split_words(text: &str) -> impl Iterator<Item = &str> {
    crate::config::text::split_words(text, WordSplit { ascii: false, acronyms: true })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_at_case_and_punctuation() {
        let words: Vec<&str> = split_words("getPetById HTMLParser repos/list-for_org v2Beta PRs").collect();
        assert_eq!(
            words,
            ["get", "Pet", "By", "Id", "HTML", "Parser", "repos", "list", "for", "org", "v2", "Beta", "PRs"]
        );
    }

    #[test]
    fn terms_are_stemmed_and_stop_words_dropped() {
        let mut out = Vec::new();
        Analyzer::default().terms("Listing the Repositories of my organizations", &mut out);
        assert_eq!(out, ["list", "repositori", "organ"]);
    }

    #[test]
    fn remembered_terms_are_the_analyzers() {
        let analyzer = Analyzer::default();
        let mut memo = analyzer.memo();
        let text = "Listing the Repositories of my organizations, paid PRs; listing repositories again";
        let (mut plain, mut remembered) = (Vec::new(), Vec::new());
        analyzer.terms(text, &mut plain);
        memo.terms(text, &mut remembered);
        memo.terms(text, &mut remembered);
        assert_eq!(remembered, [plain.clone(), plain].concat());
    }

    #[test]
    fn api_terms_are_the_analyzers() {
        let text = "Listing the Repositories of my organizations, paid PRs; listing repositories again";
        let (mut plain, mut remembered) = (Vec::new(), Vec::new());
        Analyzer::default().terms(text, &mut plain);
        api_terms(text, &mut remembered);
        api_terms(text, &mut remembered);
        assert_eq!(remembered, [plain.clone(), plain].concat());
    }

    #[test]
    fn irregular_forms_are_their_verb() {
        let mut out = Vec::new();
        Analyzer::default().terms("paid invoices, sent messages", &mut out);
        assert_eq!(out, ["pay", "invoic", "send", "messag"]);
    }
}
