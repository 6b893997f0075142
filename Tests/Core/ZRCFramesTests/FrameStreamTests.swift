import Testing
import ZRCFrames
import ZRCProtocol
import ZRCTestSupport

@Suite struct FrameStreamTests {
    final class Clock {
        var now: UInt64 = 1_000
        func read() -> UInt64 { now }
    }

    @Test func firstChangeGoesOutAtOnceThenLatestWinsWhileInFlight() throws {
        var stream = FrameStream(configuration: .init(maximumInFlight: 1))
        var codec = RawRegionCodec()
        let clock = Clock()
        var screen = ChangeDetectionTests.pattern(width: 200, height: 100)
        let first = try #require(try stream.offer(screen, hints: nil, captureMicros: 1, clock: clock.read, encoder: &codec))
        #expect(first.frameID == 1)
        #expect(stream.inFlight == [1])

        screen.setPixel(x: 5, y: 5, rgb: 0)
        #expect(try stream.offer(screen, hints: nil, captureMicros: 2, clock: clock.read, encoder: &codec) == nil)
        #expect(stream.captureWanted)
        screen.setPixel(x: 150, y: 80, rgb: 0)

        stream.acknowledge(1)
        let next = try #require(try stream.offer(screen, hints: nil, captureMicros: 3, clock: clock.read, encoder: &codec))
        #expect(next.frameID == 2)
        #expect(Set(next.rects.map { "\($0.x),\($0.y) \($0.width)x\($0.height)" }) == ["5,5 1x1", "150,80 1x1"],
                "both changes, exactly, in the newest state only")
        #expect(!stream.captureWanted)
    }

    @Test func twoFramesMayBeInFlightAndAnAckCoversOlderOnes() throws {
        var stream = FrameStream()
        var codec = RawRegionCodec()
        let clock = Clock()
        var screen = ChangeDetectionTests.pattern(width: 64, height: 64)
        for step in 1...2 {
            screen.setPixel(x: step, y: 0, rgb: 0x123456)
            #expect(try stream.offer(screen, hints: nil, captureMicros: 1, clock: clock.read, encoder: &codec)?.frameID == UInt64(step))
        }
        screen.setPixel(x: 9, y: 9, rgb: 0)
        #expect(try stream.offer(screen, hints: nil, captureMicros: 1, clock: clock.read, encoder: &codec) == nil, "a third waits")
        #expect(stream.captureWanted && stream.inFlight == [1, 2])
        stream.acknowledge(2)
        #expect(stream.inFlight.isEmpty, "acknowledgements are in order: 2 covers 1")
        stream.acknowledge(7)
        #expect(try stream.offer(screen, hints: nil, captureMicros: 1, clock: clock.read, encoder: &codec)?.frameID == 3)
    }

    @Test func aStaticScreenSendsNothing() throws {
        var stream = FrameStream()
        var codec = RawRegionCodec()
        let clock = Clock()
        let screen = ChangeDetectionTests.pattern(width: 64, height: 64)
        _ = try stream.offer(screen, hints: nil, captureMicros: 1, clock: clock.read, encoder: &codec)
        stream.acknowledge(1)
        #expect(try stream.offer(screen, hints: nil, captureMicros: 2, clock: clock.read, encoder: &codec) == nil)
    }

    @Test func smallStillAreasAreRefinedLosslessly() throws {
        var stream = FrameStream(configuration: .init(motionQuality: 60, refineQuality: 95, refineDelayMicros: 100_000))
        var codec = RawRegionCodec()
        let clock = Clock()
        let screen = ChangeDetectionTests.pattern(width: 128, height: 64)
        let motion = try #require(try stream.offer(screen, hints: nil, captureMicros: 1, clock: clock.read, encoder: &codec))
        stream.acknowledge(motion.frameID)
        clock.now = 200_000
        let refined = try #require(try stream.refine(screen, captureMicros: 2, clock: clock.read, encoder: &codec))
        #expect(refined.quality == 0, "raw rects only: lossless, no JPEG quality")
        #expect(refined.rects.allSatisfy { if case .raw = $0.content { true } else { false } })
    }

    @Test func stillAreasAreRefinedAtHighQualityOnce() throws {
        var stream = FrameStream(configuration: .init(motionQuality: 60, refineQuality: 95, refineDelayMicros: 100_000,
                                                      losslessRefinementLimit: 0))
        var codec = RawRegionCodec()
        let clock = Clock()
        let screen = ChangeDetectionTests.pattern(width: 128, height: 64)
        let motion = try #require(try stream.offer(screen, hints: nil, captureMicros: 1, clock: clock.read, encoder: &codec))
        #expect(motion.quality == 60)
        stream.acknowledge(motion.frameID)
        #expect(stream.refinementDueMicros == 1_000 + 100_000)
        clock.now = 50_000
        #expect(try stream.refine(screen, captureMicros: 2, clock: clock.read, encoder: &codec) == nil, "not still long enough")
        clock.now = 101_000
        let refined = try #require(try stream.refine(screen, captureMicros: 3, clock: clock.read, encoder: &codec))
        #expect(refined.quality == 95)
        #expect(refined.rects.map { PixelRect(x: Int($0.x), y: Int($0.y), width: Int($0.width), height: Int($0.height)) }
                == [PixelRect(x: 0, y: 0, width: 128, height: 64)])
        stream.acknowledge(refined.frameID)
        #expect(stream.refinementDueMicros == nil)
        #expect(try stream.refine(screen, captureMicros: 4, clock: clock.read, encoder: &codec) == nil)
    }

    /// With lossless rects, photographic areas sent as JPEG during motion end up exact, refined in
    /// updates of at most the configured number of pixels, each after the previous one's ack.
    @Test func stillPhotographicAreasAreRefinedLosslesslyInChunks() throws {
        var stream = FrameStream(configuration: .init(refineDelayMicros: 100_000, tileSize: 32,
                                                      encodings: [.jpegRects, .solidRects, .losslessRects],
                                                      maximumRefinementPixels: 2 * 32 * 32))
        var codec = RawRegionCodec()
        let clock = Clock()
        let screen = ChangeDetectionTests.pattern(width: 128, height: 64)
        let motion = try #require(try stream.offer(screen, hints: nil, captureMicros: 1, clock: clock.read, encoder: &codec))
        #expect(motion.rects.allSatisfy { if case .jpeg = $0.content { true } else { false } }, "many colours move as JPEG")
        stream.acknowledge(motion.frameID)
        clock.now = 200_000
        var refinedPixels = 0
        var updates = 0
        while let refined = try stream.refine(screen, captureMicros: 2, clock: clock.read, encoder: &codec) {
            #expect(refined.quality == 0)
            #expect(refined.rects.allSatisfy { if case .lossless = $0.content { true } else { false } })
            let pixels = refined.rects.reduce(0) { $0 + Int($1.width) * Int($1.height) }
            #expect(pixels <= 2 * 32 * 32)
            refinedPixels += pixels
            updates += 1
            #expect(try stream.refine(screen, captureMicros: 2, clock: clock.read, encoder: &codec) == nil, "one at a time")
            stream.acknowledge(refined.frameID)
            if updates > 10 { break }
        }
        #expect(refinedPixels == 128 * 64)
        #expect(updates == 4)
        #expect(stream.refinementDueMicros == nil)
    }

    @Test func solidUpdatesNeedNoRefinement() throws {
        var stream = FrameStream()
        var codec = RawRegionCodec()
        let clock = Clock()
        var screen = PixelBuffer(width: 128, height: 128)
        screen.fill(screen.bounds, rgb: 0x224466)
        let update = try #require(try stream.offer(screen, hints: nil, captureMicros: 1, clock: clock.read, encoder: &codec))
        #expect(update.rects.allSatisfy { $0.content == .solid(pixel: 0x224466) })
        #expect(stream.refinementDueMicros == nil)
    }
}

