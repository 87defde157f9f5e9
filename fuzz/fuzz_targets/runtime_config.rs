//! A runtime config from arbitrary bytes: it is refused or an engine is built from it, never a
//! panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpgen::runtime::config::RuntimeConfig;
use mcpgen::runtime::{Engine, EngineOptions};

fuzz_target!(|data: &[u8]| {
    let Ok(config) = serde_json::from_slice::<RuntimeConfig>(data) else { return };
    let _ = Engine::new(config, EngineOptions::default());
});
