//! HTTP worker threads, nginx's shape: one acceptor hands each new connection to one of `--workers`
//! threads in turn, and each thread runs its own current-thread runtime, so a connection, its calls
//! and their upstream requests stay on one thread.
//!
//! A work-stealing runtime moves each call between threads several times (the connection's task,
//! the upstream connection's task, timers), and every move is a wake-up through the kernel. On a
//! small machine those wake-ups cost more than the call: on 2 CPUs this shape answers half as many
//! calls again (docs/performance.md, "Fourth look"). Handing connections out in turn, rather than
//! letting every thread accept, spreads them evenly whatever the order threads wake in.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::time::Duration;

use axum::ServiceExt;
use axum::extract::Request;
use axum::response::Response;
use tokio::sync::{mpsc, watch};
use tower_service::Service;

use crate::error::{Error, Result};

/// One serving thread per CPU, the default of `--workers`.
pub fn default_workers() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// How long calls in flight may run after a shutdown signal before streams are cut.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// What a worker serves connections with: the router, or the router behind the fast path's
/// front door (front.rs).
pub trait Serving:
    Service<Request, Response = Response, Error = Infallible, Future: Send> + Clone + Send + 'static
{
}

impl<S> Serving for S where
    S: Service<Request, Response = Response, Error = Infallible, Future: Send> + Clone + Send + 'static
{
}

/// Serves `service` on `workers` threads until `shutdown` completes or a worker fails. New
/// connections stop at once; calls in flight finish, since cancelling them would drop answers to
/// requests the upstream already received, and a client's retry would send them twice.
/// Long-lived streams (legacy SSE) are cut by `cut_streams` after [`SHUTDOWN_GRACE`].
pub async fn serve(
    listener: tokio::net::TcpListener,
    service: impl Serving,
    workers: usize,
    shutdown: impl Future<Output = ()>,
    cut_streams: impl FnOnce() + Send + 'static,
) -> Result<()> {
    let failed = |e: std::io::Error| Error::Transport(format!("HTTP server: {e}"));
    let addr = listener.local_addr().map_err(failed)?;
    let (stop, stopping) = watch::channel(false);
    let workers = workers.max(1);
    let (ended, mut endings) = mpsc::channel(workers);
    let mut inboxes = Vec::with_capacity(workers);
    for i in 0..workers {
        let (inbox, connections) = mpsc::unbounded_channel();
        inboxes.push(inbox);
        let worker = Worker { connections, addr, service: service.clone(), stopping: stopping.clone() };
        let ended = ended.clone();
        let run = move || {
            let _ = ended.blocking_send(worker.run());
        };
        std::thread::Builder::new().name(format!("mcpgen-http-{i}")).spawn(run).map_err(failed)?;
    }
    // Each worker holds a sender: `recv` gives None once every thread is gone, even one that
    // panicked.
    drop(ended);
    let mut outcome = Ok(());
    let mut running = workers;
    tokio::select! {
        () = shutdown => {}
        () = accept(&listener, &inboxes) => {}
        Some(early) = endings.recv() => {
            running -= 1;
            outcome = early.map_err(failed);
        }
    }
    drop(listener);
    let _ = stop.send(true);
    tokio::spawn(async move {
        tokio::time::sleep(SHUTDOWN_GRACE).await;
        cut_streams();
    });
    for _ in 0..running {
        match endings.recv().await {
            Some(Err(e)) => outcome = Err(failed(e)),
            Some(Ok(())) => {}
            None => break,
        }
    }
    outcome
}

/// Accepts connections and hands them to the workers in turn; returns only when no worker is
/// left to take one.
async fn accept(listener: &tokio::net::TcpListener, inboxes: &[mpsc::UnboundedSender<std::net::TcpStream>]) {
    let mut next = 0;
    'accepting: loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) if is_connection_error(&e) => continue,
            Err(e) => {
                // Out of file descriptors and the like: wait rather than spin.
                tracing::error!("accepting a connection: {e}");
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
        };
        // Answers are written whole; waiting to coalesce them only adds latency.
        let _ = stream.set_nodelay(true);
        let Ok(mut stream) = stream.into_std() else { continue };
        // To the next worker still running; none left means the server is stopping.
        for _ in 0..inboxes.len() {
            let inbox = &inboxes[next % inboxes.len()];
            next = next.wrapping_add(1);
            match inbox.send(stream) {
                Ok(()) => continue 'accepting,
                Err(mpsc::error::SendError(back)) => stream = back,
            }
        }
        return;
    }
}

/// Errors of one connection (the client gave up before it was accepted), not of the listener.
fn is_connection_error(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    matches!(e.kind(), ConnectionAborted | ConnectionRefused | ConnectionReset)
}

/// A serving thread: the connections handed to it and the service that answers them.
struct Worker<S> {
    connections: mpsc::UnboundedReceiver<std::net::TcpStream>,
    addr: SocketAddr,
    service: S,
    stopping: watch::Receiver<bool>,
}

impl<S: Serving> Worker<S> {
    /// Serves until told to stop and its connections' calls are answered.
    fn run(self) -> std::io::Result<()> {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
        let Worker { connections, addr, service, mut stopping } = self;
        runtime.block_on(async move {
            let stopped = async move {
                let _ = stopping.wait_for(|stop| *stop).await;
            };
            axum::serve(Handed { connections, addr }, service.into_make_service()).with_graceful_shutdown(stopped).await
        })
    }
}

/// The connections handed to a worker, as axum's listener.
struct Handed {
    connections: mpsc::UnboundedReceiver<std::net::TcpStream>,
    addr: SocketAddr,
}

impl axum::serve::Listener for Handed {
    type Io = tokio::net::TcpStream;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        while let Some(stream) = self.connections.recv().await {
            // Registered with this thread's runtime: its readiness events come here.
            let Ok(stream) = tokio::net::TcpStream::from_std(stream) else { continue };
            let Ok(peer) = stream.peer_addr() else { continue };
            return (stream, peer);
        }
        // The acceptor is gone (shutting down): nothing more will come.
        std::future::pending().await
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        Ok(self.addr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Connections are spread over the workers in turn, each answered, and the server stops
    /// cleanly when told.
    #[tokio::test]
    async fn connections_go_to_every_worker_in_turn() {
        crate::upstream::install_crypto_provider();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let router = axum::Router::new()
            .route("/", axum::routing::get(|| async { std::thread::current().name().unwrap_or_default().to_string() }));
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(serve(
            listener,
            router,
            3,
            async move {
                let _ = stopped.await;
            },
            || {},
        ));
        let mut names = Vec::new();
        for _ in 0..6 {
            // A new client each time: one connection per request.
            let client = reqwest::Client::builder().pool_max_idle_per_host(0).build().unwrap();
            names.push(client.get(format!("http://{addr}/")).send().await.unwrap().text().await.unwrap());
        }
        names.sort();
        assert_eq!(
            names,
            ["mcpgen-http-0", "mcpgen-http-0", "mcpgen-http-1", "mcpgen-http-1", "mcpgen-http-2", "mcpgen-http-2"]
        );
        stop.send(()).unwrap();
        server.await.unwrap().unwrap();
    }
}
