//! The file token store (one replica; the default): one JSON file,
//! `{"version":1,"entries":{KEY:{"value":BASE64,"expires":UNIX_SECONDS}}}`, readable by its owner
//! only (0600; a file others can read is refused). Every operation re-reads it (another process,
//! `mcpgen tokens revoke`, may have changed it), under a lock within the process and an advisory
//! lock (`flock` on `PATH.lock`) between processes; every write goes to a temporary file in the
//! same directory, then is renamed over it, so nothing is ever half written. Expired entries are
//! dropped when it is written. What was read is kept parsed until the file changes (its device,
//! inode, size or modification time): a read of an unchanged file is a `stat`, not a parse of
//! every user's tokens.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde::{Deserialize, Serialize};

use super::{StoreError, StoreFuture, TokenStore};
use crate::error::Error;

/// The file format's version.
const FORMAT: u32 = 1;

/// A token store in one JSON file.
#[derive(Debug)]
pub struct FileStore {
    path: Arc<PathBuf>,
    lock: tokio::sync::Mutex<()>,
    /// The contents last read or written, and the file they were read from.
    cache: Arc<std::sync::Mutex<Option<(Stamp, Contents)>>>,
}

/// What tells one version of the file from another (a write renames a new file over it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    dev: u64,
    ino: u64,
    len: u64,
    modified: Option<SystemTime>,
}

impl Stamp {
    /// No file yet.
    const NONE: Stamp = Stamp { dev: 0, ino: 0, len: 0, modified: None };

    fn of(meta: &fs::Metadata) -> Stamp {
        #[cfg(unix)]
        let (dev, ino) = {
            use std::os::unix::fs::MetadataExt as _;
            (meta.dev(), meta.ino())
        };
        #[cfg(not(unix))]
        let (dev, ino) = (0, 0);
        Stamp { dev, ino, len: meta.len(), modified: meta.modified().ok() }
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Contents {
    version: u32,
    entries: BTreeMap<String, Entry>,
}

#[derive(Debug, Serialize, Deserialize)]
struct Entry {
    value: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    expires: Option<u64>,
}

impl Entry {
    fn live(&self, now: u64) -> bool {
        self.expires.is_none_or(|at| now < at)
    }
}

impl FileStore {
    /// The store in the file `path`, created at the first write. Its directory must exist; an
    /// existing file must be readable by its owner only (0600) and be a token store.
    pub fn open(path: impl Into<PathBuf>) -> Result<FileStore, Error> {
        let path: PathBuf = path.into();
        let dir = directory(&path);
        if !dir.is_dir() {
            return Err(Error::Config(format!(
                "--token-store {}: the directory {} does not exist; create it (readable by the server's user only)",
                path.display(),
                dir.display()
            )));
        }
        // Refused now, not at the first request: a file others can read, or one that is not a
        // token store.
        let mut cache = None;
        cached(&path, &mut cache).map_err(|e| Error::Config(e.to_string()))?;
        Ok(FileStore {
            path: Arc::new(path),
            lock: tokio::sync::Mutex::new(()),
            cache: Arc::new(std::sync::Mutex::new(cache)),
        })
    }

    /// The file.
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Runs `f` on the file's entries (expired ones already gone), under both locks, on a blocking
    /// thread; writes them back when `f` says they changed.
    async fn with_entries<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut BTreeMap<String, Entry>, u64) -> (bool, T) + Send + 'static,
    ) -> Result<T, StoreError> {
        let _held = self.lock.lock().await;
        let (path, cache) = (self.path.clone(), self.cache.clone());
        let run = move || {
            let _flock = FileLock::take(&path)?;
            let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
            let contents = cached(&path, &mut cache)?;
            let now = now();
            let before = contents.entries.len();
            contents.entries.retain(|_, e| e.live(now));
            let expired = contents.entries.len() != before;
            let (changed, out) = f(&mut contents.entries, now);
            if changed || expired {
                match save(&path, contents)
                    .and_then(|()| fs::metadata(&*path).map_err(|e| io_error(&path, "read it", &e)))
                {
                    Ok(meta) => cache.as_mut().into_iter().for_each(|c| c.0 = Stamp::of(&meta)),
                    Err(e) => {
                        // The file holds what it held: read it again next time.
                        *cache = None;
                        return Err(e);
                    }
                }
            }
            Ok(out)
        };
        match tokio::task::spawn_blocking(run).await {
            Ok(out) => out,
            Err(e) => {
                Err(StoreError::File { path: self.path.to_path_buf(), what: format!("the file operation failed: {e}") })
            }
        }
    }

    fn decode(&self, value: &str) -> Result<Vec<u8>, StoreError> {
        STANDARD.decode(value).map_err(|_| corrupt(&self.path, "a value is not base64"))
    }
}

