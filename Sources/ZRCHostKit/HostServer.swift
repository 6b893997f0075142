import Foundation
public import Logging
import NIOCore
import ZRCNetworking
public import ZRCProtocol
public import ZRCStorage

/// `zrc-host serve`: accepts pairing and authenticated sessions on TCP, and serves the local
/// control socket. One actor owns the server's shared state (invites, live sessions, counters);
/// each connection runs in its own task (`HostConnectionHandler`).
public actor HostServer {
    public nonisolated let configuration: HostServerConfiguration
    nonisolated let identity: NoiseKeyPair
    nonisolated let crypto: any NoiseCrypto
    public nonisolated let controllers: AuthorizedControllersStore
    nonisolated let logger: Logger
    public nonisolated let fingerprint: String

    var invites = InviteRegistry()
    var sessions = LiveSessions()
    private var pendingHandshakes = 0
    private var nextConnectionID: UInt64 = 1
    /// The address actually bound (the port may have been 0).
    public private(set) var boundAddress: HostPort?

    public init(configuration: HostServerConfiguration, identity: NoiseKeyPair, crypto: any NoiseCrypto,
                controllers: AuthorizedControllersStore, logger: Logger) {
        self.configuration = configuration
        self.identity = identity
        self.crypto = crypto
        self.controllers = controllers
        self.logger = logger
        fingerprint = KeyDerivations.fingerprint(of: identity.publicKey, crypto: crypto)
    }

    /// Serves until cancelled or until binding fails; `onListening` is told the bound address.
    public func run(onListening: @Sendable (HostPort) -> Void = { _ in }) async throws {
        let listener = try await TCPEndpoint.listen(host: configuration.listen.host, port: Int(configuration.listen.port))
        let port = UInt16(listener.channel.localAddress?.port ?? Int(configuration.listen.port))
        let bound = HostPort(host: configuration.listen.host, port: port)
        boundAddress = bound
        try PrivateFile.ensurePrivateDirectory(configuration.controlSocket.deletingLastPathComponent())
        let handler = HostConnectionHandler(server: self)
        let (controlReady, readySignal) = AsyncStream<Void>.makeStream()
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask {
                try await LocalControlSocket.serve(
                    at: self.configuration.controlSocket, logger: self.logger, onReady: { readySignal.finish() }
                ) { (request: HostControlRequest) in await self.handle(request) }
            }
            // Announce only once both the TCP listener and the control socket accept.
            for await _ in controlReady {}
            if Task.isCancelled { return }  // the control socket failed; its error ends the group
            onListening(bound)
            logger.info("listening on \(bound) — host key fingerprint \(fingerprint)")
            try await listener.executeThenClose { connections in
                for try await connection in connections {
                    group.addTask { await handler.serve(connection) }
                }
            }
        }
    }

    /// Ends every live session with `close(shuttingDown)`; call before cancelling `run`.
    public func shutdown() async {
        for session in sessions.all {
            await session.connection.close(reason: .shuttingDown, text: "the host is shutting down")
        }
    }

    // MARK: Connection bookkeeping (called by HostConnectionHandler)

    /// Admits a new connection into its handshake, or nil when too many are pending.
    func admitHandshake() -> UInt64? {
        guard pendingHandshakes < configuration.maximumPendingHandshakes else { return nil }
        pendingHandshakes += 1
        defer { nextConnectionID += 1 }
        return nextConnectionID
    }

    func handshakeFinished() { pendingHandshakes -= 1 }

    func reserveInvite(_ id: InviteID, connection: UInt64) throws(InviteRegistry.Refusal) -> SecretBytes {
        try invites.reserve(id: id.bytes, now: configuration.unixSeconds(), connection: connection)
    }

    func releaseInvite(_ id: InviteID, connection: UInt64) { invites.release(id: id.bytes, connection: connection) }

    func burnInvite(_ id: InviteID, connection: UInt64) { invites.burn(id: id.bytes, connection: connection) }

    func register(sessionID: UInt64, controllerKey: NoisePublicKey, name: String, connection: SecureConnection) {
        sessions.add(.init(id: sessionID, controllerKey: controllerKey, controllerName: name, connection: connection, since: Date()))
    }

    func unregister(sessionID: UInt64) { sessions.remove(id: sessionID) }

    func reserveSessionID() -> UInt64 { sessions.makeID() }
}
