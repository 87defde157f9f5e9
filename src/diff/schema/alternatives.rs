//! Alternatives (`anyOf`, `oneOf`, `allOf`) paired by what they are, not where they stand: when a
//! version drops one alternative and adds another (GitHub's ruleset rules: `merge_queue` out, a new
//! rule type in), the others keep their partners however far they moved.
//!
//! Each old alternative finds its new partner by the first of these that tells, in order:
//! 1. its tag: the value of the parent's `discriminator.propertyName`, else of the property that
//!    most alternatives fix to one value (a `const`, or an `enum` of one: `type: "merge_queue"`);
//! 2. being equal to it;
//! 3. its `title`;
//! 4. the definition its `$ref` names;
//! 5. the first sentence of its description (a schema cut short when its tool was made keeps it);
//! 6. the best structural match: types that overlap, and the most shared property names,
//!    requirements, values and formats ([`MIN_LIKENESS`] at least; a schema cut short is matched
//!    by its type). Two alternatives with different tags are never partners: an agent sending one
//!    tag is refused by the other.
//!
//! A key shared by two alternatives of one side tells nothing, and pairs none. An alternative left
//! without a partner was added or removed. For `anyOf` and `oneOf` (a value matches one of them),
//! removing one narrows what a value may be: it breaks the agent that writes it (input) and not
//! the one that reads it (output); adding one is the reverse. For `allOf` (a value matches all of
//! them) it is the other way round.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use super::{Direction, Walk, brief, cut_short, follow};
use crate::diff::Kind;
use crate::tools::inline::CUT_SHORT;

/// How alike two alternatives must be, at least, to be paired by their structure alone.
const MIN_LIKENESS: f64 = 0.3;

/// One alternative as compared: its schema (its `$ref` followed) and the `$ref` it was reached by.
#[derive(Clone, Copy)]
struct Alt<'a> {
    obj: &'a Map<String, Value>,
    reference: Option<&'a str>,
}

impl<'a> Alt<'a> {
    fn of(v: &'a Value, root: &'a Map<String, Value>) -> Alt<'a> {
        Alt { obj: follow(v, root).0, reference: v.get("$ref").and_then(Value::as_str) }
    }
}

/// Which old alternative is which new one.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Pairing {
    /// (old, new) indices, in the old list's order.
    pub pairs: Vec<(usize, usize)>,
    /// Old alternatives without a partner.
    pub removed: Vec<usize>,
    /// New alternatives without a partner.
    pub added: Vec<usize>,
}

/// Both sides' alternatives as they are paired: each one's tag (the value of the tag property),
/// those still without a partner, and the pairs made.
struct Sides<'a> {
    old: Vec<Alt<'a>>,
    new: Vec<Alt<'a>>,
    old_tags: Vec<Option<&'a Value>>,
    new_tags: Vec<Option<&'a Value>>,
    old_left: Vec<bool>,
    new_left: Vec<bool>,
    pairs: Vec<(usize, usize)>,
}

/// The value an alternative fixes its property `name` to: a `const`, or an `enum` of one value.
fn fixed_value<'a>(alt: &Alt<'a>, name: &str, root: &'a Map<String, Value>) -> Option<&'a Value> {
    let prop = follow(alt.obj.get("properties")?.get(name)?, root).0;
    match (prop.get("const"), prop.get("enum").and_then(Value::as_array).map(Vec::as_slice)) {
        (Some(c), _) => Some(c),
        (None, Some([one])) => Some(one),
        _ => None,
    }
}

