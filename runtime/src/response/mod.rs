//! An upstream response to an MCP tool result, fitted to the model (see `docs/context.md`).
//!
//! 2xx JSON: the text is the lean rendering ([`lean`]: minified, without the links back into the
//! API) or the body as sent (`full`), or the value a `_jq` filter selects ([`jq`]); a list may be
//! a table ([`table`]); then the result budget ([`budget`]): over it, lists keep their first items
//! and long strings are shortened, and a second text block says what was left out and which
//! arguments get the rest ([`paging`]). The text is always valid JSON on its own.
//! `structuredContent` only when the tool declares an output schema (the full value, validated),
//! or with `full` (as before). Text: text; `image/*`, `audio/*`, other binary, `multipart/*`:
//! see [`parts`]. Bodies over the size cap are cut with a marker. Non-2xx: `isError` with status,
//! advice and the API's message ([`errors`]), never `structuredContent`.

pub mod budget;
mod errors;
pub mod jq;
pub mod json;
pub mod lean;
pub mod paging;
mod parts;
pub mod script;
pub mod table;

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{Map, Value, json};

use crate::config::{Method, ResponseDetail, ResponseFormat};
use crate::response::budget::Reduction;
use crate::response::json::Json;
use crate::response::paging::{NextPage, Pager};
use crate::upstream::UpstreamResponse;

pub use script::for_script;

/// Checks structured content against a tool's output schema: `Some(problems)` when it breaks it.
pub type OutputCheck<'a> = &'a (dyn Fn(&Value) -> Option<String> + Sync);

/// Characters kept free under the budget for the note that says what was left out.
const NOTE_ROOM: usize = 700;

/// How the call went, for the result text.
pub struct CallContext<'a> {
    /// The request's method, named in error results.
    pub method: Method,
    /// The binding's path template, named in error results.
    pub path: &'a str,
    /// The tool's name (in the URI of a binary result's resource, and in notes).
    pub tool: &'a str,
    /// "set FOO_TOKEN" when a 401/403 may be a missing credential.
    pub auth_hint: Option<String>,
    /// The check of the tool's output schema; `None` when the tool declares none.
    pub validate_output: Option<OutputCheck<'a>>,
    /// Characters of the result at most; `0`: no limit.
    pub budget: usize,
    /// Lean or full.
    pub detail: ResponseDetail,
    /// JSON or tables.
    pub format: ResponseFormat,
    /// The upstream's origin (`https://api.github.com`): lean drops links to it.
    pub origin: &'a str,
    /// The call's arguments, for next-page hints.
    pub args: &'a Map<String, Value>,
    /// How the tool pages; `None`: unknown.
    pub pager: Option<&'a Pager>,
    /// The name of the tool's projection argument (`_jq`) and the filter the call gave, if any.
    pub jq: Option<(&'a str, Option<&'a str>)>,
}

/// A JSON value as a success: `text` for the model, the value as structured content (wrapped as
/// `{"result": ...}` unless it is an object, as MCP requires).
pub fn json_result(value: Value, text: String) -> CallToolResult {
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(structured(value));
    result
}

/// A value as structured content: objects as they are, anything else as `{"result": ...}`.
fn structured(value: Value) -> Value {
    if value.is_object() { value } else { json!({ "result": value }) }
}

/// The tool result of an upstream response (see the module's doc).
pub async fn to_result(resp: UpstreamResponse, ctx: &CallContext<'_>) -> CallToolResult {
    let status = resp.status;
    if !status.is_success() {
        return errors::error_result(&resp, ctx);
    }
    let media = resp.content_type.as_deref().unwrap_or("").split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    let filter = ctx.jq.and_then(|(_, f)| f);
    if resp.body.is_empty() {
        if filter.is_some() {
            return not_filtered(ctx, "the response has no content");
        }
        let text = format!("HTTP {} {} (no content)", status.as_u16(), status.canonical_reason().unwrap_or(""));
        return with_output_check(CallToolResult::success(vec![ContentBlock::text(text.trim_end())]), ctx, None);
    }
    let looks_json = media.contains("json") || (media.is_empty() && matches!(resp.body.first(), Some(b'{' | b'[')));
    if !looks_json {
        if filter.is_some() {
            let kind = if media.is_empty() { "of no declared type".to_string() } else { format!("`{media}`") };
            return not_filtered(ctx, &format!("the response is {kind}, not JSON"));
        }
        return parts::to_result(&resp, &media, ctx);
    }
    if resp.truncated {
        if filter.is_some() {
            return not_filtered(ctx, "the response passed the size cap and was cut, so it is not whole JSON");
        }
        let text = parts::truncated_text(String::from_utf8_lossy(&resp.body).into_owned(), resp.body.len());
        return with_output_check(CallToolResult::success(vec![ContentBlock::text(text)]), ctx, None);
    }
    json_success(&resp, ctx, filter).await
}

