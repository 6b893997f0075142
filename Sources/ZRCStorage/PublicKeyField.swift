import ZRCProtocol

/// Public keys are stored as 64 lowercase hex characters.
extension KeyedDecodingContainer {
    func decodePublicKey(forKey key: Key) throws -> NoisePublicKey {
        let text = try decode(String.self, forKey: key)
        guard let bytes = Hex.decode(text), bytes.count == 32, let publicKey = try? NoisePublicKey(bytes: bytes) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self, debugDescription: "expected 64 hexadecimal characters (a 32-byte public key)")
        }
        return publicKey
    }
}

extension KeyedEncodingContainer {
    mutating func encodePublicKey(_ publicKey: NoisePublicKey, forKey key: Key) throws {
        try encode(Hex.encode(publicKey.bytes), forKey: key)
    }
}

enum Hex {
    static func encode(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func decode(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: c - 0x30
            case 0x61...0x66: c - 0x61 + 10
            case 0x41...0x46: c - 0x41 + 10
            default: nil
            }
        }
        var out = [UInt8]()
        out.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }
}
