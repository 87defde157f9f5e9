//! [`Metrics`] in a server built without the `metrics` feature: the same calls, counting nothing
//! (`--metrics-bind` is refused at start, and `/metrics` is not served).

use std::marker::PhantomData;
use std::time::Duration;

use super::Outcome;
use crate::error::UpstreamFault;

/// Counts nothing: this server was built without the `metrics` feature.
#[derive(Debug, Default)]
pub struct Metrics;

impl Metrics {
    /// Nothing to register.
    pub fn new() -> Metrics {
        Metrics
    }

    /// No metrics: empty text.
    pub fn encode(&self) -> String {
        String::new()
    }

    /// Not counted.
    pub fn unknown_tool(&self) {}

    /// Not counted.
    pub fn in_flight(&self) -> InFlight<'_> {
        InFlight(PhantomData)
    }

    /// Not counted.
    pub fn set_tools(&self, _n: usize) {}

    /// Not counted.
    pub fn set_withheld(&self, _changed: usize, _new: usize) {}

    /// Not counted.
    pub fn upstream_response(&self, _status: u16, _took: Duration) {}

    /// Not counted.
    pub fn upstream_error(&self, _fault: UpstreamFault, _took: Duration) {}

    /// Not counted.
    pub fn retry(&self) {}

    /// Not counted.
    pub fn rate_limit_wait(&self, _waited: Duration) {}

    /// Not counted.
    pub fn reloaded(&self, _ok: bool) {}
}

/// A call in flight, not counted.
#[must_use]
pub struct InFlight<'a>(PhantomData<&'a ()>);

/// No counters.
pub struct ToolCounters;

impl ToolCounters {
    /// No room needed.
    pub fn new(_n: usize) -> ToolCounters {
        ToolCounters
    }

    /// Not counted.
    pub fn count(&self, _metrics: &Metrics, _index: usize, _name: &str, _outcome: Outcome) {}
}
