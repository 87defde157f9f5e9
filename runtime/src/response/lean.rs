//! The lean rendering's rules: what a JSON result drops before the model reads it. Each rule
//! removes only what links back into the API itself, which the tools reach already:
//! - `own_urls`: a member whose value is a URL on the upstream's own origin (GitHub's `url`,
//!   `comments_url`, `statuses_url`..., URI templates like `.../issues{/number}` included);
//!   `html_url` points at the website, another origin, and stays;
//! - `links`: in a HAL `_links` or JSON:API `links` object, the entries that point into the API
//!   (on its origin, or a relative path); the object goes when nothing else is left.
//!
//! `null`s stay: `merged_at: null` says the pull request is not merged.

use crate::response::json::Json;

/// What the rules removed: members and characters, per rule.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct LeanStats {
    /// Members whose value was a URL on the upstream's origin.
    pub own_urls: usize,
    /// Characters they took.
    pub own_url_chars: usize,
    /// Link entries (and emptied link objects) removed.
    pub links: usize,
    /// Characters they took.
    pub link_chars: usize,
}

/// Applies the rules to `value` for an upstream at `origin` (`https://api.github.com`, no
/// trailing slash; empty: no origin known, and only relative links count).
pub fn lean(value: &mut Json, origin: &str) -> LeanStats {
    let mut stats = LeanStats::default();
    walk(value, origin, &mut stats);
    stats
}

fn walk(value: &mut Json, origin: &str, stats: &mut LeanStats) {
    match value {
        Json::Arr(items) => items.iter_mut().for_each(|item| walk(item, origin, stats)),
        Json::Obj(members) => {
            members.retain_mut(|(key, v)| {
                if let Json::Str(s) = v
                    && is_own_url(s, origin)
                {
                    stats.own_urls += 1;
                    stats.own_url_chars += member_chars(key, v);
                    return false;
                }
                if (key == "_links" || key == "links") && matches!(v, Json::Obj(_)) {
                    let before = member_chars(key, v);
                    let removed = drop_api_links(v, origin);
                    stats.links += removed;
                    if matches!(v, Json::Obj(m) if m.is_empty()) {
                        stats.links += 1;
                        stats.link_chars += before;
                        return false;
                    }
                    stats.link_chars += before - member_chars(key, v);
                    return true;
                }
                walk(v, origin, stats);
                true
            });
        }
        _ => {}
    }
}

/// Characters a member takes in an object (its key, the colon, its value and a comma).
fn member_chars(key: &str, value: &Json) -> usize {
    crate::response::json::str_chars(key) + 2 + value.chars()
}

/// Removes the entries of a link object that point into the API; how many went.
fn drop_api_links(links: &mut Json, origin: &str) -> usize {
    let Json::Obj(members) = links else { return 0 };
    let before = members.len();
    members.retain(|(_, v)| !points_into_api(v, origin));
    before - members.len()
}

/// A link (`"url"`, `{"href": "url", ...}`, or a list of them) into the API.
fn points_into_api(link: &Json, origin: &str) -> bool {
    let into = |s: &str| is_own_url(s, origin) || (s.starts_with('/') && !s.starts_with("//"));
    match link {
        Json::Str(s) => into(s),
        Json::Obj(_) => link.get("href").and_then(Json::as_str).is_some_and(into),
        Json::Arr(items) => !items.is_empty() && items.iter().all(|i| points_into_api(i, origin)),
        _ => false,
    }
}

/// `s` is `origin` itself or a URL (or URI template) under it.
pub fn is_own_url(s: &str, origin: &str) -> bool {
    if origin.is_empty() || s.len() < origin.len() || !s.is_char_boundary(origin.len()) {
        return false;
    }
    let (head, rest) = s.split_at(origin.len());
    head.eq_ignore_ascii_case(origin) && (rest.is_empty() || rest.starts_with(['/', '?', '{', '#']))
}

/// The origin of a URL, as lean compares it: `scheme://host[:port]`.
pub fn origin_of(url: &reqwest::Url) -> String {
    url.origin().ascii_serialization()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaned(text: &str) -> (String, LeanStats) {
        let mut j = Json::parse(text.as_bytes()).unwrap();
        let stats = lean(&mut j, "https://api.github.com");
        (j.to_text(), stats)
    }

    #[test]
    fn urls_on_the_apis_origin_go() {
        let (text, stats) = leaned(
            r#"{"id":1,"url":"https://api.github.com/repos/o/r/pulls/1","html_url":"https://github.com/o/r/pull/1","issue_url":"https://API.github.com/repos/o/r/issues/1"}"#,
        );
        assert_eq!(text, r#"{"id":1,"html_url":"https://github.com/o/r/pull/1"}"#);
        assert_eq!(stats.own_urls, 2);
    }

    #[test]
    fn uri_templates_on_the_origin_go() {
        let (text, _) = leaned(r#"{"labels_url":"https://api.github.com{/name}","a":"x"}"#);
        assert_eq!(text, r#"{"a":"x"}"#);
    }

    #[test]
    fn another_host_that_starts_alike_stays() {
        let (text, _) = leaned(r#"{"u":"https://api.github.com.evil.example/x","v":"https://api.github.community"}"#);
        assert!(text.contains("evil") && text.contains("community"), "{text}");
    }

    #[test]
    fn nulls_and_nested_values_stay() {
        let (text, _) = leaned(r#"{"merged_at":null,"user":{"login":"o","url":"https://api.github.com/users/o"}}"#);
        assert_eq!(text, r#"{"merged_at":null,"user":{"login":"o"}}"#);
    }

    #[test]
    fn hal_links_into_the_api_go_and_the_others_stay() {
        let (text, stats) = leaned(
            r#"{"_links":{"self":{"href":"https://api.github.com/x"},"html":{"href":"https://github.com/x"},"comments":{"href":"/x/comments"}},"n":1}"#,
        );
        assert_eq!(text, r#"{"_links":{"html":{"href":"https://github.com/x"}},"n":1}"#);
        assert_eq!(stats.links, 2);
        let (text, stats) = leaned(r#"{"links":{"self":"/articles/1","related":"/articles/1/author"},"n":1}"#);
        assert_eq!(text, r#"{"n":1}"#);
        assert_eq!(stats.links, 3);
    }

    #[test]
    fn a_member_named_links_that_is_data_stays() {
        let (text, _) = leaned(r#"{"links":["https://example.com/a"],"x":{"links":{"a":"https://example.com"}}}"#);
        assert_eq!(text, r#"{"links":["https://example.com/a"],"x":{"links":{"a":"https://example.com"}}}"#);
    }

    #[test]
    fn no_origin_known_removes_nothing_but_relative_links() {
        let mut j = Json::parse(br#"{"url":"https://api.github.com/x","links":{"self":"/x"}}"#).unwrap();
        lean(&mut j, "");
        assert_eq!(j.to_text(), r#"{"url":"https://api.github.com/x"}"#);
    }
}
