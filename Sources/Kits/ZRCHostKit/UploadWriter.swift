import Synchronization
import ZRCFiles
import ZRCProtocol

/// One upload's disk work beside the session's message loop: the part is opened, written, synced
/// and renamed by a task of its own, fed through an ordered queue, so a disk that stalls (writeback,
/// a slow device) never holds up the session's input and frames. The queue is bounded by the
/// session's file desk (`maxUnwrittenBytes`), which counts what was handed over and not yet written.
final class UploadWriter: Sendable {
    enum Command: Sendable {
        case data([UInt8])
        case commit(digest: [UInt8])
        case abandon(keepPart: Bool)
    }

    enum Report: Sendable {
        case ready(FileReady)
        case written(through: UInt64, count: Int)
        case committed
        case failed(FileSystemError, keepPart: Bool)
    }

    private let commands: AsyncStream<Command>.Continuation
    private let task: Task<Void, Never>
    /// Commands sent and not yet taken: writes are reported once the queue is drained (or every
    /// `reportEveryBytes`), so a fast upload costs one acknowledgement per batch, not per chunk.
    private let queued = Counter()
    static let reportEveryBytes = 256 * 1024

    init(open: FileOpen, path: RemotePath, sharing: FileSharing, report: @escaping @Sendable (Report) async -> Void) {
        let (stream, continuation) = AsyncStream.makeStream(of: Command.self)
        commands = continuation
        let queued = self.queued
        task = Task {
            let part: FilePart
            do throws(FileSystemError) {
                guard let name = path.name else { throw FileSystemError(.invalidPath, "the root is not a file") }
                let directory = try sharing.root.directory(path.parent)
                part = try FilePart(name, in: directory, size: open.size, resume: open.flags.contains(.resume),
                                    replace: open.flags.contains(.replace))
            } catch {
                await report(.failed(error, keepPart: true))
                return
            }
            await report(.ready(FileReady(requestID: open.requestID, size: open.size, mode: open.mode & 0o777, modifiedMicros: open.modifiedMicros,
                                          offset: part.offset, prefixDigest: part.prefixDigest)))
            // Each chunk goes into the part's own buffer (written half a megabyte at a time); writes are
            // reported when the queue runs dry or every `reportEveryBytes`: one acknowledgement
            // per batch, not per 16 KiB chunk.
            var unreported = 0
            /// Reports what was written since the last report; false when a write failed (reported, part abandoned).
            func write(_ data: [UInt8], reportNow: Bool) async -> Bool {
                do throws(FileSystemError) {
                    try part.write(data)
                } catch {
                    part.abandon(keep: error.code != .noSpace)
                    await report(.failed(error, keepPart: true))
                    return false
                }
                unreported += data.count
                guard reportNow || unreported >= Self.reportEveryBytes, unreported > 0 else { return true }
                await report(.written(through: part.offset, count: unreported))
                unreported = 0
                return true
            }
            for await command in stream {
                let left = queued.value.subtract(1, ordering: .acquiringAndReleasing).newValue
                switch command {
                case .data(let data):
                    guard await write(data, reportNow: left == 0) else { return }
                case .commit(let digest):
                    guard await write([], reportNow: true) else { return }
                    do throws(FileSystemError) {
                        try part.commit(expected: digest, mode: open.mode, modifiedMicros: open.modifiedMicros,
                                        replace: open.flags.contains(.replace))
                        await report(.committed)
                    } catch {
                        part.abandon(keep: error.code != .integrity)
                        await report(.failed(error, keepPart: error.code != .integrity))
                    }
                    return
                case .abandon(let keep):
                    part.abandon(keep: keep)
                    return
                }
            }
            part.abandon(keep: true)
        }
    }

    func send(_ command: Command) {
        queued.value.add(1, ordering: .acquiringAndReleasing)
        commands.yield(command)
    }

    /// Ends the queue (abandoning the part unless it was committed) and waits for the task.
    func finish(keepPart: Bool) async {
        send(.abandon(keepPart: keepPart))
        commands.finish()
        await task.value
    }
}

/// A shared count (an `Atomic` cannot be captured by the writer's task on its own).
final class Counter: Sendable {
    let value = Atomic<Int>(0)
}
