/// Drops rendezvous offers that are stale or repeated: a timestamp window and a cache of the
/// nonces seen inside it. A nonce need only be remembered while its timestamp is inside the
/// window, so the cache holds at most what arrived in one window, and is capped besides.
/// Only authenticated offers reach it, so a stranger cannot fill it.
public struct ReplayGuard: Sendable {
    public let maxSkewMicros: UInt64
    public let capacity: Int
    /// nonce → the time after which its offer is stale anyway.
    private var seen: [[UInt8]: UInt64] = [:]

    public init(maxSkewMicros: UInt64, capacity: Int = 4096) {
        self.maxSkewMicros = maxSkewMicros
        self.capacity = capacity
    }

    public var count: Int { seen.count }

    /// Admits an offer once; throws `.replayed` for one outside the window, seen before, or when
    /// the cache is full of live entries (a paired peer flooding offers).
    public mutating func admit(nonce: [UInt8], timestampMicros: UInt64, nowMicros: UInt64) throws(RendezvousError) {
        let skew = timestampMicros > nowMicros ? timestampMicros - nowMicros : nowMicros - timestampMicros
        guard skew <= maxSkewMicros else {
            throw RendezvousError(.replayed, "an offer's clock is \(skew / 1_000_000) s away from this host's (limit \(maxSkewMicros / 1_000_000) s)")
        }
        if seen.count >= capacity { seen = seen.filter { $0.value >= nowMicros } }
        guard seen[nonce] == nil else { throw RendezvousError(.replayed, "an offer arrived a second time (a replay)") }
        guard seen.count < capacity else { throw RendezvousError(.replayed, "too many offers inside the clock window; dropping") }
        seen[nonce] = timestampMicros &+ maxSkewMicros
    }
}
