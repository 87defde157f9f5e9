//! `mcpgen generate` (and the shorthand `mcpgen SPEC`): a ready-to-build Rust MCP server crate.

use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;
use clap::builder::TypedValueParser;

use super::{InputArgs, StrictArg};
use crate::error::Result;
use crate::generate::{self, CrateSpec, manifest};
use mcpgen_config::RuntimeConfig;
use mcpgen_config::features::FEATURES;
use mcpgen_config::text::human_bytes;

pub(super) const EXAMPLES: &str = "\
Examples:
  mcpgen openapi.yaml                                 the same as `mcpgen generate openapi.yaml`
  mcpgen generate openapi.yaml -o petstore-mcp --name petstore-mcp
  mcpgen generate openapi.yaml -o petstore-mcp --force   regenerate; src/hooks.rs is kept
  mcpgen generate openapi.yaml --with oauth,metrics      more of the runtime than the API needs
  mcpgen generate openapi.yaml --runtime registry        depend on the published mcpgen-runtime
  mcpgen generate petstore.mcp.json -o petstore-mcp      from a runtime config (edited, say)
  mcpgen generate apis.yaml -o apis-mcp                  several APIs (a multi-API file)
Then: cd petstore-mcp && cargo build --release";

#[derive(Debug, Args)]
pub(crate) struct GenerateArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// More APIs for the same crate, each one's tools prefixed (`github_`, `stripe_`): API
    /// descriptions, runtime configs, or multi-API files (`mcpgen_apis:`, per-API options).
    #[arg(value_name = "SPEC")]
    pub more: Vec<String>,

    #[command(flatten)]
    pub warnings: StrictArg,

    /// Directory to write the crate to [default: ./<name>].
    #[arg(short, long, value_name = "DIR")]
    pub output: Option<PathBuf>,

    /// Crate (and binary) name [default: from the API title, e.g. swagger-petstore-mcp].
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,

    #[command(flatten)]
    pub context: crate::runtime::cli::ContextArgs,

    /// `--upstream-auth` and its modes' flags, recorded as the config's `upstream.auth`.
    #[command(flatten)]
    pub identity: crate::runtime::cli::UpstreamAuthArgs,

    /// Build the crate with more of the runtime than its config needs (repeatable, or
    /// comma-separated): discovery, semantic (search by meaning), oauth, metrics, legacy-sse,
    /// redis-store (--upstream-auth user's tokens on Redis/Valkey). Discovery comes by itself when
    /// the tool mode can pick it, semantic with --search-model; Streamable HTTP is always there.
    #[arg(long = "with", value_parser = feature_values(), value_delimiter = ',', value_name = "FEATURE")]
    pub with: Vec<generate::Feature>,

    /// Where the crate gets mcpgen's engine: a copy in mcpgen-runtime/ (builds from crates.io
    /// alone), or the published mcpgen-runtime (for a crate you publish).
    #[arg(long, value_enum, value_name = "SOURCE", default_value = "vendored")]
    pub runtime: RuntimeArg,

    /// Which tools get typed arguments (and an `Api` method of their own) in src/generated/:
    /// every tool of an API of up to 200, else those mcpgen.toml names (`auto`); `all`; or only
    /// those mcpgen.toml names (`named`). Every tool keeps its `Tool` variant and `Api::call`.
    #[arg(long, value_enum, value_name = "WHICH", default_value = "auto")]
    pub typed_args: generate::typed::TypedArgs,

    /// Regenerate into a non-empty directory: generated files are replaced, src/hooks.rs and files
    /// whose @generated line was removed are kept.
    #[arg(long)]
    pub force: bool,
}

/// `--with`'s values: the features of mcpgen-runtime the contract's table offers, in its order,
/// each with what it does.
fn feature_values() -> impl TypedValueParser<Value = generate::Feature> {
    use clap::builder::{PossibleValue, PossibleValuesParser};
    let offered = FEATURES.iter().filter(|f| f.offered);
    let values = offered.map(|f| PossibleValue::new(f.name).help(f.what));
    // The parser lets through only the names it lists, each of which the table has.
    PossibleValuesParser::new(values)
        .map(|name| generate::Feature::from_name(&name).expect("--with offers the table's names"))
}

/// `--runtime`: where the crate gets the runtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum RuntimeArg {
    /// A copy in mcpgen-runtime/, a path dependency.
    Vendored,
    /// mcpgen-runtime from crates.io, pinned to this mcpgen's version.
    Registry,
}

