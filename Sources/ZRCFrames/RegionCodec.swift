/// The image codec the frame pipeline uses, supplied by the executable (turbojpeg in ZRC), so the
/// pipeline stays pure and testable.
public protocol RegionEncoder {
    /// Encodes `rect` of `image` as a JPEG at `quality` (1…100); `fullChroma` asks for 4:4:4.
    mutating func encodeJPEG(_ image: PixelBuffer, rect: PixelRect, quality: Int, fullChroma: Bool) throws -> [UInt8]
}

public protocol RegionDecoder {
    /// Decodes a JPEG into tightly packed BGRX pixels; throws unless it is exactly `width`×`height`.
    mutating func decodeJPEG(_ data: [UInt8], width: Int, height: Int) throws -> [UInt8]
}

/// Why a frame update could not be applied.
public struct FrameError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
