//! The conventions of mcpgen's OpenAPI loader, for both directions: normalize and the tools stage
//! read documents by them, and `mcpgen convert` writes documents that follow them, so that loading
//! what `convert` wrote yields the same tools.

use serde_json::Value;

/// A parameter's description as the loader reads it: trimmed, empty ones dropped, and copied into
/// the argument's schema when that has no description of its own. So an argument schema's
/// description that the loader would restore unchanged can sit on the parameter, where OpenAPI
/// puts it: returns the schema without it, and the description.
pub fn parameter_description(mut schema: Value) -> (Value, Option<String>) {
    let restorable = match schema.get("description") {
        Some(Value::String(d)) => !d.is_empty() && d.trim() == d,
        _ => false,
    };
    let description = restorable
        .then(|| schema.as_object_mut().and_then(|o| o.remove("description")))
        .flatten()
        .and_then(|d| d.as_str().map(str::to_string));
    (schema, description)
}
