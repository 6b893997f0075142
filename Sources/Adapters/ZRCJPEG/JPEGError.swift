/// The one error type of ZRCJPEG: a kind to switch on and a message a person can act on.
public struct JPEGError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// libturbojpeg could not create a compressor or decompressor (usually out of memory).
        case libraryFailure
        /// Our own caller passed something unusable: a quality outside 1…100, an empty or
        /// out-of-bounds region, a stride smaller than a row, a destination buffer that is too small.
        /// These are programming errors in the caller, reported rather than trapped because the
        /// values often come from a peer's frame geometry.
        case invalidArgument
        /// The header announces more pixels than the decoder's configured maximum; nothing was
        /// allocated for it.
        case imageTooLarge
        /// The data is not a JPEG image, or it is truncated or corrupt.
        case damagedData
        /// A valid JPEG that cannot be turned into BGRX (for example a CMYK image).
        case unsupportedImage
        /// libturbojpeg refused to compress the pixels.
        case encodingFailed
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { "JPEG: \(message)" }
}
