import Foundation
import ZRCNetworking
import ZRCProtocol
import ZRCFrames

/// The laboratory's measurements, the same for every viewer (all times on the machine's
/// monotonic clock, which network namespaces share). Each returns the result line the `links`
/// and `compare` commands read.
struct LinkMeasurements {
    let viewer: any MeasuredViewer
    let width: Int
    let height: Int

    /// `clicks P50 P95 P99 LOST` (ms from the click's sending to the decoded picture showing the
    /// probe's new colour).
    func clicks(count: Int, pause: Int, warmUp: Int = 3) async throws -> String {
        guard var shown = try await waitForProbe(newerThan: 0, showing: nil, after: 0, timeout: .seconds(20)) else {
            throw BenchError("no picture showing the probe arrived within 20 s")
        }
        var samples = Samples()
        var lost = 0
        for index in 0..<(warmUp + count) {
            try await Task.sleep(for: .milliseconds(pause))
            // From the newest picture: an answer to an earlier, lost click may have come since.
            if let now = await viewer.probe(newerThan: shown.version, x: probeX, y: probeY) {
                shown = (now.version, ProbeCommand.colourIndex(of: now.rgb), now.decodedMicros)
            }
            let clicked = WireClock.monotonicMicros()
            try await viewer.click(x: width / 2, y: height / 2)
            let seen = try await waitForProbe(newerThan: shown.version, showing: 1 - shown.colour, after: clicked, timeout: .seconds(2))
            if let seen {
                if index >= warmUp { samples.add(micros: seen.decodedMicros - clicked) }
                shown = seen
            } else if index >= warmUp {
                lost += 1
            }
        }
        return String(format: "clicks %.3f %.3f %.3f %d", samples.percentile(0.5), samples.percentile(0.95), samples.percentile(0.99), lost)
    }

    /// Where the probe's colour is read: inside its square, off the centre where the pointer's
    /// hotspot is (a server that paints the pointer into the picture would cover the centre).
    private var probeX: Int { width / 2 - ProbeCommand.side / 4 }
    private var probeY: Int { height / 2 - ProbeCommand.side / 4 }

    /// The first picture newer than `version`, decoded after `after` (monotonic µs), whose probe
    /// shows colour `expected` (any colour when nil).
    private func waitForProbe(newerThan version: UInt64, showing expected: Int?, after: UInt64, timeout: Duration) async throws
        -> (version: UInt64, colour: Int, decodedMicros: UInt64)?
    {
        let deadline = ContinuousClock.now + timeout
        var seen = version
        while ContinuousClock.now < deadline {
            if let sample = await viewer.probe(newerThan: seen, x: probeX, y: probeY) {
                seen = sample.version
                let colour = ProbeCommand.colourIndex(of: sample.rgb)
                if expected == nil || (colour == expected && sample.decodedMicros >= after) { return (sample.version, colour, sample.decodedMicros) }
            }
            if let failure = await viewer.failure() { throw BenchError(failure) }
            try await Task.sleep(for: .milliseconds(1))
        }
        return nil
    }

    /// `watch UPDATES_PER_S BYTES_PER_S QUEUE_MS_MAX IN_FLIGHT_MAX RATE QUALITY PSNR`: updates and
    /// bytes over `seconds`, with the host's worst queueing and bytes in flight and its newest path
    /// rate (zeros for a viewer without the host's link statistics); the median JPEG quality of the
    /// updates seen that held JPEG (-1: none did, or the viewer does not know); and the median
    /// PSNR (dB, -1: not measured) of the picture shown here against the host's screen read at the
    /// same moment by `reference`, sampled every `psnrEveryMillis` — what the user sees, so it
    /// counts the picture's lag behind the moving screen as well as the coding loss.
    func watch(seconds: Double, reference: (() throws -> PixelBuffer)? = nil, psnrEveryMillis: UInt64 = 500) async throws -> String {
        let started = WireClock.monotonicMicros()
        let before = await viewer.counters()
        var queueMax: UInt64 = 0, inFlightMax: UInt32 = 0
        var qualities = Samples(), psnrs = Samples()
        var qualitySeen = before.updates
        var nextSample = started + psnrEveryMillis * 500
        while Double(WireClock.monotonicMicros() &- started) < seconds * 1_000_000 {
            if let stats = await viewer.linkStats() {
                queueMax = max(queueMax, stats.queueMicros)
                inFlightMax = max(inFlightMax, stats.inFlightBytes)
            }
            // The newest update's quality, once per update polled (at 20 ms some go unseen: a sample).
            if let newest = await viewer.quality(newerThan: qualitySeen) {
                qualitySeen = newest.version
                if newest.quality > 0 { qualities.add(value: Double(newest.quality)) }
            }
            if let reference, WireClock.monotonicMicros() >= nextSample {
                nextSample += psnrEveryMillis * 1000
                // The picture shown here, then the host's screen at once (a few milliseconds apart).
                if let shown = await viewer.picture(), let psnr = PictureFidelity.psnr(shown, try reference()) {
                    psnrs.add(value: min(psnr, 99))
                }
            }
            if let failure = await viewer.failure() { throw BenchError(failure) }
            try await Task.sleep(for: .milliseconds(20))
        }
        let elapsed = Double(WireClock.monotonicMicros() &- started) / 1_000_000
        let after = await viewer.counters()
        let rate = await viewer.linkStats()?.deliveryRate ?? 0
        // Typed: as format arguments, a bare -1 would go as an integer where a double is read.
        let quality: Double = qualities.isEmpty ? -1 : qualities.percentile(0.5)
        let psnr: Double = psnrs.isEmpty ? -1 : psnrs.percentile(0.5)
        return String(format: "watch %.1f %.0f %.1f %d %d %.1f %.2f", Double(after.updates - before.updates) / elapsed,
                      Double(after.bytes - before.bytes) / elapsed, Double(queueMax) / 1000, inFlightMax, rate, quality, psnr)
    }

    /// `settle MS` once the picture's `PixelHash` is `hash` (ms from now to the decode of that
    /// picture), or `settle timeout`.
    func settle(hash: UInt64, timeoutMillis: UInt64) async throws -> String {
        let started = WireClock.monotonicMicros()
        var checked: UInt64 = 0
        while WireClock.monotonicMicros() &- started < timeoutMillis * 1000 {
            if let picture = await viewer.hash(newerThan: checked) {
                checked = picture.version
                if picture.value == hash {
                    return String(format: "settle %.1f", Double(max(picture.decodedMicros, started) - started) / 1000)
                }
            }
            if let failure = await viewer.failure() { throw BenchError(failure) }
            try await Task.sleep(for: .milliseconds(2))
        }
        return "settle timeout"
    }
}
