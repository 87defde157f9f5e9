//! `mcpgen generate` (and the shorthand `mcpgen SPEC`): a ready-to-build Rust MCP server crate.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;

use super::{InputArgs, StrictArg};
use crate::error::Result;
use crate::generate::{self, CrateSpec};

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
    #[arg(long = "with", value_enum, value_delimiter = ',', value_name = "FEATURE")]
    pub with: Vec<FeatureArg>,

    /// Where the crate gets mcpgen's engine: a copy in mcpgen-runtime/ (builds from crates.io
    /// alone), or the published mcpgen-runtime (for a crate you publish).
    #[arg(long, value_enum, value_name = "SOURCE", default_value = "vendored")]
    pub runtime: RuntimeArg,

    /// Regenerate into a non-empty directory: generated files are replaced, src/hooks.rs and files
    /// whose @generated line was removed are kept.
    #[arg(long)]
    pub force: bool,
}

/// `--with`: a feature of mcpgen-runtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum FeatureArg {
    /// Discovery mode and compact schemas.
    Discovery,
    /// Search by meaning (candle; --search-model).
    Semantic,
    /// OAuth access tokens on /mcp (--oauth-issuer).
    Oauth,
    /// Prometheus metrics (/metrics, --metrics-bind).
    Metrics,
    /// The 2024-11-05 HTTP+SSE transport (--legacy-sse).
    LegacySse,
    /// Code mode (--tool-mode code, --run-script): run_script's QuickJS sandbox.
    Code,
    /// --upstream-auth user's token store on Redis/Valkey, shared by replicas (--token-store redis://…).
    RedisStore,
}

impl From<FeatureArg> for generate::Feature {
    fn from(f: FeatureArg) -> Self {
        match f {
            FeatureArg::Discovery => generate::Feature::Discovery,
            FeatureArg::Semantic => generate::Feature::Semantic,
            FeatureArg::Oauth => generate::Feature::OAuth,
            FeatureArg::Metrics => generate::Feature::Metrics,
            FeatureArg::LegacySse => generate::Feature::LegacySse,
            FeatureArg::Code => generate::Feature::Code,
            FeatureArg::RedisStore => generate::Feature::RedisStore,
        }
    }
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

pub(super) fn run(args: &GenerateArgs) -> Result<()> {
    let started = Instant::now();
    let spec = &args.input.spec;
    // Whatever `serve` takes: its catalogue is the config `serve` would run.
    let inputs = super::open(&args.input, &args.more, args.warnings.strict)?;
    let specs = args.input.specs(&args.more);
    let from_config = matches!(inputs.source, crate::merge::Source::Config { .. });
    let mut config = inputs.source.into_config();
    args.context.apply(&mut config.context);
    if let Some(identity) =
        args.identity.identity().map_err(|e| crate::error::Error::Usage { message: e.to_string() })?
    {
        config.upstream.auth = Some(identity);
    }
    crate::tokens::measure(&mut config);
    let title = config.server.title.clone().unwrap_or_else(|| config.server.name.clone());
    let package = args.name.clone().unwrap_or_else(|| generate::default_crate_name(&title, spec));
    generate::check_package_name(&package)?;
    let dir = args.output.clone().unwrap_or_else(|| PathBuf::from(&package));
    let spec_from_crate = specs.iter().map(|s| spec_from(&dir, s)).collect::<Vec<_>>().join(" ");
    let asked: Vec<generate::Feature> = args.with.iter().map(|&f| f.into()).collect();
    let features = generate::features_for(&config, &asked);
    let runtime = match args.runtime {
        RuntimeArg::Vendored => generate::RuntimeSource::Vendored,
        RuntimeArg::Registry => generate::RuntimeSource::Registry,
    };
    let files = generate::crate_files(&CrateSpec {
        package: package.clone(),
        spec: &inputs.origin,
        spec_from_crate,
        config: &config,
        runtime,
        features: features.clone(),
    })?;
    let report = generate::write_crate(&dir, &files, args.force)?;
    let moved = remove_old_engine(&dir);
    let handlers_kept = report.kept.iter().any(|f| f == "src/handlers.rs");
    let bytes: usize = files.iter().map(|f| f.contents.len()).sum();
    eprintln!(
        "generated {} ({} tools) in {} in {:.2} s: {} files, {} KB",
        package,
        config.tools.len(),
        dir.display(),
        started.elapsed().as_secs_f64(),
        report.written.len(),
        bytes / 1024
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
    if moved > 0 {
        eprintln!(
            "note: the engine moved from {old}/ to a crate of its own, mcpgen-runtime ({moved} files of {old}/ removed); \
             src/lib.rs re-exports it as `runtime`, so code on `crate::runtime::ext` still builds, and new code uses `mcpgen_runtime::ext`",
            old = generate::OLD_ENGINE_DIR
        );
    }
    if handlers_kept {
        let existing = std::fs::read_to_string(dir.join("src/handlers.rs")).unwrap_or_default();
        let missing = generate::missing_handlers(&existing, &config);
        if !missing.is_empty() {
            eprintln!("\nsrc/handlers.rs needs a function for each new tool (src/tools.rs calls them):");
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
    let d = dir.display();
    eprintln!("\nnext:\n  cd {d} && cargo build --release\n  ./target/release/{package} --help");
    eprintln!("  connect a client: see {d}/README.md (Claude Desktop, Claude Code, Cursor, VS Code)");
    Ok(())
}

/// The input as named from inside the crate's directory, so that the regenerate command in its
/// README works there: a URL or `-` as it is, a file relative to the crate (absolute when that
/// would climb far).
fn spec_from(dir: &std::path::Path, spec: &str) -> String {
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
