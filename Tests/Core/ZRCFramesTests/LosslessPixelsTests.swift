import PropertyBased
import Testing
import ZRCFrames
import ZRCProtocol

@Suite struct LosslessPixelsTests {
    /// An image drawn from `colours` distinct colours, in runs, as text and UI are.
    static func fewColours(width: Int, height: Int, colours: Int, seed: UInt64) -> PixelBuffer {
        var random = Xorshift(seed: seed | 1)
        let palette = (0..<colours).map { UInt32($0) &* 0x9E3779 & 0xFFFFFF }
        var image = PixelBuffer(width: width, height: height)
        var colour = palette[0]
        for y in 0..<height {
            for x in 0..<width {
                if random.next() % 5 == 0 { colour = palette[Int(random.next() % UInt64(colours))] }
                image.setPixel(x: x, y: y, rgb: colour)
            }
        }
        return image
    }

    /// Any area, of any number of colours, decodes to exactly its pixels; up to 256 colours it
    /// travels as a palette.
    @Test func payloadsRoundTripExactly() async {
        await propertyCheck(count: 200, input: Gen.int(in: 1...90), Gen.int(in: 1...40), Gen.int(in: 1...400), Gen.int(in: 0...Int(UInt32.max))) {
            width, height, colours, seed in
            let image = Self.fewColours(width: width, height: height, colours: colours, seed: UInt64(seed))
            var random = Xorshift(seed: UInt64(seed) ^ 0xABCDEF)
            let x = Int(random.next() % UInt64(width)), y = Int(random.next() % UInt64(height))
            let rect = PixelRect(x: x, y: y, width: 1 + Int(random.next() % UInt64(width - x)), height: 1 + Int(random.next() % UInt64(height - y)))
            let payload = LosslessPixels.payload(image, rect: rect)
            #expect(payload.count <= LosslessPixels.maximumPayloadSize(width: rect.width, height: rect.height))
            if colours <= 16 { #expect(payload.first == 0, "few colours travel as a palette") }
            var decoded = PixelBuffer(width: width, height: height)
            try LosslessPixels.decode(payload, into: &decoded, rect: rect)
            #expect(decoded.crop(rect) == image.crop(rect))
        }
    }

    @Test(arguments: [(2, 1), (3, 2), (4, 2), (5, 4), (16, 4), (17, 8), (256, 8)])
    func indicesTakeTheFewestBits(colours: Int, bits: Int) throws {
        var image = PixelBuffer(width: 61, height: 64)
        for y in 0..<64 {
            for x in 0..<61 { image.setPixel(x: x, y: y, rgb: UInt32((x + y * 61) % colours) &* 0x010203) }
        }
        let payload = try #require(LosslessPixels.palettePayload(image, rect: image.bounds))
        #expect(Int(payload[1]) + 1 == colours)
        #expect(payload.count == 2 + colours * 3 + (61 * bits + 7) / 8 * 64)
    }

    /// The example in Schemas/wire-protocol.md, byte for byte.
    @Test func theSpecExampleDecodes() throws {
        var image = PixelBuffer(width: 2, height: 1)
        image.setPixel(x: 1, y: 0, rgb: 0xFFFFFF)
        let payload: [UInt8] = [0x00, 0x01, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0x40]
        #expect(LosslessPixels.palettePayload(image, rect: image.bounds) == payload)
        var decoded = PixelBuffer(width: 2, height: 1)
        decoded.fill(decoded.bounds, rgb: 0x123456)
        try LosslessPixels.decode(payload, into: &decoded, rect: decoded.bounds)
        #expect(decoded == image)
    }

    @Test func moreThan256ColoursHaveNoPalette() {
        let image = ChangeDetectionTests.pattern(width: 64, height: 64)
        #expect(LosslessPixels.palettePayload(image, rect: image.bounds) == nil)
        #expect(LosslessPixels.payload(image, rect: image.bounds).first == 1)
    }

    static let damaged: [(String, [UInt8])] = [
        ("empty", []),
        ("unknown kind", [7, 0, 0, 0]),
        ("palette without count", [0]),
        ("palette cut short", [0, 1, 0, 0, 0, 255, 255, 255]),
        ("palette too long", [0, 0, 1, 2, 3] + [UInt8](repeating: 0, count: 5)),
        ("index beyond the palette", [0, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 0b1100_0000, 0, 0, 0]),
        ("true colour cut short", [1] + [UInt8](repeating: 9, count: 11)),
        ("true colour too long", [1] + [UInt8](repeating: 9, count: 13)),
    ]

    /// A 2×2 rect: every malformed payload is an error, never a crash or a partial read.
    @Test(arguments: damaged)
    func damagedPayloadsAreRefused(name: String, payload: [UInt8]) {
        var image = PixelBuffer(width: 4, height: 4)
        #expect(throws: FrameError.self, "\(name)") {
            try LosslessPixels.decode(payload, into: &image, rect: PixelRect(x: 1, y: 1, width: 2, height: 2))
        }
    }

    /// The exact bounds of a change are found wherever it lies in the area searched.
    @Test func differingBoundsAreExact() async {
        await propertyCheck(count: 200, input: Gen.int(in: 1...100), Gen.int(in: 1...70), Gen.int(in: 0...Int(UInt32.max))) { width, height, seed in
            var random = Xorshift(seed: UInt64(seed) | 1)
            let before = ChangeDetectionTests.pattern(width: width, height: height)
            var after = before
            var expected: PixelRect?
            for _ in 0..<(1 + Int(random.next() % 3)) {
                let x = Int(random.next() % UInt64(width)), y = Int(random.next() % UInt64(height))
                after.setPixel(x: x, y: y, rgb: before.pixel(x: x, y: y) ^ 0x000100)
                let point = PixelRect(x: x, y: y, width: 1, height: 1)
                expected = expected.map { $0.union(point) } ?? point
            }
            #expect(TileComparison.differingBounds(before, after, in: before.bounds) == expected)
            #expect(TileComparison.differingBounds(before, before, in: before.bounds) == nil)
        }
    }

    /// Moving an area equals copying it out and back in, however source and destination overlap.
    @Test func movesBehaveAsThroughATemporaryCopy() async {
        await propertyCheck(count: 200, input: Gen.int(in: 1...60), Gen.int(in: 1...60), Gen.int(in: 0...Int(UInt32.max))) { width, height, seed in
            var random = Xorshift(seed: UInt64(seed) | 1)
            let image = ChangeDetectionTests.pattern(width: width, height: height)
            let w = 1 + Int(random.next() % UInt64(width)), h = 1 + Int(random.next() % UInt64(height))
            let source = PixelRect(x: Int(random.next() % UInt64(width - w + 1)), y: Int(random.next() % UInt64(height - h + 1)), width: w, height: h)
            let target = PixelRect(x: Int(random.next() % UInt64(width - w + 1)), y: Int(random.next() % UInt64(height - h + 1)), width: w, height: h)
            var moved = image
            moved.move(source, to: target)
            var expected = image
            expected.blit(image.crop(source), into: target)
            #expect(moved == expected)
        }
    }
}
