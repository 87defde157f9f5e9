//! Runtime configs of several APIs made into one: each API listed in `apis` with its upstream,
//! its tools marked with it, its security schemes namespaced (`github/bearer`), env var names and
//! tool names kept distinct across APIs.

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::error::{Error, Location, Result};
use crate::names::screaming_snake_case;
use crate::tools::naming::shorten;
use mcpgen_config::{
    Api, CONFIG_FORMAT_VERSION, Context, Limits, RuntimeConfig, SecurityScheme, ServerInfo, Tool, Upstream,
};

/// One API's config, ready to merge: its tools' names already carry its prefix.
#[derive(Debug, Clone)]
pub(crate) struct Part {
    /// The input it was read from (messages name it).
    pub origin: String,
    /// What its tool names start with (empty: nothing).
    pub prefix: String,
    /// Static headers of its requests, over its config's own.
    pub headers: BTreeMap<String, String>,
    /// Whose identity its requests carry, over its config's own.
    pub upstream_auth: Option<mcpgen_config::UpstreamIdentity>,
    pub config: RuntimeConfig,
}

/// The merged config, and what was changed to keep names apart.
#[derive(Debug)]
pub(crate) struct Merged {
    pub config: RuntimeConfig,
    pub warnings: Vec<String>,
}

/// Merges the configs of two or more APIs. Deterministic: the order of `parts` decides which API
/// keeps a contested tool or env var name (the first) and which is renamed (with a warning).
pub(crate) fn merge(parts: Vec<Part>, max_name_len: usize, max_description_len: usize) -> Result<Merged> {
    let names = api_names(&parts);
    let mut out = empty_config(&parts, max_description_len);
    let mut owners = Owners::default();
    for (part, name) in parts.into_iter().zip(names) {
        let mut config = part.config;
        if !config.apis.is_empty() {
            return Err(Error::Invalid {
                location: Location::at_pointer(&part.origin, "#/apis"),
                message: "this config serves several APIs already: name the APIs it was made from instead".into(),
            });
        }
        // The most generous of the APIs' limits: each was chosen for its own API.
        out.limits.timeout_secs = out.limits.timeout_secs.max(config.limits.timeout_secs);
        out.limits.max_response_bytes = out.limits.max_response_bytes.max(config.limits.max_response_bytes);
        let schemes = std::mem::take(&mut config.security_schemes);
        let renamed = owners.add_schemes(&name, schemes, &mut out.security_schemes);
        for tool in config.tools {
            out.tools.push(owners.add_tool(&name, tool, &renamed, max_name_len));
        }
        let mut upstream = config.upstream;
        upstream.headers.extend(part.headers);
        if part.upstream_auth.is_some() {
            upstream.auth = part.upstream_auth;
        }
        out.apis.push(Api {
            name,
            title: config.server.title.clone().or(Some(config.server.name.clone())),
            version: Some(config.server.version.clone()),
            prefix: part.prefix,
            tags: config.tags,
            upstream,
        });
    }
    Ok(Merged { config: out, warnings: owners.warnings })
}

/// The merged config before any API joins it: the server's info of them all, the first route
/// maps asked for, limits that each API raises to its own.
fn empty_config(parts: &[Part], max_description_len: usize) -> RuntimeConfig {
    // Route maps, when an API's config asked for them (the flags apply to the whole server anyway).
    let resources = parts.iter().map(|p| p.config.resources.clone()).find(|r| !r.is_off()).unwrap_or_default();
    RuntimeConfig {
        mcpgen_config: CONFIG_FORMAT_VERSION,
        server: server_info(parts, max_description_len),
        // Each API's areas are in its entry of `apis`: two APIs may have a tag of one name.
        tags: BTreeMap::new(),
        upstream: Upstream::default(),
        security_schemes: BTreeMap::new(),
        limits: Limits { timeout_secs: 0.0, max_response_bytes: 0 },
        context: Context::default(),
        tools: Vec::new(),
        apis: Vec::new(),
        resources,
        definitions: Default::default(),
        fragments: Default::default(),
    }
}

