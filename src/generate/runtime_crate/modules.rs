//! Which of a crate's source files a build with some features compiles: its module tree from
//! `src/lib.rs`, each `mod name;` declaration's `#[cfg(..)]` and `#[cfg_attr(.., path = "..")]`
//! evaluated for those features, with `test` off. A generated crate's copy of the runtime carries
//! these files only: no test modules (`tests.rs`), nothing only a feature it lacks compiles, and
//! the stand-ins (`*_off.rs`) of the features it lacks. The declarations are read from the text,
//! which rustfmt shapes (attributes, then `mod name;`, at column 0); a test checks what is read
//! against a parse of every file.

use std::collections::BTreeSet;

/// The files of `sources` (paths relative to the crate's root, `src/lib.rs` the root module) that a
/// build with `features` compiles, in the order of `sources`. A file a condition on the target
/// (`unix`) keeps or leaves out is kept: the crate may be built anywhere.
pub(crate) fn compiled<'a>(sources: &[(&'a str, &'a str)], features: &[&str]) -> Vec<&'a str> {
    let text = |path: &str| sources.iter().find(|(p, _)| *p == path).map(|(_, t)| *t);
    let mut found = BTreeSet::new();
    let mut stack = vec!["src/lib.rs".to_string()];
    while let Some(path) = stack.pop() {
        let Some(source) = text(&path) else { continue };
        if !found.insert(path.clone()) {
            continue;
        }
        for decl in declarations(source) {
            if decl.cfg.iter().any(|c| eval(c, features) == Some(false)) {
                continue;
            }
            stack.extend(decl.files(&path, features, |p| text(p).is_some()));
        }
    }
    sources.iter().map(|(p, _)| *p).filter(|p| found.contains(*p)).collect()
}

/// One `mod name;` of a file, with the conditions and paths of its attributes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ModDecl {
    /// The module's name.
    pub(crate) name: String,
    /// The predicates of its `#[cfg(..)]`s, as written.
    pub(crate) cfg: Vec<String>,
    /// Its `#[cfg_attr(predicate, path = "..")]`s (a `#[path = ".."]` has no predicate).
    pub(crate) paths: Vec<(Option<String>, String)>,
}

impl ModDecl {
    /// The files that may hold the module declared in `parent` (only those that exist, as `exists`
    /// says): the one a `path` whose condition holds names, or else `name.rs` or `name/mod.rs`;
    /// both when the condition is the target's.
    fn files(&self, parent: &str, features: &[&str], exists: impl Fn(&str) -> bool) -> Vec<String> {
        let dir = parent.rsplit_once('/').map_or("", |(d, _)| d);
        let mut out = Vec::new();
        let mut default = true;
        for (when, path) in &self.paths {
            let holds = when.as_deref().map_or(Some(true), |w| eval(w, features));
            if holds != Some(false) {
                out.push(format!("{dir}/{path}"));
            }
            if holds == Some(true) {
                default = false;
            }
        }
        if default {
            // `lib.rs` and `mod.rs` hold their children beside them, `a.rs` in `a/`.
            let stem = parent.strip_suffix(".rs").unwrap_or(parent);
            let base = match parent.rsplit('/').next() {
                Some("lib.rs" | "mod.rs" | "main.rs") => dir.to_string(),
                _ => stem.to_string(),
            };
            out.extend([format!("{base}/{}.rs", self.name), format!("{base}/{}/mod.rs", self.name)]);
        }
        out.retain(|p| exists(p));
        out
    }
}

/// The `mod name;` declarations at the top of a file's text, with their attributes.
pub(crate) fn declarations(source: &str) -> Vec<ModDecl> {
    let mut out = Vec::new();
    let mut attrs: Vec<String> = Vec::new();
    let mut lines = source.lines();
    while let Some(line) = lines.next() {
        if line.starts_with("#[") {
            // An attribute, over several lines when rustfmt wraps it.
            let mut attr = line.to_string();
            while depth(&attr) > 0 {
                let Some(next) = lines.next() else { break };
                attr.push_str(next.trim());
            }
            attrs.push(attr);
            continue;
        }
        if line.starts_with("//") {
            // Doc comments and comments between an item's attributes.
            continue;
        }
        if let Some(name) = mod_name(line) {
            out.push(decl(name, &attrs));
        }
        attrs.clear();
    }
    out
}

