import Foundation
import Logging
import NIOCore
import ZRCNetworking
import ZRCProtocol
import ZRCStorage

/// After a pairing handshake: wait for `pairRequest`, whose successful decryption proves the
/// controller knew the invite secret; only then authorize its key and burn the invite.
struct PairingFlow: Sendable {
    let server: HostServer
    let inviteID: InviteID
    let connectionID: UInt64
    let controllerKey: NoisePublicKey
    let logger: Logger

    func run(channel: consuming SecureChannel, inbound: inout NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator,
             outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>, nioChannel: any Channel, remote: String) async {
        let paired = OnceFlag()
        let configuration = server.configuration
        // The controller sends pairRequest right after the handshake; don't hold the invite
        // reserved for a peer that stalls.
        let deadline = TCPEndpoint.closeAfter(configuration.handshakeTimeout, channel: nioChannel)
        let end = await SecureConnectionLoop.run(
            channel: channel, inbound: &inbound, outbound: outbound, nioChannel: nioChannel, remoteAddress: remote,
            timings: configuration.timings, logger: logger, started: { _ in }
        ) { message, connection in
            guard case .pairRequest(let requestedName) = message else {
                await connection.close(reason: .protocolError, text: "expected a pairing request")
                return
            }
            let name = DeviceName.problem(with: requestedName) == nil ? requestedName : "controller"
            do {
                let controller = try await server.controllers.authorize(name: name, publicKey: controllerKey, at: Date())
                await server.burnInvite(inviteID, connection: connectionID)
                await server.paired(controllerKey)
                paired.set()
                deadline.cancel()
                let fingerprint = KeyDerivations.fingerprint(of: controllerKey, crypto: server.crypto)
                logger.notice("paired controller \(controller.name) (\(fingerprint))")
                try? await connection.send(.pairAccepted(hostName: configuration.hostName))
                await connection.close(reason: .normal, text: "paired")
            } catch {
                logger.error("pairing failed: \(error)")
                await connection.close(reason: .internalError, text: "the host could not save the pairing: \(error)")
            }
        }
        deadline.cancel()
        if !paired.isSet {
            await server.releaseInvite(inviteID, connection: connectionID)
            logger.notice("pairing attempt ended before completing: \(end)")
        }
    }
}
