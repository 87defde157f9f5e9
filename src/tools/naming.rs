//! Tool and argument names: portable, readable, unique and stable.
//!
//! Clients are stricter than the MCP spec (OpenAI and Claude Desktop: `^[a-zA-Z0-9_-]{1,64}$`,
//! Gemini: a leading letter or `_`), so names are sanitised to `^[a-zA-Z_][a-zA-Z0-9_-]{0,N-1}$`.

use std::collections::{BTreeSet, HashMap};

use shorten::{Context, Frequency};

use crate::ir::{ApiIr, Function, Operation};
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

/// The tool names of `ir`'s operations, then of its functions (unbound), each at most `max`
/// characters: every operation and function is named, hidden or not, so that neither hiding nor
/// filtering renames a tool.
pub(crate) fn tool_names(ir: &ApiIr, max: usize) -> Vec<String> {
    NameAllocator::new(max).allocate_all(&wanted_names(ir))
}

/// The names `ir`'s operations and functions ask for, sanitised, in [`tool_names`]' order.
fn wanted_names(ir: &ApiIr) -> Vec<Wanted> {
    let function = |f: &Function| Wanted::new(sanitize(f.mcp.name.as_deref().unwrap_or(&f.name)), None);
    ir.operations
        .iter()
        .map(|op| match &op.function {
            Some(f) => function(f),
            None => Wanted::operation(op),
        })
        .chain(ir.functions.iter().map(function))
        .collect()
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

/// Shortens a sanitised name to at most `max` characters by dropping whole words
/// ([`shorten::drop_words`], without the API's other names to weigh its words by), or, when no
/// whole-word dropping reaches `max`, [`with_hash`].
pub(crate) fn shorten(name: &str, max: usize) -> String {
    let shorter = shorten::drop_words(name, max, &Context::default(), &BTreeSet::new());
    if shorter.len() <= max { shorter } else { with_hash(&shorter, name, max) }
}

/// The last resort, for a name that dropping whole words cannot bring within `max` (a single
/// word too long, or words that must all stay to tell it from another): its first whole words
/// that fit, then `_` and a stable 8-digit hash of the name it was wanted as (`wanted`).
fn with_hash(shorter: &str, wanted: &str, max: usize) -> String {
    // Eight digits, fewer when the limit leaves no room for a letter before them.
    let mut hash = format!("{:08x}", fnv1a(wanted.as_bytes()));
    hash.truncate(max.saturating_sub(2).clamp(1, 8));
    let room = max.saturating_sub(hash.len() + 1).max(1);
    let mut end = 0;
    for (i, c) in shorter.char_indices() {
        if i > room {
            break;
        }
        let boundary = matches!(c, '_' | '-')
            || (c.is_ascii_uppercase() && shorter[..i].ends_with(|p: char| p.is_ascii_lowercase()));
        if boundary && i > 0 {
            end = i;
        }
    }
    if end == 0 {
        // One word longer than the room: cut inside it.
        end = shorter.char_indices().map(|(i, _)| i).take_while(|&i| i <= room).last().unwrap_or(0).max(1);
        end = end.min(shorter.len());
    }
    let head = shorter[..end].trim_end_matches(['_', '-']);
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

/// What a tool's name is made from: the name it asks for (sanitised) and its operation's first
/// tag, which a group word of the name may be.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Wanted {
    pub name: String,
    pub tag: Option<String>,
    /// Words its operation has beyond its name (its fixed query, `view_ymp`), which tell it from
    /// an operation that asks for the same name when both must be shortened.
    pub also: Option<String>,
}

impl Wanted {
    pub(crate) fn new(name: impl Into<String>, tag: Option<&str>) -> Self {
        Wanted { name: name.into(), tag: tag.map(str::to_string), also: None }
    }

    /// The name of an operation: with its fixed query's words, if it has one.
    fn operation(op: &Operation) -> Self {
        let query: Vec<String> = op.fixed_query.iter().flat_map(|(k, v)| [k.clone(), v.clone()]).collect();
        let also = Some(sanitize(&query.join("_"))).filter(|_| !query.is_empty());
        Wanted { also, ..Wanted::new(sanitize(&desired_name(op)), op.tags.first().map(String::as_str)) }
    }
}

/// Hands out unique names within `max` characters. Names that fit are handed out as they always
/// were, in order, a name taken getting `_2`, `_3`, ...; then longer names are shortened by
/// dropping whole words, and one that shortens to a name taken keeps the words that tell it from
/// that name's (`…-definitions` and `…-definition` stay apart by their last word, never by a
/// number).
#[derive(Debug, Default)]
pub(crate) struct NameAllocator {
    /// Each name handed out, with the name it was wanted as.
    used: HashMap<String, String>,
    max: usize,
}

/// Tries at keeping more words before a name is told apart by a hash.
const RETRIES: usize = 16;

impl NameAllocator {
    pub(crate) fn new(max: usize) -> Self {
        NameAllocator { used: HashMap::new(), max }
    }

    /// Names for `wanted`, in its order (see [`NameAllocator`]).
    pub(crate) fn allocate_all(&mut self, wanted: &[Wanted]) -> Vec<String> {
        let max = self.max;
        let mut out = vec![String::new(); wanted.len()];
        for (i, w) in wanted.iter().enumerate().filter(|(_, w)| w.name.len() <= max) {
            out[i] = self.numbered(&w.name, &w.name);
        }
        let frequency = Frequency::of(wanted.iter().map(|w| w.name.as_str()));
        // The names that need least shortening first: a longer one, with more words to drop,
        // has more ways to differ.
        let mut long: Vec<usize> = (0..wanted.len()).filter(|&i| wanted[i].name.len() > max).collect();
        long.sort_by_key(|&i| (wanted[i].name.len(), i));
        for i in long {
            out[i] = self.shortened(&wanted[i], &frequency);
        }
        out
    }

    /// `name` (a name that fits, or one shortened already) if it is free, else `name_2`, `name_3`,
    /// ... (shortened to leave the number room).
    fn numbered(&mut self, name: &str, wanted: &str) -> String {
        let mut candidate = name.to_string();
        let mut n = 1;
        while self.used.contains_key(&candidate) {
            n += 1;
            let suffix = format!("_{n}");
            candidate = format!("{}{suffix}", shorten(name, self.max.saturating_sub(suffix.len())));
        }
        self.used.insert(candidate.clone(), wanted.to_string());
        candidate
    }

    /// A name too long, shortened (see [`NameAllocator`]). When it shortens to a name taken, it
    /// keeps one more of the words it dropped, one that the other name lacks if it can (the
    /// rarest in the API first, so that it says most), and tries again.
    fn shortened(&mut self, w: &Wanted, frequency: &Frequency) -> String {
        let ctx = Context { tag: w.tag.as_deref(), frequency: Some(frequency) };
        let words = name_parts(&w.name);
        let mut keep: BTreeSet<usize> = BTreeSet::new();
        let (mut candidate, mut dropped) = shorten::dropping(&w.name, self.max, &ctx, &keep);
        for _ in 0..RETRIES {
            if candidate.len() > self.max {
                break;
            }
            let Some(owner) = self.used.get(&candidate) else {
                self.used.insert(candidate.clone(), w.name.clone());
                return candidate;
            };
            if *owner == w.name {
                // The same name wanted twice: the words of its operation beyond its name tell it
                // apart; without any, a number does, as for names that fit.
                return match &w.also {
                    Some(also) => {
                        let more = Wanted { name: format!("{}_{also}", w.name), tag: w.tag.clone(), also: None };
                        self.shortened(&more, frequency)
                    }
                    None => self.numbered(&candidate, &w.name),
                };
            }
            // Keep one of the words dropped: one the other name lacks if it can, the rarest first.
            let lacked = beyond(&words, owner);
            let mut options: Vec<usize> = dropped.iter().copied().filter(|i| !keep.contains(i)).collect();
            options.sort_by_key(|i| (!lacked.contains(i), frequency.word(words[*i]), *i));
            let tries: Vec<(BTreeSet<usize>, String, BTreeSet<usize>)> = options
                .into_iter()
                .map(|i| {
                    let mut more = keep.clone();
                    more.insert(i);
                    let (c, d) = shorten::dropping(&w.name, self.max, &ctx, &more);
                    (more, c, d)
                })
                .filter(|(_, c, _)| c.len() <= self.max && *c != candidate)
                .collect();
            // A free name if keeping one word gives one, else the first that differs, to go on from.
            let free = tries.iter().position(|(_, c, _)| !self.used.contains_key(c));
            let Some(next) = free.or((!tries.is_empty()).then_some(0)) else { break };
            (keep, candidate, dropped) = tries[next].clone();
        }
        // The last resort: no whole-word dropping fits, or tells this name apart.
        let hashed = with_hash(&candidate, &w.name, self.max);
        self.numbered(&hashed, &w.name)
    }
}

/// The positions of `words` that `other` does not show: a word's n-th time, when `other` has it
/// fewer than n times.
fn beyond(words: &[&str], other: &str) -> BTreeSet<usize> {
    let mut left: HashMap<String, usize> = HashMap::new();
    for p in name_parts(other) {
        *left.entry(p.to_ascii_lowercase()).or_default() += 1;
    }
    let mut out = BTreeSet::new();
    for (i, w) in words.iter().enumerate() {
        match left.get_mut(&w.to_ascii_lowercase()) {
            Some(n) if *n > 0 => *n -= 1,
            _ => {
                out.insert(i);
            }
        }
    }
    out
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

mod shorten;

#[cfg(test)]
mod sweep;

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
    fn shortening_drops_whole_words_then_hashes() {
        let long = "microsoft_graph_user_get_mail_folders_child_folders_messages_attachments_by_id";
        let s = shorten(long, 64);
        assert_eq!(s, "microsoft_graph_user_mail_folders_child_messages_attachments_id");
        let very = "x".repeat(200);
        let s = shorten(&very, 64);
        assert_eq!(s.len(), 64);
        assert_eq!(s, shorten(&very, 64), "stable");
        assert!(s.ends_with(&format!("_{:08x}", fnv1a(very.as_bytes()))));
        // Whole words before the hash, when a word must be cut.
        let s = shorten(&format!("first_{}_last", "y".repeat(80)), 40);
        assert!(s.starts_with("first_") && s.len() <= 40, "{s}");
    }

    fn allocate(names: &mut NameAllocator, wanted: &[&str]) -> Vec<String> {
        names.allocate_all(&wanted.iter().map(|w| Wanted::new(*w, None)).collect::<Vec<_>>())
    }

    #[test]
    fn allocator_numbers_names_that_fit_as_it_always_did() {
        let mut a = NameAllocator::new(10);
        assert_eq!(allocate(&mut a, &["get_user", "get_user", "get_user"]), ["get_user", "get_user_2", "get_user_3"]);
        let n = allocate(&mut a, &["abcdefghij", "abcdefghij"]);
        assert_eq!(n[0], "abcdefghij");
        assert!(n[1].len() <= 10 && n[1].ends_with("_2"), "{n:?}");
    }

    #[test]
    fn allocator_tells_long_names_apart_by_a_word_never_a_number() {
        // Each would be `things_list-all-owner-name` without its small word: the second keeps it.
        let mut a = NameAllocator::new(26);
        let names = allocate(&mut a, &["things_list-all-by-owner-name", "things_list-all-for-owner-name"]);
        assert_eq!(names, ["things_list-all-owner-name", "things_list-for-owner-name"]);
        // A name that fits keeps it, even when a long one listed before it would shorten to it.
        let mut a = NameAllocator::new(22);
        let names = allocate(&mut a, &["alpha_beta_of_gamma_delta", "alpha_beta_gamma_delta"]);
        assert_eq!(names, ["alpha_of_gamma_delta", "alpha_beta_gamma_delta"]);
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
