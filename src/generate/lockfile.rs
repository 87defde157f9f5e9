//! The generated crate's `Cargo.lock`, so that its builds are reproducible, with the versions
//! mcpgen itself is built with.
//!
//! Cargo's lockfile does not depend on the features a build turns on but on the manifests: it
//! lists every optional dependency they declare, and each package's dependencies as every feature
//! asked of it brings them. A crate's copy of the runtime declares only the optional dependencies
//! of its features ([`super::runtime_crate::vendored_manifest`]), so its lockfile is made for its
//! features, from one template: `templates/crate/Cargo.lock` is the lockfile of a crate named
//! [`PLACEHOLDER`] with every feature, each dependency that not every crate has marked with the
//! features that bring it (a TOML comment: ` "bytemuck", # semantic`). Those are not only the
//! runtime's optional dependencies: a package a feature brings may ask one every crate has for a
//! feature of its own (candle asks `num-complex` for `bytemuck`). A crate's lockfile ([`render`])
//! is the template with the marked dependencies of features it lacks cut, what it then no longer
//! reaches dropped, and each dependency written as Cargo writes it among what is left.
//!
//! [`lock_template`] marks the template from Cargo's own lockfiles of crates with every feature,
//! with the core alone and with each feature alone. A set of features then gets the union of
//! what each brings, which is Cargo's lockfile unless a dependency comes only with two features
//! together (a weak `dep?/feature`): making the template fails then. `tests/generate.rs` makes
//! it (`EXPECTORATE=overwrite`) and checks crates of every feature alone, of the sets the tests
//! build and of every feature with `cargo metadata --locked`.

use std::collections::{BTreeMap, BTreeSet};

use super::Feature;
use crate::error::{Error, Result};

/// The crate's name in the template.
pub(super) const PLACEHOLDER: &str = "mcpgen-generated-crate";

const TEMPLATE: &str = include_str!("../../templates/crate/Cargo.lock");

/// Cargo separates the entries with this; each entry's text starts with its `name = "..."` line.
const ENTRY: &str = "\n[[package]]\n";

/// One `[[package]]` of a lockfile.
#[derive(Debug, Clone)]
struct Entry {
    name: String,
    version: String,
    /// `registry+https://...` for a package from a registry; none for the workspace's own.
    source: Option<String>,
    /// The entry's lines up to its dependencies.
    head: String,
    /// The packages it depends on.
    deps: Vec<Dep>,
}

/// A dependency of an entry: as Cargo writes it (`name`, `name version` when several versions of
/// it are locked, `name version (source)` when several sources), and the features of the runtime
/// that bring it (none: every crate has it).
#[derive(Debug, Clone)]
struct Dep {
    written: String,
    features: Vec<String>,
}

impl Entry {
    fn parse(text: &str) -> Option<Entry> {
        let field = |key: &str| {
            text.lines().find_map(|l| l.strip_prefix(key)?.strip_prefix(" = \"")?.strip_suffix('"').map(str::to_string))
        };
        let (head, deps) = match text.split_once("dependencies = [\n") {
            Some((head, list)) => {
                let list = list.split_once("\n]").map_or(list, |(l, _)| l);
                let deps = list.lines().map(|line| {
                    let (dep, features) = line.split_once(" # ").unwrap_or((line, ""));
                    let features = features.split(',').map(|f| f.trim().to_string()).filter(|f| !f.is_empty());
                    Dep {
                        written: dep.trim().trim_end_matches(',').trim_matches('"').to_string(),
                        features: features.collect(),
                    }
                });
                (head.to_string(), deps.collect())
            }
            None => (text.to_string(), Vec::new()),
        };
        Some(Entry { name: field("name")?, version: field("version")?, source: field("source"), head, deps })
    }

    /// Whether the dependency written `dep` is this package.
    fn is(&self, dep: &str) -> bool {
        let mut parts = dep.splitn(3, ' ');
        let name = parts.next().unwrap_or_default();
        let version = parts.next();
        let source = parts.next().map(|s| s.trim_start_matches('(').trim_end_matches(')'));
        name == self.name
            && version.is_none_or(|v| v == self.version)
            && source.is_none_or(|s| Some(s) == self.source.as_deref())
    }

