//! Freed memory given back when a worker thread goes idle. An allocator with a heap per thread
//! (mimalloc, which `mcpgen` runs on) keeps a thread's freed pages until that thread allocates
//! again: a worker that wrote a large `tools/list` and then waits for the next request holds the
//! listing's pages for as long as it waits (GitHub's 1,223 tools: 7 MB). The binary that chose
//! the allocator says how to give them back; the engine calls it as a worker parks, once the
//! worker has done enough work since the last time for it to be worth a call.

use std::cell::Cell;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// How the process gives its idle thread's freed memory back (mimalloc: `mi_collect(true)`).
static RELEASE: OnceLock<fn()> = OnceLock::new();

/// Work a thread does between two releases, at least. Under load a worker parks often after a
/// few microseconds of work, and releasing then would hand back pages the next call takes again
/// (each an `madvise` and page faults: docs/performance.md); 20 ms of work bounds what an idle
/// worker keeps and the releases to 50 a second a thread.
const WORK_BETWEEN_RELEASES: Duration = Duration::from_millis(20);

thread_local! {
    /// When this worker last woke up.
    static WOKE: Cell<Option<Instant>> = const { Cell::new(None) };
    /// Its work since it last released memory.
    static WORKED: Cell<Duration> = const { Cell::new(Duration::ZERO) };
}

/// Makes the server's worker threads call `release` as they go idle after work (at most once per
/// 20 ms of it). For a binary whose global allocator keeps freed memory per thread; call it
/// before serving. The first call wins.
pub fn release_memory_when_idle(release: fn()) {
    let _ = RELEASE.set(release);
}

/// A worker woke up (tokio's `on_thread_unpark`).
pub(super) fn woke() {
    if RELEASE.get().is_some() {
        WOKE.set(Some(Instant::now()));
    }
}

/// A worker is going idle (tokio's `on_thread_park`).
pub(super) fn parks() {
    let Some(release) = RELEASE.get() else { return };
    let Some(woke) = WOKE.take() else { return };
    let (due, worked) = release_due(WORKED.get(), woke.elapsed());
    WORKED.set(worked);
    if due {
        release();
    }
}

/// Whether a worker that had `worked` since its last release, and then `awake` more, releases
/// now; and its work since the last release after that.
fn release_due(worked: Duration, awake: Duration) -> (bool, Duration) {
    let worked = worked + awake;
    if worked >= WORK_BETWEEN_RELEASES { (true, Duration::ZERO) } else { (false, worked) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_wakes_add_up_to_a_release() {
        let ms = Duration::from_millis;
        assert_eq!(release_due(Duration::ZERO, ms(5)), (false, ms(5)));
        assert_eq!(release_due(ms(5), ms(14)), (false, ms(19)));
        assert_eq!(release_due(ms(19), ms(1)), (true, Duration::ZERO));
    }

    #[test]
    fn one_long_wake_releases_at_once() {
        assert_eq!(release_due(Duration::ZERO, Duration::from_millis(150)), (true, Duration::ZERO));
    }
}
