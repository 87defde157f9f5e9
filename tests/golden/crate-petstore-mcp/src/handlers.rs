//! Your Rust tools: mcpgen creates this file once and never overwrites it.
//!
//! `RustTools` has a method for each tool answered in Rust: those `mcpgen.toml` marks
//! `rust = true` (they replace the API's tool) and those without an HTTP binding. Return
//! `Ok(value)` and the JSON value is the tool's result (`json!` builds one); return
//! `Err(Error::new(message))` and the model sees a tool error (`?` converts reqwest and serde_json
//! errors too). `api` calls the API's tools as a model's call goes (credentials, hooks, retries),
//! the replaced one included, and answers their whole responses; `api.context()` says who called,
//! asks the user and reports progress. `own_tools` adds tools of your own. The argument types are
//! in `src/generated/args.rs`, which mcpgen makes again on each regeneration: a tool the API
//! renames is then a compile error here, not a silent mismatch.
//!
//! Example, a tool that checks a pet exists before deleting it:
//!
//! ```ignore
//! async fn delete_pet(&self, api: Api, args: DeletePetArgs) -> Result<Value, Error> {
//!     api.get_pet_by_id(GetPetByIdArgs { pet_id: args.pet_id }).await?;
//!     api.call(Tool::DeletePet, args).await
//! }
//! ```

#[allow(unused_imports)]
use mcpgen_runtime::ext::{Error, Map, OwnTools, Value, json};

#[allow(unused_imports)]
use crate::generated::{Api, Tool, args::*};

/// This server's Rust tools.
pub struct Handlers;

impl crate::generated::RustTools for Handlers {}

/// Tools of your own, beside the API's: `.tool("name", function)`, the function taking
/// an `Api` and an argument type that derives `serde::Deserialize` and
/// `schemars::JsonSchema` (its doc comment is the tool's description).
pub fn own_tools() -> OwnTools<Api> {
    OwnTools::new()
}
