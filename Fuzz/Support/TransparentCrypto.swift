import ZRCProtocol

/// Noise primitives that let any bytes through authentication, for the `handshake` target and its
/// seeds. Never a real cipher.
///
/// AEAD is the identity plus a 16-byte tag that is never checked. This models the peer that
/// matters most after the handshake: one that holds valid keys (a paired controller, a
/// compromised host) and can make every record authenticate. Everything behind decryption must
/// hold up against it, and real cryptography would hide all of it from the fuzzer. Key values
/// never steer the protocol code (only lengths do), so DH and hash outputs are constant and key
/// pairs fixed: the same paths as real ones, reproducible and cheap.
/// FuzzRegressionTests (ZRCProtocolTests) replays with a copy of this type: keep them alike.
struct TransparentCrypto: NoiseCrypto {
    var dhName: String { "25519" }
    var cipherName: String { "ChaChaPoly" }
    var hashName: String { "BLAKE2b" }
    var hashLength: Int { 64 }
    var blockLength: Int { 128 }

    /// A fixed key pair whose public half equals its private half.
    static func keyPair(seed: UInt8) -> NoiseKeyPair {
        try! TransparentCrypto().keyPair(privateKey: SecretBytes([UInt8](repeating: seed, count: 32)))
    }

    func generateKeyPair() -> NoiseKeyPair { Self.keyPair(seed: 0xE0) }

    func publicKey(forPrivateKey privateKey: SecretBytes) throws(NoiseError) -> NoisePublicKey {
        try NoisePublicKey(bytes: privateKey.copyBytes())
    }

    func validatePublicKey(_ publicKey: NoisePublicKey) throws(NoiseError) {}

    func dh(privateKey: SecretBytes, publicKey: NoisePublicKey) throws(NoiseError) -> SecretBytes {
        .zeros(count: NoisePublicKey.length)
    }

    func encrypt(key: SecretBytes, nonce: UInt64, associatedData: [UInt8], plaintext: [UInt8]) -> [UInt8] {
        plaintext + [UInt8](repeating: 0, count: 16)
    }

    func decrypt(key: SecretBytes, nonce: UInt64, associatedData: [UInt8], ciphertext: [UInt8]) throws(NoiseError) -> [UInt8] {
        guard ciphertext.count >= 16 else { throw NoiseError(.messageTooShort, "shorter than the tag") }
        return Array(ciphertext.dropLast(16))
    }

    func encryptInPlace(key: SecretBytes, nonce: UInt64, associatedData: [UInt8], buffer: UnsafeMutableRawBufferPointer) {
        UnsafeMutableRawBufferPointer(rebasing: buffer[(buffer.count - 16)...]).initializeMemory(as: UInt8.self, repeating: 0)
    }
    func decryptInPlace(key: SecretBytes, nonce: UInt64, associatedData: [UInt8], buffer: UnsafeMutableRawBufferPointer) throws(NoiseError) {
        guard buffer.count >= 16 else { throw NoiseError(.messageTooShort, "shorter than the tag") }
    }
    func hash(_ parts: [UnsafeRawBufferPointer], into output: UnsafeMutableRawBufferPointer) {
        output.initializeMemory(as: UInt8.self, repeating: 0)
    }
}

/// The fixed identities of the `handshake` target, shared with the seed generator so that its
/// seeds are handshakes this harness completes.
enum HandshakeFixture {
    static let hostKey = TransparentCrypto.keyPair(seed: 0x10)
    static let controllerKey = TransparentCrypto.keyPair(seed: 0x20)
    static let inviteID = try! InviteID(bytes: Array(0xA0...0xAF))
    static let inviteSecret = SecretBytes(Array(0xF0...0xFF))
    static let response = HandshakeResponsePayload(sessionID: 7, granted: [], hostName: "fuzz-host")

    static func controller(pairing: Bool) throws(SessionError) -> ControllerHandshake {
        try ControllerHandshake(
            purpose: pairing ? .pair(inviteID: inviteID, secret: inviteSecret) : .session(requested: []),
            localStatic: controllerKey, hostKey: hostKey.publicKey, timestampMicros: 1, agent: "fuzz", crypto: TransparentCrypto())
    }

    static func psk(for initiation: HandshakeInitiation) -> SecretBytes? {
        initiation.inviteID.map { KeyDerivations.pairingPSK(inviteID: $0, secret: inviteSecret, crypto: TransparentCrypto()) }
    }
}
