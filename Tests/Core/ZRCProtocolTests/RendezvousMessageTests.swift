import PropertyBased
import Testing
import ZRCTestSupport
@testable import ZRCProtocol

@Suite struct RendezvousMessageTests {
    static func description(_ rng: inout some RandomNumberGenerator) -> IceDescription {
        let kinds = IceCandidate.Kind.allCases
        let candidates = (0..<Int.random(in: 0...IceDescription.maxCandidates, using: &rng)).map { index in
            IceCandidate(kind: kinds[Int.random(in: 0..<kinds.count, using: &rng)], priority: UInt32.random(in: 0...UInt32.max, using: &rng),
                         foundation: String(index + 1), address: Bool.random(using: &rng) ? "100.64.0.\(index)" : "fd00::\(index)",
                         port: UInt16.random(in: 1...65535, using: &rng))
        }
        return IceDescription(usernameFragment: "abcd", password: String(repeating: "p", count: 22), candidates: candidates)
    }

    static let messages = Generator<RendezvousMessage, Shrink.None<RendezvousMessage>> { rng in
        let nonce = RandomValues.bytes(16, &rng)
        switch Int.random(in: 0..<4, using: &rng) {
        case 0:
            return .offer(.init(timestampMicros: UInt64.random(in: 0...UInt64.max, using: &rng), nonce: nonce,
                                replyToken: RandomValues.bytes(16, &rng), flags: Bool.random(using: &rng) ? .noRelay : [],
                                ice: description(&rng)))
        case 1:
            return .answer(.init(timestampMicros: 1, nonce: nonce, outcome: .accepted(description(&rng))))
        case 2:
            let relays = RandomValues.relayCredentials(&rng, count: Int.random(in: 1...RelayCredential.maximumCount, using: &rng))
            return .answer(.init(timestampMicros: 3, nonce: nonce, outcome: .accepted(description(&rng), relays: relays)))
        default:
            return .answer(.init(timestampMicros: 2, nonce: nonce, outcome: .busy))
        }
    }

    @Test func roundTrips() async {
        await propertyCheck(count: 300, input: Self.messages) { message in
            #expect((try? RendezvousMessage(decoding: message.encoded())) == message)
        }
    }

    /// Every cut-short or extended encoding is refused with a wire error, never a crash.
    @Test func truncationAndTrailingBytesAreRefused() async {
        await propertyCheck(count: 100, input: Self.messages, Generators.seed) { message, seed in
            var rng = SplitMix64(seed: seed)
            let bytes = message.encoded()
            let cut = Int.random(in: 0..<bytes.count, using: &rng)
            #expect(throws: WireError.self) { try RendezvousMessage(decoding: Array(bytes.prefix(cut))) }
            #expect(throws: WireError.self) { try RendezvousMessage(decoding: bytes + [0]) }
        }
    }

    @Test func randomBytesNeverCrash() async {
        await propertyCheck(count: 500, input: Generators.seed) { seed in
            var rng = SplitMix64(seed: seed)
            var bytes = RandomValues.bytes(Int.random(in: 0...300, using: &rng), &rng)
            if bytes.count > 2 {
                bytes[0] = 1
                bytes[1] = UInt8.random(in: 1...2, using: &rng)
            }
            _ = try? RendezvousMessage(decoding: bytes)
        }
    }

    @Test(arguments: [
        ("not-an-ip", "numeric IP"), ("1.2.3.256", "numeric IP"), ("::1%eth0", "numeric IP"), ("10.0.0.1 ", "numeric IP"),
    ])
    func candidateAddressesMustBeNumeric(address: String, words: String) {
        let candidate = IceCandidate(kind: .host, priority: 1, foundation: "1", address: address, port: 1)
        #expect(candidate.problem()?.contains(words) == true)
    }

    @Test func tooManyCandidatesAreRefused() {
        let candidate = IceCandidate(kind: .host, priority: 1, foundation: "1", address: "10.0.0.1", port: 9)
        let description = IceDescription(usernameFragment: "abcd", password: String(repeating: "p", count: 22),
                                         candidates: Array(repeating: candidate, count: 17))
        let offer = RendezvousMessage.offer(.init(timestampMicros: 0, nonce: Array(repeating: 0, count: 16),
                                                  replyToken: Array(repeating: 0, count: 16), flags: [], ice: description))
        #expect(throws: WireError.self) { try RendezvousMessage(decoding: offer.encoded()) }
    }
}

@Suite struct ReplayGuardTests {
    let nonce = Array(repeating: UInt8(7), count: 16)

    @Test func anOfferIsAdmittedOnce() throws {
        var guardian = ReplayGuard(maxSkewMicros: 120_000_000)
        try guardian.admit(nonce: nonce, timestampMicros: 1_000_000_000, nowMicros: 1_000_500_000)
        #expect(throws: RendezvousError.self) { try guardian.admit(nonce: nonce, timestampMicros: 1_000_000_000, nowMicros: 1_001_000_000) }
    }

    @Test(arguments: [Int64(-121), 121, 3600])
    func staleOrFutureOffersAreDropped(offsetSeconds: Int64) {
        var guardian = ReplayGuard(maxSkewMicros: 120_000_000)
        let now: UInt64 = 10_000_000_000
        let timestamp = UInt64(Int64(now) + offsetSeconds * 1_000_000)
        #expect(throws: RendezvousError.self) { try guardian.admit(nonce: nonce, timestampMicros: timestamp, nowMicros: now) }
    }

    /// Memory stays bounded: the cache forgets what the clock window rejects anyway, and refuses
    /// more than its capacity of live nonces.
    @Test func theCacheIsBounded() throws {
        var guardian = ReplayGuard(maxSkewMicros: 1_000_000, capacity: 8)
        for index in 0..<8 {
            try guardian.admit(nonce: [UInt8(index)], timestampMicros: 100_000_000, nowMicros: 100_000_000)
        }
        #expect(throws: RendezvousError.self) { try guardian.admit(nonce: [99], timestampMicros: 100_000_000, nowMicros: 100_000_000) }
        try guardian.admit(nonce: [100], timestampMicros: 105_000_000, nowMicros: 105_000_000)
        #expect(guardian.count == 1)
    }

    /// wire-protocol.md §10's example of an accepted answer with relay credentials (status 2).
    @Test func theSpecsAnswerExampleDecodes() throws {
        let hex = "01020006449c4f8d2120101112131415161718191a1b1c1d1e1f02044162312b16303132333435363738396162636465666768696a6b6c010164ffffff01320d3139382e35312e3130302e3230ee5e01113139382e35312e3130302e373a3334373805313a7a726301700000000000000001"
        let bytes = stride(from: 0, to: hex.count, by: 2).map { UInt8(hex.dropFirst($0).prefix(2), radix: 16)! }
        let ice = IceDescription(usernameFragment: "Ab1+", password: "0123456789abcdefghijkl", candidates: [
            IceCandidate(kind: .serverReflexive, priority: 1_694_498_815, foundation: "2", address: "198.51.100.20", port: 61_022)])
        let expected = RendezvousMessage.answer(.init(timestampMicros: 1_764_288_000_500_000, nonce: Array(0x10...0x1F), outcome: .accepted(
            ice, relays: [RelayCredential(relay: "198.51.100.7:3478", username: "1:zrc", password: "p", expiresAt: 1)])))
        #expect(try RendezvousMessage(decoding: bytes) == expected)
        #expect(expected.encoded() == bytes)
    }
}
