//! Names too long for `--max-name-len`, shortened by dropping whole words: the name keeps its own
//! words, spelled and separated as they were (`-` stays `-`, a hump stays a hump), and loses the
//! ones that say least, in this order:
//!
//! 1. a segment (between `_` or `-`) that repeats the one before it, plural or not: the path
//!    parameter's name after its collection (`users_user_…`, `calendarGroups_calendarGroup_…`);
//! 2. a word an earlier word says already (plural or not: `packages … package`), or that the
//!    name's group says (its first word, when it is the operation's tag: `orgs` says
//!    `organization`, `repos` says `repository`): a word that is a segment of its own, or one of
//!    the last segment's (the operation's); the words of a compound in the path stay together;
//! 3. small words: `for`, `by`, `the`, `a`, `of`, `in`, `or`...;
//! 4. the segments between the first and the last that the API's other names share most, whole,
//!    then any word they share most (they tell least which operation this is), the first
//!    segment's last; the first first among equals (a name's broad context comes first, what it
//!    is about last).
//!
//! Classes 1 to 3 drop their words from the end of the name, one at a time, until it fits; in
//! class 4, the last drop is the one that loses least among those that make the name fit. The
//! first word is never dropped; the last, the first of the operation after a group
//! (`orgs_create-…`) and the first of the last segment (`…_CreateMultiValue…`: verbs, which tell
//! an operation from its siblings) only as repeats. Words asked to be kept (those that tell a name apart from
//! another that shortens alike) are never dropped.

use std::collections::{BTreeSet, HashMap};

/// Small words that say least, for class 3.
const SMALL_WORDS: &[&str] =
    &["the", "a", "an", "for", "by", "of", "in", "on", "to", "from", "with", "at", "as", "via", "and", "or"];

/// One word of a name, with the separator before it (`_`, `-`, or none at a hump) and the
/// segment it is in.
#[derive(Debug, Clone, Copy)]
struct Token<'a> {
    sep: &'a str,
    word: &'a str,
    segment: usize,
}

/// The words of a sanitised name, split at `_` and `-` and where a lower-case letter meets an
/// upper-case one (as `crate::names::name_parts` splits them), each with its separator.
fn tokens(name: &str) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    let mut sep = "";
    for (segment, part) in name.split(['_', '-']).filter(|p| !p.is_empty()).enumerate() {
        // The separator before this part: the one just before it in the name (a leading `_` too).
        let at = part.as_ptr() as usize - name.as_ptr() as usize;
        if at > 0 {
            sep = &name[at - 1..at];
        }
        let bytes = part.as_bytes();
        let mut start = 0;
        for i in 1..bytes.len() {
            if bytes[i].is_ascii_uppercase() && bytes[i - 1].is_ascii_lowercase() {
                out.push(Token { sep, word: &part[start..i], segment });
                sep = "";
                start = i;
            }
        }
        out.push(Token { sep, word: &part[start..], segment });
    }
    out
}

/// A word as compared: lower case, singular (`repositories` and `repository`, `users` and `user`
/// are one).
pub(super) fn stem(word: &str) -> String {
    let w = word.to_ascii_lowercase();
    if w.len() > 4
        && let Some(head) = w.strip_suffix("ies")
    {
        return format!("{head}y");
    }
    if w.len() > 3 && w.ends_with('s') && !w.ends_with("ss") {
        return w[..w.len() - 1].to_string();
    }
    w
}

/// What a name is shortened with beyond itself.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Context<'a> {
    /// The operation's tag (its first), which a group word of the name may be.
    pub tag: Option<&'a str>,
    /// In how many of the API's names each word and segment is.
    pub frequency: Option<&'a Frequency>,
}

