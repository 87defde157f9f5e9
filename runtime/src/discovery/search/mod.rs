//! Tool search: BM25F over one field-weighted document per tool (name words, title, description,
//! path segments, tags, parameter names and descriptions, and the verbs its method stands for),
//! with English stemming. An exact tool name or operationId ranks first. Ties keep catalogue
//! order, so results are deterministic.

use std::borrow::Cow;
use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::discovery::analyzer::Analyzer;
use crate::discovery::fuzzy;
use crate::discovery::lexicon::{ABBREVIATIONS, INTENTS, SYNONYMS};
use crate::discovery::query;
use crate::discovery::rerank::{self, Profile, Reading, Shape};

pub(crate) mod fields;
use fields::{Resources, field_texts, profile};

/// What the index reads of one tool.
#[derive(Debug, Clone)]
pub struct SearchDoc<'a> {
    /// The tool's name (an exact match ranks first).
    pub name: &'a str,
    /// The operationId, when it differs from the name (an exact match ranks first too).
    pub operation_id: Option<&'a str>,
    /// The tool's title; `None`: none.
    pub title: Option<&'a str>,
    /// The tool's description (may be empty).
    pub description: &'a str,
    /// The HTTP method, upper-case: indexed as the verbs it stands for, and matched against the
    /// query's intent. `None` for tools without a binding.
    pub method: Option<&'a str>,
    /// The path template (its static segments); `None` for tools without a binding.
    pub path: Option<&'a str>,
    /// The operation's tags.
    pub tags: &'a [String],
    /// The input schema (its top-level property names and the first sentence of their
    /// descriptions).
    pub input_schema: Cow<'a, Map<String, Value>>,
    /// The response's shape (`[{id, poster_path, …}]`): its member names are a weak clue ("a
    /// poster of …" for the tool whose results have `poster_path`).
    pub response_shape: Option<&'a str>,
}

/// A field's weight, and how much its length normalises (BM25's `b`).
#[derive(Clone, Copy)]
struct FieldSpec {
    weight: f32,
    b: f32,
}

const NAME: usize = 0;
const TITLE: usize = 1;
const DESCRIPTION: usize = 2;
const PATH: usize = 3;
const RESOURCE: usize = 4;
const TAGS: usize = 5;
const PARAMS: usize = 6;
const VERBS: usize = 7;
const FIELD_COUNT: usize = 8;
const FIELDS: [FieldSpec; FIELD_COUNT] = [
    FieldSpec { weight: 3.0, b: 0.5 },  // name (and operationId)
    FieldSpec { weight: 2.0, b: 0.5 },  // title
    FieldSpec { weight: 1.0, b: 0.75 }, // description
    FieldSpec { weight: 1.0, b: 0.5 },  // path segments
    FieldSpec { weight: 1.5, b: 0.0 },  // the last static path segment: what the operation acts on
    FieldSpec { weight: 1.5, b: 0.3 },  // tags
    FieldSpec { weight: 0.5, b: 0.75 }, // parameter names and first sentences
    FieldSpec { weight: 1.0, b: 0.0 },  // what the method means, in words a user says
];
const K1: f32 = 3.0;
/// A related word found through [`SYNONYMS`] counts this much of the word itself.
const SYNONYM_WEIGHT: f32 = 0.5;
/// A document matching none of the query's concepts but one keeps this much of its score; one
/// matching all keeps all.
const COORD_FLOOR: f32 = 0.2;
/// Documents whose method does what the query's verb asks get this factor.
const INTENT_BOOST: f32 = 1.7;
/// A tool that writes, under a request to fetch ([`FETCH_VERBS`]), keeps this share of its score.
const WRITE_UNDER_READ: f32 = 0.3;
/// Verbs that ask for data and cannot mean a change. Not "get", which as often asks for a new
/// thing ("get a token for a runner", "get me out of the channel"), nor "check" or "see".
const FETCH_VERBS: &[&str] = &["list", "show", "find", "fetch", "view", "display"];
/// With a sentence-embedding model, a document's cosine similarity to the query counts this much
/// against its BM25 score scaled to the best one's (chosen on the tuned-on sets: 1 to 1.5 did best
/// there, docs/context.md).
const SEMANTIC_WEIGHT: f32 = 1.5;
/// A query whose words match no document finds, by meaning alone, the documents at least this
/// close (all-MiniLM-L6-v2 gives a related request and operation 0.3 and up, unrelated ones
/// under 0.15).
const MEANING_ALONE: f32 = 0.25;

