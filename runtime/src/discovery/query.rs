//! What a search request says before it is matched: the values it carries (arguments for the
//! call, which only hint at the parameters they fill), its multi-word expressions, whether it is
//! a question (which asks to read), and ids whose prefix names a resource (`cus_…`, `pi_…`).

use crate::discovery::analyzer::singular_acronym;
use crate::discovery::lexicon::{PHRASES, STOP_WORDS};

/// A request, analysed.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Request {
    /// The words to match: values replaced by their kind, phrases by their word.
    pub text: String,
    /// The prefixes of prefixed ids (`cus` of `cus_9s6XKz`), lower-case, in order.
    pub id_prefixes: Vec<String>,
    /// Whether the request is a question ("which PRs are open?"): it asks to read.
    pub question: bool,
    /// Whether it names things in the plural ("issues", "PRs"): a read of those is a list.
    pub plural: bool,
    /// States it asks for ("the open issues"): words to match (a `state` parameter's `open`), but
    /// not verbs (`open` would otherwise ask to create).
    pub states: Vec<&'static str>,
}

/// Analyses a search request.
pub(crate) fn analyze(query: &str) -> Request {
    let mut request = Request { question: is_question(query), ..Request::default() };
    let text = without_values(query, &mut request.id_prefixes);
    let (text, open) = adjective_open(&text);
    if open {
        request.states.push("open");
    }
    request.text = rewrite_phrases(&text);
    // "Every branch" and "all the branches" ask for a list as a plural does.
    request.plural = request.text.split_whitespace().any(|w| is_plural(w) || QUANTIFIERS.contains(&w))
        || query.split_whitespace().any(|w| singular_acronym(w) != w);
    request
}

/// Words that ask for every one of something.
const QUANTIFIERS: &[&str] = &["every", "all"];

/// Whether a lower-case word looks like an English plural noun.
fn is_plural(word: &str) -> bool {
    word.len() >= 4
        && word.ends_with('s')
        && !["ss", "us", "is", "ys"].iter().any(|end| word.ends_with(end))
        && !STOP_WORDS.contains(&word)
        && word.chars().all(|c| c.is_ascii_lowercase())
}

/// Words that open a question. "How do I …" and "can you …" open requests to act, not questions.
const QUESTION_WORDS: &[&str] = &[
    "what", "what's", "which", "who", "who's", "whom", "whose", "how", "where", "when", "is", "are", "was", "were",
    "does", "did", "do", "has", "have", "am",
];

fn is_question(query: &str) -> bool {
    let lower = query.trim().to_lowercase();
    let mut words = lower.split(|c: char| !(c.is_alphanumeric() || c == '\''));
    let (Some(first), second) = (words.next(), words.next().unwrap_or("")) else { return false };
    let asks = QUESTION_WORDS.contains(&first)
        && !(first == "how" && matches!(second, "do" | "can" | "to" | "should" | "would"));
    // A question mark makes a question of what opens otherwise ("anything new on acme/api?"),
    // unless it is a polite request ("can you close #4?").
    asks || lower.ends_with('?') && !REQUEST_WORDS.contains(&first)
}

/// Words that open a request to act, even with a question mark at its end.
const REQUEST_WORDS: &[&str] = &["can", "could", "would", "will", "please", "should"];

/// "Open" with no article after it ("the open issues", "still open") is a state, not a request to
/// create ("open a PR"): it is taken out (and said to be there), so that it does not ask for `POST`.
fn adjective_open(text: &str) -> (String, bool) {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut out = Vec::with_capacity(words.len());
    for (i, w) in words.iter().enumerate() {
        let next = words.get(i + 1).map(|n| n.to_lowercase());
        let is_verb = matches!(next.as_deref(), Some("a" | "an" | "new" | "up" | "another" | "one" | "my"));
        if w.eq_ignore_ascii_case("open") && !is_verb {
            continue;
        }
        out.push(*w);
    }
    let dropped = out.len() < words.len();
    (out.join(" "), dropped)
}

/// A query without the values it carries (quoted text, `owner/repo` slugs, ids with digits,
/// emails, @mentions, #channels, numbers, prefixed ids): they are arguments for the call, not what it does.
/// Some say what they are (see [`value_kind`]); prefixed ids go to `id_prefixes`.
fn without_values(query: &str, id_prefixes: &mut Vec<String>) -> String {
    let mut out = String::with_capacity(query.len());
    let mut quote: Option<char> = None;
    let mut word = String::new();
    let mut flush = |word: &mut String, out: &mut String| {
        let w = word.trim_matches(|c: char| matches!(c, ',' | '.' | '?' | '!' | ';' | '(' | ')'));
        let w = w.strip_suffix(':').filter(|w| !w.starts_with(':')).unwrap_or(w);
        if let Some(prefix) = id_prefix(w) {
            if !id_prefixes.contains(&prefix) {
                id_prefixes.push(prefix);
            }
        } else if let Some(kind) = value_kind(w) {
            out.push_str(kind);
            out.push(' ');
        } else if !is_value(w) {
            // Before the request is lower-cased, which would hide that `PRs` is a plural.
            out.push_str(singular_acronym(w));
            out.push(' ');
        }
        word.clear();
    };
    for c in query.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            // An apostrophe inside a word (`don't`, `Sam's`) opens no quote.
            None if (c == '"' || c == '\'' || c == '‘' || c == '“') && word.is_empty() => {
                quote = Some(match c {
                    '‘' => '’',
                    '“' => '”',
                    other => other,
                })
            }
            None if c.is_whitespace() => flush(&mut word, &mut out),
            None => word.push(c),
        }
    }
    flush(&mut word, &mut out);
    out
}

