import Foundation
import Testing
import ZRCCommandSupport
import ZRCControllerKit
import ZRCHostKit
import ZRCIce
import ZRCNetworking
import ZRCProtocol
import ZRCReach
import ZRCStorage
import ZRCTestSupport
import ZRCKitTesting

/// The rendezvous's logic end to end in one process: the real host server and controller, with
/// an in-memory broker and ICE that hands out socket pairs, so every message, seal, replay and
/// race decision is the product's own.
@Suite struct RendezvousFlowTests {
    static let brokerURL = try! ReachURL(parsing: "mqtt://broker.test", expecting: [.mqtt])

    struct Rig {
        let harness: HostHarness
        let broker: InMemoryBroker
        let hostIce: SocketPairIce
        let controllerIce: SocketPairIce

        /// `relays`: the host's relays, as host.json gives them (with credentials or a REST secret).
        init(maxNegotiations: Int = 4, relays: [ReachURL] = []) throws {
            broker = InMemoryBroker()
            hostIce = SocketPairIce()
            controllerIce = hostIce
            var reach = HostReach(rendezvous: [RendezvousFlowTests.brokerURL], ice: IceSettings(relays: relays), iceMaker: hostIce,
                                  brokerMaker: broker, advertised: ReachWiring.advertised([RendezvousFlowTests.brokerURL], relays, []),
                                  clientID: { "host" }, maxNegotiations: maxNegotiations)
            reach.relayCredentials = ReachWiring.relayCredentialMinter(relays)
            harness = try HostHarness(reach: reach)
        }

        func controller(_ preference: TransportPreference) -> ZRCController {
            harness.controller(reach: ControllerReach(preference: preference, iceMaker: controllerIce, brokerMaker: broker,
                                                      tcpHeadStart: .milliseconds(250), answerTimeout: .seconds(20))).0
        }

        /// Pairs over TCP (the invite names the broker). The host subscribes to the new pairing's
        /// topics a moment later; an offer made before that is repeated until answered.
        func pair(_ controller: ZRCController, invite: String? = nil) async throws {
            let inviteText: String
            if let invite { inviteText = invite } else { inviteText = try await harness.invite() }
            let host = try await controller.pair(inviteText: inviteText, name: "desk")
            #expect(host.rendezvousUrls == [RendezvousFlowTests.brokerURL.text])
        }
    }

    @Test func aPairedControllerConnectsThroughTheRendezvous() async throws {
        let rig = try Rig()
        _ = try await rig.harness.start()
        try await rig.harness.stoppingAfter {
            let controller = rig.controller(.mesh)
            try await rig.pair(controller)
            let session = try await controller.connect(to: "desk")
            #expect(session.path == .iceDirect(local: .host, remote: .host, remoteEndpoint: "10.0.0.1:5000"))
            _ = try await session.ping(timeout: .seconds(60))
            await session.close()
            // Both sides' PseudoTCP runs in the conversation the offer's secret nonce names.
            let made = rig.hostIce.agentSettings
            let controllerSide = try #require(made.first { $0.controlling }?.settings.conversation)
            let hostSide = try #require(made.first { !$0.controlling }?.settings.conversation)
            #expect(controllerSide == hostSide && controllerSide != 0, "\(made.map(\.settings.conversation))")
            // The offer travelled sealed: the broker saw neither candidates nor names.
            for message in rig.broker.published {
                #expect(!String(decoding: message.payload, as: UTF8.self).contains("10.0.0.1"))
                #expect(!String(decoding: message.payload, as: UTF8.self).contains("laptop"))
            }
        }
    }

    /// A captured offer published again opens no second negotiation; the next real one does.
    @Test func aReplayedOfferIsDropped() async throws {
        let rig = try Rig()
        _ = try await rig.harness.start()
        try await rig.harness.stoppingAfter {
            let controller = rig.controller(.mesh)
            try await rig.pair(controller)
            let first = try await controller.connect(to: "desk")
            await first.close()
            let offer = try #require(rig.broker.published.first { $0.topic.hasPrefix("zrc/v1/in/") })
            let agentsBefore = rig.hostIce.agentsMade
            rig.broker.publish(offer)
            // Messages reach the host in order: once the next offer is answered, the replay was seen.
            let second = try await controller.connect(to: "desk")
            await second.close()
            // One agent each for the host's and the controller's side of the second connection.
            #expect(rig.hostIce.agentsMade == agentsBefore + 2)
            #expect(rig.harness.log.contains("arrived a second time"))
        }
    }