impl TokenStore for FileStore {
    fn get<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<Vec<u8>>> {
        let key = key.to_string();
        Box::pin(async move {
            // Reading needs no write: an expired entry is dropped at the next one.
            let _held = self.lock.lock().await;
            let (path, cache) = (self.path.clone(), self.cache.clone());
            let found = tokio::task::spawn_blocking(move || -> Result<Option<String>, StoreError> {
                let now = now();
                let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
                let entry = cached(&path, &mut cache)?.entries.get(&key);
                Ok(entry.filter(|e| e.live(now)).map(|e| e.value.clone()))
            })
            .await
            .map_err(|e| StoreError::File {
                path: self.path.to_path_buf(),
                what: format!("the file operation failed: {e}"),
            })??;
            found.map(|v| self.decode(&v)).transpose()
        })
    }

    fn put<'a>(&'a self, key: &'a str, value: &'a [u8], ttl: Option<Duration>) -> StoreFuture<'a, ()> {
        let key = key.to_string();
        let value = STANDARD.encode(value);
        Box::pin(async move {
            self.with_entries(move |entries, now| {
                let expires = ttl.map(|t| now.saturating_add(t.as_secs().max(1) + u64::from(t.subsec_nanos() > 0)));
                entries.insert(key, Entry { value, expires });
                (true, ())
            })
            .await
        })
    }

    fn take<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<Vec<u8>>> {
        let key = key.to_string();
        Box::pin(async move {
            let found = self
                .with_entries(move |entries, _| {
                    let found = entries.remove(&key).map(|e| e.value);
                    (found.is_some(), found)
                })
                .await?;
            found.map(|v| self.decode(&v)).transpose()
        })
    }

    fn delete_prefix<'a>(&'a self, prefix: &'a str) -> StoreFuture<'a, usize> {
        let prefix = prefix.to_string();
        Box::pin(async move {
            self.with_entries(move |entries, _| {
                let before = entries.len();
                entries.retain(|k, _| !k.starts_with(&prefix));
                let gone = before - entries.len();
                (gone > 0, gone)
            })
            .await
        })
    }
}

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

fn directory(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

fn io_error(path: &Path, action: &str, e: &std::io::Error) -> StoreError {
    StoreError::File { path: path.to_path_buf(), what: format!("cannot {action}: {e}") }
}

fn corrupt(path: &Path, why: &str) -> StoreError {
    StoreError::File {
        path: path.to_path_buf(),
        what: format!(
            "not a token store file ({why}); restore it from a backup, or delete it (every user then authorizes again)"
        ),
    }
}

/// The file's contents, from `cache` when the file has not changed since (its permissions are
/// checked each time); empty when there is no file yet.
fn cached<'c>(path: &Path, cache: &'c mut Option<(Stamp, Contents)>) -> Result<&'c mut Contents, StoreError> {
    let meta = match fs::metadata(path) {
        Ok(m) => Some(m),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(io_error(path, "read it", &e)),
    };
    let stamp = meta.as_ref().map_or(Stamp::NONE, Stamp::of);
    let fresh = match (cache.take(), &meta) {
        (Some((was, contents)), _) if was == stamp => (was, contents),
        (_, None) => (stamp, Contents { version: FORMAT, ..Contents::default() }),
        (_, Some(meta)) => (stamp, load(path, meta)?),
    };
    if let Some(meta) = &meta {
        check_private(path, meta)?;
    }
    Ok(&mut cache.insert(fresh).1)
}

/// The file's contents, read and checked (`meta`: its metadata, read just before).
fn load(path: &Path, meta: &fs::Metadata) -> Result<Contents, StoreError> {
    if !meta.is_file() {
        return Err(StoreError::File { path: path.to_path_buf(), what: "not a regular file; give a file path".into() });
    }
    check_private(path, meta)?;
    let text = fs::read(path).map_err(|e| io_error(path, "read it", &e))?;
    // serde_json's messages can quote what they read: only where it broke is said.
    let contents: Contents = serde_json::from_slice(&text).map_err(|e| {
        corrupt(path, &format!("invalid at line {} column {}: {:?}", e.line(), e.column(), e.classify()))
    })?;
    if contents.version != FORMAT {
        return Err(StoreError::File {
            path: path.to_path_buf(),
            what: format!(
                "format version {} (this mcpgen reads version {FORMAT}): was it written by another mcpgen?",
                contents.version
            ),
        });
    }
    Ok(contents)
}