/// A 2xx JSON body, whole.
async fn json_success(resp: &UpstreamResponse, ctx: &CallContext<'_>, filter: Option<&str>) -> CallToolResult {
    let declared = ctx.validate_output.is_some();
    // The full value is structured content only where it is promised (an output schema), or with
    // `full`, as before.
    let structured_value = if declared || (ctx.detail == ResponseDetail::Full && filter.is_none()) {
        match serde_json::from_slice::<Value>(&resp.body) {
            Ok(v) => Some(structured(v)),
            Err(e) => return invalid_json(resp, ctx, &e.to_string()),
        }
    } else {
        None
    };
    let body = match Json::parse(&resp.body) {
        Ok(j) => j,
        Err(e) => return invalid_json(resp, ctx, &e.to_string()),
    };
    let full_as_sent = ctx.detail == ResponseDetail::Full && filter.is_none();
    // The body becomes the value in place; a note reads the body as sent again (rarely needed).
    let (value, projected) = match filter {
        Some(f) => match jq::project(f, &resp.body, jq::Limits::default()).await {
            Ok(v) => (v, true),
            Err(e) => return filter_error(ctx, f, &e, &body),
        },
        None if full_as_sent => (body, false),
        None => {
            let mut lean = body;
            let stats = lean::lean(&mut lean, ctx.origin);
            tracing::debug!(
                tool = ctx.tool,
                own_urls = stats.own_urls,
                own_url_chars = stats.own_url_chars,
                links = stats.links,
                link_chars = stats.link_chars,
                "lean rendering"
            );
            (lean, false)
        }
    };
    let raw = full_as_sent.then(|| String::from_utf8_lossy(&resp.body).into_owned());
    let (text, note) = render(value, raw, ctx, &resp.body, projected.then_some(filter).flatten(), resp.link.as_deref());
    let reduced = note.is_some();
    // Whole, the result may still be one page of more: say how to get the next.
    let note = note.or_else(|| more_note(ctx, &resp.body, resp.link.as_deref()));
    let mut content = vec![ContentBlock::text(text)];
    content.extend(note.map(ContentBlock::text));
    let mut result = CallToolResult::success(content);
    // `full` over the budget: the reduced text stands alone unless a schema promises the value.
    if !reduced || declared {
        result.structured_content = structured_value;
    }
    let problem = output_problem(ctx, result.structured_content.as_ref());
    rejected_if(problem, result)
}

/// The text of `value` within the budget (a table where the format says so), and the note on
/// what was left out. `raw`: the body as sent, which `full` gives when it fits; `body`: its bytes.
fn render(
    mut value: Json,
    raw: Option<String>,
    ctx: &CallContext<'_>,
    body: &[u8],
    filter: Option<&str>,
    link: Option<&str>,
) -> (String, Option<String>) {
    let budget = if ctx.budget == 0 { usize::MAX } else { ctx.budget };
    let text = match raw {
        Some(raw) => raw,
        None => as_text(&value, ctx.format),
    };
    if text.chars().count() <= budget {
        return (text, None);
    }
    let reduction = budget::fit(&mut value, budget.saturating_sub(NOTE_ROOM).max(budget / 2));
    let text = as_text(&value, ctx.format);
    // The body as sent: lean may have dropped a next-page URL on the API's own origin.
    let body = Json::parse(body).unwrap_or(Json::Null);
    let note = note(&reduction, &value, ctx, &body, filter, link);
    (text, Some(note))
}

/// JSON, or a table where the format asks for one (`auto`: when it saves enough).
fn as_text(value: &Json, format: ResponseFormat) -> String {
    let json = || value.to_text();
    match format {
        ResponseFormat::Json => json(),
        ResponseFormat::Table => table::table(value).unwrap_or_else(json),
        ResponseFormat::Auto => {
            let json = json();
            match table::table(value) {
                Some(t) if (t.len() as f64) <= table::AUTO_MAX_SHARE * json.len() as f64 => t,
                _ => json,
            }
        }
    }
}