/// A crate generated before the runtime was a crate of its own has the engine's files in
/// `src/runtime/`: removes those that mcpgen wrote (their `@generated` line is there), and the
/// folder when nothing else is left in it. Returns how many went.
fn remove_old_engine(dir: &std::path::Path) -> usize {
    let old = dir.join(generate::OLD_ENGINE_DIR);
    let Ok(entries) = std::fs::read_dir(&old) else { return 0 };
    let mut removed = 0;
    for e in entries.flatten() {
        let path = e.path();
        let ours = std::fs::read_to_string(&path).is_ok_and(|t| t.starts_with("// @generated by mcpgen"));
        if ours && std::fs::remove_file(&path).is_ok() {
            removed += 1;
        }
    }
    let _ = std::fs::remove_dir(&old);
    removed
}

/// Removes the files of the copies of the runtime and of the contract that mcpgen wrote (their
/// `@generated` line is there) and no longer writes: those of a feature the crate has lost, the
/// tests older versions copied, the whole copy with `--runtime registry`. Empty folders go too.
/// Returns how many files went.
fn remove_stale_copies(dir: &Path, files: &[generate::GeneratedFile]) -> usize {
    let mut removed = 0;
    for copy in [generate::VENDORED_RUNTIME, generate::VENDORED_CONFIG] {
        let mut stack = vec![dir.join(copy)];
        let mut dirs = Vec::new();
        while let Some(d) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&d) else { continue };
            dirs.push(d);
            for e in entries.flatten() {
                let path = e.path();
                if path.is_dir() {
                    stack.push(path);
                    continue;
                }
                let rel = path.strip_prefix(dir).ok().and_then(|p| p.to_str()).map(|p| p.replace('\\', "/"));
                let written = rel.is_some_and(|rel| files.iter().any(|f| f.path == rel));
                let ours = std::fs::read_to_string(&path)
                    .is_ok_and(|t| t.starts_with("// @generated by mcpgen") || t.starts_with("# @generated by mcpgen"));
                if !written && ours && std::fs::remove_file(&path).is_ok() {
                    removed += 1;
                }
            }
        }
        // Deepest first: a folder is removed only once it is empty.
        for d in dirs.iter().rev() {
            let _ = std::fs::remove_dir(d);
        }
    }
    removed
}

/// A crate generated before the typed layer has the handlers' dispatch in `src/tools.rs`: removes
/// it when mcpgen wrote it (its `@generated` line is there). Returns 1 when it went.
fn remove_old_dispatch(dir: &Path) -> usize {
    let path = dir.join(generate::OLD_DISPATCH);
    let ours = std::fs::read_to_string(&path).is_ok_and(|t| t.starts_with("//! @generated by mcpgen"));
    usize::from(ours && std::fs::remove_file(&path).is_ok())
}

pub(super) fn run(args: &GenerateArgs, matches: Option<&clap::ArgMatches>) -> Result<()> {
    let started = Instant::now();
    // Whatever `serve` takes: its catalogue is the config `serve` would run.
    let inputs = super::open(&args.input, &args.more, args.warnings.strict)?;
    let from_config = matches!(inputs.source, crate::merge::Source::Config { .. });
    let fresh = crate_config(args, inputs.source.into_config())?;
    let title = fresh.server.title.clone().unwrap_or_else(|| fresh.server.name.clone());
    let package = args.name.clone().unwrap_or_else(|| generate::default_crate_name(&title, &args.input.spec));
    generate::check_package_name(&package)?;
    let dir = args.output.clone().unwrap_or_else(|| PathBuf::from(&package));
    let owned = Owned::read(&dir, &fresh)?;
    let mut config = fresh;
    let rust = manifest::apply(&mut config, &owned.manifest.tools, &owned.renamed)
        .map_err(|e| owned.with_stale_code(e, &dir, &config))?;
    crate::tokens::measure(&mut config);
    let specs = args.input.specs(&args.more);
    let recipe = manifest::Recipe {
        inputs: specs.iter().map(|s| spec_from(&dir, s)).collect(),
        options: recorded(matches, &dir, &package),
    };
    let features = generate::features_for(&config, &args.with);
    let runtime = match args.runtime {
        RuntimeArg::Vendored => generate::RuntimeSource::Vendored,
        RuntimeArg::Registry => generate::RuntimeSource::Registry,
    };
    let files = generate::crate_files(&CrateSpec {
        package: package.clone(),
        spec: &inputs.origin,
        config: &config,
        runtime,
        features: features.clone(),
        manifest: owned.manifest_text(&recipe)?,
        rust: rust.clone(),
        named: owned.named(&config),
        typed_args: args.typed_args,
    })?;
    let report = generate::write_crate(&dir, &files, args.force)?;
    let moved = remove_old_engine(&dir);
    let stale = remove_stale_copies(&dir, &files);
    if remove_old_dispatch(&dir) > 0 {
        eprintln!("note: {} was removed: the handlers' dispatch is in src/generated/ now", generate::OLD_DISPATCH);
    }
    say_written(&package, &config, &dir, started, &files, &report, &features);
    if stale > 0 {
        eprintln!("  removed {stale} files of the runtime's copy that the crate no longer compiles");
    }
    owned.say_changes(&dir, &config);
    say_what_is_left(&dir, &config, &rust, args.typed_args, &report, moved, from_config);
    let d = dir.display();
    let cd = if dir == Path::new(".") { String::new() } else { format!("cd {d} && ") };
    eprintln!("\nnext:\n  {cd}cargo build --release\n  ./target/release/{package} --help");
    eprintln!("  connect a client: see {d}/README.md (Claude Desktop, Claude Code, Cursor, VS Code)");
    Ok(())
}

