//! The files of `src/generated/`, emitted with `quote!`: tool names and descriptions from the API
//! description enter as literal tokens (escaped by construction), never as source text.

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{Named, TypedSpec, names, types};
use crate::error::Result;
use crate::generate::GeneratedFile;
use crate::generate::rust::{doc_header, render};

/// A doc line for an item made from a tool: its name, then the first line of its description
/// (at most [`DOC_CHARS`]).
fn tool_doc(n: &Named<'_>) -> String {
    let first = n.tool.description.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    let first = super::doc_text(first);
    let first = first.as_str();
    let mut text: String = first.chars().take(DOC_CHARS).collect();
    if first.chars().count() > DOC_CHARS {
        text.push('…');
    }
    // Backticks would open code spans rustdoc cannot close; brackets, links.
    let text = text.replace(['`', '[', ']'], "'");
    if text.is_empty() { format!(" `{}`.", n.tool.name) } else { format!(" `{}`: {text}", n.tool.name) }
}

const DOC_CHARS: usize = 160;

/// Every file of `src/generated/`.
pub(in crate::generate) fn files(mcpgen_version: &str, spec: &TypedSpec<'_>) -> Result<Vec<GeneratedFile>> {
    let named = names(spec);
    let file = |path: &str, contents: String| GeneratedFile { path: path.into(), contents, user_owned: false };
    Ok(vec![
        file("src/generated/mod.rs", mod_rs(mcpgen_version, &named)?),
        file("src/generated/tool.rs", tool_rs(mcpgen_version, &named)?),
        file("src/generated/api.rs", api_rs(mcpgen_version, &named)?),
        file("src/generated/args.rs", args_rs(mcpgen_version, &named)?),
    ])
}

/// `mod.rs`: the traits the user's files implement, and how they become the engine's extensions.
fn mod_rs(version: &str, named: &[Named<'_>]) -> Result<String> {
    let header = doc_header(version);
    let hooks = hooks_items();
    let rust_tools = rust_tools_items(named);
    render(
        quote! {
            #![doc = #header]
            #![doc = ""]
            #![doc = " This crate's tools, typed: [`Tool`] (one variant per tool), [`args`] (their arguments),"]
            #![doc = " [`Api`] (a client that calls them through the engine), and the traits your files implement:"]
            #![doc = " [`Hooks`] (src/hooks.rs) and [`RustTools`] (src/handlers.rs). mcpgen makes this folder again"]
            #![doc = " on each regeneration: a tool the API renames or removes is then a compile error in your code."]

            mod api;
            pub mod args;
            mod tool;

            pub use api::Api;
            pub use tool::Tool;

            use std::future::Future;

            use mcpgen_runtime::ext::{self, CallToolResult, Error, HandlerFuture, Map, OwnTools, Request, Value};

            #hooks

            #rust_tools

            /// The hooks, Rust tools and tools of your own this server runs with.
            pub fn extensions(hooks: impl Hooks, rust: impl RustTools, own: OwnTools<Api>) -> ext::Extensions {
                ext::Extensions::with_hooks(Typed(hooks)).with_handlers(Dispatch { rust, own })
            }

            /// The arguments, already checked against the tool's schema, as the method's type.
            #[allow(dead_code)]
            fn parse<T: serde::de::DeserializeOwned>(args: Map<String, Value>) -> Result<T, Error> {
                serde_json::from_value(Value::Object(args)).map_err(|e| Error::new(format!("invalid arguments: {e}")))
            }
        },
        "src/generated/mod.rs",
    )
}

/// The typed `Hooks` trait, and its adapter to the engine's string-named one.
fn hooks_items() -> TokenStream {
    quote! {
        /// Changes each upstream request before it is sent (an `async fn`: fetch a token, sign
        /// the request) or refuses it, and changes each result before it goes back to the client.
        /// Both do nothing unless implemented. Tools of your own (`OwnTools`) do not pass here.
        pub trait Hooks: Send + Sync + 'static {
            /// Called before each upstream request of `tool`, after credentials were added, with
            /// the tool's arguments (already checked). Change the URL, headers or body; an `Err`
            /// refuses the call and the model sees its message.
            fn before_request(
                &self,
                tool: Tool,
                args: &Map<String, Value>,
                request: &mut Request,
            ) -> impl Future<Output = Result<(), Error>> + Send {
                let _ = (tool, args, request);
                async { Ok(()) }
            }

            /// Called with each result of `tool` before it goes back to the client.
            fn after_response(&self, tool: Tool, result: &mut CallToolResult) {
                let _ = (tool, result);
            }
        }

        /// [`Hooks`] as the engine calls them (by the tool's MCP name).
        struct Typed<H>(H);

        impl<H: Hooks> ext::Hooks for Typed<H> {
            async fn before_request(&self, tool: &str, args: &Map<String, Value>, request: &mut Request) -> Result<(), Error> {
                match Tool::from_name(tool) {
                    Some(tool) => self.0.before_request(tool, args, request).await,
                    None => Ok(()),
                }
            }

            fn after_response(&self, tool: &str, result: &mut CallToolResult) {
                if let Some(tool) = Tool::from_name(tool) {
                    self.0.after_response(tool, result);
                }
            }
        }
    }
}

