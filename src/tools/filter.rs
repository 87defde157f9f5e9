//! Which operations become tools: filters shared by every command.

use glob::Pattern;

use crate::ir::{Method, Operation};

#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub include_tags: Vec<String>,
    pub exclude_tags: Vec<String>,
    /// Globs on the tool name or the operationId.
    pub include_ops: Vec<Pattern>,
    pub exclude_ops: Vec<Pattern>,
    pub include_paths: Vec<Pattern>,
    pub methods: Vec<Method>,
}

impl Filter {
    pub fn is_empty(&self) -> bool {
        self.include_tags.is_empty()
            && self.exclude_tags.is_empty()
            && self.include_ops.is_empty()
            && self.exclude_ops.is_empty()
            && self.include_paths.is_empty()
            && self.methods.is_empty()
    }

    /// Whether a tool with this name, from this operation (none for function-calling tools), is kept.
    pub fn keeps(&self, name: &str, op: Option<&Operation>) -> bool {
        let id = op.and_then(|o| o.operation_id.as_deref());
        let names_match = |globs: &[Pattern]| globs.iter().any(|g| g.matches(name) || id.is_some_and(|i| g.matches(i)));
        if !self.include_ops.is_empty() && !names_match(&self.include_ops) {
            return false;
        }
        if names_match(&self.exclude_ops) {
            return false;
        }
        let tags: &[String] = op.map(|o| o.tags.as_slice()).unwrap_or(&[]);
        let has_tag = |wanted: &[String]| tags.iter().any(|t| wanted.iter().any(|w| w.eq_ignore_ascii_case(t)));
        if !self.include_tags.is_empty() && !has_tag(&self.include_tags) {
            return false;
        }
        if has_tag(&self.exclude_tags) {
            return false;
        }
        if !self.include_paths.is_empty() && !op.is_some_and(|o| self.include_paths.iter().any(|g| g.matches(&o.path)))
        {
            return false;
        }
        if !self.methods.is_empty() && !op.is_some_and(|o| self.methods.contains(&o.method)) {
            return false;
        }
        true
    }
}
