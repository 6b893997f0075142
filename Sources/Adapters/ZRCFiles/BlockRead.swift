import Dispatch
import Glibc

/// One block's read from a file into a buffer, run on a queue of its own so the next block is on
/// its way from the disk while the one before is handed out (a read with O_DIRECT waits for the
/// device, and done in line that wait stalled the sender).
///
/// `@unchecked Sendable`, and why that is safe: the owner hands the buffer over in `start` and
/// touches neither the buffer nor `outcome` again until `wait` returns; `wait` returns only after
/// the queue's job has signalled the semaphore, its last act, so the job's writes happen before
/// everything the owner does after `wait`. The job reads only the immutable fields. One
/// `BlockRead` is started at most once, and always waited for before its buffer is reused or freed.
final class BlockRead: @unchecked Sendable {
    enum Outcome {
        /// Bytes read (fewer than asked only at the end of the file).
        case read(Int)
        case failed(errno: Int32)
    }

    let offset: UInt64
    private let descriptor: Int32
    private let target: UnsafeMutableRawPointer
    private let count: Int
    private let finished = DispatchSemaphore(value: 0)
    private var outcome = Outcome.read(0)
    private var waited = false

    init(descriptor: Int32, into target: UnsafeMutableRawPointer, count: Int, at offset: UInt64) {
        self.descriptor = descriptor
        self.target = target
        self.count = count
        self.offset = offset
    }

    func start(on queue: DispatchQueue) {
        queue.async { [self] in
            outcome = Self.read(descriptor, into: target, count: count, at: offset)
            finished.signal()
        }
    }

    /// Blocks until the read is over; its outcome (the same on every call).
    func wait() -> Outcome {
        if !waited {
            finished.wait()
            waited = true
        }
        return outcome
    }

    /// One pread of `count` bytes (retrying EINTR).
    static func read(_ descriptor: Int32, into target: UnsafeMutableRawPointer, count: Int, at offset: UInt64) -> Outcome {
        while true {
            let got = pread(descriptor, target, count, off_t(offset))
            if got >= 0 { return .read(got) }
            let code = Glibc.errno
            if code != EINTR { return .failed(errno: code) }
        }
    }
}
