//! A cache of small freed blocks in front of the agent's allocator (`dlmalloc` on wasm32).
//!
//! Why: every decision the host calls the agent's `cabi_realloc` for the observation's bytes
//! and for the legal actions, and the generated glue frees both when `decide` returns; a
//! search agent's playouts allocate and free small vectors all the time. `dlmalloc` does a
//! good deal of bookkeeping per call. Here a freed block of at most [`LARGEST`] bytes goes on
//! a list for its size class and the next request of that class takes it back in a few
//! instructions. Measured on the contract probe (`scripts/bench-contract.sh`): a 0.3.0
//! decision call 477 → 428 ns at best of 11 runs
//! (docs/benchmarks-history.md#the-boundary-after-030-three-calls-out-of-the-sandbox-removed-issue-19-2026-11-26-evening).
//!
//! Limits, and why:
//! - [`KEEP`] blocks per class at most; past that a freed block goes back to `dlmalloc`. So
//!   the cache holds at most 32 × 32 blocks of 16 to 512 bytes, 264 KiB, however an agent
//!   allocates: it cannot turn a churn of many sizes into memory the agent can never reuse.
//! - Alignment up to 16; anything stricter, larger or zero-sized goes straight through.
//!
//! Threat model: this is the agent's own memory inside its sandbox; a bug here can only hurt
//! the agent. It is single-threaded by construction: built only for wasm32 without the
//! `atomics` feature, where there are no threads ([`crate`]'s `alloc-cache` feature; an agent
//! that brings its own `#[global_allocator]` turns the SDK's default features off).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::UnsafeCell;

/// Size classes are multiples of this.
const STEP: usize = 16;
/// Size classes: 16, 32, ... bytes.
const CLASSES: usize = 32;
/// The largest block the cache keeps.
pub const LARGEST: usize = STEP * CLASSES;
/// Blocks kept per class.
pub const KEEP: u32 = 32;

/// The allocator: per class, a list threaded through the freed blocks and its length.
pub struct Cached {
    lists: UnsafeCell<[(*mut u8, u32); CLASSES]>,
}

// SAFETY: only built as the global allocator where there is one thread (wasm32 without
// atomics); the native tests use a value per test.
unsafe impl Sync for Cached {}

impl Default for Cached {
    fn default() -> Self {
        Cached::new()
    }
}

impl Cached {
    /// An empty cache.
    pub const fn new() -> Cached {
        Cached {
            lists: UnsafeCell::new([(std::ptr::null_mut(), 0); CLASSES]),
        }
    }

    /// Blocks held in the cache now (for the tests).
    pub fn held(&self) -> u32 {
        // SAFETY: one thread; no reference into the lists outlives this call.
        unsafe { (*self.lists.get()).iter().map(|l| l.1).sum() }
    }
}

/// The class of a layout the cache serves.
#[inline(always)]
fn class(l: Layout) -> Option<usize> {
    if l.size() == 0 || l.size() > LARGEST || l.align() > STEP {
        return None;
    }
    Some((l.size() - 1) / STEP)
}

/// What a block of class `c` is allocated as: every block of a class is interchangeable.
#[inline(always)]
fn class_layout(c: usize) -> Layout {
    // SAFETY: (c + 1) * 16 ≤ 512 and 16 is a power of two.
    unsafe { Layout::from_size_align_unchecked((c + 1) * STEP, STEP) }
}

