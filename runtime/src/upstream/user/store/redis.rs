//! The Redis/Valkey token store (several replicas share it): GET, SET (with EX for a time to
//! live), GETDEL for `take` (Redis 6.2 or later, Valkey), SCAN and UNLINK for `delete_prefix`,
//! over one multiplexed connection that reconnects (redis' `ConnectionManager`). The password is
//! never in the URL: it comes from `MCPGEN_TOKEN_STORE_PASSWORD`.

use std::time::Duration;

use ::redis::aio::{ConnectionManager, ConnectionManagerConfig};
use ::redis::{Client, IntoConnectionInfo as _, RedisError};

use super::{PASSWORD_ENV, StoreError, StoreFuture, TokenStore};
use crate::error::Error;

/// How long connecting, and then each command, may take.
const TIMEOUT: Duration = Duration::from_secs(5);

/// Keys SCAN looks at per round.
const SCAN_COUNT: usize = 500;

/// A token store on Redis or Valkey.
pub(super) struct RedisStore {
    conn: ConnectionManager,
    /// The URL as given (it holds no password), for errors.
    url: String,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore").field("url", &self.url).finish_non_exhaustive()
    }
}

impl RedisStore {
    /// Connects to `url` (`redis://`, `rediss://`, `valkey://`, `valkeys://`), with `password`
    /// when given; a password inside the URL is refused.
    pub(super) async fn connect(url: &str, password: Option<String>) -> Result<RedisStore, Error> {
        let parsed = url::Url::parse(url)
            .map_err(|e| Error::Config(format!("--token-store: not a valid redis:// URL ({e})")))?;
        if parsed.password().is_some() {
            return Err(Error::Config(format!(
                "--token-store: the URL holds a password, which would show in process lists and logs: remove it \
                 and set {PASSWORD_ENV} instead"
            )));
        }
        let shown = url.to_string();
        if matches!(parsed.scheme(), "rediss" | "valkeys") {
            // TLS by rustls, with the ring provider the rest of the engine uses.
            crate::upstream::install_crypto_provider();
        }
        let refused = |e: RedisError| Error::Config(format!("--token-store {shown}: {e}"));
        let mut info = url.into_connection_info().map_err(refused)?;
        if let Some(password) = password {
            let settings = info.redis_settings().clone().set_password(password);
            info = info.set_redis_settings(settings);
        }
        let client = Client::open(info).map_err(refused)?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(TIMEOUT))
            .set_response_timeout(Some(TIMEOUT))
            .set_number_of_retries(2);
        let cannot = |e: RedisError| {
            Error::Config(format!(
                "--token-store {shown}: cannot connect to Redis/Valkey: {e}; check that it runs at that address, \
                 and {PASSWORD_ENV} if it asks for a password"
            ))
        };
        let mut conn = ConnectionManager::new_with_config(client, config).await.map_err(cannot)?;
        // The connection's handshake ignores a refused password: a PING does not.
        ::redis::cmd("PING").exec_async(&mut conn).await.map_err(cannot)?;
        Ok(RedisStore { conn, url: shown })
    }

    fn failed(&self, what: &str, e: RedisError) -> StoreError {
        let hint = if e.to_string().to_ascii_lowercase().contains("unknown command") {
            " (the token store needs Redis 6.2 or later, or Valkey)"
        } else if e.is_io_error() || e.is_timeout() || e.is_connection_dropped() || e.is_connection_refusal() {
            " (is Redis/Valkey running? the connection is retried at the next operation)"
        } else {
            ""
        };
        StoreError::Redis { url: self.url.clone(), what: format!("{what} failed: {e}{hint}") }
    }
}

/// `prefix` as a SCAN MATCH pattern that matches it literally, followed by anything.
fn match_pattern(prefix: &str) -> String {
    let mut out = String::with_capacity(prefix.len() + 1);
    for c in prefix.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('*');
    out
}

impl TokenStore for RedisStore {
    fn get<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<Vec<u8>>> {
        Box::pin(async move {
            let mut conn = self.conn.clone();
            ::redis::cmd("GET").arg(key).query_async(&mut conn).await.map_err(|e| self.failed("GET", e))
        })
    }

