//! Reducing a JSON value to a number of characters without cutting a value in the middle: an
//! array keeps its first items that fit (and says how many it left out, where), an object keeps
//! every member and shrinks its largest ones, a long string is shortened with a marker. What is
//! left is always valid JSON.

use crate::response::json::{Json, str_chars};

/// A list (or an object) that kept only its first items (members).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Omission {
    /// Where the list is, as a jq path (`.`, `.data`, `.[0].labels`).
    pub path: String,
    /// Items kept (the first ones).
    pub kept: usize,
    /// Items it had.
    pub total: usize,
    /// An object's members rather than an array's items (an object of many small members, such
    /// as GitHub's emojis, which no shortening brings under the budget).
    pub members: bool,
}

/// What [`fit`] did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Reduction {
    /// The lists that lost items, outermost first.
    pub omissions: Vec<Omission>,
    /// Strings shortened.
    pub strings_cut: usize,
}

/// The shortest a shortened string gets, in characters (with its marker).
const MIN_STRING: usize = 40;

/// An object member under this share of the budget (1/16th) is never shortened: past the budget,
/// an object of such members keeps its first ones whole.
const SMALL_MEMBER_SHARE: usize = 16;

/// Reduces `value` until its minified text takes at most `budget` characters (or as near as the
/// smallest reduction gets: every list keeps one item, every string [`MIN_STRING`]).
pub fn fit(value: &mut Json, budget: usize) -> Reduction {
    let mut reduction = Reduction::default();
    // Sizes are estimated as it goes; a second pass with a smaller aim absorbs the error.
    for aim in [budget, budget * 9 / 10, budget * 3 / 4, budget / 2] {
        if value.chars() <= budget {
            break;
        }
        shrink(value, aim, &mut Vec::new(), &mut reduction);
    }
    // Stable: for a path reduced twice, the first pass (with the list's real length) comes first.
    reduction.omissions.sort_by(|a, b| a.path.len().cmp(&b.path.len()).then_with(|| a.path.cmp(&b.path)));
    reduction.omissions.dedup_by(|b, a| {
        a.path == b.path && {
            a.kept = a.kept.min(b.kept);
            true
        }
    });
    reduction
}

/// One step of a path.
enum Step {
    Key(String),
    Index(usize),
}

fn jq_path(steps: &[Step]) -> String {
    if steps.is_empty() {
        return ".".into();
    }
    let mut path = String::new();
    for step in steps {
        match step {
            Step::Key(k) if is_identifier(k) => {
                path.push('.');
                path.push_str(k);
            }
            Step::Key(k) => {
                path.push_str(".[");
                path.push_str(&serde_json::to_string(k).unwrap_or_default());
                path.push(']');
            }
            Step::Index(i) => {
                if path.is_empty() {
                    path.push('.');
                }
                path.push_str(&format!("[{i}]"));
            }
        }
    }
    path
}

