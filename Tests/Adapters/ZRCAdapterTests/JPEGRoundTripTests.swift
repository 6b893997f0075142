import Testing
import ZRCTestSupport
import ZRCJPEG
import ZRCProtocol

@Suite("JPEG encode and decode round trips")
struct JPEGRoundTripTests {
    struct Case: CustomTestStringConvertible, Sendable {
        /// Gradients only (photo-like), or with the checkerboard and 1-pixel lines.
        let sharp: Bool
        let quality: Int
        let subsampling: JPEGSubsampling
        /// Lowest acceptable PSNR in dB over B, G and R.
        let minimumPSNR: Double
        var testDescription: String { "\(sharp ? "sharp" : "smooth") q\(quality) \(subsampling) ≥ \(minimumPSNR) dB" }
    }

    @Test(arguments: [
        // Measured with libjpeg-turbo 2.1.5: 47.6, 24.2, 27.4, 50.8, 48.1 and 51.7 dB. The bounds
        // sit 2–3 dB below, so a real regression (wrong channel order or stride gives < 15 dB)
        // fails while a different libjpeg-turbo build does not.
        Case(sharp: false, quality: 80, subsampling: .yuv420, minimumPSNR: 44),
        // Saturated 8×8 colour squares and 1-pixel lines are the worst case for subsampled chroma;
        // this is why the design refines still areas at 4:4:4.
        Case(sharp: true, quality: 80, subsampling: .yuv420, minimumPSNR: 22),
        Case(sharp: true, quality: 80, subsampling: .yuv422, minimumPSNR: 25),
        // Near-lossless: beyond 45 dB differences are invisible even on sharp edges.
        Case(sharp: false, quality: 95, subsampling: .yuv444, minimumPSNR: 45),
        Case(sharp: true, quality: 95, subsampling: .yuv444, minimumPSNR: 45),
        Case(sharp: true, quality: 100, subsampling: .yuv444, minimumPSNR: 48),
    ])
    func roundTripKeepsQuality(_ test: Case) throws {
        let image = SyntheticImage.pattern(width: 200, height: 120, sharpDetails: test.sharp)
        let encoder = try JPEGEncoder()
        let jpeg = try image.pixels.withUnsafeBytes { bytes in
            try encoder.encode(bgrx: bytes, bytesPerRow: image.bytesPerRow,
                               region: PixelRect(x: 0, y: 0, width: 200, height: 120),
                               quality: test.quality, subsampling: test.subsampling)
        }
        let decoded = try JPEGDecoder().decode(jpeg)
        #expect(decoded.width == 200 && decoded.height == 120)
        #expect(decoded.bytesPerRow == 800 && decoded.pixels.count == 800 * 120)
        let psnr = ImageQuality.psnr(image.pixels, strideA: image.bytesPerRow, decoded.pixels, strideB: decoded.bytesPerRow,
                                       width: 200, height: 120)
        #expect(psnr >= test.minimumPSNR, "PSNR \(psnr) dB at \(test.testDescription)")
        let header = try JPEGDecoder().readHeader(jpeg)
        #expect(header.subsampling == test.subsampling)
    }

