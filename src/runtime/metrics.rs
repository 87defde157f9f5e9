//! What a running server tells its operator: Prometheus metrics (`/metrics`, OpenMetrics text by
//! `prometheus-client`), readiness (`/ready`), and the id of each tool call in the logs.
//!
//! One [`Metrics`] lives as long as the server: engines are built with it (through
//! [`EngineOptions`](super::EngineOptions)), so that counters go on across a reload of the
//! catalogue. Counting costs atomics only: each tool's counters are looked up once, on its first
//! call, and kept by the engine ([`ToolCounters`]). No label holds a URL, an argument or anything
//! else a client chooses: `tool` is a name of the catalogue (or empty for an unknown tool).
//!
//! The metrics, all prefixed `mcpgen_`:
//! - `tool_calls_total{tool,outcome}` (see [`Outcome`]), `tool_calls_in_flight`, `tools`;
//! - `upstream_responses_total{status}`, `upstream_errors_total{kind}`,
//!   `upstream_request_duration_seconds` (a histogram, one observation per attempt),
//!   `upstream_retries_total`, `rate_limit_waits_total`, `rate_limit_wait_seconds_total`;
//! - `reloads_total{result}`.

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use prometheus_client::encoding::{EncodeLabelSet, EncodeLabelValue, LabelSetEncoder, LabelValueEncoder};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::{Registry, Unit};

use super::error::UpstreamFault;

/// The content type of [`Metrics::encode`]'s text.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// Upper bounds of the upstream latency buckets, in seconds (the default timeout is 30 s).
const LATENCY_BUCKETS: [f64; 13] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0];

/// How a tool call ended: the `outcome` label of `mcpgen_tool_calls_total`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// A result without `isError`.
    Ok,
    /// An `isError` result from the tool: the upstream answered 4xx (or another status that is not
    /// 2xx nor 5xx), a handler failed, a result broke the output schema.
    ToolError,
    /// The upstream answered 5xx.
    UpstreamError,
    /// The arguments broke the tool's schema or could not be put into a request.
    InvalidArguments,
    /// The upstream did not answer in time, could not be reached, or its body broke off.
    TransportError,
    /// A `before_request` hook refused the call.
    Refused,
    /// The call's credentials could not be added (an OAuth2 token endpoint failed, say).
    CredentialsError,
    /// No tool of that name (a JSON-RPC error, not a result).
    UnknownTool,
    /// The caller's access token lacks the tool's scopes (a JSON-RPC error; nothing was sent).
    Forbidden,
}

impl Outcome {
    /// Every outcome, in the order of [`Outcome::index`].
    pub const ALL: [Outcome; 9] = [
        Outcome::Ok,
        Outcome::ToolError,
        Outcome::UpstreamError,
        Outcome::InvalidArguments,
        Outcome::TransportError,
        Outcome::Refused,
        Outcome::CredentialsError,
        Outcome::UnknownTool,
        Outcome::Forbidden,
    ];