/// What the reduction left out and how to get it: the arguments for the rest of a list and for
/// the next page, and a `_jq` that selects less.
fn note(
    reduction: &Reduction,
    kept: &Json,
    ctx: &CallContext<'_>,
    body: &Json,
    filter: Option<&str>,
    link: Option<&str>,
) -> String {
    let budget = ctx.budget;
    let mut note = format!("[mcpgen: this result was reduced to fit {budget} characters.");
    for o in &reduction.omissions {
        let what = if o.members { "members" } else { "items" };
        note.push_str(&format!(" `{}`: the first {} of {} {what}.", o.path, o.kept, o.total));
    }
    if reduction.strings_cut > 0 {
        note.push_str(&format!(
            " {} long string{} shortened (ending \"…[N more characters]\").",
            reduction.strings_cut,
            if reduction.strings_cut == 1 { "" } else { "s" }
        ));
    }
    note.push(']');
    let tool = ctx.tool;
    let jq_arg = ctx.jq.map(|(arg, _)| arg);
    if let Some(outer) = reduction.omissions.first() {
        let main = ctx.pager.zip(items_at(kept, &outer.path)).and_then(|(p, items)| {
            // The pager's exact rest (an offset, the last id) fits the API's own list only.
            (filter.is_none() && !outer.members).then(|| p.rest(ctx.args, items)).flatten()
        });
        match (main, jq_arg) {
            (Some(rest), _) => note.push_str(&format!(
                "\nThe rest of the list: call `{tool}` again with the same arguments and {}.",
                Value::Object(rest)
            )),
            (None, Some(arg)) => {
                let slice = slice_filter(filter, outer);
                note.push_str(&format!(
                    "\nThe rest of the list: call `{tool}` again with the same arguments and {}.",
                    json!({ arg: slice })
                ));
            }
            (None, None) => {}
        }
    }
    if let Some(next) = ctx.pager.and_then(|p| p.next_page(ctx.args, body, link)) {
        note.push('\n');
        note.push_str(&next_page_text(&next, tool));
    }
    if let (Some(arg), None) = (jq_arg, filter)
        && let Some(example) = projection_example(kept, reduction)
    {
        note.push_str(&format!("\nLess per item: pass {} with the members you need.", json!({ arg: example })));
    }
    note
}

/// How to get the next page, in a note.
fn next_page_text(next: &NextPage, tool: &str) -> String {
    match next {
        NextPage::Args(args) => format!("The next page: the same arguments and {}.", Value::Object(args.clone())),
        NextPage::Guess(args) => {
            format!("The next page, if there is one: the same arguments and {}.", Value::Object(args.clone()))
        }
        NextPage::Url(url) => format!("The API's next page is {url} (no argument of `{tool}` carries it)."),
    }
}

/// The note of a whole result the API says is one page of more (a `Link: rel="next"`, a cursor or
/// next URL in the body, `has_more`): the next call's arguments. Nothing when only a page number
/// suggests a next page: the API did not say there is one.
fn more_note(ctx: &CallContext<'_>, body: &[u8], link: Option<&str>) -> Option<String> {
    let pager = ctx.pager?;
    // Most bodies say nothing of a next page: not parsed again for nothing.
    let says = |word: &[u8]| body.windows(word.len()).any(|w| w.eq_ignore_ascii_case(word));
    if link.is_none() && !(says(b"next") || says(b"cursor") || says(b"continuation") || says(b"has_more")) {
        return None;
    }
    let body = Json::parse(body).ok()?;
    match pager.next_page(ctx.args, &body, link)? {
        NextPage::Guess(_) => None,
        next => Some(format!("[mcpgen: the API has more than this page.] {}", next_page_text(&next, ctx.tool))),
    }
}

/// The items of the list at `path` (`.` or `.name`) in `value`.
fn items_at<'v>(value: &'v Json, path: &str) -> Option<&'v [Json]> {
    let target = match path {
        "." => value,
        p => value.get(p.strip_prefix('.')?)?,
    };
    match target {
        Json::Arr(items) => Some(items),
        _ => None,
    }
}

