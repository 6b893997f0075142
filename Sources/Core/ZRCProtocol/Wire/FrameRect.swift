/// One changed rectangle of a frame update, in screen pixels.
///
/// Wire layout: x u16, y u16, width u16, height u16, u8 encoding, then the encoding's data.
public struct FrameRect: Sendable, Equatable {
    public enum Content: Sendable, Equatable {
        /// Encoding 1: a baseline JPEG of exactly this rectangle (u32 length + bytes, at least 1 byte).
        case jpeg([UInt8])
        /// Encoding 2: one colour for the whole rectangle, as the 32-bit pixel value of a depth-24
        /// TrueColor visual: red in bits 16–23, green 8–15, blue 0–7; bits 24–31 are padding the
        /// receiver ignores (X servers do not always zero them). Sent as a u32 (big-endian).
        case solid(pixel: UInt32)
        /// Encoding 3: uncompressed pixels, row-major, 4 bytes each in memory order B, G, R, X
        /// (u32 length + bytes; the length must be width × height × 4).
        case raw(bgrx: [UInt8])
        /// Encoding 4: the next chunk of the session's zstd stream (u32 length + bytes, at least 1),
        /// which decodes to a palette or true-colour picture of exactly this rectangle
        /// (`LosslessPixels` in ZRCFrames has the layout).
        case lossless([UInt8])
        /// Encoding 6: one complete zstd frame of its own (u32 length + bytes, at least 1), decoding
        /// like `lossless` but independent of the session's stream, which it leaves as it was: an
        /// update made only of such rects is the same for every controller whose picture is the
        /// same, so the host encodes it once for all of them.
        case losslessFrame([UInt8])
        /// Encoding 7: the first chunk of a new zstd stream (u32 length + bytes, at least 1), which
        /// replaces the session's: the controller drops its lossless stream, wherever it was, and
        /// decodes this chunk, which starts a zstd frame, with a fresh context; the encoding-4
        /// chunks after it continue the new stream. Decodes like `lossless`. How the host gives a
        /// group of sessions one shared stream (`Capabilities.sharedLosslessStream`): a session
        /// joining the group, or one whose stream is elsewhere, starts from the group's restart.
        case losslessRestart([UInt8])
        /// Encoding 5: copy the same-sized area at (sourceX, sourceY) of the controller's current
        /// picture here, as if through a temporary copy (source and destination may overlap).
        case copy(sourceX: UInt16, sourceY: UInt16)

        var encodingByte: UInt8 {
            switch self {
            case .jpeg: 1
            case .solid: 2
            case .raw: 3
            case .lossless: 4
            case .copy: 5
            case .losslessFrame: 6
            case .losslessRestart: 7
            }
        }

        /// Whether this rect moves pixels already on the screen instead of carrying new ones.
        public var isCopy: Bool {
            if case .copy = self { true } else { false }
        }
    }

    public var x: UInt16
    public var y: UInt16
    public var width: UInt16
    public var height: UInt16
    public var content: Content

    public init(x: UInt16, y: UInt16, width: UInt16, height: UInt16, content: Content) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.content = content
    }

    /// What a reader says when it meets an unknown encoding.
    static let knownEncodings = "known encodings are 1 jpeg, 2 solid, 3 raw, 4 lossless, 5 copy, 6 lossless frame, 7 lossless restart"

    /// Bytes a raw rectangle of this size must carry. Int is 64-bit on every supported platform, so
    /// 65535 × 65535 × 4 cannot overflow.
    public var rawByteCount: Int { Int(width) * Int(height) * 4 }

    func write(to writer: inout ByteWriter) {
        writer.write(x)
        writer.write(y)
        writer.write(width)
        writer.write(height)
        writer.write(content.encodingByte)
        switch content {
        case .jpeg(let data): writer.write(blob: data)
        case .solid(let pixel): writer.write(pixel)
        case .raw(let pixels): writer.write(blob: pixels)
        case .lossless(let data), .losslessFrame(let data), .losslessRestart(let data): writer.write(blob: data)
        case .copy(let sourceX, let sourceY):
            writer.write(sourceX)
            writer.write(sourceY)
        }
    }

    /// Reads the structure; geometry against the screen is checked by `problem(screenWidth:screenHeight:)`.
    init(from reader: inout ByteReader, field: String) throws(WireError) {
        x = try reader.readUInt16("\(field).x")
        y = try reader.readUInt16("\(field).y")
        width = try reader.readUInt16("\(field).width")
        height = try reader.readUInt16("\(field).height")
        let encoding = try reader.readUInt8("\(field).encoding")
        switch encoding {
        case 1:
            content = .jpeg(try reader.readBlob("\(field).jpeg", maxLength: Int(UInt32.max)))
        case 2:
            content = .solid(pixel: try reader.readUInt32("\(field).pixel"))
        case 3:
            // Checked against width × height × 4 before copying, so a lying length allocates nothing.
            content = .raw(bgrx: try reader.readBlob("\(field).bgrx", exactLength: Int(width) * Int(height) * 4))
        case 4:
            content = .lossless(try reader.readBlob("\(field).lossless", maxLength: Int(UInt32.max)))
        case 5:
            content = .copy(sourceX: try reader.readUInt16("\(field).sourceX"), sourceY: try reader.readUInt16("\(field).sourceY"))
        case 6:
            content = .losslessFrame(try reader.readBlob("\(field).losslessFrame", maxLength: Int(UInt32.max)))
        case 7:
            content = .losslessRestart(try reader.readBlob("\(field).losslessRestart", maxLength: Int(UInt32.max)))
        default:
            throw reader.invalid("\(field).encoding", "is \(encoding); \(Self.knownEncodings)")
        }
    }

    /// Why this rectangle is invalid on a screen of the given size, or nil when it is fine.
    func problem(screenWidth: UInt32, screenHeight: UInt32) -> String? {
        if width == 0 || height == 0 { return "is empty (\(width)x\(height))" }
        if UInt32(x) + UInt32(width) > screenWidth || UInt32(y) + UInt32(height) > screenHeight {
            return "(\(width)x\(height) at \(x),\(y)) extends beyond the \(screenWidth)x\(screenHeight) screen"
        }
        switch content {
        case .jpeg(let data) where data.isEmpty:
            return "has an empty JPEG"
        case .raw(let pixels) where pixels.count != rawByteCount:
            return "has \(pixels.count) raw bytes, but \(width)x\(height) needs \(rawByteCount)"
        case .lossless(let data) where data.isEmpty:
            return "has an empty lossless chunk"
        case .losslessFrame(let data) where data.isEmpty:
            return "has an empty lossless frame"
        case .losslessRestart(let data) where data.isEmpty:
            return "has an empty lossless restart"
        case .copy(let sourceX, let sourceY)
            where UInt32(sourceX) + UInt32(width) > screenWidth || UInt32(sourceY) + UInt32(height) > screenHeight:
            return "copies from \(width)x\(height) at \(sourceX),\(sourceY), beyond the \(screenWidth)x\(screenHeight) screen"
        case .jpeg, .solid, .raw, .lossless, .losslessFrame, .losslessRestart, .copy:
            return nil
        }
    }
}
