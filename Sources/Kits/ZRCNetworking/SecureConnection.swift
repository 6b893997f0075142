public import Logging
import NIOCore
import Synchronization
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
    private let outbox: AsyncStream<ByteBuffer>.Continuation
    private let nioChannel: any Channel
    /// Keepalives, the dead-peer timeout and the close flush: the sans-IO machine this actor drives.
    private var liveness: ConnectionLiveness
    /// Encrypted bytes handed to the socket so far, and messages sent of each kind that matters
    /// to a listing (frame updates).
    public private(set) var sentBytes = 0
    public private(set) var sentFrameUpdates = 0
    /// Encrypted bytes received so far.
    public private(set) var receivedBytes = 0
    /// The newest keepalive round trip, measured with this side's monotonic clock.
    public var roundTripMicros: UInt64? { liveness.roundTripMicros }
    private var closing = false
    /// Bytes sealed but not yet written: a peer that stops reading must not make this grow forever.
    /// Frames are latest-wins with at most two in flight, so the queue only ever holds those and a
    /// few small replies: 16 MiB is room for two very large frames, and a peer that lets more pile
    /// up has stopped reading.
    public private(set) var queuedBytes = 0
    public static let maximumQueuedBytes = 16 << 20
    /// Replies a peer can make this side send (pongs): bounded, so a flood of pings from a peer
    /// that never reads costs neither memory nor the other connections' time.
    private var replyBudget = RequestBudget(perSecond: 100, burst: 200)
    /// Why the connection ended, as seen from this side; set once.
    public private(set) var endReason: ConnectionEnd?

    init(channel: consuming SecureChannel, outbox: AsyncStream<ByteBuffer>.Continuation, nioChannel: any Channel,
         remoteAddress: String, timings: ConnectionTimings, logger: Logger) {
        liveness = ConnectionLiveness(timings: timings, nowMicros: WireClock.monotonicMicros())
        self.channel = channel
        self.outbox = outbox
        self.nioChannel = nioChannel
        self.remoteAddress = remoteAddress
        self.logger = logger
    }

    public var isOpen: Bool { !closing }

    /// `isOpen`, read without a trip into the actor (the reading loop asks before every message).
    nonisolated var isOpenNow: Bool { open.load(ordering: .acquiring) }
    private nonisolated let open = Atomic<Bool>(true)

    /// Encrypts and queues a message. Throws once the connection is closing.
    public func send(_ message: ZRCMessage) throws(SessionError) {
        _ = try sendCounted(message)
    }

    /// `send`, returning the bytes the message takes on the wire (a frame's cost for the pacer,
    /// without another trip into this actor to read `sentBytes`).
    public func sendCounted(_ message: ZRCMessage) throws(SessionError) -> Int {
        try sealAndQueue(CollectionOfOne(message))
    }

    /// Encrypts `messages` in order into one buffer and queues it: one write for them all (a file
    /// transfer's chunks go several at once). Returns the bytes they take on the wire.
    public func sendAll(_ messages: ArraySlice<ZRCMessage>) throws(SessionError) -> Int {
        try sealAndQueue(messages)
    }

    /// `sendAll` for an array.
    public func sendAll(_ messages: [ZRCMessage]) throws(SessionError) -> Int {
        try sealAndQueue(messages[...])
    }

    /// `sendAll`'s work, generic only inside this module (where each use is specialized: a generic
    /// public entry point ran unspecialized from other modules, looking up type metadata for
    /// every file chunk).
    private func sealAndQueue(_ messages: some Collection<ZRCMessage>) throws(SessionError) -> Int {
        guard !closing else { throw SessionError(.protocolViolation, "the connection is closed") }
        // Sealed straight into the buffer the socket writes from (each message's one copy after
        // encoding; the records are encrypted there in place).
        let encoded = messages.map { $0.encodedParts() }
        let length = encoded.reduce(0) { $0 + channel.sealedLength(ofMessageLength: $1.head.count + $1.tail.count) }
        var bytes = nioChannel.allocator.buffer(capacity: length)
        var failure: SessionError?
        for message in encoded where failure == nil {
            let sealed = channel.sealedLength(ofMessageLength: message.head.count + message.tail.count)
            bytes.writeWithUnsafeMutableBytes(minimumWritableBytes: sealed) { output in
                do throws(SessionError) {
                    return try channel.seal(encoded: message.head, tail: message.tail, into: output)
                } catch {
                    failure = error
                    return 0
                }
            }
        }
        if let failure {
            end(.local(reason: .internalError, text: failure.message))
            throw failure
        }
        queuedBytes += bytes.readableBytes
        guard queuedBytes <= Self.maximumQueuedBytes else {
            logger.warning("closing: the peer stopped reading (\(queuedBytes) bytes queued)")
            end(.local(reason: .timeout, text: "the peer stopped reading"))
            abort()
            throw SessionError(.protocolViolation, "the peer stopped reading; the connection was closed")
        }
        let count = bytes.readableBytes
        outbox.yield(bytes)
        sentBytes += count
        for message in messages {
            switch message {
            case .frameUpdate, .compactFrame: sentFrameUpdates += 1
            default: break
            }
        }
        liveness.sent(atMicros: WireClock.monotonicMicros())
        return count
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

    /// Whether a reply to the peer's request may go now; a flood's excess is dropped unanswered.
    func mayReply() -> Bool {
        let allowed = replyBudget.allow(nowMicros: WireClock.monotonicMicros())
        if !allowed, replyBudget.refused == 1 {
            logger.warning("the peer sends requests faster than \(Int(replyBudget.perSecond))/s; ignoring the excess")
        }
        return allowed
    }

    /// A pong to one of our keepalive pings (sent with the monotonic clock) gives the round trip.
    func pongArrived(pingSentAtMicros: UInt64) {
        liveness.pongArrived(pingSentAtMicros: pingSentAtMicros, nowMicros: WireClock.monotonicMicros())
    }

    /// Decrypts what arrived. Only authenticated records count as hearing from the peer.
    func open(_ bytes: some Collection<UInt8>) throws(SessionError) -> [ZRCMessage] {
        receivedBytes += bytes.count
        let before = channel.authenticatedRecords
        let messages = try channel.open(bytes)
        if channel.authenticatedRecords != before {
            liveness.heard(atMicros: WireClock.monotonicMicros(), receivingMessage: channel.isReceivingMessage)
        }
        return messages
    }

    /// Performs what liveness says is due now (a keepalive, closing a silent peer, forcing the
    /// socket shut after the close flush) and returns how long to wait before asking again, or nil
    /// once the connection is gone. The clock is read here, inside the actor, so no event can
    /// slip in between reading "now" and comparing it.
    func tickLiveness() -> Duration? {
        let now = WireClock.monotonicMicros()
        for action in liveness.tick(nowMicros: now) {
            switch action {
            case .sendPing(let id, let sentAt):
                try? send(.ping(id: id, sentAtMicros: sentAt))
            case .closeSilentPeer(let text):
                close(reason: .timeout, text: text, recording: .peerTimedOut)
            case .closeStalledMessage(let text):
                logger.warning("closing: \(text)")
                close(reason: .protocolError, text: text)
            case .abort:
                abort()
            }
        }
        guard let deadline = liveness.nextDeadlineMicros else { return nil }
        return .microseconds(Int64(clamping: ConnectionLiveness.elapsed(from: now, to: deadline)))
    }

    /// Marks the connection ended; the writer flushes what is queued, then the socket closes.
    func end(_ reason: ConnectionEnd) {
        if endReason == nil { endReason = reason }
        guard !closing else { return }
        closing = true
        open.store(false, ordering: .releasing)
        liveness.closing(nowMicros: WireClock.monotonicMicros())
        outbox.finish()
    }

    /// Forces the socket shut, e.g. when the writer is stuck behind a peer that stopped reading.
    func abort() {
        liveness.closed()
        nioChannel.close(promise: nil)
    }
}
