//! `serve --watch`: the input's files watched for changes, each burst of changes sent to the
//! server's reloader once it settles. The folders are watched, not the files: editors often write
//! a new file and rename it over the old one, which a watch on the old file would miss. Reads
//! (the reload's own among them) are not changes.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::Duration;

use notify::{Event, EventKind, RecommendedWatcher, RecursiveMode, Watcher};
use tokio::sync::mpsc::UnboundedSender;

use crate::error::{Error, Result};

/// How long the files must stay still before a change is reported: editors and `cp` write in
/// several steps, which one reload covers.
const SETTLE: Duration = Duration::from_millis(200);

/// Watches a set of files until dropped.
pub(crate) struct Watch {
    /// The files whose changes count.
    files: Arc<RwLock<BTreeSet<PathBuf>>>,
    /// The watcher and the folders it watches.
    watcher: Mutex<(RecommendedWatcher, BTreeSet<PathBuf>)>,
}

impl Watch {
    /// Watches `files` (absolute paths), sending what changed to `changes`.
    pub(crate) fn start(files: &[PathBuf], changes: UnboundedSender<String>) -> Result<Watch> {
        let watched: Arc<RwLock<BTreeSet<PathBuf>>> = Arc::default();
        let filter = watched.clone();
        let (tx, rx) = std::sync::mpsc::channel::<PathBuf>();
        let watcher = notify::recommended_watcher(move |event: notify::Result<Event>| match event {
            Ok(event) if !matches!(event.kind, EventKind::Access(_)) => {
                let files = filter.read().unwrap_or_else(PoisonError::into_inner);
                for path in event.paths.into_iter().filter(|p| files.contains(p)) {
                    let _ = tx.send(path);
                }
            }
            Ok(_) => {}
            Err(e) => tracing::warn!("--watch: {e}"),
        })
        .map_err(|e| Error::Usage { message: format!("--watch: cannot watch files here: {e}") })?;
        // Ends when the watcher (and with it the sender) is dropped.
        std::thread::Builder::new()
            .name("mcpgen-watch".into())
            .spawn(move || settle(&rx, &changes))
            .map_err(|e| Error::Usage { message: format!("--watch: {e}") })?;
        let watch = Watch { files: watched, watcher: Mutex::new((watcher, BTreeSet::new())) };
        watch.set_files(files);
        Ok(watch)
    }

    /// Watches `files` from now on (a reload may reach other files through `$ref`s).
    pub(crate) fn set_files(&self, files: &[PathBuf]) {
        let mut guard = self.watcher.lock().unwrap_or_else(PoisonError::into_inner);
        let (watcher, dirs) = &mut *guard;
        for dir in files.iter().filter_map(|f| f.parent()) {
            if dirs.contains(dir) {
                continue;
            }
            match watcher.watch(dir, RecursiveMode::NonRecursive) {
                Ok(()) => {
                    dirs.insert(dir.to_path_buf());
                }
                // A `$ref` to a file in a folder that does not exist: its creation goes unseen.
                Err(e) => tracing::warn!("--watch: cannot watch {}: {e}", dir.display()),
            }
        }
        *self.files.write().unwrap_or_else(PoisonError::into_inner) = files.iter().cloned().collect();
    }
}

/// Reports each burst of changed paths once no change came for [`SETTLE`].
fn settle(rx: &Receiver<PathBuf>, changes: &UnboundedSender<String>) {
    while let Ok(first) = rx.recv() {
        let mut changed = BTreeSet::from([first]);
        loop {
            match rx.recv_timeout(SETTLE) {
                Ok(path) => {
                    changed.insert(path);
                }
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => return,
            }
        }
        let names: Vec<String> = changed.iter().map(|p| p.display().to_string()).collect();
        if changes.send(format!("{} changed", names.join(", "))).is_err() {
            return; // the server is gone
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file replaced by a rename (as editors save) counts; reading it (as a reload does) or
    /// writing another file of the folder does not.
    #[tokio::test]
    async fn a_renamed_over_file_is_a_change_and_reads_and_neighbours_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let spec = dir.path().join("spec.yaml");
        std::fs::write(&spec, "a: 1\n").unwrap();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let _watch = Watch::start(std::slice::from_ref(&spec), tx).unwrap();

        std::fs::write(dir.path().join("other.yaml"), "b: 1\n").unwrap();
        std::fs::read(&spec).unwrap();
        let next = tokio::time::timeout(Duration::from_millis(800), rx.recv()).await;
        assert!(next.is_err(), "a read or another file's change was reported: {next:?}");

        let tmp = dir.path().join(".spec.yaml.swp");
        std::fs::write(&tmp, "a: 2\n").unwrap();
        std::fs::rename(&tmp, &spec).unwrap();
        let next = tokio::time::timeout(Duration::from_secs(5), rx.recv()).await.unwrap().unwrap();
        assert_eq!(next, format!("{} changed", spec.display()));
    }
}
