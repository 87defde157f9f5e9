//! Streamable HTTP (feature `http`): one `/mcp` endpoint, stateless, JSON responses, `Origin` and
//! `Host` validated, optional bearer token or OAuth access tokens with their Protected Resource
//! Metadata, `/health`, `/ready`, `/metrics`; plain `tools/call`s on a fast path beside rmcp; the
//! legacy HTTP+SSE transport (feature `legacy-sse`).

pub(crate) mod fast_call;
pub(crate) mod front;
#[cfg(feature = "legacy-sse")]
pub(crate) mod legacy_sse;
pub(crate) mod manners;
#[cfg(feature = "user-auth")]
mod user_routes;
pub mod workers;

use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::{Body, to_bytes};
use axum::extract::{Request, State};
use axum::http::{Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use self::fast_call::FastCall;
use self::manners::About;
pub use crate::auth::OAuthOptions;
use crate::engine::Surface;
use crate::error::{Error, Result};
use crate::metrics::{Metrics, Readiness};
use crate::transport::server::McpServer;
use crate::transport::shutdown_signal;

/// A JSON answer, as `axum::Json` writes one (compact, `Content-Type: application/json`; a 500 if
/// the value cannot be written), without axum's `json` feature and the package it brings.
pub(crate) struct Json<T>(pub(crate) T);

impl<T: serde::Serialize> IntoResponse for Json<T> {
    fn into_response(self) -> Response {
        match serde_json::to_vec(&self.0) {
            Ok(body) => ([(header::CONTENT_TYPE, "application/json")], body).into_response(),
            Err(e) => (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()).into_response(),
        }
    }
}

/// How the Streamable HTTP endpoint listens and whom it lets in.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// The address to listen on (`--bind`).
    pub bind: SocketAddr,
    /// Clients must send `Authorization: Bearer <token>` on `/mcp`.
    pub auth_token: Option<String>,
    /// Browser origins allowed besides localhost (`https://app.example.com`).
    pub allowed_origins: Vec<String>,
    /// `Host` values allowed besides localhost and the bind address.
    pub allowed_hosts: Vec<String>,
    /// Also serve the 2024-11-05 HTTP+SSE transport at `/sse` and `/messages`.
    pub legacy_sse: bool,
    /// Threads serving connections (`self::workers::default_workers`: one per CPU).
    pub workers: usize,
    /// Check OAuth access tokens on `/mcp` (exclusive with `auth_token` and `legacy_sse`).
    pub oauth: Option<OAuthOptions>,
    /// Serve `/metrics` (behind the bearer token); `None` when they are served elsewhere
    /// (`serve_metrics`).
    pub metrics: Option<Arc<Metrics>>,
    /// What `/ready` tells.
    pub readiness: Readiness,
}

