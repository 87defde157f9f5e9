//! A response's shape string ([`ResponseInfo::shape`](crate::config::ResponseInfo::shape)) as a
//! TypeScript type: the return type of a tool without an output schema.
//!
//! The shape names members and their nesting, not their types: `{id, user: {login, …}, labels:
//! [{name}], …}` is read as `{ id; user: { login; /* … */ }; labels: { name }[]; /* … */ }`, the
//! members without a type TypeScript allows (their type is then `any`): a third shorter than
//! `id: unknown` on GitHub's API, whose return types are half its declarations. A scalar is its type (`string`, `[integer]`), `{…}` an object of
//! unknown members. The grammar is mcpgen's own (`src/tools/response.rs` writes it); a shape
//! that does not follow it (a hand-edited config) is not read ([`shape_type`] gives `None`). Names
//! are re-written through [`property_key`], so the text of a shape never reaches a declaration
//! unescaped.

use serde_json::Value;

use crate::code::escape::property_key;

/// A parsed shape.
#[derive(Debug, Clone, PartialEq)]
enum Shape {
    /// `string`, `integer`...: as a TypeScript type.
    Scalar(&'static str),
    /// A member without nesting shown: its type is not known.
    Unknown,
    /// An object's members shown, and whether more were left out (`…`).
    Object(Vec<(String, Shape)>, bool),
    /// An array of this.
    Array(Box<Shape>),
}

/// Nesting deeper than this is not read (mcpgen writes two levels).
const MAX_DEPTH: usize = 8;

/// The TypeScript type of a shape string; `None` when it does not follow the grammar.
pub fn shape_type(shape: &str) -> Option<String> {
    let mut parser = Parser { rest: shape.trim() };
    let parsed = parser.top()?;
    parser.rest.is_empty().then(|| render(&parsed))
}

struct Parser<'a> {
    rest: &'a str,
}

impl Parser<'_> {
    fn eat(&mut self, token: &str) -> bool {
        match self.rest.strip_prefix(token) {
            Some(rest) => {
                self.rest = rest;
                true
            }
            None => false,
        }
    }

    /// A top-level shape: an object, an array, or a scalar type.
    fn top(&mut self) -> Option<Shape> {
        if self.rest.starts_with(['{', '[']) {
            return self.nested(0);
        }
        scalar(self.word()?)
    }

    /// `{...}` or `[...]`.
    fn nested(&mut self, depth: usize) -> Option<Shape> {
        if depth > MAX_DEPTH {
            return None;
        }
        if self.eat("[") {
            let item = if self.eat("…") {
                Shape::Unknown
            } else if self.rest.starts_with(['{', '[']) {
                self.nested(depth + 1)?
            } else {
                scalar(self.word()?)?
            };
            return self.eat("]").then(|| Shape::Array(Box::new(item)));
        }
        if !self.eat("{") {
            return None;
        }
        let mut members = Vec::new();
        loop {
            if self.eat("…") {
                return self.eat("}").then_some(Shape::Object(members, true));
            }
            if self.eat("}") {
                return Some(Shape::Object(members, false));
            }
            let name = self.name()?;
            let shape = if self.eat(": ") { self.nested(depth + 1)? } else { Shape::Unknown };
            members.push((name, shape));
            if !self.eat(", ") && !self.rest.starts_with('}') {
                return None;
            }
        }
    }

    /// An identifier, or a JSON string.
    fn name(&mut self) -> Option<String> {
        if self.rest.starts_with('"') {
            let mut stream = serde_json::Deserializer::from_str(self.rest).into_iter::<Value>();
            let Some(Ok(Value::String(name))) = stream.next() else { return None };
            self.rest = &self.rest[stream.byte_offset()..];
            return Some(name);
        }
        self.word().map(str::to_string)
    }

    /// Letters, digits and `_`.
    fn word(&mut self) -> Option<&str> {
        let len = self.rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(self.rest.len());
        let (word, rest) = self.rest.split_at(len);
        self.rest = rest;
        (!word.is_empty()).then_some(word)
    }
}

/// A scalar type's name as TypeScript's.
fn scalar(word: &str) -> Option<Shape> {
    Some(Shape::Scalar(match word {
        "string" => "string",
        "integer" | "number" => "number",
        "boolean" => "boolean",
        "null" => "null",
        _ => return None,
    }))
}

fn render(shape: &Shape) -> String {
    match shape {
        Shape::Scalar(t) => (*t).to_string(),
        Shape::Unknown => "unknown".to_string(),
        Shape::Array(item) => format!("{}[]", render(item)),
        Shape::Object(members, more) if members.is_empty() => {
            if *more {
                "{ [key: string]: unknown }".to_string()
            } else {
                "{}".to_string()
            }
        }
        Shape::Object(members, more) => {
            let member = |(name, shape): &(String, Shape)| match shape {
                // TypeScript's member without a type (`any`): the shape names it, nothing more.
                Shape::Unknown => property_key(name),
                shape => format!("{}: {}", property_key(name), render(shape)),
            };
            let mut parts: Vec<String> = members.iter().map(member).collect();
            if *more {
                parts.push("/* … */".to_string());
            }
            format!("{{ {} }}", parts.join("; "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_list_their_members() {
        assert_eq!(shape_type("{id, title}").as_deref(), Some("{ id; title }"));
        assert_eq!(
            shape_type("{id, user: {login, …}, labels: [{name}], …}").as_deref(),
            Some("{ id; user: { login; /* … */ }; labels: { name }[]; /* … */ }")
        );
    }

    #[test]
    fn arrays_and_scalars() {
        assert_eq!(shape_type("[{id}]").as_deref(), Some("{ id }[]"));
        assert_eq!(shape_type("[integer]").as_deref(), Some("number[]"));
        assert_eq!(shape_type("string").as_deref(), Some("string"));
        assert_eq!(shape_type("[…]").as_deref(), Some("unknown[]"));
        assert_eq!(shape_type("[[…]]").as_deref(), Some("unknown[][]"));
        assert_eq!(shape_type("{…}").as_deref(), Some("{ [key: string]: unknown }"));
    }

    #[test]
    fn quoted_names_are_written_again_escaped() {
        assert_eq!(shape_type(r#"{"@type", ok}"#).as_deref(), Some(r#"{ "@type"; ok }"#));
        let hostile = r#"{"a*/b\u2028</script>", x}"#;
        assert_eq!(shape_type(hostile).as_deref(), Some(r#"{ "a*/b\u2028\u003c/script\u003e"; x }"#));
    }

    #[test]
    fn what_is_not_a_shape_is_not_read() {
        for text in ["", "{id", "{id,title}", "{id} x", "date", "{id: string}", "{*/}", "[{a}", "{\"a}"] {
            assert_eq!(shape_type(text), None, "{text}");
        }
        let deep = format!("{}{{}}{}", "{a: ".repeat(20), "}".repeat(20));
        assert_eq!(shape_type(&deep), None);
    }
}