/// A term a query looks for: its id, weighted idf, and the query's concepts (bits) it stands for.
struct QueryTerm {
    id: u32,
    idf: f32,
    concepts: u64,
}

/// The positions of the bits set in `bits`.
fn set_bits(mut bits: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        let at = bits.trailing_zeros() as usize;
        bits &= bits.wrapping_sub(1);
        (at < 64).then_some(at)
    })
}

/// A built index. Postings hold each document's finished BM25F term weight, so a query only adds.
pub struct SearchIndex {
    terms: HashMap<String, u32>,
    /// Per term: related terms (through [`SYNONYMS`] and [`ABBREVIATIONS`]), with their weights.
    related: HashMap<String, Vec<(String, f32)>>,
    /// Per document: its method, summary, resource and path shape, for the query's intent and
    /// the second look ([`rerank`]).
    profiles: Vec<Profile>,
    /// Stemmed intent verbs, and the methods they ask for.
    intents: Vec<(Vec<String>, &'static [&'static str])>,
    /// Stemmed verbs that ask to read and nothing else ([`FETCH_VERBS`]).
    fetch_verbs: Vec<String>,
    /// Per term: (document, saturated weighted term frequency).
    postings: Vec<Vec<(u32, f32)>>,
    idf: Vec<f32>,
    /// Lower-cased tool names and operationIds.
    exact: HashMap<String, Vec<u32>>,
    /// What the paths act on (their static segments), for ids whose prefix names one.
    resources: Resources,
    /// Per term of the responses' member names: the documents whose response has it. A word of a
    /// request that no tool's own text has is looked for here.
    response_words: HashMap<String, Vec<u32>>,
    /// Per document: its name and title, lower-case, for [`SearchIndex::closest`].
    spellings: Vec<String>,
    docs: usize,
    analyzer: Analyzer,
}

/// Per term, the terms a query for it also looks for, and at what weight.
fn related_terms(analyzer: &Analyzer) -> HashMap<String, Vec<(String, f32)>> {
    let mut related: HashMap<String, Vec<(String, f32)>> = HashMap::new();
    let mut relate = |a: &str, b: &str, weight: f32| {
        let list = related.entry(a.to_string()).or_default();
        if a != b && !list.iter().any(|(t, _)| t == b) {
            list.push((b.to_string(), weight));
        }
    };
    for (short, long) in ABBREVIATIONS {
        let (short, long) = (analyzer.all_terms(&[short]), analyzer.all_terms(&[long]));
        for l in &long {
            relate(&short[0], l, 1.0);
        }
        // A single word stands for the abbreviation as well; one of several words does not.
        if let [l] = long.as_slice() {
            relate(l, &short[0], 1.0);
        }
    }
    for group in SYNONYMS {
        // A phrase of a group ("money back") stands for the group as a whole, which single words
        // cannot match; its words alone ("money") mean something else. PHRASES rewrites it.
        let words: Vec<&str> = group.iter().copied().filter(|w| !w.contains(' ')).collect();
        let stems = analyzer.all_terms(&words);
        for a in &stems {
            for b in &stems {
                relate(a, b, SYNONYM_WEIGHT);
            }
        }
    }
    related
}

