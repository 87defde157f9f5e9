//! OpenAPI parameter serialisation: path (simple, label, matrix), query (form, spaceDelimited,
//! pipeDelimited, deepObject), header (simple) and cookie (form), with percent-encoding that keeps
//! every argument inside its own segment: no `/`, `?`, `#` or `..` can escape a path parameter.

use std::borrow::Cow;

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::Value;

use crate::config::{ParamBinding, ParamStyle};
use crate::error::{Error, Result};

/// Everything but RFC 3986 unreserved characters is encoded.
const UNRESERVED: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');
/// With `allowReserved`: reserved characters stay, except those that would break the query.
const ALLOW_RESERVED: &AsciiSet = &UNRESERVED
    .remove(b':')
    .remove(b'/')
    .remove(b'?')
    .remove(b'[')
    .remove(b']')
    .remove(b'@')
    .remove(b'!')
    .remove(b'$')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')')
    .remove(b'*')
    .remove(b'+')
    .remove(b',')
    .remove(b';');

/// Percent-encodes everything but RFC 3986 unreserved characters (`A-Z a-z 0-9 - . _ ~`).
pub fn encode(s: &str) -> String {
    encode_with(s, false)
}

fn encode_with(s: &str, allow_reserved: bool) -> String {
    // Through `Cow`, not `Display`: most values need no escape and are copied as they are.
    Cow::from(utf8_percent_encode(s, if allow_reserved { ALLOW_RESERVED } else { UNRESERVED })).into_owned()
}

/// A JSON value as parameter text: strings as they are, other scalars as JSON, nested values as JSON.
pub fn scalar_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        // A number's own text, without serde_json's writer (same digits).
        Value::Number(n) => n.to_string(),
        other => other.to_string(),
    }
}

/// RFC 6570, which OpenAPI styles follow: an empty list or map is undefined and expands to
/// nothing (no `.` or `;name=` prefix in a path, no pair in a query, no header, no cookie).
pub fn is_undefined(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Array(items) => items.is_empty(),
        Value::Object(map) => map.is_empty(),
        _ => false,
    }
}

/// The value of a path variable, already encoded.
pub fn path_value(b: &ParamBinding, v: &Value) -> Result<String> {
    if is_undefined(v) && b.content_type.is_none() {
        return Ok(String::new());
    }
    if b.content_type.is_some() {
        return Ok(encode(&v.to_string()));
    }
    let enc = |s: &str| encode(s);
    let text = match (b.style, v) {
        (ParamStyle::Label, _) => format!(".{}", join_value(v, b.explode, ".", ",", "=", enc)),
        (ParamStyle::Matrix, Value::Object(_)) if b.explode => format!(";{}", join_value(v, true, ";", ",", "=", enc)),
        (ParamStyle::Matrix, Value::Array(items)) if b.explode => {
            items.iter().map(|i| format!(";{}={}", enc(&b.name), enc(&scalar_text(i)))).collect()
        }
        // RFC 6570: an empty string is `;name`, without `=`.
        (ParamStyle::Matrix, Value::String(s)) if s.is_empty() => format!(";{}", enc(&b.name)),
        (ParamStyle::Matrix, _) => format!(";{}={}", enc(&b.name), join_value(v, false, ",", ",", "=", enc)),
        _ => join_value(v, b.explode, ",", ",", "=", enc),
    };
    Ok(text)
}

/// `(key, value)` query pairs, already encoded.
pub fn query_pairs(b: &ParamBinding, v: &Value) -> Vec<(String, String)> {
    let key = encode(&b.name);
    let enc = |s: &str| encode_with(s, b.allow_reserved);
    if b.content_type.is_some() {
        return vec![(key, enc(&v.to_string()))];
    }
    match (b.style, v) {
        (ParamStyle::DeepObject, Value::Object(map)) => {
            let mut out = Vec::new();
            deep_object(&b.name, map, &enc, &mut out);
            out
        }
        (ParamStyle::SpaceDelimited, Value::Array(items)) => {
            vec![(key, items.iter().map(|i| enc(&scalar_text(i))).collect::<Vec<_>>().join("%20"))]
        }
        (ParamStyle::PipeDelimited, Value::Array(items)) => {
            vec![(key, items.iter().map(|i| enc(&scalar_text(i))).collect::<Vec<_>>().join("|"))]
        }
        (_, Value::Array(items)) if b.explode => items.iter().map(|i| (key.clone(), enc(&scalar_text(i)))).collect(),
        (_, Value::Object(map)) if b.explode => map.iter().map(|(k, i)| (encode(k), enc(&scalar_text(i)))).collect(),
        _ => vec![(key, join_value(v, false, ",", ",", ",", enc))],
    }
}

