import Testing
import ZRCProtocol
import ZRCSodium

/// The fingerprint users compare by eye is specified (Schemas/session-protocol.md): pinned here.
@Suite struct FingerprintTests {
    @Test func theSpecifiedExample() throws {
        let key = try NoisePublicKey(bytes: Array(0..<32))
        #expect(KeyDerivations.fingerprint(of: key, crypto: try SodiumCrypto()) == "62tr-hyko-cgya-gkec")
    }
}
