/// A 32-byte X25519 public key as carried in invites. Kept as plain bytes here because the wire
/// layer only moves it; the Noise layer gives it meaning.
public struct RawPublicKey: Sendable, Hashable, CustomStringConvertible {
    public static let length = 32

    public let bytes: [UInt8]

    /// Throws unless `bytes` is exactly 32 bytes.
    public init(bytes: [UInt8]) throws(WireError) {
        guard bytes.count == Self.length else {
            throw WireError(.invalidValue, "a public key is \(Self.length) bytes, got \(bytes.count)")
        }
        self.bytes = bytes
    }

    public var description: String { Hex.encode(bytes) }
}
