import Testing
import ZRCProtocol
import ZRCSodium

/// The libsodium adapter on its own: key derivation, randomness, AEAD nonce layout, hash length.
@Suite struct SodiumCryptoTests {
    let crypto: SodiumCrypto

    init() throws { crypto = try SodiumCrypto() }

    /// RFC 7748 §6.1 test keys (Alice).
    @Test func publicKeyDerivationMatchesRFC7748() throws {
        let alice = SecretBytes([UInt8](hex: "77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a"))
        #expect(try crypto.publicKey(forPrivateKey: alice).hex
                    == "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a")
    }

    @Test func generatedKeyPairsAreConsistentAndDistinct() throws {
        let first = crypto.generateKeyPair()
        let second = crypto.generateKeyPair()
        #expect(try crypto.publicKey(forPrivateKey: first.privateKey) == first.publicKey)
        #expect(first.publicKey != second.publicKey)
        let shared1 = try crypto.dh(privateKey: first.privateKey, publicKey: second.publicKey)
        let shared2 = try crypto.dh(privateKey: second.privateKey, publicKey: first.publicKey)
        #expect(shared1.constantTimeEquals(shared2))
    }

    @Test(arguments: [0, 1, 16, 32, 100])
    func randomnessHasTheRequestedLength(_ count: Int) {
        #expect(crypto.randomSecret(count: count).count == count)
        #expect(crypto.randomBytes(count: count).count == count)
    }

    @Test func randomInviteSecretsDoNotRepeat() {
        let secrets = (0..<200).map { _ in crypto.randomSecret(count: 16).copyBytes() }
        #expect(Set(secrets).count == secrets.count)
        let ids = (0..<200).map { _ in crypto.randomBytes(count: 16) }
        #expect(Set(ids).count == ids.count)
    }

    /// The counter goes into the last 8 bytes little-endian: nonce 1 and nonce 2⁵⁶ must differ,
    /// and a record sealed under one nonce does not open under another.
    @Test func aeadNonceIsBoundToTheCounter() throws {
        let key = SecretBytes([UInt8](repeating: 3, count: 32))
        let sealed = crypto.encrypt(key: key, nonce: 1, associatedData: [], plaintext: [1, 2, 3])
        #expect(sealed.count == 3 + 16)
        #expect(try crypto.decrypt(key: key, nonce: 1, associatedData: [], ciphertext: sealed) == [1, 2, 3])
        for other: UInt64 in [0, 2, 1 << 32, 1 << 56, .max] {
            expectNoiseError(.decryptFailed) { try crypto.decrypt(key: key, nonce: other, associatedData: [], ciphertext: sealed) }
        }
    }

    @Test func hashIsBLAKE2b512() throws {
        // BLAKE2b-512("abc") from RFC 7693 Appendix A.
        var output = [UInt8](repeating: 0, count: 64)
        Array("abc".utf8).withUnsafeBytes { input in
            output.withUnsafeMutableBytes { crypto.hash([input], into: $0) }
        }
        #expect(output.hex == "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1"
                    + "7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923")
    }
}
