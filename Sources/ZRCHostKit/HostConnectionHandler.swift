import Foundation
import Logging
import NIOCore
import ZRCNetworking
import ZRCProtocol

/// Serves one TCP connection: handshake under a deadline, then pairing or a session.
/// Every connection that ends early is closed with a logged reason.
struct HostConnectionHandler: Sendable {
    let server: HostServer

    func serve(_ connection: TCPEndpoint.Connection) async {
        let remote = connection.channel.remoteAddress?.description ?? "an unknown address"
        var logger = server.logger
        logger[metadataKey: "peer"] = "\(remote)"
        guard let connectionID = await server.admitHandshake() else {
            logger.warning("refused connection: too many handshakes in progress")
            try? await connection.channel.close()
            return
        }
        var finished = false
        do {
            try await connection.executeThenClose { inbound, outbound in
                var iterator = inbound.makeAsyncIterator()
                let timedOut = OnceFlag()
                let timer = TCPEndpoint.closeAfter(server.configuration.handshakeTimeout, channel: connection.channel) {
                    timedOut.set()
                }
                defer { timer.cancel() }
                try await outbound.write(ByteBuffer(bytes: HostHandshake.preamble))

                var handshake = HostHandshake()
                var initiation: HandshakeInitiation?
                while initiation == nil {
                    guard let buffer = try await iterator.next() else {
                        logger.notice(timedOut.isSet
                            ? "closed connection: handshake not completed within \(server.configuration.handshakeTimeout)"
                            : "connection closed by the peer during the handshake")
                        return
                    }
                    initiation = try handshake.receive(buffer.readableBytesView)
                }
                guard let initiation else { return }
                guard let admitted = try await Admission(server: server, logger: logger, connectionID: connectionID)
                    .admit(initiation, handshake: handshake, outbound: outbound)
                else { return }
                timer.cancel()
                await server.handshakeFinished()
                finished = true
                await admitted.run(inbound: &iterator, outbound: outbound, nioChannel: connection.channel, remote: remote)
            }
        } catch let error as SessionError {
            logger.notice("closed connection: \(error.message)")
        } catch {
            logger.notice("closed connection: \(error)")
        }
        if !finished { await server.handshakeFinished() }
    }
}
