//! Request building from arbitrary tool arguments against a fixed catalogue of every parameter
//! style and body kind: whatever the arguments, the URL stays on the API's origin and under its
//! base path, no `..` segment appears, and no header value holds a control character.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcpgen_fuzz::request(data));
