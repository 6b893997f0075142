public import Logging
public import NIOCore
public import ZRCProtocol

/// Runs an established connection until it ends: reads and decrypts, answers pings, sends
/// keepalives, detects a dead peer, and hands every other message to `handle`; `caughtUp` hears
/// when every message of one read was handled (replies that may cover several messages, such as
/// a download's acknowledgements, go then: one per read instead of one per message).
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
        caughtUp: @Sendable () async -> Void = {},
        handle: @escaping @Sendable (ZRCMessage, SecureConnection) async -> Void
    ) async -> ConnectionEnd {
        let (outboxStream, outbox) = AsyncStream<ByteBuffer>.makeStream(bufferingPolicy: .unbounded)
        let connection = SecureConnection(channel: channel, outbox: outbox, nioChannel: nioChannel,
                                          remoteAddress: remoteAddress, timings: timings, logger: logger)
        return await withTaskGroup(of: Void.self) { group in
            group.addTask {
                // The only writer: records leave in the order they were sealed.
                do {
                    for await bytes in outboxStream {
                        let count = bytes.readableBytes
                        try await outbound.write(bytes)
                        await connection.didWrite(count)
                    }
                } catch {
                    logger.debug("write failed: \(error)")
                }
                outbound.finish()
                await connection.abort()
            }
            group.addTask {
                // Keepalives, the dead-peer timeout and, once closing, the flush deadline.
                while !Task.isCancelled, let wait = await connection.tickLiveness() {
                    try? await Task.sleep(for: max(wait, .milliseconds(1)))
                }
            }
            await started(connection)
            do {
                // Records that arrived together with the last handshake message come first.
                var messages = try await connection.open([])
                reading: while true {
                    for message in messages {
                        // A revoke or close may have happened while the previous message was handled.
                        guard connection.isOpenNow else { break reading }
                        switch message {
                        case .ping(let id, let sentAt):
                            guard await connection.mayReply() else { continue }
                            try? await connection.send(.pong(id: id, pingSentAtMicros: sentAt, receivedAtMicros: WireClock.monotonicMicros()))
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
                    if !messages.isEmpty { await caughtUp() }
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
            // The writer flushes a final `close`; liveness shuts the socket if that takes too long.
            await group.next()
            group.cancelAll()
            return await connection.endReason ?? .connectionLost
        }
    }
}
