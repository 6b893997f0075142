import Testing
import ZRCFrames

/// The room file chunks (fillers) get beside frames: a few chunks before the path is known, the
/// path's bytes or a few milliseconds of its rate after, never more than the host accepts ahead
/// of its disk however fast a burst of acknowledgements makes the path look.
@Suite struct FillerRoomTests {
    @Test func beforeAnyAcknowledgementAFewChunksGo() {
        var pacer = FramePacer()
        #expect(pacer.fillerRoom == FramePacer.minimumFillerWindow)
        pacer.sentFiller(id: 1 << 63, bytes: 16 * 1024, now: 1_000)
        #expect(pacer.fillerRoom == FramePacer.minimumFillerWindow - 16 * 1024)
        pacer.acknowledged(frameID: 1 << 63, now: 2_000)
        #expect(pacer.fillerRoom == FramePacer.minimumFillerWindow)
    }

    /// `count` chunks of 16 KiB sent at 1 ms and acknowledged together `micros` later.
    static func acknowledgedAtOnce(_ count: Int, after micros: UInt64, pacer: inout FramePacer) {
        let first: UInt64 = 1 << 63
        for index in 0..<UInt64(count) { pacer.sentFiller(id: first + index, bytes: 16 * 1024, now: 1_000) }
        pacer.acknowledged(frameID: first + UInt64(count) - 1, now: 1_000 + micros)
    }

    /// 64 MiB acknowledged in one millisecond reads as 64 GB/s; the window stays at its ceiling.
    @Test func anImplausibleRateNeverOpensMoreThanTheCeiling() {
        var pacer = FramePacer()
        Self.acknowledgedAtOnce(4096, after: 1_000, pacer: &pacer)
        #expect((pacer.deliveryRate ?? 0) > 1e10)
        #expect(pacer.fillerRoom == FramePacer.maximumFillerWindow)
        #expect(FramePacer.maximumFillerWindow <= (8 << 20) / 2, "half of what the host accepts unwritten")
    }

    /// Loopback-like: 200 MB/s with a 100 µs round trip opens 4 ms of the rate (800 kB), so the
    /// ends' own processing time does not starve the transfer.
    @Test func aFastPathGetsMillisecondsOfItsRate() {
        var pacer = FramePacer()
        pacer.observeRoundTrip(micros: 100, now: 500)
        // 64 chunks (1 MiB), acknowledged at 200 MB/s.
        Self.acknowledgedAtOnce(64, after: UInt64(Double(64 * 16 * 1024) / 200e6 * 1e6), pacer: &pacer)
        let expected = 200e6 * FramePacer.fillerDrainMicros / 1e6
        #expect(abs(Double(pacer.fillerRoom) - expected) < expected * 0.05, "\(pacer.fillerRoom)")
    }
}