    /// The fourth byte is padding: whatever an X server leaves there must not change the JPEG.
    @Test(arguments: [UInt8(0x00), 0xFF, 0x5A])
    func paddingByteIsIgnored(_ fill: UInt8) throws {
        let zero = SyntheticImage.pattern(width: 64, height: 48)
        var generator = SplitMix64(seed: UInt64(fill))
        let noise = (0..<(64 * 48)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let junk = SyntheticImage.pattern(width: 64, height: 48) { x, y in fill == 0x5A ? noise[y * 64 + x] : fill }
        let encoder = try JPEGEncoder()
        let region = PixelRect(x: 0, y: 0, width: 64, height: 48)
        let a = try zero.pixels.withUnsafeBytes {
            try encoder.encode(bgrx: $0, bytesPerRow: zero.bytesPerRow, region: region, quality: 85, subsampling: .yuv420)
        }
        let b = try junk.pixels.withUnsafeBytes {
            try encoder.encode(bgrx: $0, bytesPerRow: junk.bytesPerRow, region: region, quality: 85, subsampling: .yuv420)
        }
        #expect(a == b)
    }

    /// A region read in place from a padded framebuffer encodes exactly like the same pixels
    /// copied out into a packed buffer: the stride and offset are honoured, nothing else is read.
    @Test(arguments: [
        PixelRect(x: 0, y: 0, width: 100, height: 60),
        PixelRect(x: 13, y: 7, width: 33, height: 21),
        PixelRect(x: 99, y: 59, width: 1, height: 1),
        PixelRect(x: 36, y: 0, width: 64, height: 60),
    ])
    func regionWithStrideMatchesPackedCopy(_ region: PixelRect) throws {
        let frame = SyntheticImage.pattern(width: 100, height: 60, rowPadding: 24)
        var packed: [UInt8] = []
        for row in region.y..<(region.y + region.height) {
            let start = row * frame.bytesPerRow + region.x * 4
            packed += frame.pixels[start..<(start + region.width * 4)]
        }
        let encoder = try JPEGEncoder()
        var inPlace: [UInt8] = []
        try frame.pixels.withUnsafeBytes {
            try encoder.encode(bgrx: $0, bytesPerRow: frame.bytesPerRow, region: region, quality: 90, subsampling: .yuv444,
                               into: &inPlace)
        }
        let fromCopy = try packed.withUnsafeBytes {
            try encoder.encode(bgrx: $0, bytesPerRow: region.width * 4,
                               region: PixelRect(x: 0, y: 0, width: region.width, height: region.height),
                               quality: 90, subsampling: .yuv444)
        }
        #expect(inPlace == fromCopy)
    }

    /// One encoder, many sizes: its buffer grows and is reused, and the caller's output array
    /// keeps its capacity.
    @Test func encoderIsReusableAcrossSizes() throws {
        let frame = SyntheticImage.pattern(width: 300, height: 200)
        let encoder = try JPEGEncoder()
        let decoder = try JPEGDecoder()
        var output: [UInt8] = []
        for (width, height) in [(16, 16), (300, 200), (8, 8), (120, 90), (300, 200)] {
            try frame.pixels.withUnsafeBytes {
                try encoder.encode(bgrx: $0, bytesPerRow: frame.bytesPerRow,
                                   region: PixelRect(x: 0, y: 0, width: width, height: height),
                                   quality: 75, subsampling: .yuv420, into: &output)
            }
            let info = try output.withUnsafeBytes { try decoder.readHeader($0) }
            #expect(info.width == width && info.height == height)
        }
    }

    /// Decoding into a window of a larger framebuffer writes the image rows and nothing between them.
    @Test func decodesIntoCallerBufferWithStride() throws {
        let image = SyntheticImage.pattern(width: 40, height: 30)
        let jpeg = try image.pixels.withUnsafeBytes {
            try JPEGEncoder().encode(bgrx: $0, bytesPerRow: image.bytesPerRow,
                                     region: PixelRect(x: 0, y: 0, width: 40, height: 30), quality: 100, subsampling: .yuv444)
        }
        let stride = 40 * 4 + 12
        var target = [UInt8](repeating: 0xAB, count: stride * 30)
        let info = try jpeg.withUnsafeBytes { source in
            try target.withUnsafeMutableBytes { try JPEGDecoder().decode(source, into: $0, bytesPerRow: stride) }
        }
        #expect(info.width == 40 && info.height == 30)
        for row in 0..<30 {
            #expect(target[(row * stride + 160)..<(row * stride + stride)].allSatisfy { $0 == 0xAB })
        }
        let psnr = ImageQuality.psnr(image.pixels, strideA: image.bytesPerRow, target, strideB: stride, width: 40, height: 30)
        #expect(psnr >= 45)
    }
}
