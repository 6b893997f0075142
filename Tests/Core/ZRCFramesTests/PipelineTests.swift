import PropertyBased
import Testing
import ZRCFrames
import ZRCProtocol
import ZRCTestSupport

@Suite struct PipelineTests {
    func update(_ rects: [FrameRect], width: Int, height: Int, id: UInt64 = 1) -> FrameUpdate {
        FrameUpdate(frameID: id, captureMicros: 1, encodeDoneMicros: 2, sendMicros: 3, screenWidth: UInt32(width),
                    screenHeight: UInt32(height), quality: 80, rects: rects)
    }

    @Test func aStaticScreenSendsNothing() throws {
        let screen = ChangeDetectionTests.pattern(width: 320, height: 200)
        var codec = RawRegionCodec()
        let rects = try UpdatePlanner().rects(previous: screen, current: screen, hints: nil, quality: 80, fullChroma: false, encoder: &codec)
        #expect(rects.isEmpty)
        #expect(codec.encodedRects.isEmpty)
    }

    @Test func solidTilesTravelAsAColour() throws {
        let before = ChangeDetectionTests.pattern(width: 256, height: 128)
        var after = before
        after.fill(PixelRect(x: 64, y: 0, width: 128, height: 64), rgb: 0x336699)
        var codec = RawRegionCodec()
        let rects = try UpdatePlanner().rects(previous: before, current: after, hints: nil, quality: 80, fullChroma: false, encoder: &codec)
        #expect(rects.count == 2)
        #expect(rects.allSatisfy { $0.content == .solid(pixel: 0x336699) })
        #expect(codec.encodedRects.isEmpty)
    }

    @Test func aNewScreenSizeSendsEverything() throws {
        let screen = ChangeDetectionTests.pattern(width: 200, height: 100)
        var codec = RawRegionCodec()
        _ = try UpdatePlanner().rects(previous: PixelBuffer(width: 0, height: 0), current: screen, hints: nil, quality: 80,
                                      fullChroma: false, encoder: &codec)
        #expect(codec.encodedRects == [PixelRect(x: 0, y: 0, width: 200, height: 100)])
    }

    static let encodingSets: [Capabilities] = [
        [.jpegRects, .solidRects, .rawRects], [.losslessRects], [.losslessRects, .solidRects, .jpegRects], [.rawRects],
    ]

    /// Whatever changes, the controller's composed frame equals the host's screen afterwards, in
    /// every combination of encodings (the stand-in JPEG is lossless).
    @Test(arguments: encodingSets)
    func composedFramesMatchTheHostScreen(encodings: Capabilities) async {
        await propertyCheck(count: 100, input: Gen.int(in: 1...260), Gen.int(in: 1...140), Gen.int(in: 1...4), Gen.int(in: 0...Int(UInt32.max))) {
            width, height, steps, seed in
            var random = Xorshift(seed: UInt64(seed) | 1)
            var hostScreen = ChangeDetectionTests.pattern(width: width, height: height, seed: UInt32(seed & 0xFF))
            var controllerView = PixelBuffer(width: 0, height: 0)
            var compositor = FrameCompositor()
            var codec = RawRegionCodec()
            for step in 0..<steps {
                if step > 0 {
                    let x = Int(random.next() % UInt64(width)), y = Int(random.next() % UInt64(height))
                    let rect = PixelRect(x: x, y: y, width: min(width - x, 1 + Int(random.next() % 90)), height: min(height - y, 1 + Int(random.next() % 50)))
                    switch random.next() % 3 {
                    case 0:
                        hostScreen.fill(rect, rgb: UInt32(random.next() & 0xFFFFFF))
                    case 1:
                        // Few colours: text-like content for the palette path.
                        for row in rect.y..<rect.maxY where row % 3 == 0 {
                            hostScreen.fill(PixelRect(x: rect.x, y: row, width: rect.width, height: 1), rgb: UInt32(random.next() & 0xFFFFFF))
                        }
                    default:
                        hostScreen.setPixel(x: x, y: y, rgb: UInt32(random.next() & 0xFFFFFF))
                    }
                }
                let rects = try UpdatePlanner(tileSize: 16).rects(previous: controllerView, current: hostScreen, hints: nil, quality: 80,
                                                                  fullChroma: false, encodings: encodings, encoder: &codec)
                #expect(rects.allSatisfy { encodings.contains(Self.capability(of: $0.content)) })
                try compositor.apply(update(rects, width: width, height: height, id: UInt64(step)), decoder: &codec)
                controllerView = compositor.framebuffer
                let exact = controllerView == hostScreen
                #expect(exact, "step \(step): the controller's picture differs from the host's")
            }
        }
    }

