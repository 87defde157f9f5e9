//! The engine being served, which a reload replaces whole, and the sessions to tell when the
//! tools change.
//!
//! Each request takes the engine of the moment ([`LiveEngine::load`]) and keeps it to its end, so
//! a call in flight during a reload finishes on the engine it started on, and the old engine is
//! dropped with its last call. The lock is held only to clone or replace an `Arc`: readers never
//! wait on a reload, which builds the new engine before taking it. (`arc-swap` would spare the
//! lock's atomics too, but this module is copied into generated crates, whose dependencies would
//! then grow for a feature they do not have.)

use std::sync::{Arc, Mutex, PoisonError, RwLock};

use rmcp::service::SubscriptionSink;
use rmcp::{Peer, RoleServer};

use crate::engine::{Engine, Surface};

/// The engine now served and the open sessions that can be sent notifications. Cheap to clone:
/// clones share both.
#[derive(Clone)]
pub struct LiveEngine(Arc<Shared>);

struct Shared {
    engine: RwLock<Arc<Engine>>,
    /// Sessions with a stream to the client (stdio, legacy SSE; stateless HTTP has none), with
    /// the surface each lists.
    peers: Mutex<Vec<(Surface, Peer<RoleServer>)>>,
    /// 2026-07-28 clients' `subscriptions/listen` streams that accepted tools-list changes, with
    /// the surface each lists.
    subscriptions: Mutex<Vec<(Surface, SubscriptionSink)>>,
}

impl LiveEngine {
    /// Serves `engine` until [`LiveEngine::swap`] replaces it.
    pub fn new(engine: Arc<Engine>) -> LiveEngine {
        LiveEngine(Arc::new(Shared {
            engine: RwLock::new(engine),
            peers: Mutex::new(Vec::new()),
            subscriptions: Mutex::new(Vec::new()),
        }))
    }

    /// The engine now; a request keeps what it took until it ends.
    pub fn load(&self) -> Arc<Engine> {
        // Only an `Arc` is cloned or replaced under the lock: a poisoned one still holds a whole value.
        self.0.engine.read().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Serves `engine` from now on; returns the engine it replaces, which lives on while calls
    /// in flight hold it.
    pub fn swap(&self, engine: Arc<Engine>) -> Arc<Engine> {
        std::mem::replace(&mut *self.0.engine.write().unwrap_or_else(PoisonError::into_inner), engine)
    }

    /// A session of `surface` to tell when its tools change; closed sessions are forgotten here
    /// and when told.
    pub fn add_peer(&self, peer: Peer<RoleServer>, surface: Surface) {
        let mut peers = self.peers();
        peers.retain(|(_, p)| !p.is_transport_closed());
        peers.push((surface, peer));
    }

    /// A `subscriptions/listen` stream of `surface` to tell when its tools change; forgotten once
    /// it ends.
    pub fn add_subscription(&self, sink: SubscriptionSink, surface: Surface) {
        self.0.subscriptions.lock().unwrap_or_else(PoisonError::into_inner).push((surface, sink));
    }

    /// Forgets the subscription of the `subscriptions/listen` request `id` (it ended).
    pub fn remove_subscription(&self, id: &rmcp::model::RequestId) {
        self.0.subscriptions.lock().unwrap_or_else(PoisonError::into_inner).retain(|(_, s)| s.id() != id);
    }

    /// Sends `notifications/tools/list_changed` to every open session and subscription of a
    /// surface whose tools `changed` (asked once per surface, and only for surfaces someone
    /// lists); returns how many got it.
    pub async fn notify_tool_list_changed(&self, changed: impl Fn(Surface) -> bool) -> usize {
        let subscriptions: Vec<(Surface, SubscriptionSink)> =
            self.0.subscriptions.lock().unwrap_or_else(PoisonError::into_inner).clone();
        let peers: Vec<(Surface, Peer<RoleServer>)> = {
            let mut peers = self.peers();
            peers.retain(|(_, p)| !p.is_transport_closed());
            peers.clone()
        };
        let mut answers: Vec<(Surface, bool)> = Vec::new();
        let mut changed_on = |surface: Surface| match answers.iter().find(|(s, _)| *s == surface) {
            Some((_, c)) => *c,
            None => {
                let c = changed(surface);
                answers.push((surface, c));
                c
            }
        };
        let mut told = 0;
        for (surface, sink) in subscriptions {
            if !changed_on(surface) {
                continue;
            }
            match sink.notify_tool_list_changed().await {
                Ok(()) => told += 1,
                Err(e) => tracing::debug!("tools/list_changed not sent on a subscription: {e}"),
            }
        }
        for (surface, peer) in peers {
            if !changed_on(surface) {
                continue;
            }
            match peer.notify_tool_list_changed().await {
                Ok(()) => told += 1,
                // The session ended meanwhile: it will list the tools anew if it comes back.
                Err(e) => tracing::debug!("tools/list_changed not sent: {e}"),
            }
        }
        told
    }

    fn peers(&self) -> std::sync::MutexGuard<'_, Vec<(Surface, Peer<RoleServer>)>> {
        self.0.peers.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::EngineOptions;
    use crate::config::RuntimeConfig;

    /// An engine with a tool per `(name, scopes)`, in `mode`.
    fn engine(tools: &[(&str, Value)], mode: &str) -> Arc<Engine> {
        let annotations =
            json!({"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": true});
        let tools: Vec<Value> = tools
            .iter()
            .map(|(name, scopes)| {
                json!({"name": name, "input_schema": {"type": "object"}, "annotations": annotations, "scopes": scopes})
            })
            .collect();
        let config: RuntimeConfig = serde_json::from_value(json!({
            "mcpgen_config": 1,
            "server": {"name": "t", "version": "1"},
            "upstream": {},
            "context": {"tool_mode": mode},
            "tools": tools,
        }))
        .unwrap();
        Engine::new(config, EngineOptions::default()).unwrap()
    }

    #[test]
    fn a_request_keeps_the_engine_it_took() {
        let (first, second) = (engine(&[("a", json!([]))], "all"), engine(&[("b", json!([]))], "all"));
        let live = LiveEngine::new(first.clone());
        let taken = live.clone().load();
        let replaced = live.swap(second.clone());
        assert!(Arc::ptr_eq(&taken, &first) && Arc::ptr_eq(&replaced, &first));
        assert!(Arc::ptr_eq(&live.load(), &second), "clones share the swap");
    }

    #[test]
    fn sessions_are_told_when_what_they_list_changes() {
        let one = [("a", json!([]))];
        let same = |a: &Engine, b: &Engine| a.lists_as(b, Surface::Configured);
        assert!(same(&engine(&one, "all"), &engine(&one, "all")));
        assert!(!same(&engine(&one, "all"), &engine(&[("a", json!([])), ("b", json!([]))], "all")));
        // Who sees a tool is part of the list (OAuth callers see the tools their scopes allow).
        assert!(!same(&engine(&one, "all"), &engine(&[("a", json!([["read"]]))], "all")));
    }

    #[cfg(feature = "discovery")]
    #[test]
    fn discovery_lists_the_same_tools_when_operations_are_added() {
        // Discovery lists its own three tools: a new operation is found by searching, not listed.
        let one = [("a", json!([]))];
        let (before, after) = (engine(&one, "discovery"), engine(&[("a", json!([])), ("b", json!([]))], "discovery"));
        assert!(before.lists_as(&after, Surface::Configured));
        assert!(before.lists_as(&after, Surface::Discovery));
        // Beside it, the path of every tool lists the new one: its sessions are told.
        assert!(!before.lists_as(&after, Surface::AllTools));
    }
}