    fn put<'a>(&'a self, key: &'a str, value: &'a [u8], ttl: Option<Duration>) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut conn = self.conn.clone();
            let mut cmd = ::redis::cmd("SET");
            cmd.arg(key).arg(value);
            if let Some(ttl) = ttl {
                let seconds = ttl.as_secs() + u64::from(ttl.subsec_nanos() > 0);
                cmd.arg("EX").arg(seconds.max(1));
            }
            cmd.exec_async(&mut conn).await.map_err(|e| self.failed("SET", e))
        })
    }

    fn take<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<Vec<u8>>> {
        Box::pin(async move {
            let mut conn = self.conn.clone();
            ::redis::cmd("GETDEL").arg(key).query_async(&mut conn).await.map_err(|e| self.failed("GETDEL", e))
        })
    }

    fn delete_prefix<'a>(&'a self, prefix: &'a str) -> StoreFuture<'a, usize> {
        Box::pin(async move {
            let mut conn = self.conn.clone();
            let pattern = match_pattern(prefix);
            let mut cursor: u64 = 0;
            let mut gone = 0usize;
            loop {
                let (next, keys): (u64, Vec<Vec<u8>>) = ::redis::cmd("SCAN")
                    .arg(cursor)
                    .arg("MATCH")
                    .arg(&pattern)
                    .arg("COUNT")
                    .arg(SCAN_COUNT)
                    .query_async(&mut conn)
                    .await
                    .map_err(|e| self.failed("SCAN", e))?;
                if !keys.is_empty() {
                    // UNLINK counts only keys that were there: a key SCAN returned twice counts once.
                    let n: usize = ::redis::cmd("UNLINK")
                        .arg(&keys)
                        .query_async(&mut conn)
                        .await
                        .map_err(|e| self.failed("UNLINK", e))?;
                    gone += n;
                }
                if next == 0 {
                    return Ok(gone);
                }
                cursor = next;
            }
        })
    }
}

#[cfg(test)]
/// A `redis-server` of the tests' own, on a free port of 127.0.0.1, killed when dropped.
pub(crate) mod test_server {
    use std::process::{Child, Command, Stdio};
    use std::time::{Duration, Instant};

    /// A running `redis-server`.
    pub(crate) struct RedisServer {
        child: Child,
        /// Its port on 127.0.0.1.
        pub(crate) port: u16,
    }

    impl RedisServer {
        /// `redis://127.0.0.1:PORT`.
        pub(crate) fn url(&self) -> String {
            format!("redis://127.0.0.1:{}", self.port)
        }
    }

    impl Drop for RedisServer {
        fn drop(&mut self) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }

    fn binary() -> Option<std::path::PathBuf> {
        let on_path = std::env::var_os("PATH")
            .map(|p| std::env::split_paths(&p).map(|d| d.join("redis-server")).collect::<Vec<_>>())
            .unwrap_or_default();
        on_path.into_iter().chain([std::path::PathBuf::from("/usr/bin/redis-server")]).find(|p| p.is_file())
    }