/// Serves Streamable HTTP until a shutdown signal arrives. `on_ready` gets the bound address.
pub async fn serve_http(server: McpServer, opts: HttpOptions, on_ready: impl FnOnce(SocketAddr)) -> Result<()> {
    if opts.oauth.is_some() && (opts.auth_token.is_some() || opts.legacy_sse) {
        return Err(Error::Config(
            "OAuth access tokens exclude --auth-token and --legacy-sse (whose clients predate MCP authorization)"
                .into(),
        ));
    }
    let listener = listen(opts.bind, "--bind").await?;
    let addr = listener.local_addr().map_err(|e| Error::Transport(e.to_string()))?;
    #[cfg(feature = "oauth")]
    let oauth = match &opts.oauth {
        Some(o) => Some(resource_server(&server, o, addr).await?),
        None => None,
    };
    #[cfg(not(feature = "oauth"))]
    let oauth: Option<std::convert::Infallible> = match opts.oauth {
        Some(_) => return Err(Error::missing_feature("oauth", "--oauth-issuer")),
        None => None,
    };
    let server = if oauth.is_some() { server.with_oauth() } else { server };
    let live = server.live_engine().clone();
    let callback = user_callback(&live, oauth.as_ref());
    let (hosts, origins) = hosts_and_origins(&opts);
    if opts.legacy_sse && !cfg!(feature = "legacy-sse") {
        return Err(Error::missing_feature("legacy-sse", "--legacy-sse"));
    }
    let legacy = opts.legacy_sse.then(|| (server.clone(), hosts.clone(), origins.clone()));
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None)
        .with_allowed_hosts(hosts)
        .with_allowed_origins(origins)
        .enforce_origin_validation();
    let cancel = config.cancellation_token.clone();
    let token: Option<Arc<str>> = opts.auth_token.as_deref().map(Arc::from);
    let guard = match &oauth {
        #[cfg(not(feature = "oauth"))]
        Some(never) => match *never {},
        #[cfg(feature = "oauth")]
        Some(rs) => Guard::OAuth(rs.clone(), live.clone()),
        None => Guard::Token(token.clone()),
    };
    let (mcp, in_front) = mcp_routes(&server, &config, &guard);
    let (token_for_metrics, token_for_front) = (token.clone(), token.clone());
    let sse = sse_routes(legacy, token);
    let scrape = scrape_routes(opts.metrics, oauth.is_some(), token_for_metrics);
    // The tool count of the engine served now (a reload may change it).
    let health = move || async move { Json(serde_json::json!({"status": "ok", "tools": live.load().tool_count()})) };
    let router = axum::Router::new()
        .route("/health", get(health))
        .route("/ready", get(ready).with_state(opts.readiness))
        .merge(mcp)
        .merge(sse)
        .merge(scrape)
        .merge(callback);
    let front = self::front::Front::new(router, in_front, token_for_front);
    on_ready(addr);
    self::workers::serve(listener, front, opts.workers, shutdown_signal(), move || cancel.cancel()).await
}

/// `/oauth/callback` and `/oauth/tokens` when users authorize APIs (`--upstream-auth user`),
/// told their public URL.
#[cfg(feature = "user-auth")]
fn user_callback(
    live: &crate::engine::live::LiveEngine,
    oauth: Option<&Arc<crate::auth::ResourceServer>>,
) -> axum::Router {
    let engine = live.load();
    match (engine.users().as_ref(), oauth) {
        (Some(users), Some(rs)) => {
            use self::user_routes::{callback, revoke};
            users.set_redirect_uri(rs.callback_url());
            // The caller's own tokens: behind the access token check, as `/mcp`.
            let gate =
                Arc::new(crate::auth::Gate { server: rs.clone(), engine: live.clone(), surface: Surface::Configured });
            let own = axum::Router::new()
                .route("/oauth/tokens", axum::routing::delete(revoke))
                .with_state(live.clone())
                .layer(middleware::from_fn_with_state(gate, crate::auth::require_access));
            axum::Router::new()
                .route(crate::upstream::user::authorizer::CALLBACK_PATH, get(callback))
                .with_state(live.clone())
                .merge(own)
        }
        _ => axum::Router::new(),
    }
}

#[cfg(not(feature = "user-auth"))]
fn user_callback<T>(_: &crate::engine::live::LiveEngine, _: Option<&T>) -> axum::Router {
    axum::Router::new()
}

/// Who may use an MCP path: OAuth access tokens (the resource server and the engine whose
/// tools' scopes it checks), or the bearer token, if any.
enum Guard {
    #[cfg(feature = "oauth")]
    OAuth(Arc<crate::auth::ResourceServer>, crate::engine::live::LiveEngine),
    Token(Option<Arc<str>>),
}

/// The paths served: `/mcp` (the configured mode), `/mcp/tools` (every tool) and, with the
/// `discovery` feature, `/mcp/discovery`.
fn served_surfaces() -> impl Iterator<Item = (Surface, &'static str)> {
    Surface::HTTP.into_iter().filter(|(s, _)| cfg!(feature = "discovery") || *s != Surface::Discovery)
}

