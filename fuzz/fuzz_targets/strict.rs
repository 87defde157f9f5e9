//! Strict-mode export on arbitrary schemas: the checker accepts what the rewriter emits, but for
//! the limits it reports (a tool with those is marked non-strict).
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpgen::export::strict::{strictify, violations};

fuzz_target!(|data: &[u8]| {
    let Ok(schema) = serde_json::from_slice::<serde_json::Value>(data) else { return };
    let strict = strictify(&schema);
    assert!(strict.violations.iter().all(|v| v.rule.is_limit()), "a rewritten schema breaks a rule that is not a limit: {:?}", strict.violations);
    assert_eq!(violations(&strict.schema), strict.violations, "the checker and strictify disagree");
});
