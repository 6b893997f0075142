import Logging
import NIOCore
import ZRCFrames
import ZRCNetworking
import ZRCProtocol

/// Opens a connection to a host: TCP to each address in turn, the handshake under a deadline,
/// then the connection loop in a task of its own. Returns once the session is usable.
struct ControllerDialer: Sendable {
    let identity: NoiseKeyPair
    let crypto: any NoiseCrypto
    let agent: String
    let logger: Logger
    let connectTimeout: Duration
    let handshakeTimeout: Duration
    let timings: ConnectionTimings
    let makeDecoder: (@Sendable () -> any RegionDecoder)?
    let capabilities: Capabilities
    /// Sessions keep track of which pixels are exact (screenshots).
    var exactPictures = false
    /// Frames are acknowledged by the viewer once shown (see `ControllerConfiguration`).
    var viewerAcknowledges = false

    /// Tries the addresses in order until a handshake completes. An address may reach another
    /// service or another machine (invites list every interface), so a failure there only moves on;
    /// if all fail, the most telling failure is reported.
    ///
    /// `confirmed`: the address where a session with this key last opened. Only there does a
    /// `hostKeyMismatch` refusal mean what it says (the host's key may have changed); anywhere
    /// else — a stale address, a loopback address reaching another host on this machine, an
    /// address found on the LAN — it only means another ZRC host answers there, which is an
    /// unreachable address, not a reason to throw away the pairing.
    func open(addresses: [HostPort], hostKey: NoisePublicKey, confirmed: HostPort? = nil,
              purpose: @Sendable () -> ControllerHandshake.Purpose) async throws(ControllerError) -> ControllerSession {
        var unreachable: [String] = []
        var telling: ControllerError?
        for address in addresses {
            let channel: TCPEndpoint.Connection
            do {
                channel = try await TCPEndpoint.connect(host: address.host, port: Int(address.port), timeout: connectTimeout)
            } catch {
                unreachable.append("\(address): \(Self.describeConnectFailure(error))")
                continue
            }
            do {
                return try await handshake(over: channel, label: address.description, path: .tcp(address: address.description),
                                           hostKey: hostKey, purpose: purpose())
            } catch {
                if case .rejected(.hostKeyMismatch) = error.kind, address != confirmed {
                    unreachable.append("\(address): another ZRC host answers there (its key is not the one pinned for this host)")
                    continue
                }
                if telling.map({ Self.rank($0) < Self.rank(error) }) ?? true { telling = error }
            }
        }
        if let telling { throw telling }
        throw ControllerError(.unreachable, "could not reach the host at any of its addresses (\(unreachable.joined(separator: "; "))); is `zrc-host serve` running there, and is the port open?")
    }

    /// A host's own refusal says most, then a failed handshake, then a service that is not ZRC.
    private static func rank(_ error: ControllerError) -> Int {
        switch error.kind {
        case .rejected: 3
        case .handshakeFailed, .closedByHost, .connectionLost: 2
        case .wrongPeer: 1
        case .invalidInvite, .unreachable, .storage, .closed, .nameInUse: 0
        }
    }

    /// Runs the handshake and then the session over an open byte stream (TCP, or an ICE stream
    /// adopted as a socket); `label` names the peer in messages, `onEnd` runs when it is over.
    func handshake(over channel: TCPEndpoint.Connection, label: String, path: TransportPath, hostKey: NoisePublicKey,
                   purpose: ControllerHandshake.Purpose,
                   onEnd: @escaping @Sendable () async -> Void = {}) async throws(ControllerError) -> ControllerSession {
        do {
            return try await withCheckedThrowingContinuation { continuation in
                let once = ResumeOnce<ControllerSession>(continuation)
                Task {
                    await run(channel: channel, address: label, path: path, hostKey: hostKey, purpose: purpose, once: once, onEnd: onEnd)
                }
            }
        } catch let error as ControllerError {
            throw error
        } catch {
            throw ControllerError(.handshakeFailed, "\(error)")
        }
    }

