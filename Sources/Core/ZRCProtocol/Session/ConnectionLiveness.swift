/// Whether an established connection is alive, sans-IO: events and "now" in, actions out.
///
/// It decides when to send a keepalive ping, when the peer counts as dead, what a pong says about
/// the round trip, and how long a closing connection may take to flush its `close` before the
/// socket is forced shut. The driver (`SecureConnectionLoop`) feeds it the monotonic clock and
/// performs the actions; tests feed it a fake clock.
///
/// What counts as "heard from the peer" is an authenticated transport record, never bytes alone:
/// a peer trickling a partial record cannot keep a connection alive.
///
/// Every elapsed time is computed saturating at zero: an event stamped after the "now" of a later
/// tick (the driver read the clock, then awaited, and a record arrived meanwhile) is an elapsed
/// time of zero, never a wrapped-around huge one.
public struct ConnectionLiveness: Sendable {
    public enum State: Sendable, Equatable {
        case open(Open)
        /// We sent `close` (or the peer did); the socket goes at `abortAtMicros` at the latest.
        case closing(abortAtMicros: UInt64)
        case closed
    }

    public struct Open: Sendable, Equatable {
        public var lastHeardMicros: UInt64
        public var lastSentMicros: UInt64
        public var lastPingID: UInt64
        /// When the message now being reassembled began to arrive, if one is.
        public var messageStartedMicros: UInt64?
    }

    public enum Action: Sendable, Equatable {
        case sendPing(id: UInt64, sentAtMicros: UInt64)
        /// Nothing was heard for the dead-peer timeout: close with `.timeout` and record a timed-out peer.
        case closeSilentPeer(text: String)
        /// A fragmented message has been arriving for longer than `messageDeadlineMicros`: close
        /// with `.protocolError` (a peer trickling fragments that never end holds memory and the
        /// connection for nothing).
        case closeStalledMessage(text: String)
        /// The flush time after a close ran out: shut the socket.
        case abort
    }

    public let timings: ConnectionTimings
    public private(set) var state: State
    /// The newest keepalive round trip.
    public private(set) var roundTripMicros: UInt64?

    /// How long a closing connection may take to flush its last records.
    public static let closeFlushMicros: UInt64 = 2_000_000
    /// How long one fragmented message may take to arrive completely. Hosts send frames of at
    /// most a few MiB and small messages otherwise; 60 s leaves room for a slow link.
    public static let messageDeadlineMicros: UInt64 = 60_000_000
    /// Pongs older than this are not believed as round trips (a pong to a ping we never sent).
    static let maximumRoundTripMicros: UInt64 = 60_000_000

    public init(timings: ConnectionTimings, nowMicros: UInt64) {
        self.timings = timings
        state = .open(Open(lastHeardMicros: nowMicros, lastSentMicros: nowMicros, lastPingID: 0, messageStartedMicros: nil))
    }

    /// `later − earlier`, or 0 when `earlier` is the later of the two.
    public static func elapsed(from earlier: UInt64, to later: UInt64) -> UInt64 {
        later > earlier ? later - earlier : 0
    }

    /// An authenticated record arrived; `receivingMessage`: a fragmented message is still
    /// incomplete after it.
    public mutating func heard(atMicros now: UInt64, receivingMessage: Bool = false) {
        switch state {
        case .open(var open):
            open.lastHeardMicros = max(open.lastHeardMicros, now)
            open.messageStartedMicros = receivingMessage ? open.messageStartedMicros ?? now : nil
            state = .open(open)
        case .closing, .closed:
            break
        }
    }

    /// We sent a record.
    public mutating func sent(atMicros now: UInt64) {
        switch state {
        case .open(var open):
            open.lastSentMicros = max(open.lastSentMicros, now)
            state = .open(open)
        case .closing, .closed:
            break
        }
    }

    /// A pong echoing the monotonic time of one of our pings.
    public mutating func pongArrived(pingSentAtMicros: UInt64, nowMicros now: UInt64) {
        guard now >= pingSentAtMicros else { return }
        let roundTrip = now - pingSentAtMicros
        if roundTrip < Self.maximumRoundTripMicros { roundTripMicros = roundTrip }
    }

    /// Either side began closing: the socket may stay for the flush time, no longer.
    public mutating func closing(nowMicros now: UInt64) {
        switch state {
        case .open: state = .closing(abortAtMicros: now &+ Self.closeFlushMicros)
        case .closing, .closed: break
        }
    }

    /// The socket is gone.
    public mutating func closed() {
        state = .closed
    }

    /// What is due at `now`.
    public mutating func tick(nowMicros now: UInt64) -> [Action] {
        switch state {
        case .open(var open):
            if Self.elapsed(from: open.lastHeardMicros, to: now) > timings.deadPeerTimeoutMicros {
                state = .closing(abortAtMicros: now &+ Self.closeFlushMicros)
                return [.closeSilentPeer(text: "nothing received for \(timings.deadPeerTimeout)")]
            }
            if let started = open.messageStartedMicros, Self.elapsed(from: started, to: now) > Self.messageDeadlineMicros {
                state = .closing(abortAtMicros: now &+ Self.closeFlushMicros)
                return [.closeStalledMessage(text: "a message took more than \(Self.messageDeadlineMicros / 1_000_000) s to arrive")]
            }
            guard Self.elapsed(from: open.lastSentMicros, to: now) >= timings.keepaliveIntervalMicros else { return [] }
            open.lastPingID &+= 1
            open.lastSentMicros = now
            state = .open(open)
            return [.sendPing(id: open.lastPingID, sentAtMicros: now)]
        case .closing(let abortAt):
            guard now >= abortAt else { return [] }
            state = .closed
            return [.abort]
        case .closed:
            return []
        }
    }

    /// When `tick` next has something to do, on the same clock; nil once closed.
    public var nextDeadlineMicros: UInt64? {
        switch state {
        case .open(let open):
            min(open.lastHeardMicros &+ timings.deadPeerTimeoutMicros &+ 1, open.lastSentMicros &+ timings.keepaliveIntervalMicros,
                open.messageStartedMicros.map { $0 &+ Self.messageDeadlineMicros &+ 1 } ?? .max)
        case .closing(let abortAt):
            abortAt
        case .closed:
            nil
        }
    }
}
