import Testing
import ZRCTestSupport
import ZRCJPEG
import ZRCProtocol

/// Hostile and broken input: every case must end in a typed error, never a crash or a huge
/// allocation, and the decoder must stay usable afterwards.
@Suite("JPEG decoder and encoder refuse bad input")
struct JPEGRejectionTests {
    /// A valid 48×32 JPEG to damage.
    static func sampleJPEG() throws -> [UInt8] {
        let image = SyntheticImage.pattern(width: 48, height: 32)
        return try image.pixels.withUnsafeBytes {
            try JPEGEncoder().encode(bgrx: $0, bytesPerRow: image.bytesPerRow,
                                     region: PixelRect(x: 0, y: 0, width: 48, height: 32), quality: 80, subsampling: .yuv420)
        }
    }

    /// The same JPEG with its frame header (SOF0) announcing another size.
    static func withAnnouncedSize(width: UInt16, height: UInt16) throws -> [UInt8] {
        var jpeg = try sampleJPEG()
        let sof = try #require((0..<(jpeg.count - 1)).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 },
                               "the encoder's output has no baseline frame header")
        // FF C0, length (2), precision (1), height (2), width (2).
        jpeg[sof + 5] = UInt8(height >> 8); jpeg[sof + 6] = UInt8(height & 0xFF)
        jpeg[sof + 7] = UInt8(width >> 8); jpeg[sof + 8] = UInt8(width & 0xFF)
        return jpeg
    }

    enum Damage: String, CaseIterable, Sendable {
        case empty, oneByte, randomBytes, gifHeader, startMarkerThenNoise, zeroWidth
        case truncatedAfterStartMarker, truncatedInHeaders, truncatedHalfway, truncatedBeforeEnd

        func apply() throws -> [UInt8] {
            var generator = SplitMix64(seed: 42)
            let jpeg = try JPEGRejectionTests.sampleJPEG()
            switch self {
            case .empty: return []
            case .oneByte: return [0xFF]
            case .randomBytes: return generator.bytes(2000)
            case .gifHeader: return Array("GIF89a".utf8) + generator.bytes(200)
            case .startMarkerThenNoise: return [0xFF, 0xD8] + generator.bytes(500)
            case .zeroWidth: return try JPEGRejectionTests.withAnnouncedSize(width: 0, height: 32)
            case .truncatedAfterStartMarker: return Array(jpeg.prefix(2))
            case .truncatedInHeaders: return Array(jpeg.prefix(100))
            case .truncatedHalfway: return Array(jpeg.prefix(jpeg.count / 2))
            case .truncatedBeforeEnd: return Array(jpeg.prefix(jpeg.count - 40))
            }
        }
    }

    @Test(arguments: Damage.allCases)
    func damagedDataIsAnError(_ damage: Damage) throws {
        let decoder = try JPEGDecoder()
        let data = try damage.apply()
        let error = #expect(throws: JPEGError.self) { try decoder.decode(data) }
        #expect(error?.kind == .damagedData, "\(damage): \(String(describing: error))")
        // The instance recovers: a good image still decodes after a failure.
        let good = try decoder.decode(try Self.sampleJPEG())
        #expect(good.width == 48 && good.height == 32)
    }

    struct SizeCase: Sendable, CustomTestStringConvertible {
        let width: UInt16
        let height: UInt16
        let maximum: Int
        var testDescription: String { "\(width)x\(height) with at most \(maximum) pixels" }
    }

    /// Refused from the header alone: the data behind it is only 48×32, so any attempt to
    /// allocate and decode would show up as damage instead of `imageTooLarge`.
    @Test(arguments: [
        SizeCase(width: 60000, height: 60000, maximum: JPEGDecoder.defaultMaximumPixelCount),
        SizeCase(width: 8193, height: 8192, maximum: JPEGDecoder.defaultMaximumPixelCount),
        SizeCase(width: 48, height: 32, maximum: 48 * 32 - 1),
        SizeCase(width: 48, height: 32, maximum: 100),
    ])
    func oversizedHeaderIsRefused(_ test: SizeCase) throws {
        let jpeg = try Self.withAnnouncedSize(width: test.width, height: test.height)
        let decoder = try JPEGDecoder(maximumPixelCount: test.maximum)
        let error = #expect(throws: JPEGError.self) { try decoder.decode(jpeg) }
        #expect(error?.kind == .imageTooLarge)
        #expect(error?.message.contains("\(test.width)x\(test.height)") == true)
    }

    @Test func exactlyTheMaximumIsAccepted() throws {
        let decoded = try JPEGDecoder(maximumPixelCount: 48 * 32).decode(try Self.sampleJPEG())
        #expect(decoded.width * decoded.height == 48 * 32)
    }

    @Test func destinationTooSmallIsRefused() throws {
        let jpeg = try Self.sampleJPEG()
        var small = [UInt8](repeating: 0, count: 48 * 4 * 32 - 1)
        let error = #expect(throws: JPEGError.self) {
            try jpeg.withUnsafeBytes { source in
                try small.withUnsafeMutableBytes { try JPEGDecoder().decode(source, into: $0, bytesPerRow: 48 * 4) }
            }
        }
        #expect(error?.kind == .invalidArgument)
    }

    struct EncodeCase: Sendable, CustomTestStringConvertible {
        let name: String
        let region: PixelRect
        let bytesPerRow: Int
        let quality: Int
        var testDescription: String { name }
    }

    @Test(arguments: [
        EncodeCase(name: "quality 0", region: PixelRect(x: 0, y: 0, width: 8, height: 8), bytesPerRow: 64, quality: 0),
        EncodeCase(name: "quality 101", region: PixelRect(x: 0, y: 0, width: 8, height: 8), bytesPerRow: 64, quality: 101),
        EncodeCase(name: "empty region", region: PixelRect(x: 0, y: 0, width: 0, height: 8), bytesPerRow: 64, quality: 80),
        EncodeCase(name: "negative origin", region: PixelRect(x: -1, y: 0, width: 4, height: 4), bytesPerRow: 64, quality: 80),
        EncodeCase(name: "past the right edge", region: PixelRect(x: 10, y: 0, width: 8, height: 8), bytesPerRow: 64, quality: 80),
        EncodeCase(name: "past the bottom", region: PixelRect(x: 0, y: 10, width: 8, height: 8), bytesPerRow: 64, quality: 80),
        EncodeCase(name: "stride shorter than a row", region: PixelRect(x: 0, y: 0, width: 16, height: 4), bytesPerRow: 60, quality: 80),
        EncodeCase(name: "overflowing geometry", region: PixelRect(x: Int.max - 2, y: 0, width: 8, height: 8), bytesPerRow: 64, quality: 80),
    ])
    func encoderRefusesBadArguments(_ test: EncodeCase) throws {
        let pixels = [UInt8](repeating: 0x80, count: 64 * 16)  // 16×16 at 64 bytes per row
        let encoder = try JPEGEncoder()
        let error = #expect(throws: JPEGError.self) {
            try pixels.withUnsafeBytes {
                try encoder.encode(bgrx: $0, bytesPerRow: test.bytesPerRow, region: test.region, quality: test.quality,
                                   subsampling: .yuv420)
            }
        }
        #expect(error?.kind == .invalidArgument)
    }

    @Test func decoderNeedsAPositiveMaximum() {
        #expect(throws: JPEGError.self) { try JPEGDecoder(maximumPixelCount: 0) }
    }
}
