//! `mcpgen.toml`, a generated crate's recipe: the inputs and options it was generated with
//! (`[generate]`, which mcpgen writes) and the owner's changes to its tools (`[tools.NAME]`, which
//! are the user's). `mcpgen generate` in the crate's folder, without arguments, makes the crate
//! again from it. docs/mcpgen-toml.md describes every key.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use crate::error::{Error, Result};
use mcpgen_config::{RuntimeConfig, Tool};

/// The file's name, at the crate's root.
pub const FILE: &str = "mcpgen.toml";

/// What `mcpgen.toml` says.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// How the crate is made.
    pub generate: Recipe,
    /// The owner's changes, by the tool's name as the API gives it.
    #[serde(default)]
    pub tools: BTreeMap<String, ToolOverride>,
}

/// `[generate]`: the inputs, relative to the crate, and the other options of `mcpgen generate`
/// as on its command line.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recipe {
    /// API descriptions, configs or multi-API files: paths relative to the crate, URLs, `-`.
    pub inputs: Vec<String>,
    /// `--flag`, `--option VALUE`, ... as `mcpgen generate` takes them.
    #[serde(default)]
    pub options: Vec<String>,
}

/// `[tools.NAME]`: one tool as its owner wants it.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolOverride {
    /// Not served: not listed, not callable, no `Tool` variant.
    #[serde(default)]
    pub hidden: bool,
    /// The name the model sees (and the `Tool` variant's).
    pub name: Option<String>,
    /// What the model reads instead of the API's description.
    pub description: Option<String>,
    /// Answered by the crate's Rust code (`RustTools` in src/handlers.rs), which may call the
    /// API's tool through `Api`.
    #[serde(default)]
    pub rust: bool,
    /// The owner's values for arguments, by name.
    #[serde(default)]
    pub arguments: BTreeMap<String, ArgumentOverride>,
}

/// `[tools.NAME.arguments.ARG]`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArgumentOverride {
    /// Always sent with this value; the model neither sees nor sets the argument.
    pub value: Option<Value>,
    /// Sent when the model leaves the argument out (and shown to it as the default).
    pub default: Option<Value>,
}

/// The manifest in `dir`, if there is one. A file that does not parse is an error naming it, with
/// the line and column.
pub fn read(dir: &Path) -> Result<Option<Manifest>> {
    let path = dir.join(FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(&path, "read", e)),
    };
    parse(&text, &path.display().to_string()).map(Some)
}

/// Parses a manifest's text; `origin` names it in errors.
pub fn parse(text: &str, origin: &str) -> Result<Manifest> {
    toml_edit::de::from_str(text).map_err(|e| Error::Usage {
        message: format!("{origin}: {}\nsee docs/mcpgen-toml.md in mcpgen for its keys", e.to_string().trim_end()),
    })
}

/// A new crate's manifest: the recipe, and the tools table commented out as an example.
pub fn new_text(recipe: &Recipe) -> String {
    let mut doc = toml_edit::DocumentMut::new();
    set_recipe(&mut doc, recipe);
    format!("{HEADER}\n{doc}\n{TOOLS_EXAMPLE}")
}

/// `text` (an existing manifest) with `recipe` in its `[generate]`: the user's comments, order
/// and `[tools]` are kept. `None` when the recipe is already the same.
pub fn with_recipe(text: &str, recipe: &Recipe) -> Result<Option<String>> {
    let mut doc: toml_edit::DocumentMut =
        text.parse().map_err(|e: toml_edit::TomlError| Error::Usage { message: format!("{FILE}: {e}") })?;
    let current = parse(text, FILE)?;
    if current.generate == *recipe {
        return Ok(None);
    }
    set_recipe(&mut doc, recipe);
    Ok(Some(doc.to_string()))
}

fn set_recipe(doc: &mut toml_edit::DocumentMut, recipe: &Recipe) {
    let array = |items: &[String]| {
        let mut a = toml_edit::Array::new();
        a.extend(items.iter().map(String::as_str));
        toml_edit::value(a)
    };
    if !doc.contains_table("generate") {
        doc["generate"] = toml_edit::table();
    }
    doc["generate"]["inputs"] = array(&recipe.inputs);
    doc["generate"]["options"] = array(&recipe.options);
}

