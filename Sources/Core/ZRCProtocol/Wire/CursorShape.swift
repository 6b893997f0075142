/// The pointer image, sent once per distinct shape so the controller can draw the cursor locally
/// and move it with `cursorPosition` alone.
///
/// Wire layout (after the message type byte): shapeID u32, width u16, height u16, hotX u16, hotY u16,
/// u32 pixel byte count (must be width × height × 4), pixels.
public struct CursorShape: Sendable, Equatable {
    /// Chosen by the host; `cursorPosition` refers to it. Reusing an ID replaces the shape.
    public var shapeID: UInt32
    /// 1…256 each.
    public var width: UInt16
    public var height: UInt16
    /// The pixel of the image that sits at the pointer position; inside the image.
    public var hotX: UInt16
    public var hotY: UInt16
    /// Row-major, 4 bytes per pixel in order R, G, B, A, alpha not premultiplied.
    public var rgba: [UInt8]

    public init(shapeID: UInt32, width: UInt16, height: UInt16, hotX: UInt16, hotY: UInt16, rgba: [UInt8]) {
        self.shapeID = shapeID
        self.width = width
        self.height = height
        self.hotX = hotX
        self.hotY = hotY
        self.rgba = rgba
    }

    func write(to writer: inout ByteWriter) {
        writer.write(shapeID)
        writer.write(width)
        writer.write(height)
        writer.write(hotX)
        writer.write(hotY)
        writer.write(blob: rgba)
    }

    init(from reader: inout ByteReader) throws(WireError) {
        shapeID = try reader.readUInt32("shapeID")
        width = try reader.readUInt16("width")
        height = try reader.readUInt16("height")
        hotX = try reader.readUInt16("hotX")
        hotY = try reader.readUInt16("hotY")
        // Dimensions are checked before the pixel length, so the expected size is at most 256 KiB.
        if let problem = Self.sizeProblem(width: width, height: height) { throw reader.invalid("size", problem) }
        rgba = try reader.readBlob("rgba", exactLength: Int(width) * Int(height) * 4)
    }

    /// Why this shape is invalid, or nil when it is fine.
    func problem() -> String? {
        if let problem = Self.sizeProblem(width: width, height: height) { return problem }
        if hotX >= width || hotY >= height { return "hot spot \(hotX),\(hotY) lies outside the \(width)x\(height) image" }
        let expected = Int(width) * Int(height) * 4
        if rgba.count != expected { return "has \(rgba.count) pixel bytes, \(width)x\(height) needs \(expected)" }
        return nil
    }

    private static func sizeProblem(width: UInt16, height: UInt16) -> String? {
        let side = 1...UInt16(WireLimits.maxCursorSide)
        guard side.contains(width), side.contains(height) else {
            return "\(width)x\(height) is outside 1…\(WireLimits.maxCursorSide) per side"
        }
        return nil
    }
}
