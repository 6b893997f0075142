public import ZRCFrames
import ZRCJPEG

/// The frame pipeline's codec over libjpeg-turbo: BGRX straight from the captured buffer (no
/// conversion pass), 4:2:0 for motion and 4:4:4 for refinement.
public final class TurboJPEGCodec: RegionEncoder, RegionDecoder {
    private let encoder: JPEGEncoder
    private let decoder: JPEGDecoder

    public init() throws {
        encoder = try JPEGEncoder()
        decoder = try JPEGDecoder()
    }

    public func encodeJPEG(_ image: PixelBuffer, rect: PixelRect, quality: Int, fullChroma: Bool) throws -> [UInt8] {
        try image.bytes.withUnsafeBytes { pixels in
            try encoder.encode(bgrx: pixels, bytesPerRow: image.bytesPerRow,
                               region: PixelRegion(x: rect.x, y: rect.y, width: rect.width, height: rect.height),
                               quality: quality, subsampling: fullChroma ? .yuv444 : .yuv420)
        }
    }

    public func decodeJPEG(_ data: [UInt8], width: Int, height: Int) throws -> [UInt8] {
        let info = try decoder.readHeader(data)
        guard info.width == width, info.height == height else {
            throw FrameError("a \(info.width)x\(info.height) JPEG for a \(width)x\(height) rectangle")
        }
        return try decoder.decode(data).pixels
    }
}
