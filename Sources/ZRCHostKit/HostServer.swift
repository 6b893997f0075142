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
    /// Keys revoked while this server runs: a handshake that passed its authorization check just
    /// before a revoke must not register afterwards (the check and the registration are separate
    /// actor steps). Cleared when the key pairs again.
    var revokedKeys: Set<NoisePublicKey> = []
    /// The session in control (input allowed); others are view-only or refused by policy.
    private var controllingSession: UInt64?
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
        let ready = OnceFlag()
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask {
                // Ends the wait below on success and on failure alike.
                defer { readySignal.finish() }
                try await LocalControlSocket.serve(
                    at: self.configuration.controlSocket, logger: self.logger,
                    onReady: { ready.set(); readySignal.finish() }
                ) { (request: HostControlRequest) in await self.handle(request) }
            }
            // Announce only once both the TCP listener and the control socket accept.
            for await _ in controlReady {}
            guard ready.isSet else {
                // The control socket failed; its error ends the group. Release the port now.
                try? await listener.channel.close()
                return
            }
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

    /// Decides a new session's mode in one actor step, so two controllers arriving together
    /// cannot both take control. Nil: refused by policy.
    func admitSession(_ sessionID: UInt64, requestedViewOnly: Bool) -> SessionFlags? {
        if requestedViewOnly { return .viewOnly }
        guard controllingSession != nil else {
            controllingSession = sessionID
            return []
        }
        switch configuration.policy {
        case .viewOnly: return .viewOnly
        case .refuse: return nil
        }
    }

    /// Registers a live session; false when its key was revoked since admission.
    func register(sessionID: UInt64, controllerKey: NoisePublicKey, name: String, connection: SecureConnection,
                  viewOnly: Bool) -> Bool {
        guard !revokedKeys.contains(controllerKey) else { return false }
        sessions.add(.init(id: sessionID, controllerKey: controllerKey, controllerName: name, connection: connection, since: Date(),
                           viewOnly: viewOnly))
        return true
    }

    func paired(_ key: NoisePublicKey) { revokedKeys.remove(key) }

    /// Also frees control: the next controller to connect may take it.
    func unregister(sessionID: UInt64) {
        sessions.remove(id: sessionID)
        if controllingSession == sessionID { controllingSession = nil }
    }

    func reserveSessionID() -> UInt64 { sessions.makeID() }
}