/// The name built from the tokens kept: each kept word after the first takes the first
/// separator met since the word kept before it (so that dropping `custom` from
/// `orgs_custom-properties` gives `orgs_properties`).
fn join(tokens: &[Token<'_>], kept: &[bool]) -> String {
    let mut out = String::new();
    let mut sep: Option<&str> = None;
    for (t, &k) in tokens.iter().zip(kept) {
        if sep.is_none_or(str::is_empty) {
            sep = Some(t.sep);
        }
        if k {
            if !out.is_empty() || t.sep.starts_with('_') {
                out.push_str(sep.unwrap_or(""));
            }
            out.push_str(t.word);
            sep = None;
        }
    }
    out
}

/// In how many of an API's names each word ([`stem`]) and each segment (its words, singular, in
/// lower case) is.
#[derive(Debug, Default)]
pub(crate) struct Frequency {
    words: HashMap<String, usize>,
    segments: HashMap<String, usize>,
}

impl Frequency {
    pub(crate) fn of<'a>(names: impl IntoIterator<Item = &'a str>) -> Frequency {
        let mut out = Frequency::default();
        for name in names {
            let tokens = tokens(name);
            let words: BTreeSet<String> = tokens.iter().map(|t| stem(t.word)).collect();
            for w in words {
                *out.words.entry(w).or_default() += 1;
            }
            let segments: BTreeSet<String> = (0..=tokens.last().map_or(0, |t| t.segment))
                .map(|s| segment_key(tokens.iter().filter(|t| t.segment == s).map(|t| t.word)))
                .collect();
            for s in segments {
                *out.segments.entry(s).or_default() += 1;
            }
        }
        out
    }

    /// In how many names the word is.
    pub(crate) fn word(&self, word: &str) -> usize {
        self.words.get(&stem(word)).copied().unwrap_or(0)
    }
}

/// A segment as counted: its words, singular and in lower case.
fn segment_key<'a>(words: impl Iterator<Item = &'a str>) -> String {
    words.map(stem).collect::<Vec<_>>().join(" ")
}

/// The classes of words dropped, in the order they are (see the module's doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Class {
    RepeatedSegment,
    Repeated,
    Small,
    Common,
}

/// One drop to try: a whole segment, or one word.
#[derive(Debug)]
struct Drop {
    tokens: Vec<usize>,
    class: Class,
}

