import Testing
import ZRCCommandSupport
import ZRCProtocol
import ZRCStorage

/// What a host's invites tell controllers about its servers.
@Suite struct ReachWiringTests {
    @Test func invitesNeverCarryTheHostsBrokerLoginOrARelaySecret() throws {
        var config = HostConfig()
        config.rendezvousUrls = ["mqtt://zrc-host:hunter2@broker.example:1883"]
        config.relayUrls = ["turn://zrc:shared@relay.example", "turn:relay.example:3480?secret=hunter3"]
        config.stunUrls = ["stun:relay.example"]
        let reach = try #require(ReachWiring.hostReach(config))
        let texts = reach.advertised.map(\.text)
        #expect(texts == ["mqtt://broker.example:1883", "turn://zrc:shared@relay.example", "stun:relay.example"])
        #expect(!texts.joined().contains("hunter"))
        // The host itself still logs in.
        #expect(reach.rendezvous.map(\.text) == ["mqtt://zrc-host:hunter2@broker.example:1883"])
    }

    @Test func aHostWithoutABrokerHasNoReach() {
        #expect(ReachWiring.hostReach(HostConfig()) == nil)
    }
}
