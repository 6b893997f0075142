import Foundation
import Logging
import NIOCore
import ZRCNetworking
import ZRCProtocol

/// Serves one TCP connection: admission, handshake under a deadline, then pairing or a session.
/// Every accepted connection's end is accounted for: counted (`HostServer.connectionEnded`) and,
/// when it ends before a session or pairing, given a reason in the refusal log (one line per
/// source and reason, then a count in the 30 s summary) — also a peer that resets or closes
/// before anything happened.
///
/// Admission has two stages (see `AdmissionLedger`): an accepted connection is only counted
/// against its source until it sends a valid preamble and record header; only then does it take
/// one of the handshake slots, which are what a flood of idle connections used to exhaust. From
/// then on the rest of message 1 has `messageOneTimeout`, so a slot held on purpose is soon free.
struct HostConnectionHandler: Sendable {
    let server: HostServer

    /// Where this connection stands in admission, so every way out frees exactly what it holds.
    private enum Stage {
        case unidentified
        case handshaking(AdmissionLedger.SlotPool)
        case released
    }

    /// `origin` names a connection that did not come from the TCP listener (an ICE stream):
    /// its admission source and how the log names the peer.
    func serve(_ connection: TCPEndpoint.Connection, origin: (source: AdmissionSource, remote: String)? = nil) async {
        await serveToTheEnd(connection, origin: origin)
        await server.connectionEnded()
    }

    private func serveToTheEnd(_ connection: TCPEndpoint.Connection, origin: (source: AdmissionSource, remote: String)?) async {
        let address = connection.channel.remoteAddress
        let remote = origin?.remote ?? address?.description ?? "an unknown address"
        // Limits count per IPv4 address and IPv6 /64, not per port.
        let source = origin?.source ?? AdmissionSource.address(address?.ipAddress ?? remote)
        var logger = server.logger
        logger[metadataKey: "peer"] = "\(remote)"
        guard await server.connectionOpened(source: source) else {
            // Through executeThenClose even when nothing is said: an async channel dropped
            // unfinished is a fatal error in NIO (a flood of refusals made that happen).
            try? await connection.executeThenClose { _, _ in }
            return
        }
        var stage = Stage.unidentified
        /// Why the connection ended before it was released, when it did.
        var earlyEnd: String?
        do {
            try await connection.executeThenClose { inbound, outbound in
                var iterator = inbound.makeAsyncIterator()
                let timedOut = OnceFlag()
                let timer = TCPEndpoint.closeAfter(server.configuration.handshakeTimeout, channel: connection.channel) {
                    timedOut.set()
                }
                defer { timer.cancel() }
                var messageOneTimer: ChannelDeadline?
                defer { messageOneTimer?.cancel() }
                let messageOneLate = OnceFlag()
                try await outbound.write(ByteBuffer(bytes: HostHandshake.preamble))

                var handshake = HostHandshake()
                var initiation: HandshakeInitiation?
                while initiation == nil {
                    guard let buffer = try await iterator.next() else {
                        earlyEnd = messageOneLate.isSet
                            ? "closed connection: message 1 not completed within \(server.configuration.messageOneTimeout) of its record header"
                            : timedOut.isSet ? "closed connection: handshake not completed within \(server.configuration.handshakeTimeout)"
                            : "connection closed by the peer during the handshake"
                        return
                    }
                    initiation = try handshake.receive(buffer.readableBytesView)
                    if case .unidentified = stage, handshake.isIdentified {
                        guard let pool = await server.connectionIdentified(source: source) else {
                            stage = .released
                            // It speaks ZRC, so it can read why: one clear refusal for a real controller.
                            try? await outbound.write(ByteBuffer(bytes: HostHandshake.rejection(.busy)))
                            return
                        }
                        stage = .handshaking(pool)
                        if initiation == nil {
                            messageOneTimer = TCPEndpoint.closeAfter(server.configuration.messageOneTimeout, channel: connection.channel) {
                                messageOneLate.set()
                            }
                        }
                    }
                }
                messageOneTimer?.cancel()
                guard let initiation else { return }
                guard let admitted = try await Admission(server: server, source: source, logger: logger)
                    .admit(initiation, handshake: handshake, outbound: outbound)
                else { return }
                timer.cancel()
                if case .handshaking(let pool) = stage { await server.handshakeEnded(source: source, pool: pool) }
                stage = .released
                await admitted.run(inbound: &iterator, outbound: outbound, nioChannel: connection.channel, remote: remote)
            }
        } catch let error as SessionError {
            if case .released = stage {
                logger.notice("closed connection: \(error.message)")
            } else {
                earlyEnd = "closed connection: \(error.message)"
            }
        } catch {
            // The peer reset the connection or closed it before the host's preamble went out
            // (or anything else the channel threw): an end like any other, never a silent one.
            if case .released = stage {
                logger.notice("connection failed: \(error)")
            } else {
                earlyEnd = "connection reset or closed by the peer before the handshake (\(Self.describe(error)))"
            }
        }
        if let earlyEnd { await server.logRefusal(source: source, earlyEnd) }
        switch stage {
        case .unidentified: await server.connectionClosed(source: source)
        case .handshaking(let pool): await server.handshakeEnded(source: source, pool: pool)
        case .released: break
        }
    }

    /// A channel error in a few words (the same for every connection it happens to, so the
    /// refusal log can count them together).
    static func describe(_ error: any Error) -> String {
        if let error = error as? IOError { return "\(error.description)" }
        if let error = error as? ChannelError { return "\(error)" }
        return "\(type(of: error))"
    }
}
