//! Path templates from recorded paths: segments that vary across requests become named path
//! parameters (`/users/{user}/orders/{order}`).
//!
//! A segment is a parameter when
//! 1. it looks like an identifier: a number, a UUID, a date, an email, or a token of 8 or more
//!    letters, digits, `-` and `_` with at least 3 digits; or
//! 2. other paths of the same length, equal to it but for this segment and at most two others
//!    (parameters counting as equal, and sharing at least one literal segment), have other values
//!    at each of these positions, and at each one either one of the values looks like an
//!    identifier, or the values are all slugs (with a `-`, `_` or digit), or one of them is a
//!    slug with a digit; or, when the paths differ in this segment only, one of them is a
//!    parameter there already. Parameters side by side change together
//!    (`/repositories/abc/abc` and `/repositories/abc-1/abc-1`); or
//! 3. it is a parameter in another path with the same template before it and the same value; or
//! 4. (when rule 2 finds nothing more) it is not the path's first segment, and another value
//!    at this position, after the same template (with a literal segment in it), has requests of
//!    the same shape: for every rest of the path that follows both values and was requested with
//!    the same method, a successful request under one has the same body keys, status and
//!    response shape (JSON keys and their types, at the top level and one level down) as one
//!    under the other, and query parameter names that are the same or among the other's (an
//!    optional parameter left out); and at least one such pair is telling: its response has a
//!    key (an empty response or `{}` says nothing, and neither does a body alone: the body is
//!    the client's, and several operations take one model). A single rest that differs keeps
//!    the values apart: sibling resources with sub-resources of the same shape
//!    (`/audiences/{id}/metadata/filters`, `/conversations/{id}/metadata/filters`) differ by
//!    their own listings or items when those were requested. Values are what the path alone
//!    cannot tell from operations' words (`acme` and `globex` in
//!    `/repositories/acme/webapp/issues`): a client sends the same requests under each and gets
//!    the same kind of answer, while two operations take or return other things. Where two
//!    values at the position (after the same template) differ so, the position holds
//!    operations' words, and none of its values becomes a parameter by this rule: two
//!    operations may answer alike (`POST /positions` and `POST /webhooks`, both answering
//!    `{"data": {"id": 1}, "success": true}`). Operations that answer alike with no sibling
//!    answering otherwise are still read as values.
//!
//! Paths that differ in fewer segments are compared first (rule 2 explains a difference with as
//! few parameters as it can), and the rules are applied until nothing changes. A plain word (no
//! digit, `-` nor `_`) becomes a parameter by rule 2 only beside slugs with a digit and no
//! identifier, and only when it changes with the parameters before it (it is never seen after
//! another path that differs only where one of the two has a parameter, a slug or an
//! identifier): `export` in `/repositories/{}/{}/issues/export`, the same under every
//! repository, is an operation beside
//! `/repositories/{}/{}/issues/{issue}`, and so is `me` beside `/users/42`. Plain words alone
//! (`findByStatus`, `findByTags`, `balance`) stay literal, however many: they are more likely
//! operations than values. A parameter is named after the literal segment before it, made
//! singular (`users` -> `user`), else `id`; names repeat with a number (`user2`).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use crate::infer;

/// How many positions besides the one judged may differ between paths compared (rule 2).
const MAX_OTHER_DIFFERENCES: usize = 2;

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

fn has_digit(segment: &str) -> bool {
    segment.bytes().any(|b| b.is_ascii_digit())
}

/// A parameter in keys; a position compared.
const PARAM: &str = "{}";
const MASK: &str = "\u{0}";

/// Which values at one position of a group of paths rule 2 makes parameters.
#[derive(Clone, Copy)]
enum Take {
    /// Slugs and identifiers: the others are words beside identifiers (`me`, `export`).
    Slugs,
    /// Slugs, and plain words that change with the parameters before them.
    SlugsAndChangingWords,
}

/// What one request carried besides its path (rule 4): compared between sibling paths.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Shape {
    /// The method, the request body's keys, the response's status and the response's shape
    /// (its JSON keys and their types, at the top level and one level down).
    pub(crate) signature: String,
    /// The query parameters' names: an optional one may be left out of any call.
    pub(crate) query: BTreeSet<String>,
    /// Whether the response succeeded (2xx): a refused request says nothing of the operation.
    pub(crate) success: bool,
    /// Whether the response has a key: an empty response or `{}` says nothing, and a body
    /// alone is the client's (several operations take one model).
    pub(crate) telling: bool,
}