/// Refuses a file others may read or write: it holds users' tokens.
fn check_private(path: &Path, meta: &fs::Metadata) -> Result<(), StoreError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        if meta.permissions().mode() & 0o077 != 0 {
            return Err(StoreError::File {
                path: path.to_path_buf(),
                what: format!(
                    "others may read it (mode {:o}), and it holds users' tokens: run `chmod 600 {}`",
                    meta.permissions().mode() & 0o777,
                    path.display()
                ),
            });
        }
    }
    #[cfg(not(unix))]
    let _ = (path, meta);
    Ok(())
}

/// Writes `contents` to a temporary file (0600) in the same directory, then renames it over `path`.
fn save(path: &Path, contents: &Contents) -> Result<(), StoreError> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "tokens".into());
    let tmp =
        directory(path).join(format!(".{name}.tmp.{}.{}", std::process::id(), COUNTER.fetch_add(1, Ordering::Relaxed)));
    let bytes = serde_json::to_vec(contents)
        .map_err(|e| StoreError::File { path: path.to_path_buf(), what: format!("cannot serialize the store: {e}") })?;
    let written = (|| {
        let mut file = private_file(&tmp)?;
        file.write_all(&bytes)?;
        file.sync_all()?;
        fs::rename(&tmp, path)
    })();
    written.map_err(|e| {
        let _ = fs::remove_file(&tmp);
        io_error(path, "write it", &e)
    })
}

/// A new file readable and writable by its owner only.
fn private_file(path: &Path) -> std::io::Result<fs::File> {
    let mut options = fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)
}

/// An exclusive advisory lock between processes (`flock` on `PATH.lock`), held until dropped.
struct FileLock {
    #[cfg(unix)]
    _file: fs::File,
}

