import Testing
@_spi(Testing) import ZRCProtocol
import ZRCSodium

/// Small-order X25519 points make the shared secret all zeros (or otherwise attacker-known); a
/// peer offering one, as ephemeral or static key, must abort the handshake.
@Suite struct LowOrderPointTests {
    /// The points of order 1, 2, 4, 8 and the encodings ≥ p that reduce to them, each with and
    /// without bit 255 set (X25519 ignores that bit). Independently checked with a Montgomery ladder.
    static let points: [String] = [
        "0000000000000000000000000000000000000000000000000000000000000000",
        "0100000000000000000000000000000000000000000000000000000000000000",
        "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
        "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157",
        "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
        "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
        "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
        "0000000000000000000000000000000000000000000000000000000000000080",
        "0100000000000000000000000000000000000000000000000000000000000080",
        "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b880",
        "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f11d7",
        "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
        "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
        "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
    ]

    let keys: TestKeys

    init() throws { keys = try TestKeys() }

    @Test(arguments: points)
    func dhWithASmallOrderPointThrows(_ hex: String) throws {
        let point = try NoisePublicKey(hex: hex)
        expectNoiseError(.lowOrderPoint) { try keys.crypto.dh(privateKey: keys.initiatorStatic.privateKey, publicKey: point) }
        expectNoiseError(.lowOrderPoint) { try keys.crypto.validatePublicKey(point) }
    }

    @Test(arguments: points)
    func smallOrderEphemeralAbortsTheHandshake(_ hex: String) throws {
        for pattern in ["NN", "IK", "XX", "IKpsk2"] {
            var initiator = try keys.handshake(pattern, .initiator)
            var message = try initiator.writeMessage(payload: [])
            message.replaceSubrange(0..<32, with: [UInt8](hex: hex))
            var responder = try keys.handshake(pattern, .responder)
            expectNoiseError(.lowOrderPoint) { try responder.readMessage(message) }
            #expect(responder.nextStep == .failed)
        }
    }

    @Test(arguments: points)
    func smallOrderStaticKeyAbortsTheHandshake(_ hex: String) throws {
        // A malicious initiator can send any "static key" it likes, properly encrypted.
        let point = try NoisePublicKey(hex: hex)
        let fake = try NoiseKeyPair(publicKey: point, privateKey: keys.initiatorStatic.privateKey)
        for pattern in ["XX", "IK"] {
            var initiator = try keys.handshake(pattern, .initiator, localStatic: fake)
            var responder = try keys.handshake(pattern, .responder)
            do {
                try runHandshake(initiator: &initiator, responder: &responder)
                Issue.record("\(pattern): handshake with a small-order static key succeeded")
            } catch {
                #expect(error.kind == .lowOrderPoint, "\(pattern): \(error)")
            }
            #expect(responder.nextStep == .failed)
        }
    }

    @Test(arguments: points)
    func smallOrderPinnedKeyIsRefusedUpFront(_ hex: String) throws {
        let point = try NoisePublicKey(hex: hex)
        expectNoiseError(.lowOrderPoint) { try keys.handshake("IK", .initiator, remoteStatic: point) }
    }

    /// Even without the up-front check, the DH itself aborts: a crypto provider that skips
    /// validation still fails the handshake at the first DH with the bad key.
    @Test(arguments: points)
    func dhFailureAloneAbortsTheHandshake(_ hex: String) throws {
        let permissive = PermissiveCrypto(base: keys.crypto)
        var responder = try keys.handshake("NN", .responder, crypto: permissive)
        _ = try responder.readMessage([UInt8](hex: hex))
        expectNoiseError(.lowOrderPoint) { try responder.writeMessage(payload: []) }
        #expect(responder.nextStep == .failed)
    }
}

/// SodiumCrypto with the public-key check switched off, to test the DH safety net on its own.
struct PermissiveCrypto: NoiseCrypto {
    let base: SodiumCrypto
    var dhName: String { base.dhName }
    var cipherName: String { base.cipherName }
    var hashName: String { base.hashName }
    var hashLength: Int { base.hashLength }
    var blockLength: Int { base.blockLength }
    func generateKeyPair() -> NoiseKeyPair { base.generateKeyPair() }
    func publicKey(forPrivateKey privateKey: SecretBytes) throws(NoiseError) -> NoisePublicKey {
        try base.publicKey(forPrivateKey: privateKey)
    }
    func validatePublicKey(_ publicKey: NoisePublicKey) throws(NoiseError) {}
    func dh(privateKey: SecretBytes, publicKey: NoisePublicKey) throws(NoiseError) -> SecretBytes {
        try base.dh(privateKey: privateKey, publicKey: publicKey)
    }
    func encrypt(key: SecretBytes, nonce: UInt64, associatedData: [UInt8], plaintext: [UInt8]) -> [UInt8] {
        base.encrypt(key: key, nonce: nonce, associatedData: associatedData, plaintext: plaintext)
    }
    func decrypt(key: SecretBytes, nonce: UInt64, associatedData: [UInt8], ciphertext: [UInt8]) throws(NoiseError) -> [UInt8] {
        try base.decrypt(key: key, nonce: nonce, associatedData: associatedData, ciphertext: ciphertext)
    }
    func encryptInPlace(key: SecretBytes, nonce: UInt64, associatedData: [UInt8], buffer: UnsafeMutableRawBufferPointer) {
        base.encryptInPlace(key: key, nonce: nonce, associatedData: associatedData, buffer: buffer)
    }
    func decryptInPlace(key: SecretBytes, nonce: UInt64, associatedData: [UInt8], buffer: UnsafeMutableRawBufferPointer) throws(NoiseError) {
        try base.decryptInPlace(key: key, nonce: nonce, associatedData: associatedData, buffer: buffer)
    }
    func hash(_ parts: [UnsafeRawBufferPointer], into output: UnsafeMutableRawBufferPointer) {
        base.hash(parts, into: output)
    }
}
