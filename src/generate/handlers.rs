//! Handlers for tools without an HTTP binding (function lists generated without `--forward-url`
//! or `--bindings`): `src/tools.rs` (regenerated: one argument struct per tool and the dispatch)
//! and `src/handlers.rs` (the user's: one async function per tool, a "not implemented yet" stub
//! until filled in, never overwritten).
//!
//! The argument types come from the small JSON Schema to Rust generator of `types.rs` (structs
//! for objects, nested ones included, enums for string enums, `$defs` types, and
//! `serde_json::Value` for what Rust cannot say plainly). `typify` was tried on every sample's
//! tool schemas and not taken: it panics on enum values that give no distinct Rust names
//! (`samples/hostile.yaml`), emits two fields of one name for properties that differ only in
//! punctuation (`a-b` and `a_b`, `Self` and `self`), makes `chrono` and `regress` dependencies of
//! the crate for `format` and `pattern` (which the engine's validation checks already), and turns
//! `minimum: 1` into `NonZeroU64`.

mod types;

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use self::types::{TAKEN_TYPES, args_items};
use super::rust::{doc_header, render};
use crate::error::Result;
use crate::names::{is_identifier, pascal_identifier, snake_identifier};
use mcpgen_config::{RuntimeConfig, Tool};

/// One tool answered by a handler, with its Rust names.
pub(super) struct Handler<'a> {
    pub tool: &'a Tool,
    /// The function in `handlers.rs`, snake_case.
    pub function: String,
    /// The argument type in `tools.rs`, PascalCase.
    pub args_type: String,
}

/// The tools of `config` that need a handler, with unique Rust names.
pub(super) fn handlers(config: &RuntimeConfig) -> Vec<Handler<'_>> {
    let mut used_fns = BTreeSet::new();
    let mut used_types = BTreeSet::new();
    config
        .unbound_tools()
        .map(|tool| {
            let snake = snake_identifier(&tool.name, "tool");
            // Keywords, and the names handlers.rs imports, cannot be function names.
            let taken = !is_identifier(&snake) || RESERVED.contains(&snake.as_str());
            let function = unique(&mut used_fns, if taken { format!("{snake}_") } else { snake });
            // Unique before the suffix, so that a second `Parse` is `Parse2Args`.
            let args_type = format!("{}Args", unique(&mut used_types, pascal_identifier(&tool.name, "tool")));
            Handler { tool, function, args_type }
        })
        .collect()
}

/// Names in scope in handlers.rs and tools.rs.
const RESERVED: [&str; 4] = ["reply", "parse", "handlers", "tools"];

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

/// `src/tools.rs`: argument types and the dispatch from tool names to `crate::handlers`.
pub(super) fn tools_rs(mcpgen_version: &str, config: &RuntimeConfig) -> Result<String> {
    let header = doc_header(mcpgen_version);
    let list = handlers(config);
    let mut used: BTreeSet<String> = list.iter().map(|h| h.args_type.clone()).collect();
    used.extend(TAKEN_TYPES.iter().map(|t| t.to_string()));
    let items: Vec<TokenStream> = list.iter().map(|h| args_items(h, &mut used)).collect();
    let arms = list.iter().map(|h| {
        let name = &h.tool.name;
        let function = format_ident!("{}", h.function);
        quote! {
            #name => Box::pin(async move { reply(crate::handlers::#function(parse(args)?).await) }),
        }
    });
    render(
        quote! {
            #![doc = #header]
            #![doc = ""]
            #![doc = " The argument types of the tools answered by `crate::handlers`, and the dispatch to them."]

            use serde_json::{Map, Value};

            use mcpgen_runtime::ext::Error;
            use mcpgen_runtime::ext::HandlerFuture;

            #(#items)*

            /// Routes each call to its function in `crate::handlers`.
            pub struct Handlers;

            impl mcpgen_runtime::ext::Handlers for Handlers {
                fn call<'a>(&'a self, tool: &'a str, args: Map<String, Value>) -> Option<HandlerFuture<'a>> {
                    Some(match tool {
                        #(#arms)*
                        _ => return None,
                    })
                }
            }

            /// The arguments, already checked against the tool's schema, as the handler's type.
            fn parse<T: serde::de::DeserializeOwned>(args: Map<String, Value>) -> Result<T, Error> {
                serde_json::from_value(Value::Object(args)).map_err(|e| Error::new(format!("invalid arguments: {e}")))
            }

            /// A handler's answer: its error is an `Error` or converts into one (a `String`, say).
            fn reply<E: Into<Error>>(answer: Result<Value, E>) -> Result<Value, Error> {
                answer.map_err(Into::into)
            }
        },
        "src/tools.rs",
    )
}

/// `src/handlers.rs`: one stub per tool, for the user to fill in.
pub(super) fn handlers_rs(config: &RuntimeConfig) -> Result<String> {
    let list = handlers(config);
    let stubs = list.iter().map(stub);
    let text = render(
        quote! {
            use mcpgen_runtime::ext::{Error, Value};
            use crate::tools::*;

            #(#stubs)*
        },
        "src/handlers.rs",
    )?;
    Ok(format!("{HANDLERS_DOC}\n{text}"))
}