/// A member name jq can write as `.name`.
pub fn is_identifier(k: &str) -> bool {
    let mut chars = k.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Shrinks `value` toward `budget` characters; returns its size after.
fn shrink(value: &mut Json, budget: usize, at: &mut Vec<Step>, out: &mut Reduction) -> usize {
    let size = value.chars();
    if size <= budget {
        return size;
    }
    match value {
        Json::Str(s) => {
            cut_string(s, budget);
            out.strings_cut += 1;
            str_chars(s)
        }
        Json::Arr(items) => shrink_array(items, budget, at, out),
        Json::Obj(members) => shrink_object(members, budget, at, out),
        _ => size,
    }
}

fn shrink_array(items: &mut Vec<Json>, budget: usize, at: &mut Vec<Step>, out: &mut Reduction) -> usize {
    let total = items.len();
    let mut used = 2;
    let mut kept = 0;
    for item in items.iter() {
        let next = used + usize::from(kept > 0) + item.chars();
        if next > budget {
            break;
        }
        used = next;
        kept += 1;
    }
    if kept == 0 && total > 0 {
        // Not even the first item fits: keep it, reduced.
        at.push(Step::Index(0));
        used = 2 + shrink(&mut items[0], budget.saturating_sub(2), at, out);
        at.pop();
        kept = 1;
    }
    if kept < total {
        items.truncate(kept);
        out.omissions.push(Omission { path: jq_path(at), kept, total, members: false });
    }
    used
}

fn shrink_object(members: &mut Vec<(String, Json)>, budget: usize, at: &mut Vec<Step>, out: &mut Reduction) -> usize {
    let mut sizes: Vec<usize> = members.iter().map(|(_, v)| v.chars()).collect();
    let fixed = 2 + members.len().saturating_sub(1) + members.iter().map(|(k, _)| str_chars(k) + 1).sum::<usize>();
    // Members that shrink no further.
    let mut done = vec![false; members.len()];
    // The largest member first, to what the others leave it; when the others alone pass the
    // budget, to half its size, and the next largest in turn.
    for _ in 0..4 * members.len() + 8 {
        let total = fixed + sizes.iter().sum::<usize>();
        if total <= budget {
            return total;
        }
        let Some(i) = (0..members.len()).filter(|&i| !done[i]).max_by_key(|&i| (sizes[i], usize::MAX - i)) else {
            break;
        };
        if sizes[i] < budget / SMALL_MEMBER_SHARE {
            // Many small members (GitHub's emojis: 1,876 URLs): shortening each would spoil them
            // all and save little; the first ones are kept whole below.
            break;
        }
        let others = total - sizes[i];
        let room = if budget > others { budget - others } else { sizes[i] / 2 };
        let (key, value) = &mut members[i];
        at.push(Step::Key(key.clone()));
        let after = shrink(value, room, at, out);
        at.pop();
        done[i] = after >= sizes[i];
        sizes[i] = after;
    }
    let total = fixed + sizes.iter().sum::<usize>();
    if total <= budget || members.len() < 2 {
        return total;
    }
    // Shrunk as far as it goes and still over: the first members that fit.
    let mut used = 2;
    let mut kept = 0;
    for ((k, _), size) in members.iter().zip(&sizes) {
        let next = used + usize::from(kept > 0) + str_chars(k) + 1 + size;
        if next > budget && kept > 0 {
            break;
        }
        used = next;
        kept += 1;
    }
    if kept < members.len() {
        out.omissions.push(Omission { path: jq_path(at), kept, total: members.len(), members: true });
        members.truncate(kept);
    }
    used
}

/// Shortens `s` so that its JSON literal takes about `budget` characters, marker included.
fn cut_string(s: &mut String, budget: usize) {
    let total = s.chars().count();
    let marker_room = 32;
    let keep = budget.saturating_sub(2 + marker_room).max(MIN_STRING);
    if keep >= total {
        return;
    }
    let end = s.char_indices().nth(keep).map_or(s.len(), |(i, _)| i);
    let left = total - keep;
    s.truncate(end);
    s.push_str(&format!("…[{left} more characters]"));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fitted(text: &str, budget: usize) -> (Json, Reduction) {
        let mut j = Json::parse(text.as_bytes()).unwrap();
        let r = fit(&mut j, budget);
        (j, r)
    }

    fn items(n: usize) -> String {
        let items: Vec<String> = (0..n).map(|i| format!(r#"{{"id":{i},"title":"item number {i}"}}"#)).collect();
        format!("[{}]", items.join(","))
    }

    #[test]
    fn a_value_within_the_budget_is_untouched() {
        let (j, r) = fitted(&items(3), 10_000);
        assert!(r.omissions.is_empty() && r.strings_cut == 0);
        assert_eq!(j.to_text(), items(3));
    }

    #[test]
    fn an_array_keeps_its_first_items_that_fit() {
        let (j, r) = fitted(&items(100), 500);
        assert!(j.chars() <= 500, "{}", j.chars());
        let Json::Arr(kept) = &j else { panic!() };
        assert!(kept.len() > 5, "{}", kept.len());
        assert_eq!(kept[0].get("id"), Some(&Json::Num(0.into())));
        assert_eq!(r.omissions, vec![Omission { path: ".".into(), kept: kept.len(), total: 100, members: false }]);
    }

    #[test]
    fn a_list_inside_an_object_is_named_by_its_path() {
        let text = format!(r#"{{"object":"list","data":{},"has_more":true}}"#, items(100));
        let (j, r) = fitted(&text, 600);
        assert!(j.chars() <= 600);
        assert_eq!(j.get("has_more"), Some(&Json::Bool(true)));
        assert_eq!(r.omissions[0].path, ".data");
    }

    #[test]
    fn a_long_string_is_shortened_with_a_marker() {
        let long = "x".repeat(10_000);
        let (j, r) = fitted(&format!(r#"{{"id":1,"body":"{long}"}}"#), 1_000);
        assert!(j.chars() <= 1_000, "{}", j.chars());
        let body = j.get("body").and_then(Json::as_str).unwrap();
        assert!(body.ends_with("more characters]"), "{body}");
        assert_eq!(r.strings_cut, 1, "{body}");
    }

    #[test]
    fn a_first_item_too_big_is_reduced_inside() {
        let item = format!(r#"{{"id":1,"labels":{}}}"#, items(200));
        let (j, r) = fitted(&format!("[{item},{item}]"), 800);
        assert!(j.chars() <= 800, "{}", j.chars());
        let paths: Vec<&str> = r.omissions.iter().map(|o| o.path.as_str()).collect();
        assert_eq!(paths, [".", ".[0].labels"]);
    }

    #[test]
    fn an_object_of_many_small_members_keeps_its_first_ones() {
        let members: Vec<String> = (0..2000)
            .map(|i| format!(r#""emoji_{i}":"https://github.githubassets.com/images/icons/emoji/{i}.png""#))
            .collect();
        let (j, r) = fitted(&format!("{{{}}}", members.join(",")), 5_000);
        assert!(j.chars() <= 5_000, "{}", j.chars());
        let Json::Obj(kept) = &j else { panic!() };
        assert_eq!(kept[0].0, "emoji_0");
        let o = r.omissions.iter().find(|o| o.members).expect("members left out");
        assert_eq!((o.path.as_str(), o.kept, o.total), (".", kept.len(), 2000));
    }

    #[test]
    fn odd_keys_are_quoted_in_paths() {
        let text = format!(r#"{{"the items":{}}}"#, items(100));
        let (_, r) = fitted(&text, 300);
        assert_eq!(r.omissions[0].path, r#".["the items"]"#);
    }

    #[test]
    fn strings_are_cut_on_character_boundaries() {
        let (j, _) = fitted(&format!(r#"["{}"]"#, "é✓".repeat(3000)), 200);
        assert!(j.chars() <= 200, "{}", j.chars());
        assert!(serde_json::from_str::<serde_json::Value>(&j.to_text()).is_ok());
    }
}
