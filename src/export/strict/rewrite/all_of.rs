//! `allOf` merged into its parent, and the `$ref` targets it inlines (each at most once along
//! any path, so that recursive definitions end).

use serde_json::Value;

use super::super::{ChangeKind, Object, is_annotation, merge_into};
use super::{Rewriter, def_name};

/// Key of a reference in `Rewriter::inlining`: the definition name, or the reference itself (`#`).
fn ref_key(reference: &str) -> String {
    def_name(reference).unwrap_or_else(|| reference.to_string())
}

/// How one `allOf` merge treats `$ref` branches.
#[derive(Clone, Copy)]
pub(super) struct Merge {
    /// Inline reference targets (otherwise a lone reference is hoisted as `$ref`).
    pub(super) inline: bool,
    /// A `$ref` may end up on the merged schema (not at the root).
    pub(super) hoist: bool,
    /// Merging the node's own branches, not the body of an inlined reference.
    pub(super) direct: bool,
    /// Length of `Rewriter::inlining` when this merge started.
    pub(super) base: usize,
}

impl Rewriter {
    /// Merges `allOf` into its parent. A lone `$ref` branch on an otherwise unconstrained schema is hoisted
    /// (when `hoist`); other references are inlined, each at most once along any path (see `inlining`).
    pub(super) fn merge_all_of(&mut self, map: &mut Object, at: &str, hoist: bool) {
        let Some(all) = map.remove("allOf") else { return };
        let Value::Array(branches) = all else {
            self.note(at, ChangeKind::AllOfMerged, "removed allOf that is not an array", false);
            return;
        };
        let refs = branches.iter().filter(|b| b.get("$ref").is_some()).count();
        let structural = map.keys().any(|key| !is_annotation(key))
            || branches.iter().filter_map(Value::as_object).any(|b| b.keys().any(|k| k != "$ref" && !is_annotation(k)));
        let inline = !(hoist && refs == 1 && !structural);
        let merge = Merge { inline, hoist, direct: true, base: self.inlining.len() };
        for branch in branches {
            self.merge_branch(map, branch, at, merge);
        }
        self.note(at, ChangeKind::AllOfMerged, "merged allOf into the schema", false);
    }

    pub(super) fn merge_branch(&mut self, map: &mut Object, branch: Value, at: &str, merge: Merge) {
        let mut branch = match branch {
            Value::Object(branch) => branch,
            Value::Bool(true) => return,
            _ => {
                self.note(at, ChangeKind::AllOfMerged, "dropped an allOf branch that matches nothing", false);
                return;
            }
        };
        let nested = branch.remove("allOf");
        let reference = if merge.inline { branch.remove("$ref") } else { None };
        merge_into(map, branch);
        if let Some(reference) = reference {
            self.inline(map, reference, at, merge);
        }
        for inner in nested.as_ref().and_then(Value::as_array).into_iter().flatten() {
            self.merge_branch(map, inner.clone(), at, merge);
        }
    }

    /// Inlines the target of an allOf `$ref`. Inlining a target an ancestor is already inlining would never end:
    /// a direct branch that would get there stays a `$ref` where one is allowed, anything else is dropped.
    fn inline(&mut self, map: &mut Object, reference: Value, at: &str, merge: Merge) {
        let key = ref_key(reference.as_str().unwrap_or_default());
        let position = self.inlining.iter().position(|seen| *seen == key);
        let Some(body) = self.body(&key).filter(|_| position.is_none_or(|index| index < merge.base)) else {
            if position.is_none() {
                self.note(
                    at,
                    ChangeKind::AllOfMerged,
                    format!("dropped unresolvable allOf reference {reference}"),
                    true,
                );
            }
            return; // otherwise already merged into this schema
        };
        let recursive = position.is_some() || self.reaches_inlined(&key, merge.base, &mut Vec::new());
        if recursive && merge.hoist && merge.direct && !map.contains_key("$ref") {
            self.note(
                at,
                ChangeKind::AllOfMerged,
                format!("kept recursive allOf reference {reference} as $ref"),
                false,
            );
            map.insert("$ref".into(), reference);
        } else if position.is_some() {
            self.note(at, ChangeKind::AllOfMerged, format!("dropped recursive allOf reference {reference}"), true);
        } else {
            self.inlining.push(key);
            self.merge_branch(map, body, at, Merge { direct: false, ..merge });
        }
    }

    /// The original schema a reference key (see [`ref_key`]) names.
    fn body(&self, key: &str) -> Option<Value> {
        if key == "#" { Some(Value::Object(self.root.clone())) } else { self.defs.get(key).cloned() }
    }

    /// Whether inlining `key` would inline, through `$ref` and `allOf`, something an ancestor is inlining.
    fn reaches_inlined(&self, key: &str, base: usize, seen: &mut Vec<String>) -> bool {
        if self.inlining.iter().take(base).any(|k| k == key) {
            return true;
        }
        if seen.iter().any(|k| k == key) {
            return false;
        }
        seen.push(key.to_string());
        let mut pending: Vec<Value> = self.body(key).into_iter().collect();
        while let Some(schema) = pending.pop() {
            if let Some(text) = schema.get("$ref").and_then(Value::as_str)
                && self.reaches_inlined(&ref_key(text), base, seen)
            {
                return true;
            }
            pending.extend(schema.get("allOf").and_then(Value::as_array).into_iter().flatten().cloned());
        }
        false
    }
}
