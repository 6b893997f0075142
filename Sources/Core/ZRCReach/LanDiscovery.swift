public import ZRCProtocol

/// A ZRC host seen on the LAN (mDNS `_zrc._tcp`). Everything in it is what some machine on the
/// LAN claimed: the pinned key still decides who the host is.
public struct LanHost: Sendable, Hashable {
    /// The published service name (peer text: sanitize before showing).
    public var name: String
    /// Numeric addresses it resolved to, IPv4 first.
    public var addresses: [String]
    public var port: UInt16
    public var txt: [String: String]

    public init(name: String, addresses: [String], port: UInt16, txt: [String: String]) {
        self.name = name
        self.addresses = addresses
        self.port = port
        self.txt = txt
    }

    /// `host:port` for each address.
    public var endpoints: [HostPort] { addresses.map { HostPort(host: $0, port: port) } }
}

/// The DNS-SD service types ZRC publishes.
public enum LanService: String, Sendable, CaseIterable {
    /// A host, for controllers that know it (TXT: the day's hint of its key).
    case hosts = "_zrc._tcp"
    /// A host waiting with a pairing code (TXT: the day's token of the code's locator), only
    /// while the code is open.
    case pairing = "_zrc-pair._tcp"
}

/// Publishing and browsing on the LAN (the seam the Avahi adapter fills).
public protocol LanDiscovery: Sendable {
    /// Publishes until the returned publication is stopped; `events` reports what happened
    /// (published under which name, or why not) for the log.
    func publish(_ service: LanService, name: String, port: UInt16, txt: [String: String]) throws(ReachError) -> any LanPublication
    /// Services seen within `duration`, or as soon as `enough` says the ones seen so far suffice
    /// (answers from avahi-daemon's cache come within milliseconds; a cold cache within a few
    /// hundred).
    func browse(_ service: LanService, for duration: Duration,
                until enough: @escaping @Sendable ([LanHost]) -> Bool) async throws(ReachError) -> [LanHost]
}

extension LanDiscovery {
    public func publish(name: String, port: UInt16, txt: [String: String]) throws(ReachError) -> any LanPublication {
        try publish(.hosts, name: name, port: port, txt: txt)
    }

    public func browse(for duration: Duration, until enough: @escaping @Sendable ([LanHost]) -> Bool) async throws(ReachError) -> [LanHost] {
        try await browse(.hosts, for: duration, until: enough)
    }
}

public protocol LanPublication: Sendable {
    var events: AsyncStream<LanPublicationEvent> { get }
    func stop() async
}

public enum LanPublicationEvent: Sendable {
    case published(name: String)
    case unavailable(reason: String)
}
