//! What the engine knows of each tool's results: the name of its projection argument (`_jq`, or
//! `__jq` for an API that has a `_jq` of its own), how it pages, its result budget, the shape of
//! its response; and the sentences of the server instructions that explain `_jq` once, rather
//! than in every tool.

use serde_json::{Map, Value, json};

use crate::config::Tool;
use crate::response::paging::Pager;

/// The projection argument's name when the API does not use it.
pub const JQ_ARG: &str = "_jq";

/// A shape longer than this stays out of the listed description (`describe_tools` shows it).
const LISTED_SHAPE_CHARS: usize = 160;

/// One tool's result handling.
#[derive(Debug, Clone, Default)]
pub struct ToolResults {
    /// The projection argument (`None`: the tool's response is not JSON, or it has no binding).
    pub jq_arg: Option<String>,
    /// How the tool pages (tools with a binding).
    pub pager: Option<Pager>,
    /// The tool's own budget (`x-mcp`), over the context's.
    pub budget: Option<usize>,
    /// The response's shape, compact.
    pub shape: Option<String>,
}

impl ToolResults {
    /// The result handling of a catalogue tool.
    pub fn new(t: &Tool) -> ToolResults {
        let Some(http) = &t.http else { return ToolResults::default() };
        let json = t.response.as_ref().is_none_or(|r| r.may_be_json());
        ToolResults {
            jq_arg: json.then(|| jq_arg_name(&t.input_schema)),
            pager: Some(Pager::detect(http, &t.input_schema)),
            budget: crate::config::exposure::own_budget(t),
            shape: t.response.as_ref().and_then(|r| r.shape.clone()),
        }
    }

    /// `schema` with the projection argument among its properties.
    pub fn with_projection(&self, mut schema: Map<String, Value>) -> Map<String, Value> {
        let Some(arg) = &self.jq_arg else { return schema };
        let props = schema.entry("properties").or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(props) = props {
            // No description: the server instructions explain it once, for every tool.
            props.insert(arg.clone(), json!({"type": "string"}));
        }
        schema
    }

    /// The description as listed: with the response's shape when it is short and the response is
    /// a list (an array, or a tool that pages), where a `_jq` filter pays; `describe_tools` shows
    /// every shape.
    pub fn listed_description(&self, description: &str) -> Option<String> {
        let pages = self.pager.as_ref().is_some_and(Pager::pages);
        let listed = |s: &&str| s.chars().count() <= LISTED_SHAPE_CHARS && (s.starts_with('[') || pages);
        let shape = self.shape.as_deref().filter(listed)?;
        Some(if description.is_empty() {
            format!("Returns {shape}")
        } else {
            format!("{description}\n\nReturns {shape}")
        })
    }

    /// Takes the filter out of a call's arguments: `Ok(None)` when there is none; `Err` with
    /// the words for the model when it is not a string.
    pub fn take_filter(&self, args: &mut Map<String, Value>) -> Result<Option<String>, String> {
        let Some(arg) = &self.jq_arg else { return Ok(None) };
        match args.remove(arg) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(f)) if f.trim().is_empty() => Ok(None),
            Some(Value::String(f)) => Ok(Some(f)),
            Some(_) => Err(format!("`{arg}` must be a jq filter (a string), e.g. \"map({{id, name}})\"")),
        }
    }
}

/// `_jq`, or with more leading underscores until the input schema does not use the name.
pub fn jq_arg_name(input_schema: &Map<String, Value>) -> String {
    let props = input_schema.get("properties").and_then(Value::as_object);
    let mut name = JQ_ARG.to_string();
    while props.is_some_and(|p| p.contains_key(&name)) {
        name.insert(0, '_');
    }
    name
}