    /// Starts a `redis-server` with `extra` arguments; `None` (and a line on stderr) when there is
    /// none, unless `MCPGEN_REQUIRE_REDIS=1`, which makes it a failure.
    pub(crate) fn start(extra: &[&str]) -> Option<RedisServer> {
        let Some(bin) = binary() else {
            assert!(
                std::env::var("MCPGEN_REQUIRE_REDIS").as_deref() != Ok("1"),
                "redis-server is not installed, and MCPGEN_REQUIRE_REDIS=1"
            );
            eprintln!("skipped: redis-server is not installed");
            return None;
        };
        for _ in 0..5 {
            let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
            let mut child = Command::new(&bin)
                .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
                .args(extra)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("start redis-server");
            let deadline = Instant::now() + Duration::from_secs(10);
            while Instant::now() < deadline {
                if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                    return Some(RedisServer { child, port });
                }
                if let Ok(Some(_)) = child.try_wait() {
                    break; // the port was taken meanwhile: another one
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
        panic!("redis-server did not start");
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::upstream::user::store::{Sealed, open, subject_prefix, token_key};

    fn no_env(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn prefixes_match_literally() {
        assert_eq!(match_pattern("a*b?c[d]e\\f:"), "a\\*b\\?c\\[d\\]e\\\\f:*");
    }

    #[tokio::test]
    async fn two_replicas_share_the_store() {
        let Some(server) = test_server::start(&[]) else { return };
        let one = open(&server.url(), &no_env).await.unwrap();
        let two = open(&server.url(), &no_env).await.unwrap();
        assert_eq!(one.get("k").await.unwrap(), None);
        one.put("k", b"v1", None).await.unwrap();
        assert_eq!(two.get("k").await.unwrap().as_deref(), Some(&b"v1"[..]));
        two.put("k", &[0, 255, 1], None).await.unwrap();
        assert_eq!(one.get("k").await.unwrap().as_deref(), Some(&[0u8, 255, 1][..]));

        // Sealed values written by one replica open on the other.
        let key = "q83vEjRWeJASNFZ4kKvN7xI0VniQq83vEjRWeJASNFY=";
        let (s1, s2) = (Sealed::new(one.clone(), key).unwrap(), Sealed::new(two.clone(), key).unwrap());
        s1.put(&token_key("alice", "github"), b"token", None).await.unwrap();
        assert_eq!(s2.get(&token_key("alice", "github")).await.unwrap().as_deref(), Some(&b"token"[..]));
    }

    #[tokio::test]
    async fn take_is_single_use_across_replicas() {
        let Some(server) = test_server::start(&[]) else { return };
        let one = open(&server.url(), &no_env).await.unwrap();
        let two = open(&server.url(), &no_env).await.unwrap();
        for round in 0..20 {
            let key = format!("mcpgen:state:{round}");
            one.put(&key, b"pending", Some(Duration::from_secs(600))).await.unwrap();
            let (a, b) = {
                let (one, two): (Arc<dyn TokenStore>, Arc<dyn TokenStore>) = (one.clone(), two.clone());
                let (k1, k2) = (key.clone(), key.clone());
                tokio::join!(
                    tokio::spawn(async move { one.take(&k1).await.unwrap() }),
                    tokio::spawn(async move { two.take(&k2).await.unwrap() })
                )
            };
            let got = [a.unwrap(), b.unwrap()];
            assert_eq!(got.iter().filter(|v| v.is_some()).count(), 1, "{got:?}");
            assert_eq!(one.get(&key).await.unwrap(), None);
        }
    }

    #[tokio::test]
    async fn entries_expire() {
        let Some(server) = test_server::start(&[]) else { return };
        let s = open(&server.url(), &no_env).await.unwrap();
        s.put("short", b"1", Some(Duration::from_millis(10))).await.unwrap();
        s.put("long", b"2", Some(Duration::from_secs(3600))).await.unwrap();
        assert!(s.get("short").await.unwrap().is_some(), "a ttl under a second lasts a second");
        tokio::time::sleep(Duration::from_millis(2100)).await;
        assert_eq!(s.get("short").await.unwrap(), None);
        assert!(s.get("long").await.unwrap().is_some());
    }

    #[tokio::test]
    async fn delete_prefix_matches_literally_and_counts() {
        let Some(server) = test_server::start(&[]) else { return };
        let s = open(&server.url(), &no_env).await.unwrap();
        for k in ["p*:a", "p*:b", "px:a", "p*x", "q"] {
            s.put(k, b"v", None).await.unwrap();
        }
        assert_eq!(s.delete_prefix("p*:").await.unwrap(), 2);
        for (k, there) in [("p*:a", false), ("p*:b", false), ("px:a", true), ("p*x", true), ("q", true)] {
            assert_eq!(s.get(k).await.unwrap().is_some(), there, "{k}");
        }
        // More keys than one SCAN round looks at.
        let prefix = subject_prefix("alice");
        for i in 0..1200 {
            s.put(&format!("{prefix}api{i}"), b"v", None).await.unwrap();
        }
        s.put(&token_key("bob", "api0"), b"v", None).await.unwrap();
        assert_eq!(s.delete_prefix(&prefix).await.unwrap(), 1200);
        assert!(s.get(&token_key("bob", "api0")).await.unwrap().is_some());
    }

    #[tokio::test]
    async fn passwords_come_from_the_environment_only() {
        let Some(server) = test_server::start(&["--requirepass", "s3cret-pw"]) else { return };
        let with_password = |name: &str| (name == PASSWORD_ENV).then(|| "s3cret-pw".to_string());
        let s = open(&server.url(), &with_password).await.unwrap();
        s.put("k", b"v", None).await.unwrap();

        let e = open(&server.url(), &no_env).await.unwrap_err().to_string();
        assert!(e.contains("cannot connect") && e.contains(PASSWORD_ENV), "{e}");

        let in_url = format!("redis://:s3cret-pw@127.0.0.1:{}", server.port);
        let e = open(&in_url, &no_env).await.unwrap_err().to_string();
        assert!(e.contains(PASSWORD_ENV) && !e.contains("s3cret-pw"), "{e}");
    }

    #[tokio::test]
    async fn a_failed_connection_is_a_config_error_naming_the_url() {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let url = format!("redis://127.0.0.1:{port}/2");
        let e = open(&url, &no_env).await.unwrap_err();
        assert!(matches!(&e, Error::Config(m) if m.contains(&url) && m.contains("cannot connect")), "{e}");
    }
}
