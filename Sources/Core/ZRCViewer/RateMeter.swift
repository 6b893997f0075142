/// Events (frames, bytes) per second over a sliding window, from timestamps the caller supplies.
public struct RateMeter: Sendable {
    public let windowMicros: UInt64
    private var samples: [(micros: UInt64, amount: Double)] = []

    public init(windowMicros: UInt64 = 1_000_000) {
        self.windowMicros = windowMicros
    }

    public mutating func record(_ amount: Double = 1, at micros: UInt64) {
        samples.append((micros, amount))
        trim(now: micros)
    }

    /// The rate over the window ending at `now`.
    public mutating func rate(now: UInt64) -> Double {
        trim(now: now)
        return samples.reduce(0) { $0 + $1.amount } * 1_000_000 / Double(windowMicros)
    }

    private mutating func trim(now: UInt64) {
        let start = now > windowMicros ? now - windowMicros : 0
        if let keep = samples.firstIndex(where: { $0.micros > start }) {
            samples.removeFirst(keep)
        } else {
            samples.removeAll()
        }
    }
}
