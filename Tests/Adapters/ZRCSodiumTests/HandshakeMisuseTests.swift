import Testing
@_spi(Testing) import ZRCProtocol
import ZRCSodium

/// Out-of-turn calls, use after completion or failure, bad configurations and size limits.
@Suite struct HandshakeMisuseTests {
    let keys: TestKeys

    init() throws { keys = try TestKeys() }

    @Test(arguments: requiredPatterns)
    func writingOnThePeersTurnThrowsWithoutHarm(_ pattern: String) throws {
        var initiator = try keys.handshake(pattern, .initiator)
        var responder = try keys.handshake(pattern, .responder)
        #expect(responder.nextStep == .readMessage)
        expectNoiseError(.wrongTurn) { try responder.writeMessage(payload: []) }
        // Our own misuse changes nothing: the handshake still completes.
        try runHandshake(initiator: &initiator, responder: &responder)
        let completed = initiator.isComplete && responder.isComplete
        #expect(completed)
    }

    @Test(arguments: requiredPatterns)
    func readingOnOurTurnThrowsAndFailsTheHandshake(_ pattern: String) throws {
        var initiator = try keys.handshake(pattern, .initiator)
        var responder = try keys.handshake(pattern, .responder)
        let first = try initiator.writeMessage(payload: [])
        // The responder must reply now; another incoming message is out of turn.
        _ = try responder.readMessage(first)
        expectNoiseError(.wrongTurn) { try responder.readMessage(first) }
        #expect(responder.nextStep == .failed)
        expectNoiseError(.handshakeFailed) { try responder.writeMessage(payload: []) }
    }

    @Test(arguments: requiredPatterns)
    func messagesAfterCompletionThrow(_ pattern: String) throws {
        var initiator = try keys.handshake(pattern, .initiator)
        var responder = try keys.handshake(pattern, .responder)
        let messages = try runHandshake(initiator: &initiator, responder: &responder)
        expectNoiseError(.handshakeComplete) { try initiator.writeMessage(payload: []) }
        expectNoiseError(.handshakeComplete) { try responder.writeMessage(payload: []) }
        expectNoiseError(.handshakeComplete) { try initiator.readMessage(messages[messages.count - 1]) }
        expectNoiseError(.handshakeComplete) { try responder.readMessage(messages[0]) }
        // The completed handshakes are unharmed and still split into working transports.
        var initiatorTransport = try initiator.split()
        var responderTransport = try responder.split()
        #expect(try responderTransport.decrypt(initiatorTransport.encrypt([7])) == [7])
    }

    @Test(arguments: requiredPatterns)
    func failedReadCannotBeRetried(_ pattern: String) throws {
        var initiator = try keys.handshake(pattern, .initiator)
        var responder = try keys.handshake(pattern, .responder)
        let first = try initiator.writeMessage(payload: Array("hello".utf8))
        expectNoiseError(.messageTooShort) { try responder.readMessage(Array(first.prefix(10))) }
        #expect(responder.nextStep == .failed)
        // Even the genuine message is refused now.
        expectNoiseError(.handshakeFailed) { try responder.readMessage(first) }
    }

    @Test func splittingAnUnfinishedHandshakeThrows() throws {
        let handshake = try keys.handshake("XX", .initiator)
        do {
            _ = try handshake.split()
            Issue.record("split succeeded before the handshake finished")
        } catch {
            #expect(error.kind == .handshakeIncomplete)
        }
    }

    @Test(arguments: ["IK", "KK"])
    func wrongRemoteStaticKeyFails(_ pattern: String) throws {
        let stranger = keys.crypto.generateKeyPair()
        var initiator = try keys.handshake(pattern, .initiator, remoteStatic: stranger.publicKey)
        var responder = try keys.handshake(pattern, .responder)
        #expect(throws: NoiseError.self) { try runHandshake(initiator: &initiator, responder: &responder) }
        let completed = responder.isComplete
        #expect(!completed)
    }

    @Test(arguments: ["KK", "XX", "IK"])
    func responderSeesTheInitiatorsRealKey(_ pattern: String) throws {
        // An impostor with its own static key: KK fails outright; XX/IK complete but reveal who
        // it is, which is what the caller then checks against its trust store.
        let impostor = keys.crypto.generateKeyPair()
        var initiator = try keys.handshake(pattern, .initiator, localStatic: impostor)
        var responder = try keys.handshake(pattern, .responder)
        do {
            try runHandshake(initiator: &initiator, responder: &responder)
            #expect(pattern != "KK", "KK accepted an initiator key the responder did not expect")
            #expect(responder.remoteStaticKey == impostor.publicKey)
        } catch {
            #expect(pattern == "KK")
        }
    }

