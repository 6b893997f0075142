import Foundation
import Logging
import NIOCore
import ZRCNetworking
import ZRCProtocol
import ZRCStorage

/// The host's decision on a controller's handshake: which key material applies, whether the
/// controller may in, and the reject record when not. Message 1 authenticates the controller's
/// static key; what it may do is decided then, but a session is listed, seen and given control
/// only when its first authenticated transport message arrives (`SessionFlow`), and a pairing
/// takes its invite only when the invite's secret is proven (`PairingFlow`).
///
/// Checks, in order — pair: invite known and usable (4) → message 1 decrypts (1) → payload (6);
/// session: message 1 decrypts (1) → payload (6) → authorized (2) → timestamp within the host's
/// clock skew (9) → not a replay (3) → sessions of this controller (10) → policy (5).
struct Admission {
    let server: HostServer
    /// Where the connection comes from: a session or pairing that completes vouches for it.
    let source: AdmissionSource
    let logger: Logger

    func admit(_ initiation: HandshakeInitiation, handshake: HostHandshake,
               outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) async throws -> AdmittedConnection? {
        func reject(_ reason: HandshakeRejection, _ why: String) async throws -> AdmittedConnection? {
            logger.notice("refused handshake: \(why)")
            try await outbound.write(ByteBuffer(bytes: HostHandshake.rejection(reason)))
            return nil
        }
        switch initiation.mode {
        case .pair:
            guard let inviteID = initiation.inviteID else { return try await reject(.malformed, "pairing without an invite ID") }
            let secret: SecretBytes
            do {
                secret = try await server.inviteSecret(inviteID)
            } catch {
                return try await reject(.inviteInvalid, "pairing attempt with an invite that cannot be used: \(error)")
            }
            let psk = KeyDerivations.pairingPSK(inviteID: inviteID, secret: secret, crypto: server.crypto)
            do {
                var responder = try handshake.respond(localStatic: server.identity, psk: psk, crypto: server.crypto)
                let response = try responder.accept(HandshakeResponsePayload(
                    sessionID: 0, granted: [], hostName: server.configuration.hostName))
                try await outbound.write(ByteBuffer(bytes: response))
                let flow = PairingFlow(server: server, inviteID: inviteID, controllerKey: responder.controllerKey, source: source,
                                       logger: logger)
                return AdmittedConnection(channel: try responder.establish(), flow: .pairing(flow))
            } catch let error as SessionError {
                if case .rejected(let reason) = error.kind { return try await reject(reason, error.message) }
                throw error
            }
        case .session:
            var responder: HostHandshakeResponder
            do {
                responder = try handshake.respond(localStatic: server.identity, psk: nil, crypto: server.crypto)
            } catch {
                if case .rejected(let reason) = error.kind { return try await reject(reason, error.message) }
                throw error
            }
            let key = responder.controllerKey
            guard let controller = try await server.controllers.controller(withKey: key) else {
                let fingerprint = KeyDerivations.fingerprint(of: key, crypto: server.crypto)
                return try await reject(.notAuthorized, "controller \(fingerprint) is not authorized (never paired, or revoked)")
            }
            let timestamp = responder.payload.timestampMicros
            let now = server.configuration.unixMicros()
            let skew = timestamp > now ? timestamp - now : now - timestamp
            let allowed = ConnectionTimings.micros(server.configuration.maximumClockSkew)
            guard skew <= allowed else {
                return try await reject(.clockSkew, "handshake from \(controller.name) is stamped \(skew / 1_000_000) s "
                    + "\(timestamp > now ? "ahead of" : "behind") this host's clock (at most \(allowed / 1_000_000) s allowed): "
                    + "a delayed or replayed handshake, or a wrong clock")
            }
            guard try await server.controllers.recordHandshake(publicKey: key, timestampMicros: timestamp) else {
                return try await reject(.replayedHandshake,
                                        "handshake from \(controller.name) was seen before or is too old (a replay, or its clock went back)")
            }
            var requestedViewOnly = false
            if case .session(let requested) = responder.payload.purpose { requestedViewOnly = requested.contains(.viewOnly) }
            let sessionID: UInt64, granted: SessionFlags
            switch await server.openSession(controller: key, requestedViewOnly: requestedViewOnly) {
            case .opened(let id, let flags): (sessionID, granted) = (id, flags)
            case .refused(let reason):
                return try await reject(reason, reason == .refusedByPolicy
                    ? "\(controller.name) refused: another controller is in control (policy: refuse)"
                    : "\(controller.name) refused: it already holds \(server.configuration.admission.maximumSessionsPerController) sessions")
            }
            do {
                let response = try responder.accept(HandshakeResponsePayload(
                    sessionID: sessionID, granted: granted, hostName: server.configuration.hostName))
                try await outbound.write(ByteBuffer(bytes: response))
                let flow = SessionFlow(server: server, sessionID: sessionID, controllerKey: key, controllerName: controller.name,
                                       agent: responder.payload.agent, granted: granted, source: source, logger: logger)
                return AdmittedConnection(channel: try responder.establish(), flow: .session(flow))
            } catch {
                await server.closeSession(sessionID, controller: key)
                throw error
            }
        }
    }
}

/// A connection past its handshake, with what it is for.
struct AdmittedConnection: ~Copyable {
    enum Flow {
        case pairing(PairingFlow)
        case session(SessionFlow)
    }

    var channel: SecureChannel
    let flow: Flow

    consuming func run(inbound: inout NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator,
                       outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>, nioChannel: any Channel, remote: String) async {
        switch flow {
        case .pairing(let pairing):
            await pairing.run(channel: channel, inbound: &inbound, outbound: outbound, nioChannel: nioChannel, remote: remote)
        case .session(let session):
            await session.run(channel: channel, inbound: &inbound, outbound: outbound, nioChannel: nioChannel, remote: remote)
        }
    }
}
