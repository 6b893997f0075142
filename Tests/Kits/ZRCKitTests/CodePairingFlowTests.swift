import Foundation
import Synchronization
import Testing
import ZRCCommandSupport
import ZRCControllerKit
import ZRCHostKit
import ZRCNetworking
import ZRCProtocol
import ZRCReach
import ZRCSodium
import ZRCStorage
import ZRCTestSupport
import ZRCKitTesting

/// Pairing by code end to end in one process: the real host server (its desk, gate and broker
/// meeting point) and the real controller, through an in-memory broker that also serves the
/// rendezvous with ICE handing out socket pairs.
@Suite struct CodePairingFlowTests {
    static let brokerURL = try! ReachURL(parsing: "mqtt://broker.test", expecting: [.mqtt])

    struct Rig {
        let harness: HostHarness
        let broker: InMemoryBroker
        let ice: SocketPairIce

        init(broker: InMemoryBroker = InMemoryBroker(), ice: SocketPairIce = SocketPairIce()) throws {
            self.broker = broker
            self.ice = ice
            let reach = HostReach(rendezvous: [CodePairingFlowTests.brokerURL], ice: IceSettings(), iceMaker: ice, brokerMaker: broker,
                                  advertised: ReachWiring.advertised([CodePairingFlowTests.brokerURL], [], []))
            harness = try HostHarness(reach: reach)
        }

        func controller(_ preference: TransportPreference = .auto, name: String = "laptop") -> (ZRCController, NoiseKeyPair) {
            harness.controller(name: name, reach: ControllerReach(preference: preference, rendezvous: [CodePairingFlowTests.brokerURL],
                                                                  iceMaker: ice, brokerMaker: broker, answerTimeout: .seconds(20)))
        }

        /// Opens a code and keeps asking for its status, as `zrc-host pair --code` does, until it
        /// paired or ended; `watch.value` is the last status.
        func openCode(lifetime: Int = 600, temporary: Bool = false) async throws
            -> (code: PairingCode, summary: CodeSummary, watch: Task<CodeStatus?, Never>) {
            guard case .code(let summary) = try await harness.request(.createCode(lifetimeSeconds: lifetime, temporary: temporary)) else {
                throw HarnessError("no code")
            }
            let harness = harness
            let watch = Task { () -> CodeStatus? in
                var last: CodeStatus?
                for _ in 0..<600 {
                    guard case .codeStatus(let status) = try? await harness.request(.codeStatus(locator: summary.locator)) else { return last }
                    last = status
                    switch status {
                    case .paired, .ended: return status
                    case .waiting, .proven: try? await Task.sleep(for: .milliseconds(100))
                    }
                }
                return last
            }
            return (try PairingCode(parsing: summary.code), summary, watch)
        }

        func status(_ locator: Int) async throws -> CodeStatus? {
            guard case .codeStatus(let status) = try await harness.request(.codeStatus(locator: locator)) else { return nil }
            return status
        }

