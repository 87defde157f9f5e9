//! Stage 4b, generate: the tool set to a ready-to-build Rust crate that runs the same engine as
//! `mcpgen serve`: the engine's source copied verbatim, the runtime config embedded as
//! `catalogue.json`, the typed layer (`src/generated/`), a small `main.rs`, the user-owned
//! `hooks.rs` and `handlers.rs`, the recipe `mcpgen.toml`, and the usual project files.

mod examples;
mod handlers;
mod lockfile;
pub mod manifest;
pub mod regenerate;
mod runtime_crate;
mod rust;
#[cfg(test)]
mod surface;
mod templates;
pub mod typed;
mod write;

use serde::Serialize;

pub use handlers::missing_in as missing_handlers;
pub use lockfile::lock_template;
pub use runtime_crate::{Feature, RuntimeSource, features_for};
pub use typed::TypedSpec;
pub use write::{WriteReport, write_crate};

use crate::error::{Error, Result};
use crate::names;
use mcpgen_config::RuntimeConfig;

/// The crate's dependencies besides the runtime, all in the runtime's own tree (so they cost no
/// build time): `serde` and `serde_json` for the typed arguments and the user's code, `schemars`
/// for the argument types of the user's own tools, `reqwest` for hooks that call other services.
pub const DEPENDENCIES: &[&str] = &[
    r#"reqwest = { version = "0.13", default-features = false }"#,
    r#"schemars = "1.2""#,
    r#"serde = { version = "1", features = ["derive"] }"#,
    r#"serde_json = "1""#,
];

/// One file of the crate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeneratedFile {
    /// Relative to the crate's root, with `/`.
    pub path: String,
    /// The file's text.
    pub contents: String,
    /// Created once, then the user's: never overwritten (`src/hooks.rs`).
    pub user_owned: bool,
}

/// What a crate is generated from.
#[derive(Debug, Clone)]
pub struct CrateSpec<'a> {
    /// The Cargo package name: letters, digits, `-` and `_`, starting with a letter, at most 64
    /// (checked); the library is named after it with `_`.
    pub package: String,
    /// The input as the user named it.
    pub spec: &'a str,
    /// The tools the crate serves: its `catalogue.json`, and the handlers and README made from it.
    pub config: &'a RuntimeConfig,
    /// Where the crate gets mcpgen-runtime from.
    pub runtime: RuntimeSource,
    /// The runtime's features the crate is built with ([`features_for`]).
    pub features: Vec<Feature>,
    /// `mcpgen.toml`'s text as it is to be written.
    pub manifest: String,
    /// Tools answered in Rust by `mcpgen.toml` (`rust = true`), by final name.
    pub rust: std::collections::BTreeSet<String>,
    /// Tools `mcpgen.toml` names, by final name (typed in any API).
    pub named: std::collections::BTreeSet<String>,
    /// Which tools get typed arguments.
    pub typed_args: typed::TypedArgs,
}

/// Titles past this many characters make long crate names: the spec's file name is used instead.
const LONG_TITLE: usize = 30;

/// Words of a file name that say nothing about the API (`api.github.com.json` -> `github`).
const FILE_NOISE: [&str; 12] =
    ["api", "apis", "openapi", "swagger", "spec", "specs", "com", "org", "io", "net", "www", "json"];

/// A crate name for an API: from its title (`Swagger Petstore` -> `swagger-petstore-mcp`), or
/// from the spec's file name when the title is long (`api.github.com.json` -> `github-mcp`).
pub fn default_crate_name(title: &str, spec: &str) -> String {
    let from_title = default_package_name(title);
    if from_title.len() <= LONG_TITLE + 4 {
        return from_title;
    }
    let stem = std::path::Path::new(spec.rsplit('/').next().unwrap_or(spec))
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("");
    let words: Vec<&str> = names::words(stem)
        .filter(|w| !FILE_NOISE.contains(&w.to_ascii_lowercase().as_str()))
        .filter(|w| !(w.len() > 1 && w.starts_with(['v', 'V']) && w[1..].bytes().all(|b| b.is_ascii_digit())))
        .collect();
    if words.is_empty() || spec == "-" {
        return from_title;
    }
    default_package_name(&words.join(" "))
}

