/// The largest (or smallest) value seen within a sliding window of time, in constant time per
/// sample: samples that can never be the extreme again — older and not better than a newer one —
/// are dropped as they come (a monotonic queue). A file transfer acknowledges a chunk every few
/// microseconds on a fast path; scanning a window of such samples on each one cost more than the
/// transfer itself.
struct WindowedExtreme<Value: Comparable & Sendable>: Sendable {
    let window: UInt64
    /// true: the maximum; false: the minimum.
    let keepsMaximum: Bool
    /// Candidates from oldest to newest, each strictly better than every newer one.
    private var candidates: [(micros: UInt64, value: Value)] = []
    private var start = 0

    init(window: UInt64, keepsMaximum: Bool) {
        self.window = window
        self.keepsMaximum = keepsMaximum
    }

    /// Adds a sample taken at `now` and forgets what fell out of the window (the newest stays).
    mutating func add(_ value: Value, now: UInt64) {
        // Strictly dominated only: among equal values the oldest stays, as a scan would find it.
        while candidates.count > start, let last = candidates.last,
              keepsMaximum ? last.value < value : last.value > value {
            candidates.removeLast()
        }
        candidates.append((now, value))
        while start < candidates.count - 1, now &- candidates[start].micros > window { start += 1 }
        if start > 32, start * 2 > candidates.count {
            candidates.removeFirst(start)
            start = 0
        }
    }

    /// The extreme of the window and when it was seen (nil before the first sample).
    var best: (micros: UInt64, value: Value)? { candidates.count > start ? candidates[start] : nil }
}
