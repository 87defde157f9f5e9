//! Anthropic's `input_examples`: example arguments for a tool, built from the examples its API
//! description declares, each one checked against the tool's input schema.
//!
//! Each argument's values, in order: the examples of the parameter it comes from (`example`,
//! then `examples` by name), then its schema's `examples` (OpenAPI's schema `example` is read as
//! `examples`), or else one value assembled from the examples inside its schema (an object from
//! its properties' examples, an array from its items'). The request body's own examples (its
//! media type's `example` and `examples`) fill the body's arguments together, and alone when
//! there are any (the fields' own examples would mix two bodies). Example `i` takes
//! the `i`-th body example and each argument's `i`-th value (the first where there are fewer),
//! and the second example is the first with only the required arguments, when that differs. One
//! that lacks a required argument is no candidate (the description has no example for it);
//! candidates that break the input schema, or that are longer than [`MAX_EXAMPLE_CHARS`], are left
//! out; at most [`MAX_INPUT_EXAMPLES`] stay. Parameter and body examples need the API
//! description (the IR); a runtime config's tools have only their schemas' examples.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::ir::Operation;
use mcpgen_config::{BodyContent, HttpBinding, Tool};

/// The most input examples a tool gets: each one is sent with the tool's definition, so each
/// costs tokens on every request.
pub const MAX_INPUT_EXAMPLES: usize = 3;

/// The longest input example, in characters of minified JSON: an example is there to show the
/// shape of a call, and a large one is mostly cost (its text also reaches the model as it is).
pub const MAX_EXAMPLE_CHARS: usize = 2_000;

/// Candidates built per tool, before validation and the cap.
const MAX_CANDIDATES: usize = 10;

/// How deep examples are looked for inside a schema (recursive schemas end here).
const MAX_DEPTH: usize = 8;

/// A tool's input examples, and why the others were left out.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct ToolExamples {
    /// Valid examples, at most [`MAX_INPUT_EXAMPLES`].
    pub kept: Vec<Value>,
    /// One sentence per example left out.
    pub dropped: Vec<String>,
}

/// The input examples of `tool`, whose exported input schema is `schema`; `op` is the operation it
/// comes from, when the API description is at hand.
pub fn input_examples(tool: &Tool, schema: &Value, op: Option<&Operation>) -> ToolExamples {
    let binding = tool.http.as_ref();
    let mut values = parameter_values(binding, op);
    add_schema_values(&mut values, schema);
    let bodies = body_values(binding, op, schema);
    if !bodies.is_empty() {
        // The body's examples say the body whole: its fields' own examples would mix two.
        let fields = body_fields(binding);
        values.retain(|arg, _| !fields.contains(arg));
    }
    let candidates = candidates(&values, &bodies, &required(schema));
    if candidates.is_empty() {
        return ToolExamples::default();
    }
    checked(candidates, schema)
}

/// The examples of the operation's parameters, by the argument each one fills.
fn parameter_values(binding: Option<&HttpBinding>, op: Option<&Operation>) -> BTreeMap<String, Vec<Value>> {
    let mut values: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    let (Some(binding), Some(op)) = (binding, op) else { return values };
    for p in op.parameters.iter().filter(|p| !p.examples.is_empty()) {
        let bound = binding.params.iter().find(|b| b.name == p.name && b.location == p.location);
        if let Some(b) = bound {
            values.entry(b.arg.clone()).or_default().extend(p.examples.iter().cloned());
        }
    }
    values
}

/// Each argument's schema examples (or one value assembled from the examples inside it), after
/// its parameter's; repeated values once.
fn add_schema_values(values: &mut BTreeMap<String, Vec<Value>>, schema: &Value) {
    let Some(Value::Object(props)) = schema.get("properties") else { return };
    for (arg, prop) in props {
        let list = values.entry(arg.clone()).or_default();
        match prop.get("examples").and_then(Value::as_array).filter(|e| !e.is_empty()) {
            Some(examples) => list.extend(examples.iter().cloned()),
            None => list.extend(assembled(prop, schema, 0)),
        }
        let mut seen = Vec::new();
        list.retain(|v| {
            let new = !seen.contains(v);
            if new {
                seen.push(v.clone());
            }
            new
        });
    }
    values.retain(|_, list| !list.is_empty());
}

/// A value for `schema` from the examples inside it: its first `examples`, else an object of its
/// properties' values (`None` when a required one has none), an array of one item, or the first
/// branch of an `anyOf`/`oneOf` that has one. `root` holds the `$defs` that `$ref`s name.
fn assembled(schema: &Value, root: &Value, depth: usize) -> Option<Value> {
    if depth > MAX_DEPTH {
        return None;
    }
    if let Some(first) = schema.get("examples").and_then(Value::as_array).and_then(|e| e.first()) {
        return Some(first.clone());
    }
    if let Some(target) = schema.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix('#')) {
        return assembled(root.pointer(target)?, root, depth + 1);
    }
    if let Some(Value::Object(props)) = schema.get("properties") {
        let mut object = Map::new();
        for (name, prop) in props {
            object.extend(assembled(prop, root, depth + 1).map(|v| (name.clone(), v)));
        }
        let complete = required(schema).iter().all(|r| object.contains_key(r));
        return (complete && !object.is_empty()).then_some(Value::Object(object));
    }
    if let Some(items) = schema.get("items").filter(|i| i.is_object()) {
        return assembled(items, root, depth + 1).map(|item| Value::Array(vec![item]));
    }
    ["anyOf", "oneOf"]
        .iter()
        .filter_map(|k| schema.get(*k).and_then(Value::as_array))
        .flatten()
        .find_map(|branch| assembled(branch, root, depth + 1))
}

