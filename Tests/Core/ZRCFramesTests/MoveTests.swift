import PropertyBased
import Testing
import ZRCFrames
import ZRCProtocol
import ZRCTestSupport

/// Content moved in any direction (a page scrolled sideways, a dragged window) travels as a copy
/// rect plus what the move exposed, and the controller's picture stays exactly the host's.
@Suite struct MoveTests {
    /// A photograph-like picture: gradients with fine detail, no two tiles alike.
    static func photo(width: Int, height: Int, seed: Int) -> PixelBuffer {
        var image = PixelBuffer(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width {
                let detail = UInt32((x * 7 + y * 13 + seed) % 23)
                let r = UInt32((x + seed) * 255 / max(1, width)) ^ detail, g = UInt32(y * 255 / max(1, height)) ^ (detail << 1)
                image.setPixel(x: x, y: y, rgb: (r & 0xFF) << 16 | (g & 0xFF) << 8 | UInt32((x / 3 + y + seed) % 256))
            }
        }
        return image
    }

    /// `picture` (wider than the screen) shown from column `offset`: the whole screen scrolled sideways.
    static func view(of picture: PixelBuffer, from offset: Int, width: Int) -> PixelBuffer {
        var screen = PixelBuffer(width: width, height: picture.height)
        for y in 0..<picture.height {
            for x in 0..<width { screen.setPixel(x: x, y: y, rgb: picture.pixel(x: x + offset, y: y)) }
        }
        return screen
    }

    static let encodingSets: [Capabilities] = [
        [.losslessRects, .solidRects, .copyRects], [.jpegRects, .solidRects, .rawRects, .copyRects], [.jpegRects, .losslessRects, .copyRects],
    ]

    /// A window (random content) dragged by random offsets over a random background, sometimes
    /// with other changes: after every update the controller's picture equals the host's (for
    /// lossless encodings; with JPEG, the tiles that are not still JPEG-approximated).
    @Test(arguments: [Capabilities([.losslessRects, .solidRects, .copyRects]), [.losslessRects, .copyRects]])
    func randomWindowMovesKeepTheControllerExact(encodings: Capabilities) async {
        await propertyCheck(count: 40, input: Gen.int(in: 64...320), Gen.int(in: 64...240), Gen.int(in: 0...Int(UInt32.max))) {
            width, height, seed in
            var random = Xorshift(seed: UInt64(seed) | 1)
            let background = ScrollTests.textScreen(width: width, height: height, random: &random)
            let windowWidth = 24 + Int(random.next() % UInt64(width - 30)), windowHeight = 24 + Int(random.next() % UInt64(height - 30))
            let window = ScrollTests.textScreen(width: windowWidth, height: windowHeight, random: &random)
            var position = (x: Int(random.next() % UInt64(width - windowWidth)), y: Int(random.next() % UInt64(height - windowHeight)))
            func screen() -> PixelBuffer {
                var image = background
                for y in 0..<windowHeight {
                    for x in 0..<windowWidth { image.setPixel(x: position.x + x, y: position.y + y, rgb: window.pixel(x: x, y: y)) }
                }
                return image
            }
            var stream = FrameStream(configuration: .init(tileSize: 16, encodings: encodings))
            var codec = RawRegionCodec()
            var compositor = FrameCompositor()
            for step in 0..<8 {
                if step > 0 {
                    position.x = max(0, min(width - windowWidth, position.x + Int(random.next() % 41) - 20))
                    position.y = max(0, min(height - windowHeight, position.y + Int(random.next() % 41) - 20))
                }
                var current = screen()
                if random.next() % 3 == 0 {
                    current.setPixel(x: Int(random.next() % UInt64(width)), y: Int(random.next() % UInt64(height)), rgb: 0x123456)
                }
                guard let update = try stream.offer(current, hints: nil, captureMicros: 1, clock: { 0 }, encoder: &codec) else { continue }
                try ZRCMessage.frameUpdate(update).validate()
                try compositor.apply(update, decoder: &codec)
                stream.acknowledge(update.frameID)
                let exact = compositor.framebuffer == current
                #expect(exact, "step \(step): the controller's picture differs from the host's")
            }
        }
    }

