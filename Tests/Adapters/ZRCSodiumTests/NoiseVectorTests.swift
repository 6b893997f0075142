import Testing
@_spi(Testing) import ZRCProtocol
import ZRCSodium

/// Reproduces the public Noise test vectors byte for byte: every handshake message, the handshake
/// hash, and the transport messages that follow, for every pattern in the file.
@Suite struct NoiseVectorTests {
    @Test func vectorFileLoadsAndCoversRequiredPatterns() throws {
        let vectors = try NoiseVector.loaded.get()
        let patterns = Set(vectors.map(\.patternName))
        for required in requiredPatterns {
            #expect(patterns.contains(required), "the vector file has no \(required) vector")
            #expect(throws: Never.self, "\(required) must be supported") { try HandshakePattern(name: required) }
        }
    }

    @Test(arguments: NoiseVector.all)
    func reproducesVector(_ vector: NoiseVector) throws {
        let crypto = try SodiumCrypto()
        func keyPair(_ hex: String?) throws -> NoiseKeyPair? {
            try hex.map { try crypto.keyPair(privateKey: SecretBytes([UInt8](hex: $0))) }
        }
        func publicKey(_ hex: String?) throws -> NoisePublicKey? { try hex.map { try NoisePublicKey(hex: $0) } }

        var initiator = try HandshakeState(
            protocolName: vector.protocolName, role: .initiator, prologue: [UInt8](hex: vector.initPrologue),
            localStatic: keyPair(vector.initStatic), remoteStatic: publicKey(vector.initRemoteStatic),
            psks: (vector.initPsks ?? []).map { SecretBytes([UInt8](hex: $0)) }, crypto: crypto,
            localEphemeral: keyPair(vector.initEphemeral))
        var responder = try HandshakeState(
            protocolName: vector.protocolName, role: .responder, prologue: [UInt8](hex: vector.respPrologue),
            localStatic: keyPair(vector.respStatic), remoteStatic: publicKey(vector.respRemoteStatic),
            psks: (vector.respPsks ?? []).map { SecretBytes([UInt8](hex: $0)) }, crypto: crypto,
            localEphemeral: keyPair(vector.respEphemeral))

        let pattern = initiator.protocolName.pattern
        let handshakeCount = pattern.messages.count
        try #require(vector.messages.count > handshakeCount, "the vector has no transport messages")
        // The messages alternate initiator, responder, … throughout; in one-way patterns the
        // initiator sends them all (spec §7.4).
        func initiatorSends(_ index: Int) -> Bool { pattern.isOneWay || index.isMultiple(of: 2) }

        for (index, message) in vector.messages.prefix(handshakeCount).enumerated() {
            let payload = [UInt8](hex: message.payload)
            if initiatorSends(index) {
                #expect(try initiator.writeMessage(payload: payload).hex == message.ciphertext, "message \(index)")
                #expect(try responder.readMessage([UInt8](hex: message.ciphertext)) == payload, "message \(index)")
            } else {
                #expect(try responder.writeMessage(payload: payload).hex == message.ciphertext, "message \(index)")
                #expect(try initiator.readMessage([UInt8](hex: message.ciphertext)) == payload, "message \(index)")
            }
        }
        try #require(initiator.isComplete && responder.isComplete)
        #expect(initiator.handshakeHash.hex == vector.handshakeHash)
        #expect(responder.handshakeHash.hex == vector.handshakeHash)
        if let initiatorStatic = try keyPair(vector.initStatic) {
            #expect(responder.remoteStaticKey == initiatorStatic.publicKey)
        }
        if let responderStatic = try keyPair(vector.respStatic) {
            #expect(initiator.remoteStaticKey == responderStatic.publicKey)
        }

        var initiatorTransport = try initiator.split()
        var responderTransport = try responder.split()
        for (index, message) in vector.messages.enumerated().dropFirst(handshakeCount) {
            let payload = [UInt8](hex: message.payload)
            if initiatorSends(index) {
                #expect(try initiatorTransport.encrypt(payload).hex == message.ciphertext, "message \(index)")
                #expect(try responderTransport.decrypt([UInt8](hex: message.ciphertext)) == payload, "message \(index)")
            } else {
                #expect(try responderTransport.encrypt(payload).hex == message.ciphertext, "message \(index)")
                #expect(try initiatorTransport.decrypt([UInt8](hex: message.ciphertext)) == payload, "message \(index)")
            }
        }
    }
}
