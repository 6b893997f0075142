internal import CSodium
public import ZRCProtocol

/// The Noise primitives on libsodium 1.0.18: X25519 (`crypto_scalarmult`), ChaCha20-Poly1305 IETF
/// and BLAKE2b with a 64-byte output. HMAC, HKDF and the handshake itself live in ZRCProtocol.
///
/// Having a value proves libsodium is initialised, so no method needs to check again.
public struct SodiumCrypto: NoiseCrypto {
    public init() throws(SodiumError) {
        guard SodiumLibrary.isReady else {
            throw SodiumError(kind: .initializationFailed,
                              message: "sodium_init() failed; is /dev/urandom (or getrandom) available?")
        }
    }

    public var dhName: String { "25519" }
    public var cipherName: String { "ChaChaPoly" }
    public var hashName: String { "BLAKE2b" }
    /// libsodium's generichash defaults to 32 bytes; Noise's BLAKE2b is the 64-byte variant.
    public var hashLength: Int { 64 }
    public var blockLength: Int { 128 }

    static let keyLength = 32
    static let tagLength = 16
    static let nonceLength = 12

    public func generateKeyPair() -> NoiseKeyPair {
        let privateKey = randomSecret(count: NoiseKeyPair.privateKeyLength)
        do {
            return try keyPair(privateKey: privateKey)
        } catch {
            // Only a wrong length can fail, and the length is ours.
            preconditionFailure("deriving a public key from a fresh 32-byte key failed: \(error)")
        }
    }

    public func publicKey(forPrivateKey privateKey: SecretBytes) throws(NoiseError) -> NoisePublicKey {
        guard privateKey.count == NoiseKeyPair.privateKeyLength else {
            throw NoiseError(.invalidKey, "a private key must be \(NoiseKeyPair.privateKeyLength) bytes, got \(privateKey.count)")
        }
        var publicBytes = [UInt8](repeating: 0, count: NoisePublicKey.length)
        let status = privateKey.withUnsafeBytes { scalar in
            crypto_scalarmult_base(&publicBytes, scalar.bytePointer)
        }
        guard status == 0 else {
            throw NoiseError(.invalidKey, "the private key yields no usable public key")
        }
        return try NoisePublicKey(bytes: publicBytes)
    }

    public func dh(privateKey: SecretBytes, publicKey: NoisePublicKey) throws(NoiseError) -> SecretBytes {
        guard privateKey.count == NoiseKeyPair.privateKeyLength else {
            throw NoiseError(.invalidKey, "a private key must be \(NoiseKeyPair.privateKeyLength) bytes, got \(privateKey.count)")
        }
        var status: Int32 = -1
        let shared = SecretBytes(count: NoisePublicKey.length) { output in
            privateKey.withUnsafeBytes { scalar in
                status = crypto_scalarmult(output.mutableBytePointer, scalar.bytePointer, publicKey.bytes)
            }
        }
        // libsodium returns -1 when the result is all zeros, i.e. the peer sent a small-order point.
        guard status == 0 else {
            throw NoiseError(.lowOrderPoint, "the peer's public key \(publicKey.hex) is a small-order point; "
                                 + "the handshake was aborted")
        }
        return shared
    }

