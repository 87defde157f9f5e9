//! `mcpgen config`: writes the runtime config that `mcpgen serve` runs, `$schema` first.

use std::path::PathBuf;

use clap::Args;
use serde::Serialize;

use super::{InputArgs, StrictArg, output};
use crate::error::{Error, Result};
use mcpgen_config::{RuntimeConfig, SCHEMA_ID};

pub(super) const EXAMPLES: &str = "\
Examples:
  mcpgen config openapi.yaml -o petstore.mcp.json       then: mcpgen serve petstore.mcp.json
  mcpgen config openapi.yaml -o petstore.mcp.yaml       YAML, by extension
  mcpgen config https://example.com/openapi.json --include-tag pets > pets.json
  mcpgen config github.json --tool-mode discovery --pin-tool 'repos_get' -o github.mcp.json
  mcpgen config github.json stripe.yaml -o both.mcp.json   two APIs in one config
  mcpgen config apis.yaml -o both.mcp.json              a multi-API file, per-API options
  mcpgen config petstore.mcp.json --include-tag pets -o pets.mcp.yaml   a config, filtered";

#[derive(Debug, Args)]
pub(crate) struct ConfigArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// More APIs for the same config, each one's tools prefixed (`github_`, `stripe_`): API
    /// descriptions, runtime configs, or multi-API files (`mcpgen_apis:`, per-API options).
    #[arg(value_name = "SPEC")]
    pub more: Vec<String>,

    #[command(flatten)]
    pub warnings: StrictArg,

    /// Write to FILE (JSON, or YAML for .yaml/.yml) instead of stdout. Written atomically.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Upstream request timeout to record in the config, in seconds [default: 30, or the config's].
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,

    /// Response size cap to record in the config [default: 1048576, or the config's].
    #[arg(long, value_name = "BYTES")]
    pub max_response_bytes: Option<u64>,

    #[command(flatten)]
    pub context: crate::runtime::cli::ContextArgs,

    /// `--upstream-auth` and its modes' flags, recorded as the config's `upstream.auth`.
    #[command(flatten)]
    pub identity: crate::runtime::cli::UpstreamAuthArgs,

    #[command(flatten)]
    pub resources: crate::runtime::cli::ResourceArgs,
}

pub(super) fn run(args: &ConfigArgs) -> Result<()> {
    let inputs = super::open(&args.input, &args.more, args.warnings.strict)?;
    let given = matches!(inputs.source, crate::merge::Source::Config { kind: crate::merge::ConfigKind::Given, .. });
    let mut config = inputs.source.into_config();
    let unbound = config.unbound_tools().count();
    if unbound > 0 {
        eprintln!(
            "note: {unbound} tools have no HTTP binding: `mcpgen serve` cannot call them; pass --forward-url URL or --bindings FILE"
        );
    }
    // A runtime config keeps its own limits but for the flags given.
    config.limits.timeout_secs = args.timeout.unwrap_or(if given { config.limits.timeout_secs } else { 30.0 });
    config.limits.max_response_bytes =
        args.max_response_bytes.unwrap_or(if given { config.limits.max_response_bytes } else { 1024 * 1024 });
    args.context.apply(&mut config.context);
    args.resources.apply(&mut config.resources);
    if let Some(identity) =
        args.identity.identity().map_err(|e| crate::error::Error::Usage { message: e.to_string() })?
    {
        config.upstream.auth = Some(identity);
    }
    crate::tokens::measure(&mut config);
    // Written in the current format: each definition the tools share kept once.
    let config = config.into_stored();
    let path = args.output.as_deref();
    let text = render(&config, path.is_some_and(output::is_yaml), &args.input.spec)?;
    output::write(path, &text)?;
    if let Some(path) = path {
        let p = path.display();
        eprintln!("wrote {p} ({} tools); serve it with: mcpgen serve {p}", config.tools.len());
    }
    Ok(())
}

/// The config as JSON or YAML with `"$schema"` first: the `$id` of the format's JSON Schema
/// (`config/schema/mcpgen-config.schema.json`), for editors to check hand edits. Loading skips
/// the key.
fn render(config: &RuntimeConfig, yaml: bool, origin: &str) -> Result<String> {
    #[derive(Serialize)]
    struct WithSchema<'a> {
        #[serde(rename = "$schema")]
        schema: &'static str,
        #[serde(flatten)]
        config: &'a RuntimeConfig,
    }
    let with_schema = WithSchema { schema: SCHEMA_ID, config };
    if yaml {
        return output::render(&with_schema, true, origin);
    }
    // Indented, each schema on a line of its own (`mcpgen_config::layout`).
    mcpgen_config::layout::to_json_text(&with_schema)
        .map_err(|e| Error::internal(format!("writing {origin} as JSON"), e))
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;
    use crate::pipeline::{self, PipelineOptions};

    /// Petstore, and a larger config with every kind of security scheme, in discovery mode, with
    /// resources and token counts: written with `$schema` first, valid against the committed
    /// schema, and loaded back (skipping `$schema`) as the same config, from JSON and from YAML.
    #[test]
    fn configs_name_their_schema_first_and_validate_against_it() {
        let text = std::fs::read_to_string("config/schema/mcpgen-config.schema.json").unwrap();
        let schema: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(schema["$id"], SCHEMA_ID);
        let validator = jsonschema::validator_for(&schema).unwrap();
        for spec in ["samples/petstore-oas30.json", "samples/security.json", "samples/security-schemes.yaml"] {
            let mut config = pipeline::run(spec, &PipelineOptions::default()).unwrap().tools.config;
            if spec != "samples/petstore-oas30.json" {
                config.context.tool_mode = mcpgen_config::ToolMode::Discovery;
                config.context.pin_tools = vec!["get_*".into()];
                config.resources.route_maps = true;
            }
            crate::tokens::measure(&mut config);
            for yaml in [false, true] {
                let text = render(&config, yaml, spec).unwrap();
                let first = if yaml {
                    format!("$schema: {SCHEMA_ID}\n")
                } else {
                    format!("{{\n  \"$schema\": \"{SCHEMA_ID}\",\n")
                };
                assert!(text.starts_with(&first), "{spec}:\n{}", &text[..200]);
                let value = crate::load::parse_document(text.as_bytes(), "written").unwrap();
                let errors: Vec<String> =
                    validator.iter_errors(&value).map(|e| format!("{}: {e}", e.instance_path())).collect();
                assert!(errors.is_empty(), "{spec} (yaml: {yaml}): {errors:#?}");
                assert_eq!(crate::load::read_config(&value, "written").unwrap(), config, "{spec} (yaml: {yaml})");
            }
        }
    }

    /// Errors about `$schema` and unknown keys keep their JSON pointer.
    #[test]
    fn bad_keys_are_named_where_they_are() {
        let config = pipeline::run("samples/petstore-oas30.json", &PipelineOptions::default()).unwrap().tools.config;
        let text = render(&config, false, "c.json").unwrap();
        let mut value: Value = serde_json::from_str(&text).unwrap();
        value["$schema"] = Value::from(1);
        let e = crate::load::read_config(&value, "c.json").unwrap_err().to_string();
        assert!(e.starts_with("c.json at #/$schema: not a valid mcpgen runtime config: invalid type: integer"), "{e}");
        value["$schema"] = Value::from(SCHEMA_ID);
        value["tols"] = Value::from(Vec::<Value>::new());
        let e = crate::load::read_config(&value, "c.json").unwrap_err().to_string();
        assert!(e.starts_with("c.json at #/tols: not a valid mcpgen runtime config: unknown field `tols`"), "{e}");
    }
}
