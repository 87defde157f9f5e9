//! The Prometheus registry behind [`Metrics`] (feature `metrics`).

use std::fmt;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use prometheus_client::encoding::{EncodeLabelSet, EncodeLabelValue, LabelSetEncoder, LabelValueEncoder};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::{Registry, Unit};

use crate::error::UpstreamFault;

use super::Outcome;

/// Upper bounds of the upstream latency buckets, in seconds (the default timeout is 30 s).
const LATENCY_BUCKETS: [f64; 13] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0];

impl EncodeLabelValue for Outcome {
    fn encode(&self, encoder: &mut LabelValueEncoder<'_>) -> fmt::Result {
        EncodeLabelValue::encode(&self.as_str(), encoder)
    }
}

/// The labels of `mcpgen_tool_calls_total`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct CallLabels {
    tool: Arc<str>,
    outcome: Outcome,
}

impl EncodeLabelSet for CallLabels {
    fn encode(&self, encoder: &mut LabelSetEncoder<'_>) -> fmt::Result {
        [("tool", &*self.tool), ("outcome", self.outcome.as_str())].encode(encoder)
    }
}

type StatusLabel = [(&'static str, u16); 1];
type NameLabel = [(&'static str, &'static str); 1];

/// The server's metrics and their registry. Cheap to count into from many tasks at once.
pub struct Metrics {
    registry: Registry,
    tool_calls: Family<CallLabels, Counter>,
    unknown_tool: Counter,
    pub(super) in_flight: Gauge,
    tools: Gauge,
    withheld: Family<NameLabel, Gauge>,
    upstream_responses: Family<StatusLabel, Counter>,
    upstream_errors: Family<NameLabel, Counter>,
    upstream_duration: Histogram,
    retries: Counter,
    rate_limit_waits: Counter,
    rate_limit_wait_seconds: Counter<f64, AtomicU64>,
    reloads: Family<NameLabel, Counter>,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

impl fmt::Debug for Metrics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

impl Metrics {
    /// Every metric registered, at zero.
    pub fn new() -> Metrics {
        let mut registry = Registry::with_prefix("mcpgen");
        let tool_calls = Family::<CallLabels, Counter>::default();
        let unknown_tool =
            tool_calls.get_or_create_owned(&CallLabels { tool: Arc::from(""), outcome: Outcome::UnknownTool });
        let reloads = Family::<NameLabel, Counter>::default();
        for result in ["ok", "error"] {
            reloads.get_or_create_owned(&[("result", result)]);
        }
        let withheld = Family::<NameLabel, Gauge>::default();
        for reason in ["changed", "new"] {
            withheld.get_or_create_owned(&[("reason", reason)]);
        }
        let m = Metrics {
            registry: Registry::default(),
            tool_calls,
            unknown_tool,
            in_flight: Gauge::default(),
            tools: Gauge::default(),
            withheld,
            upstream_responses: Family::default(),
            upstream_errors: Family::default(),
            upstream_duration: Histogram::new(LATENCY_BUCKETS),
            retries: Counter::default(),
            rate_limit_waits: Counter::default(),
            rate_limit_wait_seconds: Counter::default(),
            reloads,
        };
        registry.register("tool_calls", "Tool calls by tool and outcome", m.tool_calls.clone());
        registry.register("tool_calls_in_flight", "Tool calls being answered now", m.in_flight.clone());
        registry.register("tools", "Tools in the loaded catalogue", m.tools.clone());
        registry.register(
            "tools_withheld",
            "Tools withheld by --pin-definitions, by reason (changed, new)",
            m.withheld.clone(),
        );
        registry.register(
            "upstream_responses",
            "Upstream HTTP responses by status code, one per attempt",
            m.upstream_responses.clone(),
        );
        registry.register(
            "upstream_errors",
            "Upstream attempts without a complete response, by kind (timeout, connect, broken_body, other)",
            m.upstream_errors.clone(),
        );
        registry.register_with_unit(
            "upstream_request_duration",
            "Time from sending an upstream request to the end of its response body, per attempt",
            Unit::Seconds,
            m.upstream_duration.clone(),
        );
        registry.register("upstream_retries", "Upstream requests sent again after a failure", m.retries.clone());
        registry.register(
            "rate_limit_waits",
            "Upstream requests that waited for the requests-per-second limit",
            m.rate_limit_waits.clone(),
        );
        registry.register_with_unit(
            "rate_limit_wait",
            "Time spent waiting for the requests-per-second limit",
            Unit::Seconds,
            m.rate_limit_wait_seconds.clone(),
        );
        registry.register("reloads", "Catalogue reloads by result (ok, error)", m.reloads.clone());
        Metrics { registry, ..m }
    }

    /// The metrics as OpenMetrics text (which Prometheus reads), ending with `# EOF`.
    pub fn encode(&self) -> String {
        let mut out = String::with_capacity(4096);
        // Writing to a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut out, &self.registry);
        out
    }

    /// A call to a tool the catalogue does not have.
    pub fn unknown_tool(&self) {
        self.unknown_tool.inc();
    }

    /// Counts a call in flight until the guard is dropped.
    pub fn in_flight(&self) -> InFlight<'_> {
        self.in_flight.inc();
        InFlight(&self.in_flight)
    }

    /// The catalogue now served has `n` tools.
    pub fn set_tools(&self, n: usize) {
        self.tools.set(i64::try_from(n).unwrap_or(i64::MAX));
    }

    /// The catalogue now served withholds `changed` tools whose definitions changed and `new`
    /// tools without a pin (`--pin-definitions`).
    pub fn set_withheld(&self, changed: usize, new: usize) {
        for (reason, n) in [("changed", changed), ("new", new)] {
            self.withheld.get_or_create(&[("reason", reason)]).set(i64::try_from(n).unwrap_or(i64::MAX));
        }
    }

    /// An upstream attempt that got a complete response.
    pub fn upstream_response(&self, status: u16, took: Duration) {
        self.upstream_responses.get_or_create(&[("status", status)]).inc();
        self.upstream_duration.observe(took.as_secs_f64());
    }

    /// An upstream attempt without a complete response.
    pub fn upstream_error(&self, fault: UpstreamFault, took: Duration) {
        let kind = match fault {
            UpstreamFault::Timeout => "timeout",
            UpstreamFault::Connect => "connect",
            UpstreamFault::Closed => "closed",
            UpstreamFault::BrokenBody => "broken_body",
            _ => "other",
        };
        self.upstream_errors.get_or_create(&[("kind", kind)]).inc();
        self.upstream_duration.observe(took.as_secs_f64());
    }

    /// An upstream request is sent again.
    pub fn retry(&self) {
        self.retries.inc();
    }

    /// A request waited this long for the requests-per-second limit.
    pub fn rate_limit_wait(&self, waited: Duration) {
        self.rate_limit_waits.inc();
        self.rate_limit_wait_seconds.inc_by(waited.as_secs_f64());
    }

    /// A reload of the catalogue succeeded (`ok`) or failed; for the code that reloads.
    pub fn reloaded(&self, ok: bool) {
        self.reloads.get_or_create(&[("result", if ok { "ok" } else { "error" })]).inc();
    }
}

/// A call in flight (see [`Metrics::in_flight`]).
#[must_use]
pub struct InFlight<'a>(&'a Gauge);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.dec();
    }
}

/// The call counters of one catalogue's tools, each tool's looked up on its first call and kept
/// (a few bytes per tool until then: Microsoft Graph has 22,000 tools).
pub struct ToolCounters {
    tools: Vec<OnceLock<Box<[Counter; Outcome::ALL.len()]>>>,
}

impl ToolCounters {
    /// Room for `n` tools.
    pub fn new(n: usize) -> ToolCounters {
        ToolCounters { tools: (0..n).map(|_| OnceLock::new()).collect() }
    }

    /// Counts a call of tool `index` (named `name`); the first call of a tool sets all its
    /// outcomes at zero, so that rates over them are defined.
    pub fn count(&self, metrics: &Metrics, index: usize, name: &str, outcome: Outcome) {
        let Some(slot) = self.tools.get(index) else { return };
        let counters = slot.get_or_init(|| {
            let tool: Arc<str> = Arc::from(name);
            Box::new(
                Outcome::ALL
                    .map(|outcome| metrics.tool_calls.get_or_create_owned(&CallLabels { tool: tool.clone(), outcome })),
            )
        });
        counters[outcome.index()].inc();
    }
}
