public import ZRCFrames
public import ZRCProtocol

/// One frame for the page: the picture's geometry and the rectangles that changed, as RGBA rows the
/// page puts straight into `ImageData` (opaque: alpha 255).
///
/// Layout after the type byte 0x02: version u32, picture width u16, height u16, screen width u32,
/// height u32, region x, y, width, height u16 each, rect count u16, then per rect x, y, width,
/// height u16 each, encoding u8, byte count u32, bytes. Encoding 0: RGBA rows; 1: a move, the
/// picture's own pixels at (source x u16, source y u16) copied here (4 bytes). Rects apply in
/// order: the moves come first (`ChangePlan`).
public struct PageFrame: Sendable {
    public var version: UInt32
    public var mapping: PictureMapping
    public var pixels: PixelBuffer
    /// Copies within the page's picture, made before `rects` are painted.
    public var moves: [PixelMove]
    /// Rectangles of `pixels` to send (clipped to it).
    public var rects: [PixelRect]

    public init(version: UInt32, mapping: PictureMapping, pixels: PixelBuffer, moves: [PixelMove] = [], rects: [PixelRect]) {
        self.version = version
        self.mapping = mapping
        self.pixels = pixels
        let bounds = pixels.bounds
        var fits: [PixelMove] = [], painted: [PixelRect] = []
        for move in moves {
            // A move that reads or writes outside the picture cannot be made: it is painted instead.
            if !move.source.isEmpty, move.source.intersection(bounds) == move.source, move.destination.intersection(bounds) == move.destination {
                fits.append(move)
            } else {
                painted.append(move.destination)
            }
        }
        painted = (painted + rects).map { $0.intersection(bounds) }.filter { !$0.isEmpty }
        // One message holds at most 65535 rects: beyond that, the bounding box of everything.
        if fits.count + painted.count > Int(UInt16.max) {
            let written = fits.map(\.destination) + painted
            painted = [written.dropFirst().reduce(written[0]) { $0.union($1) }]
            fits = []
        }
        self.moves = fits
        self.rects = painted
    }

    static let headerBytes = 1 + 4 + 4 + 8 + 8 + 2
    static let rectHeaderBytes = 8 + 1 + 4

    /// The encoded message's size, known before any byte is written.
    public var encodedCount: Int {
        Self.headerBytes + moves.count * (Self.rectHeaderBytes + 4) + rects.reduce(0) { $0 + Self.rectHeaderBytes + $1.width * $1.height * 4 }
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
            put(UInt16(moves.count + rects.count))
            for move in moves {
                put(UInt16(move.destination.x))
                put(UInt16(move.destination.y))
                put(UInt16(move.destination.width))
                put(UInt16(move.destination.height))
                put(UInt8(1))
                put(UInt32(4))
                put(UInt16(move.source.x))
                put(UInt16(move.source.y))
            }
            pixels.bytes.withUnsafeBufferPointer { source in
                for rect in rects {
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