/// The MCP paths, each an rmcp service over `server` showing its surface, behind the manners
/// and `guard` layers (the guard outermost: nothing about the server is told before it); and
/// the fast paths that may sit in front of the router (none with OAuth: theirs are behind its
/// gate, in each path's handler).
fn mcp_routes(
    server: &McpServer,
    config: &StreamableHttpServerConfig,
    guard: &Guard,
) -> (axum::Router, Vec<(&'static str, FastCall)>) {
    let about = Arc::new(About::new(server));
    let mut routes = axum::Router::new();
    let mut in_front = Vec::new();
    for (surface, path) in served_surfaces() {
        let on = server.clone().on(surface);
        // Plain stateless tools/calls are answered beside rmcp, with its checks (fast_call.rs).
        let fast = FastCall::new(on.clone(), config);
        let behind_gate = match guard {
            #[cfg(feature = "oauth")]
            Guard::OAuth(..) => fast,
            Guard::Token(_) => {
                in_front.extend(fast.map(|f| (path, f)));
                None
            }
        };
        let never = Arc::new(NeverSessionManager::default());
        let rmcp = StreamableHttpService::new(move || Ok(on.clone()), never, config.clone());
        let service = axum::routing::any(streamable).with_state(Arc::new(Mcp { rmcp, fast: behind_gate }));
        // `/mcp` keeps serving the paths below it that are not a sibling's, as it always has.
        let router = match surface {
            Surface::Configured => axum::Router::new().nest_service(path, service),
            _ => axum::Router::new().route(path, service),
        };
        routes = routes.merge(guarded(router, &about, guard, surface));
    }
    if !cfg!(feature = "discovery") {
        let absent = axum::Router::new().route(Surface::Discovery.path(), axum::routing::any(no_discovery));
        routes = routes.merge(guarded(absent, &about, guard, Surface::Discovery));
    }
    #[cfg(feature = "oauth")]
    if let Guard::OAuth(rs, live) = guard {
        let gate =
            Arc::new(crate::auth::Gate { server: rs.clone(), engine: live.clone(), surface: Surface::Configured });
        for path in rs.metadata_paths() {
            routes =
                routes.merge(axum::Router::new().route(&path, get(crate::auth::metadata)).with_state(gate.clone()));
        }
    }
    (routes, in_front)
}

/// `router` behind the manners layer and `guard`, for a path that shows `surface`.
fn guarded(router: axum::Router, about: &Arc<About>, guard: &Guard, surface: Surface) -> axum::Router {
    let router = router.layer(middleware::from_fn_with_state(about.clone(), self::manners::mcp_manners));
    match guard {
        #[cfg(feature = "oauth")]
        Guard::OAuth(rs, live) => {
            let gate = Arc::new(crate::auth::Gate { server: rs.clone(), engine: live.clone(), surface });
            router.layer(middleware::from_fn_with_state(gate, crate::auth::require_access))
        }
        Guard::Token(token) => {
            let _ = surface;
            router.layer(middleware::from_fn_with_state(token.clone(), require_token))
        }
    }
}

/// `/mcp/discovery` of a server built without the `discovery` feature.
async fn no_discovery() -> Response {
    let text = "this server was built without the `discovery` feature: it serves no /mcp/discovery \
                (every tool is at /mcp/tools; regenerate with `mcpgen generate --with discovery`)\n";
    (StatusCode::NOT_FOUND, text).into_response()
}

#[cfg(feature = "oauth")]
/// The OAuth resource server of `server` at `addr`, its issuer's keys fetched (or being fetched).
async fn resource_server(
    server: &McpServer,
    o: &crate::auth::OAuthOptions,
    addr: SocketAddr,
) -> Result<Arc<crate::auth::ResourceServer>> {
    let engine = server.engine();
    let name = engine.info.title.clone().unwrap_or_else(|| engine.info.name.clone());
    let rs = Arc::new(crate::auth::ResourceServer::new(o, addr, &name)?);
    // The keys, fetched before serving; a slow authorization server delays the start by
    // a few seconds at most (the fetch goes on, and the first tokens wait for it).
    let fetch = tokio::spawn({
        let rs = rs.clone();
        async move { rs.prefetch().await }
    });
    if tokio::time::timeout(std::time::Duration::from_secs(5), fetch).await.is_err() {
        tracing::warn!("OAuth: the authorization server is slow to answer; serving while its keys are fetched");
    }
    Ok(rs)
}

/// The `Host` values and browser origins let in: localhost's, the bind address (unless it is
/// unspecified), and those the options add.
fn hosts_and_origins(opts: &HttpOptions) -> (Vec<String>, Vec<String>) {
    let mut hosts: Vec<String> = vec!["localhost".into(), "127.0.0.1".into(), "::1".into(), "[::1]".into()];
    if !opts.bind.ip().is_unspecified() {
        hosts.push(opts.bind.ip().to_string());
    }
    hosts.extend(opts.allowed_hosts.iter().cloned());
    let mut origins: Vec<String> =
        vec!["http://localhost:*".into(), "http://127.0.0.1:*".into(), "http://[::1]:*".into()];
    origins.extend(opts.allowed_origins.iter().cloned());
    (hosts, origins)
}

/// The server and the `Host` values and origins the legacy transport lets in, when it is on.
type LegacySse = Option<(McpServer, Vec<String>, Vec<String>)>;

/// `/sse` and `/messages`: the legacy HTTP+SSE transport behind the token, or directions for old
/// SSE clients when it is off.
fn sse_routes(legacy: LegacySse, token: Option<Arc<str>>) -> axum::Router {
    match legacy {
        #[cfg(feature = "legacy-sse")]
        Some((server, hosts, origins)) => {
            let allowed = Arc::new(self::legacy_sse::Allowed { hosts, origins });
            axum::Router::new()
                .route("/sse", get(self::legacy_sse::connect))
                .route("/messages", axum::routing::post(self::legacy_sse::message))
                .with_state(self::legacy_sse::LegacySse::new(server))
                .layer(middleware::from_fn_with_state(allowed, self::legacy_sse::guard))
                .layer(middleware::from_fn_with_state(token, require_token))
        }
        // serve_http has refused it.
        #[cfg(not(feature = "legacy-sse"))]
        Some(_) => {
            let _ = token;
            axum::Router::new()
        }
        None => axum::Router::new().route("/sse", get(self::manners::old_sse_client)),
    }
}

/// `/metrics` on the main listener, when it is served there.
fn scrape_routes(metrics: Option<Arc<Metrics>>, oauth: bool, token: Option<Arc<str>>) -> axum::Router {
    // Metrics tell which tools are called how often: behind the token, like /mcp.
    // With OAuth there is no token a scraper could hold: /metrics only on --metrics-bind.
    match metrics {
        Some(_) if oauth => {
            tracing::info!("with --oauth-issuer, /metrics is served only on --metrics-bind");
            axum::Router::new()
        }
        Some(m) => axum::Router::new()
            .route("/metrics", get(scrape))
            .with_state(m)
            .layer(middleware::from_fn_with_state(token, require_token)),
        None => axum::Router::new(),
    }
}
async fn listen(bind: SocketAddr, flag: &str) -> Result<tokio::net::TcpListener> {
    tokio::net::TcpListener::bind(bind).await.map_err(|e| {
        Error::Transport(match e.kind() {
            std::io::ErrorKind::AddrInUse => format!(
                "cannot listen on {bind}: the port is in use (another server?); choose another with {flag} {}:PORT",
                bind.ip()
            ),
            _ => format!("cannot listen on {bind}: {e}"),
        })
    })
}

/// Serves `/metrics`, `/health` and `/ready` on their own listener (`--metrics-bind`), without
/// the bearer token, in the background until a shutdown signal; returns the bound address.
#[cfg(feature = "metrics")]
pub async fn serve_metrics(bind: SocketAddr, metrics: Arc<Metrics>, readiness: Readiness) -> Result<SocketAddr> {
    let router = axum::Router::new()
        .route("/metrics", get(scrape).with_state(metrics))
        .route("/health", get(|| async { Json(serde_json::json!({"status": "ok"})) }))
        .route("/ready", get(ready).with_state(readiness));
    let listener = listen(bind, "--metrics-bind").await?;
    let addr = listener.local_addr().map_err(|e| Error::Transport(e.to_string()))?;
    tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, router).with_graceful_shutdown(crate::transport::signal()).await {
            tracing::error!("metrics server: {e}");
        }
    });
    Ok(addr)
}

