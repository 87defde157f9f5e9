//! Work spread over the machine's cores, results in input order (output stays deterministic).
//!
//! Scoped threads, not a pool: the threads end with the work, and the allocator gives their
//! heaps back to the process. A pool's idle threads would keep the pages of a large API's
//! loading peak (trees built on one thread, freed on another) resident for the life of `serve`.

use std::sync::atomic::{AtomicUsize, Ordering};

/// Items taken at a time by a thread: large enough that taking them costs nothing, small enough
/// that the threads finish together.
const CHUNK: usize = 32;

/// Below this many items one thread does it all (a thread costs about as much as a small API).
const MIN_PARALLEL: usize = 2 * CHUNK;

/// At most this many threads: past it the work is bound by memory bandwidth.
const MAX_THREADS: usize = 8;

/// `f` of each item, in order, computed on up to as many threads as there are cores (the
/// calling thread among them). A panic in `f` is resumed on the calling thread.
pub(crate) fn map_in_order<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let threads = cores.min(MAX_THREADS).min(items.len().div_ceil(CHUNK));
    if threads <= 1 || items.len() < MIN_PARALLEL {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    // Each thread returns the chunks it did, by their first index; they are put in order after.
    let work = || {
        let mut done: Vec<(usize, Vec<R>)> = Vec::new();
        loop {
            let start = next.fetch_add(CHUNK, Ordering::Relaxed);
            if start >= items.len() {
                return done;
            }
            let end = (start + CHUNK).min(items.len());
            done.push((start, items[start..end].iter().map(&f).collect()));
        }
    };
    let mut chunks = std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..threads).map(|_| scope.spawn(work)).collect();
        let mut chunks = work();
        for helper in helpers {
            chunks.extend(helper.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)));
        }
        chunks
    });
    chunks.sort_unstable_by_key(|(start, _)| *start);
    chunks.into_iter().flat_map(|(_, results)| results).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_in_input_order() {
        let items: Vec<usize> = (0..1000).collect();
        let squares = map_in_order(&items, |i| i * i);
        assert_eq!(squares, items.iter().map(|i| i * i).collect::<Vec<_>>());
    }

    #[test]
    fn few_items_are_mapped_in_place() {
        let items = ["a", "b"];
        assert_eq!(map_in_order(&items, |s| s.to_uppercase()), ["A", "B"]);
        assert!(map_in_order(&[] as &[u8], |b| *b).is_empty());
    }

    #[test]
    fn a_panic_reaches_the_caller() {
        let items: Vec<usize> = (0..500).collect();
        let caught =
            std::panic::catch_unwind(|| map_in_order(&items, |&i| if i == 400 { panic!("item 400") } else { i }));
        assert!(caught.is_err());
    }
}
