import ZRCProtocol

// Target `handshake`: everything a peer sends before and while the session is set up. The first
// byte picks the decoder; for the two full handshakes the rest is a u16 length, the bytes received
// during the handshake (preamble and records), then the bytes received after it, which go
// through the secure channel (see TransparentCrypto for why every record authenticates).
//
//   0 message 1 payload, 1 message 2 payload, 2 handshake record 1 body, 3 reject record body,
//   4 host side (session or pairing, as the record says), 5 controller in session, 6 controller pairing

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHandshake(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = fuzzInput(data, size)
    guard let first = bytes.first else { return 0 }
    let rest = Array(bytes[1...])
    switch first % 7 {
    case 0:
        // The encoding is canonical: what decodes encodes back to exactly its bytes.
        if let payload = try? HandshakeInitPayload.decode(rest) { expect(payload.encode() == rest, "message 1 payload re-encodes differently") }
    case 1:
        if let payload = try? HandshakeResponsePayload.decode(rest) { expect(payload.encode() == rest, "message 2 payload re-encodes differently") }
    case 2:
        if let initiation = try? HandshakeInitiation.decode(rest) { expect(initiation.encode() == rest, "record 1 re-encodes differently") }
    case 3:
        if let rejection = HandshakeRejection.decode(rest) { expect(rejection.body == rest, "a reject body re-encodes differently") }
    case 4:
        host(splitAtLengthPrefix(rest[...]))
    default:
        controller(splitAtLengthPrefix(rest[...]), pairing: first % 7 == 6)
    }
    return 0
}

/// The host accepting a connection, as zrc-host does once the controller is known (or the invite is).
private func host(_ input: (head: ArraySlice<UInt8>, tail: ArraySlice<UInt8>)) {
    var handshake = HostHandshake()
    guard let initiation = try? handshake.receive(input.head) else { return }
    do {
        var responder = try handshake.respond(
            localStatic: HandshakeFixture.hostKey, psk: HandshakeFixture.psk(for: initiation), crypto: TransparentCrypto())
        _ = try responder.accept(HandshakeFixture.response)
        var channel = try responder.establish()
        _ = try channel.open(input.tail)
    } catch {}
}

/// The controller dialling a host, paired (session) or with an invite.
private func controller(_ input: (head: ArraySlice<UInt8>, tail: ArraySlice<UInt8>), pairing: Bool) {
    do {
        var handshake = try HandshakeFixture.controller(pairing: pairing)
        guard try handshake.receive(input.head) != nil else { return }
        var channel = try handshake.establish()
        _ = try channel.open(input.tail)
    } catch {}
}
