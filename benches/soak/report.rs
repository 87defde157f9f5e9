//! The report: what the run saw, section by section, and the problems that fail the soak.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use crate::STALL;
use crate::classify::{Tally, excerpt};
use crate::clients::ReloadReport;
use crate::monitor::Sample;
use crate::scenario::{FAULTS, Fault, Op, fault_of, op_of};
use crate::server::Stop;
use crate::upstream::UpstreamCounts;

/// Everything the run gathered.
pub(crate) struct Run {
    pub(crate) calls: usize,
    pub(crate) clients: usize,
    pub(crate) duration: Duration,
    /// With the unexpected timeouts already resolved against the stalls.
    pub(crate) tally: Tally,
    pub(crate) stalls: Vec<(Instant, Instant)>,
    pub(crate) counts: std::sync::Arc<UpstreamCounts>,
    pub(crate) reload: Result<ReloadReport, String>,
    pub(crate) samples: Vec<Sample>,
    /// Open fds of the idle server before and after the calls.
    pub(crate) fds_before: usize,
    pub(crate) fds_after: usize,
    pub(crate) server: Stop,
}

/// Prints the report; returns the problems found (none: the soak passed).
pub(crate) fn report(run: &Run) -> Vec<String> {
    let mut problems: Vec<String> = Vec::new();
    println!();
    calls(run, &mut problems);
    latency(&run.tally);
    upstream(run, &mut problems);
    reload(run, &mut problems);
    let warm: Vec<Sample> = run.samples.iter().copied().filter(|s| s.done * 10 >= run.calls).collect();
    if warm.is_empty() {
        println!("memory       too few samples after warm-up ({} in all)", run.samples.len());
    } else {
        rss(&warm, &mut problems);
        fds(run, &warm, &mut problems);
    }
    println!("             idle: {} fds before the calls, {} after", run.fds_before, run.fds_after);
    if run.fds_after > run.fds_before + run.clients {
        problems.push(format!("{} fds open after the calls, {} before", run.fds_after, run.fds_before));
    }
    server_log(&run.server, &mut problems);
    failed_calls(&run.tally);
    problems
}

/// Unexpected timeouts during stalls of this process, counted apart.
fn stalled(tally: &Tally) -> usize {
    tally.stalled.values().sum()
}

/// The calls by outcome, and the stalls of this process.
fn calls(run: &Run, problems: &mut Vec<String>) {
    let (tally, calls, stalls) = (&run.tally, run.calls, &run.stalls);
    let stalled = stalled(tally);
    let total: usize = tally.correct.values().sum::<usize>() + tally.failed() + stalled;
    println!(
        "calls        {total} in {:.1} s: {:.0} calls/s ({} clients)",
        run.duration.as_secs_f64(),
        total as f64 / run.duration.as_secs_f64(),
        run.clients
    );
    let mut line = String::new();
    for fault in std::iter::once(Fault::None).chain(FAULTS) {
        let ok = tally.correct.get(&fault).copied().unwrap_or(0);
        let bad = tally.failures.get(&fault).copied().unwrap_or(0);
        line.push_str(&format!("{}: {ok}", fault.name()));
        if bad > 0 {
            line.push_str(&format!(" (+{bad} FAILED)"));
        }
        line.push_str(", ");
    }
    println!("correct      {}", line.trim_end_matches(", "));
    let faulty: usize = FAULTS.iter().map(|f| tally.correct.get(f).copied().unwrap_or(0)).sum();
    println!(
        "             {faulty} faulty answers named correctly ({:.2} % of calls)",
        faulty as f64 * 100.0 / total.max(1) as f64
    );
    let longest = stalls.iter().map(|(s, e)| *e - *s).max().unwrap_or_default();
    let stalled_for: Duration = stalls.iter().map(|(s, e)| *e - *s).sum();
    println!(
        "stalls       this process (upstream and clients) paused {} times over {} ms (longest {} ms, {:.1} s in all); \
         {stalled} calls timed out across them{}",
        stalls.len(),
        STALL.as_millis(),
        longest.as_millis(),
        stalled_for.as_secs_f64(),
        if stalled > 0 {
            let due: Vec<String> = tally.stalled.iter().map(|(f, n)| format!("{n} {}", f.name())).collect();
            format!(" (due: {}), counted apart", due.join(", "))
        } else {
            String::new()
        }
    );
    // A few are the machine's; more would make the run meaningless.
    if stalled * 1000 > calls {
        problems.push(format!("{stalled} calls timed out in stalls of the bench: the machine is too busy"));
    }
    if total != calls {
        problems.push(format!("{total} calls classified, {calls} made"));
    }
    if tally.failed() > 0 {
        problems.push(format!("{} calls failed", tally.failed()));
    }
}

