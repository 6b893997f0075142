/// The geometry and pixel layout of the X screen a connection uses.
public struct X11ScreenInfo: Sendable, Hashable {
    /// Screen number within the display (the `.N` of `:0.N`).
    public let number: Int
    public let width: Int
    public let height: Int
    /// Bits of colour per pixel of the root window (24 on ordinary screens).
    public let depth: Int
    /// Bits each pixel occupies in an image of the root depth (32 for depth 24).
    public let bitsPerPixel: Int
    /// Whether captured pixels arrive as bytes B, G, R, X: 32 bits per pixel, least significant
    /// byte first, a TrueColor visual with red, green and blue in bits 16–23, 8–15 and 0–7.
    public let isBGRX: Bool
    /// The root window's id, as X11 tools print it.
    public let rootWindow: UInt32
}
