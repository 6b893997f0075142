/// The 16-byte identifier of one invite. Not secret — it names which invite (and so which psk) a
/// pairing handshake uses, so the host can find the secret before it can decrypt anything.
public struct InviteID: Sendable, Hashable, CustomStringConvertible {
    public static let length = 16

    public let bytes: [UInt8]

    /// Throws unless `bytes` is exactly 16 bytes.
    public init(bytes: [UInt8]) throws(WireError) {
        guard bytes.count == Self.length else {
            throw WireError(.invalidValue, "an invite ID is \(Self.length) bytes, got \(bytes.count)")
        }
        self.bytes = bytes
    }

    /// Lower-case hex, for logs and the host's list of open invites.
    public var description: String { Hex.encode(bytes) }
}
