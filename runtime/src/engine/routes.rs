//! Route maps (`--resources`, in the spirit of FastMCP's): which GET operations are also MCP
//! resources, their URIs, and the way back from a URI to a tool call.
//!
//! A GET operation without required arguments is a resource, `SCHEME://path` (`GET /store/inventory`
//! is `api://store/inventory`). A GET operation whose only required arguments are its path
//! parameters is a resource template, `SCHEME://path` with the parameters as RFC 6570 variables named
//! after the tool's arguments (`GET /pet/{petId}` is `api://pet/{petId}`); reading
//! `api://pet/7` calls the tool with `{"petId": 7}`. Optional arguments are left out. Anything
//! else (a required query parameter or body) stays a tool only: a URI could not say it.

use percent_encoding::percent_decode_str;
use serde_json::{Map, Value};

use crate::config::{Method, ParamLocation, Resources};
use crate::engine::ToolEntry;

/// One piece of a route's URI.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    /// Text that must appear as it is.
    Literal(String),
    /// A path parameter: the tool argument it fills.
    Var(String),
}

/// A GET operation read as a resource (no variables) or resource template.
#[derive(Debug, Clone)]
pub struct Route {
    /// The catalogue index of the tool that answers it.
    pub tool: usize,
    /// The URI, or the URI template (`api://pet/{petId}`).
    pub uri: String,
    pieces: Vec<Piece>,
}

impl Route {
    /// The template's variables (the tool arguments they fill), in order; none for a resource.
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        self.pieces.iter().filter_map(|p| match p {
            Piece::Var(v) => Some(v.as_str()),
            Piece::Literal(_) => None,
        })
    }

    /// The arguments `uri` gives this route's tool (values as the URI has them, decoded), when
    /// it matches.
    fn matches(&self, uri: &str) -> Option<Vec<(String, String)>> {
        let mut found = Vec::new();
        match_pieces(&self.pieces, uri, &mut found).then_some(found)
    }
}

/// The routes of a catalogue: resources and resource templates.
#[derive(Debug, Clone, Default)]
pub struct Routes {
    /// GET operations without required arguments.
    pub resources: Vec<Route>,
    /// GET operations whose only required arguments are path parameters.
    pub templates: Vec<Route>,
}

impl Routes {
    /// The routes of `tools` when `config.route_maps` is on (none otherwise). URIs equal to
    /// `reserved` (the API description's) are left out, as are later duplicates.
    pub fn build(tools: &[ToolEntry], config: &Resources, reserved: &str) -> Routes {
        let mut routes = Routes::default();
        if !config.route_maps {
            return routes;
        }
        let mut seen = std::collections::HashSet::from([reserved.to_string()]);
        for (index, tool) in tools.iter().enumerate() {
            let Some(route) = route_of(index, tool, &config.scheme) else { continue };
            if !seen.insert(route.uri.clone()) {
                continue;
            }
            if route.variables().next().is_none() {
                routes.resources.push(route);
            } else {
                routes.templates.push(route);
            }
        }
        routes
    }

    /// The tool and arguments that answer `uri`: a resource's exactly, else the first template
    /// that matches. The arguments are typed by the tool's input schema (`"7"` is `7` for an
    /// integer); `None` when nothing matches or a value does not fit its type.
    pub fn resolve(&self, uri: &str, tools: &[ToolEntry]) -> Option<(usize, Map<String, Value>)> {
        if let Some(r) = self.resources.iter().find(|r| r.uri == uri) {
            return Some((r.tool, Map::new()));
        }
        if uri.contains(['?', '#']) {
            return None;
        }
        self.templates.iter().find_map(|route| {
            let found = route.matches(uri)?;
            let schema = tools.get(route.tool)?.input_schema.parse();
            let mut args = Map::new();
            for (arg, raw) in found {
                args.insert(arg.clone(), typed(&schema, &arg, &raw)?);
            }
            Some((route.tool, args))
        })
    }