/// The property that tells the alternatives apart: the discriminator's, else the one most
/// alternatives of both sides fix to one value (at least two; ties by name).
fn tag_property(parents: [&Map<String, Value>; 2], sides: [(&[Alt<'_>], &Map<String, Value>); 2]) -> Option<String> {
    let discriminator =
        parents.iter().find_map(|p| p.get("discriminator")?.get("propertyName")?.as_str()).map(str::to_string);
    if discriminator.is_some() {
        return discriminator;
    }
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for (alts, root) in sides {
        for alt in alts {
            let Some(props) = alt.obj.get("properties").and_then(Value::as_object) else { continue };
            for name in props.keys() {
                if fixed_value(alt, name, root).is_some() {
                    *counts.entry(name.as_str()).or_default() += 1;
                }
            }
        }
    }
    // The most counted, the first name among equals.
    let best = counts.iter().filter(|(_, n)| **n >= 2).max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)));
    best.map(|(name, _)| (*name).to_string())
}

/// The last segment of a `$ref`, unescaped: the definition's name.
fn reference_name(reference: &str) -> String {
    let last = reference.rsplit('/').next().unwrap_or(reference);
    last.replace("~1", "/").replace("~0", "~")
}

/// The first sentence of a schema's description (without the mark of a schema cut short).
fn first_sentence(obj: &Map<String, Value>) -> Option<String> {
    let text = obj.get("description")?.as_str()?;
    let text = text.strip_suffix(CUT_SHORT).unwrap_or(text).trim();
    let end = text.find(". ").map_or(text.len(), |i| i + 1);
    let sentence = text[..end].trim_end_matches('.');
    (!sentence.is_empty()).then(|| sentence.to_string())
}

/// What an alternative's structure is made of, for likeness: its property names, requirements,
/// values, format and items' types.
fn features(obj: &Map<String, Value>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    if let Some(props) = obj.get("properties").and_then(Value::as_object) {
        out.extend(props.keys().map(|k| format!("property {k}")));
    }
    for name in obj.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str) {
        out.insert(format!("required {name}"));
    }
    let values = obj.get("enum").and_then(Value::as_array).into_iter().flatten().chain(obj.get("const"));
    out.extend(values.map(|v| format!("value {v}")));
    if let Some(format) = obj.get("format").and_then(Value::as_str) {
        out.insert(format!("format {format}"));
    }
    if let Some(items) = obj.get("items").and_then(|i| i.get("type")) {
        out.insert(format!("items {items}"));
    }
    out
}

/// The types an alternative takes (integers are numbers too); `None`: any.
fn type_set(obj: &Map<String, Value>) -> Option<BTreeSet<&str>> {
    let mut set: BTreeSet<&str> = match obj.get("type")? {
        Value::String(t) => BTreeSet::from([t.as_str()]),
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => return None,
    };
    if set.contains("integer") {
        set.insert("number");
    }
    Some(set)
}

/// How alike two alternatives are, from 0 to 1: 0 when their types do not overlap, else the
/// share of their features they have in common (1 when neither has any, or one was cut short and
/// shows none).
fn likeness(a: &Map<String, Value>, b: &Map<String, Value>) -> f64 {
    if let (Some(x), Some(y)) = (type_set(a), type_set(b))
        && x.is_disjoint(&y)
    {
        return 0.0;
    }
    if cut_short(a) || cut_short(b) {
        return 1.0;
    }
    let (fa, fb) = (features(a), features(b));
    let all = fa.union(&fb).count();
    if all == 0 {
        return 1.0;
    }
    fa.intersection(&fb).count() as f64 / all as f64
}

