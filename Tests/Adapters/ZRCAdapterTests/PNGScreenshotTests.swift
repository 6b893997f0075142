import Foundation
import Testing
import ZRCFrames
import ZRCTestSupport
import ZRCX11
import ZRCXTestSupport
import ZRCZlib
import ZRCProtocol

/// PNG screenshots through zlib: exact (read back by an independent decoder, netpbm's pngtopnm),
/// and small on a real desktop.
@Suite struct PNGScreenshotTests {
    /// Every pixel, as the independent decoder reads it: RGB bytes, row after row.
    static func decoded(_ png: [UInt8]) async throws -> [UInt8] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("zrc-png-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(png).write(to: file)
        return try await IndependentPNGReader.read(file.path).rgb
    }

    /// The screen once the terminal has drawn its text (thousands of dark pixels inside its
    /// window) and two captures in a row agree.
    static func settledDesktop(_ connection: X11Connection) async throws -> PixelBuffer {
        let capturer = try ScreenCapturer(connection: connection, useSharedMemory: false)
        let deadline = ContinuousClock.now + .seconds(20)
        var previous: PixelBuffer?
        while ContinuousClock.now < deadline {
            let capture = try capturer.capture(PixelRect(x: 0, y: 0, width: 1280, height: 800))
            let image = PixelBuffer(width: capture.width, height: capture.height, bytesPerRow: capture.bytesPerRow, bytes: capture.pixels)
            var dark = 0
            for y in stride(from: 60, to: 500, by: 1) {
                for x in stride(from: 60, to: 600, by: 1) where image.pixel(x: x, y: y) & 0xFFFFFF < 0x404040 { dark += 1 }
            }
            if dark > 2000, image == previous { return image }
            previous = image
            try await Task.sleep(for: .milliseconds(100))
        }
        try #require(Bool(false), "the terminal did not draw its text within 20 s")
        throw CancellationError()
    }

    static func expectedRows(_ image: PixelBuffer) -> [UInt8] {
        var rgb: [UInt8] = []
        rgb.reserveCapacity(image.width * image.height * 3)
        for y in 0..<image.height {
            for x in 0..<image.width {
                let pixel = image.pixel(x: x, y: y)
                rgb += [UInt8(pixel >> 16 & 0xFF), UInt8(pixel >> 8 & 0xFF), UInt8(pixel & 0xFF)]
            }
        }
        return rgb
    }

    @Test(arguments: [(1, 1), (3, 2), (300, 250)])
    func pixelsSurviveAnIndependentDecoder(width: Int, height: Int) async throws {
        var image = PixelBuffer(width: width, height: height)
        var generator = SplitMix64(seed: UInt64(width * 1000 + height))
        // Noise, flat areas and gradients, so every filter type is chosen somewhere.
        for y in 0..<height {
            for x in 0..<width {
                let rgb: UInt32 = switch (x / 16 + y / 16) % 3 {
                case 0: UInt32(truncatingIfNeeded: generator.next()) & 0xFFFFFF
                case 1: 0x2E5C8A
                default: UInt32(x % 256) << 16 | UInt32(y % 256) << 8 | UInt32((x + y) % 256)
                }
                image.fill(PixelRect(x: x, y: y, width: 1, height: 1), rgb: rgb)
            }
        }
        let png = try PNGWriter.encode(image) { bytes throws(ZlibError) in try ZlibDeflate.compress(bytes) }
        #expect(try await Self.decoded(png) == Self.expectedRows(image))
    }

    /// A desktop as people have it: a coloured background, a terminal full of text, a clock.
    /// The stored-block writer this replaced made files the size of the raw RGB pixels.
    @Test func aDesktopIsAtLeastTenTimesSmallerThanItsPixels() async throws {
        let server = try await PrivateXServer.start(["-screen", "0", "1280x800x24"])
        let connection = try X11Connection(displayName: server.display)
        try await server.run("xsetroot", ["-solid", "#2e5c8a"])
        let terminal = try XApplication(display: server.display, ["xterm", "-geometry", "120x40+40+40", "-e", "sh", "-c",
                                                                 "ls -l /usr/bin | head -60; sleep 600"])
        let clock = try XApplication(display: server.display, ["xclock", "-geometry", "180x180-40+40"])
        defer { terminal.stop(); clock.stop() }
        try await terminal.waitForWindow()
        try await clock.waitForWindow()
        let image = try await Self.settledDesktop(connection)
        let png = try PNGWriter.encode(image) { bytes throws(ZlibError) in try ZlibDeflate.compress(bytes) }
        let raw = image.width * image.height * 3
        print("desktop PNG: \(png.count) bytes for \(raw) bytes of RGB (\(raw / png.count)× smaller)")
        #expect(png.count * 10 <= raw, "\(png.count) bytes is not 10× smaller than \(raw)")
        #expect(try await Self.decoded(png) == Self.expectedRows(image))
    }
}
