import PropertyBased
import Testing
@_spi(Testing) import ZRCProtocol
import ZRCSodium

/// Records: strictly increasing implicit nonces, tamper/replay/reorder detection, nonce
/// exhaustion and the deterministic rekey schedule.
@Suite struct NoiseTransportTests {
    let keys: TestKeys

    init() throws { keys = try TestKeys() }

    /// A completed handshake of `pattern`, split into (initiator, responder) transports, passed to
    /// `body` because `~Copyable` values cannot travel in a tuple return.
    func withTransports<R>(
        _ pattern: String = "IK", initiatorInterval: UInt64 = NoiseTransport.defaultRekeyInterval,
        responderInterval: UInt64 = NoiseTransport.defaultRekeyInterval,
        _ body: (inout NoiseTransport, inout NoiseTransport) throws -> R
    ) throws -> R {
        var initiator = try keys.handshake(pattern, .initiator)
        var responder = try keys.handshake(pattern, .responder)
        try runHandshake(initiator: &initiator, responder: &responder)
        var initiatorTransport = try initiator.split(rekeyInterval: initiatorInterval)
        var responderTransport = try responder.split(rekeyInterval: responderInterval)
        #expect(initiatorTransport.handshakeHash == responderTransport.handshakeHash)
        return try body(&initiatorTransport, &responderTransport)
    }

    @Test func directionsUseSeparateKeys() throws {
        try withTransports { initiator, responder in
            // Same plaintext, same nonce (0), different direction: the ciphertexts must differ,
            // or one key and nonce sequence would be shared by both ways.
            let forward = try initiator.encrypt([0, 0, 0, 0])
            let backward = try responder.encrypt([0, 0, 0, 0])
            #expect(forward != backward)
            #expect(try responder.decrypt(forward) == [0, 0, 0, 0])
            #expect(try initiator.decrypt(backward) == [0, 0, 0, 0])
            // A record cannot be reflected back to its sender.
            expectNoiseError(.decryptFailed) { try initiator.decrypt(forward) }
        }
    }

    @Test func replayedRecordFails() throws {
        try withTransports { initiator, responder in
            let first = try initiator.encrypt(Array("one".utf8))
            let second = try initiator.encrypt(Array("two".utf8))
            #expect(try responder.decrypt(first) == Array("one".utf8))
            expectNoiseError(.decryptFailed) { try responder.decrypt(first) }
            // The failure did not advance the expected nonce.
            #expect(try responder.decrypt(second) == Array("two".utf8))
            expectNoiseError(.decryptFailed) { try responder.decrypt(second) }
            #expect(responder.receivedCount == 2)
        }
    }

    @Test func reorderedRecordFails() throws {
        try withTransports { initiator, responder in
            let first = try initiator.encrypt(Array("one".utf8))
            let second = try initiator.encrypt(Array("two".utf8))
            expectNoiseError(.decryptFailed) { try responder.decrypt(second) }
            #expect(try responder.decrypt(first) == Array("one".utf8))
            #expect(try responder.decrypt(second) == Array("two".utf8))
        }
    }

    @Test func everyFlippedBitInARecordFails() throws {
        try withTransports { initiator, responder in
            let plaintext = Array("the quick brown fox".utf8)
            let record = try initiator.encrypt(plaintext, associatedData: [0xAA])
            for byte in record.indices {
                for bit in 0..<8 {
                    var tampered = record
                    tampered[byte] ^= 1 << UInt8(bit)
                    expectNoiseError(.decryptFailed) { try responder.decrypt(tampered, associatedData: [0xAA]) }
                }
            }
            expectNoiseError(.decryptFailed) { try responder.decrypt(record, associatedData: [0xAB]) }
            #expect(try responder.decrypt(record, associatedData: [0xAA]) == plaintext)
        }
    }