/// A Cargo package name from an API title: `Swagger Petstore` -> `swagger-petstore-mcp`.
pub fn default_package_name(title: &str) -> String {
    format!("{}-mcp", names::kebab_slug(title, 40))
}

/// Cargo's rules for a package name, plus what makes the library name a usable identifier.
pub fn check_package_name(name: &str) -> Result<()> {
    let ok_chars = name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if name.is_empty() || name.len() > 64 || !ok_chars || !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return Err(Error::Usage {
            message: format!(
                "invalid crate name {name:?}: use letters, digits, `-` and `_`, starting with a letter (at most 64)"
            ),
        });
    }
    let ident = name.replace('-', "_");
    if !names::is_identifier(&ident)
        || ["test", "core", "std", "alloc", "proc_macro", "build"].contains(&ident.as_str())
    {
        return Err(Error::Usage { message: format!("invalid crate name {name:?}: `{ident}` is reserved in Rust") });
    }
    Ok(())
}

#[derive(Serialize)]
struct EnvVar {
    name: String,
    about: String,
}

#[derive(Serialize)]
struct TemplateContext<'a> {
    mcpgen_version: &'a str,
    package: &'a str,
    description: String,
    title: &'a str,
    api_version: &'a str,
    /// `None` when the API description names no server (`--base-url` gives it).
    base_url: Option<&'a str>,
    /// For a config of several APIs: each API, with its own base URL (`base_url` is `None`).
    apis: Vec<ApiContext<'a>>,
    tool_count: usize,
    /// Tools answered by `src/handlers.rs`, and the others.
    handler_count: usize,
    http_tool_count: usize,
    env_vars: Vec<EnvVar>,
    dependencies: Vec<String>,
    /// The runtime's features, by name.
    features: Vec<&'static str>,
    /// The runtime is a copy in `mcpgen-runtime/`.
    vendored: bool,
    /// Search by meaning is built in: its arithmetic is optimised in debug builds too.
    semantic: bool,
    /// The customisations, written for this crate's tools (when it has enough).
    examples: Option<examples::Examples>,
    /// Only some tools have typed arguments ([`typed::TYPED_ALL_UP_TO`]).
    typed_some: bool,
    typed_up_to: usize,
}

/// One API of a config of several, for the README.
#[derive(Serialize)]
struct ApiContext<'a> {
    title: &'a str,
    prefix: &'a str,
    base_url: Option<&'a str>,
}

