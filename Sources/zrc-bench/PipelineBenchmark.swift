import ArgumentParser
import Foundation
import Logging
import ZRCCommandSupport
import ZRCFrames
import ZRCX11

@main
struct PipelineBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "zrc-bench",
        abstract: "Measure the host's frame pipeline stages: capture, change detection, encode.",
        discussion: """
            Captures the given X display with MIT-SHM, then runs three workloads on the captured \
            frame in memory — static, typing-sized (3 tiles change), full-screen motion (every pixel \
            changes) — and prints median and p95 per stage. Build in release mode for real figures.
            """)

    @Option(help: "X display to capture (default: $DISPLAY).")
    var display: String?

    @Option(help: "Updates per workload.")
    var iterations = 200

    func run() throws {
        let logger = Logger(label: "zrc-bench")
        let name = display ?? ProcessInfo.processInfo.environment["DISPLAY"]
        guard let name else { throw ValidationError("no X display: pass --display or set DISPLAY (e.g. Xvfb :42 -screen 0 1920x1080x24)") }
        let connection = try X11Connection(displayName: name)
        let capturer = try ScreenCapturer(connection: connection, logger: logger)
        let clock = ContinuousClock()

        var captureTimes = Samples()
        var frame = try capturer.captureScreen()
        for _ in 0..<iterations {
            let start = clock.now
            frame = try capturer.captureScreen()
            captureTimes.add(clock.now - start)
        }
        var base = PixelBuffer(width: frame.width, height: frame.height, bytesPerRow: frame.bytesPerRow, bytes: frame.pixels)
        print("display \(name): \(base.width)x\(base.height), capture via \(capturer.isUsingSharedMemory ? "MIT-SHM" : "GetImage")")
        print("full-frame capture            \(captureTimes.summary)")
        // The workloads run in memory on a textured picture (a bare Xvfb root is one colour, which
        // would make every tile solid and the encode figures meaningless).
        Workload.texture(&base)
        print("workloads: in memory on a textured \(base.width)x\(base.height) picture, JPEG q70 4:2:0, 64x64 tiles")

        let codec = try TurboJPEGCodec()
        for workload in Workload.allCases {
            var detect = Samples(), encode = Samples(), total = Samples()
            var bytes = 0, rectangles = 0
            var previous = base
            for step in 0..<iterations {
                let current = workload.next(from: previous, step: step)
                let start = clock.now
                let changed = TileChangeDetector().changedTiles(previous: previous, current: current)
                let detected = clock.now
                var encoder: any RegionEncoder = codec
                let rects = try UpdatePlanner().rects(changed: changed, current: current, quality: 70, fullChroma: false,
                                                      encoder: &encoder)
                let done = clock.now
                detect.add(detected - start)
                encode.add(done - detected)
                total.add(done - start)
                rectangles += rects.count
                bytes += rects.reduce(0) { sum, rect in
                    if case .jpeg(let data) = rect.content { return sum + data.count }
                    return sum + 4
                }
                previous = current
            }
            print("\n\(workload.rawValue):")
            print("  change detection            \(detect.summary)")
            print("  plan + encode               \(encode.summary)")
            print("  host time per update        \(total.summary)")
            print(String(format: "  %.1f rectangles and %.0f bytes per update", Double(rectangles) / Double(iterations),
                         Double(bytes) / Double(iterations)))
        }
    }
}

enum Workload: String, CaseIterable {
    case staticScreen = "static screen"
    case typing = "typing-sized changes (3 tiles)"
    case motion = "full-screen motion"

    /// A desktop-like picture: smooth gradients with fine detail, so JPEG has real work to do.
    static func texture(_ image: inout PixelBuffer) {
        for y in 0..<image.height {
            for x in 0..<image.width {
                let detail = UInt32((x * 7 + y * 13) % 23)
                let r = UInt32(x * 255 / max(1, image.width)) ^ detail
                let g = UInt32(y * 255 / max(1, image.height)) ^ (detail << 1)
                let b = UInt32((x + y) % 256)
                image.setPixel(x: x, y: y, rgb: (r & 0xFF) << 16 | (g & 0xFF) << 8 | (b & 0xFF))
            }
        }
    }

    /// The next frame of the workload, made from the previous one in memory.
    func next(from previous: PixelBuffer, step: Int) -> PixelBuffer {
        var next = previous
        switch self {
        case .staticScreen:
            break
        case .typing:
            for index in 0..<3 {
                let x = (step * 97 + index * 64) % max(1, previous.width - 16)
                let y = (step * 31 + index * 7) % max(1, previous.height - 16)
                next.fill(PixelRect(x: x, y: y, width: 8, height: 14), rgb: UInt32(step * 2654435761 & 0xFFFFFF))
            }
        case .motion:
            // Every pixel changes: shift the picture by one pixel and tint it.
            next.bytes.withUnsafeMutableBytes { raw in
                let count = raw.count
                raw.baseAddress!.copyMemory(from: raw.baseAddress! + 4, byteCount: count - 4)
                for index in stride(from: step % 3, to: count, by: 4) { raw[index] &+= 1 }
            }
        }
        return next
    }
}
