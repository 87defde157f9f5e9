//! The runtime crate (mcpgen-runtime, `runtime/` in this repository) as a generated crate carries it:
//! a copy in `mcpgen-runtime/` that the crate depends on by path, with the contract crate it
//! depends on (mcpgen-config, `config/`) in `mcpgen-config/` beside it (the crate builds from
//! crates.io alone), or the published version (`--runtime registry`); and the features of it that
//! the crate's config needs.

mod modules;

/// The contract crate's files (mcpgen-config, `config/`), relative to its root: copied into
/// `mcpgen-config/`, beside the runtime's copy that depends on it. Cargo.toml first, then by path.
pub(super) fn config_sources() -> &'static [(&'static str, &'static str)] {
    &vendored_files().1
}

/// The runtime crate's files, relative to its root: copied into `mcpgen-runtime/`. Cargo.toml
/// first, then by path.
pub(super) fn sources() -> &'static [(&'static str, &'static str)] {
    &vendored_files().0
}

/// One crate's files: (path relative to its root, contents).
type Files = Vec<(&'static str, &'static str)>;

/// The two crates' files, unpacked once from the blob `build.rs` makes of `runtime/` and
/// `config/` (compressed: as text they were a megabyte of the binary).
fn vendored_files() -> &'static (Files, Files) {
    static PACKED: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/vendored.deflate"));
    static FILES: std::sync::OnceLock<(Files, Files)> = std::sync::OnceLock::new();
    FILES.get_or_init(|| {
        // mcpgen's own build output, never input: a failure here is a broken build.
        let bytes = miniz_oxide::inflate::decompress_to_vec(PACKED).expect("build.rs packs the vendored sources");
        let text: &'static str = String::from_utf8(bytes).expect("the vendored sources are UTF-8").leak();
        let (mut runtime, mut config) = (Vec::new(), Vec::new());
        let mut rest = text;
        while let Some((name, after)) = rest.split_once('\0') {
            let (len, after) = after.split_once('\0').expect("build.rs writes a length after each name");
            let len: usize = len.parse().expect("build.rs writes lengths in decimal");
            let (contents, after) = after.split_at(len);
            match name.split_once('/') {
                Some(("runtime", path)) => runtime.push((path, contents)),
                Some(("config", path)) => config.push((path, contents)),
                _ => unreachable!("build.rs packs runtime/ and config/ only, not {name}"),
            }
            rest = after;
        }
        (runtime, config)
    })
}

use mcpgen_config::RuntimeConfig;

/// Where a generated crate gets the runtime from (`--runtime`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum RuntimeSource {
    /// A copy of the runtime crate in `mcpgen-runtime/`, a path dependency: the crate builds from
    /// crates.io alone.
    #[default]
    Vendored,
    /// `mcpgen-runtime = "=X.Y.Z"` from the registry, for a crate that is published.
    Registry,
}

/// A feature of mcpgen-runtime that a generated crate gets when its config needs it or it is asked
/// for (`--with`); the HTTP transport always. Reload is never one: a generated crate embeds its
/// catalogue. Its names and what each implies are the contract's table
/// ([`mcpgen_config::features::FEATURES`]).
pub use mcpgen_config::features::Feature;

/// The features a crate serving `config` gets: HTTP always, discovery when its tool mode can
/// choose discovery or compact schemas (as `auto` would with the default limits, or as the config
/// says), search by meaning when the config names a model, code mode's sandbox when the config
/// runs scripts, and whatever was asked for.
pub fn features_for(config: &RuntimeConfig, asked: &[Feature]) -> Vec<Feature> {
    let mut out: Vec<Feature> = asked.to_vec();
    out.push(Feature::Http);
    let exposure = mcpgen_config::exposure::resolve(&config.context, &config.tools, &config.definitions);
    if exposure.discovery || exposure.compact {
        out.push(Feature::Discovery);
    }
    if config.context.search_model.is_some() {
        out.push(Feature::Semantic);
    }
    if exposure.code || config.context.run_script {
        out.push(Feature::Code);
    }
    // Each user's own authorization at an API acts for callers of validated access tokens.
    let modes = crate::runtime::tooling::declared_modes(config);
    if modes.contains(&crate::runtime::UpstreamAuth::User) {
        out.push(Feature::UserAuth);
    }
    if modes.iter().any(|m| *m != crate::runtime::UpstreamAuth::Server) {
        out.push(Feature::OAuth);
    }
    // What those bring with them (redis-store user-auth, user-auth oauth, code discovery...).
    mcpgen_config::features::with_implied(out)
}

