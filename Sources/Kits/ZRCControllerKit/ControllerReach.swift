public import ZRCNetworking
public import ZRCProtocol
public import ZRCReach

/// How a controller reaches hosts beyond the addresses it paired with: the transport preference,
/// its own rendezvous, STUN and relay servers (added to those the host's invite named), and the
/// adapters that do the work (chosen by the executable).
public struct ControllerReach: Sendable {
    public var preference: TransportPreference
    public var rendezvous: [ReachURL]
    public var ice: IceSettings
    public var iceMaker: (any IceAgentMaker)?
    public var brokerMaker: (any RendezvousBrokerMaker)?
    /// LAN discovery: finds a paired host whose address changed (its announcement carries a
    /// hint only holders of its key recognise).
    public var lan: (any LanDiscovery)?
    /// How long LAN discovery looks for the host before giving up.
    public var lanBrowse: Duration
    /// How long direct TCP runs alone before the rendezvous starts beside it (happy eyeballs): a
    /// LAN answers well within it, and a host behind a NAT costs no more than this extra.
    public var tcpHeadStart: Duration
    public var brokerTimeout: Duration
    public var gatherTimeout: Duration
    public var answerTimeout: Duration
    /// How often an unanswered offer is published again before `answerTimeout`.
    public var offerRepeat: Duration
    public var iceTimeout: Duration

    public init(preference: TransportPreference = .auto, rendezvous: [ReachURL] = [], ice: IceSettings = IceSettings(),
                iceMaker: (any IceAgentMaker)? = nil, brokerMaker: (any RendezvousBrokerMaker)? = nil,
                lan: (any LanDiscovery)? = nil, lanBrowse: Duration = .milliseconds(1500),
                tcpHeadStart: Duration = .milliseconds(250), brokerTimeout: Duration = .seconds(3),
                gatherTimeout: Duration = .seconds(3), answerTimeout: Duration = .seconds(6), offerRepeat: Duration = .milliseconds(1500),
                iceTimeout: Duration = .seconds(10)) {
        self.offerRepeat = offerRepeat
        self.preference = preference
        self.rendezvous = rendezvous
        self.ice = ice
        self.iceMaker = iceMaker
        self.brokerMaker = brokerMaker
        self.lan = lan
        self.lanBrowse = lanBrowse
        self.tcpHeadStart = tcpHeadStart
        self.brokerTimeout = brokerTimeout
        self.gatherTimeout = gatherTimeout
        self.answerTimeout = answerTimeout
        self.iceTimeout = iceTimeout
    }

    /// This controller's servers plus the host's (from its invite), without repeats. The host's
    /// relays come without credentials: each is used with the time-limited ones the host handed
    /// this controller (`credentials`, still good at `nowUnixSeconds`), or not at all for this
    /// side's own allocations (the host's relayed candidates still work).
    func servers(forHost hostURLs: [ReachURL], credentials: [RelayCredential] = [], nowUnixSeconds: UInt64 = 0)
        -> (brokers: [ReachURL], ice: IceSettings) {
        let hostURLs = hostURLs.compactMap { url -> ReachURL? in
            guard url.scheme == .turn, case .none = url.credentials else { return url }
            guard let credential = credentials.first(where: { $0.relay == url.endpoint && $0.isUsable(atUnixSeconds: nowUnixSeconds) })
            else { return nil }
            return url.with(credential)
        }
        func merged(_ own: [ReachURL], _ scheme: ReachURL.Scheme) -> [ReachURL] {
            var seen = Set<String>()
            return (own + hostURLs.filter { $0.scheme == scheme }).filter { seen.insert($0.endpoint + ($0.overTCP ? "/tcp" : "")).inserted }
        }
        var ice = self.ice
        ice.stunServers = merged(ice.stunServers, .stun)
        ice.relays = preference.allowsRelay ? merged(ice.relays, .turn) : []
        ice.relayOnly = preference.relayOnly
        return (merged(rendezvous, .mqtt), ice)
    }

    /// Whether the rendezvous can be tried at all.
    var canRendezvous: Bool { iceMaker != nil && brokerMaker != nil }
}
