//! How a tool pages through a list, from its query parameters, and the arguments that get the
//! rest of a reduced result or the next page: from the API's `Link: <...>; rel="next"` header, a
//! cursor in the body, or the tool's own page, offset or cursor argument.

use serde_json::{Map, Value};

use crate::config::{HttpBinding, ParamLocation};
use crate::response::json::Json;

/// A tool's pagination style, with the name of the argument that carries it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Paging {
    /// A page number (`page`), counting from `first`.
    Page {
        /// The argument.
        arg: String,
        /// The first page's number when the argument is left out.
        first: i64,
    },
    /// An item offset (`offset`, `skip`, `start`).
    Offset {
        /// The argument.
        arg: String,
    },
    /// The id of the last item seen (Stripe's `starting_after`).
    StartingAfter {
        /// The argument.
        arg: String,
    },
    /// An opaque cursor the API answers (`cursor`, `page_token`, `after`).
    Cursor {
        /// The argument.
        arg: String,
    },
}

/// What a tool knows to page: its style (if any) and its query parameters by wire name.
#[derive(Debug, Clone, Default)]
pub struct Pager {
    /// The style, `None` when no parameter looks like one.
    pub style: Option<Paging>,
    /// Query parameters: (name on the wire, argument, the argument's schema type).
    query: Vec<(String, String, Option<String>)>,
    /// An argument that pages backwards (`before`, `ending_before`): the tool pages, though the
    /// engine fetches no next page with it.
    backward: Option<String>,
}

/// Wire names, normalised (lower case; `_`, `-`, `$`, `[`, `]` dropped), of each style.
const PAGE: &[&str] = &["page", "pagenumber", "pageno", "pagenum", "pageindex"];
const OFFSET: &[&str] = &["offset", "skip", "start", "startindex", "pageoffset"];
const STARTING_AFTER: &[&str] = &["startingafter", "afterid", "sinceid"];
/// `since` is the id of the last item seen when it is an integer (GitHub's `GET /repositories`);
/// a date otherwise, which filters rather than pages.
const SINCE: &str = "since";
const CURSOR: &[&str] = &[
    "cursor",
    "pagetoken",
    "nexttoken",
    "nextpagetoken",
    "nextcursor",
    "next",
    "pagingtoken",
    "continuation",
    "continuationtoken",
    "after",
    "marker",
    "pagecursor",
    "startingtoken",
    "paginationtoken",
    "pageafter",
];

/// Arguments that page backwards, from the item before which the page ends.
const BACKWARD: &[&str] =
    &["before", "endingbefore", "beforeid", "beforecursor", "prev", "previous", "prevcursor", "previouscursor"];

fn normalised(name: &str) -> String {
    name.chars().filter(|c| !matches!(c, '_' | '-' | '$' | '[' | ']')).flat_map(char::to_lowercase).collect()
}

impl Pager {
    /// The pager of a tool, from its binding's query parameters and its input schema.
    pub fn detect(http: &HttpBinding, input_schema: &Map<String, Value>) -> Pager {
        let props = input_schema.get("properties").and_then(Value::as_object);
        let schema_of = |arg: &str| props.and_then(|p| p.get(arg));
        let query: Vec<(String, String, Option<String>)> = http
            .params
            .iter()
            .filter(|p| p.location == ParamLocation::Query)
            .map(|p| {
                let ty = schema_of(&p.arg).and_then(|s| s.get("type")).and_then(Value::as_str).map(str::to_string);
                (p.name.clone(), p.arg.clone(), ty)
            })
            .collect();
        let find = |names: &[&str]| {
            query.iter().find(|(wire, _, _)| names.contains(&normalised(wire).as_str())).map(|(_, arg, _)| arg.clone())
        };
        let since = query
            .iter()
            .find(|(wire, _, ty)| normalised(wire) == SINCE && ty.as_deref() == Some("integer"))
            .map(|(_, arg, _)| arg.clone());
        let style = if let Some(arg) = find(STARTING_AFTER).or(since) {
            Some(Paging::StartingAfter { arg })
        } else if let Some(arg) = find(CURSOR) {
            Some(Paging::Cursor { arg })
        } else if let Some(arg) = find(OFFSET) {
            Some(Paging::Offset { arg })
        } else if let Some(arg) = find(PAGE) {
            let first = schema_of(&arg).and_then(|s| s.get("default")).and_then(Value::as_i64).unwrap_or(1);
            Some(Paging::Page { arg, first })
        } else {
            None
        };
        let backward = find(BACKWARD);
        Pager { style, query, backward }
    }

