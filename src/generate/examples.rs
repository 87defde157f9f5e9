//! The crate README's five customisations, written for this crate's own tools so that each
//! snippet builds as it is (mcpgen's tests paste every snippet into a generated crate, build it
//! and call its tools): a header on every request from an env var, refusing and changing one
//! tool (`src/hooks.rs`), renaming, hiding and re-describing tools and marking one as answered in
//! Rust (`mcpgen.toml`), and that Rust tool with a multi-step tool of the crate's own
//! (`src/handlers.rs`). Identifiers are the typed layer's (generated, so safe as code); tool
//! names are `[A-Za-z0-9_-]` (safe as TOML keys and in strings).

use std::collections::BTreeSet;

use serde::Serialize;

use super::typed::{Named, TypedSpec, names};
use mcpgen_config::{Method, RuntimeConfig};

/// The snippets, each a whole file as it is after the step (the later ones of a file include the
/// earlier).
#[derive(Debug, Serialize)]
pub(super) struct Examples {
    /// `src/hooks.rs` with a header on every request.
    pub header: String,
    /// `src/hooks.rs` also refusing one tool and changing another's results.
    pub refuse: String,
    /// `mcpgen.toml`'s tables: one tool answered in Rust, one renamed, one hidden, one described.
    pub tables: String,
    /// `src/handlers.rs` with the Rust tool.
    pub replace: String,
    /// `src/handlers.rs` also with a multi-step tool of the crate's own.
    pub multi_step: String,
    /// The tool refused, the one replaced, and the two the multi-step tool calls.
    pub refused: String,
    pub replaced: String,
    pub first: String,
    pub second: String,
}

/// The examples for `config`, when it has HTTP tools enough (four: one to refuse, one to replace,
/// two to call in a row, which may be the others).
pub(super) fn examples(config: &RuntimeConfig) -> Option<Examples> {
    let http: Vec<usize> = (0..config.tools.len()).filter(|&i| config.tools[i].http.is_some()).collect();
    if http.len() < 4 {
        return None;
    }
    let method = |i: usize| config.tools[i].http.as_ref().map(|h| h.method);
    let required =
        |i: usize| config.tools[i].input_schema.get("required").and_then(|r| r.as_array()).map_or(0, |r| r.len());
    let mut taken = BTreeSet::new();
    let mut pick = |prefer: &dyn Fn(usize) -> bool| {
        let i = http.iter().copied().find(|&i| !taken.contains(&i) && prefer(i));
        let i = i.or_else(|| http.iter().copied().find(|i| !taken.contains(i)))?;
        taken.insert(i);
        Some(i)
    };
    let refused = pick(&|i| method(i) == Some(Method::Delete))?;
    let replaced = pick(&|i| method(i) == Some(Method::Get) && required(i) > 0)?;
    let first = pick(&|i| method(i) == Some(Method::Get) && required(i) == 0)?;
    let second = pick(&|i| method(i) == Some(Method::Get))?;
    let renamed = pick(&|_| true);
    let hidden = pick(&|_| true);
    let rust = BTreeSet::from([config.tools[replaced].name.clone()]);
    let spec = TypedSpec { config, rust: &rust, named: &rust, which: Default::default() };
    let named = names(&spec);
    let n = |i: usize| &named[i];
    Some(Examples {
        header: hooks_rs(None),
        refuse: hooks_rs(Some((n(refused), n(second)))),
        tables: toml(n(replaced), renamed.map(n), hidden.map(n)),
        replace: handlers_rs(n(replaced), None),
        multi_step: handlers_rs(n(replaced), Some((n(first), n(second)))),
        refused: config.tools[refused].name.clone(),
        replaced: config.tools[replaced].name.clone(),
        first: config.tools[first].name.clone(),
        second: config.tools[second].name.clone(),
    })
}

/// `src/hooks.rs`: the `TEAM` env var as an `x-team` header on every request; with `refuse`,
/// the first tool refused and the second's results cut to their first block.
fn hooks_rs(refuse: Option<(&Named<'_>, &Named<'_>)>) -> String {
    let (check, after) = match refuse {
        Some((refused, changed)) => (
            format!(
                "        if tool == Tool::{} {{\n            return Err(Error::new(\"`{}` is switched off on this server\"));\n        }}\n",
                refused.variant, refused.tool.name
            ),
            format!(
                "\n    fn after_response(&self, tool: Tool, result: &mut CallToolResult) {{\n        if tool == Tool::{} {{\n            result.content.truncate(1);\n        }}\n    }}\n",
                changed.variant
            ),
        ),
        None => (String::new(), String::new()),
    };
    let (tool, imports) = match refuse {
        Some(_) => ("tool", "CallToolResult, Error"),
        None => ("_tool", "Error"),
    };
    format!(
        "use mcpgen_runtime::ext::{{{imports}, Map, Request, Value, header}};\n\nuse crate::generated::Tool;\n\n\
         pub struct Hooks;\n\nimpl crate::generated::Hooks for Hooks {{\n    \
         async fn before_request(&self, {tool}: Tool, _args: &Map<String, Value>, request: &mut Request) -> Result<(), Error> {{\n\
         {check}        if let Ok(team) = std::env::var(\"TEAM\") {{\n            \
         request.headers.insert(\"x-team\", header::HeaderValue::from_str(&team)?);\n        }}\n        Ok(())\n    }}\n{after}}}\n"
    )
}

