import Foundation
import Logging
import NIOCore
import ZRCNetworking
import ZRCProtocol

/// An authenticated controller session: registered for listings and revocation, kept alive by
/// keepalives, ended by either side.
struct SessionFlow: Sendable {
    let server: HostServer
    let sessionID: UInt64
    let controllerKey: NoisePublicKey
    let controllerName: String
    let agent: String
    let logger: Logger

    static let agentString = "zrc-host/0.1 (linux)"

    func run(channel: consuming SecureChannel, inbound: inout NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator,
             outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>, nioChannel: any Channel, remote: String) async {
        var logger = logger
        logger[metadataKey: "controller"] = "\(controllerName)"
        logger[metadataKey: "session"] = "\(sessionID)"
        logger.notice("session started (\(TerminalSafeText.sanitized(agent)))")
        let end = await SecureConnectionLoop.run(
            channel: channel, inbound: &inbound, outbound: outbound, nioChannel: nioChannel, remoteAddress: remote,
            timings: server.configuration.timings, logger: logger,
            started: { connection in
                guard await server.register(sessionID: sessionID, controllerKey: controllerKey, name: controllerName,
                                            connection: connection)
                else {
                    await connection.close(reason: .revoked, text: "this controller's access was revoked on the host")
                    return
                }
                try? await connection.send(.hello(protocolVersion: WireLimits.protocolVersion, capabilities: [], agent: Self.agentString))
            }
        ) { [logger] message, connection in
            switch message {
            case .hello(_, _, let agent):
                logger.debug("controller hello: \(TerminalSafeText.sanitized(agent))")
            case .pong, .stats, .frameAck:
                break
            default:
                // Screen and input messages arrive with the next milestones; say so rather than
                // silently dropping them.
                try? await connection.send(.error(code: .unsupported, text: "this host does not handle \(message.type) messages yet"))
            }
        }
        await server.unregister(sessionID: sessionID)
        logger.notice("session ended: \(end)")
    }
}
