//! Tool and argument names: portable, readable, unique and stable.
//!
//! Clients are stricter than the MCP spec (OpenAI and Claude Desktop: `^[a-zA-Z0-9_-]{1,64}$`,
//! Gemini: a leading letter or `_`), so names are sanitised to `^[a-zA-Z_][a-zA-Z0-9_-]{0,N-1}$`.

use std::collections::HashSet;

use crate::ir::Operation;
use crate::names::{name_parts, snake_case};

/// The name an operation asks for, before sanitising: `x-mcp.name`, the operationId, or else
/// [`path_name`].
pub(crate) fn desired_name(op: &Operation) -> String {
    if let Some(n) = op.mcp.name.as_deref().or(op.operation_id.as_deref()) {
        // An id that is mostly non-ASCII (`ｇｅｔ＿名前`) says little once sanitised: use the path.
        if n.chars().filter(char::is_ascii_alphanumeric).count() >= 3 {
            return n.to_string();
        }
    }
    path_name(op.method.key(), &op.path)
}

/// A readable snake_case name from the method and the path: path parameters become `by_<name>`
/// (`GET /users/{userId}/repos` -> `get_users_by_user_id_repos`); a path without words is `root`.
pub(crate) fn path_name(method: &str, path: &str) -> String {
    let mut words = vec![snake_case(method)];
    let mut push = |text: &str, prefix: &str| {
        let word = snake_case(text);
        if !word.is_empty() {
            words.push(format!("{prefix}{word}"));
        }
    };
    let mut rest = path;
    while let Some(open) = rest.find('{') {
        push(&rest[..open], "");
        let param = &rest[open + 1..];
        let close = param.find('}').unwrap_or(param.len());
        push(&param[..close], "by_");
        rest = param.get(close + 1..).unwrap_or_default();
    }
    push(rest, "");
    if words.len() == 1 {
        words.push("root".to_string());
    }
    words.join("_")
}

/// Replaces characters outside `[A-Za-z0-9_-]` by `_`, collapses runs, trims, and makes the
/// first character a letter or `_`.
pub(crate) fn sanitize(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for c in raw.chars() {
        let c = if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' };
        if (c == '_' || c == '-') && out.ends_with(['_', '-']) {
            continue;
        }
        out.push(c);
    }
    let trimmed = out.trim_matches(['_', '-']);
    let mut name = trimmed.to_string();
    if name.is_empty() {
        name = "tool".to_string();
    }
    if !name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        name.insert(0, '_');
    }
    name
}

/// Shortens a sanitised name to at most `max` characters: first by abbreviating each word,
/// then by cutting and appending a short stable hash of the full name.
pub(crate) fn shorten(name: &str, max: usize) -> String {
    if name.len() <= max {
        return name.to_string();
    }
    let words = name_parts(name);
    for width in (3..=12).rev().filter(|_| words.len() > 1) {
        let candidate: String = words.iter().map(|w| &w[..w.len().min(width)]).collect::<Vec<_>>().join("_");
        if candidate.len() <= max {
            return candidate;
        }
    }
    let hash = format!("{:08x}", fnv1a(name.as_bytes()));
    let keep = max.saturating_sub(hash.len() + 1).max(1);
    let head = name[..keep].trim_end_matches(['_', '-']);
    format!("{head}_{hash}")
}

