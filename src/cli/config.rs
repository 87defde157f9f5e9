//! `mcpgen config`: writes the runtime config that `mcpgen serve` runs.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;

use super::{InputArgs, StrictArg};
use crate::error::{Error, Location, Result};
use crate::pipeline;
use crate::runtime::model::RuntimeConfig;

pub const EXAMPLES: &str = "\
Examples:
  mcpgen config openapi.yaml -o petstore.mcp.json       then: mcpgen serve petstore.mcp.json
  mcpgen config openapi.yaml -o petstore.mcp.yaml       YAML, by extension
  mcpgen config https://example.com/openapi.json --include-tag pets > pets.json";

#[derive(Debug, Args)]
pub struct ConfigArgs {
    #[command(flatten)]
    pub input: InputArgs,

    #[command(flatten)]
    pub warnings: StrictArg,

    /// Write to FILE (JSON, or YAML for .yaml/.yml) instead of stdout. Written atomically.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Upstream request timeout to record in the config, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    pub timeout: f64,

    /// Response size cap to record in the config.
    #[arg(long, value_name = "BYTES", default_value_t = 1024 * 1024)]
    pub max_response_bytes: u64,
}

pub fn run(args: &ConfigArgs) -> Result<()> {
    let p = pipeline::run(&args.input.spec, &args.input.pipeline_options(args.warnings.strict)?)?;
    super::report_warnings(&p);
    let mut config = p.tools.config;
    let unbound = config.tools.iter().filter(|t| t.http.is_none()).count();
    if unbound > 0 {
        eprintln!(
            "note: {unbound} tools have no HTTP binding: `mcpgen serve` cannot call them; pass --forward-url URL or --bindings FILE"
        );
    }
    config.limits.timeout_secs = args.timeout;
    config.limits.max_response_bytes = args.max_response_bytes;
    match &args.output {
        None => {
            let text = to_json(&config);
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes()).map_err(|e| write_error(Path::new("<stdout>"), e))?;
        }
        Some(path) => {
            let text = if is_yaml(path) {
                serde_yaml::to_string(&config).map_err(|e| Error::Invalid {
                    location: Location::doc(path.display().to_string()),
                    message: e.to_string(),
                })?
            } else {
                to_json(&config)
            };
            write_atomically(path, text.as_bytes())?;
            eprintln!(
                "wrote {} ({} tools); serve it with: mcpgen serve {}",
                path.display(),
                config.tools.len(),
                path.display()
            );
        }
    }
    Ok(())
}

fn to_json(config: &RuntimeConfig) -> String {
    let mut s = serde_json::to_string_pretty(config).unwrap_or_default();
    s.push('\n');
    s
}

pub(super) fn is_yaml(path: &Path) -> bool {
    matches!(path.extension().and_then(|e| e.to_str()), Some("yaml" | "yml"))
}

fn write_error(path: &Path, e: std::io::Error) -> Error {
    Error::Read { location: Location::doc(path.display().to_string()), message: format!("cannot write: {e}") }
}

/// Writes to a temporary file beside `path`, then renames it: a failure leaves nothing half-written.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("out");
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, path));
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(write_error(path, e));
    }
    Ok(())
}

/// Reads a runtime config when `spec` is one (its text starts with the `mcpgen_config` key).
pub fn read_if_config(spec: &str) -> Result<Option<RuntimeConfig>> {
    if spec == "-" || spec.starts_with("http://") || spec.starts_with("https://") {
        return Ok(None);
    }
    let Ok(mut file) = std::fs::File::open(spec) else { return Ok(None) };
    let mut head = [0u8; 256];
    let n = std::io::Read::read(&mut file, &mut head).unwrap_or(0);
    if !String::from_utf8_lossy(&head[..n]).contains("mcpgen_config") {
        return Ok(None);
    }
    let bytes = crate::load::read_file(Path::new(spec), spec)?;
    let value = crate::load::parse_document(&bytes, spec)?;
    let config: RuntimeConfig = serde_json::from_value(value).map_err(|e| Error::Invalid {
        location: Location::doc(spec),
        message: format!("not a valid mcpgen runtime config: {e}"),
    })?;
    if config.mcpgen_config != crate::runtime::model::CONFIG_FORMAT_VERSION {
        return Err(Error::Invalid {
            location: Location::at_pointer(spec, "#/mcpgen_config"),
            message: format!(
                "config format {} is not supported by this mcpgen (it reads {}); regenerate it with `mcpgen config`",
                config.mcpgen_config,
                crate::runtime::model::CONFIG_FORMAT_VERSION
            ),
        });
    }
    Ok(Some(config))
}