    /// A full screen of photograph scrolled sideways by a few pixels, with a still square on top
    /// (like the click probe): one copy rect, the exposed strip sent exact, a small fraction of
    /// the bytes of sending the screen again, and nothing left to refine.
    @Test(arguments: encodingSets, [-5, 3, -17])
    func aScreenScrolledSidewaysCostsItsStripOnly(encodings: Capabilities, step: Int) throws {
        let picture = Self.photo(width: 900, height: 240, seed: 1)
        var stream = FrameStream(configuration: .init(encodings: encodings))
        var codec = RawRegionCodec()
        var compositor = FrameCompositor()
        var offset = 200
        func screen() -> PixelBuffer {
            var image = Self.view(of: picture, from: offset, width: 480)
            image.fill(PixelRect(x: 200, y: 100, width: 40, height: 40), rgb: 0xFF0000)
            return image
        }
        let first = try #require(try stream.offer(screen(), hints: nil, captureMicros: 1, clock: { 0 }, encoder: &codec))
        stream.acknowledge(first.frameID)
        try compositor.apply(first, decoder: &codec)
        var moved: [Int] = []
        for _ in 0..<4 {
            offset += step
            let update = try #require(try stream.offer(screen(), hints: nil, captureMicros: 2, clock: { 0 }, encoder: &codec))
            stream.acknowledge(update.frameID)
            try compositor.apply(update, decoder: &codec)
            #expect(update.rects.first?.content.isCopy == true, "the move comes first")
            if encodings.contains(.losslessRects) {
                #expect(!update.rects.contains { if case .jpeg = $0.content { true } else { false } }, "the exposed strip goes exact")
            }
            moved.append(ZRCMessage.frameUpdate(update).encode().count)
        }
        let full = ZRCMessage.frameUpdate(first).encode().count
        #expect(moved.allSatisfy { $0 * 10 < full }, "\(moved) bytes per sideways step of \(step), \(full) for the whole screen")
        if !encodings.contains(.jpegRects) {
            let exact = compositor.framebuffer == screen()
            #expect(exact)
        }
    }

    /// Halves of the screen that moved by different offsets (a capture taken between two drawing
    /// requests of a scroll): one copy each, exact, at a fraction of sending them again.
    @Test(arguments: [(-5, -10), (7, -3), (-20, 20)])
    func partsMovedByDifferentOffsetsGetACopyEach(top: Int, bottom: Int) throws {
        let picture = Self.photo(width: 1000, height: 256, seed: 2)
        func screen(_ topOffset: Int, _ bottomOffset: Int) -> PixelBuffer {
            var image = PixelBuffer(width: 640, height: 256)
            for y in 0..<256 {
                let offset = y < 128 ? topOffset : bottomOffset
                for x in 0..<640 { image.setPixel(x: x, y: y, rgb: picture.pixel(x: x + offset, y: y)) }
            }
            return image
        }
        var stream = FrameStream(configuration: .init(encodings: [.losslessRects, .solidRects, .copyRects]))
        var codec = RawRegionCodec()
        var compositor = FrameCompositor()
        let first = try #require(try stream.offer(screen(100, 100), hints: nil, captureMicros: 1, clock: { 0 }, encoder: &codec))
        stream.acknowledge(first.frameID)
        try compositor.apply(first, decoder: &codec)
        let after = screen(100 - top, 100 - bottom)
        let update = try #require(try stream.offer(after, hints: nil, captureMicros: 2, clock: { 0 }, encoder: &codec))
        try compositor.apply(update, decoder: &codec)
        let copies = update.rects.filter(\.content.isCopy)
        #expect(copies.count == 2, "\(update.rects.count) rects, \(copies.count) copies")
        let bytes = ZRCMessage.frameUpdate(update).encode().count, full = ZRCMessage.frameUpdate(first).encode().count
        #expect(bytes * 5 < full, "\(bytes) bytes for two moves, \(full) for the whole screen")
        let exact = compositor.framebuffer == after
        #expect(exact)
    }

