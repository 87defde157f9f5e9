//! The HTTP listener's front door: a plain stateless `tools/call` to an MCP path (`/mcp`,
//! `/mcp/tools`, `/mcp/discovery`) is answered on that path's fast path (fast_call.rs) before
//! axum's router runs, and everything else goes to the router as it is.
//!
//! Through the router, a call first passed the `/mcp` nesting, the token and manners middleware
//! (each cloning the services behind it), the body read twice and the JSON parsed twice: about a
//! tenth of the call's CPU (docs/performance.md, "Fifth look"). Here it is read and parsed once.
//! The door checks what the router's layers would have checked first (the bearer token, the body's
//! size) and answers their failures as they do; with OAuth it stays shut, and the fast path runs
//! behind the OAuth gate instead (transport.rs).

use std::convert::Infallible;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::to_bytes;
use axum::extract::Request;
use axum::http::Method;
use axum::response::Response;
use axum::routing::future::RouteFuture;
use futures::future::{BoxFuture, Either};
use tower_service::Service;

use crate::transport::http::fast_call::FastCall;

/// The router, with the fast paths in front of it when they may be there.
#[derive(Clone)]
pub(crate) struct Front {
    router: axum::Router,
    door: Option<Arc<Door>>,
}

/// What the fast paths need to answer ahead of the router's layers.
struct Door {
    /// Each MCP path's fast path, by the path (each shows its own surface).
    paths: Vec<(&'static str, FastCall)>,
    /// `--auth-token`: checked as the router's token layer checks it.
    token: Option<Arc<str>>,
}

impl Front {
    /// `router` alone, or with the fast paths of `paths` in front of it (the bearer token
    /// `token`, if any, checked first).
    pub(crate) fn new(router: axum::Router, paths: Vec<(&'static str, FastCall)>, token: Option<Arc<str>>) -> Front {
        let door = (!paths.is_empty()).then(|| Arc::new(Door { paths, token }));
        Front { router, door }
    }
}

impl Service<Request> for Front {
    type Response = Response;
    type Error = Infallible;
    type Future = Either<RouteFuture<Infallible>, BoxFuture<'static, Result<Response, Infallible>>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request) -> Self::Future {
        match &self.door {
            Some(door) if door.may_take(&request) => {
                let (door, router) = (door.clone(), self.router.clone());
                Either::Right(Box::pin(async move { Ok(door.answer(request, router).await) }))
            }
            _ => Either::Left(self.router.call(request)),
        }
    }
}

impl Door {
    /// A POST to an MCP path itself that the token layer would let through; anything else (a
    /// refused token too: the router says why) is the router's.
    fn may_take(&self, request: &Request) -> bool {
        request.method() == Method::POST
            && self.fast_for(request.uri().path()).is_some()
            && crate::transport::http::token_matches(self.token.as_deref(), request.headers())
    }

    /// The fast path of `path`, when it has one.
    fn fast_for(&self, path: &str) -> Option<&FastCall> {
        self.paths.iter().find(|(p, _)| *p == path).map(|(_, fast)| fast)
    }

    /// The fast path's answer, or the router's when the fast path declines the call.
    async fn answer(&self, request: Request, mut router: axum::Router) -> Response {
        let Some(fast) = self.fast_for(request.uri().path()) else {
            return match router.call(request).await {
                Ok(response) => response,
                Err(never) => match never {},
            };
        };
        let (parts, body) = request.into_parts();
        // As the manners layer reads it, with its limit and its answer beyond it.
        let bytes = match to_bytes(body, crate::transport::http::manners::MAX_BODY).await {
            Ok(bytes) => bytes,
            Err(_) => return crate::transport::http::manners::unreadable_body(),
        };
        let declined = match fast.answer_or_return(parts, bytes).await {
            Ok(answer) => return answer,
            Err(request) => request,
        };
        match router.call(declined).await {
            Ok(response) => response,
            Err(never) => match never {},
        }
    }
}
