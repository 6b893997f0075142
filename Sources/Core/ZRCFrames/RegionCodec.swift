public import ZRCProtocol
/// The image codec the frame pipeline uses, supplied by the executable (turbojpeg in ZRC), so the
/// pipeline stays pure and testable.
public protocol RegionEncoder {
    /// Encodes `rect` of `image` as a JPEG at `quality` (1…100); `fullChroma` asks for 4:4:4.
    mutating func encodeJPEG(_ image: PixelBuffer, rect: PixelRect, quality: Int, fullChroma: Bool) throws -> [UInt8]
    /// Compresses a `LosslessPixels` payload as the next flushed chunk of this session's lossless
    /// stream (zstd in ZRC); every chunk goes to the controller, in order.
    mutating func compressLossless(_ payload: [UInt8]) throws -> [UInt8]
    /// Compresses a `LosslessPixels` payload as one complete zstd frame of its own, leaving the
    /// session's stream as it was (encoding 6: the same bytes suit every controller).
    mutating func compressLosslessFrame(_ payload: [UInt8]) throws -> [UInt8]
    /// A payload as a lossless rect's content, through the stream the controller decodes:
    /// `.lossless`, the next chunk of it, or `.losslessRestart`, the first chunk of a new stream
    /// that replaces it (an encoder that shares streams between sessions). Defaults to
    /// `compressLossless`.
    mutating func losslessContent(_ payload: [UInt8]) throws -> FrameRect.Content
}

extension RegionEncoder {
    public mutating func losslessContent(_ payload: [UInt8]) throws -> FrameRect.Content { .lossless(try compressLossless(payload)) }
}

public protocol RegionDecoder {
    /// Decodes a JPEG straight into `rect` of `image` (no intermediate copy); throws unless the
    /// JPEG is exactly `rect`'s size. `rect` lies inside `image`.
    mutating func decodeJPEG(_ data: [UInt8], into image: inout PixelBuffer, rect: PixelRect) throws
    /// Decodes the next chunk of the session's lossless stream; throws if it yields more than
    /// `maximumSize` bytes.
    mutating func decompressLossless(_ chunk: [UInt8], maximumSize: Int) throws -> [UInt8]
    /// Decodes one complete lossless frame without touching the session's stream; throws if it
    /// yields more than `maximumSize` bytes or is not exactly one whole frame.
    mutating func decompressLosslessFrame(_ frame: [UInt8], maximumSize: Int) throws -> [UInt8]
    /// Drops the session's lossless stream, wherever it was, and decodes `chunk` as the first
    /// chunk of a new one (encoding 7), which the chunks after it continue; throws if it yields
    /// more than `maximumSize` bytes or does not start a stream.
    mutating func restartLossless(_ chunk: [UInt8], maximumSize: Int) throws -> [UInt8]
}

/// Why a frame update could not be applied.
public struct FrameError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
