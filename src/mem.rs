//! Memory hygiene for big inputs: a parsed 13 MB document is a 76 MB tree of small allocations.
//! Freeing it takes tens of milliseconds, and glibc keeps the freed pages; both matter for a
//! server's start-up time and resident size.

/// Frees `value` on another thread, then returns freed heap pages to the operating system.
pub(crate) fn drop_in_background<T: Send + 'static>(value: T) {
    let spawned = std::thread::Builder::new().name("mcpgen-free".into()).spawn(move || {
        drop(value);
        release_free_memory();
    });
    // Without a thread (resource limits), drop here: slower, same result.
    if let Err(e) = spawned {
        tracing::debug!("freeing in the foreground: {e}");
    }
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
