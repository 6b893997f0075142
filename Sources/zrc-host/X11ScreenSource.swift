import Foundation
import Logging
import ZRCFrames
import ZRCHostKit
import ZRCNetworking
import ZRCX11

/// The X11 screen as a `ScreenSource`: MIT-SHM capture (GetImage fallback) on one XCB connection.
///
/// Until XDamage drives it, a change is noticed by capturing at `pollInterval` and comparing tiles
/// in the frame pipeline; the comparison costs about half a millisecond per 1080p frame.
actor X11ScreenSource: ScreenSource {
    private let capturer: ScreenCapturer
    private let pollInterval: Duration

    init(displayName: String?, logger: Logger, pollInterval: Duration = .milliseconds(16)) throws {
        let connection = try X11Connection(displayName: displayName)
        capturer = try ScreenCapturer(connection: connection, logger: logger)
        self.pollInterval = pollInterval
        let screen = connection.screen
        let method = capturer.isUsingSharedMemory ? "MIT-SHM" : "GetImage"
        logger.notice("sharing X display \(connection.displayName) (\(screen.width)x\(screen.height), capture via \(method))")
    }

    func capture() async throws -> ScreenCapture {
        let image = try capturer.captureScreen()
        let captured = WireClock.monotonicMicros()
        return ScreenCapture(pixels: PixelBuffer(width: image.width, height: image.height, bytesPerRow: image.bytesPerRow,
                                                 bytes: image.pixels),
                             hints: nil, captureMicros: captured)
    }

    nonisolated func waitForChange(timeout: Duration) async {
        try? await Task.sleep(for: min(timeout, pollInterval))
    }
}