/// The request body's examples, each as the arguments that make up the body.
fn body_values(binding: Option<&HttpBinding>, op: Option<&Operation>, schema: &Value) -> Vec<Map<String, Value>> {
    let Some(body) = binding.and_then(|b| b.body.as_ref()) else { return Vec::new() };
    let media = op
        .and_then(|op| op.request_body.as_ref())
        .and_then(|b| b.content.iter().find(|m| m.media_type == body.media_type));
    let Some(media) = media else { return Vec::new() };
    media.examples.iter().filter_map(|example| body_arguments(&body.content, example, schema)).collect()
}

/// A body example as the arguments it fills; `None` when it fills none. Files and base64 bodies
/// are left out: an example of their content is not their encoding.
fn body_arguments(content: &BodyContent, example: &Value, schema: &Value) -> Option<Map<String, Value>> {
    let mut args = Map::new();
    match content {
        BodyContent::Whole { arg } => {
            let encoded = schema.pointer(&format!("/properties/{}/contentEncoding", escape(arg))).is_some();
            if !encoded {
                args.insert(arg.clone(), example.clone());
            }
        }
        BodyContent::Properties { fields, extra_arg } => {
            let Value::Object(example) = example else { return None };
            let mut extra = Map::new();
            for (key, value) in example {
                match fields.iter().find(|f| &f.name == key) {
                    Some(field) if !field.file => {
                        args.insert(field.arg.clone(), value.clone());
                    }
                    Some(_) => {}
                    // A key the body does not declare: the extra properties' argument, if any.
                    None => {
                        extra.insert(key.clone(), value.clone());
                    }
                }
            }
            if let Some(extra_arg) = extra_arg.as_ref().filter(|_| !extra.is_empty()) {
                args.insert(extra_arg.clone(), Value::Object(extra));
            }
        }
        BodyContent::Arguments | BodyContent::Call { .. } => {}
    }
    (!args.is_empty()).then_some(args)
}

/// The arguments that make up the body.
fn body_fields(binding: Option<&HttpBinding>) -> Vec<String> {
    match binding.and_then(|b| b.body.as_ref()).map(|b| &b.content) {
        Some(BodyContent::Whole { arg }) => vec![arg.clone()],
        Some(BodyContent::Properties { fields, extra_arg }) => {
            fields.iter().map(|f| f.arg.clone()).chain(extra_arg.iter().cloned()).collect()
        }
        _ => Vec::new(),
    }
}

/// A JSON pointer token for `key`.
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// The schema's `required`.
fn required(schema: &Value) -> Vec<String> {
    let list = schema.get("required").and_then(Value::as_array);
    list.into_iter().flatten().filter_map(Value::as_str).map(str::to_string).collect()
}

/// Candidate examples, in order, each once, each with every required argument (see the
/// module's doc).
fn candidates(values: &BTreeMap<String, Vec<Value>>, bodies: &[Map<String, Value>], required: &[String]) -> Vec<Value> {
    let count = values.values().map(Vec::len).chain([bodies.len()]).max().unwrap_or(0).min(MAX_CANDIDATES);
    let mut out: Vec<Map<String, Value>> = Vec::new();
    for i in 0..count {
        let mut example = bodies.get(i).or(bodies.first()).cloned().unwrap_or_default();
        for (arg, list) in values {
            if let Some(value) = list.get(i).or(list.first()) {
                example.entry(arg.clone()).or_insert_with(|| value.clone());
            }
        }
        // One without a required argument is no example of a call, only of missing data.
        if required.iter().all(|r| example.contains_key(r)) {
            out.push(example);
        }
    }
    if let Some(first) = out.first() {
        let mut minimal = first.clone();
        minimal.retain(|arg, _| required.contains(arg));
        if !minimal.is_empty() && minimal.len() < first.len() {
            out.insert(1, minimal);
        }
    }
    let mut unique: Vec<Value> = Vec::new();
    for example in out.into_iter().map(Value::Object) {
        if !unique.contains(&example) {
            unique.push(example);
        }
    }
    unique
}

/// The candidates that are valid for `schema` and short enough, at most [`MAX_INPUT_EXAMPLES`];
/// the others, with the reason, up to there.
fn checked(candidates: Vec<Value>, schema: &Value) -> ToolExamples {
    let mut out = ToolExamples::default();
    let validator = match jsonschema::validator_for(schema) {
        Ok(v) => v,
        Err(e) => {
            out.dropped.push(format!("no input examples: the input schema does not compile ({e})"));
            return out;
        }
    };
    for (i, example) in candidates.into_iter().enumerate() {
        if out.kept.len() == MAX_INPUT_EXAMPLES {
            break;
        }
        let length = example.to_string().chars().count();
        let problem = if length > MAX_EXAMPLE_CHARS {
            Some(format!("{length} characters, over {MAX_EXAMPLE_CHARS}"))
        } else {
            validator.iter_errors(&example).next().map(|e| problem_text(&e.instance_path().to_string(), &e.to_string()))
        };
        match problem {
            Some(why) => out.dropped.push(format!("example {} left out: {why}", i + 1)),
            None => out.kept.push(example),
        }
    }
    out
}

/// A validation error in one line of reasonable length (the value it quotes may be long).
fn problem_text(at: &str, message: &str) -> String {
    const MAX: usize = 160;
    let at = if at.is_empty() { "the arguments" } else { at };
    let mut text: String = format!("{at}: {message}").chars().filter(|c| !c.is_control()).collect();
    if text.chars().count() > MAX {
        text = text.chars().take(MAX).collect::<String>() + "…";
    }
    text
}

#[cfg(test)]
mod tests;
