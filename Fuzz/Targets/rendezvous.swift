import ZRCProtocol

// Target `rendezvous`: what a broker (or anyone publishing to a topic) hands the host or the
// controller. Mode byte 0: the plaintext payload of an offer or answer (`RendezvousMessage`),
// which must re-encode to exactly its bytes (canonical, wire-protocol.md §10), and the derived
// values (conversation number, private candidates) must be computable. Mode 1: a sealed message
// opened with `TransparentCrypto` (a paired peer: sealing always authenticates), so the fuzzer
// reaches the payload parser behind the seal, and what opens seals and opens again the same.

enum RendezvousFixture {
    static let host = TransparentCrypto.keyPair(seed: 0x10)
    static let controller = TransparentCrypto.keyPair(seed: 0x20)
    static let topic = "zrc/v1/in/00112233445566778899aabbccddeeff"
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRendezvous(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = fuzzInput(data, size)
    guard let mode = input.first else { return 0 }
    let rest = Array(input.dropFirst())
    let message: RendezvousMessage
    if mode & 1 == 0 {
        guard let decoded = try? RendezvousMessage(decoding: rest) else { return 0 }
        expect(decoded.encoded() == rest, "a rendezvous message re-encodes to other bytes")
        message = decoded
    } else {
        guard let opened = try? RendezvousSeal.open(rest, topic: RendezvousFixture.topic, recipient: RendezvousFixture.host,
                                                    sender: RendezvousFixture.controller.publicKey, crypto: TransparentCrypto())
        else { return 0 }
        message = opened
    }
    switch message {
    case .offer(let offer):
        expect(offer.conversation != 0, "a conversation number of 0")
        _ = offer.ice.withoutPrivateCandidates
    case .answer(let answer):
        if case .accepted(let ice, let relays) = answer.outcome {
            _ = ice.withoutPrivateCandidates
            expect(relays.count <= RelayCredential.maximumCount, "\(relays.count) relay credentials")
        }
    }
    let sealed = try? RendezvousSeal.seal(message, topic: RendezvousFixture.topic, sender: RendezvousFixture.controller,
                                          recipient: RendezvousFixture.host.publicKey, crypto: TransparentCrypto())
    expect(sealed.map { $0.count <= RendezvousSeal.maxSealedBytes } ?? false || message.encoded().count > RendezvousSeal.maxSealedBytes - 100,
           "a message that decoded did not seal")
    if let sealed, sealed.count <= RendezvousSeal.maxSealedBytes {
        let again = try? RendezvousSeal.open(sealed, topic: RendezvousFixture.topic, recipient: RendezvousFixture.host,
                                             sender: RendezvousFixture.controller.publicKey, crypto: TransparentCrypto())
        expect(again == message, "a sealed message did not open to itself")
    }
    return 0
}
