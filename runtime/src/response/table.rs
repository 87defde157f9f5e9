//! A list of objects as a table: a header row of member names, then one line per item, cells
//! separated by tabs. Strings are written bare with `\t`, `\n`, `\r` and `\\` escaped; other
//! scalars as JSON; an empty cell is a member the item lacks; a nested value is its minified JSON.
//! So nothing of the items is lost, only their repetition of member names.

use crate::response::json::Json;

/// The table of `value` when it is an array of at least two objects; `None` otherwise.
pub fn table(value: &Json) -> Option<String> {
    let Json::Arr(items) = value else { return None };
    if items.len() < 2 || !items.iter().all(|i| matches!(i, Json::Obj(_))) {
        return None;
    }
    let mut columns: Vec<&str> = Vec::new();
    for item in items {
        if let Json::Obj(members) = item {
            for (k, _) in members {
                if !columns.contains(&k.as_str()) {
                    columns.push(k);
                }
            }
        }
    }
    let mut out = String::new();
    for (i, c) in columns.iter().enumerate() {
        if i > 0 {
            out.push('\t');
        }
        escape_into(c, &mut out);
    }
    for item in items {
        out.push('\n');
        for (i, c) in columns.iter().enumerate() {
            if i > 0 {
                out.push('\t');
            }
            match item.get(c) {
                None => {}
                Some(Json::Str(s)) => escape_into(s, &mut out),
                Some(other) => escape_into(&other.to_text(), &mut out),
            }
        }
    }
    Some(out)
}

/// The rows are worth it: `auto` writes a table when it takes at most this share of the JSON.
pub const AUTO_MAX_SHARE: f64 = 0.8;

fn escape_into(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\\' => out.push_str("\\\\"),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(text: &str) -> Option<String> {
        table(&Json::parse(text.as_bytes()).unwrap())
    }

    #[test]
    fn a_list_of_objects_is_a_header_and_a_line_per_item() {
        assert_eq!(
            t(r#"[{"id":1,"name":"a","ok":true},{"id":2,"name":"b","ok":null}]"#).as_deref(),
            Some("id\tname\tok\n1\ta\ttrue\n2\tb\tnull")
        );
    }

    #[test]
    fn missing_members_are_empty_cells_and_new_ones_add_columns() {
        assert_eq!(t(r#"[{"a":1},{"b":2}]"#).as_deref(), Some("a\tb\n1\t\n\t2"));
    }

    #[test]
    fn tabs_newlines_and_nested_values_are_escaped() {
        assert_eq!(
            t(r#"[{"s":"x\ty\nz\\","n":{"k":[1]}},{"s":"","n":[]}]"#).as_deref(),
            Some("s\tn\nx\\ty\\nz\\\\\t{\"k\":[1]}\n\t[]")
        );
    }

    #[test]
    fn anything_else_is_no_table() {
        assert_eq!(t(r#"[{"a":1}]"#), None);
        assert_eq!(t(r#"[{"a":1},2]"#), None);
        assert_eq!(t(r#"{"a":[{"b":1},{"b":2}]}"#), None);
    }
}
