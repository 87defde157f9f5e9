//! The sandbox's allocator: QuickJS's memory through Rust's global allocator, with the script's
//! two budgets kept here rather than in QuickJS.
//!
//! - **Memory**: an allocation that would take the script past its limit fails (QuickJS throws
//!   `out of memory`). QuickJS's own `set_memory_limit` lives in its default allocator, which a
//!   custom allocator replaces.
//! - **Time**: past the deadline every new allocation fails. QuickJS asks its interrupt handler
//!   only once per 10,000 poll points, so a loop of millisecond-long builtins (`new
//!   Array(1e6).fill(1)`) ran tens of seconds past a 1 s deadline; almost every such builtin
//!   allocates, and a failed allocation ends it at once.

use std::alloc::{self, Layout};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

use rquickjs::allocator::Allocator;

/// Every block is aligned for the largest value QuickJS stores (a `u64` / `f64`).
const ALIGN: usize = std::mem::align_of::<u64>();
/// The size header before each block (QuickJS frees without a size).
const HEADER: usize = ALIGN;
/// The clock is read every this many allocations, and on every large one.
const CLOCK_EVERY: usize = 32;
/// An allocation at least this large reads the clock.
const LARGE: usize = 64 * 1024;

/// What the allocator measured; shared with the sandbox, which reads it after the script.
#[derive(Debug)]
pub struct Meter {
    used: AtomicUsize,
    limit: usize,
    deadline: Instant,
    allocations: AtomicUsize,
    /// An allocation was refused for the memory limit.
    pub over_memory: AtomicBool,
    /// An allocation was refused for the deadline.
    pub past_deadline: AtomicBool,
}

impl Meter {
    /// A meter for `limit` bytes until `deadline`.
    pub fn new(limit: usize, deadline: Instant) -> Arc<Meter> {
        Arc::new(Meter {
            used: AtomicUsize::new(0),
            limit,
            deadline,
            allocations: AtomicUsize::new(0),
            over_memory: AtomicBool::new(false),
            past_deadline: AtomicBool::new(false),
        })
    }

    /// Bytes held now.
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn used(&self) -> usize {
        self.used.load(Ordering::Relaxed)
    }

    /// Whether `bytes` more may be taken now; records why not.
    fn admit(&self, bytes: usize) -> bool {
        let n = self.allocations.fetch_add(1, Ordering::Relaxed);
        if (n.is_multiple_of(CLOCK_EVERY) || bytes >= LARGE) && Instant::now() >= self.deadline {
            self.past_deadline.store(true, Ordering::Relaxed);
            return false;
        }
        if self.past_deadline.load(Ordering::Relaxed) {
            return false;
        }
        let used = self.used.load(Ordering::Relaxed);
        if used.saturating_add(bytes) > self.limit {
            self.over_memory.store(true, Ordering::Relaxed);
            return false;
        }
        self.used.fetch_add(bytes, Ordering::Relaxed);
        true
    }

    fn release(&self, bytes: usize) {
        self.used.fetch_sub(bytes, Ordering::Relaxed);
    }
}

/// The allocator one sandbox's runtime owns.
pub struct Budgeted {
    meter: Arc<Meter>,
}

impl Budgeted {
    /// An allocator charging `meter`.
    pub fn new(meter: Arc<Meter>) -> Budgeted {
        Budgeted { meter }
    }
}

fn layout(size: usize) -> Option<Layout> {
    let rounded = size.checked_add(ALIGN - 1)? / ALIGN * ALIGN;
    Layout::from_size_align(rounded.checked_add(HEADER)?, ALIGN).ok()
}

/// The block's size as written in its header.
///
/// # Safety
/// `ptr` was returned by this allocator and not freed.
unsafe fn size_of_block(ptr: *mut u8) -> usize {
    // SAFETY: every block starts HEADER bytes after its allocation, which holds the size.
    unsafe { ptr.sub(HEADER).cast::<usize>().read() }
}