/// Every file of the crate, in memory.
pub fn crate_files(c: &CrateSpec<'_>) -> Result<Vec<GeneratedFile>> {
    check_package_name(&c.package)?;
    let version = env!("CARGO_PKG_VERSION");
    let config = c.config;
    let title = config.server.title.as_deref().unwrap_or(&config.server.name);
    let ctx = TemplateContext {
        mcpgen_version: version,
        package: &c.package,
        description: format!("MCP server for {title} (generated by mcpgen)"),
        title,
        api_version: &config.server.version,
        base_url: config.upstream.base_url.as_deref(),
        apis: config
            .apis
            .iter()
            .map(|a| ApiContext {
                title: a.title.as_deref().unwrap_or(&a.name),
                prefix: &a.prefix,
                base_url: a.upstream.base_url.as_deref().or(config.upstream.base_url.as_deref()),
            })
            .collect(),
        tool_count: config.tools.len(),
        handler_count: config.unbound_tools().count(),
        http_tool_count: config.tools.len() - config.unbound_tools().count(),
        env_vars: env_vars(config),
        dependencies: std::iter::once(runtime_crate::dependency(c.runtime, &c.features))
            .chain(DEPENDENCIES.iter().map(|d| d.to_string()))
            .collect(),
        features: c.features.iter().map(|f| f.name()).collect(),
        vendored: c.runtime == RuntimeSource::Vendored,
        semantic: c.features.contains(&Feature::Semantic),
        examples: examples::examples(config),
        typed_some: match c.typed_args {
            typed::TypedArgs::Auto => config.tools.len() > typed::TYPED_ALL_UP_TO,
            typed::TypedArgs::All => false,
            typed::TypedArgs::Named => true,
        },
        typed_up_to: typed::TYPED_ALL_UP_TO,
    };
    let t = templates::Templates::new()?;
    let file = |path: &str, contents: String| GeneratedFile { path: path.to_string(), contents, user_owned: false };
    // The catalogue in the current format: each definition the tools share kept once.
    let catalogue = mcpgen_config::layout::to_json_text(&config.clone().into_stored())
        .map_err(|e| Error::internal("writing src/catalogue.json", e))?;
    let typed = TypedSpec { config, rust: &c.rust, named: &c.named, which: c.typed_args };
    let mut files = vec![
        file(manifest::FILE, c.manifest.clone()),
        file("Cargo.toml", t.render(templates::CARGO_TOML, &ctx)?),
        file("Cargo.lock", lockfile::render(&c.package, &c.features)?),
        file("README.md", t.render(templates::README, &ctx)?),
        file(".env.example", t.render(templates::ENV_EXAMPLE, &ctx)?),
        file("Dockerfile", t.render(templates::DOCKERFILE, &ctx)?),
        file(".gitignore", t.render(templates::GITIGNORE, &ctx)?),
        file("src/catalogue.json", catalogue),
        file("src/lib.rs", rust::lib_rs(version, &c.package, title, &credentials_help(config))?),
        file("src/main.rs", rust::main_rs(version, &c.package)?),
        file("tests/tools.rs", rust::tools_test_rs(version, &c.package)?),
        GeneratedFile { path: "src/hooks.rs".into(), contents: templates::HOOKS_RS.to_string(), user_owned: true },
        GeneratedFile { path: "src/handlers.rs".into(), contents: handlers::handlers_rs(&typed)?, user_owned: true },
    ];
    files.extend(typed::files(version, &typed)?);
    if c.runtime == RuntimeSource::Vendored {
        let header = rust::header(version);
        // Only what the crate's features compile: no tests, no file nor dependency of another feature.
        let features: Vec<&str> = c.features.iter().map(|f| f.name()).collect();
        let copies = [(VENDORED_RUNTIME, runtime_crate::sources()), (VENDORED_CONFIG, runtime_crate::config_sources())];
        for (dir, sources) in copies {
            for (name, source) in runtime_crate::vendored(sources, &features) {
                let contents = match name {
                    "Cargo.toml" => runtime_crate::vendored_manifest(&header, source, &features),
                    _ => format!("// {header}\n{}", without_tests(source)),
                };
                files.push(file(&format!("{dir}/{name}"), contents));
            }
        }
    }
    Ok(files)
}

/// Where a crate keeps its copy of the runtime crate.
pub const VENDORED_RUNTIME: &str = "mcpgen-runtime";

/// Where a crate keeps its copy of the contract crate (the runtime's copy depends on it).
pub const VENDORED_CONFIG: &str = "mcpgen-config";

/// Where crates generated before the runtime was a crate of its own kept its source files.
pub const OLD_ENGINE_DIR: &str = "src/runtime";

/// What crates generated before the typed layer had instead of `src/generated/`: the handlers'
/// dispatch, regenerated (removed when its `@generated` line is still there).
pub const OLD_DISPATCH: &str = "src/tools.rs";

/// An engine file without its `#[cfg(test)]` items: a generated crate ships the engine, not
/// mcpgen's tests of it (they use mcpgen's dev-dependencies and files). The items are found in the
/// text, which rustfmt shapes: the attribute alone on a line at column 0, then the item, which
/// ends at its first line that is `}` or that ends with `;` at column 0. Doc comments right above
/// go too. A test checks the result against a parse of every engine file.
pub fn without_tests(source: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    let mut lines = source.lines();
    while let Some(line) = lines.next() {
        if line != "#[cfg(test)]" {
            out.push(line);
            continue;
        }
        while out.last().is_some_and(|l| l.starts_with("///")) {
            out.pop();
        }
        // Further attributes, then the item.
        let mut ended = false;
        for item_line in lines.by_ref() {
            if item_line.starts_with("#[") {
                continue;
            }
            if item_line == "}" || (item_line.ends_with(';') && !item_line.starts_with(' ')) {
                ended = true;
                break;
            }
        }
        if !ended {
            // Not the shape described above: keep the file as it is rather than cut it wrong.
            return source.to_string();
        }
        while out.last().is_some_and(|l| l.trim().is_empty()) {
            out.pop();
        }
    }
    let mut text = out.join("\n");
    text.push('\n');
    text
}