/// FNV-1a: a tiny hash whose value never changes between Rust versions (unlike `DefaultHasher`).
pub(crate) fn fnv1a(bytes: &[u8]) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in bytes {
        h ^= u32::from(*b);
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

/// Hands out unique names in call order: a taken name gets `_2`, `_3`, ... (still within `max`).
#[derive(Debug, Default)]
pub(crate) struct NameAllocator {
    used: HashSet<String>,
    max: usize,
}

impl NameAllocator {
    pub(crate) fn new(max: usize) -> Self {
        NameAllocator { used: HashSet::new(), max }
    }

    pub(crate) fn allocate(&mut self, desired: &str) -> String {
        let base = shorten(desired, self.max);
        if self.used.insert(base.clone()) {
            return base;
        }
        for n in 2.. {
            let suffix = format!("_{n}");
            let head = shorten(&base, self.max - suffix.len());
            let candidate = format!("{head}{suffix}");
            if self.used.insert(candidate.clone()) {
                return candidate;
            }
        }
        unreachable!("an unbounded counter always finds a free name")
    }
}

/// An input property name for a wire name (parameter or body field): `[A-Za-z0-9_.-]`, at most
/// 64 characters (Anthropic's and OpenAI's limit for property keys).
pub(crate) fn arg_name(wire: &str) -> String {
    let mut out = String::with_capacity(wire.len());
    for c in wire.chars() {
        let c = if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') { c } else { '_' };
        if c == '_' && out.ends_with('_') {
            continue;
        }
        out.push(c);
    }
    let trimmed = out.trim_matches('_');
    let name = if trimmed.is_empty() { "param".to_string() } else { trimmed.to_string() };
    shorten(&name, 64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_names_are_snake_case() {
        let cases = [
            ("get", "/collection/{collection_id}", "get_collection_by_collection_id"),
            ("get", "/users/{userId}/repos", "get_users_by_user_id_repos"),
            ("post", "/v1/customers/{customer}/sources", "post_v1_customers_by_customer_sources"),
            ("get", "/chat.postMessage", "get_chat_post_message"),
            ("delete", "/items/{item-id}", "delete_items_by_item_id"),
            ("get", "/", "get_root"),
            ("get", "", "get_root"),
            ("put", "//a--b__c..d//", "put_a_b_c_d"),
            ("get", "/HTTPStatus/{ID}", "get_http_status_by_id"),
            // Templates inside a segment, Google style; an unclosed brace is a parameter to the end.
            ("post", "/v1/{+name}:cancel", "post_v1_by_name_cancel"),
            ("get", "/files/{name}.json", "get_files_by_name_json"),
            ("get", "/a/{}/b", "get_a_b"),
            ("get", "/a/{open", "get_a_by_open"),
        ];
        for (method, path, want) in cases {
            assert_eq!(path_name(method, path), want, "{method} {path}");
            assert_eq!(sanitize(want), want, "already sanitised");
        }
    }

    #[test]
    fn ids_are_kept_as_they_are() {
        let mut op = Operation {
            pointer: "#/paths/~1pets~1{petId}/get".into(),
            method: crate::ir::Method::Get,
            path: "/pets/{petId}".into(),
            fixed_query: vec![],
            operation_id: None,
            summary: None,
            description: None,
            tags: vec![],
            deprecated: false,
            parameters: vec![],
            request_body: None,
            response: None,
            security: None,
            servers: vec![],
            mcp: Default::default(),
            function: None,
        };
        assert_eq!(desired_name(&op), "get_pets_by_pet_id");
        op.operation_id = Some("listPets".into());
        assert_eq!(desired_name(&op), "listPets");
        op.mcp.name = Some("Pets-List".into());
        assert_eq!(desired_name(&op), "Pets-List");
        op.mcp.name = None;
        op.operation_id = Some("ｇｅｔ＿名前".into());
        assert_eq!(desired_name(&op), "get_pets_by_pet_id");
    }

    #[test]
    fn sanitizing() {
        assert_eq!(sanitize("getPetById"), "getPetById");
        assert_eq!(sanitize("actions/create-or-update"), "actions_create-or-update");
        assert_eq!(sanitize("1st thing"), "_1st_thing");
        assert_eq!(sanitize("a..b//c"), "a_b_c");
        assert_eq!(sanitize("日本"), "tool");
        assert_eq!(sanitize("__x__"), "x");
    }

    #[test]
    fn shortening_is_readable_then_hashed() {
        let long = "microsoft_graph_user_get_mail_folders_child_folders_messages_attachments_by_id";
        let s = shorten(long, 64);
        assert!(s.len() <= 64, "{s}");
        assert_eq!(s, "micro_graph_user_get_mail_folde_child_folde_messa_attac_by_id");
        let very = "x".repeat(200);
        let s = shorten(&very, 64);
        assert_eq!(s.len(), 64);
        assert_eq!(s, shorten(&very, 64), "stable");
        assert!(s.ends_with(&format!("{:08x}", fnv1a(very.as_bytes()))));
    }

    #[test]
    fn allocator_dedupes() {
        let mut a = NameAllocator::new(10);
        assert_eq!(a.allocate("get_user"), "get_user");
        assert_eq!(a.allocate("get_user"), "get_user_2");
        assert_eq!(a.allocate("get_user"), "get_user_3");
        assert_eq!(
            a.allocate("abcdefghijk"),
            "abcdefghijk".chars().take(0).collect::<String>() + &shorten("abcdefghijk", 10)
        );
        let n = a.allocate("abcdefghijk");
        assert!(n.len() <= 10 && n.ends_with("_2"), "{n}");
    }

    #[test]
    fn arg_names() {
        assert_eq!(arg_name("$select"), "select");
        assert_eq!(arg_name("filter[name]"), "filter_name");
        assert_eq!(arg_name("X-Request-ID"), "X-Request-ID");
        assert_eq!(arg_name("api.version"), "api.version");
        assert_eq!(arg_name("$"), "param");
    }
}
