//! What runs beside the load: the sampler of the server's RSS and open fds, the progress line,
//! and the watchdog that notes stalls of this process. Each runs until `finished` is set.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio::task::JoinHandle;

use crate::STALL;

/// The server's resident size and open fds at one moment of the run.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sample {
    /// Since the calls started.
    pub(crate) at: Duration,
    /// Calls completed by then.
    pub(crate) done: usize,
    pub(crate) rss_kb: u64,
    pub(crate) fds: usize,
}

fn rss_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status.lines().find(|l| l.starts_with("VmRSS:"))?.split_whitespace().nth(1)?.parse().ok()
}

/// How many files process `pid` has open.
pub(crate) fn fd_count(pid: u32) -> Option<usize> {
    Some(std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?.count())
}

/// RSS and open fds of process `pid` every second.
pub(crate) fn sampler(
    pid: u32,
    started: Instant,
    done: Arc<AtomicUsize>,
    finished: Arc<AtomicBool>,
) -> JoinHandle<Vec<Sample>> {
    tokio::spawn(async move {
        let mut samples = Vec::new();
        let mut tick = tokio::time::interval(Duration::from_secs(1));
        while !finished.load(Ordering::Relaxed) {
            tick.tick().await;
            if let (Some(rss_kb), Some(fds)) = (rss_kb(pid), fd_count(pid)) {
                samples.push(Sample { at: started.elapsed(), done: done.load(Ordering::Relaxed), rss_kb, fds });
            }
        }
        samples
    })
}

/// SOAK_SAMPLES=FILE keeps the samples as CSV.
pub(crate) fn keep_samples(samples: &[Sample]) {
    if let Some(path) = std::env::var_os("SOAK_SAMPLES") {
        let mut csv = String::from("seconds,calls,rss_kb,fds\n");
        for s in samples {
            csv.push_str(&format!("{:.1},{},{},{}\n", s.at.as_secs_f64(), s.done, s.rss_kb, s.fds));
        }
        std::fs::write(path, csv).expect("write SOAK_SAMPLES");
    }
}

/// Progress every 10 % of `calls`, on stderr.
pub(crate) fn progress(
    calls: usize,
    started: Instant,
    done: Arc<AtomicUsize>,
    finished: Arc<AtomicBool>,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut shown = 0;
        while !finished.load(Ordering::Relaxed) {
            tokio::time::sleep(Duration::from_millis(200)).await;
            let d = done.load(Ordering::Relaxed);
            if d * 10 / calls > shown {
                shown = d * 10 / calls;
                eprintln!("  {d} calls in {:.1} s", started.elapsed().as_secs_f64());
            }
        }
    })
}

/// Stalls of this process: the upstream lives here, so while it is not scheduled (a busy
/// shared machine), mcpgen rightly times out calls that were due a healthy answer.
pub(crate) fn watchdog(finished: Arc<AtomicBool>) -> JoinHandle<Vec<(Instant, Instant)>> {
    tokio::spawn(async move {
        let mut stalls = Vec::new();
        let mut last = Instant::now();
        while !finished.load(Ordering::Relaxed) {
            tokio::time::sleep(Duration::from_millis(20)).await;
            let now = Instant::now();
            if now - last > STALL {
                stalls.push((last, now));
            }
            last = now;
        }
        stalls
    })
}
