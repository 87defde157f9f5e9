//! What the reload and pins tests share: saving a file as editors do, a stdio server whose
//! client records `notifications/tools/list_changed`, and waiting for the tool list or the log.

use std::path::Path;
use std::time::{Duration, Instant};

use rmcp::service::{NotificationContext, RunningService};
use rmcp::{ClientHandler, Peer, RoleClient, ServiceExt};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

use super::{Logs, read_lines};

/// Saves as many editors do: a new file renamed over the old one.
pub fn save_by_rename(path: &Path, text: &str) {
    let tmp = path.with_extension("yaml.tmp");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

/// A client that records `notifications/tools/list_changed`.
#[derive(Clone)]
pub struct Recorder(UnboundedSender<()>);

impl ClientHandler for Recorder {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.0.send(());
    }
}

/// A stdio server and its client, which records list changes.
pub struct Stdio {
    pub client: RunningService<RoleClient, Recorder>,
    pub changed: UnboundedReceiver<()>,
    pub logs: Logs,
    pub pid: u32,
}

/// `mcpgen serve SPEC --transport stdio` with `extra`, and a client of it.
pub async fn stdio(spec: &Path, extra: &[&str]) -> Stdio {
    mcpgen::runtime::install_crypto_provider();
    let mut c = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcpgen"));
    c.arg("serve").arg(spec).args(extra).args(["--transport", "stdio"]);
    c.env_clear().env("PATH", std::env::var("PATH").unwrap_or_default()).env("MCPGEN_LOG", "info");
    let (child, stderr) = rmcp::transport::TokioChildProcess::builder(c)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn stdio server");
    let logs = read_lines(stderr.unwrap().into_owned_fd().unwrap());
    let pid = child.id().expect("the server's pid");
    let (tx, changed) = unbounded_channel();
    let client = Recorder(tx).serve(child).await.expect("initialize over stdio");
    Stdio { client, changed, logs, pid }
}

/// The names `tools/list` shows, sorted.
pub async fn tool_names(peer: &Peer<RoleClient>) -> Vec<String> {
    let mut names: Vec<String> =
        peer.list_all_tools().await.expect("tools/list").into_iter().map(|t| t.name.to_string()).collect();
    names.sort();
    names
}

/// Waits (10 s at most) until `tools/list` names exactly `want`.
pub async fn until_tools(peer: &Peer<RoleClient>, want: &[&str]) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let names = tool_names(peer).await;
        if names == want {
            return;
        }
        assert!(Instant::now() < deadline, "tools/list still shows {names:?}, not {want:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Waits (10 s at most) until `n` log lines contain `needle`; returns them.
pub async fn until_logged(logs: &Logs, needle: &str, n: usize) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let found: Vec<String> = logs.lock().unwrap().iter().filter(|l| l.contains(needle)).cloned().collect();
        if found.len() >= n {
            return found;
        }
        assert!(Instant::now() < deadline, "no {n} lines with {needle:?} in {:?}", logs.lock().unwrap());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