/// Which API has each env var and tool name so far, and the renames that kept them apart: the
/// first API to claim a name keeps it.
#[derive(Default)]
struct Owners {
    /// Env var -> the API that reads it.
    env: HashMap<String, String>,
    /// Tool name -> the API that has it.
    tools: HashMap<String, String>,
    /// One sentence per rename.
    warnings: Vec<String>,
}

impl Owners {
    /// API `name`'s security schemes, namespaced (`github/bearer`) into `out` with their env vars
    /// kept apart from other APIs'; returns the new name of each scheme, for its tools.
    fn add_schemes(
        &mut self,
        name: &str,
        schemes: BTreeMap<String, SecurityScheme>,
        out: &mut BTreeMap<String, SecurityScheme>,
    ) -> HashMap<String, String> {
        let mut renamed: HashMap<String, String> = HashMap::new();
        let mut env_renamed: HashMap<String, String> = HashMap::new();
        for (key, mut scheme) in schemes {
            for var in env_vars_mut(&mut scheme) {
                if let Some(new) = env_renamed.get(var.as_str()) {
                    *var = new.clone();
                    continue;
                }
                let original = var.clone();
                if let Some(other) = claim_env(&mut self.env, var, name) {
                    self.warnings.push(format!(
                        "the APIs `{other}` and `{name}` both read the env var {original}: `{name}` reads {var} instead"
                    ));
                    env_renamed.insert(original, var.clone());
                }
            }
            let namespaced = format!("{name}/{key}");
            renamed.insert(key, namespaced.clone());
            out.insert(namespaced, scheme);
        }
        renamed
    }

    /// A tool of API `name`, marked with it: its security names its schemes' new names
    /// (`renamed`), and its name is renamed when another API has it already.
    fn add_tool(&mut self, name: &str, mut tool: Tool, renamed: &HashMap<String, String>, max_name_len: usize) -> Tool {
        if let Some(http) = tool.http.as_mut() {
            for set in &mut http.security {
                for scheme in set.iter_mut() {
                    if let Some(new) = renamed.get(scheme) {
                        *scheme = new.clone();
                    }
                }
            }
        }
        if let Some(other) = self.tools.get(&tool.name) {
            let new = free_name(&tool.name, max_name_len, &self.tools);
            self.warnings.push(format!(
                "the APIs `{other}` and `{name}` both have a tool `{}`: `{name}`'s is `{new}`",
                tool.name
            ));
            tool.name = new;
        }
        self.tools.insert(tool.name.clone(), name.to_string());
        tool.api = Some(name.to_string());
        tool
    }
}

/// Each API's key: its prefix without the separator, else from its title; unique (`petstore2`).
fn api_names(parts: &[Part]) -> Vec<String> {
    let mut taken = HashSet::new();
    parts
        .iter()
        .map(|p| {
            let base = match p.prefix.trim_end_matches(['_', '-']) {
                "" => crate::names::api_prefix(title_of(&p.config)).trim_end_matches('_').to_string(),
                own => own.to_string(),
            };
            let name =
                (1..).map(|n| if n == 1 { base.clone() } else { format!("{base}{n}") }).find(|c| !taken.contains(c));
            let name = name.unwrap_or(base);
            taken.insert(name.clone());
            name
        })
        .collect()
}

/// The title of a config's API, as its server info says.
pub(crate) fn title_of(config: &RuntimeConfig) -> &str {
    config.server.title.as_deref().unwrap_or(&config.server.name)
}

