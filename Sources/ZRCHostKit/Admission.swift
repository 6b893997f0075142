import Foundation
import Logging
import NIOCore
import ZRCNetworking
import ZRCProtocol

/// The host's decision on a controller's handshake: which key material applies, whether the
/// controller may in, and the reject record when not. Nothing the controller sent is acted on
/// before message 1 has authenticated it.
struct Admission {
    let server: HostServer
    let logger: Logger
    let connectionID: UInt64

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
                secret = try await server.reserveInvite(inviteID, connection: connectionID)
            } catch {
                return try await reject(error == .inUse ? .inviteBusy : .inviteInvalid,
                                        "pairing attempt with an invite that cannot be used: \(error)")
            }
            let psk = KeyDerivations.pairingPSK(inviteID: inviteID, secret: secret, crypto: server.crypto)
            do {
                var responder = try handshake.respond(localStatic: server.identity, psk: psk, crypto: server.crypto)
                let response = try responder.accept(HandshakeResponsePayload(
                    sessionID: 0, granted: [], hostName: server.configuration.hostName))
                try await outbound.write(ByteBuffer(bytes: response))
                let flow = PairingFlow(server: server, inviteID: inviteID, connectionID: connectionID,
                                       controllerKey: responder.controllerKey, logger: logger)
                return AdmittedConnection(channel: try responder.establish(), flow: .pairing(flow))
            } catch let error as SessionError {
                await server.releaseInvite(inviteID, connection: connectionID)
                if case .rejected(let reason) = error.kind { return try await reject(reason, error.message) }
                throw error
            } catch {
                await server.releaseInvite(inviteID, connection: connectionID)
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
            guard try await server.controllers.recordHandshake(publicKey: key, timestampMicros: timestamp, at: Date()) else {
                return try await reject(.replayedHandshake,
                                        "handshake from \(controller.name) was seen before or is too old (a replay, or its clock went back)")
            }
            let sessionID = await server.reserveSessionID()
            var requestedViewOnly = false
            if case .session(let requested) = responder.payload.purpose { requestedViewOnly = requested.contains(.viewOnly) }
            guard let granted = await server.admitSession(sessionID, requestedViewOnly: requestedViewOnly) else {
                return try await reject(.refusedByPolicy, "\(controller.name) refused: another controller is in control (policy: refuse)")
            }
            do {
                let response = try responder.accept(HandshakeResponsePayload(
                    sessionID: sessionID, granted: granted, hostName: server.configuration.hostName))
                try await outbound.write(ByteBuffer(bytes: response))
                let flow = SessionFlow(server: server, sessionID: sessionID, controllerKey: key, controllerName: controller.name,
                                       agent: responder.payload.agent, granted: granted, logger: logger)
                return AdmittedConnection(channel: try responder.establish(), flow: .session(flow))
            } catch {
                // Control (if this session took it) must not stay reserved for a failed handshake.
                await server.unregister(sessionID: sessionID)
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
