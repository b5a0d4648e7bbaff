//! The process's allocator policy: memory freed is kept for the next allocation instead of
//! being returned to the system.
//!
//! glibc serves a large block (above its `mmap` threshold, 128 KiB at first) with a mapping of
//! its own and unmaps it when freed, so the next block of that size is mapped and its pages
//! are faulted in and zeroed again. Two of Asgard's costs were mostly that:
//! - software GL allocates and frees its per-frame memory (bins, staging buffers for
//!   read-back) every frame: a sixth to a third of a frame's time at 1,000 bodies;
//! - an edit's first update at 1,000 bodies allocates the collider's and the model's tables
//!   afresh: a quarter of its time was page faults, and adding a body at the top of the text
//!   was 82–86× faster than simulating from scratch instead of 110–114×
//!   (docs/BENCHMARKS.md, issue 27's tenth round).
//!
//! So blocks up to 32 MiB come from the heap, and up to 64 MiB freed at its top stay mapped.

/// Sets the policy; process-wide, and only the first call does anything. Called at the start
/// of `asgard` and by every renderer made (for programs that embed the library).
pub fn keep_freed_memory() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        const KEEP: libc::c_int = 64 << 20;
        const FROM_HEAP: libc::c_int = 32 << 20;
        // SAFETY: mallopt only changes the allocator's thresholds; both values are in range.
        unsafe {
            libc::mallopt(libc::M_TRIM_THRESHOLD, KEEP);
            libc::mallopt(libc::M_MMAP_THRESHOLD, FROM_HEAP);
        }
    });
}