/// `name` of a line `[pub[(..)] ]mod name;`.
fn mod_name(line: &str) -> Option<&str> {
    let rest = match line.strip_prefix("pub") {
        Some(r) if r.starts_with('(') => r.split_once(") ")?.1,
        Some(r) => r.strip_prefix(' ')?,
        None => line,
    };
    let name = rest.strip_prefix("mod ")?.strip_suffix(';')?;
    name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_').then_some(name)
}

fn decl(name: &str, attrs: &[String]) -> ModDecl {
    let mut d = ModDecl { name: name.to_string(), cfg: Vec::new(), paths: Vec::new() };
    for attr in attrs {
        let inner = attr.trim_start_matches("#[").trim_end_matches(']').trim();
        if let Some(pred) = inner.strip_prefix("cfg(").and_then(|r| r.strip_suffix(')')) {
            d.cfg.push(pred.trim().to_string());
        } else if let Some(args) = inner.strip_prefix("cfg_attr(").and_then(|r| r.strip_suffix(')')) {
            let parts = split_top(args);
            if let [pred, attrs @ ..] = parts.as_slice() {
                for a in attrs {
                    if let Some(path) = path_value(a) {
                        d.paths.push((Some(pred.to_string()), path));
                    }
                }
            }
        } else if let Some(path) = path_value(inner) {
            d.paths.push((None, path));
        }
    }
    d
}

/// `x` of `path = "x"`.
fn path_value(attr: &str) -> Option<String> {
    let value = attr.trim().strip_prefix("path")?.trim_start().strip_prefix('=')?.trim();
    Some(value.strip_prefix('"')?.strip_suffix('"')?.to_string())
}

/// How many brackets of `text` are open at its end (strings aside).
fn depth(text: &str) -> i32 {
    let mut depth = 0;
    let mut in_string = false;
    for c in text.chars() {
        match c {
            '"' => in_string = !in_string,
            '[' | '(' if !in_string => depth += 1,
            ']' | ')' if !in_string => depth -= 1,
            _ => {}
        }
    }
    depth
}

