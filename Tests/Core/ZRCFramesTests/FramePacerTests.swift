import Testing
import ZRCFrames

/// The pacer against a simulated path: a bottleneck of a given rate and a fixed propagation delay,
/// frames queued behind each other exactly as a FIFO link would.
@Suite struct FramePacerTests {
    struct Path {
        let bytesPerSecond: Double
        let oneWayMicros: UInt64
        var busyUntil: UInt64 = 0

        /// When a frame of `bytes` sent at `now` has been delivered and its acknowledgement is back.
        mutating func acknowledgement(bytes: Int, sentAt now: UInt64) -> UInt64 {
            let start = max(now, busyUntil)
            busyUntil = start + UInt64(Double(bytes) / bytesPerSecond * 1_000_000)
            return busyUntil + 2 * oneWayMicros
        }
    }

    /// Sends frames whenever the pacer and a two-frame window allow, for `count` frames.
    static func run(path: inout Path, frameBytes: Int, count: Int) -> (pacer: FramePacer, queueAtEnd: UInt64) {
        var pacer = FramePacer()

        var now: UInt64 = 1_000
        var pending: [(id: UInt64, ackAt: UInt64)] = []
        var id: UInt64 = 0
        var queueAtEnd: UInt64 = 0
        while id < UInt64(count) {
            // Deliver due acknowledgements, then send if allowed.
            while let first = pending.first, first.ackAt <= now {
                pacer.acknowledged(frameID: first.id, now: first.ackAt)
                pending.removeFirst()
            }
            // The host's round-trip probe: a ping while nothing is in flight sees the bare path.
            if pending.isEmpty, pacer.wantsRoundTripProbe(now: now) {
                now += 2 * path.oneWayMicros
                pacer.observeRoundTrip(micros: 2 * path.oneWayMicros, now: now)
            }
            if pacer.maySend {
                id += 1
                pacer.sent(frameID: id, bytes: frameBytes, now: now)
                queueAtEnd = path.busyUntil > now ? path.busyUntil - now : 0
                pending.append((id, path.acknowledgement(bytes: frameBytes, sentAt: now)))
            }
            now = max(now + 1, pending.first?.ackAt ?? now + 1)
        }
        return (pacer, queueAtEnd)
    }

    /// Paths where full-screen frames fill the link (a frame takes longer than the path holds):
    /// dsl, wifi, lte and far, with frames of a size motion has there.
    @Test(arguments: [(1_250_000.0, 20_000 as UInt64, 60_000), (6_250_000, 5_000, 60_000), (625_000, 40_000, 60_000),
                      (2_500_000, 100_000, 600_000)])
    func theRateIsFoundAndNoStandingQueueBuilds(rate: Double, oneWay: UInt64, frameBytes: Int) {
        var path = Path(bytesPerSecond: rate, oneWayMicros: oneWay)
        let (pacer, queue) = Self.run(path: &path, frameBytes: frameBytes, count: 60)
        let estimate = try! #require(pacer.deliveryRate)
        #expect(estimate >= rate * 0.8 && estimate <= rate * 1.05, "estimated \(estimate) B/s of \(rate)")
        #expect(pacer.minimumRoundTripMicros! >= 2 * oneWay)
        // Sent when the path has room, a frame finds at most the one before it still crossing.
        let frameTime = UInt64(Double(frameBytes) / rate * 1_000_000)
        #expect(queue <= frameTime + 1, "\(queue) µs of queue when a frame takes \(frameTime) µs")
        #expect(pacer.queueMicros < Double(frameTime) / 2, "queueing estimate \(pacer.queueMicros) µs")
    }

    /// A long path that small frames do not fill: several frames fly at once, none waits.
    @Test func aLongPathCarriesSeveralFramesWithoutQueueing() {
        var path = Path(bytesPerSecond: 2_500_000, oneWayMicros: 100_000)
        let (pacer, queue) = Self.run(path: &path, frameBytes: 20_000, count: 40)
        #expect(queue <= 8_000 + 1, "a 20 kB frame takes 8 ms; \(queue) µs waited")
        #expect(pacer.deliveryRate.map { $0 <= 2_500_000 * 1.05 } ?? true, "never above the path")
    }

    @Test func smallFramesGiveNoRateAndAreNotHeldBack() {
        var path = Path(bytesPerSecond: 1_250_000, oneWayMicros: 20_000)
        let (pacer, _) = Self.run(path: &path, frameBytes: 300, count: 30)
        #expect(pacer.deliveryRate == nil)
        #expect(pacer.maySend)
    }
}