        /// The code's status once it is `expected` (or the last seen after 30 s): a failure the
        /// controller hears first may reach the host's count a moment later.
        func status(_ locator: Int, becoming expected: CodeStatus) async throws -> CodeStatus? {
            let deadline = ContinuousClock.now + .seconds(30)
            while true {
                let now = try await status(locator)
                if now == expected || ContinuousClock.now >= deadline { return now }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    static func wrong(_ code: PairingCode) throws -> PairingCode {
        // Another secret at the same locator: reaches the same host, proves nothing.
        let digits = code.text.filter(\.isNumber)
        let secret = Int(digits.dropFirst(2).prefix(8))!
        return try PairingCode(locator: code.locator, secret: (secret + 1) % 100_000_000)
    }

    @Test(arguments: [TransportPreference.auto, .mesh])
    func aControllerPairsWithTheCodeAndBothSeeTheSameFingerprints(preference: TransportPreference) async throws {
        let rig = try Rig()
        _ = try await rig.harness.start()
        try await rig.harness.stoppingAfter {
            let (code, summary, watch) = try await rig.openCode()
            #expect(summary.meetingPoints == [CodePairingFlowTests.brokerURL.text])
            let (controller, identity) = rig.controller(preference)
            let host = try await controller.pair(code: code, name: "desk", group: try SodiumCPaceGroup())
            #expect(host.publicKey == rig.harness.hostIdentity.publicKey)
            #expect(controller.fingerprint(of: host.publicKey) == summary.hostFingerprint)
            let final = await watch.value
            #expect(final == .paired(controllerName: "laptop", fingerprint: controller.fingerprint(of: identity.publicKey)))
            // Paired for good: a session opens by name.
            let session = try await controller.connect(to: "desk")
            if preference == .mesh, case .tcp = session.path { Issue.record("mesh went over TCP") }
            await session.close()
            // What the broker saw: no code, no names in clear.
            for message in rig.broker.published {
                let text = String(decoding: message.payload, as: UTF8.self)
                #expect(!text.contains(code.text.filter(\.isNumber).dropFirst(2).prefix(8)))
            }
        }
    }

    @Test func aWrongCodeCountsAgainstThatCodeAndThreeEndIt() async throws {
        let rig = try Rig()
        _ = try await rig.harness.start()
        try await rig.harness.stoppingAfter {
            let (code, _, watch) = try await rig.openCode()
            let (other, _, otherWatch) = try await rig.openCode()
            let group = try SodiumCPaceGroup()
            for attempt in 1...3 {
                let (controller, _) = rig.controller()
                await #expect(throws: ControllerError.self) {
                    _ = try await controller.pair(code: try CodePairingFlowTests.wrong(code), name: "desk", group: group)
                }
                if attempt < 3 { #expect(try await rig.status(code.locator, becoming: .waiting(wrongTries: attempt)) == .waiting(wrongTries: attempt)) }
            }
            guard case .ended(let reason) = await watch.value else { Issue.record("the code did not end"); return }
            #expect(reason.contains("three wrong codes"))
            // The right code no longer pairs, and the other code is untouched.
            // Its announcement goes (the other code's stays).
            let ended = PairingMeetingPoint.announcementTopic(token: PairingMeetingPoint.token(
                code: code, day: RendezvousTopics.day(unixSeconds: rig.harness.server.configuration.unixSeconds), group: group))
            #expect(await rig.broker.waitUntil(within: .seconds(60)) { !$0.retainedMessages(matching: [ended]).contains { $0.topic == ended } })
            let (late, _) = rig.controller()
            let error = await #expect(throws: ControllerError.self) {
                _ = try await late.pair(code: code, name: "desk", group: group, within: .seconds(3))
            }
            #expect(error?.message.contains("no host is waiting with this code") == true, "\(String(describing: error))")
            #expect(try await rig.status(other.locator) == .waiting(wrongTries: 0))
            let (controller, _) = rig.controller()
            _ = try await controller.pair(code: other, name: "desk", group: group)
            guard case .paired = await otherWatch.value else { Issue.record("the other code did not pair"); return }
            #expect(try await rig.harness.server.controllers.all().count == 1)
        }
    }

    @Test func aCodePairsOnce() async throws {
        let rig = try Rig()
        _ = try await rig.harness.start()
        try await rig.harness.stoppingAfter {
            let (code, _, watch) = try await rig.openCode()
            let group = try SodiumCPaceGroup()
            let (first, _) = rig.controller(name: "first")
            _ = try await first.pair(code: code, name: "desk", group: group)
            _ = await watch.value
            // The paired code's announcement is withdrawn, and a second controller finds no host.
            #expect(await rig.broker.waitUntil(within: .seconds(60)) { $0.retainedMessages(matching: ["zrc/v1/pair/#"]).isEmpty })
            let (second, _) = rig.controller(name: "second")
            let error = await #expect(throws: ControllerError.self) {
                _ = try await second.pair(code: code, name: "desk", group: group, within: .seconds(3))
            }
            #expect(error?.message.contains("no host is waiting with this code") == true, "\(String(describing: error))")
            #expect(try await rig.harness.server.controllers.all().map(\.name) == ["first"])
        }
    }

    @Test func aCodeExpires() async throws {
        let rig = try Rig()
        _ = try await rig.harness.start()
        try await rig.harness.stoppingAfter {
            let (code, _, watch) = try await rig.openCode(lifetime: 60)
            rig.harness.clock.advance(by: 61)
            guard case .ended(let reason) = await watch.value else { Issue.record("the code did not end"); return }
            #expect(reason.contains("expired"))
            let (controller, _) = rig.controller()
            await #expect(throws: ControllerError.self) {
                _ = try await controller.pair(code: code, name: "desk", group: try SodiumCPaceGroup(), within: .seconds(3))
            }
            #expect(try await rig.harness.server.controllers.all().isEmpty)
        }
    }

