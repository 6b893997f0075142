/// A token bucket: how many requests of one kind a peer may make, at a sustained rate with a
/// burst, so a peer that floods (pings, input, messages that each cost a reply) costs the host a
/// bounded amount of work and queued replies however fast it sends. Pure: the caller passes "now"
/// (monotonic microseconds).
public struct RequestBudget: Sendable, Equatable {
    public let perSecond: Double
    public let burst: Double
    private var tokens: Double
    private var lastMicros: UInt64?
    /// Requests refused since the last `takeRefusals()`.
    public private(set) var refused = 0

    public init(perSecond: Double, burst: Double) {
        precondition(perSecond > 0 && burst >= 1, "a budget needs a positive rate and room for one request")  // our constants
        self.perSecond = perSecond
        self.burst = burst
        tokens = burst
    }

    /// Whether one more request fits now; takes a token if so, counts a refusal if not.
    public mutating func allow(nowMicros now: UInt64) -> Bool {
        if let last = lastMicros, now > last {
            tokens = min(burst, tokens + Double(now - last) * perSecond / 1_000_000)
        }
        lastMicros = max(lastMicros ?? now, now)
        guard tokens >= 1 else {
            refused += 1
            return false
        }
        tokens -= 1
        return true
    }

    /// The refusals counted so far, resetting the count (for one log line or notice per period).
    public mutating func takeRefusals() -> Int {
        defer { refused = 0 }
        return refused
    }
}
