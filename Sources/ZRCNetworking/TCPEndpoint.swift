public import NIOCore
import NIOPosix

/// TCP set-up shared by host and controller: NIO async channels carrying raw byte buffers.
public enum TCPEndpoint {
    public typealias Connection = NIOAsyncChannel<ByteBuffer, ByteBuffer>

    public static func listen(host: String, port: Int) async throws -> NIOAsyncChannel<Connection, Never> {
        try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .bind(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try Connection(wrappingChannelSynchronously: channel)
                }
            }
    }

    public static func connect(host: String, port: Int, timeout: Duration) async throws -> Connection {
        let milliseconds = Int64(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        return try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.milliseconds(milliseconds))
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try Connection(wrappingChannelSynchronously: channel)
                }
            }
    }

    /// Closes `channel` after `timeout` unless cancelled first: bounds how long a peer can take
    /// over a phase (e.g. the handshake) without any cooperation from the reading loop.
    public static func closeAfter(_ timeout: Duration, channel: any Channel, onFire: @escaping @Sendable () -> Void = {}) -> Task<Void, Never> {
        Task {
            do {
                try await Task.sleep(for: timeout)
            } catch {
                return
            }
            onFire()
            channel.close(promise: nil)
        }
    }
}
