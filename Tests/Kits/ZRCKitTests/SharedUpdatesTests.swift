import Foundation
import Testing
import ZRCControllerKit
import ZRCFrames
import ZRCHostKit
import ZRCProtocol
import ZRCTestSupport
import ZRCKitTesting

/// Encoding once for several viewers, through a real host server and controllers over loopback:
/// viewers of the same screen take the updates one of them made, and every controller's picture
/// stays exactly the host's — including one that joins late.
@Suite struct SharedUpdatesTests {
    /// Waits (generously) until every session shows `expected`; nil then, else which differ where.
    func waitForAll(_ sessions: [ControllerSession], showing expected: PixelBuffer) async -> String? {
        var all = true
        for session in sessions where await !SessionWaits.shows(session, expected, within: .seconds(20)) { all = false }
        if all { return nil }
        var report: [String] = []
        for (index, session) in sessions.enumerated() {
            guard let frame = await session.pollFrame() else {
                report.append("viewer \(index): no frame")
                continue
            }
            var differing: PixelRect?
            for y in 0..<expected.height {
                for x in 0..<expected.width where frame.pixels.pixel(x: x, y: y) != expected.pixel(x: x, y: y) {
                    let one = PixelRect(x: x, y: y, width: 1, height: 1)
                    differing = differing.map { $0.union(one) } ?? one
                }
            }
            report.append("viewer \(index) (frame \(frame.version)): " + (differing.map { "differs within \($0)" } ?? "exact"))
        }
        return report.joined(separator: "; ")
    }

    @Test func viewersInStepShareUpdatesAndStayExact() async throws {
        let screen = FakeScreen(width: 320, height: 200, numbersCaptures: true)
        let sharing = ScreenSharing(source: screen, input: screen, makeEncoder: { RawRegionCodec() })
        let harness = try HostHarness(sharing: sharing)
        _ = try await harness.start()
        let (controller, _) = harness.controller()
        _ = try await harness.pair(controller, name: "desk")
        try await harness.stoppingAfter {
            var sessions: [ControllerSession] = []
            for _ in 0..<3 { sessions.append(try await controller.connect(to: "desk")) }
            let first = await waitForAll(sessions, showing: screen.pixels)
            #expect(first == nil, "every viewer shows the screen: \(first ?? "")")
            for session in sessions { _ = try #require(await SessionWaits.settledVersion(session), "the first picture settles") }
            var random = SplitMix64(seed: 11)
            for step in 0..<24 {
                // A block of text-like pixels dragged about, and a line typed: lossless content.
                screen.draw { pixels in
                    let x = Int(random.next() % 280), y = Int(random.next() % 160)
                    pixels.move(PixelRect(x: x, y: y, width: 40, height: 40),
                                to: PixelRect(x: min(280, x + 7), y: max(0, y - 5), width: 40, height: 40))
                    pixels.fill(PixelRect(x: Int(random.next() % 300), y: Int(random.next() % 190), width: 12, height: 8),
                                rgb: UInt32(truncatingIfNeeded: random.next()) & 0xFFFFFF)
                }
                let shown = await waitForAll(sessions, showing: screen.pixels)
                #expect(shown == nil, "step \(step): every viewer shows the screen: \(shown ?? "")")
                if step == 12 {
                    // A viewer joining while the others are in step catches up and stays exact.
                    sessions.append(try await controller.connect(to: "desk"))
                }
            }
            #expect(sharing.updates.counts.used > 0, "viewers in step send updates another session made")
            let last = await waitForAll(sessions, showing: screen.pixels)
            #expect(last == nil, "\(last ?? "")")
            for session in sessions { await session.close() }
        }
    }
}
