import ZRCProtocol

/// Public keys are stored as 64 lowercase hex characters.
extension KeyedDecodingContainer {
    func decodePublicKey(forKey key: Key) throws -> NoisePublicKey {
        let text = try decode(String.self, forKey: key)
        guard let publicKey = try? NoisePublicKey(hex: text) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self, debugDescription: "expected 64 hexadecimal characters (a 32-byte public key)")
        }
        return publicKey
    }
}

extension KeyedEncodingContainer {
    mutating func encodePublicKey(_ publicKey: NoisePublicKey, forKey key: Key) throws {
        try encode(publicKey.hex, forKey: key)
    }
}
