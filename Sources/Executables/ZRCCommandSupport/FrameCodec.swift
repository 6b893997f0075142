public import ZRCFrames
import ZRCJPEG
import ZRCZstd
public import ZRCProtocol

/// The frame pipeline's codec, one per session: JPEG over libjpeg-turbo (BGRX straight from the
/// captured buffer, no conversion pass; 4:2:0 for motion, 4:4:4 for refinement) and the session's
/// zstd stream for lossless rects. The zstd contexts are created on first use, so a session that
/// never sends or receives a lossless rect pays nothing for them.
public final class FrameCodec: RegionEncoder, RegionDecoder {
    private let encoder: JPEGEncoder
    private let decoder: JPEGDecoder
    private var compressor: ZstdStreamCompressor?
    private var decompressor: ZstdStreamDecompressor?
    private var frameCompressor: ZstdFrameCompressor?
    private var frameDecompressor: ZstdFrameDecompressor?

    public init() throws {
        encoder = try JPEGEncoder()
        decoder = try JPEGDecoder()
    }

    public func encodeJPEG(_ image: PixelBuffer, rect: PixelRect, quality: Int, fullChroma: Bool) throws -> [UInt8] {
        try image.bytes.withUnsafeBytes { pixels in
            try encoder.encode(bgrx: pixels, bytesPerRow: image.bytesPerRow,
                               region: PixelRect(x: rect.x, y: rect.y, width: rect.width, height: rect.height),
                               quality: quality, subsampling: fullChroma ? .yuv444 : .yuv420)
        }
    }

    public func decodeJPEG(_ data: [UInt8], into image: inout PixelBuffer, rect: PixelRect) throws {
        let info = try decoder.readHeader(data)
        guard info.width == rect.width, info.height == rect.height else {
            throw FrameError("a \(info.width)x\(info.height) JPEG for a \(rect.width)x\(rect.height) rectangle")
        }
        let offset = rect.y * image.bytesPerRow + rect.x * PixelBuffer.bytesPerPixel
        let stride = image.bytesPerRow
        try data.withUnsafeBytes { jpeg in
            try image.bytes.withUnsafeMutableBytes { pixels in
                _ = try decoder.decode(jpeg, into: UnsafeMutableRawBufferPointer(rebasing: pixels[offset...]), bytesPerRow: stride)
            }
        }
    }

    public func compressLossless(_ payload: [UInt8]) throws -> [UInt8] {
        if compressor == nil { compressor = try ZstdStreamCompressor() }
        return try compressor!.compress(payload)
    }

    public func decompressLossless(_ chunk: [UInt8], maximumSize: Int) throws -> [UInt8] {
        if decompressor == nil { decompressor = try ZstdStreamDecompressor() }
        return try decompressor!.decompress(chunk, maximumSize: maximumSize)
    }

    public func restartLossless(_ chunk: [UInt8], maximumSize: Int) throws -> [UInt8] {
        if decompressor == nil { decompressor = try ZstdStreamDecompressor() }
        return try decompressor!.decompressRestart(chunk, maximumSize: maximumSize)
    }

    public func compressLosslessFrame(_ payload: [UInt8]) throws -> [UInt8] {
        if frameCompressor == nil { frameCompressor = try ZstdFrameCompressor() }
        return try frameCompressor!.compress(payload)
    }

    public func decompressLosslessFrame(_ frame: [UInt8], maximumSize: Int) throws -> [UInt8] {
        if frameDecompressor == nil { frameDecompressor = try ZstdFrameDecompressor() }
        return try frameDecompressor!.decompress(frame, maximumSize: maximumSize)
    }
}

extension FrameCodec {
    /// A decoder per session, for `ControllerConfiguration.makeDecoder`; checks now that
    /// libjpeg-turbo and libzstd start, so a broken library is one clear error instead of a
    /// failure per frame.
    public static func decoderFactory() throws(CommandError) -> @Sendable () -> any RegionDecoder {
        do {
            _ = try FrameCodec()
            _ = try ZstdStreamDecompressor()
        } catch {
            throw CommandError(.internal, "the frame decoders could not start: \(error)")
        }
        return { () -> any RegionDecoder in
            if let codec = try? FrameCodec() { return codec }
            return UnavailableDecoder()
        }
    }
}

/// Stands in if a decoder cannot start mid-run (checked at start, so only after the library broke):
/// every frame then fails to apply and the session ends with that reason.
private struct UnavailableDecoder: RegionDecoder {
    func decodeJPEG(_ data: [UInt8], into image: inout PixelBuffer, rect: PixelRect) throws {
        throw FrameError("libjpeg-turbo is not available")
    }

    func decompressLossless(_ chunk: [UInt8], maximumSize: Int) throws -> [UInt8] {
        throw FrameError("libzstd is not available")
    }

    func decompressLosslessFrame(_ frame: [UInt8], maximumSize: Int) throws -> [UInt8] {
        throw FrameError("libzstd is not available")
    }

    func restartLossless(_ chunk: [UInt8], maximumSize: Int) throws -> [UInt8] {
        throw FrameError("libzstd is not available")
    }
}