    /// The template whose URI template is `template`.
    pub fn template(&self, template: &str) -> Option<&Route> {
        self.templates.iter().find(|r| r.uri == template)
    }
}

/// The route of one tool, if it is a GET operation a URI can fully say.
fn route_of(index: usize, tool: &ToolEntry, scheme: &str) -> Option<Route> {
    let http = tool.http.as_ref().filter(|h| h.method == Method::Get)?;
    let schema = tool.input_schema.parse();
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let path_params: Vec<(&str, &str)> = http
        .params
        .iter()
        .filter(|p| p.location == ParamLocation::Path)
        .map(|p| (p.name.as_str(), p.arg.as_str()))
        .collect();
    // Every required argument must be a path parameter, and every path parameter a variable.
    if !required.iter().all(|r| path_params.iter().any(|(_, arg)| arg == r)) {
        return None;
    }
    let path = http.path.trim_start_matches('/');
    if path.is_empty() || path.contains(['?', '#']) {
        return None;
    }
    let pieces = pieces(path, &path_params)?;
    let mut uri = format!("{scheme}://");
    for p in &pieces {
        match p {
            Piece::Literal(l) => uri.push_str(l),
            Piece::Var(v) => {
                uri.push('{');
                uri.push_str(v);
                uri.push('}');
            }
        }
    }
    let mut pieces = pieces;
    match pieces.first_mut() {
        Some(Piece::Literal(l)) => l.insert_str(0, &format!("{scheme}://")),
        _ => pieces.insert(0, Piece::Literal(format!("{scheme}://"))),
    }
    Some(Route { tool: index, uri, pieces })
}

/// A path template's pieces, its parameters named by their tool arguments; `None` when a
/// parameter is unknown, two are adjacent (no way to tell where one ends), or an argument's name
/// cannot be an RFC 6570 variable.
fn pieces(path: &str, params: &[(&str, &str)]) -> Option<Vec<Piece>> {
    let mut out = Vec::new();
    let mut rest = path;
    while let Some(open) = rest.find('{') {
        let close = open + rest[open..].find('}')?;
        if open > 0 {
            out.push(Piece::Literal(rest[..open].to_string()));
        } else if matches!(out.last(), Some(Piece::Var(_))) {
            return None;
        }
        let name = &rest[open + 1..close];
        let arg = params.iter().find(|(n, _)| *n == name).map(|(_, a)| *a)?;
        if arg.is_empty() || !arg.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            return None;
        }
        out.push(Piece::Var(arg.to_string()));
        rest = &rest[close + 1..];
    }
    if !rest.is_empty() {
        out.push(Piece::Literal(rest.to_string()));
    }
    Some(out)
}

/// Matches `s` against `pieces`; a variable takes one or more characters of one path segment.
fn match_pieces(pieces: &[Piece], s: &str, found: &mut Vec<(String, String)>) -> bool {
    match pieces.split_first() {
        None => s.is_empty(),
        Some((Piece::Literal(l), rest)) => s.strip_prefix(l.as_str()).is_some_and(|s| match_pieces(rest, s, found)),
        Some((Piece::Var(arg), rest)) => {
            let segment = s.find('/').unwrap_or(s.len());
            for end in (1..=segment).filter(|&e| s.is_char_boundary(e)) {
                let Ok(value) = percent_decode_str(&s[..end]).decode_utf8() else { continue };
                found.push((arg.clone(), value.into_owned()));
                if match_pieces(rest, &s[end..], found) {
                    return true;
                }
                found.pop();
            }
            false
        }
    }
}

