/// A captured rectangle that owns its pixels: 4 bytes per pixel in memory order B, G, R, X, rows
/// packed (`bytesPerRow == width * 4`). The X byte is padding whose value the server chooses;
/// mask it before comparing pixels.
public struct CapturedImage: Sendable, Hashable {
    public let width: Int
    public let height: Int
    public var pixels: [UInt8]

    public var bytesPerRow: Int { width * 4 }
}
