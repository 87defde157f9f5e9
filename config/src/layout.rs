//! How a config is laid out as JSON text (`mcpgen config`, a generated crate's catalogue): indented
//! for people, with each schema on one line, and any other value that fits in 100 columns on one
//! line. Schemas are most of a large config (Microsoft Graph's: 34 MB indented throughout, 24.5 MB
//! so, from a 20.3 MB description), and are read by tools more than by people; a tool's other
//! fields stay one a line, so that a diff names what changed.

use std::io;

use serde::Serialize;
use serde_json::ser::{CharEscape, Formatter};

/// Lines longer than this are broken (what a value on one line may reach, indentation included).
const WIDTH: usize = 100;

/// `config` (a [`RuntimeConfig`](crate::RuntimeConfig), or a wrapper that adds keys beside its
/// own, in the order it serialises them) as JSON text in this layout, ending with a newline.
pub fn to_json_text(config: &impl Serialize) -> serde_json::Result<String> {
    let mut out = Vec::new();
    let layout = Layout { out: &mut out, open: Vec::new(), path: Vec::new(), key: None, compact: 0 };
    config.serialize(&mut serde_json::Serializer::with_formatter(io::sink(), layout))?;
    out.push(b'\n');
    // Only whole strings and serde_json's punctuation were written: UTF-8.
    String::from_utf8(out).map_err(|e| serde_json::Error::io(io::Error::new(io::ErrorKind::InvalidData, e)))
}

/// Whether the value at `path` (object keys, and "" for array items, from the root) is a schema:
/// a tool's input or output schema, a shared definition or a fragment.
fn is_schema(path: &[String]) -> bool {
    match path {
        [tools, _, which] => tools == "tools" && (which == "input_schema" || which == "output_schema"),
        [map, _] => map == "definitions" || map == "fragments",
        _ => false,
    }
}

/// serde_json's formatter for the layout. It writes into `out` (the serializer's own writer is
/// a sink), indented; a container that closes short enough is put back on one line.
struct Layout<'a> {
    out: &'a mut Vec<u8>,
    /// Where each open container (outside schemas) starts in `out`.
    open: Vec<usize>,
    /// The keys (and "" for array items) that lead to the value being written.
    path: Vec<String>,
    /// The object key being written, while it is.
    key: Option<String>,
    /// How many containers deep inside a schema (written compact) the writer is; 0 outside.
    compact: usize,
}

impl Layout<'_> {
    fn newline(&mut self) {
        self.out.push(b'\n');
        self.out.extend(std::iter::repeat_n(b' ', 2 * self.open.len()));
    }

    fn begin(&mut self, bracket: u8) {
        if self.compact > 0 || is_schema(&self.path) {
            self.compact += 1;
        } else {
            self.open.push(self.out.len());
        }
        self.out.push(bracket);
    }

    fn end(&mut self, bracket: u8) {
        if self.compact > 0 {
            self.compact -= 1;
            self.out.push(bracket);
            return;
        }
        let start = self.open.pop().unwrap_or(0);
        if self.out.last().is_some_and(|&b| b != b'{' && b != b'[') {
            self.newline();
        }
        self.out.push(bracket);
        self.fold(start);
    }

    /// Puts the container written from `start` on one line, if it fits there.
    fn fold(&mut self, start: usize) {
        let column = start - self.out[..start].iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
        let room = WIDTH.saturating_sub(column);
        let mut line = Vec::with_capacity(room);
        let mut bytes = self.out[start..].iter().copied().peekable();
        while let Some(b) = bytes.next() {
            if b == b'\n' {
                // A line break is never inside a string (JSON escapes it): only indentation follows.
                while bytes.next_if_eq(&b' ').is_some() {}
                let opens = line.last().is_some_and(|&l| l == b'{' || l == b'[');
                let closes = bytes.peek().is_some_and(|&n| n == b'}' || n == b']');
                if !opens && !closes {
                    line.push(b' ');
                }
            } else {
                line.push(b);
            }
            if line.len() > room {
                return;
            }
        }
        self.out.truncate(start);
        self.out.extend(line);
    }
}

/// Numbers as serde_json writes them compact, into `out` (every method of the formatter must
/// write there: its default ones write to the serializer's sink).
macro_rules! numbers {
    ($($method:ident: $ty:ty),* $(,)?) => {
        $(fn $method<W: ?Sized + io::Write>(&mut self, _: &mut W, value: $ty) -> io::Result<()> {
            serde_json::ser::CompactFormatter.$method(self.out, value)
        })*
    };
}