fn deep_object(
    prefix: &str,
    map: &serde_json::Map<String, Value>,
    enc: &dyn Fn(&str) -> String,
    out: &mut Vec<(String, String)>,
) {
    for (k, v) in map {
        let key = format!("{prefix}[{k}]");
        match v {
            Value::Object(inner) => deep_object(&key, inner, enc, out),
            Value::Array(items) => {
                for i in items {
                    out.push((deep_key(&key), enc(&scalar_text(i))));
                }
            }
            other => out.push((deep_key(&key), enc(&scalar_text(other)))),
        }
    }
}

/// Brackets stay readable (`filter[name]`); everything else in the key is encoded.
fn deep_key(key: &str) -> String {
    encode(key).replace("%5B", "[").replace("%5D", "]")
}

/// A header value (style simple). Control characters are refused: no header injection.
pub fn header_value(b: &ParamBinding, v: &Value) -> Result<String> {
    let text = if b.content_type.is_some() {
        v.to_string()
    } else {
        join_value(v, b.explode, ",", ",", "=", |s| s.to_string())
    };
    if text.chars().any(|c| c.is_control()) {
        return Err(Error::Arguments(format!(
            "header parameter `{}` must not contain control characters (CR, LF, ...)",
            b.arg
        )));
    }
    Ok(text)
}

/// A `name=value` cookie pair; the value is encoded so it cannot add cookies or attributes.
pub fn cookie_pair(b: &ParamBinding, v: &Value) -> String {
    let value =
        if b.content_type.is_some() { v.to_string() } else { join_value(v, false, ",", ",", ",", |s| s.to_string()) };
    format!("{}={}", encode(&b.name), encode(&value))
}