/// The `mcpgen-runtime` line of the crate's Cargo.toml.
pub(super) fn dependency(source: RuntimeSource, features: &[Feature]) -> String {
    let list = features.iter().map(|f| format!("\"{}\"", f.name())).collect::<Vec<_>>().join(", ");
    match source {
        RuntimeSource::Vendored => {
            format!("mcpgen-runtime = {{ path = \"mcpgen-runtime\", default-features = false, features = [{list}] }}")
        }
        RuntimeSource::Registry => format!(
            "mcpgen-runtime = {{ version = \"={}\", default-features = false, features = [{list}] }}",
            crate::runtime::VERSION
        ),
    }
}

/// Where the runtime's copy finds the contract's: its path dependency as the repository has it,
/// and as the generated crate lays the copies out.
const CONFIG_PATH: (&str, &str) = ("path = \"../config\"", "path = \"../mcpgen-config\"");

/// The files of a crate's copy of `sources` (the runtime's or the contract's) for a crate with
/// `features`: its manifest and the sources that build compiles ([`modules::compiled`]): no test
/// modules, nothing only a feature it lacks compiles.
pub(super) fn vendored(
    sources: &[(&'static str, &'static str)],
    features: &[&str],
) -> Vec<(&'static str, &'static str)> {
    let compiled = modules::compiled(sources, features);
    sources.iter().filter(|(name, _)| *name == "Cargo.toml" || compiled.contains(name)).copied().collect()
}

/// A vendored crate's manifest as the copy ships it for a crate with `features`: without its
/// dev-dependencies (mcpgen's tests of the runtime do not ship), without the features the crate
/// lacks and the optional dependencies only they name (the copy's lockfile then lists only what it
/// compiles), those features' names declared to the compiler (the sources' `cfg(feature = ..)`s of
/// them stay), and with the runtime's path to the contract's copy.
pub(super) fn vendored_manifest(header: &str, manifest: &str, features: &[&str]) -> String {
    let manifest = manifest.replace(CONFIG_PATH.0, CONFIG_PATH.1);
    let declared = cargo_features(&manifest);
    let left_out: Vec<&str> =
        declared.iter().map(|(n, _)| n.as_str()).filter(|n| *n != "default" && !features.contains(n)).collect();
    let dropped_deps = dropped_dependencies(&manifest, features);
    let mut out: Vec<&str> = Vec::new();
    let mut section = "";
    for line in manifest.lines() {
        if line.starts_with('[') {
            section = line;
        }
        let key = line.split_once(" = ").map(|(k, _)| k.trim());
        let dropped = match section {
            "[dev-dependencies]" => true,
            "[features]" => key.is_some_and(|k| left_out.contains(&k)),
            s if s.ends_with("dependencies]") => key.is_some_and(|k| dropped_deps.iter().any(|d| d == k)),
            _ => false,
        };
        if dropped {
            // With the comment that says what it is.
            while out.last().is_some_and(|l| l.starts_with('#')) {
                out.pop();
            }
            continue;
        }
        out.push(line);
    }
    while out.last().is_some_and(|l| l.trim().is_empty()) {
        out.pop();
    }
    let mut text = format!("# {header}\n{}\n", out.join("\n"));
    if !left_out.is_empty() {
        let values = left_out.iter().map(|f| format!("\"{f}\"")).collect::<Vec<_>>().join(", ");
        text.push_str(&format!(
            "\n# The features this copy leaves out, named in its sources' `cfg`s.\n[lints.rust]\n\
             unexpected_cfgs = {{ level = \"warn\", check-cfg = ['cfg(feature, values({values}))'] }}\n"
        ));
    }
    text
}

/// The optional dependencies of `manifest` that no feature of `features` turns on (`dep:name`,
/// `name`, or `name/feature` in its list): those a crate with `features` leaves out.
fn dropped_dependencies(manifest: &str, features: &[&str]) -> Vec<String> {
    let declared = cargo_features(manifest);
    let turned_on = |dep: &str| {
        declared.iter().filter(|(n, _)| features.contains(&n.as_str())).flat_map(|(_, list)| list).any(|item| {
            item.strip_prefix("dep:").unwrap_or(item).split('/').next() == Some(dep) && !item.contains("?/")
        })
    };
    let mut out = Vec::new();
    let mut in_dependencies = false;
    for line in manifest.lines() {
        if line.starts_with('[') {
            in_dependencies = line.ends_with("dependencies]") && line != "[dev-dependencies]";
            continue;
        }
        let Some((name, spec)) = line.split_once(" = ") else { continue };
        if in_dependencies && spec.contains("optional = true") && !turned_on(name.trim()) {
            out.push(name.trim().to_string());
        }
    }
    out
}

