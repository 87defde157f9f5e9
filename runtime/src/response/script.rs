//! A response as a script of code mode reads it: whole and as sent, for the script to parse,
//! filter and count (the result budget applies to what the script returns, not to what it
//! reads). Failures are the same error results a direct call gets, which the script's call
//! throws.

use rmcp::model::{CallToolResult, ContentBlock, MetaObject};
use serde_json::Value;

use super::{CallContext, errors, invalid_json};
use crate::upstream::UpstreamResponse;

/// The `_meta` key saying how a script reads a successful result's text.
pub const KIND: &str = "mcpgen/script";

/// How a script reads a successful result's one text block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// JSON text, parsed into a value.
    Json,
    /// Text, as a string.
    Text,
    /// No content: `null`.
    Empty,
}

impl Kind {
    fn as_str(self) -> &'static str {
        match self {
            Kind::Json => "json",
            Kind::Text => "text",
            Kind::Empty => "empty",
        }
    }

    /// The kind a result written by [`for_script`] (or [`script_result`]) carries; `None` for
    /// another result.
    pub fn of(result: &CallToolResult) -> Option<Kind> {
        match result.meta.as_ref()?.0.get(KIND)?.as_str()? {
            "json" => Some(Kind::Json),
            "text" => Some(Kind::Text),
            "empty" => Some(Kind::Empty),
            _ => None,
        }
    }
}

/// A success for a script: `text` read as `kind`.
pub fn script_result(kind: Kind, text: String) -> CallToolResult {
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    let mut meta = serde_json::Map::new();
    meta.insert(KIND.into(), Value::String(kind.as_str().into()));
    result.meta = Some(MetaObject(meta));
    result
}

/// The upstream response for a script.
pub fn for_script(resp: UpstreamResponse, ctx: &CallContext<'_>) -> CallToolResult {
    if !resp.status.is_success() {
        return errors::error_result(&resp, ctx);
    }
    if resp.body.is_empty() {
        return script_result(Kind::Empty, String::new());
    }
    if resp.truncated {
        return CallToolResult::error(vec![ContentBlock::text(format!(
            "`{}` answered more than the response size cap ({} bytes read, --max-response-bytes); the body was cut, \
             so the script cannot read it. Ask for less (a page size, a filter).",
            ctx.tool,
            resp.body.len()
        ))]);
    }
    let media = resp.content_type.as_deref().unwrap_or("").split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    let looks_json = media.contains("json") || (media.is_empty() && matches!(resp.body.first(), Some(b'{' | b'[')));
    if looks_json {
        if let Err(e) = serde_json::from_slice::<serde::de::IgnoredAny>(&resp.body) {
            return invalid_json(&resp, ctx, &e.to_string());
        }
        return script_result(Kind::Json, String::from_utf8_lossy(&resp.body).into_owned());
    }
    match String::from_utf8(resp.body) {
        Ok(text) => script_result(Kind::Text, text),
        Err(e) => CallToolResult::error(vec![ContentBlock::text(format!(
            "`{}` answered {} bytes of binary content ({}); a script reads only JSON and text. Call the tool \
             on its own to get the file.",
            ctx.tool,
            e.as_bytes().len(),
            if media.is_empty() { "no declared type" } else { &media }
        ))]),
    }
}
