/// mimalloc instead of glibc's malloc: `serve` makes a few hundred small allocations a tool call
/// (docs/performance.md has the measurements).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `mi_option_purge_delay` in mimalloc v3's `mi_option_t` (libmimalloc-sys 0.1.49 names no
/// constant for it; a test checks that this option is the one whose default is 1,000 ms).
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// How long mimalloc keeps freed memory before it gives it back (v3's default: a second). With
/// huge pages allowed, a second let RSS swing between 35 and 90 MB under large upstream bodies.
/// At once (0) cost a page fault every other call and an `madvise` every fifteenth, each a TLB
/// shootdown across the worker threads: 12 % of `throughput.sh`'s calls per second. 10 ms keeps
/// both: RSS 28 to 35 MB in the soak, and the calls per second of a longer delay
/// (docs/performance.md, docs/soak.md). `MIMALLOC_PURGE_DELAY` still overrides it.
const PURGE_DELAY_MS: std::ffi::c_long = 10;

fn return_freed_memory_soon() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
        return;
    }
    // SAFETY: sets one of mimalloc's options, which it reads atomically; any value is valid.
    unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, PURGE_DELAY_MS) }
}

/// `mi_option_allow_thp` in mimalloc v3's `mi_option_t` (a test checks its default, 1).
const ALLOW_THP: libmimalloc_sys::mi_option_t = 43;

/// Transparent huge pages back memory in 2 MiB pages, and Linux keeps a huge page resident while
/// any of it is used: what mimalloc gives back at once stays in RSS. With a heap per HTTP worker
/// thread, RSS under large upstream bodies swung between 33 and 54 MB; without huge pages it stays
/// between 28 and 33 MB (docs/soak.md). Before anything is
/// allocated would be better still, but mimalloc's first allocation precedes `main`; the process
/// flag covers the memory it already has.
fn no_transparent_huge_pages() {
    // SAFETY: sets one of mimalloc's options, which it reads atomically; any value is valid.
    unsafe { libmimalloc_sys::mi_option_set(ALLOW_THP, 0) }
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_THP_DISABLE only sets a flag of this process's memory map.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

/// mimalloc gives a thread's freed pages back when that thread next allocates, or frees, past the
/// purge delay: a server worker that goes idle after a large answer keeps them until its next
/// request (GitHub's whole `tools/list`: 7 MB). The engine's workers collect as they go idle after
/// work (`release_memory_when_idle`).
fn collect_when_idle() {
    // SAFETY: collects the calling thread's heap and purges its freed pages; no preconditions.
    mcpgen::runtime::cli::release_memory_when_idle(|| unsafe { libmimalloc_sys::mi_collect(true) });
}

fn main() -> std::process::ExitCode {
    return_freed_memory_soon();
    no_transparent_huge_pages();
    collect_when_idle();
    mcpgen::main()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_purge_delay_option_is_the_one_of_a_second() {
        // SAFETY: reads one of mimalloc's options.
        let default = unsafe { libmimalloc_sys::mi_option_get(super::PURGE_DELAY) };
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
            return; // The operator's value stands (and mimalloc's default is not seen).
        }
        assert_eq!(default, 1000, "option {} is not mimalloc's purge delay", super::PURGE_DELAY);
        super::return_freed_memory_soon();
        // SAFETY: as above.
        assert_eq!(unsafe { libmimalloc_sys::mi_option_get(super::PURGE_DELAY) }, super::PURGE_DELAY_MS);
    }

    #[test]
    fn the_huge_pages_option_is_the_one_allowing_them() {
        // SAFETY: reads one of mimalloc's options.
        let default = unsafe { libmimalloc_sys::mi_option_get(super::ALLOW_THP) };
        if std::env::var_os("MIMALLOC_ALLOW_THP").is_none() {
            assert_eq!(default, 1, "option {} is not mimalloc's allow_thp", super::ALLOW_THP);
        }
        super::no_transparent_huge_pages();
        // SAFETY: as above.
        assert_eq!(unsafe { libmimalloc_sys::mi_option_get(super::ALLOW_THP) }, 0);
        #[cfg(target_os = "linux")]
        // SAFETY: PR_GET_THP_DISABLE reads the flag.
        assert_eq!(unsafe { libc::prctl(libc::PR_GET_THP_DISABLE, 0, 0, 0, 0) }, 1);
    }
}