    @Test func nonceExhaustionThrowsAndNeverReusesANonce() throws {
        try withTransports { initiator, responder in
            initiator.setNonces(sender: UInt64.max - 2, receiver: nil)
            responder.setNonces(sender: nil, receiver: UInt64.max - 2)
            let last = try initiator.encrypt([1])
            #expect(initiator.sentCount == UInt64.max - 1)
            let final = try initiator.encrypt([2])
            #expect(initiator.sentCount == UInt64.max)
            // 2^64-1 is reserved: from here on every call throws and nothing is encrypted.
            for _ in 0..<3 {
                expectNoiseError(.nonceExhausted) { try initiator.encrypt([3]) }
                #expect(initiator.sentCount == UInt64.max)
            }
            #expect(try responder.decrypt(last) == [1])
            #expect(try responder.decrypt(final) == [2])
            expectNoiseError(.nonceExhausted) { try responder.decrypt(final) }
        }
    }

    @Test(arguments: [1, 2, 3, 7] as [UInt64])
    func rekeyIntervalKeepsBothSidesInSync(_ interval: UInt64) throws {
        try withTransports(initiatorInterval: interval, responderInterval: interval) { initiator, responder in
            for round in 0..<25 {
                let forward = Array("i\(round)".utf8)
                let receivedForward = try responder.decrypt(initiator.encrypt(forward))
                #expect(receivedForward == forward)
                if round.isMultiple(of: 3) {
                    let backward = Array("r\(round)".utf8)
                    let receivedBackward = try initiator.decrypt(responder.encrypt(backward))
                    #expect(receivedBackward == backward)
                }
            }
        }
    }

    @Test func rekeyActuallyChangesTheKey() throws {
        // Records before the first rekey match a never-rekeying transport; the record after does
        // not, and a peer on another schedule cannot read it.
        let reference = try withTransports { initiator, _ in try (0..<3).map { _ in try initiator.encrypt([9]) } }
        try withTransports(initiatorInterval: 2, responderInterval: 3) { initiator, responder in
            let records = try (0..<3).map { _ in try initiator.encrypt([9]) }
            #expect(records[0] == reference[0] && records[1] == reference[1])
            #expect(records[2] != reference[2])
            #expect(try responder.decrypt(records[0]) == [9])
            #expect(try responder.decrypt(records[1]) == [9])
            expectNoiseError(.decryptFailed) { try responder.decrypt(records[2]) }
        }
    }

    @Test func recordSizeLimits() throws {
        try withTransports { initiator, responder in
            let largest = try initiator.encrypt([UInt8](repeating: 1, count: NoiseTransport.maxPlaintextLength))
            #expect(largest.count == 65535)
            #expect(try responder.decrypt(largest).count == NoiseTransport.maxPlaintextLength)
            expectNoiseError(.messageTooLarge) { try initiator.encrypt([UInt8](repeating: 1, count: NoiseTransport.maxPlaintextLength + 1)) }
            expectNoiseError(.messageTooLarge) { try responder.decrypt([UInt8](repeating: 1, count: 65536)) }
            expectNoiseError(.messageTooShort) { try responder.decrypt([UInt8](repeating: 1, count: 15)) }
            // None of the refused calls consumed a nonce.
            #expect(initiator.sentCount == 1 && responder.receivedCount == 1)
        }
    }

    @Test(arguments: ["N", "K", "X", "Npsk0"])
    func oneWayPatternsOnlySendFromInitiator(_ pattern: String) throws {
        try withTransports(pattern) { initiator, responder in
            let received = try responder.decrypt(initiator.encrypt([5]))
            #expect(received == [5])
            expectNoiseError(.oneWayPattern) { try responder.encrypt([6]) }
            expectNoiseError(.oneWayPattern) { try initiator.decrypt([UInt8](repeating: 0, count: 16)) }
        }
    }

    /// Any interleaving of records in both directions, any payload sizes and any rekey interval:
    /// every record arrives intact.
    @Test func randomTrafficRoundTrips() async {
        let traffic = zip(Gen.bool, Gen.uint8().array(of: 0...300)).array(of: 1...60)
        await propertyCheck(count: 60, input: Gen.uint64(in: 1...6), traffic) { interval, records in
            try withTransports("XX", initiatorInterval: interval, responderInterval: interval) { initiator, responder in
                for (fromInitiator, payload) in records {
                    let received = fromInitiator
                        ? try responder.decrypt(initiator.encrypt(payload))
                        : try initiator.decrypt(responder.encrypt(payload))
                    #expect(received == payload)
                }
            }
        }
    }
}
