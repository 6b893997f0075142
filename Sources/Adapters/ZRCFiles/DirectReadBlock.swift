internal import CFileSystem
import Dispatch
import Glibc

/// A file read with O_DIRECT, a block at a time into aligned buffers of its own, and handed out
/// from there in whatever pieces are asked. A file being sent is usually not in the page cache (a
/// received file bypasses it, and a large one rarely stays): read through the cache, every page
/// was fresh memory the kernel filled and then copied out, and on this project's test machine
/// that copy alone was a tenth of the host's time sending a download. It also no longer pushes
/// everything else out of the host's cache.
///
/// Two buffers take turns: while one is handed out, the next block is read into the other on a
/// queue of its own (`BlockRead`), so the reader waits for the disk only when the disk is slower.
final class DirectReadBlock {
    /// Direct I/O wants the buffer's address, the file offset and the length in these units.
    static let alignment = 4096
    /// A megabyte: while the receiver writes the same disk (a loopback download), a 256 KiB read
    /// often took longer than sealing the block before it, and the sender sat in I/O wait (idle
    /// plus I/O wait 15–25 % of the two cores; 5–10 % with 1 MiB, and 173–189 → 200–226 MB/s in
    /// `zrc-bench files --direction download`). Fewer, larger requests also cost the host fewer
    /// virtio notifications. Two such buffers per file being sent.
    static let blockBytes = 1 << 20

    private let descriptor: Int32
    private var buffer: UnsafeMutableRawPointer
    private var spare: UnsafeMutableRawPointer
    /// The file offset of the buffer's first byte, and how many bytes it holds from there.
    private var start: UInt64 = 0
    private var held = 0
    /// The next block's read into `spare`, until it is taken or dropped.
    private var next: BlockRead?
    private let queue = DispatchQueue(label: "zrc.file-reader")

    enum Outcome {
        case copied(Int)
        /// O_DIRECT was refused (EINVAL: a file system or device that wants another alignment):
        /// the caller reads without it from here on.
        case refused
        case failed(errno: Int32)
    }

    /// Turns O_DIRECT on for `descriptor`; nil where the file system refuses it.
    init?(descriptor: Int32) {
        guard zrc_set_direct(descriptor, 1) == 0 else { return nil }
        self.descriptor = descriptor
        buffer = .allocate(byteCount: Self.blockBytes, alignment: Self.alignment)
        spare = .allocate(byteCount: Self.blockBytes, alignment: Self.alignment)
    }

    deinit {
        settle()
        buffer.deallocate()
        spare.deallocate()
    }

    /// Waits for a read under way (before the descriptor closes, or the buffers go).
    func settle() {
        _ = next?.wait()
        next = nil
    }

    /// Copies up to `max` bytes of the file from `position` to `target`, getting the block that
    /// holds them first when the buffer does not. `.copied(0)`: the file ends before `position`.
    func read(into target: UnsafeMutableRawPointer, max: Int, at position: UInt64) -> Outcome {
        if position < start || position >= start + UInt64(held) {
            let aligned = position - position % UInt64(Self.alignment)
            let outcome: BlockRead.Outcome
            if let next, next.offset == aligned {
                outcome = next.wait()
                self.next = nil
                swap(&buffer, &spare)
            } else {
                settle()
                outcome = BlockRead.read(descriptor, into: buffer, count: Self.blockBytes, at: aligned)
            }
            switch outcome {
            case .read(let got):
                start = aligned
                held = got
            case .failed(let code):
                held = 0
                return code == EINVAL ? .refused : .failed(errno: code)
            }
            guard position < start + UInt64(held) else { return .copied(0) }
            // A whole block: the file may go on, so the one after it is fetched meanwhile.
            if held == Self.blockBytes {
                let read = BlockRead(descriptor: descriptor, into: spare, count: Self.blockBytes, at: start + UInt64(held))
                read.start(on: queue)
                next = read
            }
        }
        let from = Int(position - start)
        let count = min(max, held - from)
        target.copyMemory(from: buffer + from, byteCount: count)
        return .copied(count)
    }

    /// Back to reads through the page cache.
    static func stop(_ descriptor: Int32) {
        _ = zrc_set_direct(descriptor, 0)
    }
}
