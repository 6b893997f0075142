import Foundation
import Testing
import ZRCControllerKit
import ZRCProtocol
import ZRCXTestSupport
@testable import ZRCHostX11

/// What applications do to the pointer — blank it, hide it, enlarge it past the wire's 256
/// pixels, animate it, hide it while typing (xterm) — must never end a session: the X server's
/// cursor is external input, validated where it enters the host.
@Suite struct X11CursorTests {
    // MARK: The normalizer, pure

    static func image(_ width: Int, _ height: Int, alpha: UInt8 = 0xFF) -> [UInt8] {
        (0..<(width * height)).flatMap { _ in [0x10, 0x20, 0x30, alpha] }
    }

    @Test(arguments: [
        (0, 0, 0, 0, "no pixels"),
        (0, 16, 0, 0, "no columns"),
        (16, 16, 3, 3, "fully transparent"),
    ])
    func invisibleCursorsAreHidden(width: Int, height: Int, hotX: Int, hotY: Int, what: String) {
        let rgba = Self.image(width, height, alpha: 0)
        #expect(CursorNormalizer.shape(width: width, height: height, hotX: hotX, hotY: hotY, serial: 1, rgba: rgba) == nil, "\(what)")
    }

    @Test func aPixelCountThatDisagreesWithTheSizeIsHidden() {
        #expect(CursorNormalizer.shape(width: 4, height: 4, hotX: 0, hotY: 0, serial: 1, rgba: Self.image(3, 4)) == nil)
    }

