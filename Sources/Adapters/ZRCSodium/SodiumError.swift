/// The error type of the libsodium adapter. Cryptographic failures during a handshake or on a
/// record are `NoiseError`s; this covers only the library itself being unusable.
public struct SodiumError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// `sodium_init()` failed, typically because no secure random source could be opened.
        case initializationFailed
    }

    public let kind: Kind
    public let message: String

    public var description: String { "libsodium: \(message)" }
}