/// The options to record: the command line's, and the crate's name when it came from the title
/// (so that a new title does not rename the crate).
fn recorded(matches: Option<&clap::ArgMatches>, dir: &Path, package: &str) -> Vec<String> {
    let implied = [("name", package.to_string())];
    matches.map(|m| super::recipe::recorded_options(m, dir, &implied)).unwrap_or_default()
}

/// What the crate in `dir` already has that is its owner's: `mcpgen.toml`, and the catalogue of
/// the last generation (for the tool diff and the renames).
struct Owned {
    manifest: manifest::Manifest,
    /// `mcpgen.toml`'s text, when there is one.
    text: Option<String>,
    last: Option<RuntimeConfig>,
    /// The last generation's tool names the API now gives another (old name to new).
    renamed: std::collections::BTreeMap<String, String>,
}

impl Owned {
    fn read(dir: &Path, fresh: &RuntimeConfig) -> Result<Owned> {
        let text = std::fs::read_to_string(dir.join(manifest::FILE)).ok();
        let manifest = match &text {
            Some(t) => manifest::parse(t, &dir.join(manifest::FILE).display().to_string())?,
            None => manifest::Manifest::default(),
        };
        let last = generate::regenerate::last_state(dir);
        let renamed = last.as_ref().map(|old| generate::regenerate::renamed(old, fresh)).unwrap_or_default();
        Ok(Owned { manifest, text, last, renamed })
    }

    /// `mcpgen.toml` as it is to be written: the existing one with this run's recipe (its user's
    /// tables and comments kept), or a new one.
    fn manifest_text(&self, recipe: &manifest::Recipe) -> Result<String> {
        Ok(match &self.text {
            Some(text) => manifest::with_recipe(text, recipe)?.unwrap_or_else(|| text.clone()),
            None => manifest::new_text(recipe),
        })
    }

    /// The tools `mcpgen.toml` names, by their final names (typed in any API).
    fn named(&self, config: &RuntimeConfig) -> std::collections::BTreeSet<String> {
        let names = self.manifest.tools.iter().map(|(k, o)| o.name.clone().unwrap_or_else(|| k.clone()));
        names.filter(|n| config.tools.iter().any(|t| t.name == *n)).collect()
    }

    /// `e` (overrides that do not fit the API) with the places in the user's code that name the
    /// tools it is about.
    fn with_stale_code(&self, e: crate::error::Error, dir: &Path, fresh: &RuntimeConfig) -> crate::error::Error {
        let Some(last) = &self.last else { return e };
        let stale = generate::regenerate::stale_variants(dir, last, fresh);
        if stale.is_empty() {
            return e;
        }
        crate::error::Error::Usage {
            message: format!("{e}\nyour code names tools that change:\n  {}", stale.join("\n  ")),
        }
    }

    /// The tool diff from the last generation, and the user's code that will not build.
    fn say_changes(&self, dir: &Path, config: &RuntimeConfig) {
        let Some(last) = &self.last else { return };
        let report = generate::regenerate::report(last, config);
        if !report.is_empty() {
            eprintln!("\n{report}");
        }
        let stale = generate::regenerate::stale_variants(dir, last, config);
        if !stale.is_empty() {
            eprintln!("\nyour code names tools this crate no longer has (cargo build will fail there):");
            for s in stale {
                eprintln!("  {s}");
            }
        }
        let unwired = generate::regenerate::unwired(dir);
        if !unwired.is_empty() {
            eprintln!("\nyour files no longer wire in the generated code (cargo build will fail there):");
            for u in unwired {
                eprintln!("  {u}");
            }
        }
    }
}

/// The config the crate is made from: the one `serve` would run, with the context and
/// `--upstream-auth` flags applied (then `mcpgen.toml`'s overrides, and what listing its tools
/// costs is recorded, so that `auto` decides on real counts in the crate too).
fn crate_config(args: &GenerateArgs, mut config: RuntimeConfig) -> Result<RuntimeConfig> {
    args.context.apply(&mut config.context);
    if let Some(identity) =
        args.identity.identity().map_err(|e| crate::error::Error::Usage { message: e.to_string() })?
    {
        config.upstream.auth = Some(identity);
    }
    Ok(config)
}