/// The drops to try, in order.
fn drops(tokens: &[Token<'_>], stems: &[String], ctx: &Context<'_>) -> Vec<Drop> {
    let last_segment = tokens.last().map_or(0, |t| t.segment);
    let segment = |s: usize| -> Vec<usize> { (0..tokens.len()).filter(|&i| tokens[i].segment == s).collect() };
    let mut out: Vec<Drop> = Vec::new();
    // 1. A segment that repeats the one before.
    for s in (1..=last_segment).rev() {
        let (this, before) = (segment(s), segment(s - 1));
        let words = |ix: &[usize]| ix.iter().map(|&i| stems[i].clone()).collect::<Vec<_>>();
        if !this.is_empty() && words(&this) == words(&before) {
            out.push(Drop { tokens: this, class: Class::RepeatedSegment });
        }
    }
    // 2. A word said before, or by the group: a word that is a segment of its own, or one of the
    //    last segment's (the operation's); the words of a compound in the path stay together.
    let group: Option<String> = ctx
        .tag
        .map(stem)
        .filter(|tag| tokens.len() > 1 && tokens[1].segment > 0 && stems.first() == Some(tag))
        .filter(|tag| tag.len() >= 3);
    let alone = |i: usize| {
        let s = tokens[i].segment;
        s == last_segment || (i == 0 || tokens[i - 1].segment != s) && tokens.get(i + 1).is_none_or(|t| t.segment != s)
    };
    for i in (1..tokens.len()).rev().filter(|&i| alone(i)) {
        let said = stems[..i].contains(&stems[i])
            || group.as_ref().is_some_and(|g| stems[i].len() > g.len() && stems[i].starts_with(g.as_str()));
        if said {
            out.push(Drop { tokens: vec![i], class: Class::Repeated });
        }
    }
    // 3. Small words.
    let small = |i: &usize| SMALL_WORDS.contains(&stems[*i].as_str());
    out.extend((1..tokens.len()).rev().filter(small).map(|i| Drop { tokens: vec![i], class: Class::Small }));
    // 4. The segments between the first and the last that the API's names share most, whole; then
    //    any word the API's names share most. The first first among equals.
    let seg_count = |s: usize| {
        let key = segment_key(segment(s).into_iter().map(|i| tokens[i].word));
        ctx.frequency.and_then(|f| f.segments.get(&key)).copied().unwrap_or(0)
    };
    let mut middle: Vec<usize> = (1..last_segment).filter(|&s| segment(s).len() > 1).collect();
    middle.sort_by(|&a, &b| seg_count(b).cmp(&seg_count(a)).then(a.cmp(&b)));
    out.extend(middle.into_iter().map(|s| Drop { tokens: segment(s), class: Class::Common }));
    let count = |i: usize| ctx.frequency.map_or(0, |f| f.word(tokens[i].word));
    // The first segment's last: the group, whose compound with a word less may name another
    // (`deviceAppManagement` and `deviceManagement`).
    let mut common: Vec<usize> = (1..tokens.len()).filter(|i| !small(i)).collect();
    common.sort_by(|&a, &b| {
        (tokens[a].segment == 0).cmp(&(tokens[b].segment == 0)).then(count(b).cmp(&count(a))).then(a.cmp(&b))
    });
    out.extend(common.into_iter().map(|i| Drop { tokens: vec![i], class: Class::Common }));
    out
}

/// `name` within `max` characters by dropping whole words (see the module's doc), never the
/// words at the positions in `keep` (counted as [`crate::names::name_parts`] splits the name);
/// when that cannot reach `max`, the shortest it came to.
pub(crate) fn drop_words(name: &str, max: usize, ctx: &Context<'_>, keep: &BTreeSet<usize>) -> String {
    dropping(name, max, ctx, keep).0
}

/// [`drop_words`], with the positions of the words dropped.
pub(crate) fn dropping(name: &str, max: usize, ctx: &Context<'_>, keep: &BTreeSet<usize>) -> (String, BTreeSet<usize>) {
    if name.len() <= max {
        return (name.to_string(), BTreeSet::new());
    }
    let tokens = tokens(name);
    let stems: Vec<String> = tokens.iter().map(|t| stem(t.word)).collect();
    let protected = protected(&tokens);
    let mut kept = vec![true; tokens.len()];
    let drops = drops(&tokens, &stems, ctx);
    let allowed = |d: &Drop, kept: &[bool]| {
        let repeat = d.class < Class::Small;
        d.tokens.iter().all(|&i| {
            i > 0 && kept[i] && !keep.contains(&i) && (repeat || !protected[i]) && (!repeat || said(&stems, kept, i))
        })
    };
    let without = |d: &Drop, kept: &[bool]| {
        let mut k = kept.to_vec();
        for &i in &d.tokens {
            k[i] = false;
        }
        k
    };
    for (n, d) in drops.iter().enumerate() {
        if d.class == Class::Common {
            // The last drop: the one that loses least among those that bring the name within
            // `max`, when one does (the first in order among equals).
            let finishing = drops[n..]
                .iter()
                .filter(|d| allowed(d, &kept))
                .map(|d| without(d, &kept))
                .map(|k| (join(&tokens, &k), k))
                .filter(|(name, _)| name.len() <= max)
                .min_by_key(|(name, _)| std::cmp::Reverse(name.len()));
            if let Some((_, k)) = finishing {
                kept = k;
                break;
            }
        }
        if allowed(d, &kept) {
            kept = without(d, &kept);
            if join(&tokens, &kept).len() <= max {
                break;
            }
        }
    }
    let dropped = (0..tokens.len()).filter(|&i| !kept[i]).collect();
    (join(&tokens, &kept), dropped)
}

/// The words dropped only as repeats: the first, the last, the operation's first word after a
/// group of one word (`orgs_create-…`) and the first of the last segment
/// (`…_exceptionOccurrences_CreateMultiValue…`): verbs, which tell an operation from its siblings.
fn protected(tokens: &[Token<'_>]) -> Vec<bool> {
    let mut protected = vec![false; tokens.len()];
    if let Some(first) = protected.first_mut() {
        *first = true;
    }
    if let Some(last) = protected.last_mut() {
        *last = true;
    }
    if tokens.len() > 2 && tokens[1].sep == "_" && (tokens[2].sep == "-" || tokens[2].segment == 1) {
        protected[1] = true;
    }
    let last_segment = tokens.last().map_or(0, |t| t.segment);
    if let Some(i) = tokens.iter().position(|t| t.segment == last_segment) {
        protected[i] = true;
    }
    protected
}

/// Whether the word at `i` is still said by a word kept before it (so that dropping it loses
/// nothing), or by the group at the start.
fn said(stems: &[String], kept: &[bool], i: usize) -> bool {
    let before = (0..i).filter(|&j| kept[j]).any(|j| stems[j] == stems[i]);
    before || stems.first().is_some_and(|g| g.len() >= 3 && stems[i].starts_with(g.as_str()))
}

#[cfg(test)]
mod tests;