/// A jq filter for the items (or members) after the ones kept, after `filter`.
fn slice_filter(filter: Option<&str>, omission: &budget::Omission) -> String {
    let (path, kept) = (omission.path.as_str(), omission.kept);
    let slice = match (path, omission.members) {
        (".", false) => format!(".[{kept}:]"),
        (_, false) => format!("{path}[{kept}:]"),
        (".", true) => format!("to_entries[{kept}:] | from_entries"),
        (_, true) => format!("{path} | to_entries[{kept}:] | from_entries"),
    };
    match filter {
        Some(f) => format!("({f}) | {slice}"),
        None => slice,
    }
}

/// `map({a, b, c})` over the outermost reduced list, with the first scalar members of its first
/// item.
fn projection_example(kept: &Json, reduction: &Reduction) -> Option<String> {
    let outer = reduction.omissions.first()?;
    let first = items_at(kept, &outer.path)?.first()?;
    let Json::Obj(members) = first else { return None };
    let keys: Vec<&str> = members
        .iter()
        .filter(|(k, v)| v.is_scalar() && budget::is_identifier(k))
        .map(|(k, _)| k.as_str())
        .take(3)
        .collect();
    if keys.is_empty() {
        return None;
    }
    let map = format!("map({{{}}})", keys.join(", "));
    Some(if outer.path == "." { map } else { format!("{} | {map}", outer.path) })
}

/// The result of a filter that failed: jaq's message, and the response's top-level members.
fn filter_error(ctx: &CallContext<'_>, filter: &str, e: &jq::ProjectionError, body: &Json) -> CallToolResult {
    let arg = ctx.jq.map_or("_jq", |(a, _)| a);
    let fields = match body {
        Json::Obj(members) => {
            format!("an object with {}", members.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>().join(", "))
        }
        Json::Arr(items) => match items.first() {
            Some(Json::Obj(m)) => format!(
                "an array of {} objects with {}",
                items.len(),
                m.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>().join(", ")
            ),
            _ => format!("an array of {} items", items.len()),
        },
        other => format!("a {}", if other.is_scalar() { "scalar" } else { "value" }),
    };
    let fields: String = fields.chars().take(2_000).collect();
    CallToolResult::error(vec![ContentBlock::text(format!(
        "The `{arg}` filter {filter:?} failed on `{}`'s response: {e}. The response is {fields}. The request was \
         sent; call again with a corrected `{arg}` (or without it).",
        ctx.tool
    ))])
}

/// A `_jq` on a response that is not JSON.
fn not_filtered(ctx: &CallContext<'_>, why: &str) -> CallToolResult {
    let arg = ctx.jq.map_or("_jq", |(a, _)| a);
    CallToolResult::error(vec![ContentBlock::text(format!(
        "`{arg}` applies to JSON responses, and {why}. The request was sent; call `{}` again without `{arg}`.",
        ctx.tool
    ))])
}

/// A body that says it is JSON and is not: the raw body, cut to the budget.
fn invalid_json(resp: &UpstreamResponse, ctx: &CallContext<'_>, error: &str) -> CallToolResult {
    let mut text = format!(
        "The API declared JSON but sent invalid JSON ({error}); the raw body follows.\n{}",
        String::from_utf8_lossy(&resp.body)
    );
    if ctx.budget > 0 && text.chars().count() > ctx.budget {
        let end = text.char_indices().nth(ctx.budget).map_or(text.len(), |(i, _)| i);
        text.truncate(end);
        text.push_str(" [...]");
    }
    with_output_check(CallToolResult::success(vec![ContentBlock::text(text)]), ctx, None)
}

/// A tool that declares an output schema must answer conforming structured content, or an error.
pub(crate) fn with_output_check(
    result: CallToolResult,
    ctx: &CallContext<'_>,
    structured: Option<&Value>,
) -> CallToolResult {
    let problem = output_problem(ctx, structured);
    rejected_if(problem, result)
}

/// What breaks the tool's output schema in `structured` (nothing when it declares none).
fn output_problem(ctx: &CallContext<'_>, structured: Option<&Value>) -> Option<String> {
    let check = ctx.validate_output?;
    match structured {
        None => Some("the response is not JSON".to_string()),
        Some(v) => check(v),
    }
}

/// `result`, or an error result saying `problem` before its content.
fn rejected_if(problem: Option<String>, result: CallToolResult) -> CallToolResult {
    match problem {
        None => result,
        Some(p) => {
            let mut content =
                vec![ContentBlock::text(format!("The API's response does not match the tool's output schema: {p}"))];
            content.extend(result.content);
            CallToolResult::error(content)
        }
    }
}

#[cfg(test)]
mod tests;
