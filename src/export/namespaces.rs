//! OpenAI namespaces (Responses API `{"type": "namespace"}` tools): the tools grouped by their
//! first tag, at most [`MAX_NAMESPACE_TOOLS`] in a namespace.
//!
//! A namespace is named after its tag in lower case, its ASCII letters and digits kept and every
//! other run made one `_` (`Pet Store` -> `pet_store`); tags that read the same share one. Tools
//! without a tag go to their API's namespace (the API name of a merged config's tool, else the
//! config's server name). A group of more than [`MAX_NAMESPACE_TOOLS`] tools is cut, in list
//! order, into the fewest namespaces that hold them, of sizes that differ by one at most:
//! `pulls`, `pulls_2`, ... A name already taken gets the next free `_N`. Namespaces come in the
//! order of their names before the suffix, a group's parts in list order. Their descriptions are
//! made of the namespace's and its tools' names only, never of the API description's text.

use std::collections::{BTreeMap, BTreeSet};

use mcpgen_config::RuntimeConfig;

/// The most tools in one namespace: OpenAI's tool search guide advises "fewer than 10 functions"
/// per namespace for token efficiency and model performance; mcpgen's rule is 10 at most.
pub const MAX_NAMESPACE_TOOLS: usize = 10;

/// The longest base name, leaving room for a `_N` suffix within 64 characters.
const MAX_NAME_LEN: usize = 56;

/// One namespace: its name, its description, and its tools as indexes into the config's tools.
#[derive(Debug, Clone, PartialEq)]
pub struct Namespace {
    /// `pulls`, `pulls_2`, ...
    pub name: String,
    /// What it holds, for the model (which sees only this until tool search loads a tool).
    pub description: String,
    /// Indexes into `config.tools`, in list order.
    pub tools: Vec<usize>,
}

/// The namespaces of `config`'s tools (see the module's doc).
pub fn by_tag(config: &RuntimeConfig) -> Vec<Namespace> {
    let mut groups: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, tool) in config.tools.iter().enumerate() {
        let label = tool.tags.first().or(tool.api.as_ref()).unwrap_or(&config.server.name);
        groups.entry(base_name(label)).or_default().push(i);
    }
    let mut taken = BTreeSet::new();
    let mut out = Vec::new();
    for (base, tools) in groups {
        let parts = chunks(&tools);
        let count = parts.len();
        for (n, part) in parts.into_iter().enumerate() {
            let wanted = if n == 0 { base.clone() } else { format!("{base}_{}", n + 1) };
            let name = claim(&mut taken, wanted);
            let names: Vec<&str> = part.iter().map(|&i| config.tools[i].name.as_str()).collect();
            let what = base.replace('_', " ");
            let description = match count {
                1 => format!("Tools for {what}: {}.", names.join(", ")),
                _ => format!("Tools for {what} ({} of {count}): {}.", n + 1, names.join(", ")),
            };
            out.push(Namespace { name, description, tools: part });
        }
    }
    out
}

/// A tag (or API name) as a namespace name: lower-case ASCII words joined by `_`; `tools` when
/// it has none.
fn base_name(label: &str) -> String {
    let words: Vec<String> = crate::names::words(label).map(str::to_ascii_lowercase).collect();
    let mut name = words.join("_");
    name.truncate(MAX_NAME_LEN);
    let name = name.trim_end_matches('_');
    if name.is_empty() { "tools".to_string() } else { name.to_string() }
}

/// `tools` cut in order into the fewest parts of at most [`MAX_NAMESPACE_TOOLS`], the first
/// ones one longer when they cannot all be the same size.
fn chunks(tools: &[usize]) -> Vec<Vec<usize>> {
    let count = tools.len().div_ceil(MAX_NAMESPACE_TOOLS).max(1);
    let (size, longer) = (tools.len() / count, tools.len() % count);
    let mut rest = tools;
    (0..count)
        .map(|n| {
            let (part, after) = rest.split_at(size + usize::from(n < longer));
            rest = after;
            part.to_vec()
        })
        .collect()
}

/// `wanted`, or else the first `wanted_N` (N from 2) that no namespace has yet.
fn claim(taken: &mut BTreeSet<String>, wanted: String) -> String {
    let name = if taken.contains(&wanted) {
        (2..).map(|n| format!("{wanted}_{n}")).find(|n| !taken.contains(n)).unwrap_or_default()
    } else {
        wanted
    };
    taken.insert(name.clone());
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sizes(n: usize) -> Vec<usize> {
        chunks(&(0..n).collect::<Vec<_>>()).iter().map(Vec::len).collect()
    }

    #[test]
    fn groups_up_to_the_limit_stay_whole() {
        assert_eq!(sizes(1), vec![1]);
        assert_eq!(sizes(10), vec![10]);
    }

    #[test]
    fn larger_groups_are_cut_into_even_parts_in_order() {
        assert_eq!(sizes(11), vec![6, 5]);
        assert_eq!(sizes(23), vec![8, 8, 7]);
        assert_eq!(
            chunks(&[4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]),
            vec![vec![4, 5, 6, 7, 8, 9], vec![10, 11, 12, 13, 14]]
        );
    }

    #[test]
    fn tags_become_lower_case_ascii_words() {
        assert_eq!(base_name("Pet Store"), "pet_store");
        assert_eq!(base_name("code-scanning"), "code_scanning");
        assert_eq!(base_name("tag \"with\" quotes */"), "tag_with_quotes");
        assert_eq!(base_name("宠物"), "tools");
        assert_eq!(base_name(&"a".repeat(80)).len(), MAX_NAME_LEN);
    }

    #[test]
    fn tools_group_by_first_tag_and_untagged_ones_by_api() {
        let yaml = "openapi: 3.1.0\ninfo: {title: Book Shop, version: '1'}\npaths:\n".to_string()
            + &["a:[Zoo Keeping, pets]", "b:[pets]", "c:[]", "d:[pets]"]
                .iter()
                .map(|spec| {
                    let (id, tags) = spec.split_once(':').unwrap_or_default();
                    format!("  /{id}:\n    get:\n      operationId: op_{id}\n      tags: {tags}\n      responses: {{'200': {{description: ok}}}}\n")
                })
                .collect::<String>();
        let p = crate::pipeline::run_str(&yaml, "api.yaml", &Default::default()).expect("pipeline");
        let got: Vec<(String, Vec<usize>)> = by_tag(&p.tools.config).into_iter().map(|n| (n.name, n.tools)).collect();
        assert_eq!(
            got,
            vec![("book_shop".into(), vec![2]), ("pets".into(), vec![1, 3]), ("zoo_keeping".into(), vec![0])]
        );
        assert_eq!(by_tag(&p.tools.config)[1].description, "Tools for pets: op_b, op_d.");
    }

    #[test]
    fn taken_names_get_the_next_free_suffix() {
        let mut taken = BTreeSet::new();
        assert_eq!(claim(&mut taken, "pulls".into()), "pulls");
        assert_eq!(claim(&mut taken, "pulls_2".into()), "pulls_2");
        assert_eq!(claim(&mut taken, "pulls".into()), "pulls_3");
    }
}
