/// Keepalive and liveness settings of a connection.
public struct ConnectionTimings: Sendable, Equatable {
    public var keepaliveInterval: Duration
    public var deadPeerTimeout: Duration

    public init(keepaliveInterval: Duration = .seconds(5), deadPeerTimeout: Duration = .seconds(20)) {
        precondition(keepaliveInterval > .zero, "the keepalive interval must be positive")  // our configuration, validated earlier
        precondition(deadPeerTimeout > keepaliveInterval, "the dead-peer timeout must exceed the keepalive interval")
        self.keepaliveInterval = keepaliveInterval
        self.deadPeerTimeout = deadPeerTimeout
    }

    public var keepaliveIntervalMicros: UInt64 { Self.micros(keepaliveInterval) }
    public var deadPeerTimeoutMicros: UInt64 { Self.micros(deadPeerTimeout) }

    /// Whole microseconds of a non-negative duration.
    public static func micros(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, attoseconds >= 0 else { return 0 }
        return UInt64(seconds) * 1_000_000 + UInt64(attoseconds / 1_000_000_000_000)
    }
}