/// The instructions' paragraph on results: the budget and `_jq`, and the tools whose filter
/// argument is renamed. `None` when no tool takes a filter and there is no budget.
pub fn instructions<'a>(tools: impl Iterator<Item = (&'a str, &'a ToolResults)>, budget: usize) -> Option<String> {
    let mut any = false;
    let mut renamed = Vec::new();
    for (name, r) in tools {
        match r.jq_arg.as_deref() {
            Some(JQ_ARG) => any = true,
            Some(other) => {
                any = true;
                renamed.push(format!("{name} ({other})"));
            }
            None => {}
        }
    }
    let mut out = String::new();
    if any {
        out.push_str(
            "Every tool whose response is JSON takes an optional `_jq` argument: a jq filter applied to the \
             response before it comes back (it changes nothing that is sent to the API). Use it to keep what you \
             need, e.g. `map({id, title, state})` or `.items[:5] | map(.name)`; several outputs come back as an \
             array. A failing filter is an error that quotes the message and the response's top-level members.",
        );
        if !renamed.is_empty() {
            renamed.sort();
            out.push_str(&format!(
                " These tools have a `_jq` argument of their own, so their filter argument is named as shown: {}.",
                renamed.join(", ")
            ));
        }
    }
    if budget > 0 {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&format!(
            "Results longer than {budget} characters are reduced (lists keep their first items); a note after the \
             result says what was left out and which arguments get the rest."
        ));
    }
    (!out.is_empty()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn the_projection_argument_avoids_the_apis_own_names() {
        assert_eq!(jq_arg_name(&schema(json!({"type": "object"}))), "_jq");
        assert_eq!(jq_arg_name(&schema(json!({"properties": {"_jq": {}}}))), "__jq");
        assert_eq!(jq_arg_name(&schema(json!({"properties": {"_jq": {}, "__jq": {}}}))), "___jq");
    }

    #[test]
    fn the_filter_is_taken_out_of_the_arguments() {
        let r = ToolResults { jq_arg: Some("_jq".into()), ..Default::default() };
        let mut args = schema(json!({"owner": "o", "_jq": ".[0]"}));
        assert_eq!(r.take_filter(&mut args), Ok(Some(".[0]".into())));
        assert_eq!(Value::Object(args), json!({"owner": "o"}));
        let mut args = schema(json!({"_jq": 3}));
        assert!(r.take_filter(&mut args).is_err());
        let none = ToolResults::default();
        let mut args = schema(json!({"_jq": ".x"}));
        assert_eq!(none.take_filter(&mut args), Ok(None));
        assert!(args.contains_key("_jq"), "a tool without projection keeps the argument");
    }

    #[test]
    fn only_short_shapes_of_lists_are_listed() {
        let with = |shape: &str| ToolResults { shape: Some(shape.into()), ..Default::default() };
        assert_eq!(
            with("[{id, name}]").listed_description("List pets.").as_deref(),
            Some("List pets.\n\nReturns [{id, name}]")
        );
        let paging = Pager::detect(
            &serde_json::from_value(json!({"method": "GET", "path": "/x", "params": [
                {"arg": "cursor", "name": "cursor", "in": "query", "style": "form", "explode": true}]}))
            .unwrap(),
            &Map::new(),
        );
        let stripe_like = ToolResults { pager: Some(paging), ..with("{data: [{id}], has_more}") };
        assert_eq!(stripe_like.listed_description("").as_deref(), Some("Returns {data: [{id}], has_more}"));
        assert_eq!(with("{id, name, tags: [{id, name}]}").listed_description("Get a pet."), None);
        assert_eq!(with(&format!("[{{{}}}]", "a, ".repeat(60))).listed_description("x"), None);
    }

    #[test]
    fn instructions_name_the_renamed_arguments() {
        let plain = ToolResults { jq_arg: Some("_jq".into()), ..Default::default() };
        let renamed = ToolResults { jq_arg: Some("__jq".into()), ..Default::default() };
        let text = instructions([("a", &plain), ("b", &renamed)].into_iter(), 40_000).unwrap();
        assert!(text.contains("`_jq`") && text.contains("b (__jq)") && text.contains("40000 characters"), "{text}");
        assert_eq!(instructions([("a", &ToolResults::default())].into_iter(), 0), None);
    }
}
