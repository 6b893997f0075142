import Testing
@_spi(Testing) import ZRCProtocol
import ZRCSodium

/// Any change to any byte of any handshake message must make the handshake fail — at that message
/// when it carries a tag, otherwise at the next authenticated one (the transcript hash differs) —
/// and never produce a working session.
@Suite struct HandshakeTamperTests {
    enum Outcome: Equatable {
        /// A read threw while processing message `index`.
        case failedReading(index: Int, kind: NoiseError.Kind)
        /// Both sides completed and a record went through in each direction.
        case succeeded
        /// Both sides completed but the keys differ.
        case transportFailed
    }

    /// Runs a full handshake (plus one record each way), flipping one bit of message `index`
    /// at byte `byte` when given.
    static func outcome(_ pattern: String, flip: (index: Int, byte: Int)?) throws -> Outcome {
        let keys = try TestKeys()
        var initiator = try keys.handshake(pattern, .initiator)
        var responder = try keys.handshake(pattern, .responder)
        var failedAt = -1
        do {
            failedAt = 0
            try runHandshake(initiator: &initiator, responder: &responder, tamper: { index, message in
                failedAt = index
                if let flip, flip.index == index {
                    // Vary the bit with the position so bit 7 of key bytes (ignored by X25519) is hit too.
                    message[flip.byte] ^= 1 << UInt8(flip.byte % 8)
                }
            }, checkPayloads: false)
        } catch {
            return .failedReading(index: failedAt, kind: error.kind)
        }
        var initiatorTransport = try initiator.split()
        var responderTransport = try responder.split()
        do {
            let forward = try responderTransport.decrypt(initiatorTransport.encrypt([1, 2, 3]))
            let backward = try initiatorTransport.decrypt(responderTransport.encrypt([4, 5, 6]))
            return forward == [1, 2, 3] && backward == [4, 5, 6] ? .succeeded : .transportFailed
        } catch {
            return .transportFailed
        }
    }

    @Test(arguments: requiredPatterns)
    func untamperedHandshakeSucceeds(_ pattern: String) throws {
        #expect(try Self.outcome(pattern, flip: nil) == .succeeded)
    }

    @Test(arguments: requiredPatterns)
    func everyFlippedByteFailsTheHandshake(_ pattern: String) throws {
        let keys = try TestKeys()
        var initiator = try keys.handshake(pattern, .initiator)
        var responder = try keys.handshake(pattern, .responder)
        let messages = try runHandshake(initiator: &initiator, responder: &responder)
        var cases = 0
        for (index, message) in messages.enumerated() {
            for byte in message.indices {
                let result = try Self.outcome(pattern, flip: (index, byte))
                cases += 1
                switch result {
                case .failedReading(let failedIndex, _):
                    #expect(failedIndex >= index, "message \(index) byte \(byte) failed before it was sent?")
                case .succeeded, .transportFailed:
                    Issue.record("flipping message \(index) byte \(byte) did not fail the handshake: \(result)")
                }
            }
        }
        #expect(cases == messages.map(\.count).reduce(0, +))
    }

    /// The last message always carries a tag over the whole transcript, so tampering with it fails
    /// right there, before either side could act on a completed handshake.
    @Test(arguments: requiredPatterns)
    func tamperedFinalMessageFailsImmediately(_ pattern: String) throws {
        let keys = try TestKeys()
        var initiator = try keys.handshake(pattern, .initiator)
        var responder = try keys.handshake(pattern, .responder)
        let messages = try runHandshake(initiator: &initiator, responder: &responder)
        let last = messages.count - 1
        for byte in messages[last].indices {
            let result = try Self.outcome(pattern, flip: (last, byte))
            #expect(result == .failedReading(index: last, kind: .decryptFailed), "byte \(byte)")
        }
    }

    @Test(arguments: requiredPatterns)
    func truncatedOrExtendedMessagesFail(_ pattern: String) throws {
        let keys = try TestKeys()
        var initiator = try keys.handshake(pattern, .initiator)
        let first = try initiator.writeMessage(payload: [])
        for altered in [Array(first.dropLast()), first + [0], []] {
            var responder = try keys.handshake(pattern, .responder)
            var failed = false
            do {
                _ = try responder.readMessage(altered)
                // Unauthenticated first messages (NN, XX) may parse; the next step must then fail.
                var replayInitiator = try keys.handshake(pattern, .initiator)
                _ = try replayInitiator.writeMessage(payload: [])
                _ = try replayInitiator.readMessage(responder.writeMessage(payload: []))
            } catch {
                failed = true
            }
            #expect(failed, "\(pattern): a message of \(altered.count) bytes instead of \(first.count) was accepted")
        }
    }
}