    @Test func aBusyHostSaysSo() async throws {
        let rig = try Rig(maxNegotiations: 0)
        _ = try await rig.harness.start()
        try await rig.harness.stoppingAfter {
            let controller = rig.controller(.mesh)
            try await rig.pair(controller)
            do {
                let session = try await controller.connect(to: "desk")
                await session.close()
                Issue.record("connected to a host that has no negotiation slot")
            } catch {
                #expect("\(error)".contains("busy"), "\(error)")
            }
        }
    }

    /// With `auto`, a host whose TCP address refuses is reached through the rendezvous, and
    /// without waiting for the head start: TCP's failure starts it.
    @Test func autoFallsBackToTheRendezvousWhenTCPFails() async throws {
        let rig = try Rig()
        _ = try await rig.harness.start()
        try await rig.harness.stoppingAfter {
            let controller = rig.controller(.auto)
            try await rig.pair(controller)
            var host = try await controller.knownHosts.host(named: "desk")
            host.addresses = ["127.0.0.1:1"]
            _ = try await controller.knownHosts.remove(named: "desk")
            try await controller.knownHosts.add(host)
            let session = try await controller.connect(to: "desk")
            #expect(session.path != .tcp(address: "127.0.0.1:1"))
            if case .iceDirect = session.path {} else { Issue.record("expected ICE, got \(session.path)") }
            await session.close()
        }
    }

    /// One paired controller floods fresh offers (each opens, none repeats): it fills only its own
    /// nonce cache and holds at most its share of the negotiations, so another controller still
    /// connects through the rendezvous.
    @Test func oneControllerFloodingOffersLeavesTheRendezvousToOthers() async throws {
        let rig = try Rig()
        _ = try await rig.harness.start()
        try await rig.harness.stoppingAfter {
            let (flooder, flooderIdentity) = rig.harness.controller(name: "flooder", reach: ControllerReach(
                preference: .mesh, iceMaker: rig.controllerIce, brokerMaker: rig.broker, tcpHeadStart: .milliseconds(250),
                answerTimeout: .seconds(20)))
            try await rig.pair(flooder)
            let topics = try RendezvousTopics(local: flooderIdentity, remote: rig.harness.hostIdentity.publicKey, localIsHost: false,
                                              crypto: rig.harness.crypto)
            let inbox = topics.inboxTopic(day: RendezvousTopics.day(unixSeconds: rig.harness.server.configuration.unixSeconds))
            // The host subscribes to a new pairing's inbox a moment after it pairs: wait for that, then
            // for its answer to a first offer.
            func offer(_ index: Int) throws -> BrokerMessage {
                let nonce = (0..<16).map { UInt8(truncatingIfNeeded: index >> (8 * ($0 % 4))) ^ UInt8($0) }
                let message = RendezvousMessage.offer(.init(
                    timestampMicros: rig.harness.server.configuration.unixMicros(), nonce: nonce, replyToken: [UInt8](repeating: 0xEE, count: 16),
                    flags: [], ice: IceDescription(usernameFragment: "flooder\(index % 10)", password: String(repeating: "p", count: 22),
                                                   candidates: [IceCandidate(kind: .host, priority: 1, foundation: "1", address: "10.0.0.9", port: 9)])))
                return BrokerMessage(topic: inbox, payload: try RendezvousSeal.seal(message, topic: inbox, sender: flooderIdentity,
                                                                                  recipient: rig.harness.hostIdentity.publicKey,
                                                                                  crypto: rig.harness.crypto))
            }
            let replies = "zrc/v1/out/" + String(repeating: "ee", count: 16)
            #expect(await rig.broker.waitUntil(within: .seconds(30)) { $0.isSubscribed(to: inbox) }, "the host listens on the pairing's inbox")
            var index = 0
            rig.broker.publish(try offer(index))
            index += 1
            #expect(await rig.broker.waitUntil(within: .seconds(30)) { $0.published.contains { $0.topic == replies } }, "the host answers")
            for _ in 0..<5000 {
                rig.broker.publish(try offer(index))
                index += 1
            }
            let controller = rig.controller(.mesh)
            try await rig.pair(controller)
            let session = try await controller.connect(to: "desk")
            _ = try await session.ping(timeout: .seconds(60))
            await session.close()
            #expect(rig.harness.log.contains("too many offers inside the clock window"), "the flooder's own cache filled")
            #expect(rig.harness.log.contains("for this controller"), "the flooder was held to its share")
        }
    }

