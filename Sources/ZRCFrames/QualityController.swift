/// Adapts motion quality and frame pacing to how fast the controller keeps up.
///
/// The signal is the time from sending a frame to its acknowledgement: it contains the network
/// round trip, the transfer of the frame's bytes and the controller's decode, i.e. exactly the
/// backlog a frame adds. Updates faster than `target` raise the quality step by step; slower ones
/// lower it and space frames out, so a slow link gets smaller, fewer frames instead of a queue.
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

    /// How long to wait after an acknowledgement before the next frame: nothing while the link
    /// keeps up, up to the backlog itself when it does not (at most 4 frames per target period lost).
    public var pacingMicros: UInt64 {
        guard let averageMicros, averageMicros > Double(targetMicros) else { return 0 }
        return UInt64(min(averageMicros - Double(targetMicros), Double(targetMicros) * 4))
    }
}