unsafe impl GlobalAlloc for Cached {
    #[inline]
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let Some(c) = class(l) else {
            // SAFETY: the caller's layout, passed on.
            return unsafe { System.alloc(l) };
        };
        // SAFETY: one thread; the list's blocks are free blocks of class `c`, each holding
        // the next block's address in its first word (16-aligned, at least 16 bytes).
        unsafe {
            let list = &mut (*self.lists.get())[c];
            if list.0.is_null() {
                return System.alloc(class_layout(c));
            }
            let p = list.0;
            list.0 = *(p as *mut *mut u8);
            list.1 -= 1;
            p
        }
    }

    #[inline]
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        let Some(c) = class(l) else {
            // SAFETY: allocated by `System` with this layout (see `alloc` and `realloc`).
            return unsafe { System.dealloc(p, l) };
        };
        // SAFETY: `p` is a block of class `c` (allocated by `alloc` with a layout of this
        // class), no longer used by the caller; one thread.
        unsafe {
            let list = &mut (*self.lists.get())[c];
            if list.1 >= KEEP {
                return System.dealloc(p, class_layout(c));
            }
            *(p as *mut *mut u8) = list.0;
            list.0 = p;
            list.1 += 1;
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        if class(l).is_none() {
            // `dlmalloc` knows fresh pages are already zero.
            // SAFETY: the caller's layout, passed on.
            return unsafe { System.alloc_zeroed(l) };
        }
        // SAFETY: a block of at least `l.size()` bytes, or null.
        unsafe {
            let p = self.alloc(l);
            if !p.is_null() {
                std::ptr::write_bytes(p, 0, l.size());
            }
            p
        }
    }

    #[inline]
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `GlobalAlloc::realloc`'s contract: `new_size` rounded up to `l.align()`
        // does not overflow, so this layout is valid.
        let new = unsafe { Layout::from_size_align_unchecked(new_size, l.align()) };
        match (class(l), class(new)) {
            // SAFETY: a `System` block of layout `l`.
            (None, None) => unsafe { System.realloc(p, l, new_size) },
            // The block already holds the whole class.
            (Some(a), Some(b)) if a == b => p,
            // SAFETY: `p` holds `l.size()` bytes; the new block at least `new_size`.
            _ => unsafe {
                let q = self.alloc(new);
                if !q.is_null() {
                    std::ptr::copy_nonoverlapping(p, q, l.size().min(new_size));
                    self.dealloc(p, l);
                }
                q
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(size: usize, align: usize) -> Layout {
        Layout::from_size_align(size, align).expect("layout")
    }

    #[test]
    fn a_freed_small_block_is_reused_and_a_large_one_is_not_kept() {
        let a = Cached::new();
        unsafe {
            let p = a.alloc(layout(100, 4));
            a.dealloc(p, layout(100, 4));
            assert_eq!(a.held(), 1);
            // 97..=112 bytes share the class.
            let q = a.alloc(layout(112, 8));
            assert_eq!(p, q);
            assert_eq!(a.held(), 0);
            a.dealloc(q, layout(112, 8));
            let big = a.alloc(layout(LARGEST + 1, 8));
            a.dealloc(big, layout(LARGEST + 1, 8));
            let aligned = a.alloc(layout(64, 32));
            assert_eq!(aligned as usize % 32, 0);
            a.dealloc(aligned, layout(64, 32));
            assert_eq!(a.held(), 1, "only the 112-byte block is cached");
        }
    }

    #[test]
    fn at_most_keep_blocks_per_class_are_held() {
        let a = Cached::new();
        unsafe {
            let blocks: Vec<*mut u8> = (0..KEEP + 10).map(|_| a.alloc(layout(16, 1))).collect();
            for p in &blocks {
                a.dealloc(*p, layout(16, 1));
            }
            assert_eq!(a.held(), KEEP);
        }
    }

    #[test]
    fn realloc_keeps_the_bytes_across_classes_and_into_the_system() {
        let a = Cached::new();
        unsafe {
            let mut p = a.alloc(layout(8, 1));
            for i in 0..8 {
                *p.add(i) = i as u8;
            }
            // Within the class, then to a larger class, then past the cache, then back.
            for (from, to) in [(8, 16), (16, 200), (200, 4000), (4000, 24)] {
                p = a.realloc(p, layout(from, 1), to);
                assert!(!p.is_null());
                for i in 0..8 {
                    assert_eq!(*p.add(i), i as u8, "byte {i} after {from} -> {to}");
                }
            }
            a.dealloc(p, layout(24, 1));
        }
    }

    #[test]
    fn a_zeroed_block_is_zero_even_when_it_comes_from_the_cache() {
        let a = Cached::new();
        unsafe {
            let p = a.alloc(layout(48, 8));
            std::ptr::write_bytes(p, 0xAB, 48);
            a.dealloc(p, layout(48, 8));
            let q = a.alloc_zeroed(layout(48, 8));
            assert_eq!(p, q);
            assert!((0..48).all(|i| *q.add(i) == 0));
            a.dealloc(q, layout(48, 8));
        }
    }
}
