import PropertyBased
import Testing
import ZRCFrames
import ZRCProtocol
import ZRCTestSupport

/// Scrolled content travels as copy rects plus the exposed strip, and the controller's picture
/// stays exactly the host's.
@Suite struct ScrollTests {
    /// Text-like lines: each row a few runs of colour on a background, different from its neighbours.
    static func textRow(_ image: inout PixelBuffer, row: Int, x: Int, width: Int, random: inout Xorshift) {
        image.fill(PixelRect(x: x, y: row, width: width, height: 1), rgb: 0xFFFFFF)
        for _ in 0..<(1 + Int(random.next() % 4)) {
            let start = x + Int(random.next() % UInt64(width)), length = 1 + Int(random.next() % 20)
            image.fill(PixelRect(x: start, y: row, width: min(length, x + width - start), height: 1), rgb: UInt32(random.next() % 3) * 0x404040)
        }
    }

    static func textScreen(width: Int, height: Int, random: inout Xorshift) -> PixelBuffer {
        var image = PixelBuffer(width: width, height: height)
        for row in 0..<height { textRow(&image, row: row, x: 0, width: width, random: &random) }
        return image
    }

    /// Scrolls `area` of `image` by `offset` rows (negative: up) and writes new lines where it exposed.
    static func scroll(_ image: inout PixelBuffer, area: PixelRect, by offset: Int, random: inout Xorshift) {
        let kept = area.height - abs(offset)
        guard kept > 0 else { return }
        let source = PixelRect(x: area.x, y: offset < 0 ? area.y - offset : area.y, width: area.width, height: kept)
        let destination = PixelRect(x: area.x, y: offset < 0 ? area.y : area.y + offset, width: area.width, height: kept)
        image.move(source, to: destination)
        let exposed = offset < 0 ? (area.maxY + offset)..<area.maxY : area.y..<(area.y + offset)
        for row in exposed { textRow(&image, row: row, x: area.x, width: area.width, random: &random) }
    }

    static let encodingSets: [Capabilities] = [
        [.losslessRects, .solidRects, .copyRects], [.jpegRects, .solidRects, .rawRects, .copyRects], [.losslessRects, .copyRects],
    ]

    /// Random scrolls of random areas, some with other changes beside them: after every update the
    /// controller's picture equals the host's screen.
    @Test(arguments: encodingSets)
    func randomScrollsKeepTheControllerExact(encodings: Capabilities) async {
        await propertyCheck(count: 60, input: Gen.int(in: 40...300), Gen.int(in: 40...200), Gen.int(in: 0...Int(UInt32.max))) {
            width, height, seed in
            var random = Xorshift(seed: UInt64(seed) | 1)
            var screen = Self.textScreen(width: width, height: height, random: &random)
            var stream = FrameStream(configuration: .init(tileSize: 16, encodings: encodings))
            var codec = RawRegionCodec()
            var compositor = FrameCompositor()
            for step in 0..<8 {
                if step > 0 {
                    let top = Int(random.next() % UInt64(height / 2)), areaHeight = 16 + Int(random.next() % UInt64(height - top - 15))
                    let left = Int(random.next() % UInt64(width / 4))
                    let area = PixelRect(x: left, y: top, width: width - left - Int(random.next() % UInt64(width / 4 + 1)), height: areaHeight)
                    let offset = (1 + Int(random.next() % 12)) * (random.next() % 3 == 0 ? 1 : -1)
                    Self.scroll(&screen, area: area, by: offset, random: &random)
                    if random.next() % 3 == 0 {
                        screen.setPixel(x: Int(random.next() % UInt64(width)), y: Int(random.next() % UInt64(height)), rgb: 0x123456)
                    }
                }
                guard let update = try stream.offer(screen, hints: nil, captureMicros: 1, clock: { 0 }, encoder: &codec) else { continue }
                try ZRCMessage.frameUpdate(update).validate()
                try compositor.apply(update, decoder: &codec)
                stream.acknowledge(update.frameID)
                let exact = compositor.framebuffer == screen
                #expect(exact, "step \(step): the controller's picture differs from the host's")
            }
        }
    }

    /// A full screen of text scrolled by a few lines costs a small fraction of sending it again.
    @Test(arguments: [-1, -3, -13, 2, 20])
    func aScrolledScreenCostsItsNewLinesOnly(offset: Int) throws {
        var random = Xorshift(seed: 99)
        var screen = Self.textScreen(width: 640, height: 400, random: &random)
        var stream = FrameStream(configuration: .init(encodings: [.losslessRects, .solidRects, .copyRects]))
        var codec = RawRegionCodec()
        let first = try #require(try stream.offer(screen, hints: nil, captureMicros: 1, clock: { 0 }, encoder: &codec))
        stream.acknowledge(first.frameID)
        Self.scroll(&screen, area: screen.bounds, by: offset, random: &random)
        let scrolled = try #require(try stream.offer(screen, hints: nil, captureMicros: 2, clock: { 0 }, encoder: &codec))
        #expect(scrolled.rects.first?.content.isCopy == true, "the move comes first")
        let full = ZRCMessage.frameUpdate(first).encode().count, moved = ZRCMessage.frameUpdate(scrolled).encode().count
        #expect(moved * 10 < full, "\(moved) bytes after a scroll of \(offset) rows, \(full) for the whole screen")
        var compositor = FrameCompositor()
        try compositor.apply(first, decoder: &codec)
        try compositor.apply(scrolled, decoder: &codec)
        let exact = compositor.framebuffer == screen
        #expect(exact)
    }

    /// Nothing moved: no copy rect, whatever else changed.
    @Test func changesThatAreNoScrollHaveNoCopies() throws {
        var random = Xorshift(seed: 5)
        let before = Self.textScreen(width: 320, height: 200, random: &random)
        var after = before
        for row in stride(from: 0, to: 200, by: 2) { Self.textRow(&after, row: row, x: 0, width: 320, random: &random) }
        #expect(ScrollDetector.moves(previous: before, current: after, within: after.bounds).isEmpty)
        #expect(ScrollDetector.moves(previous: before, current: before, within: before.bounds).isEmpty)
    }
}