/// A word of the index that begins with another (`dependabot`, `depend`; `usergroups`, `user`)
/// is found by it too, at synonym weight: API names join words that users say apart.
fn add_compounds(terms: &HashMap<String, u32>, related: &mut HashMap<String, Vec<(String, f32)>>) {
    let mut compounds: Vec<(&str, &str)> = Vec::new();
    for term in terms.keys().filter(|t| t.len() >= MIN_COMPOUND && t.is_ascii()) {
        for end in MIN_PART..=term.len() - MIN_REST {
            if terms.contains_key(&term[..end]) {
                compounds.push((&term[..end], term));
            }
        }
    }
    // Sorted, so that related lists do not depend on the hash map's order.
    compounds.sort_unstable();
    for (part, whole) in compounds {
        let list = related.entry(part.to_string()).or_default();
        if !list.iter().any(|(t, _)| t == whole) {
            list.push((whole.to_string(), SYNONYM_WEIGHT));
        }
    }
}

/// The shortest word that can be split as a compound, its shortest first part, and its shortest
/// rest.
const MIN_COMPOUND: usize = 8;
const MIN_PART: usize = 5;
const MIN_REST: usize = 3;

/// What the index's first pass reads of the documents: each one's fields as term ids (the field
/// lengths give the averages of the second pass), and what else search looks up by document.
#[derive(Default)]
struct Collected {
    terms: HashMap<String, u32>,
    exact: HashMap<String, Vec<u32>>,
    fielded: Vec<[Vec<u32>; FIELD_COUNT]>,
    profiles: Vec<Profile>,
    response_words: HashMap<String, Vec<u32>>,
    spellings: Vec<String>,
    resources: Resources,
}

impl Collected {
    /// Pass 1 over `docs`, in their order, the first numbered `first`.
    fn of<'a>(docs: impl IntoIterator<Item = SearchDoc<'a>>, first: u32, analyzer: &Analyzer) -> Collected {
        let mut analyzer = analyzer.memo();
        let mut c = Collected::default();
        let mut buf = Vec::new();
        for (i, doc) in docs.into_iter().enumerate() {
            c.resources.add(doc.path);
            let id = first + i as u32;
            c.exact.entry(doc.name.to_lowercase()).or_default().push(id);
            if let Some(op) = doc.operation_id.filter(|op| !op.eq_ignore_ascii_case(doc.name)) {
                c.exact.entry(op.to_lowercase()).or_default().push(id);
            }
            let mut fields: [Vec<u32>; FIELD_COUNT] = Default::default();
            for (field, text) in field_texts(&doc) {
                buf.clear();
                analyzer.terms(&text, &mut buf);
                for t in buf.drain(..) {
                    let next = c.terms.len() as u32;
                    fields[field].push(*c.terms.entry(t).or_insert(next));
                }
            }
            c.fielded.push(fields);
            c.profiles.push(profile(&doc, &mut analyzer, &mut c.terms));
            c.spellings.push(format!("{} {}", doc.name, doc.title.unwrap_or("")).trim().to_lowercase());
            analyzer.terms(doc.response_shape.unwrap_or(""), &mut buf);
            for t in buf.drain(..) {
                let docs = c.response_words.entry(t).or_default();
                if docs.last() != Some(&id) {
                    docs.push(id);
                }
            }
        }
        c
    }

    /// `self` followed by `next` (the documents after them): as one pass over both would have
    /// made it. `next`'s terms new to `self` take the next ids in the order `next` met them.
    fn append(mut self, next: Collected) -> Collected {
        let mut names = vec![String::new(); next.terms.len()];
        for (term, id) in next.terms {
            names[id as usize] = term;
        }
        let ids: Vec<u32> = names
            .into_iter()
            .map(|term| {
                let id = self.terms.len() as u32;
                *self.terms.entry(term).or_insert(id)
            })
            .collect();
        let renumber = |terms: &mut Vec<u32>| terms.iter_mut().for_each(|t| *t = ids[*t as usize]);
        for mut fields in next.fielded {
            fields.iter_mut().for_each(renumber);
            self.fielded.push(fields);
        }
        for mut profile in next.profiles {
            renumber(&mut profile.summary);
            renumber(&mut profile.resource);
            renumber(&mut profile.path);
            profile.path.sort_unstable();
            self.profiles.push(profile);
        }
        for (name, docs) in next.exact {
            self.exact.entry(name).or_default().extend(docs);
        }
        for (word, docs) in next.response_words {
            self.response_words.entry(word).or_default().extend(docs);
        }
        self.spellings.extend(next.spellings);
        self.resources.append(next.resources);
        self
    }
}

