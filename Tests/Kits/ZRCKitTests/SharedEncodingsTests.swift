import Testing
import ZRCFrames
import ZRCProtocol
@testable import ZRCHostKit

/// Sessions share a JPEG exactly when it was made from the same pixels (capture generation and
/// scaling), of the same rectangle, at the same quality and chroma.
@Suite struct SharedEncodingsTests {
    /// Counts encodes; each JPEG is its call number, so a shared one is recognisable.
    final class CountingEncoder: RegionEncoder {
        var encodes = 0
        func encodeJPEG(_ image: PixelBuffer, rect: PixelRect, quality: Int, fullChroma: Bool) throws -> [UInt8] {
            encodes += 1
            return [UInt8](repeating: UInt8(encodes), count: 100)
        }
        func compressLossless(_ payload: [UInt8]) throws -> [UInt8] { payload }
        func compressLosslessFrame(_ payload: [UInt8]) throws -> [UInt8] { payload }
    }

    let image = PixelBuffer(width: 64, height: 64)
    let rect = PixelRect(x: 0, y: 0, width: 32, height: 32)

    @Test func theSecondSessionGetsTheFirstSessionsEncoding() throws {
        let shared = SharedEncodings()
        let (first, second) = (CountingEncoder(), CountingEncoder())
        var a = SharingEncoder(base: first, shared: shared, picture: .init(generation: 7, mapping: nil))
        var b = SharingEncoder(base: second, shared: shared, picture: .init(generation: 7, mapping: nil))
        let made = try a.encodeJPEG(image, rect: rect, quality: 80, fullChroma: false)
        let reused = try b.encodeJPEG(image, rect: rect, quality: 80, fullChroma: false)
        #expect(made == reused)
        #expect(first.encodes == 1 && second.encodes == 0)
        #expect(shared.counts.hits == 1 && shared.counts.misses == 1)
    }

    static let differences: [(String, SharedEncodings.Picture, PixelRect, Int, Bool)] = [
        ("another capture", .init(generation: 8, mapping: nil), PixelRect(x: 0, y: 0, width: 32, height: 32), 80, false),
        ("another rectangle", .init(generation: 7, mapping: nil), PixelRect(x: 32, y: 0, width: 32, height: 32), 80, false),
        ("another quality", .init(generation: 7, mapping: nil), PixelRect(x: 0, y: 0, width: 32, height: 32), 70, false),
        ("full chroma", .init(generation: 7, mapping: nil), PixelRect(x: 0, y: 0, width: 32, height: 32), 80, true),
        ("a scaled picture", .init(generation: 7, mapping: PictureMapping(screenWidth: 64, screenHeight: 64, regionX: 0, regionY: 0,
                                                                           regionWidth: 64, regionHeight: 64, pictureWidth: 32,
                                                                           pictureHeight: 32)),
         PixelRect(x: 0, y: 0, width: 32, height: 32), 80, false),
    ]

    @Test(arguments: differences)
    func anyDifferenceIsEncodedAfresh(_ difference: (String, SharedEncodings.Picture, PixelRect, Int, Bool)) throws {
        let shared = SharedEncodings()
        let (first, second) = (CountingEncoder(), CountingEncoder())
        var a = SharingEncoder(base: first, shared: shared, picture: .init(generation: 7, mapping: nil))
        var b = SharingEncoder(base: second, shared: shared, picture: difference.1)
        _ = try a.encodeJPEG(image, rect: rect, quality: 80, fullChroma: false)
        _ = try b.encodeJPEG(image, rect: difference.2, quality: difference.3, fullChroma: difference.4)
        #expect(second.encodes == 1, "\(difference.0)")
    }

    @Test func anUnknownGenerationIsNeverShared() throws {
        let shared = SharedEncodings()
        let base = CountingEncoder()
        var encoder = SharingEncoder(base: base, shared: shared, picture: .init(generation: 0, mapping: nil))
        _ = try encoder.encodeJPEG(image, rect: rect, quality: 80, fullChroma: false)
        _ = try encoder.encodeJPEG(image, rect: rect, quality: 80, fullChroma: false)
        #expect(base.encodes == 2)
    }

    @Test func nothingIsKeptForASessionAlone() throws {
        let shared = SharedEncodings()
        let base = CountingEncoder()
        var alone = SharingEncoder(base: base, shared: shared, picture: .init(generation: 7, mapping: nil))
        _ = try alone.encodeJPEG(image, rect: rect, quality: 80, fullChroma: false)
        var second = SharingEncoder(base: CountingEncoder(), shared: shared, picture: .init(generation: 7, mapping: nil))
        _ = try second.encodeJPEG(image, rect: rect, quality: 80, fullChroma: false)
        #expect(shared.counts.hits == 0, "made while alone, so not kept")
        _ = try alone.encodeJPEG(image, rect: rect, quality: 80, fullChroma: false)
        #expect(shared.counts.hits == 1, "kept once two watch")
    }

    @Test func theOldestEncodingsGoFirstBeyondTheByteLimit() throws {
        let shared = SharedEncodings(maximumBytes: 250)  // two 100-byte encodings fit, not three
        let base = CountingEncoder()
        let companion = SharingEncoder(base: CountingEncoder(), shared: shared)  // a second session, so encodings are kept
        defer { withExtendedLifetime(companion) {} }
        var encoder = SharingEncoder(base: base, shared: shared)
        for generation in UInt64(1)...3 {
            encoder.picture = .init(generation: generation, mapping: nil)
            _ = try encoder.encodeJPEG(image, rect: rect, quality: 80, fullChroma: false)
        }
        let probe = CountingEncoder()
        var other = SharingEncoder(base: probe, shared: shared, picture: .init(generation: 3, mapping: nil))
        _ = try other.encodeJPEG(image, rect: rect, quality: 80, fullChroma: false)
        other.picture = .init(generation: 1, mapping: nil)
        _ = try other.encodeJPEG(image, rect: rect, quality: 80, fullChroma: false)
        #expect(probe.encodes == 1, "generation 3 was kept, generation 1 was evicted")
    }
}
