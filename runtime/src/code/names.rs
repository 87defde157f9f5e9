//! Names in a script: each tool's JavaScript identifier ([`ScriptNames`]), and the identifiers of
//! the named types that declarations give `$defs`.
//!
//! Tool names are free text in a config (`repos/list-for-org`, `1st-call`, `delete`); a script
//! calls `api.<identifier>(...)`, so each tool gets one ASCII identifier: every other character
//! becomes `_`, a leading digit gets a `_` before it, and JavaScript's reserved words (and the
//! few names an object cannot safely hold: `then`, `constructor`, `__proto__`...) get a `_` after
//! them. Two tools that come out the same are told apart by `_2`, `_3`... in a fixed order, so a
//! catalogue always gives the same identifiers.

use std::collections::{BTreeMap, BTreeSet};

use crate::config::RuntimeConfig;

/// Words a tool's identifier may not be: JavaScript's reserved words (strict mode and modules
/// included), the globals a script relies on, and property names that change how an object
/// behaves (`then` makes `api` a thenable, `__proto__` its prototype).
const RESERVED: [&str; 60] = [
    "__proto__",
    "arguments",
    "await",
    "break",
    "case",
    "catch",
    "class",
    "const",
    "constructor",
    "continue",
    "debugger",
    "default",
    "delete",
    "do",
    "else",
    "enum",
    "eval",
    "export",
    "extends",
    "false",
    "finally",
    "for",
    "function",
    "hasOwnProperty",
    "if",
    "implements",
    "import",
    "in",
    "Infinity",
    "instanceof",
    "interface",
    "isPrototypeOf",
    "let",
    "NaN",
    "new",
    "null",
    "package",
    "private",
    "protected",
    "prototype",
    "public",
    "return",
    "static",
    "super",
    "switch",
    "then",
    "this",
    "throw",
    "toJSON",
    "toString",
    "true",
    "try",
    "typeof",
    "undefined",
    "valueOf",
    "var",
    "void",
    "while",
    "with",
    "yield",
];

/// TypeScript's own type names, and the globals a declaration's types refer to: a `$defs` name
/// that spells one gets a `_` after it, so that `type Promise = ...` never shadows them.
const TYPE_RESERVED: [&str; 24] = [
    "any",
    "Array",
    "bigint",
    "boolean",
    "Boolean",
    "Date",
    "Error",
    "Function",
    "keyof",
    "Map",
    "never",
    "null",
    "number",
    "Number",
    "object",
    "Object",
    "Promise",
    "Record",
    "Set",
    "string",
    "String",
    "symbol",
    "undefined",
    "unknown",
];

/// Whether `word` may not name a tool in a script.
pub fn is_reserved(word: &str) -> bool {
    RESERVED.contains(&word)
}

/// `text` as an ASCII identifier: other characters as `_`, `_` before a leading digit, `_` when
/// empty. Reserved words are not changed here (see [`identifier`], [`type_identifier`]).
fn ascii_identifier(text: &str) -> String {
    let mut out: String = text.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

/// A tool name as a script identifier, before collisions are resolved: `repos/list-for-org` ->
/// `repos_list_for_org`, `1st` -> `_1st`, `delete` -> `delete_`.
pub fn identifier(name: &str) -> String {
    let mut out = ascii_identifier(name);
    if is_reserved(&out) {
        out.push('_');
    }
    out
}

/// A `$defs` name as a type name: as [`identifier`], with TypeScript's own types reserved too.
pub fn type_identifier(name: &str) -> String {
    let mut out = ascii_identifier(name);
    if is_reserved(&out) || TYPE_RESERVED.contains(&out.as_str()) {
        out.push('_');
    }
    out
}

/// Whether `name` can be written bare as a property name (`{ owner: string }`); anything else is
/// a quoted string literal. Reserved words are fine there.
pub fn is_property_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

/// `base`, or `base_2`, `base_3`... : the first that `taken` does not hold.
pub fn unique(base: &str, taken: &impl Fn(&str) -> bool) -> String {
    if !taken(base) {
        return base.to_string();
    }
    (2..).map(|n| format!("{base}_{n}")).find(|candidate| !taken(candidate)).unwrap_or_else(|| base.to_string())
}

/// Each tool's identifier in a script, and back: built once for a catalogue.
///
/// Collisions are resolved in a fixed order, whatever the catalogue's: first the tools whose
/// name is already its identifier (`repos_list` keeps `repos_list` beside `repos/list`), then
/// the others by name; a later one gets `_2`, `_3`... (the first suffix no other tool has).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScriptNames {
    idents: BTreeMap<String, String>,
    tools: BTreeMap<String, String>,
}

