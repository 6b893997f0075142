import Foundation
import Glibc
import Synchronization

/// Reads the terminal's input on a thread of its own and hands it on as chunks of bytes. Ends
/// (the stream finishes) when the terminal closes or `stop()` is called.
public final class TerminalReader: Sendable {
    public let chunks: AsyncStream<[UInt8]>
    private let continuation: AsyncStream<[UInt8]>.Continuation
    private let descriptor: Int32
    /// A pipe whose read end the thread polls beside the terminal, so `stop()` wakes it.
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let stopped = Atomic<Bool>(false)

    public init(descriptor: Int32 = 0) throws(TerminalError) {
        self.descriptor = descriptor
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw TerminalDevice.failure("pipe") }
        wakeRead = fds[0]
        wakeWrite = fds[1]
        (chunks, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
        let thread = Thread { [self] in self.readLoop() }
        thread.name = "zrc.terminal.reader"
        thread.start()
    }

    public func stop() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        var byte: UInt8 = 0
        _ = Glibc.write(wakeWrite, &byte, 1)
    }

    private func readLoop() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        var fds = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        while !stopped.load(ordering: .relaxed) {
            let ready = poll(&fds, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                break
            }
            if fds[1].revents != 0 { break }
            guard fds[0].revents != 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                continuation.yield(Array(buffer[0..<count]))
            } else if count < 0, errno == EINTR || errno == EAGAIN {
                continue
            } else {
                break  // end of input or the terminal is gone
            }
        }
        continuation.finish()
        close(wakeRead)
        close(wakeWrite)
    }
}
