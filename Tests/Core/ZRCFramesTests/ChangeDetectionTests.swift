import PropertyBased
import Testing
import ZRCFrames
import ZRCProtocol

@Suite struct ChangeDetectionTests {
    /// A deterministic busy image so neighbouring tiles differ.
    static func pattern(width: Int, height: Int, seed: UInt32 = 1) -> PixelBuffer {
        var image = PixelBuffer(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width { image.setPixel(x: x, y: y, rgb: (UInt32(x) &* 2654435761 ^ UInt32(y) &* 40503 ^ seed) & 0xFFFFFF) }
        }
        return image
    }

    @Test func identicalImagesHaveNoChanges() {
        let image = Self.pattern(width: 200, height: 150)
        #expect(TileChangeDetector().changedRegions(previous: image, current: image).isEmpty)
    }

    @Test func thePaddingByteIsIgnored() {
        let image = Self.pattern(width: 130, height: 70)
        var noisy = image
        for index in stride(from: 3, to: noisy.bytes.count, by: 4) { noisy.bytes[index] = 0xAB }
        #expect(TileChangeDetector().changedRegions(previous: image, current: noisy).isEmpty)
        #expect(image == noisy)
    }

    @Test(arguments: [(0, 0), (63, 63), (64, 0), (199, 149), (130, 64)])
    func oneChangedPixelDirtiesExactlyItsTile(x: Int, y: Int) {
        let image = Self.pattern(width: 200, height: 150)
        var changed = image
        changed.setPixel(x: x, y: y, rgb: image.pixel(x: x, y: y) ^ 0x010000)
        let regions = TileChangeDetector().changedRegions(previous: image, current: changed)
        let tileX = x / 64 * 64, tileY = y / 64 * 64
        #expect(regions == [PixelRect(x: tileX, y: tileY, width: min(64, 200 - tileX), height: min(64, 150 - tileY))])
    }

    @Test func hintsLimitWhereChangesAreLookedFor() {
        let image = Self.pattern(width: 256, height: 128)
        var changed = image
        changed.setPixel(x: 10, y: 10, rgb: 0)
        changed.setPixel(x: 200, y: 100, rgb: 0)
        let regions = TileChangeDetector().changedRegions(previous: image, current: changed, hints: [PixelRect(x: 190, y: 90, width: 5, height: 5)])
        #expect(regions == [PixelRect(x: 192, y: 64, width: 64, height: 64)])
    }

    /// Every changed pixel is covered, every covered tile really changed, and no two rectangles overlap.
    @Test func regionsCoverExactlyTheChangedTiles() async {
        await propertyCheck(count: 200, input: Gen.int(in: 1...300), Gen.int(in: 1...200), Gen.int(in: 0...40), Gen.int(in: 0...Int(UInt32.max))) {
            width, height, changes, seed in
            var generator = Xorshift(seed: UInt64(seed) | 1)
            let image = Self.pattern(width: width, height: height, seed: UInt32(seed & 0xFFFF))
            var changed = image
            var points: [(Int, Int)] = []
            for _ in 0..<changes {
                let x = Int(generator.next() % UInt64(width)), y = Int(generator.next() % UInt64(height))
                changed.setPixel(x: x, y: y, rgb: image.pixel(x: x, y: y) ^ 0x808080)
                points.append((x, y))
            }
            let tileSize = [8, 16, 64][Int(generator.next() % 3)]
            let regions = TileChangeDetector(tileSize: tileSize).changedRegions(previous: image, current: changed)
            for (x, y) in points { #expect(regions.contains { $0.contains(x: x, y: y) }) }
            for (i, a) in regions.enumerated() {
                for b in regions[(i + 1)...] { #expect(a.intersection(b).isEmpty) }
            }
            let grid = TileGrid(width: width, height: height, tileSize: tileSize)
            for region in regions {
                for tile in grid.tiles(overlapping: [region]) {
                    #expect(!TileComparison.equal(image, changed, in: grid.rect(of: tile)), "tile \(tile) re-sent unchanged")
                }
            }
        }
    }

    @Test func solidColourIsDetected() {
        var image = Self.pattern(width: 100, height: 100)
        image.fill(PixelRect(x: 10, y: 10, width: 33, height: 20), rgb: 0x123456)
        #expect(TileComparison.solidColour(of: image, in: PixelRect(x: 10, y: 10, width: 33, height: 20)) == 0x123456)
        #expect(TileComparison.solidColour(of: image, in: PixelRect(x: 9, y: 10, width: 33, height: 20)) == nil)
    }

    @Test func cropAndBlitRoundTrip() {
        let image = Self.pattern(width: 90, height: 40)
        var target = PixelBuffer(width: 90, height: 40)
        let rect = PixelRect(x: 7, y: 3, width: 51, height: 29)
        target.blit(image.crop(rect), into: rect)
        #expect(TileComparison.equal(image, target, in: rect))
        #expect(TileChangeDetector(tileSize: 8).changedRegions(previous: image, current: target).allSatisfy { !$0.isEmpty })
    }
}

/// A small deterministic generator so a property's failing case replays from its printed seed.
struct Xorshift {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }
}