/// `/mcp`'s services: rmcp's Streamable HTTP service and the fast path of plain `tools/call`s.
struct Mcp {
    rmcp: StreamableHttpService<McpServer, NeverSessionManager>,
    fast: Option<FastCall>,
}

/// Shared: axum clones a route's service for every request, and cloning
/// `StreamableHttpService` itself copies its config (the allowed hosts and origins, ...), five
/// times a request; an `Arc` is cloned instead.
type Streamable = Arc<Mcp>;

/// `/mcp`: a plain `tools/call` on the fast path when it is here (with OAuth; else it is in
/// front of the router), anything else as rmcp's own `tower::Service` does it, on the shared
/// service.
async fn streamable(State(service): State<Streamable>, request: Request) -> Response {
    let request = match &service.fast {
        Some(fast) if request.method() == Method::POST => {
            let (parts, body) = request.into_parts();
            // The body is in memory already (mcp_manners read it, within its size limit).
            let bytes = match to_bytes(body, usize::MAX).await {
                Ok(b) => b,
                Err(e) => {
                    let text = format!("Failed to read request body: {e}");
                    return self::fast_call::status_text(StatusCode::INTERNAL_SERVER_ERROR, text);
                }
            };
            match fast.answer_or_return(parts, bytes).await {
                Ok(answer) => return answer,
                Err(request) => request,
            }
        }
        _ => request,
    };
    service.rmcp.handle(request).await.map(Body::new)
}