@Suite struct UpdateSizeTests {
    /// A large change goes in parts of the allowed size, a small one ahead of it, and the
    /// controller's picture ends up exact.
    @Test func largeChangesGoInPartsAndSmallOnesFirst() throws {
        var stream = FrameStream(configuration: .init(tileSize: 32, encodings: [.losslessRects, .solidRects]))
        var codec = RawRegionCodec()
        var compositor = FrameCompositor()
        var screen = ChangeDetectionTests.pattern(width: 320, height: 256)
        screen.fill(PixelRect(x: 0, y: 128, width: 320, height: 128), rgb: 0)
        let first = try #require(try stream.offer(screen, hints: nil, captureMicros: 1, clock: { 0 }, encoder: &codec))
        try compositor.apply(first, decoder: &codec)
        stream.acknowledge(first.frameID)
        // Motion over the top half, and a small answer to a click at the bottom.
        screen = ChangeDetectionTests.pattern(width: 320, height: 256, seed: 9)
        screen.fill(PixelRect(x: 0, y: 128, width: 320, height: 128), rgb: 0)
        let clicked = PixelRect(x: 200, y: 200, width: 10, height: 10)
        screen.fill(clicked, rgb: 0x00FF00)
        stream.configuration.maximumUpdatePixels = 4 * 32 * 32
        var updates = 0
        // The screen reports the damage once, as X does; the parts left out must not be forgotten.
        var hints: [PixelRect] = [PixelRect(x: 0, y: 0, width: 320, height: 128), clicked]
        while let update = try stream.offer(screen, hints: hints, captureMicros: 2, clock: { 0 }, encoder: &codec) {
            hints = []
            if updates == 0 { #expect(stream.owesParts, "the first part leaves the rest owed") }
            let drawn = update.rects.reduce(0) { $0 + Int($1.width) * Int($1.height) }
            #expect(drawn <= 4 * 32 * 32)
            if updates == 0 {
                #expect(update.rects.contains { Int($0.x) <= clicked.x && Int($0.y) <= clicked.y && Int($0.x + $0.width) >= clicked.maxX
                        && Int($0.y + $0.height) >= clicked.maxY }, "the click's answer goes in the first part")
            }
            try compositor.apply(update, decoder: &codec)
            stream.acknowledge(update.frameID)
            updates += 1
            if updates > 100 { break }
        }
        #expect(updates > 5, "in parts")
        #expect(!stream.owesParts, "nothing left once all parts went")
        let exact = compositor.framebuffer == screen
        #expect(exact)
    }
}

