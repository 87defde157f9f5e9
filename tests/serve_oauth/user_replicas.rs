//! Two `--upstream-auth user` replicas behind nginx (the scale-out test's load balancer) sharing
//! one Redis token store: a user who authorizes through one replica is served as themselves by
//! the other, the callback lands on whichever replica nginx picks, and no user's call ever
//! carries another's token.

use crate::common::nginx::{Nginx, backend, free_port, nginx};
use crate::common::redis::Redis;
use crate::common::*;
use crate::real_idp::*;
use crate::user_flow::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn replicas_behind_nginx_share_each_users_tokens_and_never_mix_them() {
    let Some(nginx_bin) = nginx() else { return };
    let Some(redis) = Redis::start() else { return };
    let Some(idp) = real_idp().await else { return };
    let mock = start_mock().await;
    let spec = user_spec(&idp, &mock);
    // Users come back through the load balancer: its URL is the servers' public one.
    let lb_port = free_port();
    let public = format!("http://127.0.0.1:{lb_port}/mcp");
    let cmd = user_command(&idp, &spec, &redis.url);
    let (_one, replica_1, _) = spawn_http_logged(&cmd, &["--oauth-resource", &public]).await;
    let (_two, replica_2, _) = spawn_http_logged(&cmd, &["--oauth-resource", &public]).await;
    let lb = Nginx::start_on(&nginx_bin, &[backend(&replica_1), backend(&replica_2)], lb_port);

    // Alice authorizes through replica 1; the callback goes through nginx.
    let alice = user_token(&idp, "alice").await;
    let url = authorization_url(&list_pets(&client(&replica_1, &alice).await).await);
    let mut browser = Browser::new();
    let callback = consent(&idp, &mut browser, &url, "alice").await;
    assert!(callback.starts_with(&format!("http://127.0.0.1:{lb_port}/oauth/callback?")), "{callback}");
    let (status, _, page) = browser.go(&callback, None).await;
    assert_eq!(status, 200, "{page}");
    // Replica 2 serves her as herself.
    let r = list_pets(&client(&replica_2, &alice).await).await;
    assert_eq!(r.is_error, Some(false), "{r:?}");
    let (alice_api_token, claims) = carried(&mock.last());
    assert_eq!(claims["sub"], "alice");

    // Bob authorizes through the load balancer.
    let bob = user_token(&idp, "bob").await;
    let bob_client = client(&lb.url, &bob).await;
    let url = authorization_url(&list_pets(&bob_client).await);
    let mut browser = Browser::new();
    let callback = consent(&idp, &mut browser, &url, "bob").await;
    assert_eq!(browser.go(&callback, None).await.0, 200);

    // Calls of both through nginx, round robin over the replicas: each carries its user's own.
    let alice_client = client(&lb.url, &alice).await;
    mock.clear();
    for _ in 0..4 {
        for (user, c) in [("alice", &alice_client), ("bob", &bob_client)] {
            let r = list_pets(c).await;
            assert_eq!(r.is_error, Some(false), "{user}: {r:?}");
            let (token, claims) = carried(&mock.last());
            assert_eq!(claims["sub"], user, "{user}'s call carried {claims}");
            if user == "alice" {
                assert_eq!(token, alice_api_token, "her stored token, on either replica");
            }
        }
    }
    assert_eq!(mock.requests().len(), 8);
}