impl ScriptNames {
    /// The identifiers of these tool names (a name given twice counts once).
    pub fn new<'a>(names: impl IntoIterator<Item = &'a str>) -> ScriptNames {
        let names: BTreeSet<&str> = names.into_iter().collect();
        let (exact, others): (Vec<&str>, Vec<&str>) = names.into_iter().partition(|n| identifier(n) == *n);
        let mut out = ScriptNames::default();
        for name in exact.into_iter().chain(others) {
            let ident = unique(&identifier(name), &|c: &str| out.tools.contains_key(c));
            out.tools.insert(ident.clone(), name.to_string());
            out.idents.insert(name.to_string(), ident);
        }
        out
    }

    /// The identifiers of a config's tools.
    pub fn for_config(config: &RuntimeConfig) -> ScriptNames {
        ScriptNames::new(config.tools.iter().map(|t| t.name.as_str()))
    }

    /// A tool's identifier; `None` for a tool this catalogue does not have.
    pub fn ident(&self, tool: &str) -> Option<&str> {
        self.idents.get(tool).map(String::as_str)
    }

    /// The tool an identifier names; `None` when none does.
    pub fn tool(&self, ident: &str) -> Option<&str> {
        self.tools.get(ident).map(String::as_str)
    }

    /// Every (tool name, identifier), by tool name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.idents.iter().map(|(t, i)| (t.as_str(), i.as_str()))
    }

    /// How many tools.
    pub fn len(&self) -> usize {
        self.idents.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.idents.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separators_become_underscores() {
        assert_eq!(identifier("repos/list-for-org"), "repos_list_for_org");
        assert_eq!(identifier("pulls.list"), "pulls_list");
        assert_eq!(identifier("名前"), "__");
        assert_eq!(identifier(""), "_");
    }

    #[test]
    fn a_leading_digit_is_prefixed() {
        assert_eq!(identifier("1st-call"), "_1st_call");
        assert_eq!(identifier("_1"), "_1");
    }

    #[test]
    fn reserved_words_are_suffixed() {
        for word in ["delete", "new", "default", "class", "function", "then", "__proto__", "constructor", "await"] {
            assert_eq!(identifier(word), format!("{word}_"));
        }
        assert_eq!(identifier("deleted"), "deleted");
        assert_eq!(type_identifier("Promise"), "Promise_");
        assert_eq!(type_identifier("string"), "string_");
        assert_eq!(type_identifier("Pet"), "Pet");
    }

    #[test]
    fn collisions_get_numbers_in_a_fixed_order() {
        let a = ScriptNames::new(["repos-list", "repos/list", "repos_list", "repos.list"]);
        let b = ScriptNames::new(["repos.list", "repos_list", "repos/list", "repos-list"]);
        assert_eq!(a, b, "the catalogue's order does not matter");
        assert_eq!(a.ident("repos_list"), Some("repos_list"), "a name that is an identifier keeps it");
        assert_eq!(a.ident("repos-list"), Some("repos_list_2"));
        assert_eq!(a.ident("repos.list"), Some("repos_list_3"));
        assert_eq!(a.ident("repos/list"), Some("repos_list_4"));
    }

    #[test]
    fn a_suffix_never_takes_another_tools_identifier() {
        let names = ScriptNames::new(["a-b", "a_b", "a_b_2"]);
        assert_eq!(names.ident("a_b_2"), Some("a_b_2"));
        assert_eq!(names.ident("a-b"), Some("a_b_3"));
        assert_eq!(ScriptNames::new(["delete", "delete_"]).ident("delete"), Some("delete__2"));
    }

    #[test]
    fn identifiers_lead_back_to_their_tools() {
        let tools = ["repos/list-for-org", "delete", "1st", "a-b", "a_b", "名前", "🦀"];
        let names = ScriptNames::new(tools);
        assert_eq!(names.len(), tools.len());
        for tool in tools {
            let ident = names.ident(tool).expect("every tool has one");
            assert!(is_property_identifier(ident) && !is_reserved(ident), "{ident}");
            assert_eq!(names.tool(ident), Some(tool));
        }
        assert_eq!(names.tool("nothing"), None);
        assert_eq!(names.ident("nothing"), None);
    }

    #[test]
    fn property_names_that_need_quotes() {
        assert!(is_property_identifier("owner") && is_property_identifier("$ref") && is_property_identifier("delete"));
        for name in ["user-id", "1st", "", "@type", "名前", "a b", "a\"b"] {
            assert!(!is_property_identifier(name), "{name}");
        }
    }
}
