import PropertyBased
import Testing
import ZRCFrames
import ZRCProtocol
import ZRCTestSupport
import ZRCViewer

@Suite struct FrameScalerTests {
    static func noise(width: Int, height: Int, seed: UInt64) -> PixelBuffer {
        var random = SplitMix64(seed: seed)
        var image = PixelBuffer(width: width, height: height)
        for y in 0..<height { for x in 0..<width { image.setPixel(x: x, y: y, rgb: UInt32(truncatingIfNeeded: random.next()) & 0xFFFFFF) } }
        return image
    }

    /// Small screens and areas at every zoom and pan, so shrinking, enlarging and letterboxes all occur.
    static let viewports = zip(Gen.int(in: 1...120).array(of: 4), Gen.int(in: 0...30).array(of: 3)).map { sizes, steps in
        var viewport = Viewport(remoteWidth: sizes[0], remoteHeight: sizes[1], areaWidth: sizes[2], areaHeight: sizes[3])
        viewport.zoom(by: 1 + Double(steps[0]) / 5, keepingLocal: Double(sizes[2]) / 2, Double(sizes[3]) / 3)
        viewport.pan(byLocal: Double(steps[1] * 7 - 100), Double(steps[2] * 5 - 70))
        return viewport
    }

    @Test func atOneToOneThePictureIsTheScreen() {
        let frame = Self.noise(width: 64, height: 40, seed: 1)
        var scaler = FrameScaler(viewport: Viewport(remoteWidth: 64, remoteHeight: 40, areaWidth: 64, areaHeight: 40))
        scaler.drawAll(from: frame)
        #expect(scaler.output == frame)
    }

    @Test func whatIsShownUnderAPointIsWhatAClickThereHitsWhenEnlarging() async {
        await propertyCheck(count: 200, input: Self.viewports, Gen.uint64()) { viewport, seed in
            guard viewport.scale >= 1 else { return }
            let frame = Self.noise(width: viewport.remoteWidth, height: viewport.remoteHeight, seed: seed)
            var scaler = FrameScaler(viewport: viewport)
            scaler.drawAll(from: frame)
            let image = scaler.imageBounds
            for y in stride(from: image.y, to: image.maxY, by: max(1, image.height / 7)) {
                for x in stride(from: image.x, to: image.maxX, by: max(1, image.width / 7)) {
                    guard let remote = viewport.remotePixel(x: Double(x) + 0.5, y: Double(y) + 0.5) else { continue }
                    #expect(scaler.output.pixel(x: x, y: y) == frame.pixel(x: remote.x, y: remote.y), "local \(x),\(y) → \(remote)")
                }
            }
        }
    }

    /// A picture of exactly the visible region at full resolution (what the host sends for a
    /// zoomed view it need not shrink) shows exactly what the whole screen would. (Shrinking, a
    /// local pixel at the image's edge also averages screen pixels just outside the visible
    /// region, which a picture of the region does not have.)
    @Test func aMappedRegionShowsWhatTheWholeScreenWould() async {
        await propertyCheck(count: 200, input: Self.viewports, Gen.uint64()) { viewport, seed in
            guard viewport.scale >= 1 else { return }
            let screen = Self.noise(width: viewport.remoteWidth, height: viewport.remoteHeight, seed: seed)
            let request = viewport.pictureRequest
            let mapping = PictureMapping.fitting(PictureRequest(maxWidth: 0, maxHeight: 0, regionX: request.regionX, regionY: request.regionY,
                                                                regionWidth: request.regionWidth, regionHeight: request.regionHeight),
                                                 screenWidth: screen.width, screenHeight: screen.height)
            var scaler = PictureScaler(mapping: mapping)
            _ = scaler.update(from: screen, hints: nil)
            var whole = FrameScaler(viewport: viewport)
            whole.drawAll(from: screen)
            var mapped = FrameScaler(viewport: viewport, mapping: mapping)
            mapped.drawAll(from: scaler.picture)
            let same = whole.output == mapped.output
            #expect(same, "viewport \(viewport), mapping \(mapping)")
        }
    }

