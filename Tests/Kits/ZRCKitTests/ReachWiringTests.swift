import Testing
import ZRCCommandSupport
import ZRCProtocol
import ZRCStorage
import ZRCHostKit

/// What a host's invites tell controllers about its servers.
@Suite struct ReachWiringTests {
    /// Neither the broker login nor any relay credential: a static login and a REST secret both
    /// stay on the host (controllers get a day's REST credentials in authenticated channels).
    @Test func invitesNeverCarryTheHostsBrokerLoginOrARelaySecret() throws {
        var config = HostConfig()
        config.rendezvousUrls = ["mqtts://zrc-host:hunter2@broker.example?ca=/etc/zrc/ca.pem"]
        config.relayUrls = ["turn://zrc:shared@relay.example", "turn:relay.example:3480?secret=hunter3"]
        config.stunUrls = ["stun:relay.example"]
        let reach = try #require(ReachWiring.hostReach(config))
        let texts = reach.advertised.map(\.text)
        #expect(texts == ["mqtts://broker.example:8883", "turn://relay.example:3478", "turn://relay.example:3480", "stun:relay.example"])
        #expect(!texts.joined().contains("hunter") && !texts.joined().contains("shared") && !texts.joined().contains("ca.pem"))
        // The host itself still logs in.
        #expect(reach.rendezvous.map(\.text) == ["mqtts://zrc-host:hunter2@broker.example?ca=/etc/zrc/ca.pem"])
        // Credentials for the REST relay only, for one controller, valid a day.
        let controller = try NoisePublicKey(bytes: [UInt8](repeating: 7, count: 32))
        let minted = reach.relayCredentials(controller)
        #expect(minted.map(\.relay) == ["relay.example:3480"])
        #expect(minted.first?.username.hasSuffix(":zrc-070707070707") == true)
    }

    @Test func aHostWithoutABrokerHasNoReach() {
        #expect(ReachWiring.hostReach(HostConfig()) == nil)
    }
}