impl<'a> Sides<'a> {
    /// Pairs the alternatives left whose keys are equal and, on each side, their own. `key` is
    /// given an alternative's index and whether it is an old one.
    fn pair_by(&mut self, key: impl Fn(usize, &Alt<'a>, bool) -> Option<String>) {
        let keys = |alts: &[Alt<'a>], left: &[bool], old: bool| {
            let mut by: BTreeMap<String, Vec<usize>> = BTreeMap::new();
            for (i, alt) in alts.iter().enumerate().filter(|(i, _)| left[*i]) {
                if let Some(k) = key(i, alt, old) {
                    by.entry(k).or_default().push(i);
                }
            }
            by
        };
        let (olds, news) = (keys(&self.old, &self.old_left, true), keys(&self.new, &self.new_left, false));
        for (k, is) in &olds {
            if let (&[i], Some(&[j])) = (is.as_slice(), news.get(k).map(Vec::as_slice)) {
                self.old_left[i] = false;
                self.new_left[j] = false;
                self.pairs.push((i, j));
            }
        }
    }

    /// Pairs the alternatives left by likeness, the most alike first (then the closest in
    /// position); never two with different tags.
    fn pair_by_likeness(&mut self) {
        let mut candidates: Vec<(f64, usize, usize)> = Vec::new();
        for i in (0..self.old.len()).filter(|&i| self.old_left[i]) {
            for j in (0..self.new.len()).filter(|&j| self.new_left[j]) {
                if let (Some(a), Some(b)) = (self.old_tags[i], self.new_tags[j])
                    && a != b
                {
                    continue;
                }
                let score = likeness(self.old[i].obj, self.new[j].obj);
                if score >= MIN_LIKENESS {
                    candidates.push((score, i, j));
                }
            }
        }
        let distance = |(_, i, j): &(f64, usize, usize)| i.abs_diff(*j);
        candidates.sort_by(|a, b| b.0.total_cmp(&a.0).then(distance(a).cmp(&distance(b))).then(a.1.cmp(&b.1)));
        for (_, i, j) in candidates {
            if self.old_left[i] && self.new_left[j] {
                self.old_left[i] = false;
                self.new_left[j] = false;
                self.pairs.push((i, j));
            }
        }
    }
}

/// One side of a list of alternatives: the list, the schema that holds it, and the root its
/// `$ref`s resolve in.
type List<'a> = (&'a [Value], &'a Map<String, Value>, &'a Map<String, Value>);

/// Pairs the old alternatives with the new ones by content (see the module's doc), and names
/// each.
fn pair<'a>((old, old_parent, old_root): List<'a>, (new, new_parent, new_root): List<'a>) -> (Pairing, Labels) {
    let olds: Vec<Alt<'a>> = old.iter().map(|v| Alt::of(v, old_root)).collect();
    let news: Vec<Alt<'a>> = new.iter().map(|v| Alt::of(v, new_root)).collect();
    let tag = tag_property([old_parent, new_parent], [(&olds, old_root), (&news, new_root)]);
    let tag_values = |alts: &[Alt<'a>], root| -> Vec<Option<&'a Value>> {
        alts.iter().map(|a| tag.as_deref().and_then(|t| fixed_value(a, t, root))).collect()
    };
    let mut sides = Sides {
        old_left: vec![true; olds.len()],
        new_left: vec![true; news.len()],
        old_tags: tag_values(&olds, old_root),
        new_tags: tag_values(&news, new_root),
        old: olds,
        new: news,
        pairs: Vec::new(),
    };
    let (old_tags, new_tags) = (sides.old_tags.clone(), sides.new_tags.clone());
    sides.pair_by(|i, _, old| if old { old_tags[i] } else { new_tags[i] }.map(Value::to_string));
    sides.pair_by(|_, alt, _| serde_json::to_string(alt.obj).ok());
    sides.pair_by(|_, alt, _| alt.obj.get("title").and_then(Value::as_str).map(str::to_string));
    sides.pair_by(|_, alt, _| alt.reference.map(reference_name));
    sides.pair_by(|_, alt, _| first_sentence(alt.obj));
    sides.pair_by_likeness();
    sides.pairs.sort_unstable();
    let names = |alts: &[Alt<'a>], tags: &[Option<&Value>]| -> Vec<Option<String>> {
        alts.iter().zip(tags).map(|(a, t)| label(a, tag.as_deref(), *t)).collect()
    };
    let labels = Labels { old: names(&sides.old, &sides.old_tags), new: names(&sides.new, &sides.new_tags) };
    let removed = (0..sides.old.len()).filter(|&i| sides.old_left[i]).collect();
    let added = (0..sides.new.len()).filter(|&j| sides.new_left[j]).collect();
    (Pairing { pairs: sides.pairs, removed, added }, labels)
}

