import ZRCFrames
import ZRCProtocol

/// One rectangle of an RFB update, read and decompressed off the socket but not yet drawn: the
/// reader thread reads a whole update first, then draws it under the picture's lock, so the
/// measuring side never waits on the network for that lock.
enum RFBPaint {
    /// Tightly packed BGRX pixels for the rectangle.
    case pixels(PixelRect, [UInt8])
    case fill(PixelRect, rgb: UInt32)
    case jpeg(PixelRect, [UInt8])
    /// CopyRect: the rectangle's pixels come from the same-sized area at (sourceX, sourceY).
    case copy(PixelRect, sourceX: Int, sourceY: Int)
    /// DesktopSize: the framebuffer is now this size (and black until drawn).
    case resize(width: Int, height: Int)
}

/// RFB's encoding numbers (RFC 6143 and the community registry).
enum RFBEncoding {
    static let raw: Int32 = 0
    static let copyRect: Int32 = 1
    static let tight: Int32 = 7
    static let zrle: Int32 = 16
    static let desktopSize: Int32 = -223
    static let lastRect: Int32 = -224
    /// The pointer's shape (RichCursor): pixels then a bit mask.
    static let cursor: Int32 = -239
    /// Tight's JPEG quality level 0…9 is announced as −32 + level.
    static func jpegQuality(_ level: Int32) -> Int32 { -32 + level }
    /// Tight's and ZRLE's zlib level 0…9 is announced as −256 + level.
    static func compressLevel(_ level: Int32) -> Int32 { -256 + level }
}

extension UInt8 {
    /// Three colour bytes in R, G, B order (Tight's TPIXEL) as 0x00RRGGBB.
    static func rgb(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 16 | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2])
    }
}
