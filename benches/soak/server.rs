//! The server under test: `mcpgen serve --transport http --watch` as a child process, its log
//! read as it comes, and its graceful stop.

use std::io::Write as _;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::AsyncBufReadExt;

use crate::TIMEOUT_SECS;

/// The running `mcpgen serve`.
pub(crate) struct Server {
    child: tokio::process::Child,
    pub(crate) pid: u32,
    /// The MCP endpoint.
    pub(crate) url: String,
    log: Arc<Mutex<Log>>,
    log_done: tokio::task::JoinHandle<()>,
}

/// What the server wrote on stderr.
#[derive(Default)]
pub(crate) struct Log {
    pub(crate) lines: usize,
    pub(crate) panics: Vec<String>,
    pub(crate) reloads: Vec<String>,
    /// ERROR and WARN lines: how many, and the first 20.
    pub(crate) warnings: usize,
    pub(crate) errors: Vec<String>,
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").expect("a free port").local_addr().expect("its address").port()
}

// `--retries 1` (the default) is kept on purpose: connection errors on GETs are retried once,
// which the soak exercises (the retry of a reset hits the same fault, since faults follow the
// request id, so the classification is the same; the upstream sees one more request for each
// reset GET, which the report checks). The other faults are never retried: a 500 is not one of
// 429/502/503/504, a timeout or a broken body is not a connection error, and POST is not
// idempotent.
pub(crate) async fn start_server(spec: &Path) -> Server {
    let port = free_port();
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .arg("serve")
        .arg(spec)
        .args(["--transport", "http", "--bind", &format!("127.0.0.1:{port}"), "--watch"])
        .args(["--timeout", &TIMEOUT_SECS.to_string(), "--retries", "1"])
        // The default log filter (warn, and mcpgen's info: start-up and reloads), as in production.
        .env_remove("MCPGEN_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("start mcpgen (cargo bench builds it)");
    let pid = child.id().expect("mcpgen's pid");
    let log = Arc::new(Mutex::new(Log::default()));
    let mut lines = tokio::io::BufReader::new(child.stderr.take().expect("stderr")).lines();
    let sink = log.clone();
    // SOAK_SERVER_LOG=FILE keeps the server's whole log.
    let mut keep = std::env::var_os("SOAK_SERVER_LOG")
        .map(|p| std::io::BufWriter::new(std::fs::File::create(p).expect("create SOAK_SERVER_LOG")));
    let log_done = tokio::spawn(async move {
        while let Ok(Some(line)) = lines.next_line().await {
            if let Some(f) = &mut keep {
                let _ = writeln!(f, "{line}");
            }
            let mut log = sink.lock().expect("log lock");
            log.lines += 1;
            if line.contains("panicked") {
                log.panics.push(line);
            } else if line.contains("reloaded") || line.contains("reload of") {
                log.reloads.push(line);
            } else if line.contains(" ERROR ") || line.contains(" WARN ") {
                log.warnings += 1;
                if log.errors.len() < 20 {
                    log.errors.push(line);
                }
            }
        }
    });
    let url = format!("http://127.0.0.1:{port}/mcp");
    let health = format!("http://127.0.0.1:{port}/health");
    let http = reqwest::Client::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if http.get(&health).send().await.is_ok_and(|r| r.status().is_success()) {
            break;
        }
        assert!(Instant::now() < deadline, "mcpgen did not answer /health within 30 s");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Server { child, pid, url, log, log_done }
}

/// How the server ended: alive at the end of the calls, then stopped by SIGTERM.
pub(crate) struct Stop {
    pub(crate) alive: bool,
    /// Its exit, or the timeout waiting for it.
    pub(crate) exit: Result<std::io::Result<ExitStatus>, tokio::time::error::Elapsed>,
    pub(crate) stopped_cleanly: bool,
    /// Its whole log.
    pub(crate) log: Log,
}

impl Server {
    /// Still alive? Then a graceful stop, and its log to its end.
    pub(crate) async fn stop(mut self) -> Stop {
        let alive = matches!(self.child.try_wait(), Ok(None));
        if alive {
            // SAFETY: kill(2) on the pid of our own child, which has not been reaped.
            unsafe { libc::kill(self.pid as libc::pid_t, libc::SIGTERM) };
        }
        let exit = tokio::time::timeout(Duration::from_secs(10), self.child.wait()).await;
        let stopped_cleanly = alive && matches!(exit, Ok(Ok(s)) if s.success());
        let _ = tokio::time::timeout(Duration::from_secs(5), &mut self.log_done).await;
        let log = std::mem::take(&mut *self.log.lock().expect("log lock"));
        Stop { alive, exit, stopped_cleanly, log }
    }
}