    /// Two hosts wait at one broker at once, each with its own code (never the same locator):
    /// each controller pairs with the host whose code it has.
    @Test func twoHostsWaitingWithDifferentCodesAtOnce() async throws {
        let broker = InMemoryBroker()
        let ice = SocketPairIce()
        let one = try Rig(broker: broker, ice: ice)
        let two = try Rig(broker: broker, ice: ice)
        _ = try await one.harness.start()
        _ = try await two.harness.start()
        try await one.harness.stoppingAfter {
            try await two.harness.stoppingAfter {
                let (codeOne, _, watchOne) = try await one.openCode()
                let (codeTwo, _, watchTwo) = try await two.openCode()
                #expect(codeOne.locator != codeTwo.locator)
                let group = try SodiumCPaceGroup()
                async let pairedOne = one.controller(name: "one").0.pair(code: codeOne, name: "one", group: group)
                async let pairedTwo = two.controller(name: "two").0.pair(code: codeTwo, name: "two", group: group)
                let (hostOne, hostTwo) = try await (pairedOne, pairedTwo)
                #expect(hostOne.publicKey == one.harness.hostIdentity.publicKey)
                #expect(hostTwo.publicKey == two.harness.hostIdentity.publicKey)
                guard case .paired = await watchOne.value, case .paired = await watchTwo.value else {
                    Issue.record("a code did not pair")
                    return
                }
            }
        }
    }

    /// Someone at the broker starts 1,000 runs with guesses: three are answered, the rest refused
    /// before any CPace work, and none pairs.
    @Test func aThousandWrongAttemptsAreAnsweredThreeTimesAndNeverPair() async throws {
        let rig = try Rig()
        _ = try await rig.harness.start()
        try await rig.harness.stoppingAfter {
            let (code, _, watch) = try await rig.openCode()
            let group = try SodiumCPaceGroup()
            let attacker = try await rig.broker.connect(to: CodePairingFlowTests.brokerURL, clientID: "attacker", persistent: false, timeout: .seconds(5))
            let token = PairingMeetingPoint.token(code: code, day: RendezvousTopics.day(unixSeconds: rig.harness.server.configuration.unixSeconds),
                                                  group: group)
            try await attacker.setSubscriptions([PairingMeetingPoint.topic(token: token) + "/b/+"])
            let attackerKey = try SodiumCrypto().generateKeyPair().publicKey
            let ad = try ControllerPairingAD(controllerKey: attackerKey, name: "mallory")
            for attempt in 0..<1_000 {
                let guess = try PairingCode(locator: code.locator, secret: attempt)
                let initiator = try CPaceInitiator(prs: guess.passwordBytes, ci: guess.channelIdentifier, sid: [UInt8](repeating: 0, count: 16),
                                                   ad: ad.bytes, group: group)
                var run = [UInt8](repeating: 0, count: 16)
                run[0] = UInt8(attempt >> 8)
                run[1] = UInt8(attempt & 0xFF)
                try await attacker.publish(topic: PairingMeetingPoint.controllerTopic(token: token, run: run),
                                           payload: PairingMeetingMessage.start(initiator.message).bytes, timeout: .seconds(5))
            }
            // The host answers the first three starts and refuses every other one, remembering
            // only the three it answered.
            let replies: @Sendable (InMemoryBroker) -> (answers: Int, refusals: Int) = { broker in
                var counts = (answers: 0, refusals: 0)
                for message in broker.published where message.topic.contains("/b/") {
                    switch try? PairingMeetingMessage(decoding: message.payload) {
                    case .answer: counts.answers += 1
                    case .outcome(.refused, _): counts.refusals += 1
                    default: break
                    }
                }
                return counts
            }
            let settled = await rig.broker.waitUntil(within: .seconds(300)) { replies($0).answers + replies($0).refusals >= 1_000 }
            #expect(settled, "replies: \(replies(rig.broker))")
            #expect(replies(rig.broker).answers == CodePairingGate.maximumGuesses)
            #expect(replies(rig.broker).refusals == 1_000 - CodePairingGate.maximumGuesses)
            #expect(try await rig.harness.server.controllers.all().isEmpty)
            // The three answered runs are never confirmed: 30 s on, they are abandoned, still
            // counted, and the code has ended.
            rig.harness.clock.advance(by: 31)
            guard case .ended(let reason) = await watch.value else {
                Issue.record("the code did not end")
                return
            }
            #expect(reason.contains("three wrong codes"))
            await attacker.close()
        }
    }