/// Claims `var` for `api`; when another API holds it, renames `var` to one of `api`'s own and
/// returns the other API.
fn claim_env(owners: &mut HashMap<String, String>, var: &mut String, api: &str) -> Option<String> {
    match owners.get(var.as_str()) {
        None => {
            owners.insert(var.clone(), api.to_string());
            None
        }
        Some(owner) if owner == api => None,
        Some(owner) => {
            let owner = owner.clone();
            let base = format!("{}_{var}", screaming_snake_case(api));
            let new = (1..)
                .map(|n| if n == 1 { base.clone() } else { format!("{base}_{n}") })
                .find(|c| !owners.contains_key(c))
                .unwrap_or(base);
            owners.insert(new.clone(), api.to_string());
            *var = new;
            Some(owner)
        }
    }
}

/// The names of the env vars of a scheme, to rename.
fn env_vars_mut(scheme: &mut SecurityScheme) -> Vec<&mut String> {
    match scheme {
        SecurityScheme::ApiKey { env, .. } | SecurityScheme::Bearer { env } | SecurityScheme::External { env, .. } => {
            vec![env]
        }
        SecurityScheme::Basic { username_env, password_env } => vec![username_env, password_env],
        SecurityScheme::OAuth2AuthorizationCode { client_id_env, client_secret_env, token_env, .. } => {
            vec![client_id_env, client_secret_env, token_env]
        }
        SecurityScheme::OAuth2ClientCredentials { client_id_env, client_secret_env, token_env, .. } => {
            let mut vars = vec![client_id_env, client_secret_env];
            vars.extend(token_env.as_mut());
            vars
        }
    }
}

/// A name not yet used: `name_2`, `name_3`, ... within `max` characters.
fn free_name(name: &str, max: usize, used: &HashMap<String, String>) -> String {
    (2..)
        .map(|n| {
            let suffix = format!("_{n}");
            format!("{}{suffix}", shorten(name, max.saturating_sub(suffix.len())))
        })
        .find(|c| !used.contains_key(c))
        .unwrap_or_else(|| name.to_string())
}

