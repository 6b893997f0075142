import ArgumentParser
import Foundation
import Logging
import ZRCCommandSupport
import ZRCFrames
import ZRCX11
import ZRCProtocol

/// The pipeline's stages one at a time, each on a whole 1080p screen, to set beside the physical
/// floor: what the machine can do at best, with nothing else in the way.
struct FloorsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "floors",
        abstract: "Measure single stages in isolation: full-frame capture, tile compare, JPEG encode.")

    @Option(help: "X display to capture instead of starting Xvfb.")
    var display: String?

    @Option(help: "Repetitions per stage.")
    var iterations = 200

    func validate() throws {
        guard (10...100_000).contains(iterations) else { throw ValidationError("--iterations must be between 10 and 100000") }
    }

    func run() throws {
        var logger = Logger(label: "zrc-bench")
        logger.logLevel = .warning
        let signals = BenchChild.killChildrenOnSignal()
        defer { _ = signals }
        let (name, xvfb) = try BenchDisplay.open(given: display, width: 1920, height: 1080)
        defer { xvfb?.stop() }
        let connection = try X11Connection(displayName: name)
        let capturer = try ScreenCapturer(connection: connection, logger: logger)
        let clock = ContinuousClock()
        let (width, height) = (connection.screen.width, connection.screen.height)
        print("zrc-bench floors: display \(name) \(width)x\(height), capture via \(capturer.isUsingSharedMemory ? "MIT-SHM" : "GetImage"), "
            + "\(iterations) repetitions")

        func measure(_ body: () throws -> Void) rethrows -> Samples {
            var samples = Samples()
            try body()  // warm caches
            for _ in 0..<iterations {
                let start = clock.now
                try body()
                samples.add(clock.now - start)
            }
            return samples
        }

        var frame = PixelBuffer(width: width, height: height)
        let capture = try measure {
            try frame.bytes.withUnsafeMutableBytes { raw in
                try capturer.capture(PixelRect(x: 0, y: 0, width: width, height: height), into: raw, bytesPerRow: frame.bytesPerRow)
            }
        }
        let picture = Workload.picture(width: width, height: height)
        let copy = PixelBuffer(width: width, height: height, bytesPerRow: picture.bytesPerRow, bytes: Array(picture.bytes))
        let detector = TileChangeDetector()
        let compare = measure { _ = detector.changedTiles(previous: picture, current: copy) }
        let codec = try FrameCodec()
        var bytes = 0
        let encode = try measure { bytes = try codec.encodeJPEG(picture, rect: picture.bounds, quality: 80, fullChroma: false).count }
        var tile = 0
        let tileEncode = try measure {
            let x = (tile * 64) % (width - 64), y = (tile * 64 / width * 64) % (height - 64)
            tile += 1
            _ = try codec.encodeJPEG(picture, rect: PixelRect(x: x, y: y, width: 64, height: 64), quality: 80, fullChroma: false)
        }

        print("  stage                                     median       p95   [ms]   floor named in issue 3")
        print("  full-frame capture (MIT-SHM + copy out) \(capture.columns)          0.3")
        print("  full-screen 64x64 tile compare (equal)  \(compare.columns)          0.5")
        print("  full-frame JPEG q80 4:2:0               \(encode.columns)          4.7   (\(bytes / 1024) KiB)")
        print("  one 64x64 tile JPEG q80 4:2:0           \(tileEncode.columns)          0.015")
    }
}