impl FileLock {
    #[cfg(unix)]
    fn take(path: &Path) -> Result<FileLock, StoreError> {
        use std::os::fd::AsRawFd as _;
        let mut name = path.as_os_str().to_owned();
        name.push(".lock");
        let lock_path = PathBuf::from(name);
        let mut options = fs::OpenOptions::new();
        options.read(true).write(true).create(true).truncate(false);
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let file = options.open(&lock_path).map_err(|e| io_error(&lock_path, "open the lock file", &e))?;
        loop {
            // SAFETY: flock on a descriptor this function owns, open for its whole call.
            let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) };
            if rc == 0 {
                return Ok(FileLock { _file: file });
            }
            let e = std::io::Error::last_os_error();
            if e.kind() != std::io::ErrorKind::Interrupted {
                return Err(io_error(&lock_path, "lock the lock file", &e));
            }
        }
    }

    #[cfg(not(unix))]
    fn take(_path: &Path) -> Result<FileLock, StoreError> {
        Ok(FileLock {})
    }
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt as _;

    use super::*;

    fn open(dir: &tempfile::TempDir) -> FileStore {
        FileStore::open(dir.path().join("tokens.json")).unwrap()
    }

    /// What one store read stays right when another process changes the file (its parsed copy
    /// is kept only while the file is unchanged), and a file made readable by others is refused
    /// even when it was read before.
    #[tokio::test]
    async fn another_writer_and_a_chmod_are_seen_at_the_next_read() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (open(&dir), open(&dir));
        a.put("k", b"1", None).await.unwrap();
        assert_eq!(a.get("k").await.unwrap().as_deref(), Some(&b"1"[..]));
        b.put("k", b"2", None).await.unwrap();
        assert_eq!(a.get("k").await.unwrap().as_deref(), Some(&b"2"[..]), "b's write, not a's copy");
        assert_eq!(b.delete_prefix("k").await.unwrap(), 1);
        assert_eq!(a.get("k").await.unwrap(), None);
        std::fs::set_permissions(a.path(), std::fs::Permissions::from_mode(0o644)).unwrap();
        let e = a.get("other").await.unwrap_err().to_string();
        assert!(e.contains("chmod 600"), "{e}");
    }

    #[tokio::test]
    async fn put_get_take_and_delete_prefix() {
        let dir = tempfile::tempdir().unwrap();
        let s = open(&dir);
        assert_eq!(s.get("a").await.unwrap(), None);
        assert!(!s.path().exists(), "created at the first write");
        s.put("a", b"1", None).await.unwrap();
        s.put("a", b"2", None).await.unwrap();
        assert_eq!(s.get("a").await.unwrap().as_deref(), Some(&b"2"[..]));
        assert_eq!(s.take("a").await.unwrap().as_deref(), Some(&b"2"[..]));
        assert_eq!(s.take("a").await.unwrap(), None, "take is single-use");
        assert_eq!(s.get("a").await.unwrap(), None);

        for k in ["mcpgen:token:x:a", "mcpgen:token:x:b", "mcpgen:token:xy:a", "mcpgen:state:x"] {
            s.put(k, k.as_bytes(), None).await.unwrap();
        }
        assert_eq!(s.delete_prefix("mcpgen:token:x:").await.unwrap(), 2);
        assert_eq!(s.delete_prefix("mcpgen:token:x:").await.unwrap(), 0);
        assert!(s.get("mcpgen:token:xy:a").await.unwrap().is_some());
        assert!(s.get("mcpgen:state:x").await.unwrap().is_some());
    }

    #[tokio::test]
    async fn concurrent_takes_give_the_value_once() {
        let dir = tempfile::tempdir().unwrap();
        let s = Arc::new(open(&dir));
        // A second store on the same file, as another process would open it.
        let other = Arc::new(open(&dir));
        for round in 0..10 {
            let key = format!("mcpgen:state:{round}");
            s.put(&key, b"v", None).await.unwrap();
            let (a, b) = {
                let (s, other, k1, k2) = (s.clone(), other.clone(), key.clone(), key.clone());
                tokio::join!(
                    tokio::spawn(async move { s.take(&k1).await.unwrap() }),
                    tokio::spawn(async move { other.take(&k2).await.unwrap() })
                )
            };
            let got = [a.unwrap(), b.unwrap()];
            assert_eq!(got.iter().filter(|v| v.is_some()).count(), 1, "{got:?}");
        }
    }

    #[tokio::test]
    async fn entries_expire() {
        let dir = tempfile::tempdir().unwrap();
        let s = open(&dir);
        s.put("short", b"1", Some(Duration::from_millis(10))).await.unwrap();
        s.put("long", b"2", Some(Duration::from_secs(3600))).await.unwrap();
        s.put("forever", b"3", None).await.unwrap();
        assert!(s.get("short").await.unwrap().is_some(), "a ttl under a second lasts a second");
        tokio::time::sleep(Duration::from_millis(2100)).await;
        assert_eq!(s.get("short").await.unwrap(), None);
        assert_eq!(s.take("short").await.unwrap(), None);
        assert!(s.get("long").await.unwrap().is_some());
        // The expired entry was dropped at that write (the take wrote nothing else, but the
        // expired entry went).
        let text = fs::read_to_string(s.path()).unwrap();
        assert!(!text.contains("\"short\""), "{text}");
        assert!(text.contains("\"expires\":") && text.contains("\"forever\":{\"value\":\"Mw==\"}"), "{text}");
    }

    #[tokio::test]
    async fn the_file_is_private_and_survives_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let s = open(&dir);
        s.put("k", b"v", None).await.unwrap();
        let mode = fs::metadata(s.path()).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let again = FileStore::open(format!("{}", s.path().display())).unwrap();
        assert_eq!(again.get("k").await.unwrap().as_deref(), Some(&b"v"[..]));
        // No temporary file is left behind.
        let names: Vec<String> =
            fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        assert!(names.iter().all(|n| n == "tokens.json" || n == "tokens.json.lock"), "{names:?}");
        // What another process deletes is gone for this one too.
        again.delete_prefix("k").await.unwrap();
        assert_eq!(s.get("k").await.unwrap(), None);
    }

    #[tokio::test]
    async fn a_file_others_can_read_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tokens.json");
        fs::write(&path, r#"{"version":1,"entries":{}}"#).unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
        let e = FileStore::open(&path).unwrap_err().to_string();
        assert!(e.contains(&format!("chmod 600 {}", path.display())) && e.contains("644"), "{e}");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
        let s = FileStore::open(&path).unwrap();
        // Made readable after opening: refused at the next operation.
        fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
        let e = s.get("k").await.unwrap_err().to_string();
        assert!(e.contains("chmod 600"), "{e}");
    }

    #[tokio::test]
    async fn a_corrupt_file_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tokens.json");
        for (text, says) in [
            ("{\"version\":1,\"entries\":{\"k\":{\"value\":\"secret-value", "line 1"),
            ("{\"version\":1,\"entries\":{\"k\":{\"value\":7}}}", "line 1"),
            ("{\"version\":9,\"entries\":{}}", "version 9"),
        ] {
            fs::write(&path, text).unwrap();
            fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
            let e = FileStore::open(&path).unwrap_err().to_string();
            assert!(e.contains(&path.display().to_string()) && e.contains(says), "{e}");
            assert!(!e.contains("secret-value"), "{e}");
        }
        fs::write(&path, r#"{"version":1,"entries":{"k":{"value":"!!"}}}"#).unwrap();
        let s = FileStore::open(&path).unwrap();
        let e = s.get("k").await.unwrap_err().to_string();
        assert!(e.contains("not base64") && e.contains("delete it"), "{e}");
    }

    #[test]
    fn a_missing_directory_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let e = FileStore::open(dir.path().join("nope/tokens.json")).unwrap_err().to_string();
        assert!(e.contains("does not exist") && e.contains("nope"), "{e}");
    }
}