/// A URI's text as the argument's type: integers, numbers and booleans parsed, anything else a
/// string.
fn typed(schema: &Map<String, Value>, arg: &str, raw: &str) -> Option<Value> {
    let property = schema.get("properties").and_then(|p| p.get(arg));
    let types: Vec<&str> = match property.and_then(|p| p.get("type")) {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => vec!["string"],
    };
    if types.contains(&"string") {
        return Some(Value::String(raw.to_string()));
    }
    if types.contains(&"integer")
        && let Ok(i) = raw.parse::<i64>()
    {
        return Some(Value::from(i));
    }
    if types.contains(&"number")
        && let Ok(n) = raw.parse::<f64>()
    {
        return serde_json::Number::from_f64(n).map(Value::Number);
    }
    if types.contains(&"boolean") {
        return raw.parse::<bool>().ok().map(Value::Bool);
    }
    None
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::config::Tool;

    fn tool(name: &str, method: &str, path: &str, params: &[(&str, &str)], required: &[&str]) -> ToolEntry {
        let properties: Map<String, Value> = params
            .iter()
            .map(|(arg, _)| (arg.to_string(), if *arg == "petId" { json!({"type": "integer"}) } else { json!({}) }))
            .collect();
        let params: Vec<Value> = params
            .iter()
            .map(|(arg, place)| json!({"arg": arg, "name": arg, "in": place, "style": if *place == "path" { "simple" } else { "form" }, "explode": false}))
            .collect();
        let t: Tool = serde_json::from_value(json!({
            "name": name,
            "input_schema": {"type": "object", "properties": properties, "required": required},
            "annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true,
                            "openWorldHint": true},
            "http": {"method": method, "path": path, "params": params}
        }))
        .unwrap();
        ToolEntry::new(t)
    }

    fn routes(tools: &[ToolEntry]) -> Routes {
        Routes::build(tools, &Resources { route_maps: true, scheme: "api".into() }, "mcpgen://description")
    }

    #[test]
    fn get_without_required_arguments_is_a_resource() {
        let tools = [tool("inventory", "GET", "/store/inventory", &[("limit", "query")], &[])];
        let r = routes(&tools);
        assert_eq!(r.resources.iter().map(|r| r.uri.as_str()).collect::<Vec<_>>(), ["api://store/inventory"]);
        assert_eq!(r.resolve("api://store/inventory", &tools), Some((0, Map::new())));
    }

    #[test]
    fn get_with_only_path_parameters_is_a_template_with_typed_arguments() {
        let tools = [tool(
            "getPet",
            "GET",
            "/pet/{petId}/tags/{tag}",
            &[("petId", "path"), ("tag", "path")],
            &["petId", "tag"],
        )];
        let r = routes(&tools);
        assert_eq!(r.templates[0].uri, "api://pet/{petId}/tags/{tag}");
        let (tool, args) = r.resolve("api://pet/7/tags/a%20b", &tools).unwrap();
        assert_eq!((tool, Value::Object(args)), (0, json!({"petId": 7, "tag": "a b"})));
    }

    #[test]
    fn a_value_that_does_not_fit_its_type_or_segment_matches_nothing() {
        let tools = [tool("getPet", "GET", "/pet/{petId}", &[("petId", "path")], &["petId"])];
        let r = routes(&tools);
        assert_eq!(r.resolve("api://pet/seven", &tools), None);
        assert_eq!(r.resolve("api://pet/7/extra", &tools), None);
        assert_eq!(r.resolve("api://pet/", &tools), None);
        assert_eq!(r.resolve("api://pet/7?x=1", &tools), None);
    }

    #[test]
    fn required_query_parameters_bodies_and_other_methods_stay_tools() {
        let tools = [
            tool("find", "GET", "/pet/findByStatus", &[("status", "query")], &["status"]),
            tool("add", "POST", "/pet", &[], &[]),
        ];
        let r = routes(&tools);
        assert!(r.resources.is_empty() && r.templates.is_empty());
    }

    #[test]
    fn off_by_default_and_the_description_uri_is_reserved() {
        let tools = [tool("d", "GET", "/description", &[], &[])];
        assert!(Routes::build(&tools, &Resources::default(), "x://y").resources.is_empty());
        let r = Routes::build(&tools, &Resources { route_maps: true, scheme: "mcpgen".into() }, "mcpgen://description");
        assert!(r.resources.is_empty());
    }
}
