public import ZRCControllerKit
public import ZRCHostKit
import Foundation
import ZRCDiscovery
import ZRCIce
import ZRCMQTT
public import ZRCNetworking
public import ZRCProtocol
public import ZRCStorage
public import ZRCReach

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
        var reach = HostReach(rendezvous: rendezvous,
                              ice: IceSettings(stunServers: stun, relays: relays, relayOnly: config.transportPreference.relayOnly),
                              iceMaker: NiceAgentMaker(), brokerMaker: MosquittoBrokerMaker(), advertised: advertised(rendezvous, relays, stun))
        reach.relayCredentials = relayCredentialMinter(relays)
        return reach
    }

    /// Mints a day's credentials for each relay given by a REST secret, labelled with the
    /// controller's fingerprint (what the relay's log shows of it).
    public static func relayCredentialMinter(_ relays: [ReachURL]) -> @Sendable (NoisePublicKey) -> [RelayCredential] {
        let restRelays = relays.filter { if case .sharedSecret = $0.credentials { true } else { false } }
        guard !restRelays.isEmpty else { return { _ in [] } }
        return { controller in
            let label = "zrc-" + Hex.encode(Array(controller.bytes.prefix(6)))
            let now = UInt64(max(0, Date().timeIntervalSince1970))
            var seen = Set<String>()
            return restRelays.compactMap { TurnRESTCredentials.mint(for: $0, label: label, nowUnixSeconds: now) }
                .filter { seen.insert($0.relay).inserted }
        }
    }

    /// What invites name: brokers without the host's login (controllers publish anonymously, or
    /// with their own from controller.json), relays without any credentials (static logins stay
    /// on the host; a relay given by a REST secret gets controllers time-limited credentials in
    /// sessions and sealed answers instead), and STUN servers.
    public static func advertised(_ rendezvous: [ReachURL], _ relays: [ReachURL], _ stun: [ReachURL]) -> [ReachURL] {
        var seen = Set<String>()
        let relays = relays.map(\.withoutCredentials).filter { seen.insert($0.text).inserted }
        return Array((rendezvous.map(\.withoutCredentials) + relays + stun).prefix(8))
    }

    /// Config files were validated when read: every entry parses.
    static func parse(_ texts: [String], _ scheme: ReachURL.Scheme) -> [ReachURL] {
        texts.compactMap { try? ReachURL(parsing: $0, expecting: [scheme]) }
    }
}
