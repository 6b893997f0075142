import Foundation
import Testing
import ZRCXTestSupport
import ZRCX11
import ZRCProtocol

/// DAMAGE on a private Xvfb: what a client draws is reported once, exactly, and a quiet screen
/// reports nothing.
@Suite("X11 damage monitoring")
struct X11DamageTests {
    @Test func drawingIsReportedOnceAndAQuietScreenReportsNothing() async throws {
        _ = try TestDisplay.require()
        let server = try await PrivateXServer.start(["-screen", "0", "640x480x24"])
        let client = try TestXClient(display: server.display)
        let monitor = try DamageMonitor(connection: try X11Connection(displayName: server.display))
        // A new DAMAGE object starts with its whole window damaged, which gives the host its first
        // full frame; after that, silence until something is drawn.
        #expect(try monitor.waitForDamage(timeout: .seconds(5)) == [PixelRect(x: 0, y: 0, width: 640, height: 480)])
        #expect(try monitor.waitForDamage(timeout: .milliseconds(200)).isEmpty, "damage without drawing")

        let drawn = PixelRect(x: 10, y: 20, width: 100, height: 50)
        client.fill(x: drawn.x, y: drawn.y, width: drawn.width, height: drawn.height, pixel: 0xFF0000)
        let first = try monitor.waitForDamage(timeout: .seconds(5))
        #expect(first == [drawn])

        // Acknowledged: nothing more until something is drawn again.
        #expect(try monitor.waitForDamage(timeout: .milliseconds(200)).isEmpty)

        // Several primitives in a burst: one report, disjoint rectangles covering exactly them.
        let burst = [PixelRect(x: 300, y: 300, width: 20, height: 20), PixelRect(x: 310, y: 310, width: 20, height: 20),
                     PixelRect(x: 600, y: 0, width: 40, height: 10)]
        for r in burst { client.fill(x: r.x, y: r.y, width: r.width, height: r.height, pixel: 0x00FF00) }
        var reported: [PixelRect] = []
        let deadline = Date().addingTimeInterval(5)
        while pixels(reported) != pixels(burst) && Date() < deadline {
            reported += try monitor.waitForDamage(timeout: .milliseconds(200))
        }
        #expect(pixels(reported) == pixels(burst))
        #expect(reported.map { $0.width * $0.height }.reduce(0, +) == pixels(burst).count, "rectangles overlap: \(reported)")
    }

    /// On the shared display (other tests may draw meanwhile, which only adds to a full screen).
    @Test func firstReportIsTheWholeScreenThroughTheDescriptor() throws {
        _ = try TestDisplay.require()
        let monitor = try DamageMonitor(connection: try X11Connection())
        #expect(monitor.fileDescriptor >= 0)
        #expect(try monitor.waitForDamage(timeout: .seconds(5)) == [PixelRect(x: 0, y: 0, width: 1280, height: 800)])
    }

    private func pixels(_ rects: [PixelRect]) -> Set<Int> {
        var set = Set<Int>()
        for r in rects { for y in r.y..<(r.y + r.height) { for x in r.x..<(r.x + r.width) { set.insert(y * 10_000 + x) } } }
        return set
    }
}
