import Foundation
import ZRCChafa
import ZRCFrames
import ZRCTerminal
import ZRCViewer
import ZRCProtocol

/// How long each terminal renderer takes to turn frames into terminal output for a terminal of
/// `columns` × `rows` cells of 10 × 20 pixels: for the click changes measured by `latency`, and
/// for full-screen motion (frames per second the viewer can produce). The output goes to
/// /dev/null: what the terminal then takes to draw it is the terminal's own cost, not measured here.
struct RendererTimings {
    let frames: [(pixels: PixelBuffer, changed: [PixelRect])]
    let columns: Int
    let rows: Int

    static let cell = (width: 10, height: 20)

    func print() throws {
        guard let first = frames.first?.pixels else { return }
        let sink = FileHandle(forWritingAtPath: "/dev/null")
        Swift.print("")
        Swift.print("renderers, \(columns)x\(rows) cells of \(Self.cell.width)x\(Self.cell.height) px, output to /dev/null:")
        Swift.print("  renderer        click change (ms)       full-screen motion (ms)    frames/s   bytes/frame")
        Swift.print("                  median       p95         median       p95")
        let motion = MotionFrames(width: first.width, height: first.height)
        for kind in Self.kinds {
            var clickTimes = Samples()
            var renderer = try kind.make()
            var picture = ViewerPicture()
            let layout = ViewerLayout(columns: columns, rows: rows, reportedCell: Self.cell, windowPixels: (0, 0))
            let area = layout.area(pixelsPerCell: renderer.pixelsPerCell(cellWidth: Self.cell.width, cellHeight: Self.cell.height))
            let viewport = Viewport(remoteWidth: first.width, remoteHeight: first.height, areaWidth: area.pixelWidth, areaHeight: area.pixelHeight)
            _ = picture.update(frame: first, changedRemote: [], pointer: nil, viewport: viewport, full: true)
            _ = try renderer.draw(picture.image!, changed: nil, in: area)
            for frame in frames.dropFirst() {
                let started = ContinuousClock.now
                let changed = picture.update(frame: frame.pixels, changedRemote: frame.changed, pointer: nil, viewport: viewport, full: false)
                let bytes = try renderer.draw(picture.image!, changed: changed, in: area)
                clickTimes.add(ContinuousClock.now - started)
                sink?.write(Data(bytes))
                kind.afterFrame()
            }

            var motionTimes = Samples()
            var bytesTotal = 0
            let clock = ContinuousClock()
            let started = clock.now
            var count = 0
            while clock.now - started < .seconds(3) {
                let frame = motion.frame(count)
                let begin = clock.now
                let changed = picture.update(frame: frame, changedRemote: [frame.bounds], pointer: nil, viewport: viewport, full: false)
                let bytes = try renderer.draw(picture.image!, changed: changed, in: area)
                motionTimes.add(clock.now - begin)
                sink?.write(Data(bytes))
                kind.afterFrame()
                bytesTotal += bytes.count
                count += 1
            }
            let perSecond = 1000 / max(0.001, motionTimes.percentile(0.5))
            let name = kind.name.padding(toLength: 14, withPad: " ", startingAt: 0)
            Swift.print("  \(name)\(clickTimes.columns)   \(motionTimes.columns)" + String(format: "   %8.1f   %11d", perSecond, bytesTotal / max(1, count)))
        }
    }

    struct Kind {
        let name: String
        let make: () throws -> any TerminalRenderer
        var afterFrame: () -> Void = {}
    }

    static var kinds: [Kind] {
        let images = SharedMemoryImages()
        return [
            Kind(name: "kitty (shm)", make: { KittyRenderer(partialUpdates: true, sharedMemory: images) },
                 afterFrame: { images.removeLeftovers() }),
            Kind(name: "kitty (base64)", make: { KittyRenderer(partialUpdates: true, sharedMemory: nil) }),
            Kind(name: "sixel", make: { ChafaSixelRenderer() }),
            Kind(name: "symbols", make: { ChafaSymbolsRenderer() }),
        ]
    }
}

/// Full-screen motion: the benchmark's desktop-like picture scrolling by 5 pixels a frame.
struct MotionFrames {
    let picture: PixelBuffer
    let width: Int
    let height: Int

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        picture = Workload.picture(width: width * 2, height: height)
    }

    func frame(_ index: Int) -> PixelBuffer {
        let offset = (index * 5) % width
        return PixelBuffer(width: width, height: height, bytesPerRow: width * 4,
                           bytes: picture.crop(PixelRect(x: offset, y: 0, width: width, height: height)))
    }
}
