import ZRCTestSupport
import Testing
import ZRCXTestSupport
import ZRCX11

/// Servers that differ from the shared test display: one without MIT-SHM (the capturer must fall
/// back to GetImage and say why in the log) and one at depth 16 (which ZRC cannot capture as BGRX).
@Suite("X11 capture fallbacks on private Xvfb servers")
struct X11FallbackTests {
    @Test func serverWithoutSharedMemoryFallsBackAndLogsWhy() async throws {
        _ = try TestDisplay.require()
        let server = try await PrivateXServer.start(["-extension", "MIT-SHM", "-screen", "0", "320x200x24"])
        let connection = try X11Connection(displayName: server.display)
        #expect(!connection.has(.sharedMemory))
        #expect(connection.has(.xtest))
        try await server.run("xsetroot", ["-solid", "#123456"])

        let log = LogCapture()
        let capturer = try ScreenCapturer(connection: connection, logger: log.logger)
        #expect(capturer.method == .getImage)
        #expect(capturer.sharedMemorySegmentID == nil)
        #expect(capturer.fallbackReason?.contains("MIT-SHM") == true)
        #expect(log.all.contains { $0.hasPrefix("warning") && $0.contains("GetImage") && $0.contains("MIT-SHM") },
                "no warning about the fallback in \(log.all)")

        let image = try capturer.captureScreen()
        #expect(image.width == 320 && image.height == 200)
        let wrong = stride(from: 0, to: image.pixels.count, by: 4).first {
            (image.pixels[$0], image.pixels[$0 + 1], image.pixels[$0 + 2]) != (0x56, 0x34, 0x12)
        }
        #expect(wrong == nil, "pixel at byte \(wrong ?? -1) is not #123456")
    }

    @Test func sixteenBitScreenIsRefusedWithAReason() async throws {
        _ = try TestDisplay.require()
        let server = try await PrivateXServer.start(["-screen", "0", "320x200x16"])
        let connection = try X11Connection(displayName: server.display)
        #expect(connection.screen.depth == 16 && connection.screen.bitsPerPixel == 16)
        #expect(!connection.screen.isBGRX)
        let error = #expect(throws: X11Error.self) { try ScreenCapturer(connection: connection) }
        #expect(error?.kind == .unsupportedScreen)
        #expect(error?.message.contains("depth 16") == true)
    }
}