    /// Invites name the host's relays without credentials (a static login or a REST secret
    /// stays on the host); a paired controller gets a day's credentials for a REST relay in its
    /// pairing, in every session and in each sealed answer, keeps them, and its next offer's
    /// agent allocates with them.
    @Test func relayCredentialsAreTimeLimitedAndNeverInInvites() async throws {
        let secret = "s3cret-value"
        let rest = try ReachURL(parsing: "turn:198.51.100.7:3478?secret=\(secret)", expecting: [.turn])
        let login = try ReachURL(parsing: "turn://zrc:static-password@198.51.100.8:3478", expecting: [.turn])
        let rig = try Rig(relays: [rest, login])
        _ = try await rig.harness.start()
        try await rig.harness.stoppingAfter {
            let inviteText = try await rig.harness.invite()
            let invite = try Invite(parsing: inviteText)
            #expect(invite.servers.filter { $0.scheme == .turn }.map(\.text) == ["turn://198.51.100.7:3478", "turn://198.51.100.8:3478"])
            #expect(invite.servers.allSatisfy { $0.credentials == .none }, "no credential in the invite: \(invite.servers.map(\.text))")

            let (controller, identity) = rig.harness.controller(reach: ControllerReach(
                preference: .mesh, iceMaker: rig.controllerIce, brokerMaker: rig.broker, tcpHeadStart: .milliseconds(250),
                answerTimeout: .seconds(20)))
            try await rig.pair(controller, invite: inviteText)
            let now = UInt64(Date().timeIntervalSince1970)
            let paired = try await controller.knownHosts.host(named: "desk")
            let credential = try #require(paired.relayCredentials.first, "the pairing brought credentials")
            #expect(paired.relayCredentials.count == 1, "only the REST relay's: a static login is never handed out")
            #expect(credential.relay == "198.51.100.7:3478")
            #expect(credential.username.hasSuffix(":zrc-" + Hex.encode(Array(identity.publicKey.bytes.prefix(6)))))
            #expect(credential.expiresAt > now + 23 * 3600 && credential.expiresAt <= now + 24 * 3600 + 60, "valid for a day")
            #expect(credential.password == TurnRESTCredentials.password(secret: secret, username: credential.username))

            let session = try await controller.connect(to: "desk")
            _ = try await session.ping(timeout: .seconds(60))
            await session.close()
            let offered = try #require(rig.hostIce.agentSettings.last { $0.controlling }?.settings)
            #expect(offered.relays.map(\.endpoint) == ["198.51.100.7:3478"], "the relay this controller has credentials for")
            #expect(offered.relays.first?.credentials == .password(user: credential.username, password: credential.password))
            #expect(try await controller.knownHosts.host(named: "desk").relayCredentials.count == 1, "renewed, not piled up")
        }
    }

    /// A relay-only controller never pairs with the host's private addresses (its relay would be
    /// asked to reach them, and learn them); a controller that allows direct paths does.
    @Test(arguments: [TransportPreference.relay, .mesh])
    func aRelayOnlyControllerDropsTheHostsPrivateCandidates(_ preference: TransportPreference) async throws {
        let rig = try Rig()
        _ = try await rig.harness.start()
        try await rig.harness.stoppingAfter {
            let controller = rig.controller(preference)
            try await rig.pair(controller)
            let session = try await controller.connect(to: "desk")
            await session.close()
            let remote = try #require(rig.hostIce.connectsSeen.last { $0.controlling }?.remote)
            // The host's one candidate is 10.0.0.1 (SocketPairAgent): private.
            #expect(remote.candidates.isEmpty == (preference == .relay), "\(preference): \(remote.candidates)")
        }
    }

    @Test(arguments: [("10.1.2.3", true), ("172.16.0.1", true), ("172.32.0.1", false), ("192.168.1.1", true), ("169.254.3.4", true),
                      ("100.64.0.1", false), ("198.51.100.7", false), ("fd00::1", true), ("fe80::1", true), ("2001:db8::1", false),
                      ("::1", true), ("::ffff:10.0.0.1", true)])
    func privateAddresses(_ address: String, isPrivate: Bool) {
        #expect(IceCandidate.isPrivate(address) == isPrivate, "\(address)")
    }
}
