import Testing
@_spi(Testing) import ZRCProtocol
import ZRCSodium

// Shared fixtures: fixed keys so handshakes are reproducible, and helpers that run two in-memory
// peers against each other (the sans-IO state machines need no sockets).

/// The patterns ZRC relies on (IK/IKpsk2 for reconnect/pairing, the rest as generic checks).
let requiredPatterns = ["NN", "KK", "IK", "IKpsk2", "XX", "XXpsk3"]

func protocolName(_ pattern: String) -> String { "Noise_\(pattern)_25519_ChaChaPoly_BLAKE2b" }

extension Array where Element == UInt8 {
    init(hex: String) {
        let digits = Array(hex.utf8)
        precondition(digits.count.isMultiple(of: 2), "odd-length hex")
        self = stride(from: 0, to: digits.count, by: 2).map { index in
            UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16)!
        }
    }

    var hex: String { map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined() }
}

/// Records an issue unless `body` throws a `NoiseError` of `kind`.
func expectNoiseError<R: ~Copyable>(
    _ kind: NoiseError.Kind, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> R
) {
    do {
        _ = try body()
        Issue.record("expected NoiseError.\(kind), but the call succeeded", sourceLocation: sourceLocation)
    } catch let error as NoiseError {
        #expect(error.kind == kind, "\(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected NoiseError.\(kind), got \(error)", sourceLocation: sourceLocation)
    }
}

/// Deterministic keys for both sides of a test handshake.
struct TestKeys {
    let crypto: SodiumCrypto
    let initiatorStatic: NoiseKeyPair
    let responderStatic: NoiseKeyPair
    let initiatorEphemeral: NoiseKeyPair
    let responderEphemeral: NoiseKeyPair
    let psk: SecretBytes

    init() throws {
        let crypto = try SodiumCrypto()
        self.crypto = crypto
        func pair(_ byte: UInt8) throws -> NoiseKeyPair {
            try crypto.keyPair(privateKey: SecretBytes([UInt8](repeating: byte, count: 32)))
        }
        initiatorStatic = try pair(0x11)
        responderStatic = try pair(0x22)
        initiatorEphemeral = try pair(0x33)
        responderEphemeral = try pair(0x44)
        psk = SecretBytes([UInt8](repeating: 0x55, count: 32))
    }

    /// A handshake for `role` with every key the pattern needs; ephemerals are fixed unless
    /// `randomEphemeral`, so repeated runs produce identical messages.
    func handshake(
        _ pattern: String, _ role: NoiseRole, prologue: [UInt8] = Array("zrc test".utf8),
        localStatic: NoiseKeyPair? = nil, remoteStatic: NoisePublicKey? = nil, psk: SecretBytes? = nil,
        randomEphemeral: Bool = false, crypto: (any NoiseCrypto)? = nil
    ) throws(NoiseError) -> HandshakeState {
        let parsed = try HandshakePattern(name: pattern)
        let peerPre = role == .initiator ? parsed.responderPreMessage : parsed.initiatorPreMessage
        let ownStatic = role == .initiator ? initiatorStatic : responderStatic
        let peerStatic = role == .initiator ? responderStatic : initiatorStatic
        return try HandshakeState(
            protocolName: protocolName(pattern), role: role, prologue: prologue,
            localStatic: localStatic ?? ownStatic,
            remoteStatic: remoteStatic ?? (peerPre.contains(.s) ? peerStatic.publicKey : nil),
            psks: [SecretBytes](repeating: psk ?? self.psk, count: parsed.pskCount),
            crypto: crypto ?? self.crypto,
            localEphemeral: randomEphemeral ? nil : (role == .initiator ? initiatorEphemeral : responderEphemeral))
    }
}

/// Runs a handshake to completion between two in-memory peers, returning every message.
/// `payload(i)` is the payload of message i; `tamper` may alter a message in flight.
@discardableResult
func runHandshake(
    initiator: inout HandshakeState, responder: inout HandshakeState,
    payload: (Int) -> [UInt8] = { Array("payload \($0)".utf8) },
    tamper: (Int, inout [UInt8]) -> Void = { _, _ in }, checkPayloads: Bool = true
) throws(NoiseError) -> [[UInt8]] {
    var messages: [[UInt8]] = []
    var index = 0
    while !initiator.isComplete || !responder.isComplete {
        var message: [UInt8]
        let received: [UInt8]
        if initiator.nextStep == .writeMessage {
            message = try initiator.writeMessage(payload: payload(index))
            messages.append(message)
            tamper(index, &message)
            received = try responder.readMessage(message)
        } else {
            message = try responder.writeMessage(payload: payload(index))
            messages.append(message)
            tamper(index, &message)
            received = try initiator.readMessage(message)
        }
        if checkPayloads { #expect(received == payload(index)) }
        index += 1
    }
    return messages
}
