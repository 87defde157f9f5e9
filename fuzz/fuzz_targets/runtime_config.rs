//! A runtime config from arbitrary bytes: it is refused or an engine is built from it, never a
//! panic.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcpgen_fuzz::runtime_config(data));