// SAFETY: blocks come from the global allocator with a header holding their size, aligned to
// ALIGN (8, what QuickJS needs); `usable_size` reads that header; null is returned on refusal.
unsafe impl Allocator for Budgeted {
    fn alloc(&mut self, size: usize) -> *mut u8 {
        let Some(layout) = layout(size.max(1)) else { return std::ptr::null_mut() };
        if !self.meter.admit(layout.size()) {
            return std::ptr::null_mut();
        }
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { alloc::alloc(layout) };
        if ptr.is_null() {
            self.meter.release(layout.size());
            return ptr;
        }
        // SAFETY: the block is at least HEADER bytes and aligned for a usize.
        unsafe {
            ptr.cast::<usize>().write(layout.size() - HEADER);
            ptr.add(HEADER)
        }
    }

    fn calloc(&mut self, count: usize, size: usize) -> *mut u8 {
        let Some(total) = count.checked_mul(size) else { return std::ptr::null_mut() };
        let ptr = self.alloc(total);
        if !ptr.is_null() {
            // SAFETY: the block holds at least `total` bytes.
            unsafe { ptr.write_bytes(0, total) };
        }
        ptr
    }

    unsafe fn dealloc(&mut self, ptr: *mut u8) {
        if ptr.is_null() {
            return;
        }
        // SAFETY: the caller passes a live block of this allocator.
        unsafe {
            let size = size_of_block(ptr) + HEADER;
            self.meter.release(size);
            alloc::dealloc(ptr.sub(HEADER), Layout::from_size_align_unchecked(size, ALIGN));
        }
    }

    unsafe fn realloc(&mut self, ptr: *mut u8, new_size: usize) -> *mut u8 {
        if ptr.is_null() {
            return self.alloc(new_size);
        }
        let Some(new_layout) = layout(new_size.max(1)) else { return std::ptr::null_mut() };
        // SAFETY: the caller passes a live block of this allocator.
        let old = unsafe { size_of_block(ptr) } + HEADER;
        let grows = new_layout.size().saturating_sub(old);
        if grows > 0 && !self.meter.admit(grows) {
            return std::ptr::null_mut();
        }
        // SAFETY: the old layout is the one the block was allocated with; the new size is non-zero.
        let moved = unsafe {
            alloc::realloc(ptr.sub(HEADER), Layout::from_size_align_unchecked(old, ALIGN), new_layout.size())
        };
        if moved.is_null() {
            self.meter.release(grows);
            return moved;
        }
        self.meter.release(old.saturating_sub(new_layout.size()));
        // SAFETY: as in `alloc`.
        unsafe {
            moved.cast::<usize>().write(new_layout.size() - HEADER);
            moved.add(HEADER)
        }
    }

    unsafe fn usable_size(ptr: *mut u8) -> usize {
        // SAFETY: the caller passes a live block of this allocator.
        unsafe { size_of_block(ptr) }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn the_memory_limit_refuses_and_frees_count() {
        let meter = Meter::new(4096, Instant::now() + Duration::from_secs(60));
        let mut a = Budgeted::new(meter.clone());
        let p = a.alloc(3000);
        assert!(!p.is_null());
        assert!(a.alloc(2000).is_null(), "over the limit");
        assert!(meter.over_memory.load(Ordering::Relaxed));
        unsafe { a.dealloc(p) };
        assert_eq!(meter.used(), 0);
        let q = a.alloc(2000);
        assert!(!q.is_null());
        let q = unsafe { a.realloc(q, 3500) };
        assert!(!q.is_null());
        assert!(unsafe { Budgeted::usable_size(q) } >= 3500);
        unsafe { a.dealloc(q) };
        assert_eq!(meter.used(), 0);
    }

    #[test]
    fn past_the_deadline_nothing_more_is_allocated() {
        let meter = Meter::new(1 << 20, Instant::now());
        let mut a = Budgeted::new(meter.clone());
        assert!(a.alloc(LARGE).is_null());
        assert!(meter.past_deadline.load(Ordering::Relaxed));
        assert!(a.alloc(8).is_null(), "every allocation after is refused");
    }
}