impl Shape {
    /// Two requests of one operation: the same signature and query names, or the names of one
    /// of them among the other's (optional parameters left out).
    fn matches(&self, other: &Shape) -> bool {
        self.signature == other.signature && (self.query.is_subset(&other.query) || other.query.is_subset(&self.query))
    }

    fn method(&self) -> &str {
        self.signature.split(' ').next().unwrap_or("")
    }
}

/// The distinct paths, each one's segments with its parameters marked, and the requests made
/// to it.
struct Paths<'a> {
    paths: Vec<&'a [String]>,
    vars: Vec<Vec<bool>>,
    shapes: Vec<Vec<&'a Shape>>,
}

impl Paths<'_> {
    fn norm(&self, k: usize, j: usize) -> &str {
        if self.vars[k][j] { PARAM } else { self.paths[k][j].as_str() }
    }

    /// The template before position `i` of path `k`.
    fn prefix(&self, k: usize, i: usize) -> Vec<&str> {
        (0..i).map(|j| self.norm(k, j)).collect()
    }

    fn mark(&mut self, k: usize, i: usize) -> bool {
        let changed = !self.vars[k][i];
        self.vars[k][i] = true;
        changed
    }
}

/// For each path (its segments), which positions are parameters. `shapes[k]`: what the request
/// of `paths[k]` carried besides its path (none: nothing known).
pub(crate) fn variable_positions(paths: &[Vec<String>], shapes: &[Shape]) -> Vec<Vec<bool>> {
    // Work on distinct paths: traffic repeats the same ones.
    let mut index: HashMap<&[String], usize> = HashMap::new();
    let mut distinct: Vec<&[String]> = Vec::new();
    let of_path: Vec<usize> = paths
        .iter()
        .map(|p| {
            *index.entry(p.as_slice()).or_insert_with(|| {
                distinct.push(p.as_slice());
                distinct.len() - 1
            })
        })
        .collect();
    let vars = distinct.iter().map(|p| p.iter().map(|s| is_id_like(s)).collect()).collect();
    let mut of_distinct: Vec<Vec<&Shape>> = vec![Vec::new(); distinct.len()];
    for (d, shape) in of_path.iter().zip(shapes) {
        if shape.success && !of_distinct[*d].contains(&shape) {
            of_distinct[*d].push(shape);
        }
    }
    let mut state = Paths { paths: distinct, vars, shapes: of_distinct };
    // Each round marks at least one more position, so this bound is never what ends it.
    let rounds = state.paths.iter().map(|p| p.len()).sum::<usize>() + 1;
    for _round in 0..rounds {
        let mut changed = false;
        for differences in 1..=1 + MAX_OTHER_DIFFERENCES {
            changed = by_comparison(&mut state, differences);
            if changed {
                break;
            }
        }
        if !changed {
            changed = by_shape(&mut state);
        }
        changed |= by_same_value(&mut state);
        if !changed {
            break;
        }
    }
    of_path.iter().map(|d| state.vars[*d].clone()).collect()
}

/// The subsets of `0..len` with `size` members, each sorted.
fn masks(len: usize, size: usize) -> Vec<Vec<usize>> {
    let mut frontier: Vec<Vec<usize>> = vec![Vec::new()];
    for _ in 0..size {
        let mut next = Vec::new();
        for m in &frontier {
            let from = m.last().map_or(0, |l| l + 1);
            for i in from..len {
                let mut n = m.clone();
                n.push(i);
                next.push(n);
            }
        }
        frontier = next;
    }
    frontier
}

