//! Classification: each call's result against what mcpgen must answer for its request id, and
//! the tally of the outcomes across clients.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use rmcp::model::CallToolResult;
use serde_json::Value;

use crate::scenario::{Fault, fault_of, healthy};
use crate::{CAP, TIMEOUT_SECS};

/// How one call ended.
#[derive(Clone, Debug)]
pub(crate) enum Outcome {
    /// As expected for its fault.
    Correct(Fault),
    /// Anything else, with what was seen.
    Failure { fault: Fault, what: String },
    /// mcpgen said the upstream timed out where no timeout was due: a failure, unless this
    /// process (which holds the upstream) stalled meanwhile (see `Stalls`).
    TimedOut { fault: Fault, what: String },
}

/// The text blocks of a result, joined.
pub(crate) fn text_of(r: &CallToolResult) -> String {
    r.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect::<Vec<_>>().join("\n")
}

/// The first 300 characters of `s`, for messages.
pub(crate) fn excerpt(s: &str) -> String {
    let cut: String = s.chars().take(300).collect();
    if cut.len() < s.len() { format!("{cut}...") } else { cut }
}

/// Whether a result is what mcpgen must answer for request `rid`. Four faults are tool errors
/// (`isError`) named in the text; two still carry data, so mcpgen answers them as results whose
/// text says what is wrong (src/runtime/response.rs): invalid JSON comes back as raw text after
/// "the API declared JSON but sent invalid JSON", a body over `--max-response-bytes` cut with a
/// "[... truncated" marker.
pub(crate) fn check(rid: u64, r: &CallToolResult) -> Result<(), String> {
    let fault = fault_of(rid);
    let text = text_of(r);
    let error = r.is_error == Some(true);
    let want_error = matches!(fault, Fault::Status500 | Fault::Reset | Fault::Slow | Fault::Truncated);
    if error != want_error {
        return Err(format!("isError {:?}: {}", r.is_error, excerpt(&text)));
    }
    if fault != Fault::None && r.structured_content.is_some() {
        return Err(format!("structured content for a faulty answer: {}", excerpt(&text)));
    }
    let ok = match fault {
        Fault::None => {
            let want = healthy(rid);
            if r.structured_content.as_ref() != Some(&want) {
                return Err(format!("structured content {:?}, want {want}", r.structured_content));
            }
            serde_json::from_str::<Value>(&text).ok() == Some(want)
        }
        Fault::Status500 => text.contains("HTTP 500") && text.contains(&format!("injected failure for r{rid}\"")),
        // mcpgen's words for a connection closed before the status came, with the cause (a RST:
        // "connection reset by peer"); not "could not connect", since the API was reached.
        Fault::Reset => {
            text.contains("the connection was closed before the response came")
                && text.to_ascii_lowercase().contains("reset")
                && !text.contains("could not connect")
        }
        Fault::Slow => text.contains(&format!("timed out after {TIMEOUT_SECS} s")),
        Fault::Truncated => text.contains("HTTP 20") && text.contains("broke off"),
        Fault::BadJson => {
            text.contains("sent invalid JSON") && text.contains(&format!(r#"{{"id": "r{rid}", "oops": }}"#))
        }
        Fault::Big => {
            text.starts_with(&format!(r#"{{"rid":{rid},"blob":"xxxx"#))
                && text.contains("[... truncated")
                && text.len() >= CAP
                && text.len() < CAP + 1024
        }
    };
    if ok { Ok(()) } else { Err(excerpt(&text)) }
}

/// What the clients saw, merged.
#[derive(Default)]
pub(crate) struct Tally {
    pub(crate) correct: BTreeMap<Fault, usize>,
    pub(crate) failures: BTreeMap<Fault, usize>,
    pub(crate) examples: Vec<(u64, Fault, String)>,
    pub(crate) healthy_us: Vec<u32>,
    /// Unexpected timeouts, with when the call was made, until the stalls are known.
    timed_out: Vec<(u64, Fault, Instant, Instant, String)>,
    /// Unexpected timeouts during stalls of this process, by the fault that was due.
    pub(crate) stalled: BTreeMap<Fault, usize>,
}

impl Tally {
    /// Counts one call's outcome; `started` is when it was made.
    pub(crate) fn record(&mut self, rid: u64, outcome: Outcome, started: Instant) {
        match outcome {
            Outcome::Correct(fault) => {
                *self.correct.entry(fault).or_default() += 1;
                if fault == Fault::None {
                    self.healthy_us.push(started.elapsed().as_micros().min(u32::MAX as u128) as u32);
                }
            }
            Outcome::Failure { fault, what } => self.fail(rid, fault, what),
            Outcome::TimedOut { fault, what } => self.timed_out.push((rid, fault, started, Instant::now(), what)),
        }
    }

    fn fail(&mut self, rid: u64, fault: Fault, what: String) {
        *self.failures.entry(fault).or_default() += 1;
        if self.examples.len() < 20 {
            self.examples.push((rid, fault, what));
        }
    }

    /// Sorts the unexpected timeouts: those during which this process stalled for at least half
    /// the timeout are counted apart, the others are failures.
    pub(crate) fn resolve(&mut self, stalls: &[(Instant, Instant)]) {
        for (rid, fault, from, to, what) in std::mem::take(&mut self.timed_out) {
            let overlap: Duration = stalls.iter().map(|&(s, e)| to.min(e).saturating_duration_since(from.max(s))).sum();
            if overlap * 2 >= Duration::from_secs(TIMEOUT_SECS) {
                *self.stalled.entry(fault).or_default() += 1;
            } else {
                self.fail(rid, fault, what);
            }
        }
    }

    /// Adds another client's tally to this one.
    pub(crate) fn merge(&mut self, other: Tally) {
        for (k, v) in other.correct {
            *self.correct.entry(k).or_default() += v;
        }
        for (k, v) in other.failures {
            *self.failures.entry(k).or_default() += v;
        }
        let room = 20usize.saturating_sub(self.examples.len());
        self.examples.extend(other.examples.into_iter().take(room));
        self.healthy_us.extend(other.healthy_us);
        self.timed_out.extend(other.timed_out);
    }

    /// How many calls failed.
    pub(crate) fn failed(&self) -> usize {
        self.failures.values().sum()
    }
}
