internal import CSodium
public import ZRCProtocol

// Randomness for the kits (invite secrets, ids) and the check that refuses small-order keys.

extension SodiumCrypto {
    /// `count` bytes from libsodium's CSPRNG, straight into wiped-on-release storage: for invite
    /// secrets and private keys.
    public func randomSecret(count: Int) -> SecretBytes {
        SecretBytes(count: count) { buffer in
            if let base = buffer.baseAddress { randombytes_buf(base, buffer.count) }
        }
    }

    /// `count` random bytes that are not secret, e.g. session or invite ids.
    public func randomBytes(count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { buffer in
            if let base = buffer.baseAddress { randombytes_buf(base, buffer.count) }
        }
        return bytes
    }

    /// Rejects the X25519 points of small order (and their non-canonical encodings, which the
    /// ladder treats identically). DH with any of them gives an all-zero or attacker-known
    /// secret, so a peer sending one is refused before the key enters the transcript.
    public func validatePublicKey(_ publicKey: NoisePublicKey) throws(NoiseError) {
        let bytes = publicKey.bytes
        for point in Self.smallOrderPoints {
            // Bit 255 is ignored by X25519, so compare with it masked off.
            if bytes[..<31].elementsEqual(point[..<31]) && bytes[31] & 0x7f == point[31] {
                throw NoiseError(.lowOrderPoint, "the peer's public key \(publicKey.hex) is a small-order point; "
                                     + "the handshake was aborted")
            }
        }
    }

    /// The points of order 1, 2, 4 and 8 on Curve25519 and the field elements ≥ p that reduce to
    /// them: 0, 1, two points of order 8, p−1 (order 2), p (≡ 0) and p+1 (≡ 1).
    private static let smallOrderPoints: [[UInt8]] = [
        [UInt8](repeating: 0, count: 32),
        [1] + [UInt8](repeating: 0, count: 31),
        [0xe0, 0xeb, 0x7a, 0x7c, 0x3b, 0x41, 0xb8, 0xae, 0x16, 0x56, 0xe3, 0xfa, 0xf1, 0x9f, 0xc4, 0x6a,
         0xda, 0x09, 0x8d, 0xeb, 0x9c, 0x32, 0xb1, 0xfd, 0x86, 0x62, 0x05, 0x16, 0x5f, 0x49, 0xb8, 0x00],
        [0x5f, 0x9c, 0x95, 0xbc, 0xa3, 0x50, 0x8c, 0x24, 0xb1, 0xd0, 0xb1, 0x55, 0x9c, 0x83, 0xef, 0x5b,
         0x04, 0x44, 0x5c, 0xc4, 0x58, 0x1c, 0x8e, 0x86, 0xd8, 0x22, 0x4e, 0xdd, 0xd0, 0x9f, 0x11, 0x57],
        [0xec] + [UInt8](repeating: 0xff, count: 30) + [0x7f],
        [0xed] + [UInt8](repeating: 0xff, count: 30) + [0x7f],
        [0xee] + [UInt8](repeating: 0xff, count: 30) + [0x7f],
    ]
}
