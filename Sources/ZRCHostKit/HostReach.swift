public import ZRCNetworking
public import ZRCProtocol

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
    /// A stable MQTT client ID for the host (the broker may show it; it reveals nothing).
    public var clientID: String

    public init(rendezvous: [ReachURL], ice: IceSettings, iceMaker: any IceAgentMaker, brokerMaker: any RendezvousBrokerMaker,
                advertised: [ReachURL], clientID: String, maxNegotiations: Int = 4, gatherTimeout: Duration = .seconds(3),
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