/// `mcpgen.toml`'s tables.
fn toml(replaced: &Named<'_>, renamed: Option<&Named<'_>>, hidden: Option<&Named<'_>>) -> String {
    let mut out = format!("[tools.{}]\nrust = true\n", replaced.tool.name);
    if let Some(r) = renamed {
        out.push_str(&format!(
            "\n[tools.{}]\nname = \"{}\"\ndescription = \"What the model reads instead of the API's description.\"\n",
            r.tool.name,
            format!("{}_renamed", r.method).chars().take(64).collect::<String>()
        ));
    }
    if let Some(h) = hidden {
        out.push_str(&format!("\n[tools.{}]\nhidden = true\n", h.tool.name));
    }
    out
}

/// `src/handlers.rs`: the replaced tool calling the API's own and adding to its answer; with
/// `steps`, a tool of the crate's own calling two API tools in a row.
fn handlers_rs(replaced: &Named<'_>, steps: Option<(&Named<'_>, &Named<'_>)>) -> String {
    let args = replaced.args_type.as_deref().unwrap_or("Map<String, Value>");
    let (ext, generated) = match steps {
        Some(_) => ("Error, Map, OwnTools, Value, json", "Api, Tool, args::*"),
        None => ("Error, OwnTools, Value, json", "Api, args::*"),
    };
    let mut out = format!(
        "use mcpgen_runtime::ext::{{{ext}}};\n\nuse crate::generated::{{{generated}}};\n\n\
         pub struct Handlers;\n\nimpl crate::generated::RustTools for Handlers {{\n    \
         async fn {method}(&self, api: Api, args: {args}) -> Result<Value, Error> {{\n        \
         let answer = api.{method}(args).await?;\n        \
         Ok(json!({{\"answer\": answer, \"checked_by\": \"rust\"}}))\n    }}\n}}\n",
        method = replaced.method,
    );
    match steps {
        None => out.push_str("\npub fn own_tools() -> OwnTools<Api> {\n    OwnTools::new()\n}\n"),
        Some((first, second)) => out.push_str(&format!(
            "\n/// Calls `{a}`, then `{b}`, and answers both.\n#[derive(serde::Deserialize, schemars::JsonSchema)]\n\
             pub struct BothArgs {{\n    /// The arguments of `{a}`.\n    #[serde(default)]\n    pub first: Map<String, Value>,\n    \
             /// The arguments of `{b}`.\n    #[serde(default)]\n    pub second: Map<String, Value>,\n}}\n\n\
             async fn both(api: Api, args: BothArgs) -> Result<Value, Error> {{\n    \
             let first = api.call(Tool::{va}, args.first).await?;\n    \
             let second = api.call(Tool::{vb}, args.second).await?;\n    \
             Ok(json!({{\"{a}\": first, \"{b}\": second}}))\n}}\n\n\
             pub fn own_tools() -> OwnTools<Api> {{\n    OwnTools::new().tool(\"both\", both)\n}}\n",
            a = first.tool.name,
            b = second.tool.name,
            va = first.variant,
            vb = second.variant,
        )),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn petstores_examples_name_its_tools() {
        let p = crate::pipeline::run("samples/petstore-oas30.json", &Default::default()).unwrap();
        let e = examples(&p.tools.config).unwrap();
        assert_eq!((e.refused.as_str(), e.replaced.as_str()), ("deletePet", "findPetsByStatus"));
        assert!(e.refuse.contains("if tool == Tool::DeletePet {"), "{}", e.refuse);
        assert!(e.tables.starts_with("[tools.findPetsByStatus]\nrust = true\n"), "{}", e.tables);
        for snippet in [&e.header, &e.refuse, &e.replace, &e.multi_step] {
            syn::parse_file(snippet).unwrap_or_else(|err| panic!("{err}\n{snippet}"));
        }
        let tools =
            crate::generate::manifest::parse(&format!("[generate]\ninputs = []\n{}", e.tables), "t").unwrap().tools;
        assert_eq!(tools.len(), 3, "{}", e.tables);
        assert!(e.multi_step.contains("OwnTools::new().tool(\"both\", both)"), "{}", e.multi_step);
    }

    #[test]
    fn an_api_with_few_tools_has_none() {
        let p = crate::pipeline::run("samples/openai-functions.json", &Default::default()).unwrap();
        assert!(examples(&p.tools.config).is_none());
    }
}