    /// The entry's text with `deps` (each with its features as a comment, when it has some).
    fn text(&self, deps: &[Dep]) -> String {
        let mut out = self.head.clone();
        if !deps.is_empty() {
            out.push_str("dependencies = [\n");
            for d in deps {
                out.push_str(&format!(" \"{}\",", d.written));
                if !d.features.is_empty() {
                    out.push_str(&format!(" # {}", d.features.join(", ")));
                }
                out.push('\n');
            }
            out.push_str("]\n");
        }
        out
    }
}

/// A lockfile: its header (up to the first entry) and its entries.
struct Lock {
    header: String,
    entries: Vec<Entry>,
}

impl Lock {
    fn parse(text: &str) -> Result<Lock> {
        let mut parts = text.split(ENTRY);
        let header = parts.next().unwrap_or_default().to_string();
        let entries = parts.map(Entry::parse).collect::<Option<Vec<Entry>>>().ok_or_else(|| internal("a bad entry"))?;
        Ok(Lock { header, entries })
    }

    /// The entry a dependency written `dep` names.
    fn find(&self, dep: &str) -> Result<usize> {
        self.entries.iter().position(|e| e.is(dep)).ok_or_else(|| internal(&format!("no entry for `{dep}`")))
    }

    /// Each dependency as name and version: `(from, to)`.
    fn edges(&self) -> Result<BTreeSet<(String, String)>> {
        let id = |e: &Entry| format!("{} {}", e.name, e.version);
        let mut out = BTreeSet::new();
        for e in &self.entries {
            for d in &e.deps {
                out.insert((id(e), id(&self.entries[self.find(&d.written)?])));
            }
        }
        Ok(out)
    }

    /// The lockfile with the entries reached from `root` by the dependencies `keep` keeps, each
    /// dependency written as Cargo writes it among them, `root` named `package`.
    fn pruned(&self, root: usize, package: &str, keep: impl Fn(&Dep) -> bool) -> Result<String> {
        let mut reached = BTreeSet::new();
        let mut todo = vec![root];
        while let Some(i) = todo.pop() {
            if reached.insert(i) {
                for d in self.entries[i].deps.iter().filter(|d| keep(d)) {
                    todo.push(self.find(&d.written)?);
                }
            }
        }
        // How many of each name and version are left.
        let mut counts: BTreeMap<&str, BTreeMap<&str, usize>> = BTreeMap::new();
        for &i in &reached {
            *counts.entry(&self.entries[i].name).or_default().entry(&self.entries[i].version).or_default() += 1;
        }
        let mut kept: Vec<(&str, String)> = Vec::new();
        for &i in &reached {
            let e = &self.entries[i];
            let mut deps = Vec::new();
            for d in e.deps.iter().filter(|d| keep(d)) {
                let target = &self.entries[self.find(&d.written)?];
                let versions = &counts[target.name.as_str()];
                let written = match (versions.len(), versions[target.version.as_str()]) {
                    (1, 1) => target.name.clone(),
                    (_, 1) => format!("{} {}", target.name, target.version),
                    _ => d.written.clone(),
                };
                deps.push(Dep { written, features: Vec::new() });
            }
            let mut text = e.text(&deps);
            let name = if i == root { package } else { e.name.as_str() };
            if i == root {
                text.replace_range(..text.find('\n').unwrap_or(text.len()), &format!("name = \"{package}\""));
            }
            kept.push((name, text));
        }
        // Cargo sorts entries by name (then version and source, which the template's order keeps).
        kept.sort_by(|a, b| a.0.cmp(b.0));
        let mut out = self.header.clone();
        for (_, text) in &kept {
            out.push_str(ENTRY);
            out.push_str(text);
        }
        Ok(out)
    }

    fn root(&self) -> Result<usize> {
        self.entries.iter().position(|e| e.name == PLACEHOLDER).ok_or_else(|| internal("no entry for the crate"))
    }
}

fn internal(what: &str) -> Error {
    Error::internal("writing Cargo.lock", what.to_string())
}

