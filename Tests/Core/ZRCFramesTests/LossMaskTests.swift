import PropertyBased
import Testing
import ZRCFrames
import ZRCProtocol

/// Which pixels are exactly the host's: JPEG makes them approximate, lossless, raw and solid
/// exact, a copy carries its source's state; a screenshot waits for none to be left.
@Suite struct LossMaskTests {
    @Test func marksCountExactlyAcrossWordEdges() {
        var mask = LossMask(width: 130, height: 3)
        #expect(mask.inexactPixels == 390, "nothing drawn yet")
        mask.mark(PixelRect(x: 0, y: 0, width: 130, height: 3), exact: true)
        #expect(mask.isExact)
        mask.mark(PixelRect(x: 60, y: 1, width: 10, height: 2), exact: false)
        #expect(mask.inexactPixels == 20)
        #expect(!mask.isExact(x: 63, y: 1) && !mask.isExact(x: 64, y: 2) && mask.isExact(x: 70, y: 1) && mask.isExact(x: 65, y: 0))
        mask.mark(PixelRect(x: 65, y: 1, width: 65, height: 1), exact: true)
        #expect(mask.inexactPixels == 15)
    }

    /// A copy rect moves the state with the pixels, also when source and destination overlap.
    @Test func copiesCarryTheSourcesState() {
        var mask = LossMask(width: 100, height: 10)
        mask.mark(PixelRect(x: 0, y: 0, width: 100, height: 10), exact: true)
        mask.mark(PixelRect(x: 10, y: 1, width: 5, height: 1), exact: false)
        mask.copy(from: PixelRect(x: 0, y: 1, width: 100, height: 9), to: PixelRect(x: 0, y: 0, width: 100, height: 9))
        #expect(!mask.isExact(x: 12, y: 0) && mask.isExact(x: 12, y: 1), "scrolled up one row")
        #expect(mask.inexactPixels == 5)
    }

    /// Against a plain array of booleans, for random marks and copies.
    @Test func agreesWithAPlainModel() async {
        await propertyCheck(count: 200, input: Gen.int(in: 0...Int.max).array(of: 1...40)) { values in
            let width = 150, height = 20
            var mask = LossMask(width: width, height: height)
            var model = [[Bool]](repeating: [Bool](repeating: false, count: width), count: height)
            for value in values {
                var v = value
                func next(_ bound: Int) -> Int { defer { v /= max(bound, 1) }; return v % max(bound, 1) }
                let w = 1 + next(width), h = 1 + next(height)
                let rect = PixelRect(x: next(width - w + 1), y: next(height - h + 1), width: w, height: h)
                if next(3) == 0 {
                    let source = PixelRect(x: next(width - w + 1), y: next(height - h + 1), width: w, height: h)
                    let snapshot = model
                    for dy in 0..<h { for dx in 0..<w { model[rect.y + dy][rect.x + dx] = snapshot[source.y + dy][source.x + dx] } }
                    mask.copy(from: source, to: rect)
                } else {
                    let exact = next(2) == 0
                    for dy in 0..<h { for dx in 0..<w { model[rect.y + dy][rect.x + dx] = exact } }
                    mask.mark(rect, exact: exact)
                }
            }
            let expected = model.reduce(0) { $0 + $1.count { !$0 } }
            #expect(mask.inexactPixels == expected)
            #expect((0..<height).allSatisfy { y in (0..<width).allSatisfy { x in mask.isExact(x: x, y: y) == model[y][x] } })
        }
    }

    /// "Decodes" a JPEG as a grey fill; lossless payloads pass through unchanged.
    struct StandInDecoder: RegionDecoder {
        mutating func decodeJPEG(_ data: [UInt8], into image: inout PixelBuffer, rect: PixelRect) throws { image.fill(rect, rgb: 0x808080) }
        mutating func decompressLossless(_ chunk: [UInt8], maximumSize: Int) throws -> [UInt8] { chunk }
        mutating func decompressLosslessFrame(_ frame: [UInt8], maximumSize: Int) throws -> [UInt8] { frame }
        mutating func restartLossless(_ chunk: [UInt8], maximumSize: Int) throws -> [UInt8] { chunk }
    }

    @Test func theCompositorTracksJPEGAndItsRefinement() throws {
        var decoder = StandInDecoder()
        func update(_ id: UInt64, _ rects: [FrameRect]) -> FrameUpdate {
            FrameUpdate(frameID: id, captureMicros: 0, encodeDoneMicros: 0, sendMicros: 0, screenWidth: 64, screenHeight: 64, quality: 0, rects: rects)
        }
        var compositor = FrameCompositor(tracksExactness: true)
        try compositor.apply(update(1, [FrameRect(x: 0, y: 0, width: 32, height: 64, content: .solid(pixel: 0))]), decoder: &decoder)
        #expect(compositor.lossMask?.inexactPixels == 32 * 64, "the right half was never drawn")
        try compositor.apply(update(2, [FrameRect(x: 32, y: 0, width: 32, height: 64, content: .jpeg([0xFF]))]), decoder: &decoder)
        #expect(compositor.lossMask?.inexactPixels == 32 * 64, "drawn, but from JPEG")
        try compositor.apply(update(3, [FrameRect(x: 0, y: 0, width: 32, height: 64, content: .copy(sourceX: 32, sourceY: 0))]), decoder: &decoder)
        #expect(compositor.isExact == false && compositor.lossMask?.inexactPixels == 64 * 64, "a copy of JPEG pixels is approximate too")
        try compositor.apply(update(4, [FrameRect(x: 0, y: 0, width: 64, height: 64, content: .raw(bgrx: [UInt8](repeating: 0, count: 64 * 64 * 4)))]),
                             decoder: &decoder)
        #expect(compositor.isExact == true, "refined")
        #expect(FrameCompositor().isExact == nil, "not tracked unless asked")
    }
}
