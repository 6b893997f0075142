public import ZRCFrames
public import ZRCProtocol

/// One frame for the page: the picture's geometry and the rectangles that changed, as RGBA rows the
/// page puts straight into `ImageData` (opaque: alpha 255).
///
/// Layout after the type byte 0x02: version u32, picture width u16, height u16, screen width u32,
/// height u32, region x, y, width, height u16 each, rect count u16, then per rect x, y, width,
/// height u16 each, encoding u8 (0: RGBA), byte count u32, bytes.
public struct PageFrame: Sendable {
    public var version: UInt32
    public var mapping: PictureMapping
    public var pixels: PixelBuffer
    /// Rectangles of `pixels` to send (clipped to it).
    public var rects: [PixelRect]

    public init(version: UInt32, mapping: PictureMapping, pixels: PixelBuffer, rects: [PixelRect]) {
        self.version = version
        self.mapping = mapping
        self.pixels = pixels
        self.rects = rects.map { $0.intersection(pixels.bounds) }.filter { !$0.isEmpty }
    }

    static let headerBytes = 1 + 4 + 4 + 8 + 8 + 2
    static let rectHeaderBytes = 8 + 1 + 4

    /// The encoded message's size, known before any byte is written.
    public var encodedCount: Int {
        Self.headerBytes + rects.reduce(0) { $0 + Self.rectHeaderBytes + $1.width * $1.height * 4 }
    }

    public var encoded: [UInt8] {
        let count = encodedCount
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var at = 0
            func put<T: FixedWidthInteger>(_ value: T) {
                let size = MemoryLayout<T>.size
                for index in 0..<size { buffer[at + index] = UInt8(truncatingIfNeeded: value >> ((size - 1 - index) * 8)) }
                at += size
            }
            put(PageUpdate.Kind.frame.rawValue)
            put(version)
            put(mapping.pictureWidth)
            put(mapping.pictureHeight)
            put(mapping.screenWidth)
            put(mapping.screenHeight)
            put(mapping.regionX)
            put(mapping.regionY)
            put(mapping.regionWidth)
            put(mapping.regionHeight)
            put(UInt16(clamping: rects.count))
            pixels.bytes.withUnsafeBufferPointer { source in
                for rect in rects.prefix(Int(UInt16.max)) {
                    put(UInt16(rect.x))
                    put(UInt16(rect.y))
                    put(UInt16(rect.width))
                    put(UInt16(rect.height))
                    put(UInt8(0))
                    put(UInt32(rect.width * rect.height * 4))
                    // BGRX → RGBA, a row at a time.
                    for row in rect.y..<(rect.y + rect.height) {
                        var from = row * pixels.bytesPerRow + rect.x * 4
                        for _ in 0..<rect.width {
                            buffer[at] = source[from + 2]
                            buffer[at + 1] = source[from + 1]
                            buffer[at + 2] = source[from]
                            buffer[at + 3] = 255
                            at += 4
                            from += 4
                        }
                    }
                }
            }
            initialized = at
        }
    }
}