/// Whether a query word is a value rather than a word of the request.
fn is_value(w: &str) -> bool {
    w.contains('/')
        || w.contains('@')
        || w.starts_with('#')
        || w.chars().any(|c| c.is_ascii_digit())
        || (w.contains('_') && w.chars().any(|c| c.is_ascii_uppercase()))
}

/// What kind of value a query word is, when its form says so: the parameter it fills is a clue to
/// the operation (an email address to look a user up by, a URL to send events to, a file path, an
/// issue `#42`).
fn value_kind(value: &str) -> Option<&'static str> {
    if value.starts_with("http://") || value.starts_with("https://") {
        return Some("url");
    }
    // A `#channel` says nothing an API's words would match: every Slack operation takes one.
    if let Some(rest) = value.strip_prefix('#') {
        return (!rest.is_empty() && rest.chars().all(|c| c.is_ascii_digit())).then_some("number");
    }
    if let Some((user, domain)) = value.split_once('@') {
        return (!user.is_empty() && domain.contains('.')).then_some("email");
    }
    let (name, ext) = value.rsplit_once('.')?;
    let is_ext = name.len() > 1 && (1..=4).contains(&ext.len()) && ext.chars().all(|c| c.is_ascii_lowercase());
    is_ext.then_some("file")
}

/// The prefix of a prefixed id (`cus_NffrFeUf`, `pi_3Nx8Kd`, `acct_1032D8`): a short lower-case
/// word, `_`, and an opaque tail of at least 4 letters and digits with a digit or a capital in it.
fn id_prefix(word: &str) -> Option<String> {
    let (prefix, tail) = word.split_once('_')?;
    let is_prefix = (2..=5).contains(&prefix.len()) && prefix.chars().all(|c| c.is_ascii_lowercase());
    let is_tail = tail.len() >= 4
        && tail.chars().all(|c| c.is_ascii_alphanumeric())
        && tail.chars().any(|c| c.is_ascii_digit() || c.is_ascii_uppercase());
    (is_prefix && is_tail).then(|| prefix.to_string())
}

/// A query with [`PHRASES`] replaced by their single words.
/// A phrasal verb also matches with a pronoun after its verb ("take it down", "get me out of").
fn rewrite_phrases(query: &str) -> String {
    let mut text = format!(" {} ", query.to_lowercase());
    for (phrase, word) in PHRASES {
        let (verb, rest) = phrase.split_once(' ').unwrap_or((phrase, ""));
        if !text.contains(&format!(" {verb} ")) {
            continue;
        }
        text = text.replace(&format!(" {phrase} "), &format!(" {word} "));
        for pronoun in PRONOUNS.iter().filter(|_| !rest.is_empty()) {
            text = text.replace(&format!(" {verb} {pronoun} {rest} "), &format!(" {word} "));
        }
    }
    text
}

const PRONOUNS: [&str; 8] = ["me", "us", "it", "them", "him", "her", "this", "that"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions_ask_to_read() {
        assert!(analyze("which PRs are still open on torvalds/linux?").question);
        assert!(analyze("How much money is in my account").question);
        assert!(!analyze("how do I delete a branch").question);
        assert!(!analyze("delete the branch").question);
        assert!(!analyze("can you star tokio-rs/tokio").question);
        assert!(analyze("anything unread in acme/api?").question);
        assert!(!analyze("could you star tokio-rs/tokio?").question);
    }

    #[test]
    fn open_is_a_verb_only_before_an_article() {
        assert_eq!(analyze("list the open issues").text.trim(), "list the issues");
        assert_eq!(analyze("list the open issues").states, ["open"]);
        assert_eq!(analyze("which PRs are still open").text.trim(), "which pr are still");
        assert_eq!(analyze("open a PR").text.trim(), "open a pr");
        assert!(analyze("open a PR").states.is_empty());
    }

    #[test]
    fn values_become_their_kind() {
        let r = analyze("react to #42 in #design-review, mail bob@acme.com, see https://x.io");
        assert_eq!(r.text.trim(), "react to number in mail email see url");
    }

    #[test]
    fn prefixed_ids_give_their_prefix() {
        let r = analyze("refund $20 of pi_3NxYz2LkdIwHu7ix0 for cus_Q1w2e3 (not snake_case or my_repo)");
        assert_eq!(r.id_prefixes, ["pi", "cus"]);
        assert!(!r.text.contains("pi"));
        assert!(r.text.contains("snake_case"));
    }
}
