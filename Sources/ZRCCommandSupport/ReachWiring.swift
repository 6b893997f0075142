public import ZRCControllerKit
public import ZRCHostKit
import ZRCDiscovery
import ZRCIce
import ZRCMQTT
public import ZRCNetworking
public import ZRCProtocol
public import ZRCStorage

/// Builds the reach settings of both programs from their config files, with the real adapters:
/// libnice for ICE and libmosquitto for the rendezvous.
public enum ReachWiring {
    /// The controller's own servers and preference.
    public static func controllerReach(_ config: ControllerConfig) -> ControllerReach {
        ControllerReach(preference: config.transportPreference, rendezvous: parse(config.rendezvousUrls, .mqtt),
                        ice: IceSettings(stunServers: parse(config.stunUrls, .stun), relays: parse(config.relayUrls, .turn)),
                        iceMaker: NiceAgentMaker(), brokerMaker: MosquittoBrokerMaker(), lan: AvahiDiscovery())
    }

    /// LAN discovery through avahi-daemon, or nil when `host.json` turns it off.
    public static func hostLanDiscovery(_ config: HostConfig) -> (any LanDiscovery)? {
        config.lanDiscovery ? AvahiDiscovery() : nil
    }

    /// For `zrc-ctl devices --scan`.
    public static func lanDiscovery() -> any LanDiscovery { AvahiDiscovery() }

    /// The host's rendezvous settings; nil when it has no rendezvous server (TCP only).
    public static func hostReach(_ config: HostConfig) -> HostReach? {
        let rendezvous = parse(config.rendezvousUrls, .mqtt)
        guard !rendezvous.isEmpty else { return nil }
        let relays = config.transportPreference.allowsRelay ? parse(config.relayUrls, .turn) : []
        let stun = parse(config.stunUrls, .stun)
        return HostReach(rendezvous: rendezvous,
                         ice: IceSettings(stunServers: stun, relays: relays, relayOnly: config.transportPreference.relayOnly),
                         iceMaker: NiceAgentMaker(), brokerMaker: MosquittoBrokerMaker(), advertised: advertised(rendezvous, relays, stun),
                         clientID: randomClientID())
    }

    /// What invites name: brokers without the host's login (controllers publish anonymously, or
    /// with their own from controller.json), relays with static credentials (paired controllers
    /// may use the host's relay), but no relay given by a REST shared secret (the secret would
    /// let anyone mint credentials), and STUN servers.
    public static func advertised(_ rendezvous: [ReachURL], _ relays: [ReachURL], _ stun: [ReachURL]) -> [ReachURL] {
        let shareable = relays.filter { if case .sharedSecret = $0.credentials { false } else { true } }
        return Array((rendezvous.map(\.withoutCredentials) + shareable + stun).prefix(8))
    }

    /// A client ID per run: random, so the broker cannot tell which host (by key or name) it is.
    static func randomClientID() -> String {
        var generator = SystemRandomNumberGenerator()
        return "zrc-h-" + (0..<8).map { _ in String(UInt8.random(in: 0...255, using: &generator), radix: 16) }.joined()
    }

    /// Config files were validated when read: every entry parses.
    static func parse(_ texts: [String], _ scheme: ReachURL.Scheme) -> [ReachURL] {
        texts.compactMap { try? ReachURL(parsing: $0, expecting: [scheme]) }
    }
}
