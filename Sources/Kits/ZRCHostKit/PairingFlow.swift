import Foundation
import Logging
import NIOCore
import ZRCNetworking
import ZRCProtocol
import ZRCStorage

/// After a pairing handshake: wait for `pairRequest`, whose successful decryption proves the
/// controller knew the invite secret; only then take the invite (the first proof wins) and
/// authorize the controller's key.
struct PairingFlow: Sendable {
    let server: HostServer
    let inviteID: InviteID
    let controllerKey: NoisePublicKey
    /// Where the pairing came from; once it completes, that address may use the reserved slots.
    let source: AdmissionSource
    let logger: Logger

    func run(channel: consuming SecureChannel, inbound: inout NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator,
             outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>, nioChannel: any Channel, remote: String) async {
        let configuration = server.configuration
        // The controller sends pairRequest right after the handshake; a peer that stalls goes.
        let deadline = TCPEndpoint.closeAfter(configuration.handshakeTimeout, channel: nioChannel) { [logger] in
            logger.notice("closed pairing connection: no pairing request within \(configuration.handshakeTimeout) of the handshake")
        }
        let end = await SecureConnectionLoop.run(
            channel: channel, inbound: &inbound, outbound: outbound, nioChannel: nioChannel, remoteAddress: remote,
            timings: configuration.timings, logger: logger, started: { _ in }
        ) { message, connection in
            guard case .pairRequest(let requestedName) = message else {
                await connection.close(reason: .protocolError, text: "expected a pairing request")
                return
            }
            // The controller did its part in time; what follows (the trust store's write) is the
            // host's own work, which a busy disk or CPU may slow but must not turn into a refusal.
            deadline.cancel()
            let name = DeviceName.problem(with: requestedName) == nil ? requestedName : "controller"
            do {
                try await server.redeemInvite(inviteID, controllerKey: controllerKey)
            } catch {
                logger.notice("pairing refused after the secret was proven: \(error)")
                await connection.close(reason: .policyRefused, text: "the invite is no longer valid: \(error)")
                return
            }
            do {
                let temporary = await server.isTemporaryCodePairing(controllerKey)
                let controller = try await server.controllers.authorize(name: name, publicKey: controllerKey, at: Date(), temporary: temporary)
                await server.paired(controllerKey, name: controller.name)
                if temporary { server.expireTemporaryAuthorization(of: controllerKey) }
                await server.sourceAuthenticated(source)
                let fingerprint = KeyDerivations.fingerprint(of: controllerKey, crypto: server.crypto)
                logger.notice("paired controller \(controller.name) (\(fingerprint))")
                // Before pairAccepted, so a relay-only controller has them for its first offer.
                if let credentials = configuration.reach?.relayCredentials(controllerKey), !credentials.isEmpty {
                    try? await connection.send(.relayCredentials(credentials))
                }
                try? await connection.send(.pairAccepted(hostName: configuration.hostName))
                await connection.close(reason: .normal, text: "paired")
            } catch {
                await server.restoreInvite(inviteID)
                logger.error("pairing failed: \(error)")
                await connection.close(reason: .internalError, text: "the host could not save the pairing: \(error)")
            }
        }
        deadline.cancel()
        logger.debug("pairing connection ended: \(end)")
    }
}
