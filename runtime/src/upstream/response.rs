//! An upstream response to an MCP tool result.
//!
//! 2xx JSON: `structuredContent` (objects as they are, anything else as `{"result": ...}`) plus the
//! JSON text; text: text; `image/*`: image content; `audio/*`: audio content; other binary: an
//! embedded blob; `multipart/*` (RFC 2046): one block per part, mapped the same way. Bodies over
//! the size cap are cut with a marker. Non-2xx: `isError` with status, reason and a body excerpt,
//! and never `structuredContent`.

use base64::Engine as _;
use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};
use serde_json::{Value, json};

use crate::config::Method;
use crate::upstream::UpstreamResponse;

/// Characters of an error body shown to the model.
const ERROR_EXCERPT: usize = 2000;

/// Checks structured content against a tool's output schema: `Some(problems)` when it breaks it.
pub type OutputCheck<'a> = &'a dyn Fn(&Value) -> Option<String>;

/// How the call went, for the result text.
pub struct CallContext<'a> {
    /// The request's method, named in error results.
    pub method: Method,
    /// The binding's path template, named in error results.
    pub path: &'a str,
    /// The tool's name (in the URI of a binary result's resource).
    pub tool: &'a str,
    /// "set FOO_TOKEN" when a 401/403 may be a missing credential.
    pub auth_hint: Option<String>,
    /// The check of the tool's output schema; `None` when the tool declares none.
    pub validate_output: Option<OutputCheck<'a>>,
}

/// A JSON value as a success: `text` for the model, the value as structured content (wrapped as
/// `{"result": ...}` unless it is an object, as MCP requires).
pub fn json_result(value: Value, text: String) -> CallToolResult {
    let structured = if value.is_object() { value } else { json!({ "result": value }) };
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(structured);
    result
}

/// The tool result of an upstream response (see the module's doc).
pub fn to_result(resp: UpstreamResponse, ctx: &CallContext<'_>) -> CallToolResult {
    let status = resp.status;
    if !status.is_success() {
        return error_result(&resp, ctx);
    }
    let media = resp.content_type.as_deref().unwrap_or("").split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    if resp.body.is_empty() {
        let text = format!("HTTP {} {} (no content)", status.as_u16(), status.canonical_reason().unwrap_or(""));
        return with_output_check(CallToolResult::success(vec![ContentBlock::text(text.trim_end())]), ctx, None);
    }
    let looks_json = media.contains("json") || (media.is_empty() && matches!(resp.body.first(), Some(b'{' | b'[')));
    if looks_json {
        if resp.truncated {
            let text = truncated_text(String::from_utf8_lossy(&resp.body).into_owned(), resp.body.len());
            return with_output_check(CallToolResult::success(vec![ContentBlock::text(text)]), ctx, None);
        }
        return match serde_json::from_slice::<Value>(&resp.body) {
            Ok(v) => {
                let result = json_result(v, String::from_utf8_lossy(&resp.body).into_owned());
                let problem = output_problem(ctx, result.structured_content.as_ref());
                rejected_if(problem, result)
            }
            Err(e) => {
                let text = format!(
                    "The API declared JSON but sent invalid JSON ({e}); the raw body follows.\n{}",
                    String::from_utf8_lossy(&resp.body)
                );
                with_output_check(CallToolResult::success(vec![ContentBlock::text(text)]), ctx, None)
            }
        };
    }
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
    let block = block(&media, &resp.body, resp.truncated, ctx.tool);
    with_output_check(CallToolResult::success(vec![block]), ctx, None)
}

/// One content block for a body that is not JSON (or a part of a multipart body) of type `media`.
fn block(media: &str, body: &[u8], truncated: bool, name: &str) -> ContentBlock {
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
struct Part<'a> {
    /// Its media type, `text/plain` when it declares none.
    media: String,
    body: &'a [u8],
    /// `Content-Disposition: attachment`: `/` and the file's name (or nothing without one).
    attachment: Option<String>,
}

/// An attached part is a document, not part of the message: an embedded resource, as text when
/// it is text.
fn attachment(part: &Part<'_>, uri: &str) -> ContentBlock {
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
fn multipart_parts<'a>(content_type: &str, body: &'a [u8]) -> Option<Vec<Part<'a>>> {
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