/// The files that are the user's from the first generation on and build on `runtime::ext`.
pub const USER_CODE: [&str; 2] = ["src/hooks.rs", "src/handlers.rs"];

/// The engine modules other than `runtime::ext` that the user's code names (`runtime::hooks`,
/// say): the engine's inside, which changes between mcpgen versions. Comments do not count.
pub fn engine_paths_in(user_code: &str) -> Vec<String> {
    let mut found = std::collections::BTreeSet::new();
    for line in user_code.lines().filter(|l| !l.trim_start().starts_with("//")) {
        for (i, _) in line.match_indices("runtime::") {
            let rest = &line[i + "runtime::".len()..];
            let module: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            if !module.is_empty() && module != "ext" {
                found.insert(format!("runtime::{module}"));
            }
        }
    }
    found.into_iter().collect()
}

/// The credential env vars, for the binary's `--help`.
fn credentials_help(config: &RuntimeConfig) -> String {
    let vars = env_vars(config);
    if vars.is_empty() {
        return String::new();
    }
    let width = vars.iter().map(|v| v.name.len()).max().unwrap_or(0);
    let mut text = String::from("Credentials (environment variables, or a .env file in the working directory):");
    for v in vars {
        text.push_str(&format!("\n  {:<width$}  {}", v.name, v.about));
    }
    text
}

