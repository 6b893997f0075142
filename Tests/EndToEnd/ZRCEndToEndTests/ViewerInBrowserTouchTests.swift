import Foundation
import Testing
import ZRCXTestSupport
import ZRCWebTesting

/// Touch on the browser viewer, with raw multi-touch events (DevTools `Input.dispatchTouchEvent`):
/// tap = left click where the finger is, long press = right click, one-finger drag = drag,
/// two-finger drag = scroll, pinch = zoom the view (nothing sent to the host).
@Suite(.serialized) struct ViewerInBrowserTouchTests {
    func touch(_ web: WebViewerRig, _ type: String, _ points: [(x: Double, y: Double)]) async throws {
        let list: [[String: any Sendable]] = points.enumerated().map { ["x": $0.element.x, "y": $0.element.y, "id": $0.offset] }
        try await web.browser.call("touch", ["type": type, "points": list])
    }

    /// A tap: the finger's start and end in one command, so a busy machine cannot hold them
    /// apart longer than the page's long press (500 ms).
    func tap(_ web: WebViewerRig, at point: (x: Double, y: Double)) async throws {
        try await gesture(web, [("touchStart", [point]), ("touchEnd", [])])
    }

    /// Touch events back to back in one command: a finger that moves must not seem to rest for
    /// the page's long press (500 ms) between commands on a busy machine — a drag once became a
    /// right click that way.
    func gesture(_ web: WebViewerRig, _ events: [(type: String, points: [(x: Double, y: Double)])]) async throws {
        let list: [[String: any Sendable]] = events.map { event in
            ["type": event.type, "points": event.points.enumerated().map { ["x": $0.element.x, "y": $0.element.y, "id": $0.offset] as [String: any Sendable] }]
        }
        try await web.browser.call("touches", ["events": list])
    }

    func presses(_ events: [TestXClient.Event], button: Int) -> [(Int, Int)] {
        events.compactMap { if case .buttonPress(button, let x, let y) = $0 { (x, y) } else { nil } }
    }

    @Test func tapLongPressDragScrollAndPinch() async throws {
        let web = try await WebViewerRig(touch: true)
        _ = web.rig.client.takeEvents()

        // Tap: a left click where the finger is, within a remote pixel.
        let tap = try await web.clientPoint(remoteX: 100, remoteY: 100)
        try await self.tap(web, at: tap)
        let tapped = await web.buttonEvents(count: 2)
        let tapAt = try #require(presses(tapped, button: 1).first, "a tap clicks: \(tapped)")
        #expect(abs(tapAt.0 - 100) <= 1 && abs(tapAt.1 - 100) <= 1, "tapped at \(tapAt)")

        // Long press: the finger stays until the right click has arrived, then lifts.
        let hold = try await web.clientPoint(remoteX: 200, remoteY: 150)
        try await touch(web, "touchStart", [hold])
        let held = await web.buttonEvents(count: 2)
        try await touch(web, "touchEnd", [])
        let holdAt = try #require(presses(held, button: 3).first, "a long press right-clicks: \(held)")
        #expect(abs(holdAt.0 - 200) <= 1 && abs(holdAt.1 - 150) <= 1, "long-pressed at \(holdAt)")
        #expect(presses(held, button: 1).isEmpty, "and does not left-click: \(held)")

        // One-finger drag: press where it starts, release where it ends.
        let from = try await web.clientPoint(remoteX: 50, remoteY: 60), to = try await web.clientPoint(remoteX: 300, remoteY: 200)
        try await gesture(web, [("touchStart", [from])] + (1...10).map { step in
            let f = Double(step) / 10
            return ("touchMove", [(from.x + (to.x - from.x) * f, from.y + (to.y - from.y) * f)])
        } + [("touchEnd", [])])
        let dragged = await web.buttonEvents(count: 2)
        let start = try #require(presses(dragged, button: 1).first, "a drag presses: \(dragged)")
        #expect(abs(start.0 - 50) <= 1 && abs(start.1 - 60) <= 1, "the drag starts at \(start)")
        let end = dragged.compactMap { if case .buttonRelease(1, let x, let y) = $0 { (x, y) } else { nil } }.first
        #expect(end.map { abs($0.0 - 300) <= 1 && abs($0.1 - 200) <= 1 } == true, "and ends at \(String(describing: end))")

        // Two fingers moving up together scroll down (wheel button 5), clicking nothing.
        let a = try await web.clientPoint(remoteX: 250, remoteY: 300), b = try await web.clientPoint(remoteX: 350, remoteY: 300)
        try await gesture(web, [("touchStart", [a, b])] + (1...12).map { step in
            let dy = -Double(step) * 12
            return ("touchMove", [(a.x, a.y + dy), (b.x, b.y + dy)])
        } + [("touchEnd", [])])
        let scrolled = await web.buttonEvents(count: 2)
        #expect(!presses(scrolled, button: 5).isEmpty, "two fingers up scroll down: \(scrolled)")
        #expect(presses(scrolled, button: 1).isEmpty && presses(scrolled, button: 3).isEmpty, "without clicking: \(scrolled)")

        // Pinch out: the view zooms; the host gets nothing.
        let centre = try await web.clientPoint(remoteX: 320, remoteY: 240)
        _ = web.rig.client.takeEvents()
        try await gesture(web, [("touchStart", [(centre.x - 20, centre.y), (centre.x + 20, centre.y)])] + (1...10).map { step in
            let spread = 20 + Double(step) * 15
            return ("touchMove", [(centre.x - spread, centre.y), (centre.x + spread, centre.y)])
        } + [("touchEnd", [])])
        let zoom = try await web.browser.call("waitFor", ["expression": "window.zrcViewer.view.zoom > 1.5 && window.zrcViewer.view.zoom"])
        #expect((zoom["value"] as? Double ?? 0) > 1.5)
        let pinchEvents = web.rig.client.takeEvents().filter { if case .motion = $0 { false } else { true } }
        #expect(pinchEvents.isEmpty, "a pinch sends the host nothing: \(pinchEvents)")
        await web.close()
    }
}
