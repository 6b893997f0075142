/// Noise CipherState (spec §5.1): an optional 32-byte key and a 64-bit nonce.
///
/// The nonce only ever grows. 2⁶⁴−1 is reserved for `rekey()`, so the last usable nonce is
/// 2⁶⁴−2; past that every call throws `.nonceExhausted` and nothing is encrypted, which is how
/// "never reuse a nonce" is kept even when the caller ignores the first error.
struct CipherState: Sendable {
    static let keyLength = 32
    static let tagLength = 16
    /// Reserved by the spec for REKEY; never used for a message.
    static let reservedNonce = UInt64.max

    private let crypto: any NoiseCrypto
    private(set) var key: SecretBytes?
    private(set) var nonce: UInt64 = 0

    init(crypto: any NoiseCrypto, key: SecretBytes? = nil) {
        self.crypto = crypto
        self.key = key
    }

    var hasKey: Bool { key != nil }

    /// InitializeKey(k): a new key starts at nonce 0.
    mutating func initializeKey(_ newKey: SecretBytes) {
        precondition(newKey.count == Self.keyLength, "cipher keys are 32 bytes")
        key = newKey
        nonce = 0
    }

    /// Test hook (spec SetNonce): lets tests reach the end of the nonce space.
    mutating func setNonce(_ value: UInt64) { nonce = value }

    /// EncryptWithAd; with no key yet (early handshake) the plaintext passes through, per spec.
    mutating func encrypt(associatedData: [UInt8], plaintext: [UInt8]) throws(NoiseError) -> [UInt8] {
        guard let key else { return plaintext }
        guard nonce < Self.reservedNonce else { throw Self.exhausted }
        let ciphertext = crypto.encrypt(key: key, nonce: nonce, associatedData: associatedData, plaintext: plaintext)
        nonce += 1
        return ciphertext
    }

    /// `encrypt` in place (see `NoiseCrypto.encryptInPlace`); only for transport records, which
    /// always have a key.
    mutating func encryptInPlace(associatedData: [UInt8], buffer: UnsafeMutableRawBufferPointer) throws(NoiseError) {
        guard let key else { preconditionFailure("in-place encryption needs a key (transport phase only)") }
        guard nonce < Self.reservedNonce else { throw Self.exhausted }
        crypto.encryptInPlace(key: key, nonce: nonce, associatedData: associatedData, buffer: buffer)
        nonce += 1
    }

    /// `decrypt` in place; the nonce moves only when the record authenticates.
    mutating func decryptInPlace(associatedData: [UInt8], buffer: UnsafeMutableRawBufferPointer) throws(NoiseError) {
        guard let key else { preconditionFailure("in-place decryption needs a key (transport phase only)") }
        guard nonce < Self.reservedNonce else { throw Self.exhausted }
        guard buffer.count >= Self.tagLength else {
            throw NoiseError(.messageTooShort, "an encrypted field of \(buffer.count) bytes is shorter than its 16-byte tag")
        }
        try crypto.decryptInPlace(key: key, nonce: nonce, associatedData: associatedData, buffer: buffer)
        nonce += 1
    }

    /// DecryptWithAd. On failure the nonce stays put (spec), so a forged record cannot make the
    /// receiver skip ahead of the sender.
    mutating func decrypt(associatedData: [UInt8], ciphertext: [UInt8]) throws(NoiseError) -> [UInt8] {
        guard let key else { return ciphertext }
        guard nonce < Self.reservedNonce else { throw Self.exhausted }
        guard ciphertext.count >= Self.tagLength else {
            throw NoiseError(.messageTooShort, "an encrypted field of \(ciphertext.count) bytes is shorter than its 16-byte tag")
        }
        let plaintext = try crypto.decrypt(key: key, nonce: nonce, associatedData: associatedData, ciphertext: ciphertext)
        nonce += 1
        return plaintext
    }

    /// Rekey(): k = first 32 bytes of ENCRYPT(k, 2⁶⁴−1, ε, 32 zero bytes). The nonce is *not*
    /// reset (spec §11.3), so rekeying never reopens old nonces.
    mutating func rekey() {
        guard let key else { return }
        var block = crypto.encrypt(
            key: key, nonce: Self.reservedNonce, associatedData: [],
            plaintext: [UInt8](repeating: 0, count: Self.keyLength))
        self.key = SecretBytes(block.prefix(Self.keyLength))
        // The array held the new key; clear it before it is released.
        block.withUnsafeMutableBytes { wipe($0) }
    }

    private static let exhausted = NoiseError(
        .nonceExhausted, "this direction has used all 2^64-1 nonces; close the connection and handshake again")
}
