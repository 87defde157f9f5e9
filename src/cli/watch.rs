//! `serve --watch`: the input's files watched for changes, each burst of changes sent to the
//! server's reloader once it settles. The folders are watched, not the files: editors often write
//! a new file and rename it over the old one, which a watch on the old file would miss, and a
//! Kubernetes ConfigMap volume changes its files by pointing a symlink of the folder elsewhere.
//! Reads (the reload's own among them) are not changes.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, PoisonError};
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
    files: Arc<Mutex<Files>>,
    /// The watcher and the folders it watches.
    watcher: Mutex<(RecommendedWatcher, BTreeSet<PathBuf>)>,
}

impl Watch {
    /// Watches `files` (absolute paths), sending what changed to `changes`.
    pub(crate) fn start(files: &[PathBuf], changes: UnboundedSender<String>) -> Result<Watch> {
        let watched: Arc<Mutex<Files>> = Arc::default();
        let filter = watched.clone();
        let (tx, rx) = std::sync::mpsc::channel::<PathBuf>();
        let watcher = notify::recommended_watcher(move |event: notify::Result<Event>| match event {
            Ok(event) if !matches!(event.kind, EventKind::Access(_)) => {
                for path in filter.lock().unwrap_or_else(PoisonError::into_inner).changed(&event) {
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
        self.files.lock().unwrap_or_else(PoisonError::into_inner).set(files);
    }
}

/// The files whose changes count, each with the file its path resolves to through symlinks.
#[derive(Default)]
struct Files(BTreeMap<PathBuf, Option<PathBuf>>);

impl Files {
    fn set(&mut self, files: &[PathBuf]) {
        self.0 = files.iter().map(|f| (f.clone(), resolve(f))).collect();
    }

    /// The files an event changed: those it names, and those of its folders that now resolve to
    /// another file (a ConfigMap's `..data` symlink replaced).
    fn changed(&mut self, event: &Event) -> Vec<PathBuf> {
        let mut changed: Vec<PathBuf> = event.paths.iter().filter(|p| self.0.contains_key(*p)).cloned().collect();
        let dirs: BTreeSet<&Path> = event.paths.iter().filter_map(|p| p.parent()).collect();
        for (file, target) in &mut self.0 {
            if !file.parent().is_some_and(|d| dirs.contains(d)) {
                continue;
            }
            let now = resolve(file);
            if now != *target {
                *target = now;
                if !changed.contains(file) {
                    changed.push(file.clone());
                }
            }
        }
        changed
    }
}

fn resolve(path: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(path).ok()
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

    /// A Kubernetes ConfigMap volume: `api.yaml -> ..data/api.yaml`, `..data -> ..v1`; an update
    /// writes `..v2` and renames a new `..data` symlink over the old one.
    #[cfg(unix)]
    #[tokio::test]
    async fn a_configmap_update_is_a_change() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        for v in ["..v1", "..v2"] {
            std::fs::create_dir(d.join(v)).unwrap();
            std::fs::write(d.join(v).join("api.yaml"), v).unwrap();
        }
        symlink("..v1", d.join("..data")).unwrap();
        symlink("..data/api.yaml", d.join("api.yaml")).unwrap();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let _watch = Watch::start(&[d.join("api.yaml")], tx).unwrap();

        symlink("..v2", d.join("..data_tmp")).unwrap();
        std::fs::rename(d.join("..data_tmp"), d.join("..data")).unwrap();
        let next = tokio::time::timeout(Duration::from_secs(5), rx.recv()).await.unwrap().unwrap();
        assert_eq!(next, format!("{} changed", d.join("api.yaml").display()));
    }
}