const HEADER: &str = "\
# How this crate is made. `mcpgen generate` in this folder, without arguments, makes it again from
# this file; flags given then are added to `options`. mcpgen writes [generate]; the [tools] tables
# are yours (mcpgen's docs/mcpgen-toml.md describes every key).";

const TOOLS_EXAMPLE: &str = "\
# Your changes to the API's tools, each under the name the API gives it:
#
# [tools.deletePet]
# hidden = true                             # not served (no `Tool` variant either)
#
# [tools.findPetsByStatus]
# name = \"find_pets\"                        # the name the model sees
# description = \"Pets by status.\"           # what the model reads
# arguments.status.default = \"available\"    # sent when the model leaves it out
# arguments.tenant.value = \"acme\"           # always sent; the model never sees it
#
# [tools.addPet]
# rust = true                               # answered by your Rust code (src/handlers.rs)
";

/// The config the owner's overrides make of `config`, and the final names of the tools marked
/// `rust`. Every problem is reported at once (a name the API no longer has, with its new name
/// when `renamed` (the crate's last names to the API's new ones) knows it, else the closest; an
/// argument the tool does not take; a new name taken twice); nothing is applied then.
pub fn apply(
    config: &mut RuntimeConfig,
    tools: &BTreeMap<String, ToolOverride>,
    renamed: &BTreeMap<String, String>,
) -> Result<BTreeSet<String>> {
    let mut problems = Vec::new();
    for (name, o) in tools {
        match config.tools.iter().find(|t| t.name == *name) {
            None => {
                // The crate's catalogue had the tool under its new name, if the owner gave one.
                let last = o.name.as_deref().filter(|_| !o.hidden).unwrap_or(name);
                problems.push(match renamed.get(last).or_else(|| renamed.get(name)) {
                    Some(new) => format!(
                        "[tools.{name}]: the API renamed `{name}` to `{new}`: write [tools.{new}] (the name the API \
                         gives the tool), then build: code that names the old `Tool` variant will not compile"
                    ),
                    None => unknown_tool(name, config),
                })
            }
            Some(tool) => problems.extend(check_arguments(name, tool, o)),
        }
    }
    let mut names: BTreeSet<String> = config.tools.iter().map(|t| t.name.clone()).collect();
    for (old, o) in tools.iter().filter(|(_, o)| !o.hidden) {
        if let Some(new) = &o.name
            && new != old
        {
            if !valid_name(new) {
                problems.push(format!(
                    "[tools.{old}] name = {new:?}: a tool name is 1 to 64 letters, digits, `_` and `-`, not starting \
                     with a digit or `-`"
                ));
            } else if !names.insert(new.clone()) {
                problems.push(format!("[tools.{old}] name = {new:?}: another tool has that name"));
            }
        }
    }
    if !problems.is_empty() {
        return Err(Error::Usage {
            message: format!("{FILE} does not fit the API; nothing was written:\n  {}", problems.join("\n  ")),
        });
    }
    let mut rust = BTreeSet::new();
    config.tools.retain(|t| !tools.get(&t.name).is_some_and(|o| o.hidden));
    for tool in &mut config.tools {
        let Some(o) = tools.get(&tool.name) else { continue };
        apply_arguments(tool, &o.arguments);
        if let Some(d) = &o.description {
            tool.description = d.clone();
        }
        if let Some(new) = &o.name {
            for pinned in config.context.pin_tools.iter_mut().filter(|p| **p == tool.name) {
                *pinned = new.clone();
            }
            tool.name = new.clone();
        }
        if o.rust {
            rust.insert(tool.name.clone());
        }
    }
    Ok(rust)
}

/// `[tools.NAME]` for a tool the API does not have: the closest names it has.
fn unknown_tool(name: &str, config: &RuntimeConfig) -> String {
    let closest = closest(name, config.tools.iter().map(|t| t.name.as_str()));
    format!("[tools.{name}]: the API has no tool `{name}`{closest}")
}