/// The lockfile of the crate named `package` with `features` of the runtime: the template without
/// the dependencies only features it lacks bring, and what it then no longer reaches; the crate's
/// entry renamed and put where Cargo sorts it (by name), since `cargo build --locked` compares the
/// text.
pub(super) fn render(package: &str, features: &[Feature]) -> Result<String> {
    let lock = Lock::parse(TEMPLATE)?;
    let names: Vec<&str> = features.iter().map(|f| f.name()).collect();
    let keep = |d: &Dep| d.features.is_empty() || d.features.iter().any(|f| names.contains(&f.as_str()));
    lock.pruned(lock.root()?, package, keep)
}

/// The template of [`render`] (`templates/crate/Cargo.lock`), from Cargo's lockfiles of crates
/// named [`PLACEHOLDER`]: `every` with every feature, `core` with those every crate has, and each
/// of `features` (a feature's name, the lockfile of a crate with it and what it implies). Each
/// dependency of `every` not in `core` is marked with the features whose lockfile has it; one no
/// feature alone brings is an error, as is a lockfile that has what `every` has not.
pub fn lock_template(every: &str, core: &str, features: &[(&str, &str)]) -> Result<String> {
    let mut lock = Lock::parse(every)?;
    // The crate's entry where Cargo puts one of its name (the lockfiles name it otherwise).
    lock.entries.sort_by(|a, b| a.name.cmp(&b.name));
    let all = lock.edges()?;
    let core = Lock::parse(core)?.edges()?;
    let mut brought: Vec<(&str, BTreeSet<(String, String)>)> = Vec::new();
    for (name, text) in features {
        brought.push((name, Lock::parse(text)?.edges()?));
    }
    if let Some(extra) = brought.iter().flat_map(|(_, e)| e).chain(&core).find(|e| !all.contains(e)) {
        return Err(internal(&format!("{} -> {} is not in the lockfile with every feature", extra.0, extra.1)));
    }
    for i in 0..lock.entries.len() {
        let from = format!("{} {}", lock.entries[i].name, lock.entries[i].version);
        for j in 0..lock.entries[i].deps.len() {
            let target = &lock.entries[lock.find(&lock.entries[i].deps[j].written)?];
            let edge = (from.clone(), format!("{} {}", target.name, target.version));
            if core.contains(&edge) {
                continue;
            }
            let by: Vec<String> =
                brought.iter().filter(|(_, e)| e.contains(&edge)).map(|(n, _)| n.to_string()).collect();
            if by.is_empty() {
                return Err(internal(&format!("{} -> {} comes with no feature alone", edge.0, edge.1)));
            }
            lock.entries[i].deps[j].features = by;
        }
    }
    let mut out = lock.header.clone();
    for e in &lock.entries {
        out.push_str(ENTRY);
        out.push_str(&e.text(&e.deps));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(lock: &str) -> Vec<&str> {
        lock.split(ENTRY)
            .skip(1)
            .filter_map(|e| e.lines().next()?.strip_prefix("name = \"")?.strip_suffix('"'))
            .collect()
    }

    fn every() -> Vec<Feature> {
        mcpgen_config::features::FEATURES.iter().map(|f| f.feature).collect()
    }

    #[test]
    fn the_crate_is_renamed_and_sorted_among_its_dependencies() {
        let lock = render("petstore-mcp", &[Feature::Http]).unwrap();
        let names = names(&lock);
        assert!(!names.contains(&PLACEHOLDER));
        let at = names.iter().position(|n| *n == "petstore-mcp").unwrap();
        assert!(names[at - 1] < "petstore-mcp" && names[at + 1] > "petstore-mcp", "{:?}", &names[at - 1..=at + 1]);
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted);
    }

    /// With every feature, the lockfile is the template without its marks.
    #[test]
    fn with_every_feature_it_is_the_template() {
        let lock = render(PLACEHOLDER, &every()).unwrap();
        let unmarked: String = TEMPLATE.lines().map(|l| format!("{}\n", l.split(" # ").next().unwrap())).collect();
        assert_eq!(lock, unmarked);
        assert!(lock.starts_with("# This file is automatically @generated by Cargo."));
        assert!(lock.ends_with('\n') && !lock.ends_with("\n\n") && !lock.contains(" # "));
    }

    /// What only a feature the crate lacks brings goes; the runtime's dependency on it with it.
    #[test]
    fn what_only_a_feature_left_out_brings_goes() {
        let all = render("aaa", &every()).unwrap();
        let core = render("aaa", &[Feature::Http]).unwrap();
        for gone in
            ["candle-core", "tokenizers", "redis", "rquickjs", "jsonwebtoken", "prometheus-client", "rust-stemmers"]
        {
            assert!(names(&all).contains(&gone) && !names(&core).contains(&gone), "{gone}");
        }
        let runtime =
            |lock: &str| lock.split(ENTRY).find(|e| e.starts_with("name = \"mcpgen-runtime\"")).unwrap().to_string();
        assert!(runtime(&all).contains(" \"candle-core\",\n") && !runtime(&core).contains("candle"));
        let semantic = render("aaa", &[Feature::Http, Feature::Discovery, Feature::Semantic]).unwrap();
        assert!(names(&semantic).contains(&"candle-core") && !names(&semantic).contains(&"redis"));
    }

    const SMALL: &str = "# h\nversion = 4\n\n[[package]]\nname = \"a\"\nversion = \"1.0.0\"\nsource = \"registry+r\"\n\
                         checksum = \"c\"\n\n[[package]]\nname = \"a\"\nversion = \"2.0.0\"\nsource = \"registry+r\"\n\
                         checksum = \"d\"\ndependencies = [\n \"x\",\n]\n\n[[package]]\nname = \"mcpgen-generated-crate\"\n\
                         version = \"0.1.0\"\ndependencies = [\n \"a 1.0.0\",\n \"a 2.0.0\",\n]\n\n[[package]]\nname = \"x\"\n\
                         version = \"1.0.0\"\nsource = \"registry+r\"\nchecksum = \"e\"\n";

    /// Dependencies are written as Cargo writes them among the packages left: with their version
    /// only when several versions of the name are locked.
    #[test]
    fn dependencies_are_written_among_what_is_left() {
        let lock = Lock::parse(SMALL).unwrap();
        let e = &lock.entries;
        assert!(e[1].is("a 2.0.0") && !e[0].is("a 2.0.0") && e[0].is("a") && e[0].is("a 1.0.0 (registry+r)"));
        let root = lock.root().unwrap();
        let all = lock.pruned(root, "c", |_| true).unwrap();
        assert!(
            all.contains("name = \"c\"\nversion = \"0.1.0\"\ndependencies = [\n \"a 1.0.0\",\n \"a 2.0.0\",\n]\n"),
            "{all}"
        );
        let one = lock.pruned(root, "c", |d| d.written != "a 2.0.0").unwrap();
        assert_eq!(names(&one), ["a", "c"]);
        assert!(one.contains("dependencies = [\n \"a\",\n]\n") && !one.contains("name = \"x\""), "{one}");
    }

    /// The template marks what not every crate has with the features that bring it; a dependency
    /// that comes only with two features together is an error.
    #[test]
    fn the_template_marks_dependencies_with_their_features() {
        let core = SMALL.replace(" \"a 2.0.0\",\n", "").replace("\ndependencies = [\n \"x\",\n]\n", "\n");
        let with_x = SMALL.replace(" \"a 2.0.0\",\n", "");
        let template = lock_template(SMALL, &core, &[("f", SMALL), ("g", &with_x), ("h", &core)]).unwrap();
        assert!(template.contains(" \"a 2.0.0\", # f\n"), "{template}");
        assert!(template.contains("dependencies = [\n \"x\", # f, g\n]\n"), "{template}");
        let lock = Lock::parse(&template).unwrap();
        let only_h =
            lock.pruned(lock.root().unwrap(), "c", |d| d.features.is_empty() || d.features.contains(&"h".into()));
        let only_h = only_h.unwrap();
        assert_eq!(names(&only_h), ["a", "c"]);
        assert!(only_h.contains("dependencies = [\n \"a\",\n]\n"), "{only_h}");
        let err = lock_template(SMALL, &core, &[("g", &with_x)]).unwrap_err().to_string();
        assert!(err.contains("mcpgen-generated-crate 0.1.0 -> a 2.0.0 comes with no feature alone"), "{err}");
        assert!(lock_template(&core, SMALL, &[]).is_err(), "a lockfile with more than every feature's");
    }
}
