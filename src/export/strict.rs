//! OpenAI strict mode (being written): until then every schema is reported as not strict.
use serde::Serialize;
use serde_json::Value;
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Change {
    pub at: String,
    pub what: String,
    pub lossy: bool,
}
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Rule {
    Unchecked,
}
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Violation {
    pub rule: Rule,
    pub at: String,
    pub message: String,
}
pub struct Strict {
    pub schema: Value,
    pub changes: Vec<Change>,
    pub violations: Vec<Violation>,
}
pub fn strictify(schema: &Value) -> Strict {
    let v = Violation { rule: Rule::Unchecked, at: "#".into(), message: "strict mode is not available yet".into() };
    Strict { schema: schema.clone(), changes: vec![], violations: vec![v] }
}
