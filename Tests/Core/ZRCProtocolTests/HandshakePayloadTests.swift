import PropertyBased
import Testing
@testable import ZRCProtocol

@Suite struct HandshakePayloadTests {
    static let inviteID = try! InviteID(bytes: Array(0x10...0x1F))

    /// The layout in Schemas/wire-protocol.md §7, byte for byte.
    @Test func prologueCarriesBothPreamblesTheModeAndTheInvite() {
        let v1 = Preamble.encode()
        #expect(v1 == [0x5A, 0x52, 0x43, 0x50, 0, 1, 0, 0])
        let session = HandshakePrologue.bytes(mode: .session, controllerPreamble: v1, hostPreamble: v1, inviteID: nil)
        #expect(session == [0x5A, 0x52, 0x43, 0x2F, 0x31, 0x20] + v1 + v1 + [2])
        let flagged = Preamble.encode(flags: 1)
        let pair = HandshakePrologue.bytes(mode: .pair, controllerPreamble: v1, hostPreamble: flagged, inviteID: Self.inviteID)
        #expect(pair == Array("ZRC/1 ".utf8) + v1 + flagged + [1] + Array(0x10...0x1F))
        #expect(pair.count == 39 && session.count == 23)
    }

    @Test func pairInitLayout() throws {
        let payload = HandshakeInitPayload(purpose: .pair(inviteID: Self.inviteID), timestampMicros: 0x0102, agent: "c")
        let bytes = payload.encode()
        #expect(bytes == [1, 0, 0, 0, 0, 0, 0, 1, 2] + Array(0x10...0x1F) + [0, 1, 0x63])
        #expect(try HandshakeInitPayload.decode(bytes) == payload)
        #expect(payload.mode == .pair)
    }

    @Test func sessionInitLayout() throws {
        let payload = HandshakeInitPayload(purpose: .session(requested: .viewOnly), timestampMicros: 5, agent: "")
        let bytes = payload.encode()
        #expect(bytes == [2, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 1, 0, 0])
        #expect(try HandshakeInitPayload.decode(bytes) == payload)
    }

    @Test func responseLayout() throws {
        let payload = HandshakeResponsePayload(sessionID: 0xAB, granted: [.viewOnly], hostName: "h")
        let bytes = payload.encode()
        #expect(bytes == [0, 1, 0, 0, 0, 0, 0, 0, 0, 0xAB, 0, 0, 0, 1, 0, 1, 0x68])
        #expect(try HandshakeResponsePayload.decode(bytes) == payload)
    }

    static let initGenerator = Generator<HandshakeInitPayload, Shrink.None<HandshakeInitPayload>> { rng in
        let purpose: HandshakeInitPayload.Purpose =
            Bool.random(using: &rng)
            ? .pair(inviteID: try! InviteID(bytes: RandomValues.bytes(16, &rng)))
            : .session(requested: SessionFlags(rawValue: RandomValues.int(&rng)))
        return HandshakeInitPayload(purpose: purpose, timestampMicros: RandomValues.int(&rng), agent: RandomValues.string(&rng))
    }

    static let responseGenerator = Generator<HandshakeResponsePayload, Shrink.None<HandshakeResponsePayload>> { rng in
        HandshakeResponsePayload(
            protocolVersion: RandomValues.int(&rng), sessionID: RandomValues.int(&rng),
            granted: SessionFlags(rawValue: RandomValues.int(&rng)), hostName: RandomValues.string(&rng))
    }

    @Test func roundTrips() async {
        await propertyCheck(input: Self.initGenerator, Self.responseGenerator) { initPayload, response in
            let decodedInit = try HandshakeInitPayload.decode(initPayload.encode())
            let decodedResponse = try HandshakeResponsePayload.decode(response.encode())
            #expect(decodedInit == initPayload)
            #expect(decodedResponse == response)
        }
    }

    @Test func truncationsAndExtrasFail() async {
        await propertyCheck(input: Self.initGenerator, Self.responseGenerator) { initPayload, response in
            let initBytes = initPayload.encode()
            let responseBytes = response.encode()
            for count in 0..<initBytes.count {
                #expect(errorKind { () throws(WireError) in try HandshakeInitPayload.decode(Array(initBytes.prefix(count))) } == .truncated)
            }
            for count in 0..<responseBytes.count {
                #expect(
                    errorKind { () throws(WireError) in try HandshakeResponsePayload.decode(Array(responseBytes.prefix(count))) }
                        == .truncated)
            }
            #expect(errorKind { () throws(WireError) in try HandshakeInitPayload.decode(initBytes + [0]) } == .trailingBytes)
            #expect(errorKind { () throws(WireError) in try HandshakeResponsePayload.decode(responseBytes + [0]) } == .trailingBytes)
        }
    }

    @Test(arguments: [UInt8(0), 3, 0xFF])
    func unknownModeFails(mode: UInt8) {
        let bytes = [mode] + [UInt8](repeating: 0, count: 30)
        #expect(errorKind { () throws(WireError) in try HandshakeInitPayload.decode(bytes) } == .invalidValue)
    }

    @Test func garbageNeverCrashes() async {
        await propertyCheck(count: 500, input: Generators.bytes) { bytes in
            _ = try? HandshakeInitPayload.decode(bytes)
            _ = try? HandshakeResponsePayload.decode(bytes)
        }
    }

    @Test(arguments: [15, 17])
    func fixedSizeIdentifiersCheckTheirLength(count: Int) {
        #expect(errorKind { () throws(WireError) in try InviteID(bytes: [UInt8](repeating: 0, count: count)) } == .invalidValue)
    }
}
