import ZRCTestSupport
import Foundation
import Testing
import ZRCX11
import ZRCProtocol

/// Against the real Xvfb of Tools/with-test-services.sh. Serialized: the tests repaint the shared
/// root window.
@Suite("X11 connection and screen capture under Xvfb", .serialized)
struct X11CaptureTests {
    @Test func connectionReportsScreenAndExtensions() throws {
        let display = try TestDisplay.require()
        let connection = try X11Connection()
        #expect(connection.displayName == display)
        // with-test-services.sh starts Xvfb with -screen 0 1280x800x24.
        #expect(connection.screen.width == 1280 && connection.screen.height == 800)
        #expect(connection.screen.depth == 24 && connection.screen.bitsPerPixel == 32)
        #expect(connection.screen.isBGRX)
        #expect(connection.extensions == Set(X11Extension.allCases), "Xvfb offers all five; got \(connection.extensions)")
        let named = try X11Connection(displayName: display)
        #expect(named.screen == connection.screen)
    }

    @Test(arguments: [":97", "nonsense-without-colon", ":0.99"])
    func unreachableDisplayIsANamedError(_ name: String) throws {
        _ = try TestDisplay.require()
        let error = #expect(throws: X11Error.self) { try X11Connection(displayName: name) }
        #expect(error?.kind == .cannotConnect)
        #expect(error?.message.contains("\"\(name)\"") == true, "message does not name the display: \(String(describing: error))")
    }

    static let rects = [
        PixelRect(x: 0, y: 0, width: 1280, height: 800),
        PixelRect(x: 3, y: 5, width: 37, height: 19),
        PixelRect(x: 1279, y: 799, width: 1, height: 1),
        PixelRect(x: 640, y: 0, width: 640, height: 1),
        PixelRect(x: 17, y: 400, width: 64, height: 64),
    ]

    @Test(arguments: [true, false], rects)
    func capturesKnownPixelsExactly(useSharedMemory: Bool, rect: PixelRect) async throws {
        _ = try TestDisplay.require()
        // Connect before painting: Xvfb resets (and repaints its root black) when its last client
        // disconnects, which would otherwise happen the moment xsetroot exits.
        let capturer = try ScreenCapturer(connection: try X11Connection(), useSharedMemory: useSharedMemory)
        let pattern = RootPattern.make(seed: 7)
        try await pattern.paint()
        #expect(capturer.method == (useSharedMemory ? .sharedMemory : .getImage))
        #expect(capturer.isUsingSharedMemory == useSharedMemory)

        let image = try capturer.capture(rect)
        #expect(image.width == rect.width && image.height == rect.height && image.pixels.count == rect.width * rect.height * 4)
        var mismatches: [String] = []
        for y in 0..<rect.height {
            for x in 0..<rect.width {
                let offset = y * image.bytesPerRow + x * 4
                let got = (image.pixels[offset], image.pixels[offset + 1], image.pixels[offset + 2])
                let want = pattern.expected(x: rect.x + x, y: rect.y + y)
                if got != want && mismatches.count < 5 { mismatches.append("(\(rect.x + x),\(rect.y + y)) BGR \(got) ≠ \(want)") }
            }
        }
        #expect(mismatches.isEmpty, "\(capturer.method) capture of \(rect): \(mismatches)")
    }

    /// Into a caller's framebuffer with a wider stride: rows land at the stride, the gaps are untouched.
    @Test(arguments: [true, false])
    func capturesIntoCallerBufferWithStride(useSharedMemory: Bool) async throws {
        _ = try TestDisplay.require()
        let capturer = try ScreenCapturer(connection: try X11Connection(), useSharedMemory: useSharedMemory)
        let pattern = RootPattern.make(seed: 11)  // painted after connecting; see capturesKnownPixelsExactly
        try await pattern.paint()
        let rect = PixelRect(x: 101, y: 33, width: 50, height: 20)
        let stride = 50 * 4 + 36
        var buffer = [UInt8](repeating: 0xC3, count: stride * 20)
        try buffer.withUnsafeMutableBytes { try capturer.capture(rect, into: $0, bytesPerRow: stride) }
        for y in 0..<20 {
            for x in 0..<50 {
                let offset = y * stride + x * 4
                #expect((buffer[offset], buffer[offset + 1], buffer[offset + 2]) == pattern.expected(x: 101 + x, y: 33 + y))
            }
            #expect(buffer[(y * stride + 200)..<(y * stride + stride)].allSatisfy { $0 == 0xC3 })
        }
    }

    @Test(arguments: [
        PixelRect(x: 0, y: 0, width: 0, height: 10),
        PixelRect(x: -1, y: 0, width: 10, height: 10),
        PixelRect(x: 1275, y: 0, width: 10, height: 10),
        PixelRect(x: 0, y: 0, width: 1281, height: 800),
        PixelRect(x: 0, y: Int.max, width: 10, height: 10),
    ])
    func refusesRectanglesOutsideTheScreen(_ rect: PixelRect) throws {
        _ = try TestDisplay.require()
        let capturer = try ScreenCapturer(connection: try X11Connection())
        let error = #expect(throws: X11Error.self) { try capturer.capture(rect) }
        #expect(error?.kind == .invalidRectangle)
        // A refused rectangle is our caller's mistake, not MIT-SHM's: no fallback.
        #expect(capturer.isUsingSharedMemory)
    }

    @Test func sharedMemorySegmentIsPrivateAndRemovedWithTheCapturer() throws {
        _ = try TestDisplay.require()
        let connection = try X11Connection()
        var capturer: ScreenCapturer? = try ScreenCapturer(connection: connection)
        let id = try #require(capturer?.sharedMemorySegmentID, "no MIT-SHM segment: \(capturer?.fallbackReason ?? "?")")
        #expect(try SharedMemoryTable.mode(of: id) == 0o600)
        _ = try capturer?.captureScreen()
        #expect(try SharedMemoryTable.mode(of: id) == 0o600)
        capturer = nil
        // The connection is still open: the segment must be gone because the capturer detached it,
        // not because the connection closed.
        #expect(try SharedMemoryTable.mode(of: id) == nil, "segment \(id) survived its capturer")
        withExtendedLifetime(connection) {}
    }

    @Test func forcedFallbackSaysWhy() throws {
        _ = try TestDisplay.require()
        let log = LogCapture()
        let capturer = try ScreenCapturer(connection: try X11Connection(), useSharedMemory: false, logger: log.logger)
        #expect(capturer.method == .getImage)
        #expect(capturer.sharedMemorySegmentID == nil)
        #expect(capturer.fallbackReason?.contains("turned off") == true)
        // The caller chose this, so it is a notice rather than a warning.
        #expect(log.all.contains { $0.hasPrefix("notice") && $0.contains("GetImage") }, "\(log.all)")
    }
}