    @Test(arguments: [
        // width, height, hot x/y in, expected size, expected hot x/y
        (16, 16, 20, -4, 16, 16, 15, 0),
        (1, 1, 0, 0, 1, 1, 0, 0),
        (256, 256, 255, 255, 256, 256, 255, 255),
        // Wholly visible and too large: scaled down by 2 (4), the hotspot with it.
        (300, 300, 290, 290, 150, 150, 145, 145),
        (300, 20, 150, 10, 150, 10, 75, 5),
        (1000, 1000, 0, 0, 250, 250, 0, 0),
        (513, 1, 512, 0, 171, 1, 170, 0),
    ])
    func shapesAreMadeValidForTheWire(width: Int, height: Int, hotX: Int, hotY: Int, outW: Int, outH: Int, outHotX: Int, outHotY: Int) throws {
        let shape = try #require(CursorNormalizer.shape(width: width, height: height, hotX: hotX, hotY: hotY, serial: 7,
                                                        rgba: Self.image(width, height)))
        #expect(Int(shape.width) == outW && Int(shape.height) == outH)
        #expect(Int(shape.hotX) == outHotX && Int(shape.hotY) == outHotY)
        #expect(shape.shapeID == 7)
        try ZRCMessage.cursorShape(shape).validate()
    }

    @Test func aCropKeepsThePixelsAroundTheHotspot() throws {
        // 300×300, transparent but for one opaque pixel at (280, 5) where the hotspot is.
        var rgba = Self.image(300, 300, alpha: 0)
        rgba[(5 * 300 + 280) * 4 + 3] = 0xFF
        let shape = try #require(CursorNormalizer.shape(width: 300, height: 300, hotX: 280, hotY: 5, serial: 1, rgba: rgba))
        #expect(shape.width == 256 && shape.height == 256)
        let opaque = Int(shape.hotY) * 256 + Int(shape.hotX)
        #expect(shape.rgba[opaque * 4 + 3] == 0xFF, "the hotspot's pixel survives the crop")
    }

    @Test func aLargePointerInsideTransparentMarginsIsCutOutAtFullSize() throws {
        // 400×400, opaque only in 100…199 × 50…149, hotspot at its top-left corner.
        var rgba = Self.image(400, 400, alpha: 0)
        for y in 50..<150 { for x in 100..<200 { rgba[(y * 400 + x) * 4 + 3] = 0xFF } }
        let shape = try #require(CursorNormalizer.shape(width: 400, height: 400, hotX: 100, hotY: 50, serial: 1, rgba: rgba))
        #expect(shape.width == 256 && shape.height == 256)
        let opaque = (0..<(256 * 256)).count { shape.rgba[$0 * 4 + 3] == 0xFF }
        #expect(opaque == 100 * 100, "every visible pixel kept, none scaled")
        #expect(shape.rgba[(Int(shape.hotY) * 256 + Int(shape.hotX)) * 4 + 3] == 0xFF)
    }

    @Test func aScaledPointerAveragesColourByOpacity() throws {
        // 512×2: columns alternate opaque white and transparent black, so each 2×2 block is half
        // covered. Weighted by opacity the colour stays white; a plain average would be grey.
        var rgba: [UInt8] = []
        for _ in 0..<2 { for x in 0..<512 { rgba += x % 2 == 0 ? [0xFF, 0xFF, 0xFF, 0xFF] : [0, 0, 0, 0] } }
        let shape = try #require(CursorNormalizer.shape(width: 512, height: 2, hotX: 0, hotY: 0, serial: 1, rgba: rgba))
        #expect(shape.width == 256 && shape.height == 1)
        #expect(Array(shape.rgba[0..<4]) == [0xFF, 0xFF, 0xFF, 0x80])
        try ZRCMessage.cursorShape(shape).validate()
    }

    @Test func aFaintPointerScaledDownStaysVisible() throws {
        // A single barely opaque pixel 300 px from the hotspot: the 301 px between them are halved,
        // and its 2×1 block averages to alpha 0.5, which must not become 0.
        var rgba = Self.image(600, 1, alpha: 0)
        rgba[301 * 4 + 3] = 1
        let shape = try #require(CursorNormalizer.shape(width: 600, height: 1, hotX: 0, hotY: 0, serial: 1, rgba: rgba))
        #expect(shape.width == 151)
        #expect(shape.rgba[150 * 4 + 3] == 1, "the faint pixel survives")
    }

    // MARK: Real X clients

    /// Waits (15 s at most) until the controller's view of the pointer satisfies `condition`,
    /// looking again at each pointer message.
    static func cursor(_ session: ControllerSession, where condition: (RemoteCursor) -> Bool) async -> RemoteCursor? {
        var found: RemoteCursor?
        _ = await SessionWaits.until(session, within: .seconds(15)) {
            let cursor = await session.pollCursor()
            guard condition(cursor) else { return false }
            found = cursor
            return true
        }
        return found
    }

    @Test func blankEnlargedAnimatedAndHiddenPointersKeepTheSessionAlive() async throws {
        let setup = try await X11SessionTests.Setup()
        let session = try await setup.controller.connect(to: "desk")
        let client = try CursorTestClient(display: setup.server.display)
        _ = try #require(await Self.cursor(session) { $0.visible && $0.shape != nil }, "the default pointer arrives")

        try client.setCursor(width: 16, height: 16, hotX: 3, hotY: 3, argb: 0x0000_0000)
        #expect(await Self.cursor(session) { !$0.visible } != nil, "a blank cursor is a hidden pointer")

        try client.setCursor(width: 300, height: 300, hotX: 290, hotY: 290, argb: 0xFF00_FF00)
        let large = await Self.cursor(session) { $0.visible && $0.shape?.width == 150 }
        #expect(large?.shape.map { ($0.width, $0.height, $0.hotX, $0.hotY) } ?? (0, 0, 0, 0) == (150, 150, 145, 145),
                "a 300-pixel pointer arrives whole, at half size")

        let shapesBefore = await session.cursorShapesReceived
        try client.setAnimatedCursor(side: 24, colours: [0xFFFF_0000, 0xFF00_FF00, 0xFF00_00FF], delayMillis: 30)
        #expect(await SessionWaits.until(session, within: .seconds(15)) { await session.cursorShapesReceived >= shapesBefore + 4 },
                "every frame of an animated cursor is a shape")

        try client.hide()
        _ = try await session.ping(timeout: .seconds(60))
        try client.show()
        _ = try await session.ping(timeout: .seconds(60))
        let end = await session.end
        #expect(end == nil, "the session is still open: \(String(describing: end))")
        await session.close()
        await setup.stop()
    }

    /// The crash users hit first: xterm hides the pointer while you type into it.
    @Test func typingIntoXtermHidesThePointerAndTheSessionCarriesOn() async throws {
        let setup = try await X11SessionTests.Setup()
        let session = try await setup.controller.connect(to: "desk")
        let xterm = try XApplication(display: setup.server.display, ["xterm", "-geometry", "60x15+0+0", "-e", "cat"])
        defer { xterm.stop() }
        try await xterm.waitForWindow()
        try await setup.server.run("xdotool", ["mousemove", "60", "60"])
        _ = try #require(await Self.cursor(session) { $0.visible && $0.x == 60 && $0.y == 60 }, "the pointer over xterm")
        try await setup.server.run("xdotool", ["type", "--delay", "20", "hello"])
        #expect(await Self.cursor(session) { !$0.visible } != nil, "xterm's hidden pointer is hidden on the controller")
        try await setup.server.run("xdotool", ["mousemove", "80", "70"])
        #expect(await Self.cursor(session) { $0.visible && $0.x == 80 } != nil, "and shows again when the pointer moves")
        _ = try await session.ping(timeout: .seconds(60))
        let end = await session.end
        #expect(end == nil, "the session is still open: \(String(describing: end))")
        await session.close()
        await setup.stop()
    }
}
