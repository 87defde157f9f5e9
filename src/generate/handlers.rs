//! `src/handlers.rs`, the user's Rust tools: created once with a stub for each tool answered in
//! Rust (marked `rust = true` in `mcpgen.toml`, or without an HTTP binding) and a place for tools
//! of their own, then theirs. The methods implement `generated::RustTools`, so a missing or
//! extra one is a compile error; after a regeneration, [`missing_in`] names the methods a kept
//! file lacks.

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::rust::render;
use super::typed::{Named, TypedSpec, names};
use crate::error::Result;

/// `src/handlers.rs`: one stub per tool answered in Rust, for the user to fill in.
pub(super) fn handlers_rs(spec: &TypedSpec<'_>) -> Result<String> {
    let named = names(spec);
    let stubs: Vec<TokenStream> = named.iter().filter(|n| n.rust).map(stub).collect();
    let text = render(
        quote! {
            #[allow(unused_imports)]
            use mcpgen_runtime::ext::{Error, Map, OwnTools, Value, json};

            #[allow(unused_imports)]
            use crate::generated::{Api, Tool, args::*};

            /// This server's Rust tools.
            pub struct Handlers;

            impl crate::generated::RustTools for Handlers {
                #(#stubs)*
            }

            /// Tools of your own, beside the API's: `.tool("name", function)`, the function taking
            /// an `Api` and an argument type that derives `serde::Deserialize` and
            /// `schemars::JsonSchema` (its doc comment is the tool's description).
            pub fn own_tools() -> OwnTools<Api> {
                OwnTools::new()
            }
        },
        "src/handlers.rs",
    )?;
    Ok(format!("{HANDLERS_DOC}\n{text}"))
}

fn stub(n: &Named<'_>) -> TokenStream {
    let method = format_ident!("{}", n.method);
    let args = match &n.args_type {
        Some(t) => {
            let t = format_ident!("{}", t);
            quote!(#t)
        }
        None => quote!(Map<String, Value>),
    };
    let name = &n.tool.name;
    let docs: Vec<String> = if n.tool.description.is_empty() {
        vec![format!(" `{name}`.")]
    } else {
        n.tool.description.lines().map(|l| format!(" {}", super::typed::doc_text(l))).collect()
    };
    quote! {
        #(#[doc = #docs])*
        async fn #method(&self, api: Api, args: #args) -> Result<Value, Error> {
            let _ = (api, args);
            Err(Error::not_implemented(#name))
        }
    }
}

/// The `RustTools` methods `existing` (the user's handlers.rs) lacks, for a note after
/// regenerating. A file that does not parse gets no note: the compiler will say more than we could.
pub fn missing_in(existing: &str, spec: &TypedSpec<'_>) -> Vec<String> {
    let Ok(file) = syn::parse_file(existing) else { return Vec::new() };
    let defined: BTreeSet<String> = file
        .items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Impl(i) => Some(i),
            _ => None,
        })
        .flat_map(|i| i.items.iter())
        .filter_map(|item| match item {
            syn::ImplItem::Fn(f) => Some(f.sig.ident.to_string()),
            _ => None,
        })
        .collect();
    names(spec)
        .iter()
        .filter(|n| n.rust && !defined.contains(&n.method))
        .map(|n| {
            let args = n.args_type.clone().unwrap_or_else(|| "Map<String, Value>".into());
            format!("async fn {}(&self, api: Api, args: {args}) -> Result<Value, Error>", n.method)
        })
        .collect()
}

const HANDLERS_DOC: &str = "\
//! Your Rust tools: mcpgen creates this file once and never overwrites it.
//!
//! `RustTools` has a method for each tool answered in Rust: those `mcpgen.toml` marks
//! `rust = true` (they replace the API's tool) and those without an HTTP binding. Return
//! `Ok(value)` and the JSON value is the tool's result (`json!` builds one); return
//! `Err(Error::new(message))` and the model sees a tool error (`?` converts reqwest and serde_json
//! errors too). `api` calls the API's tools as a model's call goes (credentials, hooks, retries),
//! the replaced one included, and answers their whole responses; `api.context()` says who called,
//! asks the user and reports progress. `own_tools` adds tools of your own. The argument types are
//! in `src/generated/args.rs`, which mcpgen makes again on each regeneration: a tool the API
//! renames is then a compile error here, not a silent mismatch.
//!
//! Example, a tool that checks a pet exists before deleting it:
//!
//! ```ignore
//! async fn delete_pet(&self, api: Api, args: DeletePetArgs) -> Result<Value, Error> {
//!     api.get_pet_by_id(GetPetByIdArgs { pet_id: args.pet_id }).await?;
//!     api.call(Tool::DeletePet, args).await
//! }
//! ```
";

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use mcpgen_config::RuntimeConfig;

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
    fn missing_methods_are_found_by_parsing_the_users_file() {
        let config = two_unbound_tools();
        let none = BTreeSet::new();
        let spec = TypedSpec { config: &config, rust: &none, named: &none, which: Default::default() };
        let users = "// fn send_mail( is still to write\nimpl RustTools for Handlers {\n    async fn get_weather(&self, api: Api, args: GetWeatherArgs) -> Result<Value, Error> { todo() }\n}";
        let missing = missing_in(users, &spec);
        assert_eq!(missing, ["async fn send_mail(&self, api: Api, args: SendMailArgs) -> Result<Value, Error>"]);
        assert!(missing_in("impl RustTools for Handlers {", &spec).is_empty(), "a file that does not parse: no note");
    }

    /// The stubs parse, one per tool answered in Rust.
    #[test]
    fn stubs() {
        let config = two_unbound_tools();
        let none = BTreeSet::new();
        let text =
            handlers_rs(&TypedSpec { config: &config, rust: &none, named: &none, which: Default::default() }).unwrap();
        assert!(
            text.contains("async fn send_mail(&self, api: Api, args: SendMailArgs) -> Result<Value, Error> {"),
            "{text}"
        );
        assert!(text.contains("Err(Error::not_implemented(\"get_weather\"))"), "{text}");
    }
}