/// `/metrics`: OpenMetrics text, which Prometheus reads.
async fn scrape(State(metrics): State<Arc<Metrics>>) -> Response {
    ([(header::CONTENT_TYPE, crate::metrics::CONTENT_TYPE)], metrics.encode()).into_response()
}

/// `/ready`: 200 while an engine is loaded and serving, 503 before. A reload keeps it at 200: the
/// old engine serves until the new one replaces it.
async fn ready(State(readiness): State<Readiness>) -> Response {
    if readiness.is_ready() {
        Json(serde_json::json!({"status": "ready"})).into_response()
    } else {
        (StatusCode::SERVICE_UNAVAILABLE, Json(serde_json::json!({"status": "starting"}))).into_response()
    }
}

/// Bearer-token check for `/mcp`, in constant time.
async fn require_token(State(token): State<Option<Arc<str>>>, request: Request, next: Next) -> Response {
    if !token_matches(token.as_deref(), request.headers()) {
        return (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, "Bearer")],
            "missing or wrong bearer token for this MCP server\n",
        )
            .into_response();
    }
    next.run(request).await
}

/// No token expected, or `Authorization: Bearer` with the expected one.
pub(crate) fn token_matches(expected: Option<&str>, headers: &axum::http::HeaderMap) -> bool {
    let Some(expected) = expected else { return true };
    let given = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or("");
    constant_time_eq(given.as_bytes(), expected.as_bytes())
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn ready_fails_until_an_engine_is_loaded() {
        let readiness = Readiness::default();
        assert_eq!(ready(State(readiness.clone())).await.status(), StatusCode::SERVICE_UNAVAILABLE);
        readiness.set(true);
        assert_eq!(ready(State(readiness.clone())).await.status(), StatusCode::OK);
        readiness.set(false);
        assert_eq!(ready(State(readiness)).await.status(), StatusCode::SERVICE_UNAVAILABLE);
    }

    #[test]
    fn token_comparison() {
        assert!(super::constant_time_eq(b"abc", b"abc"));
        assert!(!super::constant_time_eq(b"abc", b"abd"));
        assert!(!super::constant_time_eq(b"abc", b"abcd"));
    }
}
