//! How large an operation's response is, in characters of minified JSON: as the API sends it, and
//! lean, as the engine writes it by default (without the members that only link back into the API
//! itself). Measured on the operation's sample ([`sample`]), its list at the default page
//! size, without copying the items that fill it.
//!
//! The lean rule (the engine applies its own, of which this is the part that decides sizes): a
//! member is dropped, at any depth, when it is named `_links` (HAL) or its value is a string that
//! is a URL on the API's own origin (the scheme and host of its server URL, e.g. GitHub's
//! `"url": "https://api.github.com/repos/o/r"`; `html_url` on `https://github.com` stays).

use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value;

use super::sample::{self, SampleSource, json_chars};
use crate::ir::{ApiIr, Operation};

/// The size of an operation's successful response.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Estimate {
    /// Characters of the sample as minified JSON.
    pub chars: usize,
    /// Characters of the sample as minified JSON without the members that link back into the API.
    pub lean_chars: usize,
    /// The page size of its list; `None` when it has none.
    pub page_size: Option<usize>,
    /// Whether the sample is the declared example or made from the schema.
    pub source: SampleSource,
}

/// The estimate of `op`'s response; `None` when it has no sample.
pub fn estimate(ir: &ApiIr, op: &Operation) -> Option<Estimate> {
    let draft = sample::draft(ir, op)?;
    let origin = sample::origin(ir, op);
    let missing = draft.missing();
    let present = draft.items().len();
    let item = draft.list.as_ref().and_then(|l| l.item.as_ref());
    let mut chars = json_chars(draft.value.as_ref());
    let mut lean_chars = lean_chars(&draft.value, &origin);
    if let Some(item) = item.filter(|_| missing > 0) {
        // Each copy adds its text and a comma, but the first in an empty list.
        let commas = if present == 0 { missing - 1 } else { missing };
        chars += missing * json_chars(item.as_ref()) + commas;
        let list_kept = draft.list.as_ref().and_then(|l| l.member.as_deref()) != Some("_links");
        if list_kept {
            lean_chars += missing * self::lean_chars(item, &origin) + commas;
        }
    }
    Some(Estimate { chars, lean_chars, page_size: draft.list.as_ref().map(|l| l.page_size), source: draft.source })
}

/// The estimates of many operations' responses, in order: each distinct response (its schema,
/// origin and page size, when it has no example) is sampled once, and the samples are made on
/// every core. Microsoft Graph's 11,422 operations have a few thousand responses.
pub fn estimates(ir: &ApiIr, ops: &[Option<&Operation>]) -> Vec<Option<Estimate>> {
    // What an estimate depends on, for an operation whose sample is made from its schema.
    let key = |op: &Operation| -> Option<(String, String, Option<usize>)> {
        let media = sample::json_media(&op.response.as_ref()?.content)?;
        if media.example.is_some() {
            return None;
        }
        let page = sample::page_size_parameter(op, &ir.schemas).map(|(_, size)| size);
        Some((serde_json::to_string(&media.schema).ok()?, sample::origin(ir, op), page))
    };
    let keys: Vec<Option<(String, String, Option<usize>)>> = ops.iter().map(|op| op.and_then(key)).collect();
    // Each operation's place among the distinct responses: that of the first with its key, or
    // its own (no key).
    let mut first: HashMap<&(String, String, Option<usize>), usize> = HashMap::new();
    let mut distinct: Vec<usize> = Vec::new();
    let mut place = |i: usize| {
        distinct.push(i);
        distinct.len() - 1
    };
    let places: Vec<usize> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| match k {
            Some(k) => *first.entry(k).or_insert_with(|| place(i)),
            None => place(i),
        })
        .collect();
    let made = crate::parallel::map_in_order(&distinct, |&i| ops[i].and_then(|op| estimate(ir, op)));
    places.iter().map(|&p| made[p]).collect()
}

