/// The one error type of ZRCZstd: what went wrong, in words a person can act on.
public struct ZstdError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// libzstd could not create or configure a context (usually out of memory).
        case libraryFailure
        /// The compressed data is damaged, or asks for a window larger than the decoder allows.
        case damagedData
        /// The chunk decompresses to more bytes than the caller allowed (or to an incomplete block).
        case sizeMismatch
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { "zstd: \(message)" }
}