/// `text` split at its commas outside brackets and strings, each part trimmed.
fn split_top(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut start, mut depth, mut in_string) = (0, 0, false);
    for (i, c) in text.char_indices() {
        match c {
            '"' => in_string = !in_string,
            '(' | '[' if !in_string => depth += 1,
            ')' | ']' if !in_string => depth -= 1,
            ',' if !in_string && depth == 0 => {
                parts.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(text[start..].trim());
    parts.retain(|p| !p.is_empty());
    parts
}

/// A configuration predicate for a build with `features`: `Some` when the features and `test` (off)
/// decide it, `None` when the target does (`unix`, `target_os = ".."`).
pub(crate) fn eval(pred: &str, features: &[&str]) -> Option<bool> {
    let pred = pred.trim();
    let call = |name: &str| pred.strip_prefix(name)?.trim_start().strip_prefix('(')?.strip_suffix(')');
    if let Some(inner) = call("not") {
        return eval(inner, features).map(|b| !b);
    }
    if let Some(inner) = call("all") {
        let parts: Vec<Option<bool>> = split_top(inner).into_iter().map(|p| eval(p, features)).collect();
        return match () {
            _ if parts.contains(&Some(false)) => Some(false),
            _ if parts.contains(&None) => None,
            _ => Some(true),
        };
    }
    if let Some(inner) = call("any") {
        let parts: Vec<Option<bool>> = split_top(inner).into_iter().map(|p| eval(p, features)).collect();
        return match () {
            _ if parts.contains(&Some(true)) => Some(true),
            _ if parts.contains(&None) => None,
            _ => Some(false),
        };
    }
    if pred == "test" {
        return Some(false);
    }
    match pred.split_once('=') {
        Some((key, value)) if key.trim() == "feature" => {
            let value = value.trim().trim_matches('"');
            Some(features.contains(&value))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::runtime_crate::{config_sources, sources};
    use mcpgen_config::features::FEATURES;
    use quote::ToTokens;

    #[test]
    fn predicates() {
        let f = ["http", "discovery"];
        assert_eq!(eval(r#"feature = "http""#, &f), Some(true));
        assert_eq!(eval(r#"not(feature = "code")"#, &f), Some(true));
        assert_eq!(eval(r#"all(feature = "http", not(feature = "discovery"))"#, &f), Some(false));
        assert_eq!(eval(r#"any(feature = "code", feature = "discovery")"#, &f), Some(true));
        assert_eq!(eval("test", &f), Some(false));
        assert_eq!(eval("unix", &f), None);
        assert_eq!(eval(r#"all(unix, feature = "code")"#, &f), Some(false));
        assert_eq!(eval(r#"any(unix, feature = "code")"#, &f), None);
    }

    #[test]
    fn declarations_and_their_files() {
        let lib = "//! Doc.\n\npub(crate) mod a;\n/// B.\n#[cfg(feature = \"b\")]\npub mod b;\n#[cfg(test)]\nmod tests;\n\
                   #[cfg_attr(\n    not(feature = \"c\"),\n    path = \"c_off.rs\"\n)]\nmod c;\nfn f() {}\n    mod inner;\n";
        let found = declarations(lib);
        let names: Vec<&str> = found.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "tests", "c"]);
        assert_eq!(found[3].paths, [(Some("not(feature = \"c\")".to_string()), "c_off.rs".to_string())]);
        let sources = [
            ("src/lib.rs", lib),
            ("src/a.rs", "mod x;\n"),
            ("src/a/x.rs", ""),
            ("src/b/mod.rs", "mod y;\n"),
            ("src/b/y.rs", ""),
            ("src/tests.rs", ""),
            ("src/c.rs", ""),
            ("src/c_off.rs", ""),
            ("src/orphan.rs", ""),
        ];
        assert_eq!(compiled(&sources, &[]), ["src/lib.rs", "src/a.rs", "src/a/x.rs", "src/c_off.rs"]);
        assert_eq!(
            compiled(&sources, &["b", "c"]),
            ["src/lib.rs", "src/a.rs", "src/a/x.rs", "src/b/mod.rs", "src/b/y.rs", "src/c.rs"]
        );
    }

    /// What the text says of each file's `mod name;`s is what a parse of it says: every one is at
    /// the top of its file (none inside an inline module), with the same `cfg` and `path`
    /// attributes.
    #[test]
    fn declarations_are_those_of_a_parse() {
        for (name, source) in sources().iter().chain(config_sources()).filter(|(n, _)| n.ends_with(".rs")) {
            let file: syn::File = syn::parse_str(source).unwrap_or_else(|e| panic!("{name}: {e}"));
            let mut parsed = Vec::new();
            let mut stack: Vec<(&[syn::Item], bool)> = vec![(&file.items, true)];
            while let Some((items, top)) = stack.pop() {
                for item in items {
                    let syn::Item::Mod(m) = item else { continue };
                    match &m.content {
                        Some((_, inner)) => stack.push((inner, false)),
                        None => {
                            assert!(top, "{name}: `mod {};` inside an inline module", m.ident);
                            parsed.push(parsed_decl(m));
                        }
                    }
                }
            }
            assert_eq!(declarations(source), parsed, "{name}");
        }
    }

    fn parsed_decl(m: &syn::ItemMod) -> ModDecl {
        let text = |t: &dyn ToTokens| {
            let s = t.to_token_stream().to_string();
            // Tokens print with spaces: `feature = "x"` stays, `not (feature = "x")` loses one.
            s.replace(" (", "(").replace("( ", "(").replace(" )", ")").replace(" ,", ",")
        };
        let mut d = ModDecl { name: m.ident.to_string(), cfg: Vec::new(), paths: Vec::new() };
        for attr in &m.attrs {
            if attr.path().is_ident("cfg") {
                d.cfg.push(text(&attr.meta.require_list().unwrap().tokens));
            } else if attr.path().is_ident("path") {
                let value = &attr.meta.require_name_value().unwrap().value;
                d.paths.push((None, text(value).trim_matches('"').to_string()));
            } else if attr.path().is_ident("cfg_attr") {
                let list = text(&attr.meta.require_list().unwrap().tokens);
                let parts = split_top(&list);
                for a in &parts[1..] {
                    if let Some(p) = path_value(a) {
                        d.paths.push((Some(parts[0].to_string()), p));
                    }
                }
            }
        }
        d
    }

    fn names(features: &[&'static str]) -> Vec<&'static str> {
        compiled(sources(), features)
    }

    /// The feature sets a crate can have one feature of: none, each feature with what it implies,
    /// and all of them.
    fn feature_sets() -> Vec<Vec<&'static str>> {
        let mut sets = vec![Vec::new(), FEATURES.iter().map(|f| f.name).collect()];
        for f in FEATURES {
            sets.push(mcpgen_config::features::with_implied([f.feature]).iter().map(|f| f.name()).collect());
        }
        sets
    }

    /// Every file of the runtime is compiled by some build, and none of its test modules by any;
    /// a stand-in (`*_off.rs`, `metrics/off.rs`) never with every feature.
    #[test]
    fn every_file_has_a_build() {
        let builds: Vec<Vec<&str>> = feature_sets().iter().map(|s| names(s)).collect();
        let all: Vec<&str> = FEATURES.iter().map(|f| f.name).collect();
        let with_all = names(&all);
        for (file, _) in sources().iter().filter(|(n, _)| n.ends_with(".rs")) {
            let test = file.ends_with("/tests.rs");
            let stand_in = file.ends_with("_off.rs") || file.ends_with("/off.rs");
            assert_eq!(builds.iter().any(|b| b.contains(file)), !test, "{file} in some build");
            assert_eq!(with_all.contains(file), !test && !stand_in, "{file} with every feature");
        }
        let contract: Vec<&str> = config_sources().iter().map(|(n, _)| *n).filter(|n| n.ends_with(".rs")).collect();
        assert_eq!(compiled(config_sources(), &[]), contract, "the contract: every source");
    }

    /// Each feature's own files, as the runtime declares them.
    #[test]
    fn each_feature_has_its_files() {
        let core = names(&[]);
        let only = |feature: &'static str| -> Vec<&'static str> {
            let feature = mcpgen_config::features::Feature::from_name(feature).unwrap();
            let with = mcpgen_config::features::with_implied([feature]);
            let names_with: Vec<&'static str> = with.iter().map(|f| f.name()).collect();
            names(&names_with).into_iter().filter(|f| !core.contains(f)).collect()
        };
        assert!(core.contains(&"src/engine/code_off.rs") && core.contains(&"src/metrics/off.rs"));
        assert!(!core.iter().any(|f| f.starts_with("src/discovery/") || f.starts_with("src/code/")));
        assert!(
            !core
                .iter()
                .any(|f| f.starts_with("src/transport/http/") || f.starts_with("src/auth/") && !f.ends_with("/mod.rs"))
        );
        assert_eq!(
            only("metrics").iter().filter(|f| f.starts_with("src/metrics/")).collect::<Vec<_>>(),
            [&"src/metrics/registry.rs"]
        );
        assert!(only("redis-store").contains(&"src/upstream/user/store/redis.rs"));
        assert!(!only("user-auth").contains(&"src/upstream/user/store/redis.rs"));
        assert!(only("semantic").contains(&"src/engine/search/semantic.rs"));
        assert!(only("code").contains(&"src/code/sandbox/alloc.rs"));
    }
}
