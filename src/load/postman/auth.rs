//! Postman `auth` blocks (collection, folder, request) as security requirements: the kind and,
//! for an API key, its name and place. The values (tokens, passwords) are never read.

use serde_json::Value;

use super::vars::Vars;
use crate::load::recorded::secrets::{self, Schemes};

/// What an `auth` block says.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Auth {
    /// `inherit` (or no block): the parent's.
    Inherit,
    /// `noauth`: none.
    None,
    /// A scheme, by the name it is kept under.
    Scheme(String),
    /// A kind mcpgen cannot perform (`awsv4`, `hawk`, `ntlm`...): named for the warning.
    Unsupported(String),
}

/// A field of a block of either version: v2.1's list of `{key, value}`, v2.0's object.
fn field<'a>(block: &'a Value, kind: &str, key: &str) -> Option<&'a str> {
    match block.get(kind)? {
        Value::Array(items) => items
            .iter()
            .find(|i| i.get("key").and_then(Value::as_str) == Some(key))
            .and_then(|i| i.get("value"))
            .and_then(Value::as_str),
        Value::Object(map) => map.get(key).and_then(Value::as_str),
        _ => None,
    }
}

/// Reads an `auth` block, keeping its scheme in `schemes`.
pub(crate) fn read(block: Option<&Value>, vars: &Vars, schemes: &mut Schemes) -> Auth {
    let Some(block) = block.filter(|b| b.is_object()) else { return Auth::Inherit };
    let kind = block.get("type").and_then(Value::as_str).unwrap_or("inherit");
    let credential = match kind {
        "inherit" => return Auth::Inherit,
        "noauth" => return Auth::None,
        "bearer" | "oauth2" | "jwt" => secrets::http("bearer"),
        "basic" => secrets::http("basic"),
        "digest" => secrets::http("digest"),
        "apikey" => {
            let name = field(block, "apikey", "key").map(|k| vars.resolve(k).text).filter(|k| !k.trim().is_empty());
            let place = match field(block, "apikey", "in") {
                Some("query") => "query",
                _ => "header",
            };
            secrets::api_key(name.as_deref().unwrap_or("X-API-Key"), place)
        }
        other => return Auth::Unsupported(other.to_string()),
    };
    Auth::Scheme(schemes.add(credential))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn both_versions() {
        let vars = Vars::default();
        let mut s = Schemes::default();
        let v21 = json!({"type": "apikey", "apikey": [{"key": "key", "value": "X-Key"}, {"key": "in", "value": "query"}, {"key": "value", "value": "secret"}]});
        assert_eq!(read(Some(&v21), &vars, &mut s), Auth::Scheme("x_key_query".into()));
        let v20 = json!({"type": "bearer", "bearer": {"token": "secret"}});
        assert_eq!(read(Some(&v20), &vars, &mut s), Auth::Scheme("bearerAuth".into()));
        assert_eq!(read(Some(&json!({"type": "noauth"})), &vars, &mut s), Auth::None);
        assert_eq!(read(Some(&json!({"type": "awsv4"})), &vars, &mut s), Auth::Unsupported("awsv4".into()));
        assert!(!serde_json::to_string(&s.schemes).unwrap().contains("secret"));
    }
}