    /// The label value.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::ToolError => "tool_error",
            Outcome::UpstreamError => "upstream_error",
            Outcome::InvalidArguments => "invalid_arguments",
            Outcome::TransportError => "transport_error",
            Outcome::Refused => "refused",
            Outcome::CredentialsError => "credentials_error",
            Outcome::UnknownTool => "unknown_tool",
            Outcome::Forbidden => "forbidden",
        }
    }

    fn index(self) -> usize {
        self as usize
    }

    /// The outcome of an upstream answer with this status.
    pub fn of_status(status: u16) -> Outcome {
        match status {
            200..=299 => Outcome::Ok,
            500..=599 => Outcome::UpstreamError,
            _ => Outcome::ToolError,
        }
    }
}

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
    in_flight: Gauge,
    tools: Gauge,
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
        let m = Metrics {
            registry: Registry::default(),
            tool_calls,
            unknown_tool,
            in_flight: Gauge::default(),
            tools: Gauge::default(),
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

/// Whether the server can answer calls: `/ready` answers 200 while it is set, 503 otherwise.
/// Shared by the listeners and the code that loads (or reloads) the catalogue.
#[derive(Debug, Clone, Default)]
pub struct Readiness(Arc<AtomicBool>);

impl Readiness {
    /// Ready (an engine is loaded and serving) or not.
    pub fn set(&self, ready: bool) {
        self.0.store(ready, Ordering::Release);
    }

    /// Whether an engine is loaded and serving.
    pub fn is_ready(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }
}

/// The id of one tool call in the logs: 16 hex digits, unique in the process and unlikely to
/// repeat across processes (a random start, then a bijective mix of a counter).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestId(u64);

impl RequestId {
    /// The next id.
    pub fn next() -> RequestId {
        static SEED: OnceLock<u64> = OnceLock::new();
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let seed = *SEED.get_or_init(|| {
            use std::hash::{BuildHasher, Hasher};
            std::collections::hash_map::RandomState::new().build_hasher().finish()
        });
        RequestId(mix(seed.wrapping_add(COUNTER.fetch_add(1, Ordering::Relaxed))))
    }
}

impl fmt::Display for RequestId {
    /// 16 lower-case hex digits. Written out by hand: `{:016x}` costs a call's span more than
    /// the rest of its fields (docs/performance.md, "Sixth look").
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut out = [0u8; 16];
        for (i, digit) in out.iter_mut().enumerate() {
            *digit = DIGITS[((self.0 >> (60 - 4 * i)) & 0xf) as usize];
        }
        // Every byte is an ASCII hex digit.
        f.write_str(std::str::from_utf8(&out).unwrap_or_default())
    }
}

/// splitmix64's finaliser: a bijection on u64, so distinct counters give distinct ids.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_show_in_the_text() {
        let m = Metrics::new();
        let counters = ToolCounters::new(2);
        counters.count(&m, 1, "getPet", Outcome::Ok);
        counters.count(&m, 1, "getPet", Outcome::Ok);
        counters.count(&m, 1, "getPet", Outcome::UpstreamError);
        m.unknown_tool();
        m.upstream_response(200, Duration::from_millis(3));
        m.upstream_error(UpstreamFault::Timeout, Duration::from_secs(1));
        m.rate_limit_wait(Duration::from_millis(250));
        m.reloaded(false);
        let text = m.encode();
        for line in [
            "mcpgen_tool_calls_total{tool=\"getPet\",outcome=\"ok\"} 2",
            "mcpgen_tool_calls_total{tool=\"getPet\",outcome=\"upstream_error\"} 1",
            "mcpgen_tool_calls_total{tool=\"getPet\",outcome=\"refused\"} 0",
            "mcpgen_tool_calls_total{tool=\"\",outcome=\"unknown_tool\"} 1",
            "mcpgen_upstream_responses_total{status=\"200\"} 1",
            "mcpgen_upstream_errors_total{kind=\"timeout\"} 1",
            "mcpgen_upstream_request_duration_seconds_count 2",
            "mcpgen_upstream_request_duration_seconds_bucket{le=\"0.005\"} 1",
            "mcpgen_rate_limit_waits_total 1",
            "mcpgen_rate_limit_wait_seconds_total 0.25",
            "mcpgen_reloads_total{result=\"error\"} 1",
            "mcpgen_reloads_total{result=\"ok\"} 0",
            "mcpgen_tool_calls_in_flight 0",
        ] {
            assert!(text.lines().any(|l| l == line), "{line} missing from\n{text}");
        }
        assert!(text.ends_with("# EOF\n"));
    }

    #[test]
    fn in_flight_goes_down_when_dropped() {
        let m = Metrics::new();
        let a = m.in_flight();
        let b = m.in_flight();
        assert_eq!(m.in_flight.get(), 2);
        drop(a);
        drop(b);
        assert_eq!(m.in_flight.get(), 0);
    }

    #[test]
    fn request_ids_are_distinct() {
        let ids: std::collections::HashSet<String> = (0..1000).map(|_| RequestId::next().to_string()).collect();
        assert_eq!(ids.len(), 1000);
        assert!(ids.iter().all(|id| id.len() == 16));
    }

    #[test]
    fn request_ids_are_written_as_16_hex_digits() {
        for n in [0, 1, 0xabc, 0x0123_4567_89ab_cdef, u64::MAX] {
            assert_eq!(RequestId(n).to_string(), format!("{n:016x}"));
        }
    }
}
