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
    /// Pairing by code: the open codes, and the controllers that proved one and have yet to pair.
    var codeDesk: CodePairingDesk?
    var codePairings: [NoisePublicKey: CodePairingExpectation] = [:]
    /// The live sessions as the indicator shows them, newest only (see `HostServer+Indicator`).
    let indicatorUpdates = AsyncStream<[IndicatedSession]>.makeStream(bufferingPolicy: .bufferingNewest(1))
    var sessions = LiveSessions()
    /// Sessions waiting for the person at the host, oldest first (see `HostServer+Indicator`).
    var approvals: [PendingApproval] = []
    /// Uploads arriving, by session and request (for the indicator).
    var arrivals: [UInt64: [UInt32: IndicatedSession.ArrivingFile]] = [:]
    /// Keys revoked while this server runs: a handshake that passed its authorization check just
    /// before a revoke must not register afterwards (the check and the registration are separate
    /// actor steps). Cleared when the key pairs again.
    var revokedKeys: Set<NoisePublicKey> = []
    /// Clipboard changes waiting for each session, newest per selection, and the sessions whose
    /// sender is running (see `sendClipboard`).
    private var clipboardPending: [UInt64: [ClipboardSelection: ClipboardContent]] = [:]
    private var clipboardSenders: Set<UInt64> = []
    /// Connections, handshake slots, sessions per controller and control.
    var ledger: AdmissionLedger
    private var controllerWatchers: [AsyncStream<Void>.Continuation] = []
    /// Refused connections, logged in aggregate.
    private var refusals = RefusalLog()
    private var connectionCounts = (accepted: 0, ended: 0)
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
        ledger = AdmissionLedger(limits: configuration.admission)
    }

    /// Serves until cancelled or until binding fails; `onListening` is told the bound address.
    public func run(onListening: @Sendable (HostPort) -> Void = { _ in }) async throws {
        let listener = try await TCPEndpoint.listen(host: configuration.listen.host, port: Int(configuration.listen.port))
        let port = UInt16(listener.channel.localAddress?.port ?? Int(configuration.listen.port))
        let bound = HostPort(host: configuration.listen.host, port: port)
        boundAddress = bound
        try PrivateFile.ensurePrivateDirectory(configuration.controlSocket.deletingLastPathComponent())
        let handler = HostConnectionHandler(server: self)
        if let group = configuration.cpace { codeDesk = CodePairingDesk(server: self, group: group, logger: logger) }
        // Authorizations for one session do not outlive the server that gave them.
        if let removed = try? await controllers.removeTemporary(), !removed.isEmpty {
            logger.notice("removed \(removed.count) controller(s) authorized for one session by an earlier run")
        }
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
            // A host on loopback only has nothing to announce to the LAN.
            if let discovery = configuration.lanDiscovery, !bound.isLoopback {
                let publisher = LanPublisher(discovery: discovery, name: configuration.hostName, port: bound.port, hostKey: identity.publicKey,
                                             crypto: crypto, unixSeconds: { self.configuration.unixSeconds }, logger: logger)
                group.addTask { await publisher.run() }
            }
            if let clipboard = configuration.clipboard {
                group.addTask {
                    for await content in clipboard.bridge.changes() where clipboard.selections.contains(content.selection) {
                        await self.clipboardChanged(content)
                    }
                }
            }
            if let reach = configuration.reach, !reach.rendezvous.isEmpty {
                group.addTask { await RendezvousResponder(server: self, reach: reach, logger: self.logger).run() }
            }
            group.addTask { await self.watchTrustStore() }
            if let indicator = configuration.indicator {
                group.addTask { await self.runIndicator(indicator) }
            }
            group.addTask {
                // Summaries of refused connections come out even when the refusals stop.
                while !Task.isCancelled {
                    try? await Task.sleep(for: .microseconds(Int64(RefusalLog.windowMicros)))
                    await self.flushRefusals()
                }
            }
            try await listener.executeThenClose { connections in
                for try await connection in connections {
                    group.addTask { await handler.serve(connection) }
                }
            }
        }
    }

    /// Serves a connection that arrived another way than the TCP listener (an ICE stream from
    /// the rendezvous), with the same admission, handshake and session handling.
    nonisolated func serveAdopted(_ connection: TCPEndpoint.Connection, source: AdmissionSource, remote: String) async {
        await HostConnectionHandler(server: self).serve(connection, origin: (source, remote))
    }

    /// Ends every live session with `close(shuttingDown)`, and writes the summaries of refusals
    /// still counting; call before cancelling `run`.
    public func shutdown() async {
        flushRefusals(all: true)
        await codeDesk?.closeAll()
        indicatorUpdates.continuation.finish()
        for session in sessions.all {
            await session.connection.close(reason: .shuttingDown, text: "the host is shutting down")
        }
    }

    // MARK: Connection bookkeeping (called by HostConnectionHandler)

    /// A connection was accepted from `source`; false: close it at once.
    func connectionOpened(source: AdmissionSource) -> Bool {
        connectionCounts.accepted += 1
        guard let refusal = ledger.connectionOpened(source: source, nowMicros: WireClock.monotonicMicros()) else { return true }
        logRefusal(source: source, refusal)
        return false
    }

    func connectionClosed(source: AdmissionSource) { ledger.connectionClosed(source: source) }

    /// The connection proved it speaks ZRC: the pool of the handshake slot it got, or nil.
    func connectionIdentified(source: AdmissionSource) -> AdmissionLedger.SlotPool? {
        switch ledger.connectionIdentified(source: source, random: Double.random(in: 0..<1), nowMicros: WireClock.monotonicMicros()) {
        case .success(let pool): return pool
        case .failure(let refusal):
            logRefusal(source: source, refusal)
            return nil
        }
    }

    func handshakeEnded(source: AdmissionSource, pool: AdmissionLedger.SlotPool) { ledger.handshakeEnded(source: source, pool: pool) }

    /// A controller authenticated from `source`: it may use the reserved handshake slots.
    func sourceAuthenticated(_ source: AdmissionSource) {
        ledger.sourceAuthenticated(source, nowMicros: WireClock.monotonicMicros())
    }

    /// A connection ended before it became a session or a pairing, for `reason`: logged once per
    /// source and reason, then counted in the 30 s summary.
    func logRefusal(source: AdmissionSource, _ reason: some CustomStringConvertible) {
        for line in refusals.refused(source: source.description, reason: reason.description, nowMicros: WireClock.monotonicMicros()) {
            logger.warning("\(line)")
        }
    }

    /// Every accepted connection's end is counted here (and logged, through the refusal log or
    /// the session's own lines).
    func connectionEnded() { connectionCounts.ended += 1 }

    /// Connections accepted (TCP or adopted from the rendezvous) and ended since the server started.
    public func connectionTotals() -> (accepted: Int, ended: Int) { (connectionCounts.accepted, connectionCounts.ended) }

    private func flushRefusals(all: Bool = false) {
        for line in refusals.flush(nowMicros: all ? .max : WireClock.monotonicMicros()) { logger.warning("\(line)") }
    }

    func inviteSecret(_ id: InviteID) throws(InviteRegistry.Refusal) -> SecretBytes {
        try invites.secret(for: id.bytes, now: configuration.unixSeconds)
    }

    /// The first attempt to prove the invite's secret takes it.
    func redeemInvite(_ id: InviteID, controllerKey: NoisePublicKey) throws(InviteRegistry.Refusal) {
        try invites.redeem(id: id.bytes, now: configuration.unixSeconds, controllerKey: controllerKey)
    }

    func restoreInvite(_ id: InviteID) { invites.restore(id: id.bytes) }

    /// Reserves a session for `controller` and decides what it may do (control is only claimed
    /// when its first authenticated message arrives: `claimControl`). The refusal, if any.
    func openSession(controller: NoisePublicKey, requestedViewOnly: Bool) -> SessionOpening {
        guard let granted = ledger.grant(controller: controller, requestedViewOnly: requestedViewOnly, policy: configuration.policy) else {
            return .refused(.refusedByPolicy)
        }
        switch ledger.openSession(controller: controller) {
        case .success(let id): return .opened(id: id, granted: granted)
        case .failure: return .refused(.tooManySessions)
        }
    }

    enum SessionOpening {
        case opened(id: UInt64, granted: SessionFlags)
        case refused(HandshakeRejection)
    }

    func claimControl(session: UInt64, controller: NoisePublicKey) -> Bool { ledger.claimControl(session: session, controller: controller) }

    /// Registers a live session; false when its key was revoked since admission.
    func register(sessionID: UInt64, controllerKey: NoisePublicKey, name: String, connection: SecureConnection, link: SessionLink,
                  viewOnly: Bool, receivesClipboard: Bool) -> Bool {
        guard !revokedKeys.contains(controllerKey) else { return false }
        sessions.add(.init(id: sessionID, controllerKey: controllerKey, controllerName: name, connection: connection, link: link,
                           since: Date(), viewOnly: viewOnly, receivesClipboard: receivesClipboard))
        sessionsChanged()
        return true
    }

    /// A shared selection changed (an application on the host, or a session other than
    /// `source`, set it): every session that receives the clipboard hears of it.
    func clipboardChanged(_ content: ClipboardContent, source: UInt64? = nil) {
        for session in sessions.all where session.receivesClipboard && session.id != source {
            clipboardPending[session.id, default: [:]][content.selection] = content
            guard clipboardSenders.insert(session.id).inserted else { continue }
            let (id, connection) = (session.id, session.connection)
            Task { await self.sendClipboard(to: id, over: connection) }
        }
    }

    /// Sends a session's clipboard changes: only the newest per selection, at most about four a
    /// second, and none while more than 2 MiB wait for the peer. An application (or another
    /// session) changing a megabyte of text over and over cannot fill a slow watcher's queue.
    private func sendClipboard(to id: UInt64, over connection: SecureConnection) async {
        while sessions.session(id: id) != nil {
            if await connection.queuedBytes <= 2 << 20 {
                guard let batch = clipboardPending.removeValue(forKey: id), !batch.isEmpty else { break }
                for content in batch.values { try? await connection.send(.clipboard(content)) }
            }
            try? await Task.sleep(for: .milliseconds(250))
        }
        clipboardSenders.remove(id)
        if sessions.session(id: id) == nil { clipboardPending[id] = nil }
    }

    func paired(_ key: NoisePublicKey, name: String) async {
        revokedKeys.remove(key)
        codePairings[key] = nil
        controllersChanged()
        await codeDesk?.controllerPaired(key, name: name)
    }

    /// Tells whoever watches (the rendezvous topics) that the paired controllers changed.
    func controllersChanged() { controllerWatchers.forEach { $0.yield() } }

    /// A signal each time a controller pairs or is revoked.
    func watchControllers() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        controllerWatchers.append(continuation)
        return stream
    }

    /// The session ended (or its set-up failed): off the listing, its slot and control freed.
    func closeSession(_ sessionID: UInt64, controller: NoisePublicKey) async {
        sessions.remove(id: sessionID)
        arrivals[sessionID] = nil
        ledger.closeSession(sessionID, controller: controller)
        sessionsChanged()
        await endTemporaryAuthorization(of: controller)
    }
}