    public func encrypt(key: SecretBytes, nonce: UInt64, associatedData: [UInt8], plaintext: [UInt8]) -> [UInt8] {
        precondition(key.count == Self.keyLength, "ChaChaPoly keys are 32 bytes")
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count + Self.tagLength)
        var written: UInt64 = 0
        let status = key.withUnsafeBytes { keyBytes in
            crypto_aead_chacha20poly1305_ietf_encrypt(
                &ciphertext, &written, plaintext, UInt64(plaintext.count), associatedData, UInt64(associatedData.count),
                nil, Self.nonceBytes(nonce), keyBytes.bytePointer)
        }
        // Encryption has no failure mode for valid lengths; a failure here is a broken library.
        precondition(status == 0 && written == UInt64(ciphertext.count), "ChaCha20-Poly1305 encryption failed")
        return ciphertext
    }

    /// libsodium's detached calls allow the ciphertext to overwrite the plaintext (and back).
    public func encryptInPlace(key: SecretBytes, nonce: UInt64, associatedData: [UInt8], buffer: UnsafeMutableRawBufferPointer) {
        precondition(key.count == Self.keyLength, "ChaChaPoly keys are 32 bytes")
        precondition(buffer.count >= Self.tagLength, "the buffer must hold the tag")
        let length = buffer.count - Self.tagLength
        let bytes = buffer.bindMemory(to: UInt8.self).baseAddress!
        var tagLength: UInt64 = 0
        let status = key.withUnsafeBytes { keyBytes in
            crypto_aead_chacha20poly1305_ietf_encrypt_detached(
                bytes, bytes + length, &tagLength, bytes, UInt64(length), associatedData, UInt64(associatedData.count),
                nil, Self.nonceBytes(nonce), keyBytes.bytePointer)
        }
        precondition(status == 0 && tagLength == UInt64(Self.tagLength), "ChaCha20-Poly1305 encryption failed")
    }

    public func decryptInPlace(key: SecretBytes, nonce: UInt64, associatedData: [UInt8], buffer: UnsafeMutableRawBufferPointer) throws(NoiseError) {
        precondition(key.count == Self.keyLength, "ChaChaPoly keys are 32 bytes")
        guard buffer.count >= Self.tagLength else {
            throw NoiseError(.messageTooShort, "a ciphertext of \(buffer.count) bytes is shorter than its 16-byte tag")
        }
        let length = buffer.count - Self.tagLength
        let bytes = buffer.bindMemory(to: UInt8.self).baseAddress!
        let status = key.withUnsafeBytes { keyBytes in
            crypto_aead_chacha20poly1305_ietf_decrypt_detached(
                bytes, nil, bytes, UInt64(length), bytes + length, associatedData, UInt64(associatedData.count),
                Self.nonceBytes(nonce), keyBytes.bytePointer)
        }
        guard status == 0 else {
            throw NoiseError(.decryptFailed, "authentication failed: the data was altered or encrypted under another key")
        }
    }

    public func decrypt(key: SecretBytes, nonce: UInt64, associatedData: [UInt8], ciphertext: [UInt8]) throws(NoiseError) -> [UInt8] {
        precondition(key.count == Self.keyLength, "ChaChaPoly keys are 32 bytes")
        guard ciphertext.count >= Self.tagLength else {
            throw NoiseError(.messageTooShort, "a ciphertext of \(ciphertext.count) bytes is shorter than its 16-byte tag")
        }
        var plaintext = [UInt8](repeating: 0, count: ciphertext.count - Self.tagLength)
        var written: UInt64 = 0
        let status = key.withUnsafeBytes { keyBytes in
            crypto_aead_chacha20poly1305_ietf_decrypt(
                &plaintext, &written, nil, ciphertext, UInt64(ciphertext.count), associatedData,
                UInt64(associatedData.count), Self.nonceBytes(nonce), keyBytes.bytePointer)
        }
        guard status == 0 else {
            throw NoiseError(.decryptFailed, "authentication failed: the data was altered or encrypted under another key")
        }
        return plaintext
    }

    public func hash(_ parts: [UnsafeRawBufferPointer], into output: UnsafeMutableRawBufferPointer) {
        precondition(output.count == hashLength, "BLAKE2b output buffer must be \(hashLength) bytes")
        // The state is declared 64-byte aligned in C; allocate it so rather than trusting the
        // Swift stack layout. It holds data derived from keys, so it is wiped before release.
        let stateSize = crypto_generichash_statebytes()
        let raw = UnsafeMutableRawPointer.allocate(byteCount: stateSize, alignment: 64)
        defer {
            sodium_memzero(raw, stateSize)
            raw.deallocate()
        }
        // Swift cannot import the CRYPTO_ALIGN'd state struct, so libsodium takes it opaque.
        let state = OpaquePointer(raw)
        var status = crypto_generichash_init(state, nil, 0, output.count)
        for part in parts where !part.isEmpty {
            status |= crypto_generichash_update(state, part.bytePointer, UInt64(part.count))
        }
        status |= crypto_generichash_final(state, output.mutableBytePointer, output.count)
        // Only invalid lengths fail, and the lengths are fixed above.
        precondition(status == 0, "BLAKE2b failed")
    }

    /// Noise's ChaChaPoly nonce: 32 zero bits, then the counter little-endian (spec §12.3).
    private static func nonceBytes(_ counter: UInt64) -> [UInt8] {
        [0, 0, 0, 0] + (0..<8).map { UInt8(truncatingIfNeeded: counter >> (8 * $0)) }
    }
}

extension UnsafeRawBufferPointer {
    /// The buffer as the non-null `const unsigned char *` libsodium takes. Only used on buffers
    /// that are non-empty by construction (keys, non-empty hash parts).
    var bytePointer: UnsafePointer<UInt8> {
        guard let base = baseAddress else { preconditionFailure("libsodium needs a non-empty buffer here") }
        return base.assumingMemoryBound(to: UInt8.self)
    }
}

extension UnsafeMutableRawBufferPointer {
    var mutableBytePointer: UnsafeMutablePointer<UInt8> {
        guard let base = baseAddress else { preconditionFailure("libsodium needs a non-empty buffer here") }
        return base.assumingMemoryBound(to: UInt8.self)
    }
}
