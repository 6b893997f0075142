/// The primitives a Noise handshake needs, for the 25519 / ChaChaPoly / BLAKE2b suite.
///
/// The protocol core is pure Swift and does no cryptography itself: an adapter (ZRCSodium on
/// libsodium) supplies these, and tests may plug in their own. Everything built *from* the
/// primitives — HMAC, HKDF, the symmetric and handshake state machines — lives in the core, so it
/// is written once and checked against the public test vectors.
///
/// Secrets cross this boundary only as `SecretBytes` (or borrowed raw buffers for hashing), so no
/// key material is left behind in an ordinary array.
public protocol NoiseCrypto: Sendable {
    /// Names as they appear in a Noise protocol name; a handshake refuses a name whose primitives
    /// differ, so "Noise_XX_448_AESGCM_SHA256" cannot silently run on the wrong algorithms.
    var dhName: String { get }
    var cipherName: String { get }
    var hashName: String { get }

    /// HASHLEN: 64 for BLAKE2b (not libsodium's 32-byte default).
    var hashLength: Int { get }
    /// The hash block size used by HMAC: 128 for BLAKE2b.
    var blockLength: Int { get }

    /// A fresh key pair from the system's secure random source.
    func generateKeyPair() -> NoiseKeyPair

    /// Derives the public key of a 32-byte private key; throws `.invalidKey` on a wrong length.
    func publicKey(forPrivateKey privateKey: SecretBytes) throws(NoiseError) -> NoisePublicKey

    /// Refuses public keys that no honest peer sends (for X25519: the small-order points), so a
    /// bad key is rejected when it arrives rather than at the next DH.
    func validatePublicKey(_ publicKey: NoisePublicKey) throws(NoiseError)

    /// X25519. Must throw `.lowOrderPoint` when the shared secret is all zeros (a small-order
    /// peer key): Noise would otherwise mix a value the attacker knows into the keys.
    func dh(privateKey: SecretBytes, publicKey: NoisePublicKey) throws(NoiseError) -> SecretBytes

    /// ChaCha20-Poly1305 (IETF), nonce = 4 zero bytes + little-endian `nonce`. Returns the
    /// ciphertext followed by the 16-byte tag. `key` is 32 bytes (guaranteed by the caller).
    func encrypt(key: SecretBytes, nonce: UInt64, associatedData: [UInt8], plaintext: [UInt8]) -> [UInt8]

    /// The inverse of `encrypt`; throws `.decryptFailed` when the tag does not verify.
    func decrypt(key: SecretBytes, nonce: UInt64, associatedData: [UInt8], ciphertext: [UInt8]) throws(NoiseError) -> [UInt8]

    /// `encrypt` without a copy: the plaintext is `buffer`'s first `buffer.count - 16` bytes,
    /// replaced by the ciphertext, and the tag is written to the last 16. The sender seals a
    /// frame where it will be written from instead of making a new array per record.
    func encryptInPlace(key: SecretBytes, nonce: UInt64, associatedData: [UInt8], buffer: UnsafeMutableRawBufferPointer)

    /// `decrypt` without a copy: `buffer` holds the ciphertext and its 16-byte tag; on success its
    /// first `buffer.count - 16` bytes are the plaintext. On failure nothing is decrypted (the tag
    /// is checked first) and the buffer's contents are undefined: the caller drops the record.
    func decryptInPlace(key: SecretBytes, nonce: UInt64, associatedData: [UInt8], buffer: UnsafeMutableRawBufferPointer) throws(NoiseError)

    /// BLAKE2b-512 of the concatenation of `parts`, written to `output` (exactly `hashLength`
    /// bytes). Parts are borrowed buffers so HMAC can hash key-derived pads without copying them
    /// into arrays that would never be wiped.
    func hash(_ parts: [UnsafeRawBufferPointer], into output: UnsafeMutableRawBufferPointer)
}

extension NoiseCrypto {
    /// A key pair whose public half is derived from `privateKey`, e.g. a stored identity key.
    public func keyPair(privateKey: SecretBytes) throws(NoiseError) -> NoiseKeyPair {
        try NoiseKeyPair(publicKey: publicKey(forPrivateKey: privateKey), privateKey: privateKey)
    }
}