/// Arrays and objects flattened with separators: `sep` between items, `kv` inside an exploded
/// object's `key=value`, `unexploded_kv` between key and value when not exploded.
fn join_value(v: &Value, explode: bool, sep: &str, list_sep: &str, kv: &str, enc: impl Fn(&str) -> String) -> String {
    match v {
        Value::Array(items) => {
            let s = if explode { sep } else { list_sep };
            items.iter().map(|i| enc(&scalar_text(i))).collect::<Vec<_>>().join(s)
        }
        Value::Object(map) => {
            if explode {
                map.iter().map(|(k, i)| format!("{}{kv}{}", enc(k), enc(&scalar_text(i)))).collect::<Vec<_>>().join(sep)
            } else {
                map.iter().flat_map(|(k, i)| [enc(k), enc(&scalar_text(i))]).collect::<Vec<_>>().join(list_sep)
            }
        }
        other => enc(&scalar_text(other)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ParamLocation;
    use serde_json::json;

    fn b(style: ParamStyle, explode: bool) -> ParamBinding {
        ParamBinding {
            arg: "id".into(),
            name: "id".into(),
            location: ParamLocation::Query,
            style,
            explode,
            allow_reserved: false,
            content_type: None,
        }
    }

    /// A number's text is what serde_json writes for it in a document.
    #[test]
    fn numbers_are_written_as_json_writes_them() {
        for n in [json!(0), json!(-0.0), json!(1.5), json!(1e300), json!(-2.5e-8), json!(u64::MAX), json!(i64::MIN)] {
            assert_eq!(scalar_text(&n), serde_json::to_string(&n).unwrap());
        }
    }

    // The examples of the OpenAPI 3.1 "Style Examples" table.
    #[test]
    fn path_styles() {
        let arr = json!(["blue", "black", "brown"]);
        let obj = json!({"R": 100, "G": 200, "B": 150});
        assert_eq!(path_value(&b(ParamStyle::Simple, false), &json!(5)).unwrap(), "5");
        assert_eq!(path_value(&b(ParamStyle::Simple, false), &arr).unwrap(), "blue,black,brown");
        assert_eq!(path_value(&b(ParamStyle::Simple, false), &obj).unwrap(), "B,150,G,200,R,100");
        assert_eq!(path_value(&b(ParamStyle::Simple, true), &obj).unwrap(), "B=150,G=200,R=100");
        assert_eq!(path_value(&b(ParamStyle::Label, false), &arr).unwrap(), ".blue,black,brown");
        assert_eq!(path_value(&b(ParamStyle::Label, true), &arr).unwrap(), ".blue.black.brown");
        assert_eq!(path_value(&b(ParamStyle::Matrix, false), &json!("blue")).unwrap(), ";id=blue");
        assert_eq!(path_value(&b(ParamStyle::Matrix, true), &arr).unwrap(), ";id=blue;id=black;id=brown");
        assert_eq!(path_value(&b(ParamStyle::Matrix, true), &obj).unwrap(), ";B=150;G=200;R=100");
        assert_eq!(path_value(&b(ParamStyle::Matrix, false), &obj).unwrap(), ";id=B,150,G,200,R,100");
        assert_eq!(path_value(&b(ParamStyle::Matrix, false), &json!("")).unwrap(), ";id");
        assert_eq!(path_value(&b(ParamStyle::Label, false), &json!("")).unwrap(), ".");
        // Empty lists and maps are undefined: no prefix at all.
        for style in [ParamStyle::Simple, ParamStyle::Label, ParamStyle::Matrix] {
            assert_eq!(path_value(&b(style, true), &json!({})).unwrap(), "");
            assert_eq!(path_value(&b(style, false), &json!([])).unwrap(), "");
        }
    }

    #[test]
    fn path_values_cannot_escape_their_segment() {
        let p = b(ParamStyle::Simple, false);
        assert_eq!(path_value(&p, &json!("a/../b?x=1#f")).unwrap(), "a%2F..%2Fb%3Fx%3D1%23f");
        assert_eq!(path_value(&p, &json!("..")).unwrap(), "..", "dot segments are made safe by request::prepare");
        assert_eq!(path_value(&p, &json!("x y")).unwrap(), "x%20y");
    }

    #[test]
    fn query_styles() {
        let arr = json!(["blue", "black"]);
        let obj = json!({"R": 100, "G": 200});
        let q = |s, e, v: &Value| {
            query_pairs(&b(s, e), v).iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("&")
        };
        assert_eq!(q(ParamStyle::Form, true, &arr), "id=blue&id=black");
        assert_eq!(q(ParamStyle::Form, false, &arr), "id=blue,black");
        assert_eq!(q(ParamStyle::Form, true, &obj), "G=200&R=100");
        assert_eq!(q(ParamStyle::Form, false, &obj), "id=G,200,R,100");
        assert_eq!(q(ParamStyle::SpaceDelimited, false, &arr), "id=blue%20black");
        assert_eq!(q(ParamStyle::PipeDelimited, false, &arr), "id=blue|black");
        assert_eq!(q(ParamStyle::DeepObject, true, &obj), "id[G]=200&id[R]=100");
        assert_eq!(q(ParamStyle::DeepObject, true, &json!({"a": {"b": 1}})), "id[a][b]=1");
        assert_eq!(q(ParamStyle::Form, true, &json!("a&b=c")), "id=a%26b%3Dc");
        assert_eq!(q(ParamStyle::Form, true, &json!(true)), "id=true");
    }

    #[test]
    fn headers_and_cookies() {
        assert_eq!(header_value(&b(ParamStyle::Simple, false), &json!([1, 2])).unwrap(), "1,2");
        assert!(header_value(&b(ParamStyle::Simple, false), &json!("a\r\nX-Evil: 1")).is_err());
        assert_eq!(cookie_pair(&b(ParamStyle::Form, true), &json!("a; admin=1")), "id=a%3B%20admin%3D1");
    }
}
