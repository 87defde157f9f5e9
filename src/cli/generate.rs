//! `mcpgen generate` (and the shorthand `mcpgen SPEC`): a ready-to-build Rust MCP server crate.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;

use super::{InputArgs, StrictArg};
use crate::error::Result;
use crate::generate::{self, CrateSpec};
use crate::pipeline;

pub(super) const EXAMPLES: &str = "\
Examples:
  mcpgen openapi.yaml                                 the same as `mcpgen generate openapi.yaml`
  mcpgen generate openapi.yaml -o petstore-mcp --name petstore-mcp
  mcpgen generate openapi.yaml -o petstore-mcp --force   regenerate; src/hooks.rs is kept
Then: cd petstore-mcp && cargo build --release";

#[derive(Debug, Args)]
pub(crate) struct GenerateArgs {
    #[command(flatten)]
    pub input: InputArgs,

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

    /// Regenerate into a non-empty directory: generated files are replaced, src/hooks.rs and files
    /// whose @generated line was removed are kept.
    #[arg(long)]
    pub force: bool,
}

pub(super) fn run(args: &GenerateArgs) -> Result<()> {
    let started = Instant::now();
    let spec = &args.input.spec;
    let p = pipeline::run(spec, &args.input.pipeline_options(args.warnings.strict)?)?;
    super::report_warnings(&p);
    let mut config = p.tools.config;
    crate::mem::drop_in_background(p.ir);
    args.context.apply(&mut config.context);
    crate::tokens::measure(&mut config);
    let title = config.server.title.clone().unwrap_or_else(|| config.server.name.clone());
    let package = args.name.clone().unwrap_or_else(|| generate::default_crate_name(&title, spec));
    generate::check_package_name(&package)?;
    let dir = args.output.clone().unwrap_or_else(|| PathBuf::from(&package));
    let spec_from_crate = spec_from(&dir, spec);
    let files = generate::crate_files(&CrateSpec { package: package.clone(), spec, spec_from_crate, config: &config })?;
    let report = generate::write_crate(&dir, &files, args.force)?;
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
                 build on crate::runtime::ext instead (see src/runtime/ext.rs)",
                inside.join(", ")
            );
        }
    }
    let handlers = config.unbound_tools().count();
    if handlers > 0 && !handlers_kept {
        eprintln!(
            "\n{handlers} tools have no HTTP binding: write them in src/handlers.rs (each answers \"not implemented yet\" until then), \
             or regenerate with --forward-url URL or --bindings FILE"
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
