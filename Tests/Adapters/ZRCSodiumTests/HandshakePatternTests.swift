import PropertyBased
import Testing
@_spi(Testing) import ZRCProtocol
import ZRCSodium

/// The pattern table and modifiers, and a randomized round trip over every supported pattern.
@Suite struct HandshakePatternTests {
    /// All base patterns of the spec: 3 one-way, 12 fundamental, 23 deferred.
    @Test func tableHasEverySpecPattern() throws {
        #expect(HandshakePattern.baseNames.count == 38)
        let vectorPatterns = Set(NoiseVector.all.map(\.patternName))
        for name in HandshakePattern.baseNames {
            let pattern = try HandshakePattern(name: name)
            // One-way patterns are the single-letter ones; every interactive one has 2 to 4 messages.
            #expect(pattern.isOneWay == (name.count == 1))
            #expect(pattern.isOneWay ? pattern.messages.count == 1 : (2...4).contains(pattern.messages.count))
            #expect(vectorPatterns.contains(name), "no test vector exercises \(name)")
        }
    }

    @Test(arguments: [
        ("NNpsk0", 0, true), ("NNpsk2", 1, false), ("IKpsk1", 0, false), ("IKpsk2", 1, false), ("XXpsk3", 2, false),
    ])
    func pskModifierPlacesTheToken(_ name: String, _ message: Int, _ atStart: Bool) throws {
        let pattern = try HandshakePattern(name: name)
        #expect(pattern.pskCount == 1)
        #expect((atStart ? pattern.messages[message].first : pattern.messages[message].last) == .psk)
    }

    @Test func multiplePSKModifiersUseTheirOwnKeys() throws {
        let keys = try TestKeys()
        let second = SecretBytes([UInt8](repeating: 0x77, count: 32))
        let name = protocolName("NNpsk0+psk2")
        var initiator = try HandshakeState(protocolName: name, role: .initiator, psks: [keys.psk, second], crypto: keys.crypto)
        var responder = try HandshakeState(protocolName: name, role: .responder, psks: [keys.psk, second], crypto: keys.crypto)
        try runHandshake(initiator: &initiator, responder: &responder)

        var wrongInitiator = try HandshakeState(protocolName: name, role: .initiator, psks: [keys.psk, keys.psk], crypto: keys.crypto)
        var rightResponder = try HandshakeState(protocolName: name, role: .responder, psks: [keys.psk, second], crypto: keys.crypto)
        expectNoiseError(.decryptFailed) { try runHandshake(initiator: &wrongInitiator, responder: &rightResponder) }
    }

    /// Random pattern, random payload sizes, random ephemerals: both sides agree on the
    /// transcript, learn each other's static keys and can exchange records.
    @Test func randomHandshakesAgree() async throws {
        let names = HandshakePattern.baseNames + ["NNpsk0", "IKpsk2", "XXpsk3", "KKpsk0", "Xpsk1"]
        let keys = try TestKeys()
        await propertyCheck(count: 80, input: Gen.element(of: names), Gen.int(in: 0...2000)) { name, payloadSize in
            let pattern = try #require(name).description
            var initiator = try keys.handshake(pattern, .initiator, randomEphemeral: true)
            var responder = try keys.handshake(pattern, .responder, randomEphemeral: true)
            try runHandshake(initiator: &initiator, responder: &responder, payload: { [UInt8](repeating: UInt8($0), count: payloadSize) })
            let sameHash = initiator.handshakeHash == responder.handshakeHash
            #expect(sameHash)
            let parsed = try HandshakePattern(name: pattern)
            if parsed.tokens(writtenBy: .initiator).contains(.s) {
                let learned = responder.remoteStaticKey
                #expect(learned == keys.initiatorStatic.publicKey)
            }
            if parsed.tokens(writtenBy: .responder).contains(.s) {
                let learned = initiator.remoteStaticKey
                #expect(learned == keys.responderStatic.publicKey)
            }
            var initiatorTransport = try initiator.split()
            var responderTransport = try responder.split()
            let record = try responderTransport.decrypt(initiatorTransport.encrypt([1, 2, 3]))
            #expect(record == [1, 2, 3])
        }
    }
}