/// What was written where, on stderr: the one thing a user checks after a run (and the files a
/// regeneration kept as theirs).
fn say_written(
    package: &str,
    config: &RuntimeConfig,
    dir: &Path,
    started: Instant,
    files: &[generate::GeneratedFile],
    report: &generate::WriteReport,
    features: &[generate::Feature],
) {
    let bytes: usize = files.iter().map(|f| f.contents.len()).sum();
    eprintln!(
        "generated {} ({} tools) in {} in {:.2} s: {} files, {}",
        package,
        config.tools.len(),
        dir.display(),
        started.elapsed().as_secs_f64(),
        report.written.len(),
        human_bytes(bytes)
    );
    for f in &report.written {
        eprintln!("  wrote {f}");
    }
    for f in &report.kept {
        eprintln!("  kept  {f} (yours)");
    }
    let names: Vec<&str> = features.iter().map(|f| f.name()).collect();
    eprintln!(
        "  runtime features: {}",
        if names.is_empty() { "none beyond the core (stdio)".to_string() } else { names.join(", ") }
    );
}

/// What the user has to do before the crate serves every tool: the engine's old directory that
/// was removed, handlers a kept `src/handlers.rs` lacks, kept code on the engine's inside, tools
/// with no HTTP binding. Each is a note, never an error: the crate was written.
fn say_what_is_left(
    dir: &Path,
    config: &RuntimeConfig,
    rust: &std::collections::BTreeSet<String>,
    which: generate::typed::TypedArgs,
    report: &generate::WriteReport,
    moved: usize,
    from_config: bool,
) {
    if moved > 0 {
        eprintln!(
            "note: the engine moved from {old}/ to a crate of its own, mcpgen-runtime ({moved} files of {old}/ removed); \
             src/lib.rs re-exports it as `runtime`, so code on `crate::runtime::ext` still builds, and new code uses `mcpgen_runtime::ext`",
            old = generate::OLD_ENGINE_DIR
        );
    }
    let handlers_kept = report.kept.iter().any(|f| f == "src/handlers.rs");
    if handlers_kept {
        let existing = std::fs::read_to_string(dir.join("src/handlers.rs")).unwrap_or_default();
        let none = std::collections::BTreeSet::new();
        let spec = generate::TypedSpec { config, rust, named: &none, which };
        let missing = generate::missing_handlers(&existing, &spec);
        if !missing.is_empty() {
            eprintln!("\nsrc/handlers.rs needs a method in `impl RustTools for Handlers` for each new Rust tool:");
            for m in &missing {
                eprintln!("  {m}");
            }
        }
    }
    for f in report.kept.iter().filter(|f| generate::USER_CODE.contains(&f.as_str())) {
        let code = std::fs::read_to_string(dir.join(f)).unwrap_or_default();
        let inside = generate::engine_paths_in(&code);
        if !inside.is_empty() {
            eprintln!(
                "\nnote: {f} uses {}, the engine's inside, which changes between mcpgen versions: \
                 build on mcpgen_runtime::ext instead (see mcpgen-runtime/src/ext.rs)",
                inside.join(", ")
            );
        }
    }
    let handlers = config.unbound_tools().count();
    if handlers > 0 && !handlers_kept {
        let or = if from_config {
            "or give them an `http` binding in the config and regenerate"
        } else {
            "or regenerate with --forward-url URL or --bindings FILE"
        };
        eprintln!(
            "\n{handlers} tools have no HTTP binding: write them in src/handlers.rs (each answers \"not implemented yet\" until then), {or}"
        );
    }
}

/// The input as named from inside the crate's directory, so that the regenerate command in its
/// README works there: a URL or `-` as it is, a file relative to the crate (absolute when that
/// would climb far).
pub(super) fn spec_from(dir: &Path, spec: &str) -> String {
    if !crate::load::names_a_file(spec) {
        return spec.to_string();
    }
    let absolute = |p: &std::path::Path| std::path::absolute(p).ok();
    let (Some(file), Some(dir)) = (absolute(std::path::Path::new(spec)), absolute(dir)) else {
        return spec.to_string();
    };
    let common = file.components().zip(dir.components()).take_while(|(a, b)| a == b).count();
    let ups = dir.components().count() - common;
    if ups > 3 {
        return file.display().to_string();
    }
    let mut rel = std::path::PathBuf::new();
    for _ in 0..ups {
        rel.push("..");
    }
    rel.extend(file.components().skip(common));
    rel.display().to_string()
}