/// Rule 2: paths equal but for `differences` positions.
fn by_comparison(state: &mut Paths<'_>, differences: usize) -> bool {
    // For each (position, value): the paths before it. A word seen after two paths that differ
    // only where one of them has a parameter or a slug stays the same while parameters change.
    let mut seen_after: HashMap<(usize, &str), Vec<usize>> = HashMap::new();
    for (k, p) in state.paths.iter().enumerate() {
        for (i, value) in p.iter().enumerate() {
            seen_after.entry((i, value.as_str())).or_default().push(k);
        }
    }
    let changes_with_params = |state: &Paths<'_>, k: usize, i: usize| {
        let Some(others) = seen_after.get(&(i, state.paths[k][i].as_str())) else { return true };
        let valueish =
            |o: usize, j: usize| state.vars[o][j] || is_slug(&state.paths[o][j]) || is_id_like(&state.paths[o][j]);
        !others.iter().take(64).any(|&o| {
            let differ: Vec<usize> = (0..i).filter(|&j| state.paths[o][j] != state.paths[k][j]).collect();
            !differ.is_empty() && differ.iter().all(|&j| valueish(o, j) || valueish(k, j))
        })
    };
    let mut by_len: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (k, p) in state.paths.iter().enumerate() {
        by_len.entry(p.len()).or_default().push(k);
    }
    let mut marks: Vec<(usize, usize)> = Vec::new();
    for (len, members) in &by_len {
        if members.len() < 2 || differences > *len {
            continue;
        }
        for mask in masks(*len, differences) {
            // Paths grouped by everything outside the mask.
            let mut groups: HashMap<Vec<&str>, Vec<usize>> = HashMap::new();
            for k in members {
                let key: Vec<&str> =
                    (0..*len).map(|j| if mask.contains(&j) { MASK } else { state.norm(*k, j) }).collect();
                groups.entry(key).or_default().push(*k);
            }
            for (key, group) in &groups {
                // The rest of the path must share a literal segment: values that vary beside
                // parameters only (`/users/{}` and `/items/{}`) are different resources.
                if group.len() < 2 || !key.iter().any(|s| *s != PARAM && *s != MASK) {
                    continue;
                }
                let takes: Option<Vec<Take>> = mask
                    .iter()
                    .map(|&i| {
                        let values: BTreeSet<&str> = group.iter().map(|k| state.paths[*k][i].as_str()).collect();
                        if values.len() < 2 {
                            return None;
                        }
                        let already = differences == 1 && group.iter().any(|k| state.vars[*k][i]);
                        if already || values.iter().any(|v| is_id_like(v)) {
                            Some(Take::Slugs)
                        } else if values.iter().all(|v| is_slug(v)) || values.iter().any(|v| has_digit(v)) {
                            Some(Take::SlugsAndChangingWords)
                        } else {
                            None
                        }
                    })
                    .collect();
                let Some(takes) = takes else { continue };
                for (&i, take) in mask.iter().zip(takes) {
                    for &k in group {
                        let value = state.paths[k][i].as_str();
                        let taken = is_slug(value)
                            || is_id_like(value)
                            || matches!(take, Take::SlugsAndChangingWords) && changes_with_params(state, k, i);
                        if taken && !state.vars[k][i] {
                            marks.push((k, i));
                        }
                    }
                }
            }
        }
    }
    let mut changed = false;
    for (k, i) in marks {
        changed |= state.mark(k, i);
    }
    changed
}

/// For each value at one position: the rests of the paths after it, and the requests made to each.
type Rests<'b> = BTreeMap<Vec<&'b str>, Vec<usize>>;

