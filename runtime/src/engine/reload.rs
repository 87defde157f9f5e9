//! Reloading the catalogue of a running server (`mcpgen serve --watch`, SIGHUP): the input is read
//! again, a new engine is built beside the one serving (off the async workers), and swapped in
//! whole ([`LiveEngine`]). Calls in flight finish on the engine they started on. A new input that
//! does not load or build leaves the old engine serving, and the log says why. Generated crates
//! serve their embedded catalogue and never reload.

use std::sync::Arc;
use std::time::Instant;

use tokio::sync::mpsc::UnboundedReceiver;

use crate::config::RuntimeConfig;
use crate::engine::BuildFn;
use crate::engine::live::LiveEngine;
use crate::metrics::Metrics;

/// Why the input could not be read again: the caller's own error (mcpgen's, for `mcpgen serve`),
/// logged as the command line would print it.
pub type LoadError = Box<dyn std::error::Error + Send + Sync>;

/// Reads the input again: the new config, or why not.
pub type LoadFn = dyn Fn() -> Result<RuntimeConfig, LoadError> + Send + Sync;

/// How a server reloads its catalogue (`mcpgen serve`; see [`crate::cli::run_reloading`]).
pub struct Reload {
    /// The input as the log names it (the path or URL given).
    pub origin: String,
    /// Reads the input again with the same flags.
    pub load: Arc<LoadFn>,
    /// A message per change of the watched files (`--watch`), saying what changed; `None`
    /// without `--watch`. SIGHUP reloads in any case.
    pub changes: Option<UnboundedReceiver<String>>,
    /// Kept as long as the server runs (the file watcher).
    pub guard: Option<Box<dyn Send>>,
}

/// Reloads on each change and SIGHUP until the server stops (the task ends with the runtime).
/// SIGHUP is caught from now on: it no longer ends the process.
pub(crate) fn start(live: LiveEngine, reload: Reload, build: Arc<BuildFn>, metrics: Arc<Metrics>) {
    let mut hangup = Hangup::new();
    tokio::spawn(async move {
        let Reload { origin, load, mut changes, guard: _guard } = reload;
        loop {
            let cause = tokio::select! {
                Some(what) = next_change(&mut changes) => what,
                () = hangup.recv() => "SIGHUP".to_string(),
            };
            // Changes that came meanwhile (an editor writes in several steps) are read by this reload.
            if let Some(rx) = &mut changes {
                while rx.try_recv().is_ok() {}
            }
            reload_once(&live, (&origin, &load, &build), &metrics, &cause).await;
        }
    });
}

/// Reads the input, builds its engine and swaps it in; on a failure the old one goes on.
async fn reload_once(
    live: &LiveEngine,
    (origin, load, build): (&str, &Arc<LoadFn>, &Arc<BuildFn>),
    metrics: &Metrics,
    cause: &str,
) {
    let started = Instant::now();
    let (load, build, name) = (load.clone(), build.clone(), origin.to_string());
    // Parsing and building take a while for a large API (Microsoft Graph: seconds): off the workers.
    let built = tokio::task::spawn_blocking(move || {
        let config = load().map_err(|e| e.to_string())?;
        build(config).map_err(|e| format!("{name}: {e}"))
    })
    .await
    .unwrap_or_else(|e| Err(format!("the reload stopped: {e}")));
    let took = started.elapsed().as_millis();
    match built {
        Ok(engine) => {
            let old = live.swap(engine.clone());
            metrics.reloaded(true);
            tracing::info!(
                "reloaded {origin} ({cause}): {} -> {} tools, took {took} ms; {}",
                old.tool_count(),
                engine.tool_count(),
                engine.exposure().reason
            );
            let told = live.notify_tool_list_changed(|surface| !old.lists_as(&engine, surface)).await;
            tracing::debug!("tools/list_changed sent to {told} sessions");
            // A large catalogue takes a while to free (Microsoft Graph: hundreds of MB): not on a
            // worker. (A call still holding it frees it when it ends.)
            tokio::task::spawn_blocking(move || drop(old));
        }
        Err(message) => {
            metrics.reloaded(false);
            let serving = live.load().tool_count();
            tracing::error!(
                "reload of {origin} failed ({cause}); still serving the previous {serving} tools: {message}"
            );
        }
    }
}

/// The next change, or never without `--watch` (or once the watcher is gone).
async fn next_change(changes: &mut Option<UnboundedReceiver<String>>) -> Option<String> {
    match changes {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

/// SIGHUP, where there is one. Installing it also keeps SIGHUP from ending the process.
struct Hangup {
    #[cfg(unix)]
    signal: Option<tokio::signal::unix::Signal>,
}

impl Hangup {
    fn new() -> Hangup {
        #[cfg(unix)]
        {
            let signal = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup());
            if let Err(e) = &signal {
                tracing::warn!("SIGHUP will not reload: {e}");
            }
            Hangup { signal: signal.ok() }
        }
        #[cfg(not(unix))]
        Hangup {}
    }

    async fn recv(&mut self) {
        #[cfg(unix)]
        if let Some(s) = &mut self.signal
            && s.recv().await.is_some()
        {
            return;
        }
        std::future::pending::<()>().await
    }
}