fn pct(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize] as f64 / 1000.0
}

/// The latency of healthy calls.
fn latency(tally: &Tally) {
    let mut us = tally.healthy_us.clone();
    us.sort_unstable();
    println!(
        "latency      healthy calls p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        pct(&us, 0.5),
        pct(&us, 0.99),
        pct(&us, 1.0)
    );
}

/// What the upstream saw against what the calls make it see.
fn upstream(run: &Run, problems: &mut Vec<String>) {
    let (counts, calls) = (&run.counts, run.calls);
    let by_fault: Vec<u64> = counts.by_fault.iter().map(|c| c.load(Ordering::Relaxed)).collect();
    let reset_gets =
        (1..=calls as u64).filter(|&r| fault_of(r) == Fault::Reset && op_of(r) != Op::CreateOrder).count() as u64;
    let requests = counts.requests.load(Ordering::Relaxed);
    // The calls, the one retry of each reset GET, and getStats. A call that timed out in a stall
    // may have lost its retry, or reached the upstream only after mcpgen gave up on it.
    let want_requests = calls as u64 + reset_gets + 1;
    let slack = 2 * stalled(&run.tally) as u64;
    let want =
        if slack > 0 { format!("{}..={want_requests}", want_requests - slack) } else { want_requests.to_string() };
    println!(
        "upstream     {requests} requests ({} resets: the reset calls, and {reset_gets} GETs retried once; want {want}), {} not of the soak",
        by_fault[Fault::Reset as usize],
        counts.bad_requests.load(Ordering::Relaxed)
    );
    if requests > want_requests || requests + slack < want_requests {
        problems.push(format!("the upstream saw {requests} requests, want {want}"));
    }
}

/// The reload halfway, as the clients and the server's log saw it.
fn reload(run: &Run, problems: &mut Vec<String>) {
    match &run.reload {
        Ok(r) => {
            println!(
                "reload       spec edited at call {}; getStats listed {:.0} ms later, {} calls completed meanwhile; getStats {}",
                r.at_call,
                r.visible_after.as_secs_f64() * 1e3,
                r.calls_meanwhile,
                match &r.stats_call {
                    Ok(()) => "answered".to_string(),
                    Err(e) => e.clone(),
                }
            );
            if let Err(e) = &r.stats_call {
                problems.push(e.clone());
            }
            if r.calls_meanwhile == 0 {
                problems.push("no call completed during the reload".into());
            }
        }
        Err(e) => {
            println!("reload       FAILED: {e}");
            problems.push(e.clone());
        }
    }
    let log = &run.server.log;
    for l in &log.reloads {
        println!("             log: {}", excerpt(l));
    }
    // One edit; the watcher settles bursts, but a second reload of the same file would be harmless.
    if !log.reloads.iter().any(|l| l.contains("3 -> 4 tools")) || log.reloads.iter().any(|l| l.contains("reload of")) {
        problems.push(format!("want a reload from 3 to 4 tools and no failed one in the log, got {:?}", log.reloads));
    }
}

