public import NIOCore
import Foundation
import Synchronization
import NIOPosix

/// TCP set-up shared by host and controller: NIO async channels carrying raw byte buffers.
public enum TCPEndpoint {
    public typealias Connection = NIOAsyncChannel<ByteBuffer, ByteBuffer>

    /// The kernel's own cap on a listen backlog (net.core.somaxconn): asking for it means a burst
    /// of connections waits in the queue instead of being dropped (a backlog of 64 lost 58 of 200
    /// simultaneous connects); admission control then decides about each one.
    static let systemMaximumBacklog: Int32 = {
        guard let text = try? String(contentsOfFile: "/proc/sys/net/core/somaxconn", encoding: .utf8),
              let value = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), value > 0 else { return 4096 }
        return value
    }()

    /// Reads grow to 256 KiB while the peer keeps the socket full (NIO's default stops at 64 KiB):
    /// a file transfer on a fast path then costs a quarter of the reads, wake-ups and
    /// acknowledgements; a quiet connection's reads stay small (the allocator shrinks them back).
    static let readSizes = AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 2048, maximum: 256 * 1024)

    public static func listen(host: String, port: Int) async throws -> NIOAsyncChannel<Connection, Never> {
        try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: systemMaximumBacklog)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            // A peer that sends part of a preamble and then FIN still gets the host's preamble (and a
            // log line): its end of the connection closing does not close the host's.
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.recvAllocator, value: readSizes)
            .bind(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    // Closed when dropped: a connection the kernel had queued as the server shut
                    // down reaches no handler, and NIO treats an unfinished channel dropped that
                    // way as a fatal error unless it is told to close it on deinit. Every
                    // connection that is handed out still goes through executeThenClose.
                    try Connection(synchronouslyWrapping: channel)
                }
            }
    }

    public static func connect(host: String, port: Int, timeout: Duration) async throws -> Connection {
        let milliseconds = Int64(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        return try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.milliseconds(milliseconds))
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelOption(.recvAllocator, value: readSizes)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try Connection(wrappingChannelSynchronously: channel)
                }
            }
    }

    /// Wraps an already connected stream socket (the caller's end of an ICE stream) as a
    /// connection like a TCP one; the connection owns the socket from then on.
    public static func adopt(socket: Int32) async throws -> Connection {
        do {
            return try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelOption(.recvAllocator, value: readSizes)
                .withConnectedSocket(socket) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try Connection(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            close(socket)
            throw error
        }
    }

    /// Closes `channel` after `timeout` unless cancelled first: bounds how long a peer can take
    /// over a phase (e.g. the handshake) without any cooperation from the reading loop.
    public static func closeAfter(_ timeout: Duration, channel: any Channel, onFire: @escaping @Sendable () -> Void = {}) -> ChannelDeadline {
        ChannelDeadline(timeout, channel: channel, onFire: onFire)
    }
}

/// A deadline that closes a channel unless cancelled first. Cancelling is final: once `cancel()`
/// returned, the channel is not closed by this deadline, even if its time had just run out and
/// the closing task had not yet run (a plain task cancelled at that moment still closed a session
/// whose handshake had finished a moment before, and the first use of the session failed).
public final class ChannelDeadline: Sendable {
    private enum State {
        case armed
        case cancelled
        case fired
    }

    private let state = Mutex(State.armed)
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(_ timeout: Duration, channel: any Channel, onFire: @escaping @Sendable () -> Void) {
        let task = Task { [self] in
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            let fire = self.state.withLock { current -> Bool in
                guard case .armed = current else { return false }
                current = .fired
                return true
            }
            guard fire else { return }
            onFire()
            channel.close(promise: nil)
        }
        self.task.withLock { $0 = task }
    }

    /// Disarms the deadline; false when it had already fired (the channel is being closed).
    @discardableResult
    public func cancel() -> Bool {
        let disarmed = state.withLock { current -> Bool in
            guard case .armed = current else { return current == .cancelled }
            current = .cancelled
            return true
        }
        task.withLock { $0?.cancel() }
        return disarmed
    }
}
