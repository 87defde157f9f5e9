//! Memory hygiene for big inputs: a parsed 13 MB document is a 76 MB tree of small allocations.
//! Freeing it takes tens of milliseconds, and glibc keeps the freed pages; both matter for a
//! server's start-up time and resident size.

/// Frees `value` now, then returns freed heap pages to the operating system. Not on a thread of
/// its own: what a server keeps is laid out once the loading peak is gone (the engine's
/// catalogue is made afresh, `mcpgen-runtime`'s `engine::catalogue`), and a document still being
/// freed beside it left its pages pinned (GitHub served at 47 to 53 MB resident against 47 to 48,
/// with no cost in start-up; docs/performance.md).
pub(crate) fn free_now<T>(value: T) {
    drop(value);
    release_free_memory();
}

/// Gives free heap pages back to the OS (glibc keeps them otherwise). The `mcpgen` binary runs on
/// mimalloc (src/main.rs), which returns freed pages by itself; this is for glibc's own
/// allocations there, and for everything in programs that use the library with glibc's malloc.
pub(crate) fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only walks the allocator's own free lists; it has no preconditions.
    unsafe {
        libc::malloc_trim(0);
    }
}