    @Test(arguments: ["IKpsk2", "XXpsk3"])
    func wrongPSKFails(_ pattern: String) throws {
        var initiator = try keys.handshake(pattern, .initiator, psk: SecretBytes([UInt8](repeating: 0x66, count: 32)))
        var responder = try keys.handshake(pattern, .responder)
        #expect(throws: NoiseError.self) { try runHandshake(initiator: &initiator, responder: &responder) }
    }

    @Test(arguments: requiredPatterns)
    func prologueMismatchFails(_ pattern: String) throws {
        var initiator = try keys.handshake(pattern, .initiator, prologue: Array("zrc v1".utf8))
        var responder = try keys.handshake(pattern, .responder, prologue: Array("zrc v2".utf8))
        #expect(throws: NoiseError.self) { try runHandshake(initiator: &initiator, responder: &responder) }
    }

    @Test func configurationErrors() throws {
        let name = protocolName
        let crypto = keys.crypto
        let psk = keys.psk
        let s = keys.initiatorStatic
        let rs = keys.responderStatic.publicKey
        expectNoiseError(.missingKey) { try HandshakeState(protocolName: name("IK"), role: .initiator, localStatic: s, crypto: crypto) }
        expectNoiseError(.missingKey) { try HandshakeState(protocolName: name("XX"), role: .initiator, crypto: crypto) }
        expectNoiseError(.missingKey) {
            try HandshakeState(protocolName: name("IKpsk2"), role: .initiator, localStatic: s, remoteStatic: rs, crypto: crypto)
        }
        expectNoiseError(.unexpectedKey) { try HandshakeState(protocolName: name("NN"), role: .initiator, psks: [psk], crypto: crypto) }
        expectNoiseError(.unexpectedKey) {
            try HandshakeState(protocolName: name("XX"), role: .initiator, localStatic: s, remoteStatic: rs, crypto: crypto)
        }
        expectNoiseError(.invalidKey) {
            try HandshakeState(protocolName: name("NNpsk0"), role: .initiator, psks: [SecretBytes([1, 2, 3])], crypto: crypto)
        }
        expectNoiseError(.invalidKey) { try NoiseKeyPair(publicKey: rs, privateKey: SecretBytes([1])) }
        expectNoiseError(.invalidKey) { try NoisePublicKey(bytes: [UInt8](repeating: 1, count: 31)) }
        expectNoiseError(.invalidKey) { try NoisePublicKey(hex: String(repeating: "zz", count: 32)) }
        expectNoiseError(.invalidKey) { try crypto.publicKey(forPrivateKey: SecretBytes([1, 2])) }
    }

    @Test(arguments: [
        ("Noise_XX_448_ChaChaPoly_BLAKE2b", NoiseError.Kind.unsupportedPattern),
        ("Noise_XX_25519_AESGCM_SHA256", .unsupportedPattern),
        ("Noise_XXfallback_25519_ChaChaPoly_BLAKE2b", .unsupportedPattern),
        ("Noise_QQ_25519_ChaChaPoly_BLAKE2b", .unsupportedPattern),
        ("Noise_NNpsk3_25519_ChaChaPoly_BLAKE2b", .unsupportedPattern),
        ("Noise_NNpsk0+psk0_25519_ChaChaPoly_BLAKE2b", .unsupportedPattern),
        ("Noise_NNpsk_25519_ChaChaPoly_BLAKE2b", .unsupportedPattern),
        ("Noise_NN_25519_ChaChaPoly", .invalidProtocolName),
        ("Nois_NN_25519_ChaChaPoly_BLAKE2b", .invalidProtocolName),
        ("Noise__25519_ChaChaPoly_BLAKE2b", .invalidProtocolName),
        ("", .invalidProtocolName),
    ])
    func badProtocolNamesAreRefused(_ name: String, _ kind: NoiseError.Kind) {
        let crypto = keys.crypto
        expectNoiseError(kind) { try HandshakeState(protocolName: name, role: .initiator, crypto: crypto) }
    }

    @Test func handshakeMessageSizeLimit() throws {
        // XX message 1: e (32) + payload in clear, so the largest payload is 65535 - 32.
        var initiator = try keys.handshake("XX", .initiator)
        expectNoiseError(.messageTooLarge) { try initiator.writeMessage(payload: [UInt8](repeating: 0, count: 65535 - 31)) }
        #expect(initiator.nextStep == .writeMessage, "an oversized write must not fail the handshake")
        let largest = try initiator.writeMessage(payload: [UInt8](repeating: 0, count: 65535 - 32))
        #expect(largest.count == 65535)
        var responder = try keys.handshake("XX", .responder)
        #expect(try responder.readMessage(largest).count == 65535 - 32)

        var other = try keys.handshake("XX", .responder)
        expectNoiseError(.messageTooLarge) { try other.readMessage([UInt8](repeating: 9, count: 65536)) }
        #expect(other.nextStep == .failed)
    }
}