/// The merged server's info: `mcpgen`, the APIs' titles, and each one's description (each capped
/// as one API's would be) under its title and prefix.
fn server_info(parts: &[Part], max_description_len: usize) -> ServerInfo {
    let titles: Vec<&str> = parts.iter().map(|p| title_of(&p.config)).collect();
    let mut instructions = format!(
        "This server serves {} APIs: {}. Each tool's name starts with its API's prefix.",
        parts.len(),
        titles.join(", ")
    );
    for (p, title) in parts.iter().zip(&titles) {
        let prefix = if p.prefix.is_empty() { String::new() } else { format!(" (tools `{}*`)", p.prefix) };
        let description = p.config.server.instructions.as_deref().map(str::trim).unwrap_or("");
        let description = mcpgen_config::text::cap(description, max_description_len);
        let sep = if description.is_empty() { "" } else { ": " };
        instructions.push_str(&format!("\n\n{title}{prefix}{sep}{description}"));
    }
    ServerInfo {
        name: "mcpgen".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        title: Some(titles.join(" + ")),
        instructions: Some(instructions),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn config(title: &str, tools: &[&str], schemes: serde_json::Value) -> RuntimeConfig {
        let tools: Vec<serde_json::Value> = tools
            .iter()
            .map(|name| {
                json!({"name": name, "input_schema": {"type": "object"},
                    "annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": true},
                    "http": {"method": "GET", "path": "/x", "security": [["key"]]}})
            })
            .collect();
        crate::load::read_config(
            &json!({"mcpgen_config": 1, "server": {"name": "n", "version": "1", "title": title, "instructions": "About it."},
                "upstream": {"base_url": format!("https://{}.example.com", title.to_lowercase())},
                "security_schemes": schemes, "tools": tools}),
            "t.json",
        )
        .unwrap()
    }

    fn part(prefix: &str, config: RuntimeConfig) -> Part {
        Part {
            origin: format!("{prefix}.yaml"),
            prefix: prefix.into(),
            headers: BTreeMap::new(),
            upstream_auth: None,
            config,
        }
    }

    fn key(env: &str) -> serde_json::Value {
        json!({"key": {"type": "api_key", "location": "header", "name": "X-Key", "env": env}})
    }

    #[test]
    fn schemes_are_namespaced_and_tools_marked() {
        let a = part("github_", config("GitHub", &["github_get"], key("GITHUB_KEY")));
        let mut b = part("stripe_", config("Stripe", &["stripe_get"], key("STRIPE_KEY")));
        b.headers.insert("X-Tenant".into(), "acme".into());
        let m = merge(vec![a, b], 64, 1024).unwrap();
        assert!(m.warnings.is_empty(), "{:?}", m.warnings);
        let c = &m.config;
        assert_eq!(c.security_schemes.keys().collect::<Vec<_>>(), ["github/key", "stripe/key"]);
        assert_eq!(c.tools[1].http.as_ref().unwrap().security, [["stripe/key"]]);
        assert_eq!(c.tools[1].api.as_deref(), Some("stripe"));
        assert_eq!(c.apis[1].upstream.base_url.as_deref(), Some("https://stripe.example.com"));
        assert_eq!(c.apis[1].upstream.headers["X-Tenant"], "acme");
        assert_eq!(c.apis[0].prefix, "github_");
        assert_eq!(c.server.name, "mcpgen");
        assert_eq!(c.server.title.as_deref(), Some("GitHub + Stripe"));
        let i = c.server.instructions.as_deref().unwrap();
        assert!(i.contains("\n\nStripe (tools `stripe_*`): About it."), "{i}");
        // It reads back as a config.
        let back = crate::load::read_config(&serde_json::to_value(c).unwrap(), "m.json").unwrap();
        assert_eq!(&back, c);
    }

    #[test]
    fn a_shared_env_var_is_made_distinct() {
        let a = part("a_", config("A", &["a_x"], key("TOKEN")));
        let b = part("b_", config("B", &["b_x"], key("TOKEN")));
        let m = merge(vec![a, b], 64, 1024).unwrap();
        let envs: Vec<Vec<&str>> = m.config.security_schemes.values().map(SecurityScheme::env_vars).collect();
        assert_eq!(envs, [["TOKEN"], ["B_TOKEN"]]);
        assert_eq!(m.warnings, ["the APIs `a` and `b` both read the env var TOKEN: `b` reads B_TOKEN instead"]);
    }

    #[test]
    fn a_name_clash_after_prefixing_is_renamed_within_the_limit() {
        let long = format!("a_b_{}", "x".repeat(60));
        let a = part("a_", config("A", &["a_b_list", &long], key("A_KEY")));
        let b = part("a_b_", config("B", &["a_b_list", &long], key("B_KEY")));
        let m = merge(vec![a, b], 64, 1024).unwrap();
        let names: Vec<&str> = m.config.tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names[2], "a_b_list_2");
        assert!(names[3].len() <= 64 && names[3].ends_with("_2") && names[3] != long, "{}", names[3]);
        assert_eq!(m.warnings.len(), 2);
        assert!(m.warnings[0].contains("both have a tool `a_b_list`: `a_b`'s is `a_b_list_2`"), "{}", m.warnings[0]);
    }

    #[test]
    fn api_names_come_from_prefixes_or_titles_and_are_unique() {
        let a = part("", config("Swagger Petstore", &["x"], key("A")));
        let b = part("", config("Petstore", &["y"], key("B")));
        let m = merge(vec![a, b], 64, 1024).unwrap();
        let names: Vec<&str> = m.config.apis.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["petstore", "petstore2"]);
    }

    #[test]
    fn a_merged_config_is_not_merged_again() {
        let a = part("a_", config("A", &["a_x"], key("A")));
        let b = part("b_", config("B", &["b_x"], key("B")));
        let merged = merge(vec![a.clone(), b], 64, 1024).unwrap().config;
        let e = merge(vec![a, part("m_", merged)], 64, 1024).unwrap_err().to_string();
        assert!(e.starts_with("m_.yaml at #/apis: this config serves several APIs already"), "{e}");
    }
}
