/// Which paths a side may use to reach its peer (`transportPreference` in the config files).
public enum TransportPreference: String, Sendable, Hashable, CaseIterable, Codable {
    /// LAN and direct TCP first, then ICE direct, then a relay.
    case auto
    /// ICE only (direct or relayed), never the TCP addresses.
    case mesh
    /// Never a relay: direct TCP and ICE without relayed candidates.
    case direct
    /// Relay only, for privacy: the peer never learns this side's addresses.
    case relay

    public var triesTCP: Bool {
        switch self {
        case .auto, .direct: true
        case .mesh, .relay: false
        }
    }

    public var allowsRelay: Bool {
        switch self {
        case .auto, .mesh, .relay: true
        case .direct: false
        }
    }

    public var relayOnly: Bool {
        switch self {
        case .relay: true
        case .auto, .mesh, .direct: false
        }
    }
}

/// The path a session runs over, as the status line and `ping` name it.
public enum TransportPath: Sendable, Hashable, CustomStringConvertible {
    /// A TCP connection to one of the host's addresses (LAN or public).
    case tcp(address: String)
    /// ICE without a relay; `local`/`remote` are the selected candidates' kinds.
    case iceDirect(local: IceCandidate.Kind, remote: IceCandidate.Kind, remoteEndpoint: String)
    /// ICE through a TURN relay (`server` is the relay in use, host:port).
    case relay(server: String)

    public var description: String {
        switch self {
        case .tcp(let address): "direct TCP \(address)"
        case .iceDirect(let local, let remote, _):
            // The more telling kind of the two: srflx means NAT traversal worked.
            "ICE direct (\(Self.telling(local, remote).shortName))"
        case .relay(let server): "relay via \(server)"
        }
    }

    public var isRelayed: Bool {
        switch self {
        case .relay: true
        case .tcp, .iceDirect: false
        }
    }

    private static func telling(_ local: IceCandidate.Kind, _ remote: IceCandidate.Kind) -> IceCandidate.Kind {
        let order: [IceCandidate.Kind] = [.relayed, .serverReflexive, .peerReflexive, .host]
        return order.first { $0 == local || $0 == remote } ?? local
    }
}