/// Rule 4: sibling paths whose requests and responses have the same shape.
fn by_shape(state: &mut Paths<'_>) -> bool {
    let max_len = state.paths.iter().map(|p| p.len()).max().unwrap_or(0);
    let mut marks: Vec<(usize, usize)> = Vec::new();
    // The first segment names a resource: values come after one.
    for i in 1..max_len {
        // For each template before `i`: for each value at `i`, the rests of the paths after it
        // and the requests made to each.
        let mut siblings: HashMap<Vec<&str>, BTreeMap<&str, Rests<'_>>> = HashMap::new();
        for (k, p) in state.paths.iter().enumerate() {
            if p.len() <= i || state.vars[k][i] {
                continue;
            }
            let prefix = state.prefix(k, i);
            if !prefix.iter().any(|s| *s != PARAM) {
                continue;
            }
            let rest: Vec<&str> = (i + 1..p.len()).map(|j| state.norm(k, j)).collect();
            siblings.entry(prefix).or_default().entry(p[i].as_str()).or_default().entry(rest).or_default().push(k);
        }
        'siblings: for values in siblings.values() {
            // Values whose requests are alike in every way compare alike with any other: compare
            // one of each kind, so that thousands of users' names cost as many kinds as there are.
            let kinds = kinds_of(state, values.values());
            let mut alike = vec![false; kinds.len()];
            for (a, (rests_a, members_a)) in kinds.iter().enumerate() {
                if members_a.len() > 1 && matches!(compare_shapes(state, rests_a, rests_a), Likeness::Alike) {
                    alike[a] = true;
                }
                for (b, (rests_b, _)) in kinds.iter().enumerate().skip(a + 1) {
                    match compare_shapes(state, rests_a, rests_b) {
                        // Operations' words: two that answer alike are operations still.
                        Likeness::Different => continue 'siblings,
                        Likeness::Alike => (alike[a], alike[b]) = (true, true),
                        Likeness::Unknown => {}
                    }
                }
            }
            for ((_, members), _) in kinds.iter().zip(&alike).filter(|(_, alike)| **alike) {
                marks.extend(members.iter().flat_map(|rests| rests.values().flatten()).map(|&k| (k, i)));
            }
        }
    }
    let mut changed = false;
    for (k, i) in marks {
        changed |= state.mark(k, i);
    }
    changed
}

/// The values at one position grouped by what was requested under each (the rests of their
/// paths, and the shapes of the requests to each): one of a kind with the kind's members.
fn kinds_of<'v, 'a>(
    state: &Paths<'a>,
    values: impl Iterator<Item = &'v Rests<'a>>,
) -> Vec<(&'v Rests<'a>, Vec<&'v Rests<'a>>)>
where
    'a: 'v,
{
    type Kind<'s> = Vec<(Vec<&'s str>, Vec<(&'s str, &'s BTreeSet<String>)>)>;
    let mut kinds: BTreeMap<Kind<'a>, Vec<&'v Rests<'a>>> = BTreeMap::new();
    for rests in values {
        let kind: Kind<'a> = rests
            .iter()
            .map(|(rest, paths)| {
                let mut shapes: Vec<(&str, &BTreeSet<String>)> = paths
                    .iter()
                    .flat_map(|k| state.shapes[*k].iter().map(|s| (s.signature.as_str(), &s.query)))
                    .collect();
                shapes.sort();
                shapes.dedup();
                (rest.clone(), shapes)
            })
            .collect();
        kinds.entry(kind).or_default().push(rests);
    }
    kinds.into_values().map(|members| (members[0], members)).collect()
}

/// What the requests under two values at one position say of them.
enum Likeness {
    /// Every rest of the path that follows both, requested with the same method, has requests
    /// of the same shape under both, and at least one of them has a telling shape.
    Alike,
    /// A rest requested with the same method under both has no request of the same shape.
    Different,
    /// Nothing telling to compare.
    Unknown,
}

fn compare_shapes(
    state: &Paths<'_>,
    a: &BTreeMap<Vec<&str>, Vec<usize>>,
    b: &BTreeMap<Vec<&str>, Vec<usize>>,
) -> Likeness {
    fn of<'s>(shapes: &[&'s Shape], method: &str) -> Vec<&'s Shape> {
        shapes.iter().copied().filter(|s| s.method() == method).collect()
    }
    let mut evidence = false;
    for (rest, paths_a) in a {
        let Some(paths_b) = b.get(rest) else { continue };
        let shapes_a: Vec<&Shape> = paths_a.iter().flat_map(|k| state.shapes[*k].iter().copied()).collect();
        let shapes_b: Vec<&Shape> = paths_b.iter().flat_map(|k| state.shapes[*k].iter().copied()).collect();
        let methods: BTreeSet<&str> = shapes_a.iter().map(|s| s.method()).collect();
        for method in methods {
            let (ma, mb) = (of(&shapes_a, method), of(&shapes_b, method));
            if mb.is_empty() {
                continue;
            }
            let matching: Vec<&Shape> = ma.iter().copied().filter(|x| mb.iter().any(|y| x.matches(y))).collect();
            if matching.is_empty() {
                return Likeness::Different;
            }
            evidence |= matching.iter().any(|s| s.telling);
        }
    }
    if evidence { Likeness::Alike } else { Likeness::Unknown }
}

