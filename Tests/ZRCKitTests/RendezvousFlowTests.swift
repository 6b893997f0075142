import Foundation
import Testing
import ZRCControllerKit
import ZRCHostKit
import ZRCNetworking
import ZRCProtocol

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

        init(maxNegotiations: Int = 4) throws {
            broker = InMemoryBroker()
            hostIce = SocketPairIce()
            controllerIce = hostIce
            let reach = HostReach(rendezvous: [RendezvousFlowTests.brokerURL], ice: IceSettings(), iceMaker: hostIce, brokerMaker: broker,
                                  advertised: [RendezvousFlowTests.brokerURL], clientID: "host", maxNegotiations: maxNegotiations)
            harness = try HostHarness(reach: reach)
        }

        func controller(_ preference: TransportPreference) -> ZRCController {
            harness.controller(reach: ControllerReach(preference: preference, iceMaker: controllerIce, brokerMaker: broker,
                                                      tcpHeadStart: .milliseconds(250), answerTimeout: .seconds(20))).0
        }

        /// Pairs over TCP (the invite names the broker). The host subscribes to the new pairing's
        /// topics a moment later; an offer made before that is repeated until answered.
        func pair(_ controller: ZRCController) async throws {
            let host = try await controller.pair(inviteText: try await harness.invite(), name: "desk")
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
            _ = try await session.ping()
            await session.close()
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
}
