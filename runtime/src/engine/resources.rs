//! MCP resources: the API description, always, and with `--resources` the GET operations that
//! [`crate::engine::routes`] maps to resources and resource templates, read through the engine (the same
//! validation, credentials, limits, metrics and errors as a `tools/call`).
//!
//! The description is written from the runtime config, not kept from the original document:
//! `serve` frees the document once the tools are made, a runtime config or a generated crate has
//! none, and the config is what is actually served (after filters and renames), so the text
//! always matches the tools. It is made when read, so a server that is never asked pays nothing.

use std::fmt::Write as _;

use clap::Args;
use rmcp::ErrorData;
use rmcp::model::{
    CallToolResult, CompleteRequestParams, CompleteResult, CompletionInfo, ContentBlock, ReadResourceResult, Reference,
    Resource, ResourceContents, ResourceTemplate,
};
use serde_json::{Value, json};

use crate::config::Resources;
use crate::engine::Engine;
use crate::engine::caching::CacheHints;
use crate::engine::caller::Caller;
use crate::engine::routes::Route;
use crate::error::Error;
use crate::metrics::Outcome;

/// The API description's URI (the `mcpgen://` scheme of mcpgen's own resources, like a binary
/// result's `mcpgen://response/{tool}`).
pub const DESCRIPTION_URI: &str = "mcpgen://description";

/// `--resources` and `--resource-scheme`: the route maps, recorded in the config by `mcpgen
/// config` and applied over it by `serve`.
#[derive(Debug, Clone, Default, Args)]
pub struct ResourceArgs {
    /// Also serve GET operations as resources: those without required arguments as resources,
    /// those whose only required arguments are path parameters as resource templates
    /// (SCHEME://path/{param}). The API description is always a resource.
    #[arg(long, help_heading = "Resources")]
    pub resources: bool,

    /// The URI scheme of --resources' resources [default: api].
    #[arg(long, value_name = "SCHEME", value_parser = parse_scheme, help_heading = "Resources")]
    pub resource_scheme: Option<String>,
}

impl ResourceArgs {
    /// Applies the flags given to a config's `resources`.
    pub fn apply(&self, config: &mut Resources) {
        if self.resources {
            config.route_maps = true;
        }
        if let Some(s) = &self.resource_scheme {
            config.scheme = s.clone();
        }
    }
}

/// An RFC 3986 scheme: a letter, then letters, digits, `+`, `-`, `.`.
fn parse_scheme(s: &str) -> Result<String, Error> {
    let mut bytes = s.bytes();
    let ok = bytes.next().is_some_and(|b| b.is_ascii_alphabetic())
        && bytes.all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b));
    if ok {
        Ok(s.to_ascii_lowercase())
    } else {
        Err(Error::Config(format!("{s:?} is not a URI scheme (e.g. api, petstore)")))
    }
}

/// The resources `caller` may read: the description, then the route maps' resources of the
/// tools its scopes allow.
pub fn list(engine: &Engine, caller: &Caller) -> Vec<Resource> {
    let info = &engine.info;
    let title = info.title.as_deref().unwrap_or(&info.name);
    let description = Resource::new(DESCRIPTION_URI, "api_description")
        .with_title(format!("{title}: API description"))
        .with_description("What this server's API offers: its description and every tool with its HTTP operation.")
        .with_mime_type("text/markdown");
    let routes = visible(engine, &engine.routes().resources, caller).map(|(route, tool)| {
        let mut r = Resource::new(route.uri.clone(), tool.mcp.name.to_string());
        r.title = tool.mcp.title.clone();
        r.description = tool.mcp.description.as_deref().map(str::to_string);
        r.mime_type = tool.output_schema.is_some().then(|| "application/json".to_string());
        r
    });
    std::iter::once(description).chain(routes).collect()
}

/// The resource templates `caller` may read.
pub fn templates(engine: &Engine, caller: &Caller) -> Vec<ResourceTemplate> {
    visible(engine, &engine.routes().templates, caller)
        .map(|(route, tool)| {
            let mut t = ResourceTemplate::new(route.uri.clone(), tool.mcp.name.to_string());
            t.title = tool.mcp.title.clone();
            t.description = tool.mcp.description.as_deref().map(str::to_string);
            t.mime_type = tool.output_schema.is_some().then(|| "application/json".to_string());
            t
        })
        .collect()
}

fn visible<'a>(
    engine: &'a Engine,
    routes: &'a [Route],
    caller: &'a Caller,
) -> impl Iterator<Item = (&'a Route, &'a crate::engine::ToolEntry)> {
    routes.iter().filter_map(|r| engine.tools().get(r.tool).map(|t| (r, t))).filter(|(_, t)| caller.may_use(&t.scopes))
}