/// A tool that declares an output schema must answer conforming structured content, or an error.
fn with_output_check(result: CallToolResult, ctx: &CallContext<'_>, structured: Option<&Value>) -> CallToolResult {
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

fn truncated_text(mut text: String, len: usize) -> String {
    text.push_str(&format!(
        "\n[... truncated: the response exceeded {len} bytes; request less data (filters, pagination, fields)]"
    ));
    text
}

fn error_result(resp: &UpstreamResponse, ctx: &CallContext<'_>) -> CallToolResult {
    let status = resp.status;
    let mut text = format!(
        "HTTP {} {} from {} {}",
        status.as_u16(),
        status.canonical_reason().unwrap_or(""),
        ctx.method,
        ctx.path
    );
    let advice = match status.as_u16() {
        400 | 422 => Some("check the arguments against the tool's input schema and the message below".to_string()),
        401 | 403 => Some(match &ctx.auth_hint {
            Some(h) => format!("the API refused the credentials: {h}"),
            None => "the API refused the request: credentials are missing or lack permission".to_string(),
        }),
        404 => Some("the resource does not exist: check identifiers in the path".to_string()),
        429 => Some(match &resp.retry_after {
            Some(s) => format!("rate limited: retry after {s} s"),
            None => "rate limited: wait before retrying".to_string(),
        }),
        500..=599 => Some("the API failed; retrying later may help".to_string()),
        _ => None,
    };
    if let Some(a) = advice {
        text.push_str(": ");
        text.push_str(&a);
    }
    if !resp.body.is_empty() {
        let body = String::from_utf8_lossy(&resp.body);
        let excerpt: String = body.chars().take(ERROR_EXCERPT).collect();
        text.push_str("\n\n");
        text.push_str(excerpt.trim());
        if body.chars().count() > ERROR_EXCERPT || resp.truncated {
            text.push_str(" [...]");
        }
    }
    CallToolResult::error(vec![ContentBlock::text(text)])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resp(status: u16, ct: &str, body: &[u8]) -> UpstreamResponse {
        UpstreamResponse {
            status: reqwest::StatusCode::from_u16(status).unwrap(),
            content_type: Some(ct.into()),
            retry_after: None,
            body: body.to_vec(),
            truncated: false,
        }
    }

    fn ctx() -> CallContext<'static> {
        CallContext {
            method: Method::Get,
            path: "/pets",
            tool: "listPets",
            auth_hint: Some("set PET_KEY".into()),
            validate_output: None,
        }
    }

    #[test]
    fn json_and_wrapping() {
        let r = to_result(resp(200, "application/json", br#"[1,2]"#), &ctx());
        assert_eq!(r.structured_content, Some(json!({"result": [1, 2]})));
        assert_eq!(r.is_error, Some(false));
        let r = to_result(resp(200, "application/json; charset=utf-8", br#"{"a":1}"#), &ctx());
        assert_eq!(r.structured_content, Some(json!({"a": 1})));
    }

    #[test]
    fn errors_have_no_structured_content() {
        let r = to_result(resp(401, "application/json", br#"{"message":"bad key"}"#), &ctx());
        assert_eq!(r.is_error, Some(true));
        assert!(r.structured_content.is_none());
        let text = serde_json::to_string(&r.content).unwrap();
        assert!(
            text.contains("HTTP 401 Unauthorized from GET /pets")
                && text.contains("set PET_KEY")
                && text.contains("bad key"),
            "{text}"
        );
    }

    #[test]
    fn invalid_json_and_binary() {
        let r = to_result(resp(200, "application/json", b"{oops"), &ctx());
        assert!(r.structured_content.is_none() && r.is_error == Some(false));
        let r = to_result(resp(200, "image/png", &[0x89, b'P', b'N', b'G']), &ctx());
        assert!(matches!(r.content[0], ContentBlock::Image(_)));
        let r = to_result(resp(200, "application/pdf", &[0xff, 0xfe, 0x00]), &ctx());
        assert!(matches!(r.content[0], ContentBlock::Resource(_)));
    }

    #[test]
    fn multipart_parts_become_one_block_each() {
        let body = b"--b1\r\nContent-Type: text/plain\r\n\r\nhello\r\n--b1\r\nContent-Type: image/png\r\n\r\n\x89PNG\r\n--b1--\r\n";
        let r = to_result(resp(200, "multipart/mixed; boundary=\"b1\"", body), &ctx());
        assert_eq!(r.content.len(), 2, "{r:?}");
        assert_eq!(r.content[0].as_text().map(|t| t.text.as_str()), Some("hello"));
        assert!(matches!(&r.content[1], ContentBlock::Image(i) if i.mime_type == "image/png"));
    }

    #[test]
    fn an_attached_part_is_an_embedded_resource_named_by_its_file() {
        let body = b"--b\r\nContent-Type: application/json\r\nContent-Disposition: attachment; filename=\"d.json\"\r\n\r\n{\"a\":1}\r\n--b--";
        let r = to_result(resp(200, "multipart/mixed; boundary=b", body), &ctx());
        let ContentBlock::Resource(e) = &r.content[0] else { panic!("{r:?}") };
        assert_eq!(
            serde_json::to_value(&e.resource).unwrap(),
            json!({"uri": "mcpgen://response/listPets/part/1/d%2Ejson", "mimeType": "application/json", "text": "{\"a\":1}"})
        );
    }

    #[test]
    fn a_multipart_body_without_its_boundary_is_text() {
        let r = to_result(resp(200, "multipart/mixed; boundary=zz", b"no parts here"), &ctx());
        assert_eq!(r.content[0].as_text().map(|t| t.text.as_str()), Some("no parts here"));
    }

    #[test]
    fn audio_is_audio_content() {
        let r = to_result(resp(200, "audio/wav", b"RIFF\x24\x00\x00\x00WAVE"), &ctx());
        assert!(matches!(&r.content[0], ContentBlock::Audio(a) if a.mime_type == "audio/wav"), "{r:?}");
    }

    #[test]
    fn output_schema_mismatch_is_an_error() {
        let check = |v: &Value| if v.get("id").is_some() { None } else { Some("missing id".to_string()) };
        let c = CallContext { validate_output: Some(&check), ..ctx() };
        let r = to_result(resp(200, "application/json", br#"{"name":"x"}"#), &c);
        assert_eq!(r.is_error, Some(true));
        assert!(r.structured_content.is_none());
    }
}
