//! The engine's cargo features (mcpgen-runtime's `[features]`), tabled once: what each does, what
//! it brings with it, and which of them `mcpgen generate --with` offers. The compiler picks a
//! generated crate's features from it, its command line offers them from it, and the engine names
//! them from it when a build lacks one. A test of the compiler's (which has the runtime's manifest
//! at hand: this crate's copy in a generated crate has not) holds the table equal to
//! `runtime/Cargo.toml`.

/// A cargo feature of mcpgen-runtime. The order is the order a generated crate's `Cargo.toml`
/// lists them in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Feature {
    /// Streamable HTTP and its fast path: every generated crate has it, so that every client can
    /// connect.
    Http,
    /// The 2024-11-05 HTTP+SSE transport (`--legacy-sse`).
    LegacySse,
    /// Discovery mode and compact schemas.
    Discovery,
    /// Search by meaning (candle).
    Semantic,
    /// Inbound OAuth (`--oauth-issuer`).
    OAuth,
    /// Prometheus metrics (`/metrics`, `--metrics-bind`).
    Metrics,
    /// Code mode (`run_script`'s sandbox, QuickJS).
    Code,
    /// Each user's own authorization at the API (`--upstream-auth user`) and its file token store.
    UserAuth,
    /// `--upstream-auth user`'s token store on Redis/Valkey, shared by replicas (with `UserAuth`).
    RedisStore,
    /// Reloading the catalogue (`mcpgen serve --watch`, SIGHUP); never a generated crate's, which
    /// embeds its catalogue.
    Reload,
}

/// One row of [`FEATURES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FeatureInfo {
    /// The feature.
    pub feature: Feature,
    /// Its cargo name (`legacy-sse`), which is also its `--with` value.
    pub name: &'static str,
    /// What it does, in one line (`--with`'s help for the features it offers).
    pub what: &'static str,
    /// The flag or setting that needs it, as the engine names it when a build lacks it.
    pub asked_by: &'static str,
    /// The features it brings with it (its cargo feature's list, without dependencies).
    pub implies: &'static [Feature],
    /// Whether `mcpgen generate --with` offers it (Streamable HTTP is always there, the others
    /// come with what needs them).
    pub offered: bool,
    /// Whether the runtime's `full` feature (what `mcpgen serve` runs) has it.
    pub in_full: bool,
}

/// Every feature of mcpgen-runtime, in the order `--with` lists those it offers.
pub const FEATURES: &[FeatureInfo] = &[
    FeatureInfo {
        feature: Feature::Http,
        name: "http",
        what: "Streamable HTTP at /mcp and its fast path, /health, /ready and --metrics-bind's listener",
        asked_by: "--transport http",
        implies: &[],
        offered: false,
        in_full: true,
    },
    FeatureInfo {
        feature: Feature::Discovery,
        name: "discovery",
        what: "Discovery mode and compact schemas",
        asked_by: "--tool-mode discovery",
        implies: &[],
        offered: true,
        in_full: true,
    },
    FeatureInfo {
        feature: Feature::Semantic,
        name: "semantic",
        what: "Search by meaning (candle; --search-model)",
        asked_by: "--search-model",
        implies: &[Feature::Discovery],
        offered: true,
        in_full: false,
    },
    FeatureInfo {
        feature: Feature::OAuth,
        name: "oauth",
        what: "OAuth access tokens on /mcp (--oauth-issuer)",
        asked_by: "--oauth-issuer",
        implies: &[Feature::Http],
        offered: true,
        in_full: true,
    },
    FeatureInfo {
        feature: Feature::Metrics,
        name: "metrics",
        what: "Prometheus metrics (/metrics, --metrics-bind)",
        asked_by: "--metrics-bind",
        implies: &[Feature::Http],
        offered: true,
        in_full: true,
    },
    FeatureInfo {
        feature: Feature::LegacySse,
        name: "legacy-sse",
        what: "The 2024-11-05 HTTP+SSE transport (--legacy-sse)",
        asked_by: "--legacy-sse",
        implies: &[Feature::Http],
        offered: true,
        in_full: true,
    },
    FeatureInfo {
        feature: Feature::Code,
        name: "code",
        what: "Code mode (--tool-mode code, --run-script): run_script's QuickJS sandbox",
        asked_by: "--tool-mode code",
        implies: &[Feature::Discovery],
        offered: true,
        in_full: true,
    },
    FeatureInfo {
        feature: Feature::UserAuth,
        name: "user-auth",
        what: "Each user's own authorization at the API (--upstream-auth user), tokens in a file store",
        asked_by: "--upstream-auth user",
        implies: &[Feature::OAuth],
        offered: false,
        in_full: true,
    },
    FeatureInfo {
        feature: Feature::RedisStore,
        name: "redis-store",
        what: "--upstream-auth user's token store on Redis/Valkey, shared by replicas (--token-store redis://…)",
        asked_by: "--token-store redis://…",
        implies: &[Feature::UserAuth],
        offered: true,
        in_full: true,
    },
    FeatureInfo {
        feature: Feature::Reload,
        name: "reload",
        what: "Reloading the catalogue on SIGHUP or when the input changes (mcpgen serve --watch)",
        asked_by: "--watch",
        implies: &[],
        offered: false,
        in_full: true,
    },
];

impl Feature {
    /// Its row of [`FEATURES`].
    pub fn info(self) -> &'static FeatureInfo {
        match FEATURES.iter().find(|f| f.feature == self) {
            Some(info) => info,
            // The table's test holds every feature in it.
            None => unreachable!("{self:?} is not in FEATURES"),
        }
    }

    /// The cargo feature's name (`legacy-sse`).
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// The feature of a cargo name (`legacy-sse`), if mcpgen-runtime has one of that name.
    pub fn from_name(name: &str) -> Option<Feature> {
        FEATURES.iter().find(|f| f.name == name).map(|f| f.feature)
    }
}

/// `features` with every feature they imply, and those imply, added (cargo's own reading of a
/// feature list), in [`Feature`]'s order without repeats.
pub fn with_implied(features: impl IntoIterator<Item = Feature>) -> Vec<Feature> {
    let mut out: Vec<Feature> = Vec::new();
    let mut todo: Vec<Feature> = features.into_iter().collect();
    while let Some(f) = todo.pop() {
        if !out.contains(&f) {
            out.push(f);
            todo.extend_from_slice(f.info().implies);
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_feature_is_tabled_once() {
        for f in FEATURES {
            assert_eq!(f.feature.info(), f, "{} once", f.name);
            assert_eq!(Feature::from_name(f.name), Some(f.feature));
        }
    }

    #[test]
    fn implications_are_closed() {
        assert_eq!(
            with_implied([Feature::RedisStore]),
            [Feature::Http, Feature::OAuth, Feature::UserAuth, Feature::RedisStore]
        );
        assert_eq!(
            with_implied([Feature::Code, Feature::Semantic]),
            [Feature::Discovery, Feature::Semantic, Feature::Code]
        );
        assert_eq!(with_implied([]), []);
    }
}