/// The `[features]` table of a manifest: each feature with its list, read from the TOML text
/// (one `name = [..]` a line, comments skipped: the runtime's manifest is written so).
fn cargo_features(manifest: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') && !line.contains('=') {
            inside = line == "[features]";
            continue;
        }
        if !inside || line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((name, list)) = line.split_once('=') else { continue };
        let list = list.trim().trim_start_matches('[').trim_end_matches(']');
        let items = list.split(',').map(|s| s.trim().trim_matches('"').to_string()).filter(|s| !s.is_empty());
        out.push((name.trim().to_string(), items.collect()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpgen_config::features::FEATURES;

    /// mcpgen-runtime's manifest.
    const RUNTIME_MANIFEST: &str = include_str!("../../runtime/Cargo.toml");

    /// Every file of the runtime crate and of the contract crate is copied.
    #[test]
    fn sources_are_complete() {
        check_sources("runtime", sources());
        check_sources("config", config_sources());
    }

    /// The runtime's manifest names the contract where the copies put it.
    #[test]
    fn the_runtime_copy_finds_the_contract_copy() {
        assert_eq!(sources()[0].0, "Cargo.toml");
        assert!(RUNTIME_MANIFEST.contains(CONFIG_PATH.0), "runtime/Cargo.toml depends on ../config");
        assert!(vendored_manifest("h", RUNTIME_MANIFEST, &["http"]).contains(CONFIG_PATH.1));
    }

    fn check_sources(dir: &str, sources: &[(&str, &str)]) {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
        let mut on_disk = vec!["Cargo.toml".to_string()];
        let mut stack = vec![root.join("src")];
        while let Some(dir) = stack.pop() {
            for e in std::fs::read_dir(dir).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else {
                    on_disk.push(p.strip_prefix(&root).unwrap().to_str().unwrap().replace('\\', "/"));
                }
            }
        }
        on_disk.sort();
        let mut listed: Vec<String> = sources.iter().map(|(n, _)| n.to_string()).collect();
        listed.sort();
        assert_eq!(listed, on_disk, "every file of {dir}/ is copied");
    }

    #[test]
    fn the_copy_has_no_dev_dependencies() {
        let m = vendored_manifest(
            "@generated",
            "[package]\nname = \"x\"\n\n[dev-dependencies]\na = \"1\"\n\n[features]\nf = []\n",
            &["f"],
        );
        assert_eq!(m, "# @generated\n[package]\nname = \"x\"\n\n[features]\nf = []\n");
    }

    /// A copy's manifest has the features of its crate, the dependencies they and the core need,
    /// and declares the names of the others, which its sources name in `cfg`s.
    #[test]
    fn the_copy_has_only_its_features() {
        let m = "[dependencies]\nbase = \"1\"\n# The A library.\na = { version = \"1\", optional = true }\n\
                 b = { version = \"1\", optional = true }\n\n[features]\ndefault = []\n# Feature a.\nfa = [\"dep:a\"]\n\
                 fb = [\"dep:b\", \"base/x\"]\nall = [\"fa\", \"fb\"]\n";
        assert_eq!(dropped_dependencies(m, &["fb"]), ["a"]);
        assert_eq!(
            vendored_manifest("h", m, &["fb"]),
            "# h\n[dependencies]\nbase = \"1\"\nb = { version = \"1\", optional = true }\n\n[features]\n\
             default = []\nfb = [\"dep:b\", \"base/x\"]\n\n\
             # The features this copy leaves out, named in its sources' `cfg`s.\n[lints.rust]\n\
             unexpected_cfgs = { level = \"warn\", check-cfg = ['cfg(feature, values(\"fa\", \"all\"))'] }\n"
        );
        assert_eq!(dropped_dependencies(m, &["fa", "fb", "all"]), Vec::<String>::new());
        assert!(!vendored_manifest("h", m, &["fa", "fb", "all"]).contains("[lints"));
    }

    /// The petstore crate's copy (HTTP only) declares none of the other features' dependencies,
    /// and every feature's copy declares all it uses.
    #[test]
    fn the_runtime_copy_of_a_crate() {
        let http = vendored_manifest("h", RUNTIME_MANIFEST, &["http"]);
        for gone in
            ["candle-core", "tokenizers", "redis", "rquickjs", "jsonwebtoken", "prometheus-client", "rust-stemmers"]
        {
            assert!(!http.contains(&format!("\n{gone} = ")) && !http.contains(&format!("dep:{gone}")), "{gone}");
        }
        assert!(http.contains("\nhttp = [") && !http.contains("\nfull = [") && !http.contains("\n# Everything but"));
        assert!(!RUNTIME_MANIFEST.contains("[lints"), "the copy adds its own [lints.rust]");
        assert_eq!(dropped_dependencies(RUNTIME_MANIFEST, &["http"]).len(), 10);
        let every: Vec<&str> = FEATURES.iter().map(|f| f.name).collect();
        assert!(dropped_dependencies(RUNTIME_MANIFEST, &every).is_empty());
        assert!(
            vendored_manifest("h", RUNTIME_MANIFEST, &every)
                .contains(r#"check-cfg = ['cfg(feature, values("full"))']"#)
        );
    }

    /// The table is the runtime's `[features]`: the same features, each implying the same ones;
    /// `full` is those `in_full`, `default` is empty.
    #[test]
    fn the_feature_table_is_the_runtime_manifest() {
        let cargo = cargo_features(RUNTIME_MANIFEST);
        let mut names: Vec<&str> =
            cargo.iter().map(|(n, _)| n.as_str()).filter(|n| !["default", "full"].contains(n)).collect();
        names.sort();
        let mut tabled: Vec<&str> = FEATURES.iter().map(|f| f.name).collect();
        tabled.sort();
        assert_eq!(tabled, names, "FEATURES names runtime/Cargo.toml's features");
        for (name, list) in &cargo {
            let features: Vec<&str> =
                list.iter().map(String::as_str).filter(|i| !i.starts_with("dep:") && !i.contains('/')).collect();
            match name.as_str() {
                "default" => assert!(features.is_empty(), "no default features"),
                "full" => {
                    let full: Vec<&str> = FEATURES.iter().filter(|f| f.in_full).map(|f| f.name).collect();
                    assert_eq!(sorted(features), sorted(full), "full");
                }
                _ => {
                    let info = Feature::from_name(name).unwrap_or_else(|| panic!("{name} is in FEATURES")).info();
                    let implies: Vec<&str> = info.implies.iter().map(|f| f.name()).collect();
                    assert_eq!(sorted(features), sorted(implies), "what {name} implies");
                }
            }
        }
    }

    /// A copy's manifest names no file the copies lack, whatever the features (its comments name
    /// sources: `see response/jq.rs`).
    #[test]
    fn the_copy_names_only_files_it_has() {
        let mut sets: Vec<Vec<&str>> = vec![Vec::new(), FEATURES.iter().map(|f| f.name).collect()];
        sets.extend(FEATURES.iter().map(|f| vec![f.name]));
        for features in sets {
            let files: Vec<&str> = vendored(sources(), &features)
                .into_iter()
                .chain(vendored(config_sources(), &features))
                .map(|(n, _)| n)
                .collect();
            let manifest = vendored_manifest("h", RUNTIME_MANIFEST, &features);
            let names = manifest.split(|c: char| c.is_whitespace() || "()`'\",;:".contains(c));
            for name in names.filter(|w| w.ends_with(".rs") || w.ends_with(".md") || w.ends_with(".toml")) {
                let there = files.iter().any(|f| *f == name || f.ends_with(&format!("/{name}")));
                assert!(there, "the copy's manifest with {features:?} names {name}, which it lacks");
            }
        }
    }

    fn sorted(mut v: Vec<&str>) -> Vec<&str> {
        v.sort();
        v
    }

    #[test]
    fn dependency_lines() {
        let f = [Feature::Discovery, Feature::Metrics];
        assert_eq!(
            dependency(RuntimeSource::Vendored, &f),
            r#"mcpgen-runtime = { path = "mcpgen-runtime", default-features = false, features = ["discovery", "metrics"] }"#
        );
        assert!(dependency(RuntimeSource::Registry, &[]).starts_with(r#"mcpgen-runtime = { version = "="#));
    }
}
