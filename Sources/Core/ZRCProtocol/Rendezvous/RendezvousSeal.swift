/// Seals rendezvous messages so the broker sees only ciphertext: one Noise `K` message
/// (`Noise_K_25519_ChaChaPoly_BLAKE2b`, both static keys known from pairing). The sender is
/// authenticated by `ss`, the recipient alone can open it, and the prologue binds the topic it was
/// published on, so a sealed message moved to another topic does not open.
///
/// Sealed layout: `"ZRV" ‖ version 1 ‖ Noise message` (e ‖ encrypted payload ‖ tag).
public enum RendezvousSeal {
    static let protocolName = "Noise_K_25519_ChaChaPoly_BLAKE2b"
    static let magic: [UInt8] = Array("ZRV".utf8) + [1]
    /// A sealed message larger than this is dropped before any work: sixteen candidates fit in 2 KiB.
    public static let maxSealedBytes = 4096

    public static func seal(_ message: RendezvousMessage, topic: String, sender: NoiseKeyPair, recipient: NoisePublicKey,
                            crypto: any NoiseCrypto) throws(NoiseError) -> [UInt8] {
        var handshake = try HandshakeState(protocolName: protocolName, role: .initiator, prologue: prologue(topic: topic),
                                           localStatic: sender, remoteStatic: recipient, crypto: crypto)
        return magic + (try handshake.writeMessage(payload: message.encoded()))
    }

    /// Opens a message `sender` sealed to `recipient` on `topic`. Errors say why without revealing
    /// anything a forger could use: wrong size, wrong format, or it does not authenticate.
    public static func open(_ sealed: [UInt8], topic: String, recipient: NoiseKeyPair, sender: NoisePublicKey,
                            crypto: any NoiseCrypto) throws(RendezvousError) -> RendezvousMessage {
        guard sealed.count <= maxSealedBytes else {
            throw RendezvousError(.malformed, "a rendezvous message of \(sealed.count) bytes is over the \(maxSealedBytes)-byte limit")
        }
        guard sealed.starts(with: magic) else { throw RendezvousError(.malformed, "not a ZRC rendezvous message") }
        let payload: [UInt8]
        do {
            var handshake = try HandshakeState(protocolName: protocolName, role: .responder, prologue: prologue(topic: topic),
                                               localStatic: recipient, remoteStatic: sender, crypto: crypto)
            payload = try handshake.readMessage(Array(sealed.dropFirst(magic.count)))
        } catch {
            throw RendezvousError(.unauthenticated, "a rendezvous message did not authenticate (not sealed by the paired peer for this topic)")
        }
        do {
            return try RendezvousMessage(decoding: payload)
        } catch {
            throw RendezvousError(.malformed, "an authenticated rendezvous message is malformed: \(error.message)")
        }
    }

    static func prologue(topic: String) -> [UInt8] { Array("ZRC rendezvous v1 ".utf8) + Array(topic.utf8) }
}

public struct RendezvousError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        case malformed
        case unauthenticated
        /// Authentic but outside the clock window, or seen before.
        case replayed
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
