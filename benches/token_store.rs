//! What `--upstream-auth user` adds to each call: reading the caller's sealed tokens from the
//! token store and opening them (AES-256-GCM), with 10, 1,000 and 10,000 users' tokens stored,
//! in the file store (one replica) and in Redis (several; when `redis-server` is installed).
//!
//! `cargo bench --bench token_store`. Prints the median and 90th percentile of one read, over
//! random users.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine as _;
use mcpgen::runtime::tooling::store::{self, Sealed, StoreError, StoreFuture, TokenStore, token_key};

const KEY: &str = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=";
const READS: usize = 2_000;

/// Keeps what is put, to write a file store's file in one go (a put per user rewrites the file).
#[derive(Debug, Default)]
struct Capture(Mutex<BTreeMap<String, Vec<u8>>>);

impl TokenStore for Capture {
    fn get<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<Vec<u8>>> {
        Box::pin(async move { Ok(self.0.lock().unwrap().get(key).cloned()) })
    }
    fn put<'a>(&'a self, key: &'a str, value: &'a [u8], _: Option<Duration>) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            self.0.lock().unwrap().insert(key.to_string(), value.to_vec());
            Ok::<(), StoreError>(())
        })
    }
    fn take<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<Vec<u8>>> {
        Box::pin(async move { Ok(self.0.lock().unwrap().remove(key)) })
    }
    fn delete_prefix<'a>(&'a self, _: &'a str) -> StoreFuture<'a, usize> {
        Box::pin(async move { Ok(0) })
    }
}

/// A user's tokens as the flow stores them: a JWT-sized access token and a refresh token.
fn tokens(i: usize) -> Vec<u8> {
    let access = format!("eyJhbGciOiJSUzI1NiJ9.{}.{}", "x".repeat(600), i);
    serde_json::to_vec(&serde_json::json!({"access_token": access, "refresh_token": format!("r-{i}-{}", "y".repeat(40)), "expires_at": 4_000_000_000u64})).unwrap()
}

fn subject(i: usize) -> String {
    format!("user-{i:05}@example.com")
}

/// `users` users' sealed tokens, as a file store's file.
async fn file_with(dir: &std::path::Path, users: usize) -> std::path::PathBuf {
    let capture = Arc::new(Capture::default());
    let sealed = Sealed::new(capture.clone(), KEY).unwrap();
    for i in 0..users {
        sealed.put(&token_key(&subject(i), "api"), &tokens(i), None).await.unwrap();
    }
    let entries: serde_json::Map<String, serde_json::Value> = capture
        .0
        .lock()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), serde_json::json!({"value": base64::engine::general_purpose::STANDARD.encode(v)})))
        .collect();
    let path = dir.join(format!("tokens-{users}.json"));
    std::fs::write(&path, serde_json::json!({"version": 1, "entries": entries}).to_string()).unwrap();
    // The file store refuses a file others can read.
    let mut perms = std::fs::metadata(&path).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o600);
    std::fs::set_permissions(&path, perms).unwrap();
    path
}

/// Median and 90th percentile of `READS` reads of random users' tokens.
async fn measure(sealed: &Sealed, users: usize) -> (Duration, Duration) {
    let mut times = Vec::with_capacity(READS);
    let mut seed = 0x9e37_79b9_u64;
    for _ in 0..READS {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let i = (seed >> 33) as usize % users;
        let started = Instant::now();
        let got = sealed.get(&token_key(&subject(i), "api")).await.unwrap();
        times.push(started.elapsed());
        assert!(got.is_some());
    }
    times.sort();
    (times[READS / 2], times[READS * 9 / 10])
}

fn micros(d: Duration) -> String {
    format!("{:.1} µs", d.as_secs_f64() * 1e6)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let dir = tempfile::tempdir().unwrap();
    println!("one read of a user's sealed tokens (get + AES-256-GCM open), {READS} reads of random users:");
    println!("| store | users | file size | median | p90 |\n| --- | --- | --- | --- | --- |");
    let env = |n: &str| (n == store::KEY_ENV).then(|| KEY.to_string());
    for users in [10, 1_000, 10_000] {
        let path = file_with(dir.path(), users).await;
        let size = std::fs::metadata(&path).unwrap().len();
        let sealed = Sealed::from_env(store::open(path.to_str().unwrap(), &env).await.unwrap(), &env).unwrap();
        let (median, p90) = measure(&sealed, users).await;
        println!("| file | {users} | {} KB | {} | {} |", size / 1024, micros(median), micros(p90));
    }
    let Some(redis) = start_redis(dir.path()) else {
        println!("(redis-server not installed: Redis not measured)");
        return;
    };
    let url = format!("redis://127.0.0.1:{}", redis.1);
    let sealed = Sealed::from_env(store::open(&url, &env).await.unwrap(), &env).unwrap();
    for users in [10, 1_000, 10_000] {
        for i in 0..users {
            sealed.put(&token_key(&subject(i), "api"), &tokens(i), None).await.unwrap();
        }
        let (median, p90) = measure(&sealed, users).await;
        println!("| Redis (127.0.0.1) | {users} | | {} | {} |", micros(median), micros(p90));
    }
    let mut child = redis.0;
    let _ = child.kill();
    let _ = child.wait();
}

fn start_redis(dir: &std::path::Path) -> Option<(std::process::Child, u16)> {
    let binary =
        ["/usr/bin/redis-server", "/usr/bin/valkey-server"].into_iter().find(|p| std::path::Path::new(p).exists())?;
    let port = std::net::TcpListener::bind("127.0.0.1:0").ok()?.local_addr().ok()?.port();
    let child = std::process::Command::new(binary)
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
        .arg("--dir")
        .arg(dir)
        .stdout(std::process::Stdio::null())
        .spawn()
        .ok()?;
    let started = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        if started.elapsed() > Duration::from_secs(10) {
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Some((child, port))
}
