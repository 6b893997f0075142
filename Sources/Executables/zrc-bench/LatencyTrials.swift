import ArgumentParser
import Foundation
import ZRCControllerKit
import ZRCFrames
import ZRCNetworking
import ZRCProtocol

/// Clicks on the probe and waits for the decoded frame that shows its new colour.
struct LatencyTrials {
    let session: ControllerSession
    let width: Int
    let height: Int
    let pause: Int

    /// One trial's timestamps, all on the machine's monotonic clock (µs).
    struct Trial {
        var clicked: UInt64
        var captured: UInt64
        var encoded: UInt64
        var sent: UInt64
        var received: UInt64
        var decoded: UInt64
    }

    struct Results {
        var trials: [Trial] = []
        var lost = 0
        /// Frames that showed a flip, with the area that changed, for the renderer timings.
        var frames: [(pixels: PixelBuffer, changed: [PixelRect])] = []

        /// Click to decoded frame, in milliseconds.
        func percentile(_ p: Double) -> Double {
            var total = Samples()
            for trial in trials { total.add(micros: trial.decoded &- trial.clicked) }
            return total.percentile(p)
        }

        func print() {
            func samples(_ value: (Trial) -> UInt64) -> Samples {
                var samples = Samples()
                for trial in trials { samples.add(micros: value(trial)) }
                return samples
            }
            let total = samples { $0.decoded &- $0.clicked }
            Swift.print("")
            Swift.print(String(format: "click → decoded frame: p50 %.3f ms   p95 %.3f ms   p99 %.3f ms   (n=%d, %d without a frame in 2 s)",
                               total.percentile(0.5), total.percentile(0.95), total.percentile(0.99), trials.count, lost))
            Swift.print("breakdown (median / p95, ms):")
            let stages: [(String, Samples)] = [
                ("click sent → screen captured (network, XTest, X server, probe redraw, damage, capture)", samples { $0.captured &- $0.clicked }),
                ("captured → encoded (tile compare, JPEG)", samples { $0.encoded &- $0.captured }),
                ("encoded → sent (Noise, queued to TCP)", samples { $0.sent &- $0.encoded }),
                ("sent → received (loopback TCP, controller's read)", samples { $0.received &- $0.sent }),
                ("received → decoded (JPEG decode, compose)", samples { $0.decoded &- $0.received }),
            ]
            for (name, stage) in stages { Swift.print("  \(stage.columns)   \(name)") }
            let slowest = trials.sorted { $0.decoded &- $0.clicked > $1.decoded &- $1.clicked }.prefix(3)
            Swift.print("slowest trials (click→captured / →encoded / →sent / →received / →decoded, ms):")
            for trial in slowest {
                let marks = [trial.captured, trial.encoded, trial.sent, trial.received, trial.decoded]
                Swift.print("  " + marks.map { String(format: "%8.3f", Double($0 &- trial.clicked) / 1000) }.joined(separator: " "))
            }
        }
    }

    func run(trials: Int, warmUp: Int) async throws -> Results {
        var results = Results()
        let centre = (x: Int32(width / 2), y: Int32(height / 2))
        guard var shown = try await waitForProbe(newerThan: 0, showing: nil, timeout: .seconds(20)) else {
            throw ValidationError("no frame showing the probe arrived within 20 s")
        }
        // The last trials keep their frames for the renderer timings; the measured ones keep
        // nothing, since a frame held here makes the session copy 8 MB before the next update.
        let keepFrames = 10
        for index in 0..<(warmUp + trials + keepFrames) {
            try await Task.sleep(for: .milliseconds(pause))
            let expected = 1 - shown.colour
            let clicked = WireClock.monotonicMicros()
            try await session.send(.input(.button(1, pressed: true, x: centre.x, y: centre.y)))
            try await session.send(.input(.button(1, pressed: false, x: centre.x, y: centre.y)))
            let measured = index >= warmUp && index < warmUp + trials
            guard let seen = try await waitForProbe(newerThan: shown.version, showing: expected, timeout: .seconds(2)) else {
                if measured { results.lost += 1 }
                // Start again from whatever the screen shows now.
                if let frame = await session.pollFrame() {
                    shown = Seen(version: frame.version, colour: ProbeCommand.colourIndex(of: frame.pixels.pixel(x: width / 2, y: height / 2)),
                                 trial: nil)
                }
                continue
            }
            if measured, var trial = seen.trial {
                trial.clicked = clicked
                results.trials.append(trial)
            }
            if index >= warmUp + trials, let frame = await session.newestFrame(changedSince: shown.version) {
                results.frames.append((frame.pixels, frame.changedSince))
            }
            shown = seen
        }
        return results
    }

    /// What the controller saw of a frame: its version, the probe's colour and the frame's
    /// timestamps (`clicked` is filled in by the caller).
    struct Seen {
        var version: UInt64
        var colour: Int
        var trial: Trial?
    }

    /// The first frame newer than `version` whose probe square shows colour `expected` (any colour
    /// when nil). Polls every millisecond: the decode time is stamped by the session, so polling
    /// does not blur the measurement.
    private func waitForProbe(newerThan version: UInt64, showing expected: Int?, timeout: Duration) async throws -> Seen? {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var seen = version
        while clock.now < deadline {
            if let frame = await session.pollFrame(newerThan: seen) {
                seen = frame.version
                let colour = ProbeCommand.colourIndex(of: frame.pixels.pixel(x: width / 2, y: height / 2))
                if expected == nil || colour == expected {
                    return Seen(version: frame.version, colour: colour,
                                trial: Trial(clicked: 0, captured: frame.captureMicros, encoded: frame.encodeDoneMicros, sent: frame.sendMicros,
                                             received: frame.receivedMicros, decoded: frame.decodedMicros))
                }
            }
            if let end = await session.end { throw ValidationError("the session ended: \(end)") }
            try await Task.sleep(for: .milliseconds(1))
        }
        return nil
    }
}