/// How each alternative is named in a change: its tag, title or definition, when it has one.
struct Labels {
    old: Vec<Option<String>>,
    new: Vec<Option<String>>,
}

/// An alternative's name: its tag (`` `type` "merge_queue" ``), its title, or the definition it
/// refers to.
fn label(alt: &Alt<'_>, tag: Option<&str>, tag_value: Option<&Value>) -> Option<String> {
    if let (Some(t), Some(v)) = (tag, tag_value) {
        return Some(format!("`{t}` {v}"));
    }
    let title = alt.obj.get("title").and_then(Value::as_str).map(|t| format!("\"{t}\""));
    title.or_else(|| alt.reference.map(|r| format!("`{}`", reference_name(r))))
}

impl<'a> Walk<'a, '_, '_> {
    /// `anyOf`, `oneOf`, `allOf`: paired by content (see the module's doc); the partners compared,
    /// the others added or removed. A list that appears or goes whole is for a person to judge.
    pub(super) fn alternatives(
        &mut self,
        old: &'a Map<String, Value>,
        new: &'a Map<String, Value>,
        at: &str,
        depth: usize,
    ) {
        let list = |o: &'a Map<String, Value>, key: &str| -> &'a [Value] {
            o.get(key).and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default()
        };
        for key in ["anyOf", "oneOf", "allOf"] {
            let (a, b) = (list(old, key), list(new, key));
            if a.is_empty() && b.is_empty() {
                continue;
            }
            if a.is_empty() || b.is_empty() {
                // A schema that gained or lost its alternatives: what it takes is for a person to say.
                let why = format!("{key} had {} alternatives, now {}: compare them by hand", a.len(), b.len());
                self.sink.add(Kind::AlternativesChanged, format!("{at}/{key}"), true, why);
                continue;
            }
            let (pairing, labels) = pair((a, old, self.old_root), (b, new, self.new_root));
            for &(i, j) in &pairing.pairs {
                self.schema(&a[i], &b[j], &format!("{at}/{key}/{j}"), depth + 1);
            }
            for &i in &pairing.removed {
                self.alternative(key, false, (i, labels.old[i].as_deref()), &a[i], at);
            }
            for &j in &pairing.added {
                self.alternative(key, true, (j, labels.new[j].as_deref()), &b[j], at);
            }
        }
    }

    /// An alternative without a partner: `added` (at `index` of the new list) or removed (of the
    /// old one).
    fn alternative(
        &mut self,
        key: &str,
        added: bool,
        (index, label): (usize, Option<&str>),
        schema: &'a Value,
        at: &str,
    ) {
        // Whether the schema now takes fewer forms of value: an alternative gone (anyOf, oneOf), or
        // one more that every value must match (allOf).
        let all = key == "allOf";
        let fewer = all == added;
        let breaking = (self.direction == Direction::Input) == fewer;
        let name = label.map(|l| format!(" {l}")).unwrap_or_default();
        let what =
            if added { format!("new {key} alternative{name}") } else { format!("{key} alternative{name} is gone") };
        let effect = match (self.direction, all, added) {
            (Direction::Input, false, false) => "values of its form are refused",
            (Direction::Input, false, true) => "values of its form are accepted",
            (Direction::Input, true, true) => "values must match it too",
            (Direction::Input, true, false) => "values no longer have to match it",
            (Direction::Output, false, false) => "the response no longer takes its form",
            (Direction::Output, false, true) => {
                "the response may take its form, which readers of the old one do not expect"
            }
            (Direction::Output, true, true) => "the response matches it too",
            (Direction::Output, true, false) => {
                "the response no longer has to match it: readers relying on it may fail"
            }
        };
        let (kind, old, new) = match added {
            true => (Kind::AlternativeAdded, None, brief(schema)),
            false => (Kind::AlternativeRemoved, brief(schema), None),
        };
        self.sink
            .add(kind, format!("{at}/{key}/{index}"), breaking, format!("{what}: {effect}"))
            .values(old.as_ref(), new.as_ref());
    }
}

#[cfg(test)]
mod tests;