/// At most this many threads read documents, each at least this many of them.
const MAX_THREADS: usize = 4;
const MIN_RUN: usize = 1024;

/// Pass 2 (BM25F): per term, each document's length-normalised weighted frequency, saturated;
/// and each term's inverse document frequency.
fn weigh(fielded: &[[Vec<u32>; FIELD_COUNT]], term_count: usize) -> (Vec<Vec<(u32, f32)>>, Vec<f32>) {
    let n = fielded.len().max(1) as f32;
    let mut avg = [0f32; FIELD_COUNT];
    for f in fielded {
        for (a, terms) in avg.iter_mut().zip(f) {
            *a += terms.len() as f32;
        }
    }
    avg.iter_mut().for_each(|a| *a = (*a / n).max(1.0));
    let mut postings: Vec<Vec<(u32, f32)>> = vec![Vec::new(); term_count];
    let mut tf: HashMap<u32, f32> = HashMap::new();
    for (doc, fields) in fielded.iter().enumerate() {
        tf.clear();
        for (f, ids) in fields.iter().enumerate() {
            let spec = FIELDS[f];
            let norm = 1.0 - spec.b + spec.b * ids.len() as f32 / avg[f];
            for id in ids {
                *tf.entry(*id).or_insert(0.0) += spec.weight / norm;
            }
        }
        let mut entries: Vec<(u32, f32)> = tf.iter().map(|(t, w)| (*t, *w)).collect();
        entries.sort_unstable_by_key(|(t, _)| *t);
        for (t, w) in entries {
            postings[t as usize].push((doc as u32, w * (K1 + 1.0) / (w + K1)));
        }
    }
    let idf = postings
        .iter()
        .map(|p| {
            let df = p.len() as f32;
            (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
        })
        .collect();
    (postings, idf)
}

impl SearchIndex {
    /// Indexes these documents; a hit's index is the document's position among them.
    pub fn build<'a>(docs: impl IntoIterator<Item = SearchDoc<'a>>) -> SearchIndex {
        let analyzer = Analyzer::default();
        let collected = Collected::of(docs, 0, &analyzer);
        SearchIndex::from_collected(collected, analyzer)
    }

    /// Like [`SearchIndex::build`] over the documents `0..count` that `doc` makes, read on every
    /// core, each a run of them (Microsoft Graph's 11,422 tools took most of a second on one). The
    /// index is the one [`SearchIndex::build`] makes of the same documents, term ids and all.
    pub fn build_from<'a>(count: usize, doc: impl Fn(usize) -> SearchDoc<'a> + Sync) -> SearchIndex {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        SearchIndex::build_in_runs(count, doc, cores.min(MAX_THREADS).min(count / MIN_RUN).max(1))
    }

    /// [`SearchIndex::build_from`] on `threads` threads.
    fn build_in_runs<'a>(count: usize, doc: impl Fn(usize) -> SearchDoc<'a> + Sync, threads: usize) -> SearchIndex {
        let analyzer = Analyzer::default();
        let run = count.div_ceil(threads);
        let collect = |start: usize| {
            let end = (start + run).min(count);
            Collected::of((start..end).map(&doc), start as u32, &analyzer)
        };
        let parts: Vec<Collected> = std::thread::scope(|scope| {
            let helpers: Vec<_> = (1..threads).map(|t| scope.spawn(move || collect(t * run))).collect();
            let first = collect(0);
            std::iter::once(first)
                .chain(helpers.into_iter().map(|h| h.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))))
                .collect()
        });
        let collected = parts.into_iter().reduce(Collected::append).unwrap_or_default();
        SearchIndex::from_collected(collected, analyzer)
    }

    /// Pass 2 and the tables that do not depend on the documents.
    fn from_collected(collected: Collected, analyzer: Analyzer) -> SearchIndex {
        let (postings, idf) = weigh(&collected.fielded, collected.terms.len());
        let intents = INTENTS.iter().map(|(verbs, methods)| (analyzer.all_terms(verbs), *methods)).collect();
        let fetch_verbs = analyzer.all_terms(FETCH_VERBS);
        let mut related = related_terms(&analyzer);
        add_compounds(&collected.terms, &mut related);
        let Collected { terms, exact, fielded, profiles, response_words, spellings, resources } = collected;
        SearchIndex {
            fetch_verbs,
            terms,
            related,
            profiles,
            intents,
            postings,
            idf,
            exact,
            resources,
            response_words,
            spellings,
            docs: fielded.len(),
            analyzer,
        }
    }

    /// The number of documents indexed.
    pub fn len(&self) -> usize {
        self.docs
    }

    /// Whether no document is indexed.
    pub fn is_empty(&self) -> bool {
        self.docs == 0
    }

    /// Each query term (a concept, one bit) and its related terms at their weights; a term counts
    /// once, at its best.
    fn weighted_terms(&self, query_terms: &[String]) -> Vec<QueryTerm> {
        let mut weighted: Vec<QueryTerm> = Vec::new();
        let mut add = |term: &str, idf: f32, concept: usize| {
            let Some(&id) = self.terms.get(term) else { return };
            let bit = if concept < 64 { 1u64 << concept } else { 0 };
            match weighted.iter_mut().find(|q| q.id == id) {
                Some(q) => {
                    q.idf = q.idf.max(idf);
                    q.concepts |= bit;
                }
                None => weighted.push(QueryTerm { id, idf, concepts: bit }),
            }
        };
        for (c, t) in query_terms.iter().enumerate() {
            let c = query_terms.iter().position(|o| o == t).unwrap_or(c);
            let own = self.terms.get(t).map(|&id| self.idf[id as usize]);
            add(t, own.unwrap_or(0.0), c);
            // A related word is never worth more than the word the user said: a rarer synonym
            // would otherwise outrank the documents that use the user's own word.
            for (r, weight) in self.related.get(t).into_iter().flatten() {
                let Some(&rid) = self.terms.get(r) else { continue };
                let idf = self.idf[rid as usize];
                add(r, own.map_or(idf, |own| own.min(idf)) * weight, c);
            }
        }
        weighted
    }

    /// BM25F scores of all documents, scaled by how much of the query (its concepts, by idf) each
    /// one covers: a document that matches every part of a request beats one that matches a
    /// single rare word many times.
    fn scores(&self, weighted: &[QueryTerm]) -> (Vec<f32>, [f32; 64]) {
        let mut scores = vec![0f32; self.docs];
        let mut covered = vec![0u64; self.docs];
        let mut mass = [0f32; 64];
        for q in weighted {
            let idf = q.idf;
            for c in set_bits(q.concepts) {
                mass[c] = mass[c].max(idf);
            }
            for &(doc, w) in &self.postings[q.id as usize] {
                scores[doc as usize] += idf * w;
                covered[doc as usize] |= q.concepts;
            }
        }
        let total: f32 = mass.iter().sum();
        if total > 0.0 {
            for (score, &bits) in scores.iter_mut().zip(&covered).filter(|(s, _)| **s > 0.0) {
                let have: f32 = set_bits(bits).map(|c| mass[c]).sum();
                *score *= COORD_FLOOR + (1.0 - COORD_FLOOR) * have / total;
            }
        }
        (scores, mass)
    }

    /// The best `limit` documents for `query`, best first, as (document index, score). Exact
    /// name or operationId matches come first (score `f32::INFINITY`).
    pub fn search(&self, query: &str, limit: usize) -> Vec<(usize, f32)> {
        self.search_with(query, limit, None)
    }

    /// [`SearchIndex::search`], with each document's cosine similarity to the query from a
    /// sentence-embedding model (`crate::discovery::semantic`) added to its BM25 score scaled to the best
    /// one's: a document the words miss can still rank by what it means. When the words match
    /// nothing, only documents close in meaning are hits; without any, the caller shows the map of
    /// the API.
    pub fn search_with(&self, query: &str, limit: usize, cosines: Option<&[f32]>) -> Vec<(usize, f32)> {
        let first = self.exact_matches(query);
        let mut scores = self.bm25(query);
        let best = scores.iter().copied().fold(0f32, f32::max);
        if let Some(cosines) = cosines.filter(|c| c.len() == scores.len()) {
            for (score, &cos) in scores.iter_mut().zip(cosines) {
                *score = if best > 0.0 {
                    // Above zero, so that every document can rank.
                    *score / best + SEMANTIC_WEIGHT * (cos + 1.0)
                } else if cos >= MEANING_ALONE {
                    cos
                } else {
                    0.0
                };
            }
        }
        let mut hits: Vec<(usize, f32)> = first.iter().map(|&d| (d as usize, f32::INFINITY)).collect();
        let mut ranked: Vec<(usize, f32)> = scores
            .iter()
            .enumerate()
            .filter(|(d, s)| **s > 0.0 && !first.contains(&(*d as u32)))
            .map(|(d, s)| (d, *s))
            .collect();
        let order = |a: &(usize, f32), b: &(usize, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        let want = limit.saturating_sub(hits.len());
        if want > 0 && ranked.len() > want {
            ranked.select_nth_unstable_by(want - 1, order);
            ranked.truncate(want);
        }
        ranked.sort_unstable_by(order);
        hits.extend(ranked);
        hits.truncate(limit);
        hits
    }

    /// The tools closest to a request whose words match none ([`SearchIndex::search`] is empty):
    /// its words respelled as the closest words the tools have ("pul requets"), else the tools
    /// whose names and titles share the most letter pairs with it. Empty only for a request with
    /// no letters in common with any tool.
    pub fn closest(&self, query: &str, limit: usize) -> Vec<(usize, f32)> {
        let request = query::analyze(query);
        let mut terms = Vec::new();
        self.analyzer.terms(&request.text, &mut terms);
        let has_postings = |id: u32| !self.postings[id as usize].is_empty();
        if let Some(respelled) = fuzzy::respelled(&terms, &self.terms, &has_postings) {
            let (scores, _) = self.scores(&self.weighted_terms(&respelled));
            let mut hits: Vec<(usize, f32)> =
                scores.iter().enumerate().filter(|(_, s)| **s > 0.0).map(|(d, s)| (d, *s)).collect();
            if !hits.is_empty() {
                hits.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
                hits.truncate(limit);
                return hits;
            }
        }
        fuzzy::closest_spellings(query, &self.spellings, limit)
    }

    /// Documents whose name or operationId is the query, or one of its words.
    fn exact_matches(&self, query: &str) -> Vec<u32> {
        let mut first: Vec<u32> = Vec::new();
        let whole = query.trim().to_lowercase();
        for key in std::iter::once(whole.as_str()).chain(whole.split_whitespace()) {
            for &d in self.exact.get(key).into_iter().flatten() {
                if !first.contains(&d) {
                    first.push(d);
                }
            }
        }
        first
    }

    /// Every document's BM25F score for `query`, with the intent the query shows applied.
    fn bm25(&self, query: &str) -> Vec<f32> {
        let request = query::analyze(query);
        let mut query_terms = Vec::new();
        self.analyzer.terms(&request.text, &mut query_terms);
        for prefix in &request.id_prefixes {
            if let Some(resource) = self.resources.named_by(prefix) {
                self.analyzer.terms(resource, &mut query_terms);
            }
        }
        // States count as words of the request, after the verb has been found without them.
        let said = query_terms.len();
        for state in &request.states {
            self.analyzer.terms(state, &mut query_terms);
        }
        let weighted = self.weighted_terms(&query_terms);
        let (mut scores, mass) = self.scores(&weighted);
        // A question asks to read; otherwise the first verb that says what kind of call is wanted
        // favours the methods that do it.
        let verb = query_terms[..said].iter().position(|t| self.intents.iter().any(|(verbs, _)| verbs.contains(t)));
        let intent = if request.question {
            Some(READS)
        } else {
            verb.and_then(|at| self.intents.iter().find(|(verbs, _)| verbs.contains(&query_terms[at]))).map(|(_, m)| *m)
        };
        if let Some(methods) = intent {
            // A request to fetch ranks reads above writes that share its words ("list the failed
            // workflow runs" is not a re-run of them).
            let reading = verb.is_some_and(|at| self.fetch_verbs.contains(&query_terms[at]));
            for (score, p) in scores.iter_mut().zip(&self.profiles) {
                if p.method.as_deref().is_some_and(|m| methods.contains(&m)) {
                    *score *= INTENT_BOOST;
                } else if reading && p.writes {
                    *score *= WRITE_UNDER_READ;
                }
            }
        }
        // What the verb acts on: the two terms after it (a question's first two).
        let object_at = match verb {
            _ if request.question => 0,
            Some(at) => at + 1,
            None => said,
        };
        let terms: Vec<(u32, f32, u64)> = weighted.iter().map(|q| (q.id, q.idf, q.concepts)).collect();
        let object = query_terms[..said].iter().skip(object_at).take(2).flat_map(|t| self.ids_for(t)).collect();
        let reading = Reading { terms: &terms, mass: &mass, object, shape: Shape::of(&request, intent) };
        rerank::apply(&self.profiles, &self.idf, &reading, &mut scores);
        self.add_response_words(&query_terms, &mut scores);
        scores
    }

    /// Words of the request that no tool's own text has, found in the responses' member names
    /// ("a poster of …": `poster_path`), as a field of low weight would count them. Only such
    /// words: the responses' names never move a request the tools' own words answer.
    fn add_response_words(&self, query_terms: &[String], scores: &mut [f32]) {
        let unknown = |t: &&String| self.terms.get(*t).is_none_or(|&id| self.postings[id as usize].is_empty());
        for docs in query_terms.iter().filter(unknown).filter_map(|t| self.response_words.get(t)) {
            let df = docs.len() as f32;
            let idf = (1.0 + (self.docs as f32 - df + 0.5) / (df + 0.5)).ln();
            let weight = RESPONSE_WORD_WEIGHT * (K1 + 1.0) / (RESPONSE_WORD_WEIGHT + K1);
            for &d in docs {
                scores[d as usize] += idf * weight;
            }
        }
    }

    /// The ids of a query term and of its related terms.
    fn ids_for(&self, term: &str) -> Vec<u32> {
        let related = self.related.get(term).into_iter().flatten().map(|(r, _)| r.as_str());
        std::iter::once(term).chain(related).filter_map(|t| self.terms.get(t).copied()).collect()
    }
}

/// The field weight of the responses' member names (a parameter's is 0.5).
const RESPONSE_WORD_WEIGHT: f32 = 0.3;

/// The methods that read.
const READS: &[&str] = &["GET", "HEAD"];

#[cfg(test)]
mod tests;
