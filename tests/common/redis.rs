//! A real Redis (Debian's `redis-server`) on 127.0.0.1 for the token store shared by replicas.
//! Without it a test says so and passes, unless `MCPGEN_REQUIRE_REDIS=1` (set by `.ci/run`)
//! makes its absence a failure.

use std::time::{Duration, Instant};

use super::found_or_skip;

/// A running `redis-server`, stopped when dropped.
pub struct Redis {
    child: std::process::Child,
    /// `redis://127.0.0.1:PORT`.
    pub url: String,
    _dir: tempfile::TempDir,
}

impl Redis {
    /// Starts one on a free port, or says why it cannot (`None`).
    pub fn start() -> Option<Redis> {
        let found = ["/usr/bin/redis-server", "/usr/sbin/redis-server", "/usr/bin/valkey-server"]
            .iter()
            .map(std::path::PathBuf::from)
            .find(|p| p.exists());
        let binary =
            found_or_skip(found, "MCPGEN_REQUIRE_REDIS", "redis-server not installed (apt-get install redis-server)")?;
        let dir = tempfile::tempdir().unwrap();
        let port = super::nginx::free_port();
        let child = std::process::Command::new(binary)
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .arg("--dir")
            .arg(dir.path())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("start redis-server");
        let started = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(started.elapsed() < Duration::from_secs(10), "redis-server did not start");
            std::thread::sleep(Duration::from_millis(20));
        }
        Some(Redis { child, url: format!("redis://127.0.0.1:{port}"), _dir: dir })
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
