//! The second look at BM25's candidates: what a bag of words cannot see. A request that says a
//! tool's summary ("list pull requests" for "List pull requests") names that tool, however long
//! its description; the thing a request's verb acts on ("list the open **issues** that have a
//! label") is what the tool's path ends at (`/issues`, not `/labels`); a verb asks for a shape of
//! call as well as a method (a list reads a collection, a delete removes one item); and a path
//! that says more than the request (`/commits/{sha}/pulls` for "list pull requests") is less
//! likely than one that says only what it asks.
//!
//! Each signal multiplies a document's score (the first three by at most `1 +` their weight, the
//! last by [`PATH_UNSAID`] per word), so BM25 still decides among documents the signals do not
//! tell apart, and a document no word matched stays unmatched.

use crate::discovery::query::Request;

/// What the second look reads of one tool: term ids of the index.
#[derive(Debug, Default, Clone)]
pub(crate) struct Profile {
    /// The summary's terms (the title; else the description's first sentence), once each.
    pub summary: Vec<u32>,
    /// The terms of what the path acts on: its last static segment (`requested_reviewers`).
    pub resource: Vec<u32>,
    /// Whether the path ends at a collection (`/pulls`, not `/pulls/{number}`).
    pub collection: bool,
    /// The HTTP method, upper-case.
    pub method: Option<String>,
    /// The tool changes something: a method other than GET or HEAD, and a summary that does not
    /// begin with a verb that reads (a `POST /search` that "Lists ..." reads). `false` when the
    /// method is unknown.
    pub writes: bool,
    /// The terms of the path's static segments after the first (which names the API's part:
    /// `repos`, `orgs`, `v1`), once each.
    pub path: Vec<u32>,
}

/// How much a summary the request says in full multiplies a score by (`1 +` this); a summary said
/// in part, by the square of the part: a whole phrase is decisive, a word or two of it is not.
const SUMMARY_WEIGHT: f32 = 3.0;
/// How much a tool whose path ends at the verb's object multiplies a score by.
const OBJECT_WEIGHT: f32 = 0.5;
/// How much a tool whose path has the shape the verb asks for (a collection for a list, an item
/// for a delete) multiplies a score by.
const SHAPE_WEIGHT: f32 = 0.3;

/// Each term of a tool's path the request does not say keeps this share of a score: of two tools
/// that match alike, the one whose path says less beside the request is the more likely (`GET
/// /repos/{owner}/{repo}/pulls` for "list pull requests", not `…/commits/{sha}/pulls`).
const PATH_UNSAID: f32 = 0.85;

/// The request as the second look reads it: its terms' ids with their idf (related terms at
/// theirs), the concept each stands for, and what its verb acts on.
pub(crate) struct Reading<'a> {
    /// (term id, idf as weighted for the query, concepts bits).
    pub terms: &'a [(u32, f32, u64)],
    /// The idf mass of each concept.
    pub mass: &'a [f32; 64],
    /// The ids the verb's object may be (the two terms after the first verb), related ones too.
    pub object: Vec<u32>,
    /// The call shape the request asks for, when it says.
    pub shape: Option<Shape>,
}

/// A shape of call a verb asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// A read of a collection: "list", or a read of things in the plural.
    List,
    /// A change or removal of one item.
    Item,
}

impl Shape {
    /// The shape a request asks for: reads in the plural list; deletes and updates act on an
    /// item; creates and reads of one thing are left to the method.
    pub(crate) fn of(request: &Request, methods: Option<&[&str]>) -> Option<Shape> {
        match methods? {
            m if m.contains(&"GET") && request.plural => Some(Shape::List),
            m if m.contains(&"DELETE") || m.contains(&"PATCH") => Some(Shape::Item),
            _ => None,
        }
    }

    fn fits(self, profile: &Profile) -> bool {
        match self {
            Shape::List => profile.collection && profile.method.as_deref() == Some("GET"),
            Shape::Item => !profile.collection,
        }
    }
}

