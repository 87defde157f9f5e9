//! `mcpgen serve`: an API description or runtime config served as a live MCP proxy.

use std::sync::Arc;

use clap::Args;

use super::InputArgs;
use crate::error::{Error, Location, Result};
use crate::pipeline;
use crate::runtime::cli::{ServerArgs, Transport};
use crate::runtime::hooks::NoHooks;

pub const EXAMPLES: &str = "\
Examples:
  mcpgen serve openapi.yaml                                   stdio, for Claude Desktop / Cursor / VS Code
  mcpgen serve openapi.yaml --transport http --bind 127.0.0.1:8080
  mcpgen serve petstore.mcp.json --base-url http://localhost:4010 --header 'X-Tenant: acme'
  SWAGGER_PETSTORE_API_KEY=... mcpgen serve openapi.yaml      credentials come from env vars (see `mcpgen inspect`)";

#[derive(Debug, Args)]
pub struct ServeArgs {
    #[command(flatten)]
    pub input: InputArgs,

    #[command(flatten)]
    pub server: ServerArgs,
}

fn invalid(spec: &str, message: String) -> Error {
    Error::Invalid { location: Location::doc(spec), message }
}

pub fn run(args: &ServeArgs) -> Result<()> {
    let spec = &args.input.spec;
    if spec == "-" && args.server.transport == Transport::Stdio {
        return Err(invalid(
            spec,
            "cannot read the API from stdin and serve MCP over stdin: pass a file or URL".into(),
        ));
    }
    let config = match super::config::read_if_config(spec)? {
        Some(c) => c,
        None => {
            let p = pipeline::run(spec, &args.input.pipeline_options())?;
            super::report_warnings(&p);
            let config = p.tools.config;
            crate::mem::drop_in_background(p.ir);
            config
        }
    };
    let base_url = args.input.base_url.clone();
    crate::runtime::cli::run(config, base_url, &args.server, Arc::new(NoHooks)).map_err(|m| invalid(spec, m))
}