/// The `RustTools` trait (a method per tool answered in Rust), and the dispatch of the engine's
/// calls to its methods and to the tools of the crate's own.
fn rust_tools_items(named: &[Named<'_>]) -> TokenStream {
    let rust: Vec<&Named<'_>> = named.iter().filter(|n| n.rust).collect();
    let methods = rust.iter().map(|n| {
        let method = format_ident!("{}", n.method);
        let args = args_type(n);
        let doc = tool_doc(n);
        quote! {
            #[doc = #doc]
            fn #method(&self, api: Api, args: #args) -> impl Future<Output = Result<Value, Error>> + Send;
        }
    });
    let arms = rust.iter().map(|n| {
        let name = &n.tool.name;
        let method = format_ident!("{}", n.method);
        quote! {
            #name => Box::pin(async move { self.rust.#method(api, parse(args)?).await }),
        }
    });
    let rust_names = rust.iter().map(|n| &n.tool.name);
    // With no tool answered in Rust, the user's `RustTools` has no method to call.
    let unused = rust.is_empty().then(|| quote!(#[allow(dead_code)]));
    let dispatch_body = if rust.is_empty() {
        quote!(self.own.answer(tool, args, cx))
    } else {
        quote! {
            let api = Api::from(cx);
            Some(match tool {
                #(#arms)*
                _ => return self.own.answer(tool, args, api.context().clone()),
            })
        }
    };
    quote! {
        /// The tools answered by your Rust code: those `mcpgen.toml` marks `rust = true` and
        /// those without an HTTP binding, one method each. A model's call of one of them reaches
        /// the method; the method's calls through `api` reach the API.
        pub trait RustTools: Send + Sync + 'static {
            #(#methods)*
        }

        /// Routes each call the engine hands to Rust to its method, or to a tool of your own.
        struct Dispatch<R> {
            #unused
            rust: R,
            own: OwnTools<Api>,
        }

        impl<R: RustTools> ext::Handlers for Dispatch<R> {
            fn call<'a>(&'a self, tool: &'a str, args: Map<String, Value>, cx: ext::Context) -> Option<HandlerFuture<'a>> {
                #dispatch_body
            }

            fn answers(&self) -> Vec<String> {
                const RUST: &[&str] = &[#(#rust_names),*];
                RUST.iter().map(|name| name.to_string()).chain(self.own.names()).collect()
            }

            fn tools(&self) -> Vec<mcpgen_runtime::config::Tool> {
                self.own.declared()
            }
        }
    }
}

/// The argument type of a tool's method: its own, or a JSON object.
fn args_type(n: &Named<'_>) -> TokenStream {
    match &n.args_type {
        Some(t) => {
            let t = format_ident!("{}", t);
            quote!(args::#t)
        }
        None => quote!(Map<String, Value>),
    }
}

/// `tool.rs`: the `Tool` enum.
fn tool_rs(version: &str, named: &[Named<'_>]) -> Result<String> {
    let header = doc_header(version);
    let count = proc_macro2::Literal::usize_unsuffixed(named.len());
    let variants: Vec<_> = named.iter().map(|n| format_ident!("{}", n.variant)).collect();
    let docs = named.iter().map(tool_doc);
    let names: Vec<&String> = named.iter().map(|n| &n.tool.name).collect();
    let from_name = if named.is_empty() {
        quote!(let _ = name; None)
    } else {
        quote! {
            Some(match name {
                #(#names => Tool::#variants,)*
                _ => return None,
            })
        }
    };
    render(
        quote! {
            #![doc = #header]

            /// One variant per tool this crate serves, named from the tool; [`Tool::name`] and
            /// [`Tool::from_name`] give its MCP name both ways.
            #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
            pub enum Tool {
                #(#[doc = #docs] #variants,)*
            }

            impl Tool {
                /// Every tool, in the catalogue's order.
                pub const ALL: [Tool; #count] = [#(Tool::#variants),*];

                /// The name clients call the tool by.
                pub const fn name(self) -> &'static str {
                    match self {
                        #(Tool::#variants => #names,)*
                    }
                }

                /// The tool called `name`, if this crate serves it.
                pub fn from_name(name: &str) -> Option<Tool> {
                    #from_name
                }
            }

            impl std::fmt::Display for Tool {
                fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str(self.name())
                }
            }
        },
        "src/generated/tool.rs",
    )
}

/// `api.rs`: the client.
fn api_rs(version: &str, named: &[Named<'_>]) -> Result<String> {
    let header = doc_header(version);
    let methods = named.iter().filter(|n| n.args_type.is_some()).map(|n| {
        let method = format_ident!("{}", n.method);
        let variant = format_ident!("{}", n.variant);
        let args = args_type(n);
        let doc = tool_doc(n);
        quote! {
            #[doc = #doc]
            pub async fn #method(&self, args: #args) -> Result<Value, Error> {
                self.call(Tool::#variant, args).await
            }
        }
    });
    render(
        quote! {
            #![doc = #header]

            use std::future::Future;

            use mcpgen_runtime::ext::{Context, Error, Map, Value};

            #[allow(unused_imports)]
            use super::args;
            use super::Tool;

            /// Calls this crate's tools through the engine, exactly as a model's call goes: the
            /// arguments checked, the owner's fixed and default values, credentials (the server's,
            /// or the caller's identity where the mode says so), hooks, retries, the rate limit.
            /// Each call answers the API's whole response (JSON parsed, text as a string), not the
            /// text a model reads; a tool replaced by Rust is not called, its API tool is.
            #[derive(Clone)]
            pub struct Api {
                cx: Context,
            }

            impl From<Context> for Api {
                fn from(cx: Context) -> Api {
                    Api { cx }
                }
            }

            impl Api {
                /// An `Api` outside any client's call (your own program's, a test's): the server's
                /// credentials, and nobody to ask.
                pub fn detached(engine: std::sync::Arc<mcpgen_runtime::Engine>) -> Api {
                    Api { cx: Context::detached(engine) }
                }

                /// The call this `Api` serves: who called, asking the user, progress.
                pub fn context(&self) -> &Context {
                    &self.cx
                }

                /// Calls `tool` with `args`: a typed argument struct, or any value that serializes
                /// to a JSON object (`json!({...})`).
                pub fn call(&self, tool: Tool, args: impl serde::Serialize) -> impl Future<Output = Result<Value, Error>> + Send + '_ {
                    let args = match serde_json::to_value(args) {
                        Ok(Value::Object(map)) => Ok(map),
                        Ok(Value::Null) => Ok(Map::new()),
                        Ok(other) => Err(Error::new(format!("the arguments of `{tool}` must be an object, not {other}"))),
                        Err(e) => Err(Error::from(e)),
                    };
                    async move { self.cx.call(tool.name(), args?).await }
                }

                #(#methods)*
            }
        },
        "src/generated/api.rs",
    )
}

/// `args.rs`: the typed arguments.
fn args_rs(version: &str, named: &[Named<'_>]) -> Result<String> {
    let header = doc_header(version);
    let mut used: BTreeSet<String> = named.iter().filter_map(|n| n.args_type.clone()).collect();
    used.extend(types::TAKEN_TYPES.iter().map(|t| t.to_string()));
    let items: Vec<TokenStream> =
        named.iter().filter_map(|n| n.args_type.as_deref().map(|t| types::args_items(n.tool, t, &mut used))).collect();
    render(
        quote! {
            #![doc = #header]
            #![doc = ""]
            #![doc = " The tools' arguments, typed (serde): what `Api`'s methods take and `RustTools`' methods are"]
            #![doc = " given. An optional argument is an `Option`."]

            #(#items)*
        },
        "src/generated/args.rs",
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

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
        let none = BTreeSet::new();
        let spec = TypedSpec { config: &p.tools.config, rust: &none, named: &none, which: Default::default() };
        let text = args_rs("0", &names(&spec)).unwrap();
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
