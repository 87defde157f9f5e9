//! Handlers for tools without an HTTP binding (function lists generated without `--forward-url`
//! or `--bindings`): `src/tools.rs` (regenerated: one argument struct per tool and the dispatch)
//! and `src/handlers.rs` (the user's: one async function per tool, a "not implemented yet" stub
//! until filled in, never overwritten).

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde_json::Value;

use super::rust::{doc_header, render};
use crate::error::Result;
use crate::runtime::model::{RuntimeConfig, Tool};

/// One tool answered by a handler, with its Rust names.
pub struct Handler<'a> {
    pub tool: &'a Tool,
    /// The function in `handlers.rs`, snake_case.
    pub function: String,
    /// The argument type in `tools.rs`, PascalCase.
    pub args_type: String,
}

/// The tools of `config` that need a handler, with unique Rust names.
pub fn handlers(config: &RuntimeConfig) -> Vec<Handler<'_>> {
    let mut used_fns = BTreeSet::new();
    let mut used_types = BTreeSet::new();
    config
        .unbound_tools()
        .map(|tool| {
            let snake = snake_case(&tool.name);
            // Keywords, and the names handlers.rs imports, cannot be function names.
            let taken = is_keyword(&snake) || RESERVED.contains(&snake.as_str());
            let function = unique(&mut used_fns, if taken { format!("{snake}_") } else { snake });
            // Unique before the suffix, so that a second `Parse` is `Parse2Args`.
            let args_type = format!("{}Args", unique(&mut used_types, pascal_case(&tool.name)));
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

/// Splits on non-alphanumerics and camelCase humps; `fallback` leads when nothing (or a digit) does.
fn words(name: &str, fallback: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_ascii_alphanumeric() {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            prev_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && prev_lower && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        current.push(c.to_ascii_lowercase());
    }
    if !current.is_empty() {
        words.push(current);
    }
    if words.first().is_none_or(|w| w.starts_with(|c: char| c.is_ascii_digit())) {
        words.insert(0, fallback.into());
    }
    words
}

pub fn snake_case(name: &str) -> String {
    words(name, "tool").join("_")
}

pub fn pascal_case(name: &str) -> String {
    words(name, "tool")
        .iter()
        .map(|w| {
            let mut cs = w.chars();
            cs.next().map(|c| c.to_ascii_uppercase().to_string() + cs.as_str()).unwrap_or_default()
        })
        .collect()
}

fn is_keyword(s: &str) -> bool {
    syn::parse_str::<syn::Ident>(s).is_err() || s == "self" || s == "super" || s == "crate"
}

/// A field identifier for a property name (the wire name is kept with `#[serde(rename)]`).
fn field_ident(property: &str) -> String {
    let snake = words(property, "field").join("_");
    if is_keyword(&snake) { format!("{snake}_") } else { snake }
}

/// The Rust type of a property schema, where one is plain to express; `serde_json::Value` else.
fn rust_type(schema: &Value, depth: usize) -> TokenStream {
    let value = quote!(serde_json::Value);
    let Some(obj) = schema.as_object() else { return value };
    if obj.contains_key("$ref") || obj.contains_key("anyOf") || obj.contains_key("oneOf") || depth > 2 {
        return value;
    }
    let types: Vec<&str> = match obj.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => return value,
    };
    let nullable = types.contains(&"null");
    let non_null: Vec<&str> = types.into_iter().filter(|t| *t != "null").collect();
    let inner = match non_null.as_slice() {
        ["string"] => quote!(String),
        ["integer"] => quote!(i64),
        ["number"] => quote!(f64),
        ["boolean"] => quote!(bool),
        ["array"] => {
            let item = obj.get("items").map(|i| rust_type(i, depth + 1)).unwrap_or(value);
            quote!(Vec<#item>)
        }
        _ => return value,
    };
    if nullable { quote!(Option<#inner>) } else { inner }
}

/// The argument struct of one tool, or a `Value` alias when its schema is not a plain object.
fn args_item(h: &Handler<'_>) -> TokenStream {
    let ty = format_ident!("{}", h.args_type);
    let doc = format!(" The arguments of `{}`.", h.tool.name);
    let schema = &h.tool.input_schema;
    let plain = schema.get("anyOf").is_none()
        && schema.get("oneOf").is_none()
        && !schema.get("additionalProperties").is_some_and(Value::is_object);
    let Some(props) = schema.get("properties").and_then(Value::as_object).filter(|_| plain) else {
        return quote! {
            #[doc = #doc]
            pub type #ty = serde_json::Value;
        };
    };
    let required: Vec<&str> =
        schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    let mut used = BTreeSet::new();
    let fields = props.iter().map(|(name, prop)| {
        let ident = format_ident!("{}", unique(&mut used, field_ident(name)));
        let mut ty = rust_type(prop, 0);
        let optional = !required.contains(&name.as_str());
        if optional && !ty.to_string().starts_with("Option") {
            ty = quote!(Option<#ty>);
        }
        let rename = (ident != name).then(|| quote!(#[serde(rename = #name)]));
        let docs = prop.get("description").and_then(Value::as_str).map(|d| {
            let lines = d.lines().map(|l| format!(" {l}"));
            quote!(#(#[doc = #lines])*)
        });
        quote! {
            #docs
            #rename
            pub #ident: #ty,
        }
    });
    quote! {
        #[doc = #doc]
        #[derive(Debug, Clone, serde::Deserialize)]
        pub struct #ty {
            #(#fields)*
        }
    }
}

/// `src/tools.rs`: argument types and the dispatch from tool names to `crate::handlers`.
pub fn tools_rs(mcpgen_version: &str, config: &RuntimeConfig) -> Result<String> {
    let header = doc_header(mcpgen_version);
    let list = handlers(config);
    let items = list.iter().map(args_item);
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

            use crate::runtime::ext::Error;
            use crate::runtime::hooks::HandlerFuture;

            #(#items)*

            /// Routes each call to its function in `crate::handlers`.
            pub struct Handlers;

            impl crate::runtime::hooks::Handlers for Handlers {
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
pub fn handlers_rs(config: &RuntimeConfig) -> Result<String> {
    let list = handlers(config);
    let stubs = list.iter().map(stub);
    let text = render(
        quote! {
            use crate::runtime::ext::{Error, Value};
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
pub fn missing_in(existing: &str, config: &RuntimeConfig) -> Vec<String> {
    handlers(config)
        .iter()
        .filter(|h| !existing.contains(&format!("fn {}(", h.function)))
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
//! mcpgen regenerates with the catalogue. This file builds on `crate::runtime::ext` (see
//! src/runtime/ext.rs), which regenerating keeps working, and on those types.
//!
//! Example:
//!
//! ```ignore
//! use crate::runtime::ext::json;
//!
//! pub async fn get_current_weather(args: GetCurrentWeatherArgs) -> Result<Value, Error> {
//!     Ok(json!({ \"location\": args.location, \"temperature\": 21, \"unit\": \"celsius\" }))
//! }
//! ```
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_names() {
        assert_eq!(snake_case("getPetById"), "get_pet_by_id");
        assert_eq!(snake_case("get-current.weather"), "get_current_weather");
        assert_eq!(snake_case("1st"), "tool_1st");
        assert_eq!(pascal_case("get_current_weather"), "GetCurrentWeather");
        assert_eq!(field_ident("type"), "type_");
        assert_eq!(field_ident("self"), "self_");
        assert_eq!(field_ident("userId"), "user_id");
        assert_eq!(field_ident("名前"), "field");
        assert_eq!(field_ident("1st"), "field_1st");
    }

    #[test]
    fn types() {
        let t = |v: Value| rust_type(&v, 0).to_string().replace(' ', "");
        assert_eq!(t(serde_json::json!({"type": "string", "enum": ["a"]})), "String");
        assert_eq!(t(serde_json::json!({"type": ["integer", "null"]})), "Option<i64>");
        assert_eq!(t(serde_json::json!({"type": "array", "items": {"type": "number"}})), "Vec<f64>");
        assert_eq!(t(serde_json::json!({"type": "object"})), "serde_json::Value");
        assert_eq!(t(serde_json::json!({"anyOf": [{"type": "string"}]})), "serde_json::Value");
    }
}
