//! When a request's words match no tool: its words respelled as the closest words the tools have
//! ("pul requets" finds pull requests), and failing that, the tools whose names and titles are
//! closest in their letters. A search never answers with nothing while the API has tools.

use std::collections::HashMap;

/// The least similarity (normalised Damerau-Levenshtein, 0 to 1) at which a word of the index
/// stands for a misspelt word of a request.
const RESPELL_SIMILARITY: f64 = 0.75;
/// Words shorter than this are not respelled: too many words are one edit from them.
const RESPELL_MIN_LEN: usize = 4;

/// The word of `vocabulary` closest to `term` when it is close enough, for terms the index lacks.
/// Ties go to the alphabetically first word, so that answers do not depend on the map's order.
pub(crate) fn respell<'a>(term: &str, vocabulary: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    if term.chars().count() < RESPELL_MIN_LEN {
        return None;
    }
    let mut best: Option<(f64, &str)> = None;
    for word in vocabulary {
        let similarity = strsim::normalized_damerau_levenshtein(term, word);
        let better = match best {
            None => true,
            Some((b, w)) => similarity > b || (similarity == b && word < w),
        };
        if similarity >= RESPELL_SIMILARITY && better {
            best = Some((similarity, word));
        }
    }
    best.map(|(_, w)| w)
}

/// The `limit` documents whose spelling (name and title, lower-case) shares the most letter pairs
/// with the request (Sørensen-Dice over bigrams), best first; ties in catalogue order.
pub(crate) fn closest_spellings(query: &str, spellings: &[String], limit: usize) -> Vec<(usize, f32)> {
    let query = query.to_lowercase();
    let mut scored: Vec<(usize, f32)> = spellings
        .iter()
        .enumerate()
        .map(|(i, s)| (i, strsim::sorensen_dice(&query, s) as f32))
        .filter(|(_, s)| *s > 0.0)
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    scored.truncate(limit);
    scored
}

/// A request's terms respelled against the terms the index has postings for; `None` when none
/// needed or found a respelling.
pub(crate) fn respelled(
    terms: &[String],
    known: &HashMap<String, u32>,
    has_postings: &dyn Fn(u32) -> bool,
) -> Option<Vec<String>> {
    let mut vocabulary: Vec<&str> =
        known.iter().filter(|(_, id)| has_postings(**id)).map(|(t, _)| t.as_str()).collect();
    vocabulary.sort_unstable();
    let mut changed = false;
    let out = terms
        .iter()
        .map(|t| match known.get(t).filter(|id| has_postings(**id)) {
            Some(_) => t.clone(),
            None => match respell(t, vocabulary.iter().copied()) {
                Some(w) => {
                    changed = true;
                    w.to_string()
                }
                None => t.clone(),
            },
        })
        .collect();
    changed.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn misspelt_words_find_their_word() {
        let words = ["pull", "request", "repositori", "releas"];
        assert_eq!(respell("requet", words.iter().copied()), Some("request"));
        assert_eq!(respell("repositry", words.iter().copied()), Some("repositori"));
        assert_eq!(respell("zebra", words.iter().copied()), None);
        assert_eq!(respell("pul", words.iter().copied()), None, "too short to respell");
    }

    #[test]
    fn spellings_rank_by_shared_letter_pairs() {
        let spellings = ["pulls_list list pull requests".to_string(), "emojis_get get emojis".to_string()];
        let hits = closest_spellings("pullrequests", &spellings, 5);
        assert_eq!(hits[0].0, 0);
        assert!(closest_spellings("§§", &spellings, 5).is_empty());
    }

    #[test]
    fn only_unknown_terms_are_respelled() {
        let known: HashMap<String, u32> = [("pull".to_string(), 0), ("request".to_string(), 1)].into();
        let terms = vec!["pull".to_string(), "requst".to_string()];
        assert_eq!(respelled(&terms, &known, &|_| true), Some(vec!["pull".to_string(), "request".to_string()]));
        assert_eq!(respelled(&["pull".to_string()], &known, &|_| true), None);
    }
}
