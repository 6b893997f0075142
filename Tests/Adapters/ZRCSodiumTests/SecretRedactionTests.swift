import Testing
@_spi(Testing) import ZRCProtocol
import ZRCSodium

/// Key bytes must never reach a description, a debug dump or an error message: those end up in
/// logs and bug reports.
@Suite struct SecretRedactionTests {
    /// Every textual rendering Swift offers for a value.
    static func renderings(of value: Any) -> [String] {
        var dumped = ""
        dump(value, to: &dumped)
        return [String(describing: value), String(reflecting: value), "\(value)", dumped]
    }

    /// Forms in which bytes could leak: hex (either case), decimal list, and the raw characters.
    static func leakForms(of bytes: [UInt8]) -> [String] {
        [bytes.hex, bytes.hex.uppercased(), bytes.map(String.init).joined(separator: ", "),
         String(decoding: bytes, as: UTF8.self)]
    }

    @Test(arguments: [
        [UInt8](repeating: 0x5a, count: 32),
        Array("correct horse battery staple!!!!".utf8),
        (0..<64).map { UInt8($0 * 3 + 1) },
    ])
    func secretBytesNeverShowTheirContents(_ bytes: [UInt8]) {
        let secret = SecretBytes(bytes)
        for rendering in Self.renderings(of: secret) {
            for leak in Self.leakForms(of: bytes) {
                #expect(!rendering.contains(leak), "rendering leaks the secret: \(rendering)")
            }
        }
        #expect(secret.description.contains("redacted"))
    }

    @Test func keyPairsShowOnlyThePublicHalf() throws {
        let crypto = try SodiumCrypto()
        let privateBytes = [UInt8](repeating: 0x7e, count: 32)
        let pair = try crypto.keyPair(privateKey: SecretBytes(privateBytes))
        for rendering in Self.renderings(of: pair) {
            #expect(rendering.contains(pair.publicKey.hex))
            for leak in Self.leakForms(of: privateBytes) {
                #expect(!rendering.contains(leak), "rendering leaks the private key: \(rendering)")
            }
        }
    }

    @Test func errorsNeverContainKeyMaterial() throws {
        let keys = try TestKeys()
        var errors: [NoiseError] = []
        func collect<R: ~Copyable>(_ body: () throws -> R) {
            do { _ = try body() } catch let error as NoiseError { errors.append(error) } catch {}
        }
        // A failed handshake (wrong psk), a tampered record, a bad key, a small-order point.
        let wrongPSK = SecretBytes([UInt8](repeating: 0x66, count: 32))
        var initiator = try keys.handshake("IKpsk2", .initiator, psk: wrongPSK)
        var responder = try keys.handshake("IKpsk2", .responder)
        collect { try runHandshake(initiator: &initiator, responder: &responder) }
        collect { try keys.crypto.decrypt(key: keys.psk, nonce: 0, associatedData: [], ciphertext: [UInt8](repeating: 1, count: 40)) }
        collect { try NoiseKeyPair(publicKey: keys.initiatorStatic.publicKey, privateKey: SecretBytes([1, 2, 3])) }
        collect { try keys.crypto.dh(privateKey: keys.initiatorStatic.privateKey, publicKey: NoisePublicKey(bytes: [UInt8](repeating: 0, count: 32))) }
        #expect(errors.count == 4)

        let secrets = [keys.psk, wrongPSK, keys.initiatorStatic.privateKey, keys.responderStatic.privateKey,
                       keys.initiatorEphemeral.privateKey, keys.responderEphemeral.privateKey].map { $0.copyBytes() }
        for error in errors {
            for rendering in Self.renderings(of: error) {
                for secret in secrets {
                    for leak in Self.leakForms(of: secret) {
                        #expect(!rendering.contains(leak), "error leaks a key: \(rendering)")
                    }
                }
            }
        }
    }
}
