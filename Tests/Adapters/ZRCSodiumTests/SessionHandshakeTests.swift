import Testing
import ZRCProtocol
import ZRCSodium

/// The session handshakes and secure channel with in-memory peers: bytes passed by hand, no I/O.
@Suite struct SessionHandshakeTests {
    let crypto = try! SodiumCrypto()

    struct Peers: ~Copyable {
        var controller: SecureChannel
        var host: SecureChannel
        let request: HandshakeInitPayload
    }

    func inviteID() throws -> InviteID { try InviteID(bytes: crypto.randomBytes(count: 16)) }

    /// Runs both sides; `tamper` may alter the controller's first flight on the way.
    func connect(pairing: Bool, hostKeyForController: NoisePublicKey? = nil, hostSecret: SecretBytes? = nil,
                 tamper: (inout [UInt8]) -> Void = { _ in }) throws -> Peers {
        let host = crypto.generateKeyPair()
        let controller = crypto.generateKeyPair()
        let id = try inviteID()
        let secret = crypto.randomSecret(count: 16)
        var initiator = try ControllerHandshake(
            purpose: pairing ? .pair(inviteID: id, secret: secret) : .session(requested: .viewOnly),
            localStatic: controller, hostKey: hostKeyForController ?? host.publicKey, timestampMicros: 42, agent: "test",
            crypto: crypto)
        var flight = initiator.firstFlight
        tamper(&flight)
        var responderSide = HostHandshake()
        var initiation: HandshakeInitiation?
        for byte in flight { initiation = try responderSide.receive([byte]) ?? initiation }  // byte by byte
        let received = try #require(initiation)
        let psk = pairing ? KeyDerivations.pairingPSK(inviteID: try #require(received.inviteID), secret: hostSecret ?? secret, crypto: crypto) : nil
        var responder = try responderSide.respond(localStatic: host, psk: psk, crypto: crypto)
        #expect(responder.controllerKey == controller.publicKey)
        let request = responder.payload
        let reply = HostHandshake.preamble + (try responder.accept(HandshakeResponsePayload(sessionID: 7, granted: [], hostName: "h")))
        var hostChannel = try responder.establish()
        // The host's first message travels in the same chunk as handshake message 2.
        let hello = try hostChannel.seal(.hello(protocolVersion: 1, capabilities: [], agent: "host"))
        let response = try #require(try initiator.receive(reply + hello))
        #expect(response.sessionID == 7)
        var controllerChannel = try initiator.establish()
        #expect(try controllerChannel.open([]) == [.hello(protocolVersion: 1, capabilities: [], agent: "host")])
        return Peers(controller: controllerChannel, host: hostChannel, request: request)
    }

    @Test(arguments: [true, false])
    func bothModesConnectAndCarryMessagesBothWays(pairing: Bool) throws {
        var peers = try connect(pairing: pairing)
        if !pairing { #expect(peers.request.purpose == .session(requested: .viewOnly)) }
        let big = ZRCMessage.pairRequest(controllerName: String(repeating: "x", count: 4000))
        let bytes = try peers.controller.seal(big) + (try peers.controller.seal(.ping(id: 1, sentAtMicros: 2)))
        var got: [ZRCMessage] = []
        for byte in bytes { got += try peers.host.open([byte]) }
        #expect(got == [big, .ping(id: 1, sentAtMicros: 2)])
        #expect(try peers.controller.open(try peers.host.seal(.pong(id: 1, pingSentAtMicros: 2, receivedAtMicros: 3)))
                == [.pong(id: 1, pingSentAtMicros: 2, receivedAtMicros: 3)])
    }

    @Test func theWrongHostKeyIsReportedAsAKeyMismatch() throws {
        let error = #expect(throws: SessionError.self) { _ = try connect(pairing: false, hostKeyForController: crypto.generateKeyPair().publicKey) }
        #expect(error?.kind == .rejected(.hostKeyMismatch))
    }

    @Test func aWrongInviteSecretFailsAtTheController() throws {
        let error = #expect(throws: SessionError.self) { _ = try connect(pairing: true, hostSecret: crypto.randomSecret(count: 16)) }
        #expect(error?.kind == .handshakeFailed)
    }

    /// Offsets in the first flight: 8 preamble bytes, 5 record header bytes, then mode and invite ID.
    @Test(arguments: [13, 14, 29, 30, 60])
    func tamperingWithTheClearModeInviteOrMessageFails(offset: Int) throws {
        #expect(throws: SessionError.self) { _ = try connect(pairing: true) { $0[offset] ^= 0x01 } }
    }

    /// The preambles are in the prologue: a flag bit changed on the way (bytes 6–7 of the
    /// controller's preamble; flags are otherwise ignored by the receiver) fails the handshake,
    /// instead of the host acting on what a man in the middle made the controller say.
    @Test(arguments: [(6, UInt8(0x80)), (7, 0x01), (7, 0x80)])
    func tamperingWithThePreamblesFlagBitsFails(offset: Int, mask: UInt8) throws {
        let error = #expect(throws: SessionError.self) { _ = try connect(pairing: false) { $0[offset] ^= mask } }
        #expect(error?.kind == .rejected(.hostKeyMismatch), "the host cannot read message 1: \(String(describing: error))")
    }

    @Test func aHostPreambleOtherThanTheOneInThePrologueIsRefused() throws {
        var initiator = try ControllerHandshake(
            purpose: .session(requested: []), localStatic: crypto.generateKeyPair(), hostKey: crypto.generateKeyPair().publicKey,
            timestampMicros: 1, agent: "t", crypto: crypto, hostPreamble: Preamble.encode(flags: 2))
        #expect(throws: SessionError.self) { _ = try initiator.receive(HostHandshake.preamble) }
    }

    @Test(arguments: HandshakeRejection.allCases)
    func aRejectRecordStopsTheControllerWithItsExplanation(reason: HandshakeRejection) throws {
        var initiator = try ControllerHandshake(
            purpose: .session(requested: []), localStatic: crypto.generateKeyPair(), hostKey: crypto.generateKeyPair().publicKey,
            timestampMicros: 1, agent: "t", crypto: crypto)
        let error = #expect(throws: SessionError.self) {
            _ = try initiator.receive(HostHandshake.preamble + HostHandshake.rejection(reason))
        }
        #expect(error?.kind == .rejected(reason))
        #expect(error?.message == reason.explanation)
    }

    @Test func theHostRefusesRecordsBeforeTheHandshake() throws {
        var host = HostHandshake()
        let transport = Record(type: .transport, body: [1, 2, 3]).encode()
        #expect(throws: SessionError.self) { _ = try host.receive(HostHandshake.preamble + transport) }
    }

    @Test func aReplayedRecordEndsTheChannel() throws {
        var peers = try connect(pairing: false)
        let record = try peers.controller.seal(.ping(id: 9, sentAtMicros: 9))
        _ = try peers.host.open(record)
        let error = #expect(throws: SessionError.self) { _ = try peers.host.open(record) }
        #expect(error?.kind == .recordRejected)
    }
}
