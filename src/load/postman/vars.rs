//! Postman's `{{variables}}`: the collection's values, which of them are secrets, and texts with
//! variables substituted.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::load::recorded::secrets;

/// How deep variables inside variables' values are resolved.
const MAX_NESTING: usize = 4;

/// The collection's variables: values that may be shown, and the names that are secrets (never
/// read: their values are a user's credentials).
#[derive(Debug, Default)]
pub(crate) struct Vars {
    values: BTreeMap<String, String>,
    secrets: BTreeSet<String>,
}

/// A text with its variables substituted where they may be.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Resolved {
    pub text: String,
    /// Variables with no value that may be shown (unknown, dynamic, or secret): left out.
    pub missing: Vec<String>,
}

impl Resolved {
    /// The text when every variable had a value.
    pub(crate) fn complete(self) -> Option<String> {
        self.missing.is_empty().then_some(self.text)
    }
}

/// The `{{name}}`s of a text, in order.
pub(crate) fn names_in(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else { break };
        out.push(after[..end].trim().to_string());
        rest = &after[end + 2..];
    }
    out
}

/// A text that is exactly one variable (`{{baseUrl}}`): its name.
pub(crate) fn whole_variable(text: &str) -> Option<&str> {
    let inner = text.trim().strip_prefix("{{")?.strip_suffix("}}")?;
    (!inner.contains("{{") && !inner.contains("}}")).then_some(inner.trim())
}

impl Vars {
    /// The collection's `variable` list, with the secrets: variables of type `secret`, and those
    /// any `auth` block or credential header of the collection names.
    pub(crate) fn read(root: &Value) -> Vars {
        let mut vars = Vars::default();
        for v in root.get("variable").and_then(Value::as_array).into_iter().flatten() {
            let Some(key) = v.get("key").or_else(|| v.get("id")).and_then(Value::as_str) else { continue };
            if v.get("type").and_then(Value::as_str) == Some("secret") {
                vars.secrets.insert(key.to_string());
                continue;
            }
            let value = match v.get("value") {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Null) | None => continue,
                Some(other) => other.to_string(),
            };
            vars.values.insert(key.to_string(), value);
        }
        collect_secrets(root, &mut vars.secrets);
        vars
    }

    /// Whether a variable is a secret.
    pub(crate) fn is_secret(&self, name: &str) -> bool {
        self.secrets.contains(name)
    }

    /// A variable's value, unless it is a secret or unknown (`{{$guid}}` and other dynamic ones).
    pub(crate) fn value(&self, name: &str) -> Option<&str> {
        if self.is_secret(name) { None } else { self.values.get(name).map(String::as_str) }
    }

    /// `text` with each variable that has a value substituted (a value that holds variables is
    /// resolved in turn, as Postman does, [`MAX_NESTING`] deep), the others left out and named.
    pub(crate) fn resolve(&self, text: &str) -> Resolved {
        self.resolve_at(text, 0)
    }

    fn resolve_at(&self, text: &str, depth: usize) -> Resolved {
        let mut out = String::new();
        let mut missing = Vec::new();
        let mut rest = text;
        while let Some(start) = rest.find("{{") {
            let after = &rest[start + 2..];
            let Some(end) = after.find("}}") else { break };
            out.push_str(&rest[..start]);
            let name = after[..end].trim();
            match self.value(name) {
                Some(v) if v.contains("{{") && depth < MAX_NESTING => {
                    let inner = self.resolve_at(v, depth + 1);
                    out.push_str(&inner.text);
                    missing.extend(inner.missing);
                }
                Some(v) => out.push_str(v),
                None => missing.push(name.to_string()),
            }
            rest = &after[end + 2..];
        }
        out.push_str(rest);
        Resolved { text: out, missing }
    }

    /// Whether a text names a secret variable.
    pub(crate) fn names_secret(&self, text: &str) -> bool {
        names_in(text).iter().any(|n| self.is_secret(n))
    }
}

/// Every variable named where a credential goes: in `auth` blocks (but an API key's name and
/// place) and in credential headers, anywhere in the collection.
fn collect_secrets(value: &Value, out: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                match key.as_str() {
                    "auth" => secrets_of_auth(v, out),
                    "header" => secrets_of_headers(v, out),
                    _ => collect_secrets(v, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect_secrets(v, out)),
        _ => {}
    }
}

fn secrets_of_auth(auth: &Value, out: &mut BTreeSet<String>) {
    let Some(map) = auth.as_object() else { return };
    for (kind, fields) in map {
        if kind == "type" {
            continue;
        }
        let mut visit = |field: &str, v: &Value| {
            if matches!(field, "key" | "in") && kind == "apikey" {
                return;
            }
            strings(v, &mut |s| out.extend(names_in(s)));
        };
        match fields {
            // v2.1: a list of {key, value}.
            Value::Array(items) => {
                for item in items {
                    let field = item.get("key").and_then(Value::as_str).unwrap_or("");
                    if let Some(v) = item.get("value") {
                        visit(field, v);
                    }
                }
            }
            // v2.0: an object of fields.
            Value::Object(fields) => fields.iter().for_each(|(field, v)| visit(field, v)),
            _ => {}
        }
    }
}

fn secrets_of_headers(headers: &Value, out: &mut BTreeSet<String>) {
    for h in headers.as_array().into_iter().flatten() {
        let name = h.get("key").and_then(Value::as_str).unwrap_or("");
        let value = h.get("value").and_then(Value::as_str).unwrap_or("");
        if secrets::of_header(name, value).is_some() || name.eq_ignore_ascii_case("cookie") {
            out.extend(names_in(value));
        }
    }
}

fn strings(value: &Value, f: &mut impl FnMut(&str)) {
    match value {
        Value::String(s) => f(s),
        Value::Array(items) => items.iter().for_each(|v| strings(v, f)),
        Value::Object(map) => map.values().for_each(|v| strings(v, f)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn secrets_are_never_values() {
        let root = json!({
            "variable": [{"key": "baseUrl", "value": "https://api.example.com"}, {"key": "token", "value": "s3cr3t"},
                         {"key": "pw", "value": "x", "type": "secret"}],
            "auth": {"type": "bearer", "bearer": [{"key": "token", "value": "{{token}}"}]}
        });
        let vars = Vars::read(&root);
        assert_eq!(vars.value("baseUrl"), Some("https://api.example.com"));
        assert_eq!(vars.value("token"), None);
        assert_eq!(vars.value("pw"), None);
        let r = vars.resolve("{{baseUrl}}/a?t={{token}}");
        assert_eq!(r.text, "https://api.example.com/a?t=");
        assert_eq!(r.missing, ["token"]);
        assert_eq!(whole_variable("{{ baseUrl }}"), Some("baseUrl"));
        let nested = Vars::read(
            &json!({"variable": [{"key": "p", "value": "https"}, {"key": "b", "value": "{{p}}://x.example"}]}),
        );
        assert_eq!(nested.resolve("{{b}}/a").text, "https://x.example/a");
        assert_eq!(names_in("a{{x}}b{{y}}"), ["x", "y"]);
    }
}
