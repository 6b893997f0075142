public import Logging
public import NIOCore
public import ZRCProtocol

/// Keepalive and liveness settings of a connection.
public struct ConnectionTimings: Sendable {
    public var keepaliveInterval: Duration
    public var deadPeerTimeout: Duration

    public init(keepaliveInterval: Duration = .seconds(5), deadPeerTimeout: Duration = .seconds(20)) {
        precondition(deadPeerTimeout > keepaliveInterval, "the dead-peer timeout must exceed the keepalive interval")
        self.keepaliveInterval = keepaliveInterval
        self.deadPeerTimeout = deadPeerTimeout
    }
}

/// Runs an established connection until it ends: reads and decrypts, answers pings, sends
/// keepalives, detects a dead peer, and hands every other message to `handle`.
public enum SecureConnectionLoop {
    public static func run(
        channel: consuming SecureChannel,
        inbound: inout NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator,
        outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>,
        nioChannel: any Channel,
        remoteAddress: String,
        timings: ConnectionTimings,
        logger: Logger,
        started: @Sendable (SecureConnection) async -> Void,
        handle: @escaping @Sendable (ZRCMessage, SecureConnection) async -> Void
    ) async -> ConnectionEnd {
        let (outboxStream, outbox) = AsyncStream<[UInt8]>.makeStream(bufferingPolicy: .unbounded)
        let connection = SecureConnection(channel: channel, outbox: outbox, nioChannel: nioChannel,
                                          remoteAddress: remoteAddress, logger: logger)
        return await withTaskGroup(of: Void.self) { group in
            group.addTask {
                // The only writer: records leave in the order they were sealed.
                do {
                    for await bytes in outboxStream {
                        try await outbound.write(ByteBuffer(bytes: bytes))
                        await connection.didWrite(bytes.count)
                    }
                } catch {
                    logger.debug("write failed: \(error)")
                }
                outbound.finish()
                await connection.abort()
            }
            group.addTask {
                await keepalive(connection, timings: timings)
            }
            await started(connection)
            do {
                // Records that arrived together with the last handshake message come first.
                var messages = try await connection.open([])
                reading: while true {
                    for message in messages {
                        // A revoke or close may have happened while the previous message was handled.
                        guard await connection.isOpen else { break reading }
                        switch message {
                        case .ping(let id, let sentAt):
                            try? await connection.send(.pong(id: id, pingSentAtMicros: sentAt, receivedAtMicros: WireClock.unixMicros()))
                        case .pong(_, let pingSentAt, _):
                            await connection.pongArrived(pingSentAtMicros: pingSentAt)
                            await handle(message, connection)
                        case .close(let reason, let text):
                            logger.info("peer closed: \(reason) \(TerminalSafeText.sanitized(text))")
                            await connection.end(.remote(reason: reason, text: text))
                            break reading
                        default:
                            await handle(message, connection)
                        }
                    }
                    guard await connection.isOpen, let buffer = try await inbound.next() else { break }
                    messages = try await connection.open(buffer.readableBytesView)
                }
                await connection.end(.connectionLost)
            } catch let error as SessionError {
                logger.warning("closing connection from \(remoteAddress): \(error.message)")
                await connection.close(reason: .protocolError, text: error.message, recording: .failed(error))
            } catch {
                await connection.end(.connectionLost)
            }
            // Give the writer a moment to flush a final `close`, then make sure the socket goes.
            let flushed = Task {
                try? await Task.sleep(for: .seconds(2))
                await connection.abort()
            }
            await group.next()
            flushed.cancel()
            group.cancelAll()
            return await connection.endReason ?? .connectionLost
        }
    }

    private static func keepalive(_ connection: SecureConnection, timings: ConnectionTimings) async {
        let keepaliveMicros = UInt64(timings.keepaliveInterval.components.seconds) * 1_000_000
            + UInt64(timings.keepaliveInterval.components.attoseconds / 1_000_000_000_000)
        let deadMicros = UInt64(timings.deadPeerTimeout.components.seconds) * 1_000_000
            + UInt64(timings.deadPeerTimeout.components.attoseconds / 1_000_000_000_000)
        let tick = min(timings.keepaliveInterval, .seconds(1))
        var pingID: UInt64 = 0
        while !Task.isCancelled, await connection.isOpen {
            try? await Task.sleep(for: tick)
            let now = WireClock.monotonicMicros()
            if now &- (await connection.lastReceivedMicros) > deadMicros {
                // The run loop's flush-then-abort lets the close go out before the socket shuts.
                await connection.close(reason: .timeout, text: "nothing received for \(timings.deadPeerTimeout)",
                                       recording: .peerTimedOut)
                return
            }
            if now &- (await connection.lastSentMicros) >= keepaliveMicros {
                pingID &+= 1
                try? await connection.send(.ping(id: pingID, sentAtMicros: WireClock.monotonicMicros()))
            }
        }
    }
}
