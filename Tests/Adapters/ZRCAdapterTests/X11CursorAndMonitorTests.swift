import Testing
import ZRCXTestSupport
import ZRCX11
import ZRCProtocol

/// XFIXES cursor and RandR monitors, on private Xvfb servers (resizing the shared display would
/// break the capture tests).
@Suite("X11 cursor and monitor layout")
struct X11CursorAndMonitorTests {
    @Test func cursorImageIsSaneAndReportedOncePerShape() async throws {
        _ = try TestDisplay.require()
        let server = try await PrivateXServer.start(["-screen", "0", "640x480x24"])
        let connection = try X11Connection(displayName: server.display)
        let cursor = try CursorMonitor(connection: connection)
        let image = try #require(try cursor.changedImage())
        #expect((1...256).contains(image.width) && (1...256).contains(image.height), "\(image.width)x\(image.height)")
        #expect((0..<image.width).contains(image.hotspotX) && (0..<image.height).contains(image.hotspotY))
        #expect(image.rgba.count == image.width * image.height * 4)
        let alphas = stride(from: 3, to: image.rgba.count, by: 4).map { image.rgba[$0] }
        #expect(alphas.contains(255), "no opaque pixel in the cursor")
        // Straight alpha: a transparent pixel has no colour.
        #expect(stride(from: 0, to: image.rgba.count, by: 4).allSatisfy { image.rgba[$0 + 3] != 0 || image.rgba[$0..<($0 + 3)].allSatisfy { $0 == 0 } })
        #expect(try cursor.changedImage() == nil, "same shape reported twice")

        let injector = try InputInjector(connection: connection)
        try injector.movePointer(x: 123, y: 45)
        #expect(try cursor.pointerPosition() == PointerPosition(x: 123, y: 45))
    }

    @Test func xvfbHasOneMonitorWithTheScreensGeometry() throws {
        _ = try TestDisplay.require()
        let connection = try X11Connection()
        let layout = try MonitorLayout.read(from: connection)
        #expect(layout.screenWidth == 1280 && layout.screenHeight == 800)
        #expect(layout.monitors.count == 1)
        let only = try #require(layout.monitors.first)
        #expect(only.rect == layout.screenRect && only.index == 0)
        #expect(try layout.monitor(matching: "0") == only)
        #expect(try layout.monitor(matching: only.name) == only)
        #expect(try layout.monitor(matching: only.name.uppercased()) == only)
        for bad in ["1", "-1", "HDMI-9", ""] {
            let error = #expect(throws: X11Error.self) { try layout.monitor(matching: bad) }
            #expect(error?.kind == .noSuchMonitor)
            #expect(error?.message.contains(only.name) == true)
        }
    }

    @Test func withoutMonitorsTheWholeScreenIsMonitorZero() throws {
        let layout = MonitorLayout(screenWidth: 800, screenHeight: 600, monitors: [])
        #expect(layout.monitors == [MonitorInfo(name: "screen", index: 0, isPrimary: true, rect: PixelRect(x: 0, y: 0, width: 800, height: 600))])
        #expect(try layout.monitor(matching: "screen") == layout.monitors[0])
    }

    @Test func aScreenSizeChangeShowsInTheNextLayout() async throws {
        _ = try TestDisplay.require()
        let server = try await PrivateXServer.start(["-screen", "0", "1024x768x24"])
        let connection = try X11Connection(displayName: server.display)
        let before = try MonitorLayout.read(from: connection)
        #expect(before.screenWidth == 1024 && before.screenHeight == 768)
        // Xvfb's one mode is its maximum size, so shrinking means turning the output off first;
        // with no active monitor left, the layout falls back to the whole screen.
        try await server.run("xrandr", ["--output", "screen", "--off", "--fb", "800x600"])
        let after = try MonitorLayout.read(from: connection)
        #expect(after != before)
        #expect(after.screenWidth == 800 && after.screenHeight == 600, "\(after)")
        #expect(after.monitors.map(\.rect) == [PixelRect(x: 0, y: 0, width: 800, height: 600)], "\(after.monitors)")
        // The connection itself survives; its setup-time size is what is stale.
        #expect(connection.screen.width == 1024)
    }
}
