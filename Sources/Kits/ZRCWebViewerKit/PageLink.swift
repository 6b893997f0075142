import Logging
import NIOCore
import NIOWebSocket
import Synchronization
public import ZRCWebViewer

/// One open page: its messages in order, and a way to send it updates. Created by the server for
/// each WebSocket that passed the gate; ends when either side closes.
public final class PageLink: Sendable {
    /// The page's messages, decoded. A page that sends what does not parse is closed; one that
    /// sends faster than the viewer takes them (1024 waiting) too, rather than losing a key's release.
    public let messages: AsyncStream<PageMessage>
    private let messageSink: AsyncStream<PageMessage>.Continuation
    private let outbox: AsyncStream<Outgoing>.Continuation
    private let outgoing: AsyncStream<Outgoing>
    private let closed = Atomic<Bool>(false)
    let logger: Logger

    enum Outgoing: Sendable {
        case update([UInt8])
        case close(code: WebSocketErrorCode)
    }

    static let maximumWaitingMessages = 1024

    init(logger: Logger) {
        (messages, messageSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingOldest(Self.maximumWaitingMessages))
        (outgoing, outbox) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
        self.logger = logger
    }

    /// Queues an update for the page. The viewer keeps at most a few frames outstanding, so the
    /// queue stays short without a bound of its own.
    public func send(_ update: PageUpdate) {
        guard !closed.load(ordering: .relaxed) else { return }
        outbox.yield(.update(update.encoded))
    }

    /// Sends what is queued, then closes the socket.
    public func close() {
        guard !closed.exchange(true, ordering: .relaxed) else { return }
        outbox.yield(.close(code: .normalClosure))
        outbox.finish()
    }

    public var isClosed: Bool { closed.load(ordering: .relaxed) }

    /// Runs a WebSocket until it ends. `accept` gets the link first and returns at once (the
    /// viewer reads `messages` in a task of its own).
    static func run(_ channel: NIOAsyncChannel<WebSocketFrame, WebSocketFrame>, logger: Logger,
                    accept: @Sendable (PageLink) async -> Void) async {
        let link = PageLink(logger: logger)
        do {
            try await channel.executeThenClose { inbound, outbound in
                await accept(link)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await link.write(outbound) }
                    group.addTask { try await link.read(inbound) }
                    // The first of reader and writer to finish ends the socket.
                    _ = try await group.next()
                    link.close()
                    link.messageSink.finish()
                    group.cancelAll()
                }
            }
        } catch {
            logger.debug("page socket ended: \(error)")
        }
        link.close()
        link.messageSink.finish()
    }

    private func write(_ outbound: NIOAsyncChannelOutboundWriter<WebSocketFrame>) async throws {
        for await item in outgoing {
            switch item {
            case .update(let bytes):
                try await outbound.write(WebSocketFrame(fin: true, opcode: .binary, data: ByteBuffer(bytes: bytes)))
            case .close(let code):
                var data = ByteBuffer()
                data.write(webSocketErrorCode: code)
                try? await outbound.write(WebSocketFrame(fin: true, opcode: .connectionClose, data: data))
                return
            }
        }
    }

    private func read(_ inbound: NIOAsyncChannelInboundStream<WebSocketFrame>) async throws {
        for try await frame in inbound {
            switch frame.opcode {
            case .binary:
                let bytes = Array(frame.unmaskedData.readableBytesView)
                let message: PageMessage
                do {
                    message = try PageMessage.decode(bytes)
                } catch {
                    logger.notice("browser viewer: closing a page that sent a malformed message: \(error)")
                    return
                }
                if case .dropped = messageSink.yield(message) {
                    logger.notice("browser viewer: closing a page that sent more than \(Self.maximumWaitingMessages) messages ahead")
                    return
                }
            case .connectionClose:
                return
            case .ping, .pong:
                continue  // browsers do not ping; nothing here depends on it
            case .text:
                logger.notice("browser viewer: closing a page that sent text (the page speaks binary)")
                return
            default:
                continue
            }
        }
    }
}