    /// A window dragged over a plain desktop: one copy rect from its old place to its new one,
    /// and a fraction of the bytes of sending the window again.
    @Test(arguments: [(17, 23), (-30, 5), (0, -40), (64, 64), (9, 2), (-3, -1)])
    func aDraggedWindowTravelsAsACopy(dx: Int, dy: Int) throws {
        var background = PixelBuffer(width: 480, height: 320)
        background.fill(background.bounds, rgb: 0x336699)
        let window = Self.photo(width: 200, height: 150, seed: 5)
        func screen(at x: Int, _ y: Int) -> PixelBuffer {
            var image = background
            for row in 0..<150 { for column in 0..<200 { image.setPixel(x: x + column, y: y + row, rgb: window.pixel(x: column, y: row)) } }
            return image
        }
        var stream = FrameStream(configuration: .init(encodings: [.losslessRects, .solidRects, .copyRects]))
        var codec = RawRegionCodec()
        var compositor = FrameCompositor()
        let first = try #require(try stream.offer(screen(at: 100, 80), hints: nil, captureMicros: 1, clock: { 0 }, encoder: &codec))
        stream.acknowledge(first.frameID)
        try compositor.apply(first, decoder: &codec)
        let dragged = try #require(try stream.offer(screen(at: 100 + dx, 80 + dy), hints: nil, captureMicros: 2, clock: { 0 }, encoder: &codec))
        try compositor.apply(dragged, decoder: &codec)
        let copy = try #require(dragged.rects.first)
        guard case .copy(let sourceX, let sourceY) = copy.content else {
            Issue.record("the first rect is \(copy.content), not a copy")
            return
        }
        #expect(Int(copy.x) - Int(sourceX) == dx && Int(copy.y) - Int(sourceY) == dy)
        // The same drag to a controller without copy rects: the window is encoded again.
        var plain = FrameStream(configuration: .init(encodings: [.losslessRects, .solidRects]))
        let plainFirst = try #require(try plain.offer(screen(at: 100, 80), hints: nil, captureMicros: 1, clock: { 0 }, encoder: &codec))
        plain.acknowledge(plainFirst.frameID)
        let redrawn = try #require(try plain.offer(screen(at: 100 + dx, 80 + dy), hints: nil, captureMicros: 2, clock: { 0 }, encoder: &codec))
        let sent = ZRCMessage.frameUpdate(dragged).encode().count, again = ZRCMessage.frameUpdate(redrawn).encode().count
        #expect(sent * 4 < again, "\(sent) bytes for the drag, \(again) to draw the window again")
        let exact = compositor.framebuffer == screen(at: 100 + dx, 80 + dy)
        #expect(exact)
    }

    /// Every pixel changes, but nothing moved as a whole (thin bands going opposite ways, as in
    /// a video): no copy rect; a move right after is still found.
    @Test func changesThatAreNoMoveHaveNoCopies() {
        let picture = Self.photo(width: 600, height: 192, seed: 3)
        func banded(_ step: Int) -> PixelBuffer {
            var image = PixelBuffer(width: 320, height: 192)
            for y in 0..<192 {
                let offset = (y / 4) % 2 == 0 ? 100 + step * 5 : 100 - step * 5
                for x in 0..<320 { image.setPixel(x: x, y: y, rgb: picture.pixel(x: x + offset, y: y)) }
            }
            return image
        }
        var detector = MoveDetector()
        let grid = TileGrid(width: 320, height: 192, tileSize: 32)
        #expect(detector.move(previous: banded(0), current: banded(1), changed: .all(grid)) == nil)
        #expect(detector.lastOffset == nil)
        #expect(detector.move(previous: banded(1), current: banded(2), changed: .all(grid)) == nil)
        // A moved picture right after is found at once, and its offset kept.
        let a = Self.view(of: picture, from: 100, width: 320), b = Self.view(of: picture, from: 107, width: 320)
        let move = detector.move(previous: a, current: b, changed: .all(grid))?.move
        #expect(move?.destination.x == 0 && move?.source.x == 7)
        #expect(detector.lastOffset?.dx == -7 && detector.lastOffset?.dy == 0)
    }

    /// Tiny or empty changes never crash and find nothing to move.
    @Test(arguments: [(1, 1), (8, 8), (31, 64), (64, 1)])
    func tinyScreensHaveNoMoves(width: Int, height: Int) {
        var detector = MoveDetector()
        let a = Self.photo(width: width, height: height, seed: 0), b = Self.photo(width: width, height: height, seed: 9)
        let grid = TileGrid(width: width, height: height, tileSize: 16)
        #expect(detector.move(previous: a, current: b, changed: .all(grid)) == nil)
        #expect(detector.move(previous: a, current: b, changed: TileMask(grid: grid)) == nil)
    }
}