/// `; the closest is `x``, or nothing when no name is near.
pub fn closest<'a>(name: &str, names: impl Iterator<Item = &'a str>) -> String {
    let lower = name.to_lowercase();
    let best = names
        .map(|n| (strsim::normalized_damerau_levenshtein(&lower, &n.to_lowercase()), n))
        .filter(|(score, _)| *score >= 0.5)
        .max_by(|a, b| a.0.total_cmp(&b.0).then_with(|| b.1.cmp(a.1)));
    best.map(|(_, n)| format!("; the closest is `{n}`")).unwrap_or_default()
}

fn check_arguments(name: &str, tool: &Tool, o: &ToolOverride) -> Vec<String> {
    let properties = tool.input_schema.get("properties").and_then(Value::as_object);
    let mut problems = Vec::new();
    for (arg, a) in &o.arguments {
        let here = format!("[tools.{name}.arguments.{arg}]");
        if !properties.is_some_and(|p| p.contains_key(arg)) {
            let near = closest(arg, properties.into_iter().flat_map(|p| p.keys().map(String::as_str)));
            problems.push(format!("{here}: `{name}` has no argument `{arg}`{near}"));
        } else if a.value.is_some() && a.default.is_some() {
            problems.push(format!("{here}: give `value` (fixed) or `default`, not both"));
        } else if a.value.is_none() && a.default.is_none() {
            problems.push(format!("{here}: give `value` (fixed) or `default`"));
        }
    }
    problems
}

/// Fixed values leave the schema (the model neither sees nor sets them); defaults stay in it,
/// shown as `default` and no longer required.
fn apply_arguments(tool: &mut Tool, arguments: &BTreeMap<String, ArgumentOverride>) {
    for (arg, a) in arguments {
        let schema = &mut tool.input_schema;
        if let Some(value) = &a.value {
            if let Some(p) = schema.get_mut("properties").and_then(Value::as_object_mut) {
                p.remove(arg);
            }
            tool.fixed_arguments.insert(arg.clone(), value.clone());
        }
        if let Some(value) = &a.default {
            let property = schema.get_mut("properties").and_then(|p| p.get_mut(arg)).and_then(Value::as_object_mut);
            if let Some(property) = property {
                property.insert("default".into(), value.clone());
            }
            tool.default_arguments.insert(arg.clone(), value.clone());
        }
        if let Some(Value::Array(required)) = schema.get_mut("required") {
            required.retain(|r| r.as_str() != Some(arg));
        }
    }
}

