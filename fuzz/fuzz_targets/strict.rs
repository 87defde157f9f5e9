//! Strict-mode export on arbitrary schemas: the checker accepts what the rewriter emits, but for
//! the limits it reports (a tool with those is marked non-strict).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcpgen_fuzz::strict(data));