/// Applies the second look to `scores` (each document's BM25 score, in catalogue order).
pub(crate) fn apply(profiles: &[Profile], idf: &[f32], reading: &Reading<'_>, scores: &mut [f32]) {
    let total: f32 = reading.mass.iter().sum();
    for (score, profile) in scores.iter_mut().zip(profiles).filter(|(s, _)| **s > 0.0) {
        let mut factor = 1.0 + SUMMARY_WEIGHT * summary_match(profile, idf, reading, total).powi(2);
        if profile.resource.last().is_some_and(|r| reading.object.contains(r)) {
            factor += OBJECT_WEIGHT;
        }
        if reading.shape.is_some_and(|s| s.fits(profile)) {
            factor += SHAPE_WEIGHT;
        }
        let unsaid = profile.path.iter().filter(|t| !reading.terms.iter().any(|(id, _, _)| id == *t)).count();
        *score *= factor * PATH_UNSAID.powi(unsaid as i32);
    }
}

/// How fully the request says the tool's summary and the summary says the request, from 0 to 1:
/// the share (by idf) of the summary's terms the request has, times the share of the request's
/// concepts the summary has.
fn summary_match(profile: &Profile, idf: &[f32], reading: &Reading<'_>, total: f32) -> f32 {
    if profile.summary.is_empty() || total <= 0.0 {
        return 0.0;
    }
    let (mut said, mut whole, mut concepts) = (0f32, 0f32, 0u64);
    for &t in &profile.summary {
        let own = idf[t as usize];
        whole += own;
        if let Some((_, q_idf, c)) = reading.terms.iter().find(|(id, _, _)| *id == t) {
            said += own.min(*q_idf);
            concepts |= c;
        }
    }
    if whole <= 0.0 || concepts == 0 {
        return 0.0;
    }
    let covered: f32 = (0..64).filter(|c| concepts & (1 << c) != 0).map(|c| reading.mass[c]).sum();
    (said / whole) * (covered / total)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile(summary: &[u32], resource: &[u32], collection: bool, method: &str) -> Profile {
        Profile {
            writes: !matches!(method, "GET" | "HEAD"),
            summary: summary.to_vec(),
            resource: resource.to_vec(),
            collection,
            method: Some(method.into()),
            path: vec![],
        }
    }

    #[test]
    fn a_summary_said_in_full_outweighs_one_said_in_part() {
        let idf = [1.0, 1.0, 1.0, 1.0];
        let mut mass = [0f32; 64];
        mass[..3].copy_from_slice(&[1.0, 1.0, 1.0]);
        let terms = [(0, 1.0, 1), (1, 1.0, 2), (2, 1.0, 4)];
        let reading = Reading { terms: &terms, mass: &mass, object: vec![], shape: None };
        let whole = profile(&[0, 1, 2], &[], true, "GET");
        let half = profile(&[0, 1, 3], &[], true, "GET");
        let mut scores = [1.0, 1.0];
        apply(&[whole, half], &idf, &reading, &mut scores);
        assert_eq!(scores[0], 1.0 + SUMMARY_WEIGHT);
        assert!(scores[1] > 1.0 && scores[1] < scores[0] / 2.0, "{}", scores[1]);
    }

    #[test]
    fn the_object_and_the_shape_lift_their_tools() {
        let idf = [1.0; 4];
        let mass = [0f32; 64];
        let reading = Reading { terms: &[], mass: &mass, object: vec![1], shape: Some(Shape::List) };
        let issues = profile(&[], &[1], true, "GET");
        let labels = profile(&[], &[2], true, "GET");
        let one_label = profile(&[], &[2], false, "GET");
        let mut scores = [1.0, 1.0, 1.0, 0.0];
        apply(&[issues, labels, one_label, Profile::default()], &idf, &reading, &mut scores);
        assert_eq!(scores, [1.8, 1.3, 1.0, 0.0], "a document no word matched stays unmatched");
    }
}
