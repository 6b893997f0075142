public import Foundation
public import Logging
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import ZRCSystem

/// A request/response channel between a running server and its command-line tool, over a Unix
/// domain socket that only the user can reach: mode 0600 inside a 0700 directory of the user's,
/// checked without following symbolic links, and both ends check the other's user ID with
/// SO_PEERCRED (so not even a socket planted by another user, or root's, is trusted).
/// One JSON document per line each way; one request per connection.
///
/// Plain POSIX on threads of its own: the traffic is a handful of small requests, and the peer
/// credential check needs the descriptor, which NIO does not expose.
public enum LocalControlSocket {
    static let maximumMessageLength = 1 << 20
    /// How long a client may take to send its request.
    static let requestTimeout: Duration = .seconds(5)

    public struct Failure: Error, CustomStringConvertible, Sendable {
        public enum Kind: Sendable { case notRunning, alreadyRunning, protocolError, io }
        public let kind: Kind
        public let description: String
    }

    private enum ServerEvent: Sendable {
        case ready
        case failed(Failure)
        case finished
    }

    /// Serves requests until the task is cancelled. Refuses to start when another server already
    /// answers on the socket; removes a stale socket file left by a crashed server.
    public static func serve<Request: Decodable & Sendable, Response: Encodable & Sendable>(
        at socket: URL,
        logger: Logger,
        onReady: @Sendable () -> Void = {},
        handler: @escaping @Sendable (Request) async -> Response
    ) async throws {
        try PrivateDirectory.check(socket.deletingLastPathComponent())
        var info = stat()
        if lstat(socket.path, &info) == 0 {
            if await isAnswering(socket) {
                throw Failure(kind: .alreadyRunning, description: "another server is already running on \(socket.path); stop it first")
            }
            unlink(socket.path)
        }
        let stop = StopFlag()
        let (events, sink) = AsyncStream<ServerEvent>.makeStream()
        let thread = Thread {
            defer { sink.yield(.finished) }
            let listener: UnixSocket
            do {
                listener = try UnixSocket.listen(at: socket.path)
            } catch {
                sink.yield(.failed(Failure(kind: .io, description: "cannot listen on \(socket.path): \(error)")))
                return
            }
            guard chmod(socket.path, 0o600) == 0 else {
                sink.yield(.failed(Failure(kind: .io, description: "cannot restrict \(socket.path) to mode 0600")))
                return
            }
            sink.yield(.ready)
            while !stop.isSet {
                do {
                    guard let client = try listener.accept(until: .now + .milliseconds(200)) else { continue }
                    serve(client, logger: logger, handler: handler)
                } catch {
                    logger.warning("control socket: \(error)")
                }
            }
        }
        thread.start()
        defer { unlink(socket.path) }
        try await withTaskCancellationHandler {
            for await event in events {
                switch event {
                case .ready: onReady()
                case .failed(let failure): throw failure
                case .finished: return
                }
            }
        } onCancel: {
            stop.set()
        }
    }

    /// One client: its user ID is checked before anything it sent is read.
    private static func serve<Request: Decodable & Sendable, Response: Encodable & Sendable>(
        _ client: borrowing UnixSocket, logger: Logger, handler: @escaping @Sendable (Request) async -> Response
    ) {
        do {
            let uid = try client.peerUserID()
            guard uid == getuid() else {
                logger.warning("control socket: refused a client running as user \(uid)")
                return
            }
            let line = try client.readLine(limit: maximumMessageLength, until: .now + requestTimeout)
            let request = try JSONDecoder().decode(Request.self, from: Data(line))
            let response = waitFor { await handler(request) }
            var bytes = try JSONEncoder().encode(response)
            bytes.append(0x0A)
            try client.writeAll(Array(bytes))
        } catch {
            logger.warning("control socket: unreadable or failed request: \(error)")
        }
    }

    /// Sends one request and waits for the answer.
    public static func send<Request: Encodable & Sendable, Response: Decodable & Sendable>(
        _ request: Request, to socket: URL, expecting: Response.Type, timeout: Duration = .seconds(30)
    ) async throws(Failure) -> Response {
        try checkOwnership(of: socket)
        do {
            return try await onThread {
                let connection: UnixSocket
                do {
                    connection = try UnixSocket.connect(to: socket.path)
                } catch let failure as UnixSocket.Failure where [ENOENT, ECONNREFUSED].contains(failure.errno) {
                    throw Failure(kind: .notRunning, description: "no server is answering on \(socket.path)")
                }
                let uid = try connection.peerUserID()
                guard uid == getuid() else {
                    throw Failure(kind: .io, description: "refusing the server on \(socket.path): it runs as user \(uid), not as you")
                }
                var bytes = try JSONEncoder().encode(request)
                bytes.append(0x0A)
                try connection.writeAll(Array(bytes))
                let line = try connection.readLine(limit: maximumMessageLength, until: .now + timeout)
                return try JSONDecoder().decode(Response.self, from: Data(line))
            }
        } catch let failure as Failure {
            throw failure
        } catch let failure as UnixSocket.Failure {
            throw Failure(kind: .io, description: "cannot talk to the server's control socket \(socket.path): \(failure)")
        } catch {
            throw Failure(kind: .protocolError, description: "control request failed: \(error)")
        }
    }

    /// Trust a socket only where no other user could have put it: a socket (not a link) we own,
    /// in a directory (not a link) we own that nobody else may enter.
    static func checkOwnership(of socket: URL) throws(Failure) {
        var info = stat()
        guard lstat(socket.path, &info) == 0 else {
            throw Failure(kind: .notRunning, description: "no server is answering on \(socket.path)")
        }
        do {
            try PrivateDirectory.check(socket.deletingLastPathComponent(), create: false)
        } catch {
            throw Failure(kind: .io, description: "refusing \(socket.path): \(error); remove it and restart zrc-host serve")
        }
        guard info.st_mode & S_IFMT == S_IFSOCK, info.st_uid == getuid() else {
            throw Failure(kind: .io, description: "refusing \(socket.path): it is not a socket of yours; remove it and restart zrc-host serve")
        }
    }

    static func isAnswering(_ socket: URL) async -> Bool {
        (try? await onThread { _ = try UnixSocket.connect(to: socket.path) }) != nil
    }

    /// Runs blocking work on a thread of its own, so it never holds one of the few threads of
    /// Swift's cooperative pool.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    /// Runs async work from a plain thread and waits for its result.
    private static func waitFor<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
        let result = Mutex<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let value = await work()
            result.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        return result.withLock { $0! }
    }
}

/// Set once by the canceller, read by the accepting thread.
private final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    var isSet: Bool { flag.load(ordering: .acquiring) }
    func set() { flag.store(true, ordering: .releasing) }
}
