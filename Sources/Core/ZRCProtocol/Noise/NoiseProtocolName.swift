/// A parsed Noise protocol name, e.g. `Noise_IKpsk2_25519_ChaChaPoly_BLAKE2b`.
///
/// The full name is hashed into the handshake, so both sides must use the same one byte for byte;
/// the parts are checked against the crypto provider so a name cannot promise primitives that
/// are not what actually runs.
public struct NoiseProtocolName: Sendable, Hashable, CustomStringConvertible {
    public let name: String
    public let pattern: HandshakePattern
    public let dhName: String
    public let cipherName: String
    public let hashName: String

    public init(_ name: String) throws(NoiseError) {
        let parts = name.split(separator: "_", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0] == "Noise", parts[1...].allSatisfy({ !$0.isEmpty }) else {
            throw NoiseError(.invalidProtocolName,
                             "'\(name)' is not of the form Noise_<pattern>_<dh>_<cipher>_<hash>")
        }
        self.name = name
        pattern = try HandshakePattern(name: String(parts[1]))
        dhName = String(parts[2])
        cipherName = String(parts[3])
        hashName = String(parts[4])
    }

    public var description: String { name }

    /// Throws `.unsupportedPattern` unless `crypto` implements exactly the named primitives.
    func check(against crypto: any NoiseCrypto) throws(NoiseError) {
        guard dhName == crypto.dhName, cipherName == crypto.cipherName, hashName == crypto.hashName else {
            throw NoiseError(
                .unsupportedPattern,
                "'\(name)' needs \(dhName)/\(cipherName)/\(hashName), but the crypto provider implements "
                    + "\(crypto.dhName)/\(crypto.cipherName)/\(crypto.hashName)")
        }
    }
}