    /// Whether the tool pages through its list: forwards (its [`style`](Self::style)) or
    /// backwards.
    pub fn pages(&self) -> bool {
        self.style.is_some() || self.backward.is_some()
    }

    /// The arguments that fetch the next page: from a `Link` header's `rel="next"`, a next-page
    /// URL or cursor in the body, or the page argument plus one. Only the arguments that change.
    pub fn next_page(&self, args: &Map<String, Value>, body: &Json, link: Option<&str>) -> Option<NextPage> {
        if let Some(url) = link.and_then(next_link) {
            return Some(self.url_as_args(&url));
        }
        if let Some(next) = body_next(body) {
            if next.starts_with("http://") || next.starts_with("https://") {
                return Some(self.url_as_args(&next));
            }
            if let Some(Paging::Cursor { arg }) = &self.style {
                return Some(NextPage::Args(Map::from_iter([(arg.clone(), Value::String(next))])));
            }
        }
        match &self.style {
            Some(Paging::Page { arg, first }) => {
                let current = args.get(arg).and_then(as_i64).unwrap_or(*first);
                Some(NextPage::Guess(Map::from_iter([(arg.clone(), Value::from(current + 1))])))
            }
            Some(Paging::StartingAfter { arg }) if body.get("has_more") == Some(&Json::Bool(true)) => {
                let last = main_list(body)?.last()?.get("id")?.clone();
                Some(NextPage::Args(Map::from_iter([(arg.clone(), last.to_value())])))
            }
            _ => None,
        }
    }

    /// The arguments that fetch exactly the items after the first `kept` of this page, when the
    /// style allows it (an offset, or the id of the last item kept).
    pub fn rest(&self, args: &Map<String, Value>, kept_items: &[Json]) -> Option<Map<String, Value>> {
        match &self.style {
            Some(Paging::Offset { arg }) => {
                let current = args.get(arg).and_then(as_i64).unwrap_or(0);
                Some(Map::from_iter([(arg.clone(), Value::from(current + kept_items.len() as i64))]))
            }
            Some(Paging::StartingAfter { arg }) => {
                let id = kept_items.last()?.get("id")?;
                Some(Map::from_iter([(arg.clone(), id.to_value())]))
            }
            _ => None,
        }
    }

    /// A next-page URL as the tool's arguments: each query pair whose name is a query parameter
    /// of the tool; the URL itself when none is.
    fn url_as_args(&self, url: &str) -> NextPage {
        let Ok(parsed) = reqwest::Url::parse(url) else { return NextPage::Url(url.to_string()) };
        let mut args = Map::new();
        for (k, v) in parsed.query_pairs() {
            if let Some((_, arg, ty)) = self.query.iter().find(|(wire, _, _)| *wire == k) {
                let value = match ty.as_deref() {
                    Some("integer") => {
                        v.parse::<i64>().map(Value::from).unwrap_or_else(|_| Value::String(v.to_string()))
                    }
                    Some("number") => v
                        .parse::<f64>()
                        .ok()
                        .and_then(serde_json::Number::from_f64)
                        .map_or_else(|| Value::String(v.to_string()), Value::Number),
                    _ => Value::String(v.to_string()),
                };
                args.insert(arg.clone(), value);
            }
        }
        if args.is_empty() { NextPage::Url(url.to_string()) } else { NextPage::Args(args) }
    }
}

/// How to fetch the next page.
#[derive(Debug, Clone, PartialEq)]
pub enum NextPage {
    /// These arguments, with the others as they were.
    Args(Map<String, Value>),
    /// These arguments (the page number plus one), if the API has a next page: nothing says.
    Guess(Map<String, Value>),
    /// The API's URL for it, which no argument of the tool carries.
    Url(String),
}

