import Foundation
import Testing
import ZRCControllerKit
import ZRCFrames
import ZRCProtocol
import ZRCX11
import ZRCXTestSupport

/// RandR changes while a controller watches: the screen shrinks and grows, and the session goes
/// on with the new size; with `--monitor`, input and the pointer stay on the shared monitor.
@Suite struct X11ScreenChangeTests {
    static func frame(_ session: ControllerSession, where condition: (ComposedFrame) -> Bool) async -> ComposedFrame? {
        await X11SessionTests.frame(session, where: condition)
    }

    static func isRed(_ pixel: UInt32) -> Bool { pixel >> 16 & 0xFF > 0xF0 && pixel >> 8 & 0xFF < 0x10 && pixel & 0xFF < 0x10 }

    @Test func theSessionCarriesOnWhileTheScreenShrinksAndGrows() async throws {
        let setup = try await X11SessionTests.Setup(screen: (1280, 800))
        let session = try await setup.controller.connect(to: "desk")
        _ = try #require(await Self.frame(session) { $0.pixels.width == 1280 && $0.pixels.height == 800 }, "the first frame")

        try await setup.server.run("xrandr", ["--output", "screen", "--off", "--fb", "1024x700"])
        let shrunk = await Self.frame(session) { $0.pixels.width == 1024 && $0.pixels.height == 700 }
        #expect(shrunk != nil, "the controller's picture takes the smaller size")
        let painter = try X11Painter(displayName: setup.server.display)
        try painter.fill(PixelRect(x: 1000, y: 680, width: 24, height: 20), rgb: 0xFF0000)
        try painter.sync()
        #expect(await Self.frame(session) { $0.pixels.width == 1024 && Self.isRed($0.pixels.pixel(x: 1010, y: 690)) } != nil,
                "changes at the new screen's edge still arrive")

        try await setup.server.run("xrandr", ["--output", "screen", "--auto", "--fb", "1280x800"])
        #expect(await Self.frame(session) { $0.pixels.width == 1280 && $0.pixels.height == 800 } != nil, "and the larger one again")
        _ = try await session.ping(timeout: .seconds(60))
        let end = await session.end
        #expect(end == nil, "the session is still open: \(String(describing: end))")
        await session.close()
        await setup.stop()
    }

    /// Two monitors side by side, sharing the right one: pointer input lands only there, and the
    /// pointer is reported only while it is there.
    @Test func withAMonitorSharedInputAndThePointerStayOnIt() async throws {
        let setup = try await X11SessionTests.Setup(screen: (1280, 800), monitor: "RIGHT") { server in
            try await server.run("xrandr", ["--setmonitor", "LEFT", "640/169x800/212+0+0", "screen"])
            try await server.run("xrandr", ["--setmonitor", "RIGHT", "640/169x800/212+640+0", "none"])
        }
        let session = try await setup.controller.connect(to: "desk")
        _ = try #require(await Self.frame(session) { $0.pixels.width == 640 && $0.pixels.height == 800 }, "only the right monitor is shared")
        let cursor = try CursorMonitor(connection: try X11Connection(displayName: setup.server.display))

        // Coordinates beyond the shared area are clamped to it, never reaching the left monitor.
        for (x, y, expected) in [(Int32(10), Int32(20), PointerPosition(x: 650, y: 20)),
                                 (-500, 900, PointerPosition(x: 640, y: 799)),
                                 (5000, -3, PointerPosition(x: 1279, y: 0))] {
            try await session.send(.input(.pointerMove(x: x, y: y)))
            _ = try await session.ping(timeout: .seconds(60))
            #expect(try cursor.pointerPosition() == expected, "pointer move to \(x),\(y)")
        }
        try await session.send(.input(.button(1, pressed: true, x: -100, y: 10)))
        try await session.send(.input(.button(1, pressed: false, x: -100, y: 10)))
        _ = try await session.ping(timeout: .seconds(60))
        #expect(try cursor.pointerPosition() == PointerPosition(x: 640, y: 10), "a click outside lands on the area's edge")

        // The pointer on the unshared monitor is not streamed: the controller sees it hidden.
        try await setup.server.run("xdotool", ["mousemove", "100", "100"])
        #expect(await X11CursorTests.cursor(session) { !$0.visible } != nil, "the pointer on the other monitor is hidden")
        try await setup.server.run("xdotool", ["mousemove", "700", "100"])
        #expect(await X11CursorTests.cursor(session) { $0.visible && $0.x == 60 && $0.y == 100 } != nil)
        await session.close()
        await setup.stop()
    }

    /// The host tells a controller that announced `monitors` the layout, and again when it changes.
    @Test func theMonitorLayoutArrivesAndFollowsChanges() async throws {
        let setup = try await X11SessionTests.Setup(screen: (1280, 800)) { server in
            try await server.run("xrandr", ["--setmonitor", "LEFT", "640/169x800/212+0+0", "screen"])
            try await server.run("xrandr", ["--setmonitor", "RIGHT", "640/169x800/212+640+0", "none"])
        }
        let session = try await setup.controller.connect(to: "desk")
        let layouts = session.events.compactMap { event -> [MonitorArea]? in
            if case .message(.monitorLayout(let list)) = event { list } else { nil }
        }
        // Bounded: a layout that never comes ends the session, which ends the stream (nil).
        let deadline = Task {
            try? await Task.sleep(for: .seconds(60))
            await session.close(text: "no monitor layout in time")
        }
        defer { deadline.cancel() }
        var iterator = layouts.makeAsyncIterator()
        let first = await iterator.next()
        #expect(first?.map(\.name) == ["LEFT", "RIGHT"], "\(String(describing: first))")
        #expect(first?.last.map { [$0.x, $0.y, $0.width, $0.height] } == [640, 0, 640, 800])
        try await setup.server.run("xrandr", ["--delmonitor", "RIGHT"])
        let second = await iterator.next()
        #expect(second?.map(\.name) == ["LEFT"], "\(String(describing: second))")
        await session.close()
        await setup.stop()
    }
}
