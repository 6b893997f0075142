import Dispatch
import Glibc

/// One buffer's write to a file, run on a queue of its own while its owner fills the next buffer:
/// with O_DIRECT a write waits for the device, and done in line that wait stalled the whole
/// receiving pipeline (the CPU sat in I/O wait for a tenth of a fast transfer).
///
/// `@unchecked Sendable`, and why that is safe: the owner hands the buffer over in `start` and
/// touches neither the buffer nor `outcome` again until `wait` returns; `wait` returns only after
/// the queue's job has signalled the semaphore, which it does as its last act, so every write the
/// job made happens before everything the owner does after `wait`. The job reads only the
/// immutable fields. One `BlockWrite` is started at most once.
final class BlockWrite: @unchecked Sendable {
    enum Outcome {
        /// Every byte is in the file.
        case written
        /// O_DIRECT was refused for this write (EINVAL) after `done` bytes: the owner goes on
        /// without it and writes the rest itself.
        case directRefused(done: Int)
        case failed(errno: Int32)
    }

    private let descriptor: Int32
    private let start: UnsafeRawPointer
    private let count: Int
    private let offset: UInt64
    private let direct: Bool
    private let finished = DispatchSemaphore(value: 0)
    private var outcome = Outcome.written
    private var waited = false

    init(descriptor: Int32, from start: UnsafeRawPointer, count: Int, at offset: UInt64, direct: Bool) {
        self.descriptor = descriptor
        self.start = start
        self.count = count
        self.offset = offset
        self.direct = direct
    }

    func start(on queue: DispatchQueue) {
        queue.async { [self] in
            outcome = Self.write(descriptor, start, count, at: offset, direct: direct)
            finished.signal()
        }
    }

    /// Blocks until the write is over; its outcome (the same on every call).
    func wait() -> Outcome {
        if !waited {
            finished.wait()
            waited = true
        }
        return outcome
    }

    /// pwrite until all `count` bytes are in, retrying EINTR and short writes.
    static func write(_ descriptor: Int32, _ start: UnsafeRawPointer, _ count: Int, at offset: UInt64, direct: Bool) -> Outcome {
        var done = 0
        while done < count {
            let wrote = pwrite(descriptor, start + done, count - done, off_t(offset) + off_t(done))
            if wrote < 0 {
                let code = Glibc.errno
                if code == EINTR { continue }
                // O_DIRECT was taken at fcntl but not for this write (a larger alignment, or a
                // short write before left the offset unaligned).
                if code == EINVAL, direct { return .directRefused(done: done) }
                return .failed(errno: code)
            }
            done += wrote
        }
        return .written
    }
}