fn as_i64(v: &Value) -> Option<i64> {
    v.as_i64().or_else(|| v.as_str().and_then(|s| s.parse().ok()))
}

/// The `rel="next"` target of a `Link` header (RFC 8288).
pub fn next_link(header: &str) -> Option<String> {
    header.split(",").find_map(|link| {
        let (target, params) = link.trim().strip_prefix('<')?.split_once('>')?;
        let next = params.split(';').any(|p| {
            p.trim().strip_prefix("rel=").is_some_and(|rel| {
                rel.trim_matches('"').split_ascii_whitespace().any(|r| r.eq_ignore_ascii_case("next"))
            })
        });
        next.then(|| target.to_string())
    })
}

/// Members that carry the next page's cursor or URL, by normalised name.
const NEXT_KEYS: &[&str] = &[
    "nextcursor",
    "nextpagetoken",
    "nexttoken",
    "continuationtoken",
    "nextpage",
    "next",
    "nextlink",
    "nexturl",
    "odata.nextlink",
    "endcursor",
];
/// Where APIs put them besides the top level.
const NEXT_PLACES: &[&str] = &["responsemetadata", "meta", "pagination", "paging", "pageinfo", "links", "cursor"];

/// A next-page cursor or URL in the body: a string member named like one, at the top level or in
/// a pagination object (`response_metadata.next_cursor`, `meta.next`, `pageInfo.endCursor`).
fn body_next(body: &Json) -> Option<String> {
    let Json::Obj(members) = body else { return None };
    let direct = members.iter().find_map(|(k, v)| {
        let s = v.as_str().filter(|s| !s.is_empty())?;
        NEXT_KEYS.contains(&normalised(k).as_str()).then(|| s.to_string())
    });
    direct.or_else(|| {
        members.iter().filter(|(k, _)| NEXT_PLACES.contains(&normalised(k).as_str())).find_map(|(_, v)| body_next(v))
    })
}

