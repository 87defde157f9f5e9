//! JSON values that keep their members in the order the API wrote them. serde_json's `Value`
//! sorts object keys (mcpgen builds it without `preserve_order`, which would change every schema
//! it writes), and a model reads `{"id", "title", ...}` better in the API's order than sorted.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

/// A JSON value with object members in document order.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number as serde_json reads it.
    Num(serde_json::Number),
    /// A string.
    Str(String),
    /// An array.
    Arr(Vec<Json>),
    /// An object, its members in order (a repeated key is kept as written).
    Obj(Vec<(String, Json)>),
}

impl Json {
    /// Parses JSON text.
    pub fn parse(bytes: &[u8]) -> serde_json::Result<Json> {
        serde_json::from_slice(bytes)
    }

    /// Minified JSON text, in member order (serde_json writing [`Json`]'s `Serialize`).
    pub fn to_text(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Characters of its minified text, counted without writing it.
    pub fn chars(&self) -> usize {
        match self {
            Json::Null => 4,
            Json::Bool(b) => {
                if *b {
                    4
                } else {
                    5
                }
            }
            Json::Num(n) => n.to_string().len(),
            Json::Str(s) => str_chars(s),
            Json::Arr(items) => 2 + items.len().saturating_sub(1) + items.iter().map(Json::chars).sum::<usize>(),
            Json::Obj(members) => {
                2 + members.len().saturating_sub(1)
                    + members.iter().map(|(k, v)| str_chars(k) + 1 + v.chars()).sum::<usize>()
            }
        }
    }

    /// Null, a boolean, a number or a string.
    pub fn is_scalar(&self) -> bool {
        !matches!(self, Json::Arr(_) | Json::Obj(_))
    }

    /// The member `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Obj(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The string it is.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The same value as serde_json's.
    pub fn to_value(&self) -> serde_json::Value {
        use serde_json::Value;
        match self {
            Json::Null => Value::Null,
            Json::Bool(b) => Value::Bool(*b),
            Json::Num(n) => Value::Number(n.clone()),
            Json::Str(s) => Value::String(s.clone()),
            Json::Arr(items) => Value::Array(items.iter().map(Json::to_value).collect()),
            Json::Obj(members) => Value::Object(members.iter().map(|(k, v)| (k.clone(), v.to_value())).collect()),
        }
    }
}

/// Characters of a string as a JSON string literal (quotes and escapes included).
pub fn str_chars(s: &str) -> usize {
    2 + s
        .chars()
        .map(|c| match c {
            '"' | '\\' | '\n' | '\r' | '\t' | '\u{08}' | '\u{0c}' => 2,
            c if (c as u32) < 0x20 => 6,
            _ => 1,
        })
        .sum::<usize>()
}

impl Serialize for Json {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Json::Null => s.serialize_unit(),
            Json::Bool(b) => s.serialize_bool(*b),
            Json::Num(n) => n.serialize(s),
            Json::Str(v) => s.serialize_str(v),
            Json::Arr(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Json::Obj(members) => {
                let mut map = s.serialize_map(Some(members.len()))?;
                for (k, v) in members {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Json, D::Error> {
        d.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }
    fn visit_none<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }
    fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
        Ok(Json::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
        Ok(Json::Num(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
        Ok(Json::Num(v.into()))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Json, E> {
        serde_json::Number::from_f64(v).map(Json::Num).ok_or_else(|| E::custom("a number JSON cannot hold"))
    }
    fn visit_str<E>(self, v: &str) -> Result<Json, E> {
        Ok(Json::Str(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Json, E> {
        Ok(Json::Str(v))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Arr(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut members = Vec::with_capacity(map.size_hint().unwrap_or(0).min(4096));
        while let Some((k, v)) = map.next_entry::<String, Json>()? {
            members.push((k, v));
        }
        Ok(Json::Obj(members))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_keep_their_order() {
        let j = Json::parse(br#"{"z":1,"a":[true,null,"x"],"m":{"b":2.5,"a":-1}}"#).unwrap();
        assert_eq!(j.to_text(), r#"{"z":1,"a":[true,null,"x"],"m":{"b":2.5,"a":-1}}"#);
    }

    #[test]
    fn chars_counts_the_minified_text() {
        for text in [r#"{"a":"q\"\n\u0001é","b":[1,2,{}],"c":[]}"#, "[]", r#""\\""#, "12345678901234567890"] {
            let j = Json::parse(text.as_bytes()).unwrap();
            assert_eq!(j.chars(), j.to_text().chars().count(), "{text}");
        }
    }

    #[test]
    fn text_is_what_serde_json_writes() {
        // Keys in serde_json's order (it sorts them), so that only the writing differs.
        let text = r#"{"e":1e300,"n":-0.5,"s":"tab\there \u001f \\ / ✓"}"#;
        let j = Json::parse(text.as_bytes()).unwrap();
        let v: serde_json::Value = serde_json::from_str(text).unwrap();
        assert_eq!(j.to_text(), serde_json::to_string(&v).unwrap());
        assert_eq!(serde_json::to_string(&j).unwrap(), j.to_text());
    }
}
