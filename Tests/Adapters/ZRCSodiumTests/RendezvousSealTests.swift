import Testing
import ZRCProtocol
import ZRCSodium

/// The rendezvous's sealing with real cryptography: only the paired peer opens a message, only on
/// the topic it was sealed for, and any change to it is refused.
@Suite struct RendezvousSealTests {
    let crypto: SodiumCrypto
    let host: NoiseKeyPair
    let controller: NoiseKeyPair
    let stranger: NoiseKeyPair
    let offer: RendezvousMessage

    init() throws {
        crypto = try SodiumCrypto()
        host = crypto.generateKeyPair()
        controller = crypto.generateKeyPair()
        stranger = crypto.generateKeyPair()
        let ice = IceDescription(usernameFragment: "uf01", password: "abcdefghijklmnopqrstuv", candidates: [
            IceCandidate(kind: .serverReflexive, priority: 1_694_498_815, foundation: "2", address: "100.64.0.2", port: 40_000),
        ])
        offer = .offer(.init(timestampMicros: 1_795_000_000_000_000, nonce: Array(repeating: 1, count: 16),
                             replyToken: Array(repeating: 2, count: 16), flags: [], ice: ice))
    }

    @Test func theHostOpensWhatItsControllerSealed() throws {
        let sealed = try RendezvousSeal.seal(offer, topic: "zrc/v1/in/t", sender: controller, recipient: host.publicKey, crypto: crypto)
        #expect(try RendezvousSeal.open(sealed, topic: "zrc/v1/in/t", recipient: host, sender: controller.publicKey, crypto: crypto) == offer)
        // The candidates never travel in the clear.
        let address = Array("100.64.0.2".utf8)
        #expect(!sealed.indices.contains { sealed[$0...].starts(with: address) })
    }

    @Test func othersCannotOpenOrForge() throws {
        let sealed = try RendezvousSeal.seal(offer, topic: "t", sender: controller, recipient: host.publicKey, crypto: crypto)
        // Another recipient cannot open it.
        #expect(throws: RendezvousError.self) { try RendezvousSeal.open(sealed, topic: "t", recipient: stranger, sender: controller.publicKey, crypto: crypto) }
        // A stranger's offer does not pass as the controller's.
        let forged = try RendezvousSeal.seal(offer, topic: "t", sender: stranger, recipient: host.publicKey, crypto: crypto)
        #expect(throws: RendezvousError.self) { try RendezvousSeal.open(forged, topic: "t", recipient: host, sender: controller.publicKey, crypto: crypto) }
        // Moved to another topic, it does not open.
        #expect(throws: RendezvousError.self) { try RendezvousSeal.open(sealed, topic: "u", recipient: host, sender: controller.publicKey, crypto: crypto) }
    }

    @Test func everyFlippedByteIsRefused() throws {
        let sealed = try RendezvousSeal.seal(offer, topic: "t", sender: controller, recipient: host.publicKey, crypto: crypto)
        for index in sealed.indices {
            var damaged = sealed
            damaged[index] ^= 0x40
            #expect(throws: RendezvousError.self) { try RendezvousSeal.open(damaged, topic: "t", recipient: host, sender: controller.publicKey, crypto: crypto) }
        }
    }

    @Test func oversizedMessagesAreDroppedBeforeAnyWork() {
        let huge = Array("ZRV".utf8) + [1] + Array(repeating: 0, count: RendezvousSeal.maxSealedBytes)
        do {
            _ = try RendezvousSeal.open(huge, topic: "t", recipient: host, sender: controller.publicKey, crypto: crypto)
            Issue.record("accepted")
        } catch {
            #expect(error.kind == .malformed)
        }
    }

    /// Both sides find the same topic from their own keys; it changes every day and per pairing.
    @Test func topicsAgreeAndRotate() throws {
        let hostSide = try RendezvousTopics(local: host, remote: controller.publicKey, localIsHost: true, crypto: crypto)
        let controllerSide = try RendezvousTopics(local: controller, remote: host.publicKey, localIsHost: false, crypto: crypto)
        let strangerSide = try RendezvousTopics(local: stranger, remote: host.publicKey, localIsHost: false, crypto: crypto)
        let day: UInt32 = 20_780
        #expect(hostSide.inboxTopic(day: day) == controllerSide.inboxTopic(day: day))
        #expect(hostSide.inboxTopic(day: day) != hostSide.inboxTopic(day: day + 1))
        #expect(strangerSide.inboxTopic(day: day) != controllerSide.inboxTopic(day: day))
        #expect(hostSide.inboxTopic(day: day).hasPrefix("zrc/v1/in/"))
        #expect(hostSide.inboxTopic(day: day).count == "zrc/v1/in/".count + 32)
        // Just after midnight: yesterday's topic too (a controller whose clock is behind).
        let justAfter = hostSide.hostInboxTopics(unixSeconds: UInt64(day) * 86_400 + 10, margin: 240)
        #expect(justAfter == [day - 1, day].map(hostSide.inboxTopic(day:)))
    }

    /// Outside a window around midnight the host listens on one day's topic alone, so a broker
    /// cannot link a pairing's topics of two days by seeing them subscribed together.
    static let midnightCases: [(UInt64, [UInt32])] = [(12 * 3600, [0]), (10, [UInt32.max, 0]), (86_400 - 10, [0, 1]), (86_400 - 241, [0]), (241, [0])]

    @Test(arguments: midnightCases)
    func theNeighbouringDayOnlyNearMidnight(secondsIntoDay: UInt64, days offsets: [UInt32]) {
        let day: UInt64 = 20_780
        let expected = offsets.map { UInt32(day) &+ $0 }.sorted()
        #expect(RendezvousTopics.days(around: day * 86_400 + secondsIntoDay, margin: 240) == expected, "\(secondsIntoDay)")
    }
}
