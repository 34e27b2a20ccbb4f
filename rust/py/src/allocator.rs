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

/// May a block of `layout` come from mimalloc at all?
fn mimalloc_may_make(layout: Layout) -> bool {
    layout.align() <= MAX_MIMALLOC_ALIGN
}

/// Should a block of `layout` come from mimalloc now?
fn mimalloc_now(layout: Layout) -> bool {
    EXACT_RUNNING.load(Ordering::Relaxed) > 0 && mimalloc_may_make(layout)
}

/// Did mimalloc make the block at `ptr`, allocated with `layout`?
fn from_mimalloc(ptr: *mut u8, layout: Layout) -> bool {
    // SAFETY: a look-up of the address in mimalloc's page map; it reads
    // nothing at `ptr`.
    mimalloc_may_make(layout) && unsafe { mi_is_in_heap_region(ptr.cast_const().cast()) }
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::alloc::{alloc, alloc_zeroed, dealloc, realloc};

    /// Fill `n` bytes at `p` with `byte`, and check they hold it.
    unsafe fn fill_and_check(p: *mut u8, n: usize, byte: u8) {
        unsafe {
            p.write_bytes(byte, n);
            assert!((0..n).all(|i| *p.add(i) == byte));
        }
    }

    // One test: the mode is process-wide, so checks in tests running side by
    // side would see each other's guards.
    #[test]
    fn each_block_is_made_by_the_mode_and_freed_by_its_maker() {
        let small = Layout::from_size_align(64, 8).expect("a layout");
        let grown = Layout::from_size_align(4096, 8).expect("a layout");
        let huge = Layout::from_size_align(1 << 20, 256 << 10).expect("a layout");
        unsafe {
            let before = alloc(small);
            assert!(
                !from_mimalloc(before, small),
                "made outside an evaluation: the system's"
            );
            let (during, zeroed, aligned) = {
                let _exact = exact();
                let during = alloc(small);
                let zeroed = alloc_zeroed(small);
                let aligned = alloc(huge);
                (during, zeroed, aligned)
            };
            assert!(
                from_mimalloc(during, small),
                "made during an evaluation: mimalloc's"
            );
            assert!(from_mimalloc(zeroed, small));
            assert!((0..small.size()).all(|i| *zeroed.add(i) == 0));
            assert!(
                !from_mimalloc(aligned, huge),
                "aligned past 64 KiB: the system's"
            );
            assert_eq!(aligned as usize % huge.align(), 0);
            fill_and_check(aligned, huge.size(), 7);

            // Grown in the other mode, each stays with its maker.
            fill_and_check(during, small.size(), 1);
            let during = realloc(during, small, grown.size());
            assert!(from_mimalloc(during, grown));
            assert!((0..small.size()).all(|i| *during.add(i) == 1));
            fill_and_check(before, small.size(), 2);
            let before = {
                let _exact = exact();
                realloc(before, small, grown.size())
            };
            assert!(!from_mimalloc(before, grown));
            assert!((0..small.size()).all(|i| *before.add(i) == 2));

            // Freed in the other mode.
            {
                let _exact = exact();
                dealloc(before, grown);
                dealloc(aligned, huge);
            }
            dealloc(during, grown);
            dealloc(zeroed, small);
        }
    }
}
