import ArgumentParser
import Foundation
import ZRCFrames
import ZRCX11
import ZRCZlib
import ZRCProtocol

/// `zrc-bench screenshot`: how large and how slow a lossless PNG screenshot of a desktop is, with
/// the zlib writer `zrc-ctl screenshot` uses, beside the raw RGB pixels (what the stored-block
/// writer it replaced produced). The desktop is real: a coloured background, an xterm full of
/// text and a clock on a private Xvfb.
struct ScreenshotSizeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "screenshot", abstract: "PNG screenshot size and encoding time on a desktop-like screen (bar: 10× smaller than raw).")

    @Option(help: "Screen size, WIDTHxHEIGHT.")
    var size = "1920x1080"

    @Option(help: "Encodings timed.")
    var runs = 20

    func run() async throws {
        let parts = size.split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2 else { throw ValidationError("--size is WIDTHxHEIGHT") }
        let (display, server) = try BenchDisplay.start(width: parts[0], height: parts[1])
        defer { server.stop() }
        let connection = try X11Connection(displayName: display)
        _ = try ApplicationWorkload.launch(["xsetroot", "-solid", "#2e5c8a"], display: display)
        let terminal = try ApplicationWorkload.launch(["xterm", "-geometry", "120x45+60+60", "-u8", "-e", "sh", "-c",
                                                       "ls -l /usr/bin | head -80; sleep 600"], display: display)
        let clock = try ApplicationWorkload.launch(["xclock", "-geometry", "200x200-60+60"], display: display)
        defer { terminal.terminate(); clock.terminate() }
        _ = try ApplicationWorkload.window(ofClass: "xterm", display: display)
        _ = try ApplicationWorkload.window(ofClass: "xclock", display: display)
        let capturer = try ScreenCapturer(connection: connection, useSharedMemory: false)
        // The screen once two captures a second apart agree (the terminal has drawn its text).
        var image = PixelBuffer(width: 1, height: 1)
        for _ in 0..<30 {
            let capture = try capturer.capture(PixelRect(x: 0, y: 0, width: parts[0], height: parts[1]))
            let next = PixelBuffer(width: capture.width, height: capture.height, bytesPerRow: capture.bytesPerRow, bytes: capture.pixels)
            if next == image { break }
            image = next
            try await Task.sleep(for: .seconds(1))
        }
        var times = Samples()
        var png: [UInt8] = []
        for _ in 0..<max(1, runs) {
            let start = ContinuousClock.now
            png = try PNGWriter.encode(image) { bytes throws(ZlibError) in try ZlibDeflate.compress(bytes) }
            times.add(ContinuousClock.now - start)
        }
        let raw = image.width * image.height * 3
        print("screenshot of a \(image.width)x\(image.height) desktop (background, xterm with text, clock):")
        print(String(format: "  raw RGB (the stored-block writer)  %9d bytes", raw))
        print(String(format: "  PNG, zlib level %d, row filters     %9d bytes   %.1f× smaller (bar: 10×)", ZlibDeflate.defaultLevel,
                     png.count, Double(raw) / Double(png.count)))
        print("  encoding: \(times.summary)")
        // The pipeline benchmark's picture: gradients with fine detail everywhere, far harder than
        // a desktop (a photograph filling the screen), for the other end of the range.
        let hard = Workload.picture(width: image.width, height: image.height)
        let hardPNG = try PNGWriter.encode(hard) { bytes throws(ZlibError) in try ZlibDeflate.compress(bytes) }
        print(String(format: "  a photo-like screen (the pipeline's picture): %d bytes, %.1f× smaller", hardPNG.count,
                     Double(raw) / Double(hardPNG.count)))
    }
}