impl Formatter for Layout<'_> {
    fn write_null<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.out.extend(b"null");
        Ok(())
    }

    fn write_bool<W: ?Sized + io::Write>(&mut self, _: &mut W, value: bool) -> io::Result<()> {
        self.out.extend(if value { &b"true"[..] } else { &b"false"[..] });
        Ok(())
    }

    numbers! {
        write_i8: i8, write_i16: i16, write_i32: i32, write_i64: i64, write_i128: i128,
        write_u8: u8, write_u16: u16, write_u32: u32, write_u64: u64, write_u128: u128,
        write_f32: f32, write_f64: f64,
    }

    fn write_number_str<W: ?Sized + io::Write>(&mut self, _: &mut W, value: &str) -> io::Result<()> {
        self.out.extend(value.as_bytes());
        Ok(())
    }

    fn begin_string<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.out.push(b'"');
        Ok(())
    }

    fn end_string<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.out.push(b'"');
        Ok(())
    }

    fn write_string_fragment<W: ?Sized + io::Write>(&mut self, _: &mut W, fragment: &str) -> io::Result<()> {
        if let Some(key) = &mut self.key {
            key.push_str(fragment);
        }
        self.out.extend(fragment.as_bytes());
        Ok(())
    }

    fn write_char_escape<W: ?Sized + io::Write>(&mut self, _: &mut W, escape: CharEscape) -> io::Result<()> {
        if let Some(key) = &mut self.key {
            // No schema path has an escaped key: the exact text does not matter.
            key.push('\\');
        }
        serde_json::ser::CompactFormatter.write_char_escape(self.out, escape)
    }

    fn write_raw_fragment<W: ?Sized + io::Write>(&mut self, _: &mut W, fragment: &str) -> io::Result<()> {
        self.out.extend(fragment.as_bytes());
        Ok(())
    }

    fn begin_array<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.begin(b'[');
        Ok(())
    }

    fn end_array<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.end(b']');
        Ok(())
    }

    fn begin_array_value<W: ?Sized + io::Write>(&mut self, _: &mut W, first: bool) -> io::Result<()> {
        if !first {
            self.out.push(b',');
        }
        if self.compact == 0 {
            self.newline();
        }
        self.path.push(String::new());
        Ok(())
    }

    fn end_array_value<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.path.pop();
        Ok(())
    }

    fn begin_object<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.begin(b'{');
        Ok(())
    }

    fn end_object<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.end(b'}');
        Ok(())
    }

    fn begin_object_key<W: ?Sized + io::Write>(&mut self, _: &mut W, first: bool) -> io::Result<()> {
        if !first {
            self.out.push(b',');
        }
        if self.compact == 0 {
            self.newline();
        }
        self.key = Some(String::new());
        Ok(())
    }

    fn end_object_key<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.path.push(self.key.take().unwrap_or_default());
        Ok(())
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.out.extend(if self.compact > 0 { &b":"[..] } else { &b": "[..] });
        Ok(())
    }

    fn end_object_value<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.path.pop();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn schemas_take_one_line_and_short_values_too() {
        let long = "x".repeat(120);
        let config = json!({
            "server": {"name": "s", "version": "1"},
            "tools": [{"name": "t", "description": long,
                       "input_schema": {"type": "object", "properties": {"a": {"type": "string", "description": long}}},
                       "http": {"method": "GET", "path": "/a", "params": [{"arg": "a", "name": "a", "in": "query"}]}}],
            "fragments": {"f": {"type": "object", "description": long}}
        });
        let text = to_json_text(&config).expect("JSON");
        let expected = format!(
            r#"{{
  "fragments": {{
    "f": {{"description":"{long}","type":"object"}}
  }},
  "server": {{"name": "s", "version": "1"}},
  "tools": [
    {{
      "description": "{long}",
      "http": {{"method": "GET", "params": [{{"arg": "a", "in": "query", "name": "a"}}], "path": "/a"}},
      "input_schema": {{"properties":{{"a":{{"description":"{long}","type":"string"}}}},"type":"object"}},
      "name": "t"
    }}
  ]
}}
"#
        );
        assert_eq!(text, expected);
        assert_eq!(serde_json::from_str::<serde_json::Value>(&text).expect("JSON"), config);
    }

    #[test]
    fn every_kind_of_number_is_written() {
        #[derive(Serialize)]
        struct Numbers {
            a: u8,
            b: i16,
            c: u32,
            d: i64,
            e: f32,
            f: f64,
            g: u128,
            h: Option<bool>,
            i: (),
        }
        let n = Numbers { a: 1, b: -2, c: 3, d: -4, e: 0.5, f: 1e300, g: 7, h: None, i: () };
        let text = to_json_text(&n).expect("JSON");
        assert_eq!(
            text,
            "{\"a\": 1, \"b\": -2, \"c\": 3, \"d\": -4, \"e\": 0.5, \"f\": 1e+300, \"g\": 7, \"h\": null, \"i\": null}\n"
        );
    }
}
