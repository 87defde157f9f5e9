//! What `tools/list` shows, as the engine holds it: the rule is the contract's
//! ([`crate::config::exposure`]); a server built without a feature falls back, or refuses a mode
//! asked for by name.

pub use crate::config::exposure::*;
#[cfg(any(not(feature = "discovery"), not(feature = "code")))]
use crate::config::Context;
#[cfg(not(feature = "discovery"))]
use crate::config::{SchemaDetail, ToolMode};
#[cfg(any(not(feature = "discovery"), not(feature = "code")))]
use crate::error::{Error, Result};

/// The exposure a server built without the `discovery` feature can give: a mode asked for by name
/// needs the feature; one `auto` would choose falls back to every tool with full schemas.
#[cfg(not(feature = "discovery"))]
pub fn without_discovery(exposure: Exposure, ctx: &Context) -> Result<Exposure> {
    if ctx.tool_mode == ToolMode::Discovery {
        return Err(Error::missing_feature("discovery", "--tool-mode discovery"));
    }
    if ctx.schema_detail == SchemaDetail::Compact {
        return Err(Error::missing_feature("discovery", "--schema-detail compact"));
    }
    if !exposure.discovery && !exposure.compact {
        return Ok(exposure);
    }
    let reason = format!(
        "tool mode: all tools, full schemas: {}; this server was built without the `discovery` feature (regenerate with `mcpgen generate --with discovery`)",
        exposure.reason
    );
    Ok(Exposure { discovery: false, code: false, compact: false, reason })
}

/// Code mode and `--run-script` need the `code` feature.
#[cfg(not(feature = "code"))]
pub fn without_code(exposure: Exposure, ctx: &Context) -> Result<Exposure> {
    if exposure.code {
        return Err(Error::missing_feature("code", "--tool-mode code"));
    }
    if ctx.run_script {
        return Err(Error::missing_feature("code", "--run-script"));
    }
    Ok(exposure)
}