    /// The session is reported ended only after `onEnd` (an ICE stream's close reaching the
    /// host), so a program that exits once its session ended leaves nothing unsent.
    private func run(channel: TCPEndpoint.Connection, address: String, path: TransportPath, hostKey: NoisePublicKey,
                     purpose: ControllerHandshake.Purpose, once: ResumeOnce<ControllerSession>,
                     onEnd: @Sendable () async -> Void = {}) async {
        var sessionEnd: ConnectionEnd?
        let timedOut = OnceFlag()
        var established: ControllerSession?
        do {
            try await channel.executeThenClose { inbound, outbound in
                var iterator = inbound.makeAsyncIterator()
                let timer = TCPEndpoint.closeAfter(handshakeTimeout, channel: channel.channel) { timedOut.set() }
                defer { timer.cancel() }
                func nextBytes() async throws -> ByteBuffer {
                    guard let buffer = try await iterator.next() else {
                        throw timedOut.isSet
                            ? ControllerError(.handshakeFailed, "the host at \(address) did not complete the handshake within \(handshakeTimeout)")
                            : Self.closedDuringHandshake(address)
                    }
                    return buffer
                }
                // Our preamble at once; message 1 only once the host's preamble is in, because
                // both preambles are part of the handshake's prologue (their bits are authenticated).
                try await outbound.write(ByteBuffer(bytes: Preamble.encode()))
                var received: [UInt8] = []
                var hostPreamble: [UInt8]?
                while hostPreamble == nil {
                    received += try await nextBytes().readableBytesView
                    switch Preamble.parse(received, localRole: .controller) {
                    case .needMoreBytes: continue
                    case .ok: hostPreamble = Array(received.prefix(Preamble.length))
                    case .error(let error): throw SessionError(.wrongPeer, error.message)
                    }
                }
                var handshake = try ControllerHandshake(
                    purpose: purpose, localStatic: identity, hostKey: hostKey, timestampMicros: WireClock.unixMicros(),
                    agent: agent, crypto: crypto, hostPreamble: hostPreamble ?? [])
                try await outbound.write(ByteBuffer(bytes: handshake.initiationRecord))
                var response = try handshake.receive(received)
                while response == nil {
                    response = try handshake.receive(try await nextBytes().readableBytesView)
                }
                timer.cancel()
                guard let response else { return }
                let session = ControllerSession(response: response, decoder: makeDecoder?(), path: path, tracksExactness: exactPictures,
                                                viewerAcknowledges: viewerAcknowledges)
                established = session
                let end = await SecureConnectionLoop.run(
                    channel: try handshake.establish(), inbound: &iterator, outbound: outbound, nioChannel: channel.channel,
                    remoteAddress: address, timings: timings, logger: logger,
                    started: { connection in
                        await session.attach(connection)
                        // A pairing connection's first message must be the pairing request.
                        if case .session = purpose {
                            // Announcing rect encodings asks the host to stream the screen in them.
                            try? await connection.send(.hello(protocolVersion: WireLimits.protocolVersion,
                                                              capabilities: capabilities, agent: agent))
                        }
                        once.resume(.success(session))
                    },
                    caughtUp: { await session.caughtUp() },
                    handle: { message, _ in await session.deliver(message) })
                sessionEnd = end
            }
        } catch let error as SessionError {
            once.resume(.failure(Self.translate(error, address: address)))
        } catch let error as ControllerError {
            once.resume(.failure(error))
        } catch {
            // Before the handshake completed, a reset, a closed channel and an orderly close all
            // mean the same to the user: the host would not talk to us now.
            once.resume(.failure(established == nil ? Self.closedDuringHandshake(address)
                                                    : ControllerError(.connectionLost, "connection to \(address) failed: \(error)")))
        }
        await onEnd()
        if let established { await established.finished(sessionEnd ?? .connectionLost) }
    }

    static func closedDuringHandshake(_ address: String) -> ControllerError {
        ControllerError(.handshakeFailed, "the host at \(address) closed the connection during the handshake "
            + "(it may be busy, limiting connections, or not accepting this controller); try again in a few seconds")
    }

    static func translate(_ error: SessionError, address: String) -> ControllerError {
        switch error.kind {
        case .rejected(let reason):
            ControllerError(.rejected(reason), "\(address) refused the handshake (\(reason.shortName); a refusal is not authenticated, "
                + "so this is the host's unverified claim): \(reason.explanation)")
        case .wrongPeer: ControllerError(.wrongPeer, "\(address): \(error.message)")
        case .handshakeFailed, .recordRejected, .protocolViolation, .nonceExhausted:
            ControllerError(.handshakeFailed, "\(address): \(error.message)")
        }
    }

    static func describeConnectFailure(_ error: any Error) -> String {
        let text = "\(error)"
        if text.contains("connection refused") || text.contains("ECONNREFUSED") { return "connection refused" }
        if text.contains("timeout") || text.contains("Timeout") { return "no answer (timed out)" }
        return text
    }
}
