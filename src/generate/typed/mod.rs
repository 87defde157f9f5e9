//! The typed layer of a generated crate, `src/generated/` (regenerated, never edited): the
//! `Tool` enum (one variant per tool, its MCP name both ways), typed arguments, `Api` (a client
//! whose methods call a tool through the engine as a model's call goes), and the traits the
//! user's files implement: `Hooks` (given a `Tool`, not a string) and `RustTools` (one method per
//! tool answered in Rust). A tool renamed or removed by the API, or marked `rust` in
//! `mcpgen.toml`, is then a compile error in the user's code rather than a silent mismatch.
//!
//! The argument types come from the small JSON Schema to Rust generator of `types.rs` (structs
//! for objects, nested ones included, enums for string enums, `$defs` types, and
//! `serde_json::Value` for what Rust cannot say plainly). `typify` was tried on every sample's
//! tool schemas and not taken: it panics on enum values that give no distinct Rust names
//! (`samples/hostile.yaml`), emits two fields of one name for properties that differ only in
//! punctuation (`a-b` and `a_b`, `Self` and `self`), makes `chrono` and `regress` dependencies of
//! the crate for `format` and `pattern` (which the engine's validation checks already), and turns
//! `minimum: 1` into `NonZeroU64`.

mod files;
mod types;

use std::collections::BTreeSet;

pub(super) use files::files;
use mcpgen_config::{RuntimeConfig, Tool};

use crate::names::{is_identifier, pascal_identifier, snake_identifier};

/// Up to this many tools, every tool gets typed arguments (and a typed `Api` method); past it,
/// only the tools the crate names (`mcpgen.toml`'s `[tools]`, tools answered in Rust), so that the
/// build of a large API (GitHub's 1,223 tools) does not grow with serde code for every one.
/// Every tool keeps its `Tool` variant and `Api::call`.
pub const TYPED_ALL_UP_TO: usize = 200;

/// Which tools get typed arguments (`generate --typed-args`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum TypedArgs {
    /// Every tool of an API of up to 200 tools, else the named ones.
    #[default]
    Auto,
    /// Every tool.
    All,
    /// Only the tools `mcpgen.toml` names (and those answered in Rust).
    Named,
}

/// One tool with its Rust names.
pub(super) struct Named<'a> {
    pub tool: &'a Tool,
    /// The `Tool` variant, PascalCase.
    pub variant: String,
    /// The `Api` and `RustTools` method, snake_case.
    pub method: String,
    /// The argument type in `args.rs`, PascalCase; `None`: untyped (`Api::call` with any
    /// serializable value).
    pub args_type: Option<String>,
    /// Answered by the user's `RustTools` (marked `rust`, or without an HTTP binding).
    pub rust: bool,
}

/// What the typed layer is made from: the crate's tools, and which of them are answered in Rust
/// or named by the owner.
pub struct TypedSpec<'a> {
    /// The crate's catalogue, `mcpgen.toml`'s overrides applied.
    pub config: &'a RuntimeConfig,
    /// Tools `mcpgen.toml` marks `rust = true`, by final name.
    pub rust: &'a BTreeSet<String>,
    /// Tools `mcpgen.toml` names (typed even past [`TYPED_ALL_UP_TO`]), by final name.
    pub named: &'a BTreeSet<String>,
    /// Which tools are typed.
    pub which: TypedArgs,
}

/// Names in scope in the generated modules and the user's files beside the tools' own.
const RESERVED_METHODS: [&str; 6] = ["call", "context", "new", "from", "clone", "detached"];

/// Every tool of `spec` with unique Rust names, in the catalogue's order.
pub(super) fn names<'a>(spec: &TypedSpec<'a>) -> Vec<Named<'a>> {
    let all_typed = match spec.which {
        TypedArgs::Auto => spec.config.tools.len() <= TYPED_ALL_UP_TO,
        TypedArgs::All => true,
        TypedArgs::Named => false,
    };
    let mut variants = BTreeSet::new();
    let mut methods = BTreeSet::new();
    let mut types: BTreeSet<String> = types::TAKEN_TYPES.iter().map(|t| t.to_string()).collect();
    spec.config
        .tools
        .iter()
        .map(|tool| {
            let rust = tool.http.is_none() || spec.rust.contains(&tool.name);
            let pascal = pascal_identifier(&tool.name, "Tool");
            let pascal = if is_identifier(&pascal) { pascal } else { format!("{pascal}_") };
            let variant = unique(&mut variants, pascal);
            let snake = snake_identifier(&tool.name, "tool");
            let taken = !is_identifier(&snake) || RESERVED_METHODS.contains(&snake.as_str());
            let method = unique(&mut methods, if taken { format!("{snake}_") } else { snake });
            let typed = all_typed || rust || spec.named.contains(&tool.name);
            let args_type = typed.then(|| unique(&mut types, format!("{variant}Args")));
            Named { tool, variant, method, args_type, rust }
        })
        .collect()
}

/// Text from the API for a doc comment: without control, invisible and direction-changing
/// characters (rustc refuses the last in comments; the others hide text from a reader).
pub(in crate::generate) fn doc_text(text: &str) -> String {
    text.chars().filter(|c| !c.is_control() && !crate::trust::text::is_invisible(*c)).collect()
}

/// `name`, or `name_2`, `name_3`, ... (`Name2` for a PascalCase type name) when taken.
fn unique(used: &mut BTreeSet<String>, name: String) -> String {
    let pascal = name.starts_with(|c: char| c.is_ascii_uppercase());
    let stem = name.trim_end_matches('_');
    let mut candidate = name.clone();
    let mut n = 2;
    while !used.insert(candidate.clone()) {
        candidate = if pascal { format!("{stem}{n}") } else { format!("{stem}_{n}") };
        n += 1;
    }
    candidate
}

/// The `Tool` variants of a crate's catalogue (`src/catalogue.json`) with the names they stand
/// for: what the user's code may name, to say which names a regeneration takes away.
pub fn variants(config: &RuntimeConfig) -> Vec<(String, String)> {
    let none = BTreeSet::new();
    let spec = TypedSpec { config, rust: &none, named: &none, which: TypedArgs::Named };
    names(&spec).into_iter().map(|n| (n.variant, n.tool.name.clone())).collect()
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    fn functions(names: &[&str]) -> RuntimeConfig {
        let list: Vec<Value> =
            names.iter().map(|n| json!({"name": n, "description": "d", "parameters": {"type": "object"}})).collect();
        crate::pipeline::run_str(&Value::Array(list).to_string(), "f.json", &Default::default()).unwrap().tools.config
    }

    #[test]
    fn names_are_unique_and_never_the_layers_own() {
        let config = functions(&["parse", "Parse", "call", "tool", "self"]);
        let none = BTreeSet::new();
        let named = names(&TypedSpec { config: &config, rust: &none, named: &none, which: TypedArgs::Auto });
        let got: Vec<(&str, &str, Option<&str>)> =
            named.iter().map(|n| (n.variant.as_str(), n.method.as_str(), n.args_type.as_deref())).collect();
        assert_eq!(
            got,
            [
                ("Parse", "parse", Some("ParseArgs")),
                ("Parse2", "parse_2", Some("Parse2Args")),
                ("Call", "call_", Some("CallArgs")),
                ("Tool", "tool", Some("ToolArgs")),
                ("Self_", "self_", Some("Self_Args")),
            ]
        );
        assert!(named.iter().all(|n| n.rust), "function-list tools without a binding are answered in Rust");
    }
}
