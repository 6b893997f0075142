/// Noise SymmetricState (spec §5.2): the chaining key `ck`, the handshake hash `h`, and the
/// CipherState that encrypts handshake payloads.
///
/// `h` is a transcript of everything sent so far, so any change to any earlier byte makes the
/// next authenticated field fail; `ck` accumulates every DH and psk.
struct SymmetricState: Sendable {
    private let crypto: any NoiseCrypto
    private(set) var chainingKey: SecretBytes
    private(set) var handshakeHash: [UInt8]
    private var cipher: CipherState

    /// InitializeSymmetric(protocol_name): a name of at most HASHLEN bytes is zero-padded to
    /// form `h` (not hashed — the measured pitfall), a longer one is hashed.
    init(protocolName: String, crypto: any NoiseCrypto) {
        self.crypto = crypto
        let name = Array(protocolName.utf8)
        let initialHash: [UInt8]
        if name.count <= crypto.hashLength {
            initialHash = name + [UInt8](repeating: 0, count: crypto.hashLength - name.count)
        } else {
            initialHash = crypto.hash(name, [])
        }
        handshakeHash = initialHash
        chainingKey = SecretBytes(initialHash)
        cipher = CipherState(crypto: crypto)
    }

    var hasKey: Bool { cipher.hasKey }

    /// MixKey(ikm) with secret input (a DH result).
    mutating func mixKey(_ inputKeyMaterial: SecretBytes) {
        inputKeyMaterial.withUnsafeBytes { mixKey(raw: $0) }
    }

    /// MixKey(ikm) with public input: psk patterns mix every ephemeral public key into `ck`.
    mutating func mixKey(publicBytes: [UInt8]) {
        publicBytes.withUnsafeBytes { mixKey(raw: $0) }
    }

    private mutating func mixKey(raw inputKeyMaterial: UnsafeRawBufferPointer) {
        let outputs = crypto.hkdf(chainingKey: chainingKey, inputKeyMaterial: inputKeyMaterial, outputs: 2)
        chainingKey = outputs[0]
        cipher.initializeKey(outputs[1].prefix(CipherState.keyLength))
    }

    /// MixHash(data): h = HASH(h ‖ data).
    mutating func mixHash(_ data: [UInt8]) {
        handshakeHash = crypto.hash(handshakeHash, data)
    }

    /// MixKeyAndHash(psk): the psk feeds both `ck` and, through the middle output, `h`.
    mutating func mixKeyAndHash(_ inputKeyMaterial: SecretBytes) {
        let outputs = inputKeyMaterial.withUnsafeBytes {
            crypto.hkdf(chainingKey: chainingKey, inputKeyMaterial: $0, outputs: 3)
        }
        chainingKey = outputs[0]
        // temp_h is derived from the psk but becomes part of the public transcript `h`, so it
        // may leave SecretBytes here.
        mixHash(outputs[1].copyBytes())
        cipher.initializeKey(outputs[2].prefix(CipherState.keyLength))
    }

    /// EncryptAndHash: encrypt with `h` as associated data, then hash the ciphertext.
    mutating func encryptAndHash(_ plaintext: [UInt8]) throws(NoiseError) -> [UInt8] {
        let ciphertext = try cipher.encrypt(associatedData: handshakeHash, plaintext: plaintext)
        mixHash(ciphertext)
        return ciphertext
    }

    /// DecryptAndHash: the inverse; throws if the transcript or the key differs from the peer's.
    mutating func decryptAndHash(_ ciphertext: [UInt8]) throws(NoiseError) -> [UInt8] {
        let plaintext = try cipher.decrypt(associatedData: handshakeHash, ciphertext: ciphertext)
        mixHash(ciphertext)
        return plaintext
    }

    /// Split(): two keys, initiator→responder first, so each direction has its own key and
    /// nonce sequence (never one key for both ways).
    func split() -> (initiatorToResponder: CipherState, responderToInitiator: CipherState) {
        let outputs = crypto.hkdf(chainingKey: chainingKey, inputKeyMaterial: UnsafeRawBufferPointer(start: nil, count: 0), outputs: 2)
        return (
            CipherState(crypto: crypto, key: outputs[0].prefix(CipherState.keyLength)),
            CipherState(crypto: crypto, key: outputs[1].prefix(CipherState.keyLength))
        )
    }
}