fn stub(h: &Handler<'_>) -> TokenStream {
    let function = format_ident!("{}", h.function);
    let ty = format_ident!("{}", h.args_type);
    let name = &h.tool.name;
    let docs: Vec<String> = if h.tool.description.is_empty() {
        vec![format!(" `{name}`.")]
    } else {
        h.tool.description.lines().map(|l| format!(" {l}")).collect()
    };
    quote! {
        #(#[doc = #docs])*
        pub async fn #function(args: #ty) -> Result<Value, Error> {
            let _ = args;
            Err(Error::not_implemented(#name))
        }
    }
}

/// The stub functions `existing` (the user's handlers.rs) lacks, for a note after regenerating.
/// A file that does not parse gets no note: the compiler will say more than we could.
pub fn missing_in(existing: &str, config: &RuntimeConfig) -> Vec<String> {
    let Ok(file) = syn::parse_file(existing) else { return Vec::new() };
    let defined: BTreeSet<String> = file
        .items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Fn(f) => Some(f.sig.ident.to_string()),
            _ => None,
        })
        .collect();
    handlers(config)
        .iter()
        .filter(|h| !defined.contains(&h.function))
        .map(|h| format!("pub async fn {}(args: {}) -> Result<Value, Error>", h.function, h.args_type))
        .collect()
}

const HANDLERS_DOC: &str = "\
//! Your tool handlers: mcpgen creates this file once and never overwrites it.
//!
//! Each tool without an HTTP binding is answered by the function of the same name below. Return
//! `Ok(value)` and the JSON value is the tool's result (an object becomes structured content;
//! `json!` builds one); return `Err(Error::new(message))` and the model sees a tool error (`?`
//! converts reqwest and serde_json errors too). The argument types are in `src/tools.rs`, which
//! mcpgen regenerates with the catalogue. This file builds on `mcpgen_runtime::ext` (see
//! mcpgen-runtime/src/ext.rs), which mcpgen keeps working across versions, and on those types.
//!
//! Example:
//!
//! ```ignore
//! use mcpgen_runtime::ext::json;
//!
//! pub async fn get_current_weather(args: GetCurrentWeatherArgs) -> Result<Value, Error> {
//!     Ok(json!({ \"location\": args.location, \"temperature\": 21, \"unit\": \"celsius\" }))
//! }
//! ```
";

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    fn two_unbound_tools() -> RuntimeConfig {
        let tools: Vec<Value> = ["get_weather", "send_mail"]
            .map(|name| {
                json!({
                    "name": name, "input_schema": {"type": "object"},
                    "annotations": {"readOnlyHint": false, "destructiveHint": false, "idempotentHint": false,
                                    "openWorldHint": true}
                })
            })
            .to_vec();
        crate::load::read_config(
            &json!({
                "mcpgen_config": mcpgen_config::CONFIG_FORMAT_VERSION,
                "server": {"name": "t", "version": "1"},
                "upstream": {},
                "tools": tools
            }),
            "t.json",
        )
        .unwrap()
    }

    #[test]
    fn missing_handlers_are_found_by_parsing_the_users_file() {
        let users = "// fn send_mail( is still to write\npub async fn get_weather(args: GetWeatherArgs) -> Result<Value, Error> { todo() }";
        let missing = missing_in(users, &two_unbound_tools());
        assert_eq!(missing, ["pub async fn send_mail(args: SendMailArgs) -> Result<Value, Error>"]);
    }

    #[test]
    fn a_users_file_that_does_not_parse_gets_no_note() {
        assert!(missing_in("pub async fn get_weather(", &two_unbound_tools()).is_empty());
    }

    /// `$defs` entries are types of their own, boxed where used, so that they may be recursive.
    #[test]
    fn recursive_definitions() {
        let schema = json!({
            "type": "object",
            "properties": {"root": {"$ref": "#/$defs/node"}, "kind": {"$ref": "#/$defs/kind"}, "odd": {"$ref": "#/$defs/odd"}},
            "$defs": {
                "node": {"type": "object", "properties": {
                    "children": {"type": "array", "items": {"$ref": "#/$defs/node"}},
                    "parent": {"$ref": "#/$defs/node"}
                }},
                "kind": {"type": "string", "enum": ["leaf", "branch"]},
                "odd": {"anyOf": [{"type": "string"}, {"$ref": "#/$defs/odd"}]}
            }
        });
        let functions = json!([{"name": "walk", "description": "Walks.", "parameters": schema}]).to_string();
        let p = crate::pipeline::run_str(&functions, "f.json", &Default::default()).unwrap();
        let text = tools_rs("0", &p.tools.config).unwrap();
        // The pipeline inlines the first level of `node` (`root`) and all of `kind`.
        for expected in [
            "pub kind: Option<WalkKind>,",
            "pub odd: Option<serde_json::Value>,",
            "pub root: Option<WalkRoot>,",
            "pub enum WalkKind {",
            "pub struct WalkRoot {",
            "pub children: Option<Vec<WalkNode>>,",
            "pub parent: Option<Box<WalkNode>>,",
            "/// `node`, a definition in the arguments of `walk`.",
            "pub struct WalkNode {",
        ] {
            assert!(text.contains(expected), "{expected}\nnot in\n{text}");
        }
    }
}
