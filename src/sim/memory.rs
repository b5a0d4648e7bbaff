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
//! Tables that an edit may lengthen are made with room to spare ([`with_room`]).

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

/// Room for `n` items of a per-body (or per-variable, per-component) table and some more: an
/// edit that adds a body adds to such tables, and one held at its length exactly would be
/// copied whole into a larger allocation for it (at 1,000 bodies, a stretch's boxes were a
/// third of the first run after adding one, and the readers' pieces a tenth of the update: the
/// copies, their page faults and the allocator's consolidation).
pub(crate) fn with_room(n: usize) -> usize {
    n + n / 8 + 8
}

/// `list` emptied and filled with `n` copies of `value`: in its own memory when that has room,
/// otherwise in a new allocation with room for more ([`with_room`]). For a table an update
/// makes again, in the memory of the one it replaces: a new allocation's first writes are
/// page faults.
pub(crate) fn refill<T: Clone>(list: &mut Vec<T>, n: usize, value: T) {
    if list.capacity() < n {
        *list = Vec::with_capacity(with_room(n));
    } else {
        list.clear();
    }
    list.resize(n, value);
}