/// The list a body holds: itself when it is an array, else its largest array member.
pub fn main_list(body: &Json) -> Option<&[Json]> {
    match body {
        Json::Arr(items) => Some(items),
        Json::Obj(members) => members
            .iter()
            .filter_map(|(_, v)| match v {
                Json::Arr(items) => Some(items),
                _ => None,
            })
            .max_by_key(|items| items.len())
            .map(Vec::as_slice),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A pager over query parameters given as (name, schema type); `page` defaults to `first`.
    fn pager(params: &[(&str, &str)]) -> Pager {
        let bindings: Vec<Value> = params
            .iter()
            .map(|(name, _)| json!({"arg": name, "name": name, "in": "query", "style": "form", "explode": true}))
            .collect();
        let http: HttpBinding =
            serde_json::from_value(json!({"method": "GET", "path": "/x", "params": bindings})).unwrap();
        let props: Map<String, Value> = params.iter().map(|(n, t)| (n.to_string(), json!({"type": t}))).collect();
        Pager::detect(&http, json!({"type": "object", "properties": props}).as_object().unwrap())
    }

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    fn body(text: &str) -> Json {
        Json::parse(text.as_bytes()).unwrap()
    }

    #[test]
    fn styles_are_detected_by_name() {
        assert_eq!(
            pager(&[("per_page", "integer"), ("page", "integer")]).style,
            Some(Paging::Page { arg: "page".into(), first: 1 })
        );
        assert_eq!(
            pager(&[("limit", "integer"), ("offset", "integer")]).style,
            Some(Paging::Offset { arg: "offset".into() })
        );
        assert_eq!(
            pager(&[("limit", "integer"), ("starting_after", "string")]).style,
            Some(Paging::StartingAfter { arg: "starting_after".into() })
        );
        assert_eq!(pager(&[("page_token", "string")]).style, Some(Paging::Cursor { arg: "page_token".into() }));
        assert_eq!(pager(&[("q", "string")]).style, None);
    }

    #[test]
    fn an_integer_since_is_the_last_id_seen_and_a_date_since_pages_nothing() {
        let github = pager(&[("since", "integer")]);
        assert_eq!(github.style, Some(Paging::StartingAfter { arg: "since".into() }));
        assert_eq!(github.rest(&Map::new(), &[body(r#"{"id": 7}"#)]), Some(args(json!({"since": 7}))));
        assert!(!pager(&[("since", "string")]).pages(), "a date filters the list");
    }

    #[test]
    fn cursors_forwards_and_backwards_page() {
        assert_eq!(pager(&[("next", "string")]).style, Some(Paging::Cursor { arg: "next".into() }));
        let back = pager(&[("before", "string")]);
        assert_eq!(back.style, None, "no next page to fetch with it");
        assert!(back.pages());
        let both = pager(&[("ending_before", "string"), ("starting_after", "string")]);
        assert_eq!(both.style, Some(Paging::StartingAfter { arg: "starting_after".into() }));
    }

    #[test]
    fn a_page_number_goes_up_by_one() {
        let p = pager(&[("page", "integer")]);
        assert_eq!(
            p.next_page(&args(json!({"page": 3})), &body("[1]"), None),
            Some(NextPage::Guess(args(json!({"page": 4}))))
        );
        assert_eq!(p.next_page(&Map::new(), &body("[1]"), None), Some(NextPage::Guess(args(json!({"page": 2})))));
    }

    #[test]
    fn a_link_header_wins_and_maps_to_arguments() {
        let p = pager(&[("page", "integer"), ("per_page", "integer")]);
        let link = r#"<https://api.github.com/repos/o/r/pulls?per_page=30&page=2>; rel="next", <https://api.github.com/repos/o/r/pulls?page=9>; rel="last""#;
        assert_eq!(
            p.next_page(&Map::new(), &body("[1]"), Some(link)),
            Some(NextPage::Args(args(json!({"per_page": 30, "page": 2}))))
        );
    }

    #[test]
    fn a_link_with_no_matching_argument_is_given_as_a_url() {
        let p = pager(&[("q", "string")]);
        let link = "<https://api.example.com/x?token=abc>; rel=next";
        assert_eq!(
            p.next_page(&Map::new(), &body("[1]"), Some(link)),
            Some(NextPage::Url("https://api.example.com/x?token=abc".into()))
        );
    }

    #[test]
    fn a_cursor_in_the_body_fills_the_cursor_argument() {
        let p = pager(&[("cursor", "string"), ("limit", "integer")]);
        let b = body(r#"{"ok":true,"channels":[1,2],"response_metadata":{"next_cursor":"dGVhbTpDMDYx"}}"#);
        assert_eq!(p.next_page(&Map::new(), &b, None), Some(NextPage::Args(args(json!({"cursor": "dGVhbTpDMDYx"})))));
        assert_eq!(
            p.next_page(&Map::new(), &body(r#"{"channels":[],"response_metadata":{"next_cursor":""}}"#), None),
            None
        );
    }

    #[test]
    fn starting_after_takes_the_last_items_id() {
        let p = pager(&[("starting_after", "string")]);
        let b = body(r#"{"object":"list","data":[{"id":"ch_1"},{"id":"ch_2"}],"has_more":true}"#);
        assert_eq!(p.next_page(&Map::new(), &b, None), Some(NextPage::Args(args(json!({"starting_after": "ch_2"})))));
        let kept = [body(r#"{"id":"ch_1"}"#)];
        assert_eq!(p.rest(&Map::new(), &kept), Some(args(json!({"starting_after": "ch_1"}))));
    }

    #[test]
    fn an_offset_rest_starts_after_the_items_kept() {
        let p = pager(&[("offset", "integer"), ("limit", "integer")]);
        let kept = [body("1"), body("2")];
        assert_eq!(p.rest(&args(json!({"offset": 10})), &kept), Some(args(json!({"offset": 12}))));
        assert_eq!(pager(&[("page", "integer")]).rest(&Map::new(), &kept), None);
    }

    #[test]
    fn the_main_list_is_the_array_or_the_largest_array_member() {
        assert_eq!(main_list(&body("[1,2]")).map(<[Json]>::len), Some(2));
        assert_eq!(main_list(&body(r#"{"a":[1],"data":[1,2,3]}"#)).map(<[Json]>::len), Some(3));
        assert!(main_list(&body("1")).is_none());
    }
}