    /// `--temporary`: the controller is authorized for its first session only, gone once it ends.
    @Test func aTemporaryPairingEndsWithItsSession() async throws {
        let rig = try Rig()
        _ = try await rig.harness.start()
        try await rig.harness.stoppingAfter {
            let (code, _, watch) = try await rig.openCode(temporary: true)
            let (controller, _) = rig.controller()
            _ = try await controller.pair(code: code, name: "desk", group: try SodiumCPaceGroup())
            _ = await watch.value
            #expect(try await rig.harness.server.controllers.all().map(\.temporary) == [true])
            let session = try await controller.connect(to: "desk")
            _ = try await session.ping(timeout: .seconds(60))
            await session.close()
            // The host removes it once it has seen the session end.
            var removed = false
            for _ in 0..<600 where !removed {
                removed = try await rig.harness.server.controllers.all().isEmpty
                if !removed { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(removed, "the temporary controller is still authorized")
            await #expect(throws: ControllerError.self) { _ = try await controller.connect(to: "desk") }
        }
    }

    enum Impersonated: String, CaseIterable, Sendable { case host, controller }

    /// A man in the middle at the broker who rewrites what passes — answering the controller as
    /// the host, or starting a run as the controller — with a guessed code: nobody pairs, the
    /// controller pins no key, and the host counts a wrong try.
    @Test(arguments: Impersonated.allCases)
    func aManInTheMiddleAtTheBrokerCannotPair(impersonated: Impersonated) async throws {
        let rig = try Rig()
        _ = try await rig.harness.start()
        try await rig.harness.stoppingAfter {
            let group = try SodiumCPaceGroup()
            // Set once the code exists; the interception starts before, to see its announcement.
            let guessed = Mutex<PairingCode?>(nil)
            let mallory = try SodiumCrypto().generateKeyPair().publicKey
            let fakeHost = try HostPairingAD(hostKey: mallory, expiresAt: UInt64(Date().timeIntervalSince1970) + 600,
                                             addresses: [InviteAddress(host: "127.0.0.1", port: 9)], hostName: "test-host", servers: [])
            let fakeController = try ControllerPairingAD(controllerKey: mallory, name: "laptop")
            let seen = Mutex<(sid: [UInt8]?, start: [UInt8]?)>((nil, nil))
            rig.broker.intercept { message in
                guard let decoded = try? PairingMeetingMessage(decoding: message.payload) else { return message }
                guard case .announcement = decoded else {
                    guard let guess = guessed.withLock({ $0 }) else { return message }
                    return Self.forge(message, decoded, impersonated: impersonated, guess: guess, seen: seen, group: group,
                                      fakeHost: fakeHost, fakeController: fakeController)
                }
                if case .announcement(let sid, _) = decoded { seen.withLock { $0.sid = sid } }
                return message
            }
            let (code, _, watch) = try await rig.openCode()
            guessed.withLock { $0 = try? CodePairingFlowTests.wrong(code) }
            let (controller, _) = rig.controller()
            await #expect(throws: ControllerError.self) { _ = try await controller.pair(code: code, name: "desk", group: group) }
            #expect(try await controller.knownHosts.all().isEmpty)
            #expect(try await rig.harness.server.controllers.all().isEmpty)
            #expect(try await rig.status(code.locator, becoming: .waiting(wrongTries: 1)) == .waiting(wrongTries: 1))
            watch.cancel()
        }
    }

    /// Mallory's rewrite of one message at the broker.
    static func forge(_ message: BrokerMessage, _ decoded: PairingMeetingMessage, impersonated: Impersonated, guess: PairingCode,
                      seen: borrowing Mutex<(sid: [UInt8]?, start: [UInt8]?)>, group: any CPaceGroup, fakeHost: HostPairingAD,
                      fakeController: ControllerPairingAD) -> BrokerMessage {
        switch (impersonated, decoded) {
        case (.host, .start(let start)):
            seen.withLock { $0.start = start }
        case (.host, .answer):
            let (sid, start) = seen.withLock { ($0.sid, $0.start) }
            guard let sid, let start,
                  let forged = try? CPaceResponder.respond(to: start, prs: guess.passwordBytes, ci: guess.channelIdentifier, sid: sid,
                                                           ad: fakeHost.bytes, group: group) else { return message }
            return BrokerMessage(topic: message.topic, payload: PairingMeetingMessage.answer(forged.message).bytes)
        case (.host, .outcome):
            return BrokerMessage(topic: message.topic, payload: PairingMeetingMessage.outcome(.paired, reason: "").bytes)
        case (.controller, .start):
            guard let sid = seen.withLock({ $0.sid }),
                  let forged = try? CPaceInitiator(prs: guess.passwordBytes, ci: guess.channelIdentifier, sid: sid,
                                                   ad: fakeController.bytes, group: group) else { return message }
            return BrokerMessage(topic: message.topic, payload: PairingMeetingMessage.start(forged.message).bytes)
        default:
            break
        }
        return message
    }
}
