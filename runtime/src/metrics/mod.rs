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
//! - `tool_calls_total{tool,outcome}` (see [`Outcome`]), `tool_calls_in_flight`, `tools`,
//!   `tools_withheld{reason}` (`--pin-definitions`: `changed`, `new`);
//! - `upstream_responses_total{status}`, `upstream_errors_total{kind}`,
//!   `upstream_request_duration_seconds` (a histogram, one observation per attempt),
//!   `upstream_retries_total`, `rate_limit_waits_total`, `rate_limit_wait_seconds_total`;
//! - `reloads_total{result}`.

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

#[cfg(feature = "metrics")]
mod registry;
#[cfg(feature = "metrics")]
pub use registry::{Metrics, ToolCounters};

#[cfg(not(feature = "metrics"))]
mod off;
#[cfg(not(feature = "metrics"))]
pub use off::{Metrics, ToolCounters};

/// The content type of [`Metrics::encode`]'s text.
#[cfg(feature = "http")]
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

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

    #[cfg(feature = "metrics")]
    fn index(self) -> usize {
        self as usize
    }

    /// Whether a call with this outcome was made: answered by the API (or its handler), or lost
    /// on its way there; not when the arguments, a hook, the credentials, the name or the scopes
    /// stopped it before anything was sent.
    pub fn sent(self) -> bool {
        match self {
            Outcome::Ok | Outcome::ToolError | Outcome::UpstreamError | Outcome::TransportError => true,
            Outcome::InvalidArguments
            | Outcome::Refused
            | Outcome::CredentialsError
            | Outcome::UnknownTool
            | Outcome::Forbidden => false,
        }
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
    #[cfg(feature = "metrics")]
    use crate::error::UpstreamFault;
    #[cfg(feature = "metrics")]
    use std::time::Duration;

    #[cfg(feature = "metrics")]
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
        m.set_withheld(2, 1);
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
            "mcpgen_tools_withheld{reason=\"changed\"} 2",
            "mcpgen_tools_withheld{reason=\"new\"} 1",
        ] {
            assert!(text.lines().any(|l| l == line), "{line} missing from\n{text}");
        }
        assert!(text.ends_with("# EOF\n"));
    }

    #[cfg(feature = "metrics")]
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