/// Up to `size` items from the cursor `cursor` (an index, as `tools/list`'s), and the next one.
pub fn page<T>(items: Vec<T>, cursor: Option<&str>, size: usize) -> Result<(Vec<T>, Option<String>), ErrorData> {
    let start = match cursor {
        None => 0,
        Some(c) => c.parse::<usize>().map_err(|_| ErrorData::invalid_params(format!("invalid cursor {c:?}"), None))?,
    };
    let total = items.len();
    let end = start.saturating_add(size).min(total);
    let page: Vec<T> = items.into_iter().skip(start).take(end.saturating_sub(start)).collect();
    Ok((page, (end < total).then(|| end.to_string())))
}

/// Reads `uri` for `caller`: the description, or a route's tool called with the URI's
/// arguments. An unknown URI, or one whose values do not fit, is `-32602` with the URI in
/// `data` (SEP-2164), as is a 404/410 from the API; other failures of the call are `-32603`
/// with the tool result's text.
pub async fn read(
    engine: &Engine,
    uri: &str,
    caller: &Caller,
    per_caller: bool,
) -> Result<ReadResourceResult, ErrorData> {
    let not_found = |why: String| ErrorData::invalid_params(why, Some(json!({ "uri": uri })));
    if uri == DESCRIPTION_URI {
        let text = describe(engine, caller);
        let hints = CacheHints::lists(engine.list_ttl(), per_caller);
        let contents = vec![ResourceContents::text(text, uri).with_mime_type("text/markdown")];
        return Ok(with_hints(ReadResourceResult::new(contents), hints));
    }
    let Some((index, args)) = engine.routes().resolve(uri, engine.tools()) else {
        return Err(not_found(format!("Resource not found: {uri} is not a resource of this server")));
    };
    let Some(tool) = engine.tools().get(index) else {
        return Err(not_found(format!("Resource not found: {uri}")));
    };
    if !caller.may_use(&tool.scopes) {
        return Err(not_found(format!("Resource not found: {uri} (the access token's scopes do not allow it)")));
    }
    let name = tool.mcp.name.to_string();
    let (result, outcome, status) = engine.call_observed(&name, args, caller).await;
    let result = result.map_err(|e| not_found(e.to_string()))?;
    if result.is_error == Some(true) {
        let text = result_text(&result);
        return Err(match (status, outcome) {
            (Some(404 | 410), _) => not_found(format!("Resource not found: {text}")),
            (_, Outcome::InvalidArguments) => not_found(text),
            _ => ErrorData::internal_error(text, Some(json!({ "uri": uri }))),
        });
    }
    let contents = contents(&result, uri);
    if contents.is_empty() {
        // SEP-2164: never an empty `contents`.
        return Err(ErrorData::internal_error(format!("{uri}: the API answered nothing"), Some(json!({ "uri": uri }))));
    }
    Ok(with_hints(ReadResourceResult::new(contents), CacheHints::api_data(per_caller)))
}

fn with_hints(result: ReadResourceResult, hints: CacheHints) -> ReadResourceResult {
    result.with_ttl_ms(hints.ttl_ms).with_cache_scope(hints.scope)
}

/// The text of a result's text blocks (an error's message).
fn result_text(result: &CallToolResult) -> String {
    let texts: Vec<&str> = result
        .content
        .iter()
        .filter_map(|c| match c {
            ContentBlock::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect();
    texts.join("\n")
}

/// A tool result as resource contents under `uri`: text (`application/json` when it is JSON: the
/// lean text of a JSON response), images and audio as blobs, embedded resources as they are.
fn contents(result: &CallToolResult, uri: &str) -> Vec<ResourceContents> {
    let text_type = |text: &str| {
        let json = text.starts_with(['{', '[']) && serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok();
        if json { "application/json" } else { "text/plain" }
    };
    result
        .content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Text(t) => {
                Some(ResourceContents::text(t.text.clone(), uri).with_mime_type(text_type(&t.text)))
            }
            ContentBlock::Image(i) => Some(ResourceContents::blob(i.data.clone(), uri).with_mime_type(&i.mime_type)),
            ContentBlock::Audio(a) => Some(ResourceContents::blob(a.data.clone(), uri).with_mime_type(&a.mime_type)),
            ContentBlock::Resource(r) => match r.resource.clone() {
                ResourceContents::TextResourceContents { mime_type, text, .. } => {
                    Some(ResourceContents::TextResourceContents { uri: uri.to_string(), mime_type, text, meta: None })
                }
                ResourceContents::BlobResourceContents { mime_type, blob, .. } => {
                    Some(ResourceContents::BlobResourceContents { uri: uri.to_string(), mime_type, blob, meta: None })
                }
                _ => None,
            },
            // Links, and kinds of content newer than this code: nothing to read.
            _ => None,
        })
        .collect()
}

