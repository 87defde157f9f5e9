//! Path templates from recorded paths: segments that vary across requests become named path
//! parameters (`/users/{user}/orders/{order}`).
//!
//! A segment is a parameter when
//! 1. it looks like an identifier: a number, a UUID, a date, an email, or a token of 8 or more
//!    letters, digits, `-` and `_` with at least 3 digits; or
//! 2. another path of the same length, equal everywhere else (parameters counting as equal, and
//!    sharing at least one literal segment), has another value there, and either one of the
//!    values looks like an identifier, or the values are all slugs (with a `-`, `_` or digit),
//!    or one of them is a slug with a digit.
//!
//! Rule 2 is applied until nothing changes. Plain words (`findByStatus`, `findByTags`, `balance`)
//! stay literal, however many: they are more likely operations than values. A parameter is named after the
//! literal segment before it, made singular (`users` -> `user`), else `id`; names repeat with a
//! number (`user2`).

use std::collections::{BTreeMap, BTreeSet};

use crate::infer;

/// Whether a segment looks like an identifier (rule 1).
pub(crate) fn is_id_like(segment: &str) -> bool {
    if !segment.is_empty() && segment.bytes().all(|b| b.is_ascii_digit()) {
        return true;
    }
    if ["uuid", "date", "date-time", "email"].iter().any(|f| infer::has_format(segment, f)) {
        return true;
    }
    let digits = segment.bytes().filter(u8::is_ascii_digit).count();
    segment.len() >= 8 && digits >= 3 && segment.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

fn is_slug(segment: &str) -> bool {
    segment.contains(['-', '_']) || segment.bytes().any(|b| b.is_ascii_digit())
}

/// For each path (its segments), which positions are parameters.
pub(crate) fn variable_positions(paths: &[Vec<String>]) -> Vec<Vec<bool>> {
    let mut vars: Vec<Vec<bool>> = paths.iter().map(|p| p.iter().map(|s| is_id_like(s)).collect()).collect();
    let max_len = paths.iter().map(Vec::len).max().unwrap_or(0);
    for _round in 0..=max_len {
        let mut changed = false;
        for i in 0..max_len {
            // Paths with a segment at `i`, grouped by everything else.
            let mut groups: BTreeMap<Vec<String>, Vec<usize>> = BTreeMap::new();
            for (k, p) in paths.iter().enumerate().filter(|(_, p)| p.len() > i) {
                let key: Vec<String> = p
                    .iter()
                    .enumerate()
                    .map(|(j, s)| {
                        if j == i {
                            "\u{0}".into()
                        } else if vars[k][j] {
                            "{}".into()
                        } else {
                            s.clone()
                        }
                    })
                    .chain(std::iter::once(p.len().to_string()))
                    .collect();
                groups.entry(key).or_default().push(k);
            }
            for (key, members) in &groups {
                // The rest of the path must share a literal segment: values that vary beside
                // parameters only (`/users/{}` and `/items/{}`) are different resources.
                let shares_literal = key.iter().rev().skip(1).any(|s| s != "{}" && s != "\u{0}");
                if !shares_literal {
                    continue;
                }
                let values: BTreeSet<&str> = members.iter().map(|k| paths[*k][i].as_str()).collect();
                if values.len() < 2 {
                    continue;
                }
                let strong = values.iter().any(|v| is_id_like(v))
                    || values.iter().all(|v| is_slug(v))
                    || values.iter().any(|v| v.bytes().any(|b| b.is_ascii_digit()) && is_slug(v))
                    || members.iter().any(|k| vars[*k][i]);
                if !strong {
                    continue;
                }
                for k in members {
                    if !vars[*k][i] {
                        vars[*k][i] = true;
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    vars
}

/// A path's template, given which positions are parameters: `/users/{user}`.
pub(crate) fn template(segments: &[String], vars: &[bool]) -> (String, Vec<String>) {
    let mut names: Vec<String> = Vec::new();
    let mut parts = Vec::new();
    let mut last_literal: Option<&str> = None;
    for (s, is_var) in segments.iter().zip(vars) {
        if !is_var {
            last_literal = Some(s);
            parts.push(s.clone());
            continue;
        }
        let base = last_literal.map(singular).filter(|n| !n.is_empty()).unwrap_or_else(|| "id".into());
        let mut name = base.clone();
        let mut n = 2;
        while names.contains(&name) {
            name = format!("{base}{n}");
            n += 1;
        }
        parts.push(format!("{{{name}}}"));
        names.push(name);
    }
    (format!("/{}", parts.join("/")), names)
}

/// A path word made singular and a name: `categories` -> `category`, `users` -> `user`,
/// `api-keys` -> `api_key`.
fn singular(word: &str) -> String {
    let w: String =
        word.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' }).collect();
    let w = w.trim_matches('_');
    let s = if let Some(stem) = w.strip_suffix("ies") {
        format!("{stem}y")
    } else if w.ends_with("sses") || w.ends_with("xes") || w.ends_with("ches") || w.ends_with("shes") {
        w[..w.len() - 2].to_string()
    } else if w.ends_with('s') && !w.ends_with("ss") && w.len() > 1 {
        w[..w.len() - 1].to_string()
    } else {
        w.to_string()
    };
    if s.starts_with(|c: char| c.is_ascii_digit()) { format!("id_{s}") } else { s }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn templates(paths: &[&str]) -> Vec<String> {
        let split: Vec<Vec<String>> =
            paths.iter().map(|p| p.split('/').filter(|s| !s.is_empty()).map(str::to_string).collect()).collect();
        let vars = variable_positions(&split);
        split.iter().zip(&vars).map(|(p, v)| template(p, v).0).collect()
    }

    #[test]
    fn ids_and_slugs() {
        let t = templates(&[
            "/users/42/orders/7",
            "/users/43/orders/9",
            "/users/42",
            "/articles/hello-world",
            "/articles/rust-is-fun",
            "/pet/findByStatus",
            "/pet/findByTags",
            "/items/6f1c1c4e-8a5b-4c1d-9f2e-3b7a2d1e0c9f",
            "/categories/a/x",
            "/categories/b/x",
            "/categories/c/x",
            "/send",
            "/sendbatch",
            "/balance",
        ]);
        assert_eq!(t[0], "/users/{user}/orders/{order}");
        assert_eq!(t[1], "/users/{user}/orders/{order}");
        assert_eq!(t[2], "/users/{user}");
        assert_eq!(t[3], "/articles/{article}");
        assert_eq!(t[5], "/pet/findByStatus");
        assert_eq!(t[7], "/items/{item}");
        assert_eq!(t[8], "/categories/a/x");
        assert_eq!(t[12], "/sendbatch");
    }

    #[test]
    fn names() {
        assert_eq!(singular("addresses"), "address");
        assert_eq!(singular("api-keys"), "api_key");
        assert_eq!(template(&["a".into(), "1".into(), "2".into()], &[false, true, true]).0, "/a/{a}/{a2}");
        assert_eq!(template(&["1".into()], &[true]).0, "/{id}");
    }
}
