//! Bodies that are not JSON: text, images, audio, other binary as an embedded blob, and
//! `multipart/*` (RFC 2046) as one block per part, each mapped the same way.

use base64::Engine as _;
use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};

use crate::response::{CallContext, with_output_check};
use crate::upstream::UpstreamResponse;

/// The result of a 2xx body that is not JSON, of type `media`; text within the budget.
pub(super) fn to_result(resp: &UpstreamResponse, media: &str, ctx: &CallContext<'_>) -> CallToolResult {
    if media.starts_with("multipart/")
        && !resp.truncated
        && let Some(parts) = resp.content_type.as_deref().and_then(|ct| multipart_parts(ct, &resp.body))
    {
        let blocks = parts
            .iter()
            .enumerate()
            .map(|(i, part)| {
                let name = format!("{}/part/{}", ctx.tool, i + 1);
                match &part.attachment {
                    Some(file) => attachment(part, &format!("mcpgen://response/{name}{file}")),
                    None => block(&part.media, part.body, false, &name),
                }
            })
            .collect();
        return with_output_check(CallToolResult::success(blocks), ctx, None);
    }
    let mut block = block(media, &resp.body, resp.truncated, ctx.tool);
    if let (Some(text), true) = (block.as_text(), ctx.budget > 0) {
        let total = text.text.chars().count();
        if total > ctx.budget {
            let keep = ctx.budget.saturating_sub(200);
            let end = text.text.char_indices().nth(keep).map_or(text.text.len(), |(i, _)| i);
            let cut = format!(
                "{}\n[... {} more characters left out: the result budget is {} characters; ask the API for less (filters, pagination)]",
                &text.text[..end],
                total - keep,
                ctx.budget
            );
            block = ContentBlock::text(cut);
        }
    }
    with_output_check(CallToolResult::success(vec![block]), ctx, None)
}

/// One content block for a body that is not JSON (or a part of a multipart body) of type `media`.
pub(super) fn block(media: &str, body: &[u8], truncated: bool, name: &str) -> ContentBlock {
    let engine = base64::engine::general_purpose::STANDARD;
    if media.starts_with("image/") && !truncated {
        ContentBlock::image(engine.encode(body), media)
    } else if media.starts_with("audio/") && !truncated {
        ContentBlock::audio(engine.encode(body), media)
    } else if crate::upstream::request::is_text_media(media) || std::str::from_utf8(body).is_ok() {
        let text = String::from_utf8_lossy(body).into_owned();
        ContentBlock::text(if truncated { truncated_text(text, body.len()) } else { text })
    } else if truncated {
        ContentBlock::text(format!(
            "Binary response ({}) larger than the {}-byte limit; not returned.",
            if media.is_empty() { "unknown type" } else { media },
            body.len()
        ))
    } else {
        let uri = format!("mcpgen://response/{name}");
        let mime = if media.is_empty() { "application/octet-stream" } else { media };
        ContentBlock::resource(ResourceContents::blob(engine.encode(body), uri).with_mime_type(mime))
    }
}

/// One part of a multipart body.
pub(super) struct Part<'a> {
    /// Its media type, `text/plain` when it declares none.
    pub media: String,
    pub body: &'a [u8],
    /// `Content-Disposition: attachment`: `/` and the file's name (or nothing without one).
    pub attachment: Option<String>,
}

/// An attached part is a document, not part of the message: an embedded resource, as text when
/// it is text.
pub(super) fn attachment(part: &Part<'_>, uri: &str) -> ContentBlock {
    let contents = match std::str::from_utf8(part.body) {
        Ok(text) if part.media.contains("json") || crate::upstream::request::is_text_media(&part.media) => {
            ResourceContents::text(text, uri)
        }
        _ => ResourceContents::blob(base64::engine::general_purpose::STANDARD.encode(part.body), uri),
    };
    ContentBlock::resource(contents.with_mime_type(&part.media))
}

/// The parts of a `multipart/*` body (RFC 2046); `None` when the body does not follow its
/// boundary.
pub(super) fn multipart_parts<'a>(content_type: &str, body: &'a [u8]) -> Option<Vec<Part<'a>>> {
    let boundary = content_type.split(';').skip(1).find_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim().eq_ignore_ascii_case("boundary").then(|| v.trim().trim_matches('"').to_string())
    })?;
    let delimiter = format!("--{boundary}");
    let find = |hay: &[u8], from: usize| {
        hay.get(from..)?.windows(delimiter.len()).position(|w| w == delimiter.as_bytes()).map(|i| i + from)
    };
    let mut at = find(body, 0)? + delimiter.len();
    let mut parts = Vec::new();
    loop {
        if body.get(at..at + 2) == Some(b"--") {
            return Some(parts);
        }
        let start = at + body.get(at..)?.windows(2).position(|w| w == b"\r\n")? + 2;
        let next = find(body, start)?;
        // The CRLF before a delimiter belongs to the delimiter.
        let part = &body[start..next.checked_sub(2).filter(|&e| e >= start)?];
        let (headers, content) = match part.windows(4).position(|w| w == b"\r\n\r\n") {
            _ if part.starts_with(b"\r\n") => (&part[..0], &part[2..]),
            Some(i) => (&part[..i], &part[i + 4..]),
            None => return None,
        };
        let headers = String::from_utf8_lossy(headers);
        let header = |wanted: &str| {
            headers.lines().find_map(|l| {
                let (name, value) = l.split_once(':')?;
                name.trim().eq_ignore_ascii_case(wanted).then(|| value.trim().to_string())
            })
        };
        let media = header("content-type")
            .map(|v| v.split(';').next().unwrap_or("").trim().to_ascii_lowercase())
            .unwrap_or_else(|| "text/plain".to_string());
        let attachment = header("content-disposition")
            .filter(|d| d.split(';').next().is_some_and(|k| k.trim().eq_ignore_ascii_case("attachment")))
            .map(|d| filename(&d).map(|f| format!("/{f}")).unwrap_or_default());
        parts.push(Part { media, body: content, attachment });
        at = next + delimiter.len();
    }
}

/// The `filename` of a Content-Disposition, percent-encoded for a URI.
fn filename(disposition: &str) -> Option<String> {
    let name = disposition.split(';').skip(1).find_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim().eq_ignore_ascii_case("filename").then(|| v.trim().trim_matches('"').to_string())
    })?;
    let name = name.rsplit(['/', '\\']).next().unwrap_or("");
    (!name.is_empty())
        .then(|| percent_encoding::utf8_percent_encode(name, percent_encoding::NON_ALPHANUMERIC).to_string())
}

pub(super) fn truncated_text(mut text: String, len: usize) -> String {
    text.push_str(&format!(
        "\n[... truncated: the response exceeded {len} bytes; request less data (filters, pagination, fields)]"
    ));
    text
}
