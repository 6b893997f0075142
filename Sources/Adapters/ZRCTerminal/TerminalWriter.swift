import Dispatch
import Glibc

/// Writes to the terminal on a thread of its own: a slow terminal (a big sixel frame, a remote
/// link) blocks that thread, never the tasks that handle input and the network. `write` returns
/// once every byte is written, so the caller can pace frames by how fast the terminal takes them.
public final class TerminalWriter: Sendable {
    private let descriptor: Int32
    private let queue = DispatchQueue(label: "zrc.terminal.writer")

    public init(descriptor: Int32 = 1) {
        self.descriptor = descriptor
    }

    public func write(_ bytes: [UInt8]) async throws(TerminalError) {
        guard !bytes.isEmpty else { return }
        let descriptor = descriptor
        let result: Result<Void, TerminalError> = await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: Self.writeAll(bytes, to: descriptor)) }
        }
        try result.get()
    }

    /// Writes on the calling thread; for the last words on the way out (restoring the terminal),
    /// when no task may be left to wait on.
    public func writeNow(_ bytes: [UInt8]) {
        queue.sync { _ = Self.writeAll(bytes, to: descriptor) }
    }

    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Result<Void, TerminalError> {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0, errno == EINTR || errno == EAGAIN {
                    if errno == EAGAIN { usleep(1000) }
                } else {
                    return .failure(TerminalDevice.failure("write"))
                }
            }
            return .success(())
        }
    }
}
