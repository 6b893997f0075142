public import Foundation
public import Logging
import NIOCore
import NIOPosix
#if canImport(Glibc)
import Glibc
#endif

/// A request/response channel between a running server and its command-line tool, over a Unix
/// domain socket that only the user can reach (mode 0600 inside a 0700 runtime directory).
/// One JSON document per line each way; one request per connection.
public enum LocalControlSocket {
    static let maximumMessageLength = 1 << 20

    public struct Failure: Error, CustomStringConvertible, Sendable {
        public enum Kind: Sendable { case notRunning, alreadyRunning, protocolError, io }
        public let kind: Kind
        public let description: String
    }

    /// Serves requests until the task is cancelled. Refuses to start when another server already
    /// answers on the socket; removes a stale socket file left by a crashed server.
    public static func serve<Request: Decodable & Sendable, Response: Encodable & Sendable>(
        at socket: URL,
        logger: Logger,
        onReady: @Sendable () -> Void = {},
        handler: @escaping @Sendable (Request) async -> Response
    ) async throws {
        if FileManager.default.fileExists(atPath: socket.path) {
            if await isAnswering(socket) {
                throw Failure(kind: .alreadyRunning,
                              description: "another server is already running on \(socket.path); stop it first")
            }
            unlink(socket.path)
        }
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(unixDomainSocketPath: socket.path) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        ByteToMessageHandler(LineFrameDecoder(maximumLineLength: maximumMessageLength)))
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        guard chmod(socket.path, 0o600) == 0 else {
            try? await server.channel.close()
            throw Failure(kind: .io, description: "cannot restrict \(socket.path) to mode 0600")
        }
        defer { unlink(socket.path) }
        onReady()
        try await withThrowingDiscardingTaskGroup { group in
            try await server.executeThenClose { clients in
                for try await client in clients {
                    group.addTask {
                        do {
                            try await client.executeThenClose { inbound, outbound in
                                for try await line in inbound {
                                    let response: Response
                                    do {
                                        let request = try JSONDecoder().decode(Request.self, from: Data(line.readableBytesView))
                                        response = await handler(request)
                                    } catch {
                                        logger.warning("control socket: unreadable request: \(error)")
                                        return
                                    }
                                    var bytes = try JSONEncoder().encode(response)
                                    bytes.append(0x0A)
                                    try await outbound.write(ByteBuffer(bytes: bytes))
                                    return
                                }
                            }
                        } catch {
                            logger.debug("control socket client ended: \(error)")
                        }
                    }
                }
            }
        }
    }

    /// Sends one request and waits for the answer.
    public static func send<Request: Encodable & Sendable, Response: Decodable & Sendable>(
        _ request: Request, to socket: URL, expecting: Response.Type, timeout: Duration = .seconds(30)
    ) async throws(Failure) -> Response {
        try checkOwnership(of: socket)
        let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.seconds(2))
                .connect(unixDomainSocketPath: socket.path) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            ByteToMessageHandler(LineFrameDecoder(maximumLineLength: maximumMessageLength)))
                        return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch let error as IOError where [ENOENT, ECONNREFUSED].contains(error.errnoCode) {
            throw Failure(kind: .notRunning, description: "no server is answering on \(socket.path)")
        } catch {
            throw Failure(kind: .io, description: "cannot reach the server's control socket \(socket.path): \(error)")
        }
        do {
            return try await withThrowingTaskGroup(of: Response.self) { group in
                group.addTask {
                    try await channel.executeThenClose { inbound, outbound in
                        var bytes = try JSONEncoder().encode(request)
                        bytes.append(0x0A)
                        try await outbound.write(ByteBuffer(bytes: bytes))
                        for try await line in inbound {
                            return try JSONDecoder().decode(Response.self, from: Data(line.readableBytesView))
                        }
                        throw Failure(kind: .protocolError, description: "the server closed the control connection without answering")
                    }
                }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    throw Failure(kind: .io, description: "the server did not answer within \(timeout)")
                }
                defer { group.cancelAll() }
                return try await group.next()!
            }
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(kind: .protocolError, description: "control request failed: \(error)")
        }
    }

    /// Trust a socket only where no other user could have put it: a file we own, in a directory
    /// we own that nobody else may enter.
    static func checkOwnership(of socket: URL) throws(Failure) {
        var info = stat()
        guard stat(socket.path, &info) == 0 else {
            throw Failure(kind: .notRunning, description: "no server is answering on \(socket.path)")
        }
        var directory = stat()
        let directoryPath = socket.deletingLastPathComponent().path
        guard info.st_uid == getuid(), stat(directoryPath, &directory) == 0, directory.st_uid == getuid(),
              directory.st_mode & 0o077 == 0
        else {
            throw Failure(kind: .io, description: "refusing \(socket.path): it or its directory belongs to another user "
                + "or is open to others; remove it and restart zrc-host serve")
        }
    }

    static func isAnswering(_ socket: URL) async -> Bool {
        do {
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.seconds(1))
                .connect(unixDomainSocketPath: socket.path) { channel in channel.eventLoop.makeSucceededFuture(channel) }
            try? await channel.close()
            return true
        } catch {
            return false
        }
    }
}