    static func capability(of content: FrameRect.Content) -> Capabilities {
        switch content {
        case .jpeg: .jpegRects
        case .solid: .solidRects
        case .raw: .rawRects
        case .lossless: .losslessRects
        case .copy: .copyRects
        case .losslessFrame: .losslessFrames
        case .losslessRestart: .sharedLosslessStream
        }
    }

    /// A glyph typed into a text area travels as its own few pixels, losslessly, not as its tile.
    @Test func aTypedGlyphIsSentExactlyAndLosslessly() throws {
        var before = PixelBuffer(width: 256, height: 128)
        before.fill(before.bounds, rgb: 0xFFFFFF)
        var after = before
        after.fill(PixelRect(x: 70, y: 20, width: 2, height: 12), rgb: 0x000000)
        after.fill(PixelRect(x: 72, y: 30, width: 5, height: 2), rgb: 0x777777)
        var codec = RawRegionCodec()
        let rects = try UpdatePlanner().rects(previous: before, current: after, hints: nil, quality: 80, fullChroma: false,
                                              encodings: [.losslessRects, .solidRects, .jpegRects], encoder: &codec)
        #expect(rects.count == 1)
        let rect = try #require(rects.first)
        #expect(PixelRect(x: Int(rect.x), y: Int(rect.y), width: Int(rect.width), height: Int(rect.height))
                    == PixelRect(x: 70, y: 20, width: 7, height: 12))
        guard case .lossless(let payload) = rect.content else {
            Issue.record("a few-colour glyph goes lossless, not \(rect.content)")
            return
        }
        #expect(payload.first == 0, "as a palette")
        #expect(codec.encodedRects.isEmpty, "no JPEG")
    }

    @Test func rectanglesOutsideTheScreenAreRefused() {
        var compositor = FrameCompositor()
        var codec = RawRegionCodec()
        let outside = FrameRect(x: 90, y: 0, width: 20, height: 10, content: .solid(pixel: 0))
        #expect(throws: FrameError.self) { try compositor.apply(update([outside], width: 100, height: 50), decoder: &codec) }
    }

    @Test func eachUpdateMovesTheVersionOn() throws {
        var compositor = FrameCompositor()
        var codec = RawRegionCodec()
        try compositor.apply(update([], width: 10, height: 10, id: 5), decoder: &codec)
        try compositor.apply(update([FrameRect(x: 0, y: 0, width: 2, height: 2, content: .solid(pixel: 0xFF0000))], width: 10, height: 10, id: 6),
                             decoder: &codec)
        #expect(compositor.version == 2)
        #expect(compositor.lastFrameID == 6)
        #expect(compositor.framebuffer.pixel(x: 1, y: 1) == 0xFF0000)
        #expect(compositor.lastDirty == [PixelRect(x: 0, y: 0, width: 2, height: 2)])
    }

    /// A flood of tiny rects costs the viewer one redraw area, and the history stays small.
    @Test func manySmallRectsAreRememberedAsTheirBoundingBox() throws {
        var compositor = FrameCompositor()
        var codec = RawRegionCodec()
        let rects = (0..<300).map { FrameRect(x: UInt16($0 % 100), y: UInt16(10 + $0 / 100), width: 1, height: 1, content: .solid(pixel: 0xFF)) }
        try compositor.apply(update(rects, width: 200, height: 50), decoder: &codec)
        #expect(compositor.lastDirty == [PixelRect(x: 0, y: 10, width: 100, height: 3)])
        #expect(compositor.changes(since: 0) == [PixelRect(x: 0, y: 10, width: 100, height: 3)])
        let few = Array(rects.prefix(FrameCompositor.maximumDirtyRects))
        try compositor.apply(update(few, width: 200, height: 50), decoder: &codec)
        #expect(compositor.lastDirty.count == FrameCompositor.maximumDirtyRects)
    }
}
