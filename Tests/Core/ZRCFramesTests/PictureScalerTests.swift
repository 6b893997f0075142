import PropertyBased
import Testing
import ZRCFrames
import ZRCProtocol

@Suite struct PictureScalerTests {
    /// Each picture pixel is the rounded mean of the screen pixels in its box.
    static func reference(_ screen: PixelBuffer, _ mapping: PictureMapping) -> PixelBuffer {
        let (pw, ph) = (Int(mapping.pictureWidth), Int(mapping.pictureHeight))
        let (rw, rh) = (Int(mapping.regionWidth), Int(mapping.regionHeight))
        var picture = PixelBuffer(width: pw, height: ph)
        for py in 0..<ph {
            for px in 0..<pw {
                let x0 = px * rw / pw, x1 = max(x0 + 1, (px + 1) * rw / pw)
                let y0 = py * rh / ph, y1 = max(y0 + 1, (py + 1) * rh / ph)
                var sums = [0, 0, 0]
                for y in y0..<y1 {
                    for x in x0..<x1 {
                        let pixel = screen.pixel(x: Int(mapping.regionX) + x, y: Int(mapping.regionY) + y)
                        sums[0] += Int(pixel >> 16 & 0xFF)
                        sums[1] += Int(pixel >> 8 & 0xFF)
                        sums[2] += Int(pixel & 0xFF)
                    }
                }
                let count = (x1 - x0) * (y1 - y0)
                let rgb = sums.map { UInt32(($0 + count / 2) / count) }
                picture.setPixel(x: px, y: py, rgb: rgb[0] << 16 | rgb[1] << 8 | rgb[2])
            }
        }
        return picture
    }

    /// The largest difference of any colour channel between two pictures of one size.
    static func largestDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> UInt32 {
        var worst: UInt32 = 0
        for y in 0..<a.height {
            for x in 0..<a.width {
                let (p, q) = (a.pixel(x: x, y: y), b.pixel(x: x, y: y))
                for shift: UInt32 in [0, 8, 16] {
                    let (c, d) = (p >> shift & 0xFF, q >> shift & 0xFF)
                    worst = max(worst, c > d ? c - d : d - c)
                }
            }
        }
        return worst
    }

    /// Whatever the request and however the screen changes, the picture kept up to date through
    /// hints equals the box filter of the current screen (each channel the rounded mean, ±1 for
    /// the reciprocal multiply that stands in for a division).
    @Test func thePictureIsTheBoxFilteredRegion() async {
        await propertyCheck(count: 100, input: Gen.int(in: 1...120), Gen.int(in: 1...90), Gen.int(in: 0...Int(UInt32.max))) { width, height, seed in
            var random = Xorshift(seed: UInt64(seed) | 1)
            var screen = ChangeDetectionTests.pattern(width: width, height: height, seed: UInt32(seed & 0xFF))
            let region = random.next() % 2 == 0
                ? (0, 0, 0, 0)
                : (Int(random.next() % UInt64(width)), Int(random.next() % UInt64(height)), 1 + Int(random.next() % UInt64(width)),
                   1 + Int(random.next() % UInt64(height)))
            let request = PictureRequest(maxWidth: UInt16(1 + random.next() % 130), maxHeight: UInt16(1 + random.next() % 100),
                                         regionX: UInt16(region.0), regionY: UInt16(region.1), regionWidth: UInt16(region.2),
                                         regionHeight: UInt16(region.3))
            let mapping = PictureMapping.fitting(request, screenWidth: width, screenHeight: height)
            try ZRCMessage.pictureMapping(mapping).validate()
            var scaler = PictureScaler(mapping: mapping)
            #expect(scaler.update(from: screen, hints: []) == nil, "the first update draws everything")
            for _ in 0..<3 {
                let x = Int(random.next() % UInt64(width)), y = Int(random.next() % UInt64(height))
                let change = PixelRect(x: x, y: y, width: 1 + Int(random.next() % UInt64(width - x)), height: 1 + Int(random.next() % UInt64(height - y)))
                screen.fill(change, rgb: UInt32(random.next() & 0xFFFFFF))
                _ = scaler.update(from: screen, hints: [change])
                #expect(Self.largestDifference(scaler.picture, Self.reference(screen, mapping)) <= 1, "mapping \(mapping)")
            }
        }
    }

    static let fittings: [(PictureRequest, screen: (Int, Int), region: (Int, Int, Int, Int), picture: (Int, Int))] = [
        (.fullResolution, (1920, 1080), (0, 0, 1920, 1080), (1920, 1080)),
        (PictureRequest(maxWidth: 960, maxHeight: 1000), (1920, 1080), (0, 0, 1920, 1080), (960, 540)),
        (PictureRequest(maxWidth: 4000, maxHeight: 4000), (1920, 1080), (0, 0, 1920, 1080), (1920, 1080)),
        (PictureRequest(maxWidth: 2000, maxHeight: 1125, regionX: 480, regionY: 270, regionWidth: 480, regionHeight: 270),
         (1920, 1080), (480, 270, 480, 270), (480, 270)),
        (PictureRequest(maxWidth: 100, maxHeight: 100, regionX: 1900, regionY: 1000, regionWidth: 500, regionHeight: 500),
         (1920, 1080), (1900, 1000, 20, 80), (20, 80)),
        (PictureRequest(maxWidth: 10, maxHeight: 10, regionX: 5000, regionY: 5000, regionWidth: 5, regionHeight: 5),
         (640, 480), (0, 0, 640, 480), (10, 8)),
        (PictureRequest(maxWidth: 1, maxHeight: 1), (1920, 1080), (0, 0, 1920, 1080), (1, 1)),
    ]

    @Test(arguments: fittings)
    func requestsAreFittedToTheScreen(request: PictureRequest, screen: (Int, Int), region: (Int, Int, Int, Int), picture: (Int, Int)) {
        let mapping = PictureMapping.fitting(request, screenWidth: screen.0, screenHeight: screen.1)
        #expect((Int(mapping.regionX), Int(mapping.regionY), Int(mapping.regionWidth), Int(mapping.regionHeight)) == region)
        #expect((Int(mapping.pictureWidth), Int(mapping.pictureHeight)) == picture)
    }
}
