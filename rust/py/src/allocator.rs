//! Which allocator the extension's Rust code takes memory from: mimalloc
//! while an exact evaluation runs, the system's otherwise.
//!
//! The two workloads want different things. An exact evaluation makes a few
//! hundred small allocations a call; with glibc's allocator the calling
//! thread takes them from the main arena, shared with the interpreter, whose
//! free lists a long session fragments (S1 took 24 µs instead of 10, mostly
//! in `malloc`), while mimalloc's per-thread heaps keep it fast.
//!
//! A die-by-die trial allocates nothing, but it reads the Plan's tables and
//! writes its workspace, all small blocks, and ran 10–15% slower under
//! mimalloc than under the system allocator, with the same instructions per
//! trial under callgrind. The likely reason is where the blocks land:
//! mimalloc starts each size class on pages of its own, so the first blocks
//! of several classes sit at the same few offsets within a 4 KiB page, and a
//! trial's stores to one can hold up its loads from another whose address
//! agrees in those low bits (docs/architecture.md has the measurements).
//!
//! So every allocation goes to mimalloc while [`exact`]'s guard is alive on
//! any thread (the evaluator's worker threads allocate in that window too),
//! and to the system allocator otherwise. A block is freed, or grown, by the
//! allocator that made it, whichever that was: mimalloc knows its own memory
//! (`mi_is_in_heap_region`, a look-up in its page map).

use libmimalloc_sys::mi_is_in_heap_region;
use mimalloc::MiMalloc;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Exact evaluations running now, on any thread.
static EXACT_RUNNING: AtomicUsize = AtomicUsize::new(0);

/// mimalloc while an exact evaluation runs, the system allocator otherwise.
pub struct Allocator;

/// Allocations from mimalloc until dropped: hold it for an exact evaluation.
pub struct ExactGuard(());

/// Take memory from mimalloc until the guard is dropped.
pub fn exact() -> ExactGuard {
    EXACT_RUNNING.fetch_add(1, Ordering::Relaxed);
    ExactGuard(())
}

impl Drop for ExactGuard {
    fn drop(&mut self) {
        EXACT_RUNNING.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Alignments past this always go to the system allocator: mimalloc maps
/// such a block on its own, and its page map then also claims the 64 KiB
/// just past the mapping, where a system block could sit.
const MAX_MIMALLOC_ALIGN: usize = 64 << 10;

/// Should a block of `layout` come from mimalloc now?
fn mimalloc_now(layout: Layout) -> bool {
    EXACT_RUNNING.load(Ordering::Relaxed) > 0 && layout.align() <= MAX_MIMALLOC_ALIGN
}

/// Did mimalloc make the block at `ptr`, allocated with `layout`?
fn from_mimalloc(ptr: *mut u8, layout: Layout) -> bool {
    // SAFETY: a look-up of the address in mimalloc's page map; it reads
    // nothing at `ptr`.
    layout.align() <= MAX_MIMALLOC_ALIGN && unsafe { mi_is_in_heap_region(ptr.cast_const().cast()) }
}

// SAFETY: each call goes to one of two sound allocators, and a block is
// always freed or grown by the one that made it (`from_mimalloc`; a layout's
// alignment is the same when it is made and when it is freed or grown).
unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if mimalloc_now(layout) {
            unsafe { MiMalloc.alloc(layout) }
        } else {
            unsafe { System.alloc(layout) }
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if mimalloc_now(layout) {
            unsafe { MiMalloc.alloc_zeroed(layout) }
        } else {
            unsafe { System.alloc_zeroed(layout) }
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if from_mimalloc(ptr, layout) {
            unsafe { MiMalloc.dealloc(ptr, layout) }
        } else {
            unsafe { System.dealloc(ptr, layout) }
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if from_mimalloc(ptr, layout) {
            unsafe { MiMalloc.realloc(ptr, layout, new_size) }
        } else {
            unsafe { System.realloc(ptr, layout, new_size) }
        }
    }
}
