/// Adapts motion quality to how fast the controller keeps up (pacing is `FramePacer`'s).
///
/// The signal is the time from sending a frame to its acknowledgement: it contains the network
/// round trip, the transfer of the frame's bytes and the controller's decode, i.e. exactly the
/// backlog a frame adds. Updates faster than `target` raise the quality step by step; slower ones
/// lower it, so a slow link gets smaller frames.
public struct QualityController: Sendable {
    public let qualityRange: ClosedRange<Int>
    public let targetMicros: UInt64
    public private(set) var quality: Int
    /// Smoothed send-to-acknowledgement time.
    public private(set) var averageMicros: Double?

    public init(qualityRange: ClosedRange<Int> = 35...80, start: Int = 70, targetMicros: UInt64 = 33_000) {
        self.qualityRange = qualityRange
        self.targetMicros = targetMicros
        quality = min(max(start, qualityRange.lowerBound), qualityRange.upperBound)
    }

    /// Records one frame's send-to-acknowledgement time.
    public mutating func frameAcknowledged(afterMicros elapsed: UInt64) {
        let sample = Double(elapsed)
        let average = averageMicros.map { $0 * 0.8 + sample * 0.2 } ?? sample
        averageMicros = average
        if average > Double(targetMicros) * 1.5 {
            quality = max(qualityRange.lowerBound, quality - 5)
        } else if average < Double(targetMicros) * 0.5 {
            quality = min(qualityRange.upperBound, quality + 2)
        }
    }
}
