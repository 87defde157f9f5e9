//! Lists an agent cannot page through (API descriptions only: a config has no response schemas
//! to measure).
//!
//! A list operation is a `GET` whose path ends in a collection (not in a `{parameter}`) and
//! whose JSON response (`crate::responses::sample`) is an array, or an object with an array
//! member of objects (Slack's `channels`, Stripe's `data`) when the path's last word says a
//! collection ([`says_collection`]: a plural, or `list`, `search`, ...; a single thing's object,
//! such as `/oauth.token`'s, may hold arrays of its own). It has no paging when it has no
//! page-size parameter (`limit`, `per_page`, ... as `responses::sample` finds them) and no page,
//! offset or cursor parameter, forwards or backwards (`page`, `offset`, `cursor`, `after`,
//! `before`, `page_token`, `next`, `starting_after`, an integer `since`: as the engine's pager
//! finds them). Its size is estimated at
//! [`DEFAULT_PAGE_SIZE`] items (or the items of its declared example, when more), lean or full
//! as the engine writes results (`crate::responses::estimate`).
//!
//! - `unpaginated-large-list`: over the tool's result budget (`x-mcp.maxResultChars`, else the
//!   context's `--max-result-chars`), so the engine's reduction would cut it.
//! - `unpaginated-list`: within the budget at that size (or no budget).

use serde_json::Value;

use super::group_digits;
use crate::doctor::rules::{UNPAGINATED_LARGE_LIST, UNPAGINATED_LIST};
use crate::doctor::{Context, Finding, Origin, Subject};
use crate::ir::{ApiIr, Method, Operation};
use crate::responses::estimate::{self, lean};
use crate::responses::sample::{self, DEFAULT_PAGE_SIZE, json_chars};
use crate::runtime::tooling::Pager;
use mcpgen_config::ResponseDetail;
use mcpgen_config::exposure::BYTES_PER_TOKEN_ESTIMATE;

pub(crate) fn check(ctx: &Context<'_>) -> Vec<Finding> {
    let Some(ir) = ctx.ir else { return Vec::new() };
    let full = ctx.config.context.response_detail == ResponseDetail::Full;
    ctx.subjects
        .iter()
        .filter_map(|s| match s.origin {
            Origin::Operation(op) if op.function.is_none() && is_list_route(op) && !pages(s, op, ir) => {
                let (chars, items) = list_size(ir, op, full)?;
                Some(finding(ctx, s, chars, items))
            }
            _ => None,
        })
        .collect()
}

fn finding(ctx: &Context<'_>, s: &Subject<'_>, chars: usize, items: usize) -> Finding {
    let budget = mcpgen_config::exposure::result_budget(s.tool, &ctx.config.context);
    let size = format!("~{} characters at {items} items", group_digits(chars));
    let paging = "a page-size parameter (`limit`) and a page or cursor parameter";
    let finding = if budget > 0 && chars > budget {
        Finding::new(
            &UNPAGINATED_LARGE_LIST,
            &s.pointer,
            format!(
                "{} returns a list without paging: {size}, over the {}-character result budget",
                s.label(),
                group_digits(budget)
            ),
            format!(
                "add {paging}: without them mcpgen's response reduction keeps the first items that fit, and the agent \
                 reaches the rest only by `_jq` slices of the whole list, fetched again for each"
            ),
        )
    } else {
        Finding::new(
            &UNPAGINATED_LIST,
            &s.pointer,
            format!("{} returns a list without paging ({size}; it grows with the data)", s.label()),
            format!("add {paging} before the list outgrows the result budget and mcpgen's reduction cuts it"),
        )
    };
    finding.about(&s.pointer).with_tokens(chars.div_ceil(BYTES_PER_TOKEN_ESTIMATE))
}

/// A `GET` of a collection: its path does not end in a parameter.
fn is_list_route(op: &Operation) -> bool {
    op.method == Method::Get
        && op.path.trim_end_matches('/').rsplit('/').next().is_some_and(|seg| !seg.starts_with('{'))
}

/// Whether the operation has a page-size, page, offset or cursor parameter (forwards or
/// backwards), or an id to start after (`starting_after`, GitHub's integer `since`).
fn pages(s: &Subject<'_>, op: &Operation, ir: &ApiIr) -> bool {
    let pager = s.tool.http.as_ref().map(|h| Pager::detect(h, &s.tool.input_schema));
    sample::page_size_parameter(op, &ir.schemas).is_some() || pager.is_some_and(|p| p.pages())
}

/// The estimated characters of the operation's response filled to the default page size and
/// the items counted, when it is a list.
fn list_size(ir: &ApiIr, op: &Operation, full: bool) -> Option<(usize, usize)> {
    let e = estimate::estimate(ir, op)?;
    if let Some(page) = e.page_size {
        // Without a page-size parameter, only an array response has a list, filled to the page.
        let draft = sample::draft(ir, op)?;
        let fills = draft.list.as_ref().is_some_and(|l| l.item.is_some());
        let items = if fills { draft.items().len().max(page) } else { draft.items().len() };
        return (items > 0).then_some((if full { e.chars } else { e.lean_chars }, items));
    }
    let sample = sample::sample_response(ir, op)?;
    let value = if full { sample.value } else { lean(&sample.value, &sample::origin(ir, op)) };
    let Value::Object(obj) = &value else { return None };
    if !says_collection(&op.path) {
        return None;
    }
    let items = main_list(obj)?;
    let first = items.first()?;
    let missing = DEFAULT_PAGE_SIZE.saturating_sub(items.len());
    Some((json_chars(&value) + missing * (json_chars(first) + 1), items.len().max(DEFAULT_PAGE_SIZE)))
}

/// Words that end a list operation's path without being plurals.
const LIST_WORDS: &[&str] = &["list", "search", "find", "query", "all", "history", "feed", "index"];

/// Whether the last word of `path` names a collection: a plural (`pets`, not `address`) or one of
/// [`LIST_WORDS`] (Slack's `/usergroups.list`).
fn says_collection(path: &str) -> bool {
    let last = path.rsplit('/').find(|s| !s.is_empty()).and_then(|s| super::words(s).pop()).unwrap_or_default();
    LIST_WORDS.contains(&last.as_str()) || (last.ends_with('s') && !last.ends_with("ss") && last.len() > 3)
}

/// The object's main list: among its array members whose items are objects, the one with the
/// most items, then the longest (as `responses::sample` picks it).
fn main_list(obj: &serde_json::Map<String, Value>) -> Option<&Vec<Value>> {
    obj.values()
        .filter_map(Value::as_array)
        .filter(|items| items.first().is_some_and(Value::is_object))
        .max_by_key(|items| (items.len(), json_chars(*items)))
}

#[cfg(test)]
mod tests;
