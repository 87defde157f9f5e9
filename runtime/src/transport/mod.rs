//! Transports: stdio (stdout carries only MCP messages; logs go to stderr) and, with the `http`
//! feature, Streamable HTTP ([`http`]). [`server::McpServer`] is the MCP handler both serve.

#[cfg(feature = "user-auth")]
pub(crate) mod ask_user;
#[cfg(feature = "http")]
pub mod http;
pub mod log_fields;
pub mod server;

use rmcp::ServiceExt;

use crate::error::{Error, Result};
use crate::transport::server::McpServer;

/// Serves over stdin/stdout until stdin closes or a shutdown signal arrives.
pub async fn serve_stdio(server: McpServer) -> Result<()> {
    let failed = |e: &dyn std::fmt::Display| Error::Transport(format!("MCP over stdio: {e}"));
    let running = server.serve(rmcp::transport::stdio()).await.map_err(|e| failed(&e))?;
    let token = running.cancellation_token();
    tokio::select! {
        r = running.waiting() => { r.map_err(|e| failed(&e))?; }
        _ = shutdown_signal() => { token.cancel(); }
    }
    Ok(())
}

/// Ctrl-C, or SIGTERM on Unix; says so in the log.
pub async fn shutdown_signal() {
    signal().await;
    tracing::info!("shutting down");
}

/// Ctrl-C, or SIGTERM on Unix.
pub(crate) async fn signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {}
        _ = term => {}
    }
}