/// Rule 3: a value that is a parameter after a template is one in every path where it follows
/// that template.
fn by_same_value(state: &mut Paths<'_>) -> bool {
    let max_len = state.paths.iter().map(|p| p.len()).max().unwrap_or(0);
    let mut changed = false;
    for i in 0..max_len {
        let mut params: HashSet<(Vec<&str>, &str)> = HashSet::new();
        for (k, p) in state.paths.iter().enumerate() {
            if p.len() > i && state.vars[k][i] {
                params.insert((state.prefix(k, i), p[i].as_str()));
            }
        }
        let marks: Vec<usize> = (0..state.paths.len())
            .filter(|&k| {
                state.paths[k].len() > i
                    && !state.vars[k][i]
                    && params.contains(&(state.prefix(k, i), state.paths[k][i].as_str()))
            })
            .collect();
        for k in marks {
            changed |= state.mark(k, i);
        }
    }
    changed
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
        let calls: Vec<(&str, Shape)> = paths.iter().map(|p| (*p, Shape::default())).collect();
        templates_of(&calls)
    }

    fn templates_of(calls: &[(&str, Shape)]) -> Vec<String> {
        let split: Vec<Vec<String>> =
            calls.iter().map(|(p, _)| p.split('/').filter(|s| !s.is_empty()).map(str::to_string).collect()).collect();
        let shapes: Vec<Shape> = calls.iter().map(|(_, s)| s.clone()).collect();
        let vars = variable_positions(&split, &shapes);
        split.iter().zip(&vars).map(|(p, v)| template(p, v).0).collect()
    }

    /// A successful request: method and response shape (`signature` after the method), query
    /// names.
    fn shape(method: &str, response: &str, query: &[&str]) -> Shape {
        Shape {
            signature: format!("{method}  200 {response}"),
            query: query.iter().map(|q| q.to_string()).collect(),
            success: true,
            telling: response.contains(':'),
        }
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

    /// Bitbucket as synthesised: two parameters side by side, both changing between the only
    /// two calls of each operation.
    #[test]
    fn adjacent_parameters_changing_together() {
        let t = templates(&[
            "/repositories/abc/abc/pullrequests",
            "/repositories/abc-1/abc-1/pullrequests",
            "/repositories/abc/abc/issues",
            "/repositories/abc-1/abc-1/issues",
        ]);
        assert_eq!(t[0], "/repositories/{repository}/{repository2}/pullrequests");
        assert_eq!(t[1], "/repositories/{repository}/{repository2}/pullrequests");
        assert_eq!(t[3], "/repositories/{repository}/{repository2}/issues");
    }

    /// Sakari: a parameter, a literal, a parameter, both parameters changing together.
    #[test]
    fn parameters_apart_changing_together() {
        let t = templates(&["/accounts/abc/campaigns/abc", "/accounts/abc-1/campaigns/abc-1"]);
        assert_eq!(t[0], "/accounts/{account}/campaigns/{campaign}");
        assert_eq!(t[1], "/accounts/{account}/campaigns/{campaign}");
    }

    /// Appveyor: two parameters ending the path, changing together.
    #[test]
    fn parameters_ending_the_path_changing_together() {
        let t = templates(&["/projects/abc/abc", "/projects/abc-1/abc-1", "/projects/abc/abc/settings"]);
        assert_eq!(t[0], "/projects/{project}/{project2}");
        assert_eq!(t[1], "/projects/{project}/{project2}");
        assert_eq!(t[2], "/projects/{project}/{project2}/settings");
    }

    /// A word that stays the same while the parameters before it change is an operation beside
    /// the parameter, though slugs with a digit are seen there (Bitbucket's issues).
    #[test]
    fn word_beside_a_parameter_stays_literal() {
        let t = templates(&[
            "/repositories/abc/abc/issues/export",
            "/repositories/abc-1/abc-1/issues/export",
            "/repositories/abc/abc/issues/abc",
            "/repositories/abc-1/abc-1/issues/abc-1",
        ]);
        assert_eq!(t[0], "/repositories/{repository}/{repository2}/issues/export");
        assert_eq!(t[1], "/repositories/{repository}/{repository2}/issues/export");
        assert_eq!(t[2], "/repositories/{repository}/{repository2}/issues/{issue}");
        assert_eq!(t[3], "/repositories/{repository}/{repository2}/issues/{issue}");
    }

    /// Many parameters changing together are found a few at a time: those before them first.
    #[test]
    fn many_parameters_changing_together() {
        let t = templates(&[
            "/r/abc/abc/commit/abc/properties/abc/abc",
            "/r/abc-1/abc-1/commit/abc-1/properties/abc-1/abc-1",
            "/r/abc/abc/commit/abc",
            "/r/abc-1/abc-1/commit/abc-1",
        ]);
        assert_eq!(t[0], "/r/{r}/{r2}/commit/{commit}/properties/{property}/{property2}");
        assert_eq!(t[3], "/r/{r}/{r2}/commit/{commit}");
    }

    /// Sibling resources that share some sub-resources stay literal: each has its own too.
    #[test]
    fn sibling_resources_sharing_some_rests_stay_literal() {
        let t = templates(&[
            "/repositories/acme/webapp/pullrequests/17/comments",
            "/repositories/acme/webapp/pullrequests/17/approve",
            "/repositories/acme/webapp/pullrequests/17/merge",
            "/repositories/acme/webapp/pullrequests/17/diff",
            "/repositories/acme/webapp/pullrequests/17",
            "/repositories/acme/webapp/pullrequests",
            "/repositories/acme/webapp/issues/4/comments",
            "/repositories/acme/webapp/issues/4/vote",
            "/repositories/acme/webapp/issues/4/watch",
            "/repositories/acme/webapp/issues/4",
            "/repositories/acme/webapp/issues",
        ]);
        assert_eq!(t[0], "/repositories/acme/webapp/pullrequests/{pullrequest}/comments");
        assert_eq!(t[6], "/repositories/acme/webapp/issues/{issue}/comments");
    }

    /// Plain words ending paths are operations, however many.
    #[test]
    fn plain_words_stay_literal() {
        let t = templates(&["/pet/findByStatus", "/pet/findByTags", "/send", "/sendbatch", "/balance"]);
        assert_eq!(t, ["/pet/findByStatus", "/pet/findByTags", "/send", "/sendbatch", "/balance"]);
    }

    /// `/users/me` beside identifiers or plain words is an operation of its own.
    #[test]
    fn me_beside_an_identifier_or_a_word() {
        let t = templates(&["/users/me", "/users/42", "/users/43"]);
        assert_eq!(t, ["/users/me", "/users/{user}", "/users/{user}"]);
        let t = templates(&["/users/me", "/users/alice"]);
        assert_eq!(t, ["/users/me", "/users/alice"]);
    }

    /// A few resources at the root with the same sub-resources stay literal.
    #[test]
    fn root_resources_stay_literal() {
        let t = templates(&["/orders/1/items", "/carts/2/items", "/orders/3/notes", "/carts/4/notes"]);
        assert_eq!(t[0], "/orders/{order}/items");
        assert_eq!(t[1], "/carts/{cart}/items");
    }

    /// Plain words whose requests and responses have the same shape are values of one parameter
    /// (rule 4): a workspace and a repository named by words.
    #[test]
    fn plain_words_with_the_same_shape_are_values() {
        let issues = || shape("GET", "{values:[{id:number,title:string}]}", &["page"]);
        let repo = || shape("GET", "{name:string,owner:{id:number}}", &[]);
        let t = templates_of(&[
            ("/repositories/acme/webapp/issues", issues()),
            ("/repositories/globex/webapp/issues", issues()),
            ("/repositories/acme/backend/issues", shape("GET", "{values:[{id:number,title:string}]}", &[])),
            ("/repositories/acme/webapp", repo()),
            ("/repositories/globex/webapp", repo()),
        ]);
        assert_eq!(t[0], "/repositories/{repository}/{repository2}/issues");
        assert_eq!(t[1], "/repositories/{repository}/{repository2}/issues");
        assert_eq!(t[2], "/repositories/{repository}/{repository2}/issues");
        assert_eq!(t[3], "/repositories/{repository}/{repository2}");
    }

    /// Sibling resources whose sub-resources have the same shape stay literal when their own
    /// listings differ (daniweb's audiences and conversations), or another request differs.
    #[test]
    fn sibling_resources_with_shared_shapes_stay_literal() {
        let filters = || shape("POST", "{data:[{matched_metadata:object}],pagination:{total:number}}", &[]);
        let t = templates_of(&[
            ("/api/audiences/1/metadata/filters", filters()),
            ("/api/conversations/2/metadata/filters", filters()),
            ("/api/audiences", shape("GET", "{data:[{id:number,name:string}]}", &["limit"])),
            ("/api/conversations", shape("GET", "{data:[{id:number,messages:number}]}", &["limit"])),
        ]);
        assert_eq!(t[0], "/api/audiences/{audience}/metadata/filters");
        assert_eq!(t[1], "/api/conversations/{conversation}/metadata/filters");
        let t = templates_of(&[
            ("/api/audiences/1/metadata/filters", filters()),
            ("/api/conversations/2/metadata/filters", filters()),
            ("/api/audiences/1", shape("GET", "{data:{id:number,name:string}}", &[])),
            ("/api/conversations/2", shape("GET", "{data:{id:number,messages:number}}", &[])),
        ]);
        assert_eq!(t[0], "/api/audiences/{audience}/metadata/filters");
        assert_eq!(t[2], "/api/audiences/{audience}");
    }

    /// Two operations that answer alike stay literal beside a third that answers otherwise: the
    /// position holds operations' words.
    #[test]
    fn operations_answering_alike_beside_others_stay_literal() {
        let created = || shape("POST", "{data:{id:number},success:boolean}", &[]);
        let t = templates_of(&[
            ("/api/positions", created()),
            ("/api/webhooks", created()),
            ("/api/users", shape("POST", "{data:[{id:number}],invited:number}", &[])),
        ]);
        assert_eq!(t, ["/api/positions", "/api/webhooks", "/api/users"]);
    }

    /// Operations with the same response but other query parameters stay literal.
    #[test]
    fn same_response_other_query_stays_literal() {
        let pets = "[{id:number,name:string}]";
        let t = templates_of(&[
            ("/pet/findByStatus", shape("GET", pets, &["status"])),
            ("/pet/findByTags", shape("GET", pets, &["tags"])),
        ]);
        assert_eq!(t, ["/pet/findByStatus", "/pet/findByTags"]);
    }

    /// An empty response or `{}` says nothing: the words stay literal.
    #[test]
    fn empty_shapes_say_nothing() {
        let t = templates_of(&[
            ("/api/services/start", shape("POST", "{}", &[])),
            ("/api/services/stop", shape("POST", "{}", &[])),
        ]);
        assert_eq!(t, ["/api/services/start", "/api/services/stop"]);
    }

    /// The same body keys with empty responses say nothing: several operations take one model
    /// (Bitbucket's `pipelines_config/schedules` and `pipelines_config/variables`).
    #[test]
    fn same_bodies_alone_say_nothing() {
        let created =
            || Shape { signature: "POST type 201 ".into(), query: BTreeSet::new(), success: true, telling: false };
        let t =
            templates_of(&[("/r/pipelines_config/schedules", created()), ("/r/pipelines_config/variables", created())]);
        assert_eq!(t, ["/r/pipelines_config/schedules", "/r/pipelines_config/variables"]);
    }

    /// A refused request says nothing of the operation's shape.
    #[test]
    fn refused_requests_say_nothing() {
        let mut refused = shape("GET", "{error:string}", &[]);
        refused.signature = "GET  404 {error:string}".into();
        refused.success = false;
        let t = templates_of(&[("/api/teams/acme", refused.clone()), ("/api/teams/globex", refused)]);
        assert_eq!(t, ["/api/teams/acme", "/api/teams/globex"]);
    }

    #[test]
    fn names() {
        assert_eq!(singular("addresses"), "address");
        assert_eq!(singular("api-keys"), "api_key");
        assert_eq!(template(&["a".into(), "1".into(), "2".into()], &[false, true, true]).0, "/a/{a}/{a2}");
        assert_eq!(template(&["1".into()], &[true]).0, "/{id}");
    }
}