extension UpdateSizeTests {
    /// Motion all around, a click's answer in the middle: with the input's position as focus, the
    /// answer is in the very next part, however large the motion.
    @Test func theAnswerToInputGoesFirstAmidMotion() throws {
        var stream = FrameStream(configuration: .init(tileSize: 64, encodings: [.losslessRects, .solidRects, .jpegRects]))
        var codec = RawRegionCodec()
        var screen = ChangeDetectionTests.pattern(width: 1920, height: 1080)
        let square = PixelRect(x: 896, y: 476, width: 128, height: 128)
        screen.fill(square, rgb: 0xE02020)
        let first = try #require(try stream.offer(screen, hints: nil, captureMicros: 1, clock: { 0 }, encoder: &codec))
        stream.acknowledge(first.frameID)
        stream.configuration.maximumUpdatePixels = 70_000
        for step in 1...5 {
            screen = ChangeDetectionTests.pattern(width: 1920, height: 1080, seed: UInt32(100 + step))
            screen.fill(square, rgb: 0xE02020)
            let update = try #require(try stream.offer(screen, hints: [screen.bounds], captureMicros: 2, clock: { 0 }, encoder: &codec))
            stream.acknowledge(update.frameID)
        }
        screen = ChangeDetectionTests.pattern(width: 1920, height: 1080, seed: 77)
        screen.fill(square, rgb: 0x2040E0)
        stream.configuration.focus = (960, 540)
        let answer = try #require(try stream.offer(screen, hints: [screen.bounds], captureMicros: 3, clock: { 0 }, encoder: &codec))
        let covered = answer.rects.contains { PixelRect(x: Int($0.x), y: Int($0.y), width: Int($0.width), height: Int($0.height)).contains(x: 960, y: 540) }
        #expect(covered, "the clicked square is in the next update: \(answer.rects.map { "\($0.width)x\($0.height)+\($0.x)+\($0.y)" })")
    }
}

extension UpdateSizeTests {
    /// The very first picture, larger than one part, arrives whole, though the screen never
    /// reports the parts left out as changed again.
    @Test func aFirstPictureLargerThanOnePartArrivesWhole() throws {
        var stream = FrameStream(configuration: .init(tileSize: 32, encodings: [.losslessRects, .solidRects]))
        stream.configuration.maximumUpdatePixels = 3 * 32 * 32
        var codec = RawRegionCodec()
        var compositor = FrameCompositor()
        let screen = ChangeDetectionTests.pattern(width: 200, height: 150)
        var hints: [PixelRect]? = nil
        var updates = 0
        while let update = try stream.offer(screen, hints: hints, captureMicros: 1, clock: { 0 }, encoder: &codec), updates < 100 {
            hints = []
            try compositor.apply(update, decoder: &codec)
            stream.acknowledge(update.frameID)
            updates += 1
        }
        #expect(updates > 3)
        let exact = compositor.framebuffer == screen
        #expect(exact)
    }
}