/// `value` without the members the lean rule drops (see the module's doc). `origin` is
/// `scheme://host[:port]`, lower case, without a trailing `/`.
pub fn lean(value: &Value, origin: &str) -> Value {
    match value {
        Value::Object(obj) => Value::Object(
            obj.iter()
                .filter(|(k, v)| k.as_str() != "_links" && !is_own_url(v, origin))
                .map(|(k, v)| (k.clone(), lean(v, origin)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(|v| lean(v, origin)).collect()),
        other => other.clone(),
    }
}

/// Characters of [`lean`]`(value, origin)` as minified JSON, without making it.
fn lean_chars(value: &Value, origin: &str) -> usize {
    let brackets_and_commas = |n: usize| 2 + n.saturating_sub(1);
    match value {
        Value::Object(obj) => {
            let kept = obj.iter().filter(|(k, v)| k.as_str() != "_links" && !is_own_url(v, origin));
            let (count, chars) =
                kept.fold((0, 0), |(n, c), (k, v)| (n + 1, c + json_chars(k) + 1 + lean_chars(v, origin)));
            brackets_and_commas(count) + chars
        }
        Value::Array(items) => {
            brackets_and_commas(items.len()) + items.iter().map(|v| lean_chars(v, origin)).sum::<usize>()
        }
        other => json_chars(other),
    }
}

/// Whether `v` is a string URL on `origin`.
fn is_own_url(v: &Value, origin: &str) -> bool {
    let Value::String(s) = v else { return false };
    let Some(head) = s.get(..origin.len()) else { return false };
    head.eq_ignore_ascii_case(origin) && matches!(s.as_bytes().get(origin.len()), None | Some(b'/' | b'?' | b'#'))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::responses::sample::sample_response;

    const ORIGIN: &str = "https://api.github.com";

    fn ir_of(paths: Value) -> ApiIr {
        let doc = json!({"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
            "servers": [{"url": "https://api.github.com"}], "paths": paths});
        let loaded = crate::load::load_str(&doc.to_string(), "api.json").expect("loads");
        crate::normalize::normalize(loaded, false).expect("normalises")
    }

    fn list_op(example: Value, default: u64) -> ApiIr {
        ir_of(json!({"/a": {"get": {
            "parameters": [{"name": "per_page", "in": "query", "schema": {"type": "integer", "default": default}}],
            "responses": {"200": {"description": "ok", "content": {"application/json": {"example": example}}}}}}}))
    }

    /// The estimate's sizes against those of the filled sample, measured directly.
    fn measured(ir: &ApiIr) -> (Estimate, usize, usize) {
        let op = &ir.operations[0];
        let est = estimate(ir, op).expect("an estimate");
        let sample = sample_response(ir, op).expect("a sample");
        (est, json_chars(&sample.value), json_chars(&lean(&sample.value, ORIGIN)))
    }

    #[test]
    fn lean_characters_are_counted_as_written() {
        let v = json!({"a": [], "b": [{"url": "https://api.github.com/x", "é": {}}, 2], "_links": 1, "c": {}});
        assert_eq!(lean_chars(&v, ORIGIN), json_chars(&lean(&v, ORIGIN)));
        assert_eq!(lean_chars(&json!({"_links": 1}), ORIGIN), 2);
    }

    #[test]
    fn characters_are_counted_not_bytes() {
        assert_eq!(json_chars(&json!({"é": "…"})), 9);
    }

    #[test]
    fn own_urls_are_dropped() {
        let v = json!({"url": "https://api.github.com/repos/o/r", "html_url": "https://github.com/o/r", "id": 1});
        assert_eq!(lean(&v, ORIGIN), json!({"html_url": "https://github.com/o/r", "id": 1}));
    }

    #[test]
    fn own_urls_are_dropped_at_any_depth() {
        let v = json!([{"user": {"url": "https://API.github.com/users/o", "login": "o"}}]);
        assert_eq!(lean(&v, ORIGIN), json!([{"user": {"login": "o"}}]));
    }

    #[test]
    fn a_url_on_another_host_with_the_same_prefix_stays() {
        let v = json!({"a": "https://api.github.com.evil.test/x", "b": "https://api.github.com"});
        assert_eq!(lean(&v, ORIGIN), json!({"a": "https://api.github.com.evil.test/x"}));
    }

    #[test]
    fn hal_links_are_dropped() {
        let v = json!({"_links": {"self": {"href": "https://other.test/x"}}, "id": 1});
        assert_eq!(lean(&v, ORIGIN), json!({"id": 1}));
    }

    #[test]
    fn strings_in_arrays_stay() {
        let v = json!(["https://api.github.com/a"]);
        assert_eq!(lean(&v, ORIGIN), v);
    }

    #[test]
    fn a_value_without_a_list_is_measured_as_it_is() {
        let ir = ir_of(json!({"/a": {"get": {"responses": {"200": {"description": "ok",
            "content": {"application/json": {"example": {"id": 1, "url": "https://api.github.com/a"}}}}}}}}));
        let est = estimate(&ir, &ir.operations[0]).expect("an estimate");
        assert_eq!((est.chars, est.lean_chars, est.page_size), (41, 8, None));
        assert_eq!(est.source, SampleSource::Example);
    }

    #[test]
    fn a_filled_list_is_measured_as_if_filled() {
        let ir = list_op(json!([{"id": 1, "url": "https://api.github.com/a"}, {"id": 2}]), 30);
        let (est, chars, lean_chars) = measured(&ir);
        assert_eq!((est.chars, est.lean_chars, est.page_size), (chars, lean_chars, Some(30)));
    }

    #[test]
    fn an_empty_list_filled_is_measured_as_if_filled() {
        let item = json!({"type": "object", "properties": {"id": {"type": "integer"}, "url": {"type": "string"}}});
        let schema = json!({"type": "object", "properties": {"data": {"type": "array", "items": item}}});
        let media = json!({"example": {"data": []}, "schema": schema});
        let ir = ir_of(json!({"/a": {"get": {
            "parameters": [{"name": "limit", "in": "query", "schema": {"type": "integer", "default": 5}}],
            "responses": {"200": {"description": "ok", "content": {"application/json": media}}}}}}));
        let (est, chars, lean_chars) = measured(&ir);
        assert_eq!((est.chars, est.lean_chars), (chars, lean_chars));
        assert!(est.lean_chars < est.chars);
    }

    #[test]
    fn a_list_under_links_is_not_counted_lean() {
        let ir = list_op(json!({"_links": [{"a": 1}]}), 4);
        let (est, chars, lean_chars) = measured(&ir);
        assert_eq!((est.chars, est.lean_chars), (chars, lean_chars));
    }
}
