//! Recorded credentials as security schemes: an `Authorization` header, an API-key header, a
//! session cookie, an API-key query parameter. Only their names and kinds are kept; the values
//! recorded are never read past recognising the scheme (`Bearer ...`), so no output can show them.

use std::collections::BTreeMap;

use serde_json::{Value, json};

/// Header names that carry an API key or a token (lower case), besides `Authorization`.
const KEY_HEADERS: [&str; 9] =
    ["x-api-key", "api-key", "apikey", "x-apikey", "x-auth-token", "x-access-token", "x-token", "x-auth", "x-key"];

/// Query parameter names that carry an API key or a token (lower case).
const KEY_QUERY: [&str; 7] = ["api_key", "apikey", "api-key", "key", "access_token", "token", "auth_token"];

/// Words that make a cookie a session's (lower case, anywhere in the name).
const SESSION_COOKIE_WORDS: [&str; 7] = ["session", "sess", "sid", "token", "auth", "jwt", "login"];

/// A credential found in a request: the scheme's name and its OpenAPI object.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Credential {
    pub name: String,
    pub scheme: Value,
}

fn slug(text: &str) -> String {
    let s: String =
        text.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' }).collect();
    s.trim_matches('_').to_string()
}

/// The credential an HTTP `Authorization` value stands for, by its scheme word (`Bearer`, `Basic`,
/// anything else); a value with no scheme word is taken as a bearer token.
pub(crate) fn authorization(value: &str) -> Credential {
    let word = value.split_whitespace().next().unwrap_or("").to_ascii_lowercase();
    let has_word = value.trim().contains(' ') && word.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    match word.as_str() {
        "basic" => http("basic"),
        "bearer" => http("bearer"),
        _ if has_word && !word.is_empty() => http(&word),
        _ => http("bearer"),
    }
}

/// An `http` scheme (`bearerAuth`, `basicAuth`, `digestAuth`).
pub(crate) fn http(scheme: &str) -> Credential {
    Credential { name: format!("{}Auth", slug(scheme)), scheme: json!({"type": "http", "scheme": scheme}) }
}

/// An `apiKey` scheme for `name` in `place` (`header`, `query`, `cookie`).
pub(crate) fn api_key(name: &str, place: &str) -> Credential {
    let scheme_name = match place {
        "header" => slug(name),
        other => format!("{}_{other}", slug(name)),
    };
    Credential { name: scheme_name, scheme: json!({"type": "apiKey", "name": name, "in": place}) }
}

/// The credential a request header carries, if it is one: `Authorization` or an API-key header.
pub(crate) fn of_header(name: &str, value: &str) -> Option<Credential> {
    let lower = name.to_ascii_lowercase();
    if lower == "authorization" {
        return Some(authorization(value));
    }
    let keyish = KEY_HEADERS.contains(&lower.as_str())
        || lower.ends_with("-api-key")
        || lower.ends_with("-apikey")
        || (lower.starts_with("x-") && lower.ends_with("-token"));
    keyish.then(|| api_key(name, "header"))
}

/// Whether a query parameter is a credential.
pub(crate) fn is_key_query(name: &str) -> bool {
    KEY_QUERY.contains(&name.to_ascii_lowercase().as_str())
}

/// Whether a cookie is a session's (then it becomes a credential; other cookies are dropped).
pub(crate) fn is_session_cookie(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    SESSION_COOKIE_WORDS.iter().any(|w| lower.contains(w))
}

/// The names of the cookies of a `Cookie` header (`a=1; b=2`), values left unread.
pub(crate) fn cookie_names(header: &str) -> Vec<String> {
    header
        .split(';')
        .filter_map(|pair| pair.split_once('=').map(|(n, _)| n.trim().to_string()))
        .filter(|n| !n.is_empty())
        .collect()
}

/// Headers that are the client's business, never parameters (lower case).
pub(crate) fn is_transport_header(name: &str) -> bool {
    const SKIPPED: [&str; 22] = [
        "accept",
        "accept-encoding",
        "accept-language",
        "cache-control",
        "connection",
        "content-length",
        "content-type",
        "cookie",
        "host",
        "origin",
        "pragma",
        "referer",
        "user-agent",
        "te",
        "upgrade-insecure-requests",
        "dnt",
        "priority",
        "if-none-match",
        "if-modified-since",
        "authorization",
        "x-requested-with",
        "postman-token",
    ];
    let lower = name.to_ascii_lowercase();
    lower.starts_with(':') || lower.starts_with("sec-") || SKIPPED.contains(&lower.as_str())
}

/// The schemes an API has collected, by name, and the requirement sets built of them.
#[derive(Debug, Default)]
pub(crate) struct Schemes {
    pub schemes: BTreeMap<String, Value>,
}

impl Schemes {
    /// Keeps a credential's scheme; a different scheme under a taken name gets a numbered one.
    /// Returns the name it is kept under.
    pub(crate) fn add(&mut self, c: Credential) -> String {
        let mut name = c.name.clone();
        let mut n = 2;
        while let Some(existing) = self.schemes.get(&name) {
            if *existing == c.scheme {
                return name;
            }
            name = format!("{}{n}", c.name);
            n += 1;
        }
        self.schemes.insert(name.clone(), c.scheme);
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds() {
        assert_eq!(authorization("Bearer abc").name, "bearerAuth");
        assert_eq!(authorization("Basic YTpi").name, "basicAuth");
        assert_eq!(authorization("Digest x=y").name, "digestAuth");
        assert_eq!(authorization("abc").name, "bearerAuth");
        assert_eq!(of_header("X-API-Key", "k").map(|c| c.name), Some("x_api_key".into()));
        assert_eq!(of_header("X-Trace", "k"), None);
        assert!(is_session_cookie("sessionid") && !is_session_cookie("_ga"));
        assert_eq!(cookie_names("a=1; b=2;c"), ["a", "b"]);
        let mut s = Schemes::default();
        assert_eq!(s.add(api_key("key", "query")), "key_query");
        assert_eq!(s.add(api_key("key", "query")), "key_query");
    }
}
