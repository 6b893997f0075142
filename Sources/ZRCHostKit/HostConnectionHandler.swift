import Foundation
import Logging
import NIOCore
import ZRCNetworking
import ZRCProtocol

/// Serves one TCP connection: admission, handshake under a deadline, then pairing or a session.
/// Every connection that ends early is closed with a reason (logged in aggregate when refused).
///
/// Admission has two stages (see `AdmissionLedger`): an accepted connection is only counted
/// against its source until it sends a valid preamble and record header; only then does it take
/// one of the handshake slots, which are what a flood of idle connections used to exhaust.
struct HostConnectionHandler: Sendable {
    let server: HostServer

    /// Where this connection stands in admission, so every way out frees exactly what it holds.
    private enum Stage {
        case unidentified
        case handshaking
        case released
    }

    /// `origin` names a connection that did not come from the TCP listener (an ICE stream):
    /// its admission source and how the log names the peer.
    func serve(_ connection: TCPEndpoint.Connection, origin: (source: String, remote: String)? = nil) async {
        let address = connection.channel.remoteAddress
        let remote = origin?.remote ?? address?.description ?? "an unknown address"
        // Limits count per IP address, not per port.
        let source = origin?.source ?? address?.ipAddress ?? remote
        var logger = server.logger
        logger[metadataKey: "peer"] = "\(remote)"
        guard await server.connectionOpened(source: source) else {
            // Through executeThenClose even when nothing is said: an async channel dropped
            // unfinished is a fatal error in NIO (a flood of refusals made that happen).
            try? await connection.executeThenClose { _, _ in }
            return
        }
        var stage = Stage.unidentified
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
                        // Through the refusal log: a flood of these is summarised, not listed.
                        await server.logRefusal(source: source, timedOut.isSet
                            ? "closed connection: handshake not completed within \(server.configuration.handshakeTimeout)"
                            : "connection closed by the peer during the handshake")
                        return
                    }
                    initiation = try handshake.receive(buffer.readableBytesView)
                    if case .unidentified = stage, handshake.isIdentified {
                        guard await server.connectionIdentified(source: source) else {
                            stage = .released
                            // It speaks ZRC, so it can read why: one clear refusal for a real controller.
                            try? await outbound.write(ByteBuffer(bytes: HostHandshake.rejection(.busy)))
                            return
                        }
                        stage = .handshaking
                    }
                }
                guard let initiation else { return }
                guard let admitted = try await Admission(server: server, logger: logger)
                    .admit(initiation, handshake: handshake, outbound: outbound)
                else { return }
                timer.cancel()
                await server.handshakeEnded(source: source)
                stage = .released
                await admitted.run(inbound: &iterator, outbound: outbound, nioChannel: connection.channel, remote: remote)
            }
        } catch let error as SessionError {
            if case .released = stage {
                logger.notice("closed connection: \(error.message)")
            } else {
                await server.logRefusal(source: source, "closed connection: \(error.message)")
            }
        } catch {
            logger.debug("closed connection: \(error)")
        }
        switch stage {
        case .unidentified: await server.connectionClosed(source: source)
        case .handshaking: await server.handshakeEnded(source: source)
        case .released: break
        }
    }
}
