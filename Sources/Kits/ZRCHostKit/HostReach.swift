import Foundation
public import ZRCNetworking
public import ZRCProtocol
public import ZRCReach

/// How a host is reached beyond its TCP listener: the brokers it listens on for offers, its own
/// ICE servers, and the adapters that do the work (chosen by the executable).
public struct HostReach: Sendable {
    public var rendezvous: [ReachURL]
    public var ice: IceSettings
    public var iceMaker: any IceAgentMaker
    public var brokerMaker: any RendezvousBrokerMaker
    /// What invites carry: the rendezvous, relay and STUN servers a controller needs.
    public var advertised: [ReachURL]
    /// ICE negotiations at once; more offers are answered `busy` (each costs an agent and perhaps
    /// a relay allocation, and only paired controllers can make them).
    public var maxNegotiations: Int
    /// Of those, how many one controller may hold: a controller flooding offers leaves the rest
    /// to the others.
    public var maxNegotiationsPerController = 2
    /// Offer nonces remembered per controller (inside the clock window): one controller's flood
    /// fills only its own cache.
    public var offerNoncesPerController = 512
    public var gatherTimeout: Duration
    public var iceTimeout: Duration
    /// A fresh MQTT client ID for each connection to a broker (random: it reveals nothing, and
    /// the connection of one day cannot be told from the next one's by it).
    public var clientID: @Sendable () -> String
    /// Time-limited credentials for this host's relays, minted for one paired controller (empty
    /// when no relay has a REST secret: static logins stay on the host). Handed out in sessions,
    /// pairings and sealed answers, never in invites.
    public var relayCredentials: @Sendable (_ controller: NoisePublicKey) -> [RelayCredential] = { _ in [] }

    public init(rendezvous: [ReachURL], ice: IceSettings, iceMaker: any IceAgentMaker, brokerMaker: any RendezvousBrokerMaker,
                advertised: [ReachURL], clientID: @escaping @Sendable () -> String = HostReach.randomClientID, maxNegotiations: Int = 4, gatherTimeout: Duration = .seconds(3),
                iceTimeout: Duration = .seconds(15)) {
        self.rendezvous = rendezvous
        self.ice = ice
        self.iceMaker = iceMaker
        self.brokerMaker = brokerMaker
        self.advertised = advertised
        self.clientID = clientID
        self.maxNegotiations = maxNegotiations
        self.gatherTimeout = gatherTimeout
        self.iceTimeout = iceTimeout
    }
}

extension HostReach {
    /// `zrc-h-` and 16 random hex digits (getrandom(2)).
    @Sendable public static func randomClientID() -> String {
        var generator = SystemRandomNumberGenerator()
        return "zrc-h-" + (0..<8).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}
