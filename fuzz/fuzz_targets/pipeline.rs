//! Load -> normalize -> tools on arbitrary bytes, read as JSON and as YAML: any input gives tools
//! or an error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpgen::pipeline::{self, PipelineOptions};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let opts = PipelineOptions::default();
    let _ = pipeline::run_str(text, "fuzz.json", &opts);
    let _ = pipeline::run_str(text, "fuzz.yaml", &opts);
});
