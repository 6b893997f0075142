/// What a JPEG header announces, read without decoding the image.
public struct JPEGImageInfo: Sendable, Hashable {
    public let width: Int
    public let height: Int
    /// Nil for subsamplings ZRC never produces (greyscale, 4:4:0, 4:1:1); those still decode.
    public let subsampling: JPEGSubsampling?

    public var pixelCount: Int { width * height }
}