fn env_vars(config: &RuntimeConfig) -> Vec<EnvVar> {
    let mut out = Vec::new();
    for (scheme, s) in &config.security_schemes {
        out.extend(
            s.describe_env_vars()
                .into_iter()
                .map(|(name, what)| EnvVar { name: name.to_string(), about: format!("{what} ({scheme})") }),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_names() {
        assert_eq!(default_package_name("Swagger Petstore - OpenAPI 3.0"), "swagger-petstore-openapi-3-0-mcp");
        assert_eq!(default_package_name("1Password Connect"), "api-1password-connect-mcp");
        assert_eq!(default_package_name("日本"), "api-mcp");
        let github = "GitHub's official OpenAPI spec + Octokit extension";
        assert_eq!(default_crate_name(github, "/corpus/api.github.com.json"), "github-mcp");
        assert_eq!(default_crate_name("Swagger Petstore", "x/petstore.yaml"), "swagger-petstore-mcp");
        assert_eq!(default_crate_name(github, "https://example.com/v3/openapi.json"), default_package_name(github));
        assert_eq!(default_crate_name(github, "stripe-v1.yaml"), "stripe-mcp");
        assert!(check_package_name("bench-server").is_ok());
        for bad in ["fn", "1abc", "a b", "self", "", "test"] {
            assert!(check_package_name(bad).is_err(), "{bad}");
        }
    }

    /// The generated Cargo.toml's own dependencies have the versions the runtime is built with.
    #[test]
    fn dependencies_match_the_runtime() {
        let ours = include_str!("../../runtime/Cargo.toml");
        for dep in DEPENDENCIES {
            let name = dep.split(' ').next().unwrap();
            let line = ours
                .lines()
                .find(|l| l.starts_with(&format!("{name} = ")))
                .unwrap_or_else(|| panic!("{name} not in runtime/Cargo.toml"));
            let version = |l: &str| {
                l.split("version = \"")
                    .nth(1)
                    .or_else(|| l.split("= \"").nth(1))
                    .and_then(|v| v.split('"').next())
                    .map(str::to_string)
            };
            assert_eq!(version(line), version(dep), "{name}");
        }
    }

    /// Without a server in the API description, the README says where the URL comes from.
    #[test]
    fn readme_without_a_server() {
        let spec = "openapi: 3.0.3\ninfo: {title: T, version: '1'}\npaths:\n  /a: {get: {responses: {'200': {description: ok}}}}\n";
        let p = crate::pipeline::run_str(spec, "t.yaml", &Default::default()).unwrap();
        assert_eq!(p.tools.config.upstream.base_url, None);
        let c = CrateSpec {
            package: "t-mcp".into(),
            spec: "t.yaml",
            config: &p.tools.config,
            runtime: RuntimeSource::Vendored,
            features: Vec::new(),
            manifest: String::new(),
            rust: Default::default(),
            named: Default::default(),
            typed_args: Default::default(),
        };
        let files = crate_files(&c).unwrap();
        let readme = &files.iter().find(|f| f.path == "README.md").unwrap().contents;
        assert!(
            readme
                .contains("that call the API at the URL given with `--base-url` (the API description names no server)"),
            "{readme}"
        );
        assert!(readme.contains("`--base-url URL` (required: the API description names no server)"), "{readme}");
        assert!(!readme.contains("(set with"), "{readme}");
    }

    /// The engine files without tests are the files' items but the `#[cfg(test)]` ones, exactly.
    #[test]
    fn engine_sources_ship_without_tests() {
        use quote::ToTokens;
        let is_test = |item: &syn::Item| {
            let attrs = match item {
                syn::Item::Mod(m) => &m.attrs,
                syn::Item::Fn(f) => &f.attrs,
                syn::Item::Use(u) => &u.attrs,
                syn::Item::Const(c) => &c.attrs,
                syn::Item::Struct(s) => &s.attrs,
                syn::Item::Impl(i) => &i.attrs,
                syn::Item::Enum(e) => &e.attrs,
                syn::Item::Static(s) => &s.attrs,
                syn::Item::Trait(t) => &t.attrs,
                syn::Item::Type(t) => &t.attrs,
                syn::Item::Macro(m) => &m.attrs,
                _ => return false,
            };
            attrs.iter().any(|a| a.to_token_stream().to_string() == "# [cfg (test)]")
        };
        let items = |file: &syn::File, skip_tests: bool| -> Vec<String> {
            file.items.iter().filter(|i| !(skip_tests && is_test(i))).map(|i| i.to_token_stream().to_string()).collect()
        };
        let mut removed = 0;
        let sources = runtime_crate::sources().iter().chain(runtime_crate::config_sources());
        for (name, source) in sources.filter(|(n, _)| n.ends_with(".rs")) {
            let stripped = without_tests(source);
            assert!(!stripped.contains("cfg(test)"), "{name}");
            assert!(stripped.ends_with("}\n") || stripped.ends_with(";\n"), "{name}");
            let original: syn::File = syn::parse_str(source).unwrap();
            let shipped: syn::File = syn::parse_str(&stripped).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(items(&shipped, false), items(&original, true), "{name}");
            removed += original.items.len() - shipped.items.len();
        }
        assert!(removed >= 10, "the engine's test modules are removed");
        let text = "fn a() {}\n\n/// Doc.\n#[cfg(test)]\n#[allow(unused)]\nuse b;\n\n#[cfg(test)]\nmod tests {\n    fn t() {\n    }\n}\n";
        assert_eq!(without_tests(text), "fn a() {}\n");
        let odd = "fn a() {}\n#[cfg(test)]\nmod tests {\n  }";
        assert_eq!(without_tests(odd), odd, "kept as is when the item's end is not found");
    }

    #[test]
    fn user_code_on_the_engines_inside() {
        let old = "//! Uses crate::runtime::hooks.\nuse crate::runtime::hooks::not_implemented;\nimpl crate::runtime::hooks::Hooks for H {}\nuse crate::runtime::{ext, request::PreparedRequest};\nuse mcpgen_runtime::ext::Error;\n";
        assert_eq!(engine_paths_in(old), ["runtime::hooks"], "comments and `runtime::{{` lists aside");
        assert!(engine_paths_in(templates::HOOKS_RS).is_empty());
        let p = crate::pipeline::run("samples/openai-functions.json", &Default::default()).unwrap();
        let none = Default::default();
        let spec = TypedSpec { config: &p.tools.config, rust: &none, named: &none, which: Default::default() };
        assert!(engine_paths_in(&handlers::handlers_rs(&spec).unwrap()).is_empty());
    }
}
