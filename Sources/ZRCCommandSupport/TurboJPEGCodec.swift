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

extension TurboJPEGCodec {
    /// A decoder per session, for `ControllerConfiguration.makeDecoder`; checks now that
    /// libjpeg-turbo starts, so a broken library is one clear error instead of a failure per frame.
    public static func decoderFactory() throws(CommandError) -> @Sendable () -> any RegionDecoder {
        do {
            _ = try TurboJPEGCodec()
        } catch {
            throw CommandError(.internal, "libjpeg-turbo could not start: \(error)")
        }
        return { () -> any RegionDecoder in
            if let codec = try? TurboJPEGCodec() { return codec }
            return UnavailableDecoder()
        }
    }
}

/// Stands in if a decoder cannot start mid-run (checked at start, so only after the library broke):
/// every frame then fails to apply and the session ends with that reason.
private struct UnavailableDecoder: RegionDecoder {
    func decodeJPEG(_ data: [UInt8], width: Int, height: Int) throws -> [UInt8] {
        throw FrameError("libjpeg-turbo is not available")
    }
}