    /// A picture the host shrank to the image's size looks like the screen shrunk here: every
    /// colour within a few levels.
    @Test func aPictureScaledByTheHostLooksLikeOneScaledHere() {
        var screen = PixelBuffer(width: 400, height: 300)
        for y in 0..<300 { for x in 0..<400 { screen.setPixel(x: x, y: y, rgb: UInt32(x * 255 / 400) << 16 | UInt32(y * 255 / 300) << 8 | 0x40) } }
        let viewport = Viewport(remoteWidth: 400, remoteHeight: 300, areaWidth: 160, areaHeight: 120)
        let mapping = PictureMapping.fitting(viewport.pictureRequest, screenWidth: 400, screenHeight: 300)
        #expect((mapping.pictureWidth, mapping.pictureHeight) == (160, 120))
        var scaler = PictureScaler(mapping: mapping)
        _ = scaler.update(from: screen, hints: nil)
        var whole = FrameScaler(viewport: viewport)
        whole.drawAll(from: screen)
        var mapped = FrameScaler(viewport: viewport, mapping: mapping)
        mapped.drawAll(from: scaler.picture)
        var worst: UInt32 = 0
        for y in 0..<120 {
            for x in 0..<160 {
                let a = whole.output.pixel(x: x, y: y), b = mapped.output.pixel(x: x, y: y)
                for shift: UInt32 in [0, 8, 16] {
                    let (ca, cb) = (a >> shift & 0xFF, b >> shift & 0xFF)
                    worst = max(worst, ca > cb ? ca - cb : cb - ca)
                }
            }
        }
        #expect(worst <= 3, "largest channel difference \(worst)")
    }

    @Test func shrinkingAveragesAndKeepsFlatColoursExact() {
        var frame = PixelBuffer(width: 200, height: 100)
        frame.fill(PixelRect(x: 0, y: 0, width: 100, height: 100), rgb: 0xFF0000)
        frame.fill(PixelRect(x: 100, y: 0, width: 100, height: 100), rgb: 0x0000FF)
        for x in stride(from: 0, to: 200, by: 2) { frame.fill(PixelRect(x: x, y: 90, width: 1, height: 10), rgb: 0xFFFFFF) }
        var scaler = FrameScaler(viewport: Viewport(remoteWidth: 200, remoteHeight: 100, areaWidth: 50, areaHeight: 25))
        scaler.drawAll(from: frame)
        #expect(scaler.output.pixel(x: 5, y: 5) == 0xFF0000 && scaler.output.pixel(x: 40, y: 5) == 0x0000FF)
        let stripes = scaler.output.pixel(x: 5, y: 24)  // half white, half red: averaged, not aliased to either
        #expect(stripes >> 16 == 0xFF && (0x70...0x90).contains(stripes >> 8 & 0xFF), "\(String(stripes, radix: 16))")
    }

    @Test func theLetterboxIsBlack() {
        var frame = PixelBuffer(width: 100, height: 100)
        frame.fill(frame.bounds, rgb: 0x00FF00)
        var scaler = FrameScaler(viewport: Viewport(remoteWidth: 100, remoteHeight: 100, areaWidth: 300, areaHeight: 100))
        scaler.drawAll(from: frame)
        #expect(scaler.imageBounds == PixelRect(x: 100, y: 0, width: 100, height: 100))
        #expect(scaler.output.pixel(x: 50, y: 50) == 0 && scaler.output.pixel(x: 250, y: 50) == 0 && scaler.output.pixel(x: 150, y: 50) == 0x00FF00)
    }

    @Test func redrawingWhatChangedEqualsDrawingEverything() async {
        await propertyCheck(count: 200, input: Self.viewports, Gen.uint64(), Gen.int(in: 0...10_000).array(of: 4)) { viewport, seed, corner in
            let before = Self.noise(width: viewport.remoteWidth, height: viewport.remoteHeight, seed: seed)
            var after = before
            let x = corner[0] % viewport.remoteWidth, y = corner[1] % viewport.remoteHeight
            let change = PixelRect(x: x, y: y, width: 1 + corner[2] % (viewport.remoteWidth - x), height: 1 + corner[3] % (viewport.remoteHeight - y))
            after.fill(change, rgb: UInt32(seed & 0xFFFFFF))

            var incremental = FrameScaler(viewport: viewport)
            incremental.drawAll(from: before)
            incremental.redraw(incremental.localRect(covering: change).map { [$0] } ?? [], from: after)
            var full = FrameScaler(viewport: viewport)
            full.drawAll(from: after)
            #expect(incremental.output == full.output, "change \(change)")
        }
    }
}
