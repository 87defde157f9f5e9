//! Which operations become tools: filters shared by every command.

use glob::Pattern;

use crate::ir::{Method, Operation};

/// Which operations become tools (`--include-tag`, `--exclude-op`, ...). A tool is kept when it
/// passes every filter; an empty list filters nothing.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Keep only operations with one of these tags (case-insensitive). Tools without tags (function
    /// tools) are dropped when it is set.
    pub include_tags: Vec<String>,
    /// Drop operations with any of these tags (case-insensitive).
    pub exclude_tags: Vec<String>,
    /// Globs on the tool name or the operationId.
    pub include_ops: Vec<Pattern>,
    /// Globs on the tool name or the operationId: matching tools are dropped.
    pub exclude_ops: Vec<Pattern>,
    /// Globs on the path template: only operations whose path matches are kept (unbound functions,
    /// without a path, are dropped when it is set).
    pub include_paths: Vec<Pattern>,
    /// Keep only operations with these methods (unbound functions are dropped when it is set).
    pub methods: Vec<Method>,
}

impl Filter {
    /// Whether no filter is set: every tool is kept.
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
        let tags: &[String] = op.map(|o| o.tags.as_slice()).unwrap_or(&[]);
        self.keeps_parts(name, id, tags, op.map(|o| (o.path.as_str(), o.method)))
    }

    /// Whether a tool of a runtime config is kept (a config served beside other APIs): by its
    /// name, operationId, tags, and its binding's path and method.
    pub fn keeps_tool(&self, tool: &mcpgen_config::Tool) -> bool {
        let http = tool.http.as_ref().map(|h| (h.path.as_str(), h.method));
        self.keeps_parts(&tool.name, tool.operation_id.as_deref(), &tool.tags, http)
    }

    fn keeps_parts(&self, name: &str, id: Option<&str>, tags: &[String], http: Option<(&str, Method)>) -> bool {
        let names_match = |globs: &[Pattern]| globs.iter().any(|g| g.matches(name) || id.is_some_and(|i| g.matches(i)));
        if !self.include_ops.is_empty() && !names_match(&self.include_ops) {
            return false;
        }
        if names_match(&self.exclude_ops) {
            return false;
        }
        let has_tag = |wanted: &[String]| tags.iter().any(|t| wanted.iter().any(|w| w.eq_ignore_ascii_case(t)));
        if !self.include_tags.is_empty() && !has_tag(&self.include_tags) {
            return false;
        }
        if has_tag(&self.exclude_tags) {
            return false;
        }
        if !self.include_paths.is_empty() && !http.is_some_and(|(p, _)| self.include_paths.iter().any(|g| g.matches(p)))
        {
            return false;
        }
        if !self.methods.is_empty() && !http.is_some_and(|(_, m)| self.methods.contains(&m)) {
            return false;
        }
        true
    }
}
