/// Spreads file chunks over time on a slow path, so they leave at about the path's rate instead
/// of in a burst whenever an acknowledgement frees room (sans-IO: every call takes "now").
///
/// The window (`FramePacer.fillerRoom`) bounds what is in flight; it does not say when. On the dsl
/// laboratory path (10 Mbit/s) each acknowledgement covered about two chunks, so the sender wrote
/// 32 KB at once, and bursts of up to 60 KB sat in the socket ahead of the next click (sampled
/// with `ss` and the pacer's own figures during `zrc-bench files-lab`). Paced a little faster
/// than the path delivers (`gain`), the window still sets the pace on average — the rate
/// estimate, measured from what the window lets through, never decays — and a click waits
/// behind about one chunk. A path that takes a 16 KiB chunk in under `pacedChunkMicros` (one
/// faster than about 130 Mbit/s) is not paced: there a burst drains before a click would
/// notice, and a sleep per chunk would cost more than it saves.
public struct FillerPacing: Sendable {
    /// Pace relative to the measured delivery rate.
    public static let gain = 1.25
    /// Paths where a full chunk (`fullChunkBytes`) crosses faster than this are not paced (µs).
    public static let pacedChunkMicros = 1_000.0
    /// The chunk a path's speed is judged by: the largest the protocol's receivers take.
    public static let fullChunkBytes = 16 * 1024
    /// A chunk may leave this early, so a schedule that fell behind by a timer's wake-up does not
    /// cost the path a chunk's time (µs).
    public static let slackMicros: UInt64 = 1_000

    /// When the schedule next lets a chunk go (µs, monotonic); zero before the first.
    private var due: UInt64 = 0

    public init() {}

    /// When a chunk of `bytes` may leave: `now` unless the path is slow and the schedule is ahead.
    /// `rate` is the path's delivery rate in bytes per second (nil: unknown, so unpaced).
    public func departure(bytes: Int, rate: Double?, now: UInt64) -> UInt64 {
        guard Self.interval(bytes: bytes, rate: rate) != nil, due > now &+ Self.slackMicros else { return now }
        return due &- Self.slackMicros
    }

    /// A chunk of `bytes` left at `now`.
    public mutating func sent(bytes: Int, rate: Double?, now: UInt64) {
        guard let interval = Self.interval(bytes: bytes, rate: rate) else {
            due = now
            return
        }
        // After an idle moment the schedule restarts from now: idle time earns no burst.
        due = max(due, now) &+ UInt64(interval)
    }

    /// Chunks on a paced path at most: a click behind the chunk being sent waits for the rest of
    /// it, and 8 KiB cross a 10 Mbit/s path in 6.5 ms (16 KiB in 13).
    public static let pacedChunkBytes = 8 * 1024

    /// The data bytes per chunk to send now: `limit` (what the receiver takes), or less on a path
    /// slow enough to be paced.
    public static func chunkBytes(limit: Int, rate: Double?) -> Int {
        guard limit > pacedChunkBytes, paces(rate: rate) else { return limit }
        return pacedChunkBytes
    }

    /// Whether a path delivering `rate` bytes per second is slow enough to pace (nil: unknown).
    public static func paces(rate: Double?) -> Bool {
        guard let rate, rate > 0 else { return false }
        return Double(fullChunkBytes) / rate * 1_000_000 >= pacedChunkMicros
    }

    /// How long `bytes` take at the paced rate (µs); nil when the path is unknown or fast.
    static func interval(bytes: Int, rate: Double?) -> Double? {
        guard let rate, paces(rate: rate) else { return nil }
        return Double(bytes) / rate * 1_000_000 / gain
    }
}