/// The server's resident size after warm-up (`warm`: the samples past the first 10 % of calls).
fn rss(warm: &[Sample], problems: &mut Vec<String>) {
    let min = warm.iter().map(|s| s.rss_kb).min().unwrap_or(0);
    let max = warm.iter().map(|s| s.rss_kb).max().unwrap_or(0);
    let spread = (max - min) as f64 * 100.0 / min.max(1) as f64;
    // Single samples swing by a few MB with the 1 MiB answers of the 10 MB fault in flight
    // (the body read, its text, the JSON-RPC message), so flatness is judged on the trend: a
    // least-squares line through the samples, its rise from the first to the last sample as
    // a share of the mean. A leak is a rising line.
    let n = warm.len() as f64;
    let (t, y): (Vec<f64>, Vec<f64>) = warm.iter().map(|s| (s.at.as_secs_f64(), s.rss_kb as f64)).unzip();
    let (tm, ym) = (t.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let var: f64 = t.iter().map(|t| (t - tm).powi(2)).sum();
    let slope = if var > 0.0 { t.iter().zip(&y).map(|(t, y)| (t - tm) * (y - ym)).sum::<f64>() / var } else { 0.0 };
    let span = t.last().unwrap_or(&0.0) - t.first().unwrap_or(&0.0);
    let trend = slope * span * 100.0 / ym.max(1.0);
    // A short run (a few samples) cannot tell a trend from the swing: not judged.
    let judged = warm.len() >= 30;
    let flat = !judged || trend.abs() <= 10.0;
    // The curve: the median of each quarter of the samples.
    let quarters: Vec<String> = (0..4)
        .filter_map(|q| {
            let mut w: Vec<&Sample> = warm[warm.len() * q / 4..warm.len() * (q + 1) / 4].iter().collect();
            let at = w.first()?.at;
            w.sort_by_key(|s| s.rss_kb);
            Some(format!("from {:.0} s {:.1}", at.as_secs_f64(), w[w.len() / 2].rss_kb as f64 / 1024.0))
        })
        .collect();
    let mb = |kb: u64| kb as f64 / 1024.0;
    println!(
        "RSS          {} samples after warm-up (first 10 % of calls excluded): min {:.1} MB, max {:.1} MB ({spread:.1} % apart), mean {:.1} MB",
        warm.len(),
        mb(min),
        mb(max),
        ym / 1024.0,
    );
    println!(
        "             trend {:+.1} MB over {span:.0} s ({trend:+.1} %) -> {}; medians by quarter: {} MB",
        slope * span / 1024.0,
        match (judged, flat) {
            (false, _) => "too few samples to judge",
            (true, true) => "flat within 10 %",
            (true, false) => "NOT flat",
        },
        quarters.join(", ")
    );
    if !flat {
        problems.push(format!("RSS trend {trend:+.1} % after warm-up"));
    }
}

/// The server's open fds under load after warm-up.
fn fds(run: &Run, warm: &[Sample], problems: &mut Vec<String>) {
    let fmin = warm.iter().map(|s| s.fds).min().unwrap_or(0);
    let fmax = warm.iter().map(|s| s.fds).max().unwrap_or(0);
    let all_max = run.samples.iter().map(|s| s.fds).max().unwrap_or(0);
    // Bounded: the listener, the watcher and a few files, one socket per MCP client and
    // connections to the upstream (at most the client count plus idle ones kept in the pool).
    let bound = 3 * run.clients + 32;
    let last = warm.last().map_or(0, |s| s.fds);
    println!(
        "fds          after warm-up min {fmin}, max {fmax} (whole run max {all_max}); at the end {last}; bound {bound}"
    );
    if fmax > bound {
        problems.push(format!("{fmax} open fds, more than {bound}"));
    }
}

/// The server's log (panics, errors, warnings) and how it stopped.
fn server_log(server: &Stop, problems: &mut Vec<String>) {
    let log = &server.log;
    println!(
        "server log   {} lines, {} with \"panicked\"; {} ERROR or WARN lines; {}",
        log.lines,
        log.panics.len(),
        log.warnings,
        if server.stopped_cleanly {
            "alive at the end, stopped cleanly on SIGTERM".to_string()
        } else {
            format!("alive at the end: {}, exit {:?}", server.alive, server.exit)
        }
    );
    for l in log.panics.iter().take(5) {
        println!("             {}", excerpt(l));
    }
    for l in log.errors.iter().take(5) {
        println!("             {}", excerpt(l));
    }
    if !log.panics.is_empty() {
        problems.push(format!("{} panics in the server's log", log.panics.len()));
    }
    if !server.stopped_cleanly {
        problems.push("the server was not alive at the end, or did not stop cleanly".into());
    }
}

/// The first failed calls, as examples.
fn failed_calls(tally: &Tally) {
    if !tally.examples.is_empty() {
        println!("\nfailed calls (first {}):", tally.examples.len());
        for (rid, fault, what) in &tally.examples {
            println!("  r{rid} {:?} {}: {what}", op_of(*rid), fault.name());
        }
    }
}
