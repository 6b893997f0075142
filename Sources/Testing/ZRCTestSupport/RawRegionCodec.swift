public import ZRCFrames
public import ZRCProtocol

/// Lossless stand-in for JPEG so composed frames can be compared pixel-exactly.
public struct RawRegionCodec: RegionEncoder, RegionDecoder {
    /// The rects encoded so far, so a test sees what the planner chose to send.
    public private(set) var encodedRects: [PixelRect] = []

    public init() {}

    public mutating func encodeJPEG(_ image: PixelBuffer, rect: PixelRect, quality: Int, fullChroma: Bool) throws -> [UInt8] {
        encodedRects.append(rect)
        return image.crop(rect)
    }

    public func decodeJPEG(_ data: [UInt8], into image: inout PixelBuffer, rect: PixelRect) throws {
        guard data.count == rect.area * 4 else { throw FrameError("size mismatch") }
        image.blit(data, into: rect)
    }

    /// Stored, not compressed: the payload layout is what these tests check.
    public func compressLossless(_ payload: [UInt8]) throws -> [UInt8] { payload }

    public func decompressLossless(_ chunk: [UInt8], maximumSize: Int) throws -> [UInt8] {
        guard chunk.count <= maximumSize else { throw FrameError("a chunk larger than its rect") }
        return chunk
    }

    /// No state to drop: a restart decodes like any chunk.
    public func restartLossless(_ chunk: [UInt8], maximumSize: Int) throws -> [UInt8] {
        try decompressLossless(chunk, maximumSize: maximumSize)
    }

    /// A frame is the payload behind a marker byte, so a test sees which path decoded it.
    public static let frameMarker: UInt8 = 0xF6

    public func compressLosslessFrame(_ payload: [UInt8]) throws -> [UInt8] { [Self.frameMarker] + payload }

    public func decompressLosslessFrame(_ frame: [UInt8], maximumSize: Int) throws -> [UInt8] {
        guard frame.first == Self.frameMarker else { throw FrameError("a stream chunk sent as a lossless frame") }
        guard frame.count - 1 <= maximumSize else { throw FrameError("a frame larger than its rect") }
        return Array(frame.dropFirst())
    }
}
