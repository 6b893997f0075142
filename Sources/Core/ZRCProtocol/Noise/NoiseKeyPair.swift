/// A static or ephemeral Curve25519 key pair. The private half is `SecretBytes`, so it is wiped
/// when released and never printed.
///
/// The initializer checks lengths only; that the halves belong together is the caller's claim
/// (use `NoiseCrypto.keyPair(privateKey:)` to derive the public half instead of trusting it).
public struct NoiseKeyPair: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// Private key length for 25519.
    public static let privateKeyLength = 32

    public let publicKey: NoisePublicKey
    public let privateKey: SecretBytes

    public init(publicKey: NoisePublicKey, privateKey: SecretBytes) throws(NoiseError) {
        guard privateKey.count == Self.privateKeyLength else {
            // The length is not secret; the bytes are never mentioned.
            throw NoiseError(.invalidKey, "a private key must be \(Self.privateKeyLength) bytes, got \(privateKey.count)")
        }
        self.publicKey = publicKey
        self.privateKey = privateKey
    }

    public var description: String { "NoiseKeyPair(public: \(publicKey.hex), private: redacted)" }
    public var debugDescription: String { description }
}
