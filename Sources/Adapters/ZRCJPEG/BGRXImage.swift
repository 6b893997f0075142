/// A decoded image that owns its pixels: 4 bytes per pixel in memory order B, G, R, X, rows packed
/// (`bytesPerRow == width * 4`). The X byte is 0xFF as libturbojpeg writes it, but callers should
/// treat it as padding like any other BGRX buffer.
public struct BGRXImage: Sendable, Hashable {
    public let width: Int
    public let height: Int
    public var pixels: [UInt8]

    public var bytesPerRow: Int { width * 4 }

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width >= 0 && height >= 0 && pixels.count == width * height * 4,
                     "BGRXImage needs width × height × 4 bytes")
        self.width = width
        self.height = height
        self.pixels = pixels
    }
}