/// The API description as Markdown: the server's title, version and description, the base URL,
/// and every tool `caller` may use with its operation, resource URI and first line.
pub fn describe(engine: &Engine, caller: &Caller) -> String {
    let info = &engine.info;
    let mut out = String::new();
    let title = info.title.as_deref().unwrap_or(&info.name);
    let _ = writeln!(out, "# {title}\n\nVersion {}.", info.version);
    if let Some(base) = engine.base_url() {
        let _ = writeln!(out, "Base URL: {base}");
    }
    if let Some(i) = info.instructions.as_deref().filter(|i| !i.trim().is_empty()) {
        let _ = writeln!(out, "\n{}", i.trim());
    }
    let routes = engine.routes();
    let uri_of = |index: usize| {
        routes.resources.iter().chain(&routes.templates).find(|r| r.tool == index).map(|r| r.uri.as_str())
    };
    let _ = writeln!(out, "\n## Tools\n");
    for (index, tool) in engine.tools().iter().enumerate().filter(|(_, t)| caller.may_use(&t.scopes)) {
        let _ = write!(out, "- `{}`", tool.mcp.name);
        if let Some(http) = &tool.http {
            let _ = write!(out, " ({} {})", http.method, http.path);
        }
        if let Some(uri) = uri_of(index) {
            let _ = write!(out, ", resource `{uri}`");
        }
        let first = tool.mcp.description.as_deref().and_then(|d| d.lines().find(|l| !l.trim().is_empty()));
        match first {
            Some(line) => {
                let _ = writeln!(out, ": {}", line.trim());
            }
            None => out.push('\n'),
        }
    }
    out
}

/// `completion/complete`: the values of a template variable's enum that start with what the
/// user typed. mcpgen has no prompts, so a prompt reference is `-32602`.
pub fn complete(engine: &Engine, request: &CompleteRequestParams) -> Result<CompleteResult, ErrorData> {
    let template = match &request.r#ref {
        Reference::Resource(r) => r.uri.as_str(),
        Reference::Prompt(p) => {
            return Err(ErrorData::invalid_params(
                format!("no prompt {:?}: this server offers no prompts", p.name),
                None,
            ));
        }
        _ => return Err(ErrorData::invalid_params("unknown kind of completion reference", None)),
    };
    let Some(route) = engine.routes().template(template) else {
        return Err(ErrorData::invalid_params(
            format!("no resource template {template:?}"),
            Some(json!({ "uri": template })),
        ));
    };
    let argument = &request.argument;
    if !route.variables().any(|v| v == argument.name) {
        return Err(ErrorData::invalid_params(format!("{template} has no variable {:?}", argument.name), None));
    }
    let schema = engine.tools().get(route.tool).map(|t| t.input_schema.parse());
    let choices = schema
        .as_ref()
        .and_then(|s| s.get("properties")?.get(&argument.name)?.get("enum")?.as_array().cloned())
        .unwrap_or_default();
    let matching: Vec<String> = choices
        .iter()
        .map(|v| match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .filter(|v| v.starts_with(&argument.value))
        .collect();
    let total = u32::try_from(matching.len()).unwrap_or(u32::MAX);
    let values: Vec<String> = matching.into_iter().take(CompletionInfo::MAX_VALUES).collect();
    let has_more = (values.len() as u32) < total;
    let mut info = CompletionInfo::new(values).map_err(|e| ErrorData::internal_error(e, None))?;
    info.total = Some(total);
    info.has_more = Some(has_more);
    Ok(CompleteResult::new(info))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemes_are_checked_and_lower_cased() {
        assert_eq!(parse_scheme("PetStore"), Ok("petstore".to_string()));
        assert!(parse_scheme("1api").is_err() && parse_scheme("a b").is_err() && parse_scheme("").is_err());
    }

    #[test]
    fn pages_follow_the_cursor() {
        let items: Vec<u32> = (0..5).collect();
        assert_eq!(page(items.clone(), None, 2).unwrap(), (vec![0, 1], Some("2".to_string())));
        assert_eq!(page(items.clone(), Some("4"), 2).unwrap(), (vec![4], None));
        assert!(page(items, Some("x"), 2).is_err());
    }

    #[test]
    fn results_become_contents_under_the_uri() {
        let mut r = CallToolResult::success(vec![ContentBlock::text("{\"a\":1}")]);
        r.structured_content = Some(json!({"a": 1}));
        let c = contents(&r, "api://x");
        assert_eq!(
            serde_json::to_value(&c).unwrap(),
            json!([{"uri": "api://x", "mimeType": "application/json", "text": "{\"a\":1}"}])
        );
        let r = CallToolResult::success(vec![ContentBlock::image("AAAA", "image/png")]);
        assert_eq!(
            serde_json::to_value(contents(&r, "api://img")).unwrap(),
            json!([{"uri": "api://img", "mimeType": "image/png", "blob": "AAAA"}])
        );
    }
}
