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

    /// Sends frames whenever the pacer allows, for `count` frames.
    static func run(path: inout Path, frameBytes: Int, count: Int) -> (pacer: FramePacer, queueAtEnd: UInt64) {
        let run = run(path: &path, frameBytes: { _ in frameBytes }, count: count)
        return (run.pacer, run.queueAtEnd)
    }

    /// Sends frames whenever the pacer allows, for `count` frames, each of the size `frameBytes`
    /// gives for the pacer's state then; also, over the last half of the frames, the largest queue
    /// a frame found and the bytes acknowledged and the time they took.
    static func run(path: inout Path, frameBytes: (FramePacer) -> Int, count: Int)
        -> (pacer: FramePacer, queueAtEnd: UInt64, queueMax: UInt64, lateBytes: Int, lateMicros: UInt64)
    {
        var pacer = FramePacer()
        var queueMax: UInt64 = 0
        var late: (bytes: Int, start: UInt64?, end: UInt64) = (0, nil, 0)

        var now: UInt64 = 1_000
        var pending: [(id: UInt64, bytes: Int, ackAt: UInt64)] = []
        var id: UInt64 = 0
        var queueAtEnd: UInt64 = 0
        while id < UInt64(count) {
            // Deliver due acknowledgements, then send if allowed.
            while let first = pending.first, first.ackAt <= now {
                pacer.acknowledged(frameID: first.id, now: first.ackAt)
                if first.id > UInt64(count / 2) {
                    if late.start == nil { late.start = first.ackAt } else { late.bytes += first.bytes }
                    late.end = first.ackAt
                }
                pending.removeFirst()
            }
            // The host's round-trip probe: a ping while nothing is in flight sees the bare path.
            if pending.isEmpty, pacer.wantsRoundTripProbe(now: now) {
                now += 2 * path.oneWayMicros
                pacer.observeRoundTrip(micros: 2 * path.oneWayMicros, now: now)
            }
            let sends = pacer.maySend
            if sends {
                id += 1
                let bytes = frameBytes(pacer)
                pacer.sent(frameID: id, bytes: bytes, now: now)
                queueAtEnd = path.busyUntil > now ? path.busyUntil - now : 0
                if id > UInt64(count / 2) { queueMax = max(queueMax, queueAtEnd) }
                pending.append((id, bytes, path.acknowledgement(bytes: bytes, sentAt: now)))
            }
            // The next frame as soon as this one is encoded (a millisecond) if the pacer lets it
            // go then, else at the next acknowledgement.
            now = sends ? now + 1_000 : max(now + 1, pending.first?.ackAt ?? now + 1)
        }
        return (pacer, queueAtEnd, queueMax, late.bytes, late.end - (late.start ?? late.end))
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

    /// A long path filled by small frames: many fly at once, and what waits is at most the
    /// window's allowance beyond the path's bytes (an eighth of the round trip, here where frames
    /// spend no time beyond it) and one frame.
    @Test func aLongPathCarriesManyFramesWithoutAStandingQueue() {
        var path = Path(bytesPerSecond: 2_500_000, oneWayMicros: 100_000)
        let (pacer, queue) = Self.run(path: &path, frameBytes: 20_000, count: 400)
        #expect(pacer.bytesInFlight >= 500_000, "the path's 500 kB are in flight")
        #expect(queue <= 25_000 + 8_000 + 1, "a 20 kB frame takes 8 ms; \(queue) µs waited")
        #expect(pacer.deliveryRate.map { $0 <= 2_500_000 * 1.05 } ?? true, "never above the path")
    }

    /// The far profile (20 Mbit/s, 200 ms) with frames sized as the host sizes motion's updates:
    /// what crosses in 15 ms at the estimated rate (at least 16 kB), the first one whole (600 kB).
    /// The path holds about 13 of them: a cap of a few frames in flight would leave it mostly
    /// empty, and the rate measured from what is in flight would stay low with the frames sized
    /// from it (the link carried a fifth of its rate so).
    @Test func aLongPathIsFilledByFramesSizedFromItsRate() {
        let rate = 2_500_000.0
        var path = Path(bytesPerSecond: rate, oneWayMicros: 100_000)
        let run = Self.run(path: &path, frameBytes: { pacer in
            guard let estimate = pacer.deliveryRate else { return 600_000 }
            return max(16_384, Int(estimate * 0.015))
        }, count: 600)
        let carried = Double(run.lateBytes) / Double(run.lateMicros) * 1_000_000
        #expect(carried >= rate * 0.8, "carried \(Int(carried)) B/s of \(Int(rate))")
        #expect(run.pacer.deliveryRate.map { $0 >= rate * 0.8 && $0 <= rate * 1.05 } ?? false, "estimated \(run.pacer.deliveryRate ?? 0) B/s")
        // No standing queue beyond the window's allowance (25 ms here) and a frame (15 ms).
        #expect(run.queueMax <= 40_000, "\(run.queueMax) µs of queue")
    }

    /// Small frames (typing) give no rate: only the count of frames in flight holds them back.
    @Test func smallFramesGiveNoRateAndAreHeldBackOnlyByTheirCount() {
        var path = Path(bytesPerSecond: 1_250_000, oneWayMicros: 20_000)
        let (pacer, _) = Self.run(path: &path, frameBytes: 300, count: 30)
        #expect(pacer.deliveryRate == nil)
        #expect(pacer.bytesInFlight == FramePacer.unpacedFramesInFlight * 300)
        #expect(!pacer.maySend)
        var idle = pacer
        for frame in 25...30 as ClosedRange<UInt64> { idle.acknowledged(frameID: frame, now: 300_000) }
        #expect(idle.maySend)
    }

    /// The far profile filled, then the host sends at a third of the path's rate for five seconds
    /// (small updates while input is recent): its own pace says nothing of the path, so the
    /// estimate stays near the path's rate instead of falling to the host's.
    @Test func theHostsOwnSlowerPaceDoesNotLowerTheRate() {
        let rate = 2_500_000.0
        var path = Path(bytesPerSecond: rate, oneWayMicros: 100_000)
        var pacer = FramePacer()
        var pending: [(id: UInt64, ackAt: UInt64)] = []
        var (now, id): (UInt64, UInt64) = (1_000, 0)
        func deliver(until time: UInt64) {
            while let first = pending.first, first.ackAt <= time {
                pacer.acknowledged(frameID: first.id, now: first.ackAt)
                pending.removeFirst()
            }
        }
        // Filled: a frame of 15 ms of the path whenever the pacer lets one go, for five seconds.
        pacer.observeRoundTrip(micros: 200_000, now: now)
        while now < 5_000_000 {
            deliver(until: now)
            if pacer.maySend {
                id += 1
                let bytes = max(16_384, Int((pacer.deliveryRate ?? rate) * 0.015))
                pacer.sent(frameID: id, bytes: bytes, now: now)
                pending.append((id, path.acknowledgement(bytes: bytes, sentAt: now)))
                now += 1_000
            } else {
                now = max(now + 1, pending.first?.ackAt ?? now + 1)
            }
        }
        let filled = try! #require(pacer.deliveryRate)
        #expect(filled >= rate * 0.8, "estimated \(filled) B/s of \(rate) while filled")
        // The host's pace: 20 kB every 24 ms (about 830 kB/s).
        while now < 10_000_000 {
            deliver(until: now)
            id += 1
            pacer.sent(frameID: id, bytes: 20_000, now: now)
            pending.append((id, path.acknowledgement(bytes: 20_000, sentAt: now)))
            now += 24_000
        }
        deliver(until: now)
        let after = try! #require(pacer.deliveryRate)
        #expect(after >= rate * 0.8, "estimated \(after) B/s of \(rate) after five seconds at the host's pace")
    }
}
