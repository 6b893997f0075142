internal import CMalloc

/// glibc allocator settings for a long-running host.
///
/// By default glibc raises its mmap threshold to the size of every large block freed (up to
/// 32 MiB): after the host's first full-screen refinement (a several-megabyte payload) every later
/// temporary below that size comes from a per-thread arena, and what is freed there stays
/// resident — measured 5 MiB of free chunks in two arenas while serving one viewer. A fixed
/// threshold gives blocks of 128 KiB or more back to the kernel when freed, and one arena lets
/// every thread reuse the same free chunks. Fixing the threshold also fixes the trim threshold,
/// which would then shrink the heap after nearly every frame and fault it back in (measured +30%
/// host time per motion frame), so that one is set high. Measured together: host RSS serving
/// full-screen motion 51.2 → 47.9–49.2 MiB, host time per update unchanged (`pipeline` with the
/// same settings as GLIBC_TUNABLES: 3.97 → 3.98 ms for motion).
public enum AllocatorTuning {
    public static let mmapThreshold: Int32 = 128 * 1024
    public static let trimThreshold: Int32 = 64 * 1024 * 1024

    /// Applies the settings; call once, first thing in the program's `main`, while it is the only
    /// thread. A thread takes its malloc arena at its first allocation, and until a limit is set
    /// glibc gives each new thread one of its own: called later (as `serve`'s `run` did, already
    /// on one of Swift's threads) the limit leaves that thread's arena beside the main one, and
    /// the host serving one 1080p viewer of motion kept 1.6 MiB more resident.
    public static func forLongRunningServer() {
        _ = mallopt(M_MMAP_THRESHOLD, mmapThreshold)
        _ = mallopt(M_TRIM_THRESHOLD, trimThreshold)
        _ = mallopt(M_ARENA_MAX, 1)
    }

    /// Below this size a file transfer's blocks come from the heap: above the largest buffer it
    /// takes (a socket read's 256 KiB).
    public static let fileTransferMmapThreshold: Int32 = 512 * 1024

    /// glibc allocator settings for a controller copying files (`zrc-ctl cp`). A transfer
    /// allocates its 16 KiB chunks, its sealed batches (up to six chunks, about 100 KiB) and its
    /// socket reads (up to 256 KiB) on several threads, and frees each block's chunks together.
    /// By default glibc trims a thread's arena whenever more than 128 KiB lies free at its top,
    /// handing the pages back (MADV_DONTNEED) only for the next block to fault them in again,
    /// zeroed: measured 220,000 page faults in the controller per 3 GiB uploaded (`zrc-bench
    /// files`), 1,000 with these settings. A high trim threshold keeps the pages. Setting it also
    /// fixes the mmap threshold (glibc then stops adapting it), so that one is set above the
    /// transfer's buffers. Both are process-wide values glibc reads at each call: set them
    /// before the transfer starts.
    public static func forFileTransfer() {
        _ = mallopt(M_MMAP_THRESHOLD, fileTransferMmapThreshold)
        _ = mallopt(M_TRIM_THRESHOLD, trimThreshold)
    }
}
