public import Logging
import NIOCore
public import ZRCProtocol

/// One established, encrypted connection: the single owner of its `SecureChannel`.
///
/// Sending seals and queues in one actor step, so records leave in nonce order whichever task
/// sends; a single writer task drains the queue to the socket. Reading is done by the run loop
/// (`SecureConnectionLoop`), which feeds bytes through `open`.
public actor SecureConnection {
    public nonisolated let remoteAddress: String
    public nonisolated let logger: Logger
    private var channel: SecureChannel
    private let outbox: AsyncStream<[UInt8]>.Continuation
    private let nioChannel: any Channel
    private(set) var lastReceivedMicros = WireClock.monotonicMicros()
    private(set) var lastSentMicros = WireClock.monotonicMicros()
    /// Encrypted bytes handed to the socket so far, and messages sent of each kind that matters
    /// to a listing (frame updates).
    public private(set) var sentBytes = 0
    public private(set) var sentFrameUpdates = 0
    /// Encrypted bytes received so far.
    public private(set) var receivedBytes = 0
    /// The newest keepalive round trip, measured with this side's monotonic clock.
    public private(set) var roundTripMicros: UInt64?
    private var closing = false
    /// Bytes sealed but not yet written: a peer that stops reading must not make this grow forever.
    private var queuedBytes = 0
    public static let maximumQueuedBytes = 64 << 20
    /// Why the connection ended, as seen from this side; set once.
    public private(set) var endReason: ConnectionEnd?

    init(channel: consuming SecureChannel, outbox: AsyncStream<[UInt8]>.Continuation, nioChannel: any Channel,
         remoteAddress: String, logger: Logger) {
        self.channel = channel
        self.outbox = outbox
        self.nioChannel = nioChannel
        self.remoteAddress = remoteAddress
        self.logger = logger
    }

    public var isOpen: Bool { !closing }

    /// Encrypts and queues a message. Throws once the connection is closing.
    public func send(_ message: ZRCMessage) throws(SessionError) {
        guard !closing else { throw SessionError(.protocolViolation, "the connection is closed") }
        let bytes: [UInt8]
        do {
            bytes = try channel.seal(message)
        } catch {
            end(.local(reason: .internalError, text: error.message))
            throw error
        }
        queuedBytes += bytes.count
        guard queuedBytes <= Self.maximumQueuedBytes else {
            logger.warning("closing: the peer stopped reading (\(queuedBytes) bytes queued)")
            end(.local(reason: .timeout, text: "the peer stopped reading"))
            abort()
            throw SessionError(.protocolViolation, "the peer stopped reading; the connection was closed")
        }
        outbox.yield(bytes)
        sentBytes += bytes.count
        if case .frameUpdate = message { sentFrameUpdates += 1 }
        lastSentMicros = WireClock.monotonicMicros()
    }

    /// Sends `close(reason, text)` and closes the connection after it is written.
    /// `recording` overrides how the end is reported locally (e.g. `.peerTimedOut`).
    public func close(reason: CloseReason, text: String, recording: ConnectionEnd? = nil) {
        guard !closing else { return }
        if (try? send(.close(reason: reason, text: text))) != nil {
            logger.info("closing: \(reason) \(text)")
        }
        end(recording ?? .local(reason: reason, text: text))
    }

    func didWrite(_ count: Int) { queuedBytes -= count }

    /// A pong to one of our keepalive pings (sent with the monotonic clock) gives the round trip.
    func pongArrived(pingSentAtMicros: UInt64) {
        let now = WireClock.monotonicMicros()
        if now >= pingSentAtMicros, now - pingSentAtMicros < 60_000_000 { roundTripMicros = now - pingSentAtMicros }
    }

    func open(_ bytes: some Collection<UInt8>) throws(SessionError) -> [ZRCMessage] {
        lastReceivedMicros = WireClock.monotonicMicros()
        receivedBytes += bytes.count
        return try channel.open(bytes)
    }

    /// Marks the connection ended; the writer flushes what is queued, then the socket closes.
    func end(_ reason: ConnectionEnd) {
        if endReason == nil { endReason = reason }
        guard !closing else { return }
        closing = true
        outbox.finish()
    }

    /// Forces the socket shut, e.g. when the writer is stuck behind a peer that stopped reading.
    func abort() {
        nioChannel.close(promise: nil)
    }
}

/// How a connection ended.
public enum ConnectionEnd: Sendable, Equatable, CustomStringConvertible {
    /// We closed it (sent `close`).
    case local(reason: CloseReason, text: String)
    /// The peer sent `close`.
    case remote(reason: CloseReason, text: String)
    /// Nothing heard from the peer within the dead-peer timeout.
    case peerTimedOut
    /// The TCP connection went away without a `close`.
    case connectionLost
    /// The peer broke the protocol or a record failed authentication.
    case failed(SessionError)

    public var description: String {
        switch self {
        case .local(let reason, let text): "closed here (\(reason)\(text.isEmpty ? "" : ": \(text)"))"
        case .remote(let reason, let text):
            "closed by the peer (\(reason)\(text.isEmpty ? "" : ": \(TerminalSafeText.sanitized(text))"))"
        case .peerTimedOut: "the peer stopped answering"
        case .connectionLost: "the connection was lost"
        case .failed(let error): "protocol failure: \(error.message)"
        }
    }

    public static func == (lhs: ConnectionEnd, rhs: ConnectionEnd) -> Bool { lhs.description == rhs.description }
}
