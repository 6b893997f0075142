import Testing
@testable import ZRCProtocol
import ZRCSodium

/// Spec details not reachable through the public vectors: long protocol names, Rekey(), HMAC.
@Suite struct NoiseInternalsTests {
    @Test func protocolNamesUpToHashLengthArePaddedLongerOnesHashed() throws {
        let crypto = try SodiumCrypto()
        let short = String(repeating: "a", count: 64)
        #expect(SymmetricState(protocolName: short, crypto: crypto).handshakeHash == Array(short.utf8))
        let shorter = "Noise_NN_25519_ChaChaPoly_BLAKE2b"
        #expect(SymmetricState(protocolName: shorter, crypto: crypto).handshakeHash
                    == Array(shorter.utf8) + [UInt8](repeating: 0, count: 64 - shorter.utf8.count))
        let long = String(repeating: "b", count: 65)
        #expect(SymmetricState(protocolName: long, crypto: crypto).handshakeHash == crypto.hash(Array(long.utf8), []))
    }

    @Test func rekeyFollowsTheSpecAndKeepsTheNonce() throws {
        let crypto = try SodiumCrypto()
        let key = SecretBytes((0..<32).map { UInt8($0) })
        var cipher = CipherState(crypto: crypto, key: key)
        _ = try cipher.encrypt(associatedData: [], plaintext: [1])
        cipher.rekey()
        // REKEY(k) = ENCRYPT(k, maxnonce, zerolen, zeros)[0..<32]
        let expected = crypto.encrypt(key: key, nonce: .max, associatedData: [], plaintext: [UInt8](repeating: 0, count: 32))
        #expect(cipher.key?.copyBytes() == Array(expected.prefix(32)))
        #expect(cipher.nonce == 1)
    }

    /// HMAC-BLAKE2b-512 per RFC 2104 with a 128-byte block, including a key longer than a block
    /// (hashed first). Expected values computed independently with Python's
    /// `hmac.new(key, msg, hashlib.blake2b)`.
    @Test(arguments: [
        ("key", "The quick brown fox jumps over the lazy dog",
         "92294f92c0dfb9b00ec9ae8bd94d7e7d8a036b885a499f149dfe2fd2199394aaaf6b8894a1730cccb2cd050f9bcf5062a38b51b0dab33207f8ef35ae2c9df51b"),
        (String(repeating: "k", count: 200), "x",
         "6d57f83aca2d737ce6e7e7ad46eb831e25682814b90a765d0949c1051f08b794a7c1fb94c7ba388c066bfcb7efed9d8b7b91c904275bc7927b85a36fb45f0e3e"),
    ])
    func hmacMatchesAnIndependentImplementation(_ key: String, _ message: String, _ expected: String) throws {
        let crypto = try SodiumCrypto()
        let mac = Array(key.utf8).withUnsafeBytes { keyBytes in
            Array(message.utf8).withUnsafeBytes { crypto.hmac(key: keyBytes, data: [$0]) }
        }
        #expect(mac.copyBytes().hex == expected)
    }
}
