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

    /// 64 MiB acknowledged in one millisecond reads as 64 GB/s; the window stays at its ceiling.
    @Test func anImplausibleRateNeverOpensMoreThanTheCeiling() {
        var pacer = FramePacer()
        let chunk = 16 * 1024
        var id: UInt64 = 1 << 63
        var now: UInt64 = 1_000
        for _ in 0..<4096 {
            pacer.sentFiller(id: id, bytes: chunk, now: now)
            id += 1
        }
        now += 1_000
        pacer.acknowledged(frameID: id - 1, now: now)
        #expect((pacer.deliveryRate ?? 0) > 1e10)
        #expect(pacer.fillerRoom == FramePacer.maximumFillerWindow)
        #expect(FramePacer.maximumFillerWindow <= (8 << 20) / 2, "half of what the host accepts unwritten")
    }

    /// Loopback-like: 200 MB/s with a 100 µs round trip opens 4 ms of the rate (800 kB), so the
    /// ends' own processing time does not starve the transfer.
    @Test func aFastPathGetsMillisecondsOfItsRate() {
        var pacer = FramePacer()
        pacer.observeRoundTrip(micros: 100, now: 500)
        let chunk = 16 * 1024
        var id: UInt64 = 1 << 63
        var now: UInt64 = 1_000
        // 64 chunks (1 MiB), acknowledged at 200 MB/s.
        for _ in 0..<64 {
            pacer.sentFiller(id: id, bytes: chunk, now: now)
            id += 1
        }
        now += UInt64(Double(64 * chunk) / 200e6 * 1e6)
        pacer.acknowledged(frameID: id - 1, now: now)
        let expected = 200e6 * FramePacer.fillerDrainMicros / 1e6
        #expect(abs(Double(pacer.fillerRoom) - expected) < expected * 0.05, "\(pacer.fillerRoom)")
    }
}