/// MCP's rule for tool names, as mcpgen writes them.
fn valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        && !name.starts_with(|c: char| c.is_ascii_digit() || c == '-')
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn config() -> RuntimeConfig {
        let spec = r#"{"openapi": "3.0.3", "info": {"title": "T", "version": "1"}, "paths": {
            "/users/{id}": {"delete": {"operationId": "usersDelete", "parameters": [
                {"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
                "responses": {"204": {"description": "gone"}}}},
            "/users": {"get": {"operationId": "usersAll", "parameters": [
                {"name": "limit", "in": "query", "schema": {"type": "integer"}},
                {"name": "x-tenant", "in": "header", "required": true, "schema": {"type": "string"}}],
                "responses": {"200": {"description": "ok"}}}}}}"#;
        crate::pipeline::run_str(spec, "t.json", &Default::default()).unwrap().tools.config
    }

    fn overrides(text: &str) -> BTreeMap<String, ToolOverride> {
        parse(&format!("[generate]\ninputs = []\n{text}"), FILE).unwrap().tools
    }

    #[test]
    fn a_tool_the_api_no_longer_has_is_named_with_the_closest() {
        let mut c = config();
        let none = BTreeMap::new();
        let e = apply(&mut c, &overrides("[tools.usersDelet]\nhidden = true\n"), &none).unwrap_err().to_string();
        assert!(
            e.contains("[tools.usersDelet]: the API has no tool `usersDelet`; the closest is `usersDelete`"),
            "{e}"
        );
        assert!(e.contains("nothing was written"), "{e}");
        assert_eq!(c, config(), "nothing applied");
    }

    #[test]
    fn a_tool_the_api_renamed_is_named_with_its_new_name() {
        let mut c = config();
        let renamed = BTreeMap::from([("usersRemove".to_string(), "usersDelete".to_string())]);
        let e = apply(&mut c, &overrides("[tools.usersRemove]\nhidden = true\n"), &renamed).unwrap_err().to_string();
        assert!(
            e.contains(
                "[tools.usersRemove]: the API renamed `usersRemove` to `usersDelete`: write [tools.usersDelete]"
            ),
            "{e}"
        );
    }

    #[test]
    fn hidden_renamed_described() {
        let mut c = config();
        let rust = apply(
            &mut c,
            &overrides("[tools.usersDelete]\nhidden = true\n[tools.usersAll]\nname = \"list_users\"\ndescription = \"Users.\"\nrust = true\n"),
            &BTreeMap::new(),
        )
        .unwrap();
        assert_eq!(c.tools.len(), 1);
        assert_eq!((c.tools[0].name.as_str(), c.tools[0].description.as_str()), ("list_users", "Users."));
        assert_eq!(rust, BTreeSet::from(["list_users".to_string()]));
    }

    #[test]
    fn fixed_and_default_arguments() {
        let mut c = config();
        let text = "[tools.usersAll]\narguments.x-tenant.value = \"acme\"\narguments.limit.default = 20\n";
        apply(&mut c, &overrides(text), &BTreeMap::new()).unwrap();
        let t = c.tools.iter().find(|t| t.name == "usersAll").unwrap();
        assert_eq!(t.input_schema["properties"].get("x-tenant"), None, "the model never sees it");
        assert_eq!(t.input_schema["properties"]["limit"]["default"], json!(20));
        assert!(
            !t.input_schema.get("required").and_then(Value::as_array).is_some_and(|r| r.contains(&json!("x-tenant")))
        );
        assert_eq!(Value::Object(t.fixed_arguments.clone()), json!({"x-tenant": "acme"}));
        assert_eq!(Value::Object(t.default_arguments.clone()), json!({"limit": 20}));
    }

    #[test]
    fn bad_arguments_and_names_are_each_reported() {
        let mut c = config();
        let text =
            "[tools.usersAll]\nname = \"1bad\"\narguments.limt.default = 1\n[tools.usersDelete]\nname = \"usersAll\"\n";
        let e = apply(&mut c, &overrides(text), &BTreeMap::new()).unwrap_err().to_string();
        assert!(e.contains("`usersAll` has no argument `limt`; the closest is `limit`"), "{e}");
        assert!(e.contains("[tools.usersAll] name = \"1bad\": a tool name is"), "{e}");
        assert!(e.contains("[tools.usersDelete] name = \"usersAll\": another tool has that name"), "{e}");
    }

    #[test]
    fn a_bad_file_names_its_line() {
        let e = parse("[generate]\ninputs = [\"a\"]\n[tools.x]\nhiden = true\n", "crate/mcpgen.toml").unwrap_err();
        let e = e.to_string();
        assert!(e.starts_with("crate/mcpgen.toml: TOML parse error at line 4"), "{e}");
        assert!(e.contains("unknown field `hiden`"), "{e}");
    }

    #[test]
    fn the_recipe_is_rewritten_and_the_rest_kept() {
        let recipe = Recipe { inputs: vec!["../a.yaml".into()], options: vec!["--exclude-op".into(), "x".into()] };
        let text = new_text(&recipe);
        assert_eq!(parse(&text, FILE).unwrap().generate, recipe);
        assert_eq!(with_recipe(&text, &recipe).unwrap(), None, "unchanged: not rewritten");
        let mine = format!("{text}\n# mine\n[tools.x]\nhidden = true\n");
        let other = Recipe { options: vec![], ..recipe };
        let rewritten = with_recipe(&mine, &other).unwrap().unwrap();
        assert!(rewritten.contains("# mine\n[tools.x]\nhidden = true\n"), "{rewritten}");
        assert_eq!(parse(&rewritten, FILE).unwrap().generate, other);
    }
}
