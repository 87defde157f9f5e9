//! mcpgen's integration tests as one binary: each file of `tests/` but `generate.rs` and
//! `serve_oauth/` is a module here (`cargo test --test integration e2e::`). Thirty binaries each
//! linked all of mcpgen and compiled `common/` again; `every_test_file_is_a_module` keeps a new
//! file from being left out (`autotests = false` in Cargo.toml).

mod common;

mod architecture;
mod cli;
mod code;
mod code_mode;
mod confirm;
mod conformance;
mod conversions;
mod deploy;
mod diff;
mod discovery;
mod e2e;
mod fast_call;
mod functions;
mod fuzz_seeds;
mod golden;
mod legacy_sse;
mod multi_api;
mod observability;
mod pins;
mod progress;
mod python_functions;
mod recorded;
mod reload;
mod resources;
mod scale_out;
mod search_quality;
mod serve_security;
mod shared_definitions;
mod tool_search;
mod trust;

/// Each `tests/*.rs` is a module of this binary, or a binary of its own in Cargo.toml.
#[test]
fn every_test_file_is_a_module() {
    let this = include_str!("integration.rs");
    let manifest = include_str!("../Cargo.toml");
    for entry in std::fs::read_dir("tests").unwrap() {
        let path = entry.unwrap().path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()).and_then(|n| n.strip_suffix(".rs")) else {
            continue;
        };
        let declared =
            this.contains(&format!("\nmod {name};\n")) || manifest.contains(&format!("path = \"tests/{name}.rs\""));
        assert!(declared, "tests/{name}.rs is in no test binary: add `mod {name};` to tests/integration.rs");
    }
}
