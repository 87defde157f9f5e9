//! Load -> normalize -> tools on arbitrary bytes, read as JSON and as YAML: any input gives tools
//! or an error, never a panic.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcpgen_fuzz::pipeline(data));
