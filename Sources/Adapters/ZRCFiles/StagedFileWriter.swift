internal import CFileSystem
import Dispatch
import Glibc

/// Writes one file front to back through page-aligned buffers of its own, half a megabyte at a time,
/// with O_DIRECT where the file system allows it: the data goes from this buffer to the device
/// without first being copied into the page cache. A received file is synced at its end anyway,
/// so that copy bought nothing, and on this project's test machine it was a fifth of the receiving
/// process's CPU time in a fast transfer (fresh page-cache memory is slow to touch in a VM). A
/// large file arriving also no longer pushes everything else out of the host's page cache.
///
/// Where direct I/O is refused (EINVAL, at `fcntl` or at a write: a file system without it, or
/// with a larger alignment), the same buffers batch ordinary writes, and writeback is started
/// every few megabytes so that the final fsync has little left to do.
///
/// Two buffers take turns: a full one is written on a queue of the writer's own (`BlockWrite`)
/// while the other fills, so the device's time overlaps the caller's (hashing, decrypting) instead
/// of stalling it.
///
/// Bytes in the buffers are not in the file until the next `flush` (at the latest when a buffer's
/// write is waited for): callers flush before syncing, and before leaving a part for a later
/// resume, and `settle` before closing the descriptor.
final class StagedFileWriter {
    /// Direct I/O needs the buffer's address, the file offset and the length in these units; 4096
    /// covers devices with 512- and 4096-byte logical blocks.
    static let alignment = 4096
    /// Each of the two buffers: half a megabyte, so a file being received holds 1 MiB at most.
    static let bufferBytes = 512 << 10
    /// Buffered writes only: writeback is started every this many bytes (a 1 GiB file's final
    /// fsync then took 0.02 s instead of 0.55 s, with the writes no slower).
    static let writebackEveryBytes: UInt64 = 8 << 20

    private let descriptor: Int32
    private let shownPath: String
    /// The buffer being filled, and the other one (whose write may be under way).
    private var buffer: UnsafeMutableRawPointer
    private var spare: UnsafeMutableRawPointer
    private let capacity: Int
    private let queue = DispatchQueue(label: "zrc.file-writer")
    /// The spare buffer's write, until it is waited for.
    private var pending: BlockWrite?
    /// A failed write: every later call reports it (the file may lack those bytes).
    private var failure: FileSystemError?
    /// The file offset of the buffer's first byte (a multiple of `alignment` while `direct`).
    private var bufferStart: UInt64
    private var held = 0
    private(set) var direct: Bool
    private var writebackFrom: UInt64

    /// Where the next byte goes.
    var end: UInt64 { bufferStart + UInt64(held) }

    /// A writer appending at `offset` of the open file `descriptor` (which must end there), for
    /// about `expected` more bytes (which only sizes the buffer: a small file gets a small one).
    /// `allowDirect` false: ordinary writes only, as where the file system refuses O_DIRECT.
    init(descriptor: Int32, from offset: UInt64, expected: UInt64, shownPath: String, allowDirect: Bool = true) {
        self.descriptor = descriptor
        self.shownPath = shownPath
        let rounded = (min(expected, UInt64(Self.bufferBytes)) + UInt64(Self.alignment) - 1) / UInt64(Self.alignment) * UInt64(Self.alignment)
        capacity = max(Self.alignment, Int(rounded))
        buffer = .allocate(byteCount: capacity, alignment: Self.alignment)
        spare = .allocate(byteCount: capacity, alignment: Self.alignment)
        writebackFrom = offset
        // A kept part that ends inside a block: that block's start is read back into the buffer
        // (before O_DIRECT is on, which would want a whole block), so only whole blocks are written.
        let head = Int(offset % UInt64(Self.alignment))
        if head > 0, pread(descriptor, buffer, head, off_t(offset) - off_t(head)) == head {
            bufferStart = offset - UInt64(head)
            held = head
        } else {
            bufferStart = offset
        }
        direct = allowDirect && bufferStart % UInt64(Self.alignment) == 0 && zrc_set_direct(descriptor, 1) == 0
    }

    deinit {
        settle()
        buffer.deallocate()
        spare.deallocate()
    }

    func write(_ data: UnsafeRawBufferPointer) throws(FileSystemError) {
        if let failure { throw failure }
        guard let base = data.baseAddress else { return }
        var taken = 0
        while taken < data.count {
            let count = min(capacity - held, data.count - taken)
            (buffer + held).copyMemory(from: base + taken, byteCount: count)
            held += count
            taken += count
            if held == capacity { try handOver() }
        }
    }

    /// The full buffer goes to the queue (after the previous one's write is over) and the spare
    /// becomes the one filled. A full buffer is whole blocks, so it goes direct when the writer does.
    private func handOver() throws(FileSystemError) {
        try finishPending()
        let write = BlockWrite(descriptor: descriptor, from: buffer, count: held, at: bufferStart, direct: direct)
        write.start(on: queue)
        pending = write
        swap(&buffer, &spare)
        bufferStart += UInt64(held)
        held = 0
    }

    /// Waits for the spare buffer's write; a refused O_DIRECT is finished here with ordinary writes.
    private func finishPending() throws(FileSystemError) {
        guard let write = pending else { return }
        pending = nil
        let outcome = write.wait()
        try complete(outcome, spare, capacity, at: bufferStart - UInt64(capacity))
        // Everything before the buffer being filled is written now.
        if case .written = outcome { startWritebackIfDue() }
    }

    /// Writes everything held. A last piece shorter than a block is written without O_DIRECT, and
    /// the writer goes on without it from there (that happens at a file's end).
    func flush() throws(FileSystemError) {
        try finishPending()
        if let failure { throw failure }
        guard held > 0 else { return }
        let whole = direct ? held - held % Self.alignment : held
        if whole > 0 { try writeAll(buffer, whole, at: bufferStart) }
        if whole < held {
            stopDirect()
            try writeAll(buffer + whole, held - whole, at: bufferStart + UInt64(whole))
        }
        bufferStart += UInt64(held)
        held = 0
        startWritebackIfDue()
    }

    /// Waits for a write under way and drops its outcome: before the descriptor closes, or when
    /// what is held no longer matters (a part removed).
    func settle() {
        _ = pending?.wait()
        pending = nil
    }

    private func startWritebackIfDue() {
        if !direct, bufferStart - writebackFrom >= Self.writebackEveryBytes {
            // Failure is harmless here: the fsync at the commit writes and reports everything.
            _ = zrc_start_writeback(descriptor, Int64(writebackFrom), Int64(bufferStart - writebackFrom))
            writebackFrom = bufferStart
        }
    }

    private func writeAll(_ start: UnsafeRawPointer, _ count: Int, at offset: UInt64) throws(FileSystemError) {
        try complete(BlockWrite.write(descriptor, start, count, at: offset, direct: direct), start, count, at: offset)
    }

    /// What a write of `count` bytes from `start` leaves to do: a refused O_DIRECT is finished
    /// with ordinary writes; a failure is kept, and every later call reports it.
    private func complete(_ outcome: BlockWrite.Outcome, _ start: UnsafeRawPointer, _ count: Int, at offset: UInt64) throws(FileSystemError) {
        switch outcome {
        case .written: return
        case .directRefused(let done):
            stopDirect()
            try writeAll(start + done, count - done, at: offset + UInt64(done))
        case .failed(let code):
            let error = FileSystemError.errno(code, "write", shownPath)
            failure = error
            throw error
        }
    }

    private func stopDirect() {
        guard direct else { return }
        _ = zrc_set_direct(descriptor, 0)
        direct = false
        writebackFrom = bufferStart
    }
}
