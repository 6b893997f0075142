public import Foundation
public import ZRCProtocol

/// A host this controller has paired with: its pinned key and where to reach it.
public struct KnownHost: Codable, Sendable, Equatable {
    /// The local name the user chose (`zrc-ctl pair --name`), used on the command line.
    public var name: String
    /// The name the host announced about itself.
    public var hostName: String
    public var publicKey: NoisePublicKey
    /// `host:port` strings, tried in order.
    public var addresses: [String]
    public var pairedAt: Date
    public var lastSeen: Date?
    /// The servers the host's invite named: where to find it when its addresses do not answer.
    public var rendezvousUrls: [String]
    public var relayUrls: [String]
    public var stunUrls: [String]
    /// Time-limited credentials for the host's relays, from the host (a session, the pairing, a
    /// sealed answer): this controller's own allocations use them in its next offers.
    public var relayCredentials: [RelayCredential]
    /// How the last session reached the host: `tcp` (its addresses or the LAN) or `rendezvous`
    /// (ICE, direct or relayed). A host last reached through the rendezvous gets it at once
    /// rather than after TCP's head start: its old LAN address may only hang.
    public var lastPath: KnownHostPath?

    public init(name: String, hostName: String, publicKey: NoisePublicKey, addresses: [String], pairedAt: Date, lastSeen: Date? = nil,
                rendezvousUrls: [String] = [], relayUrls: [String] = [], stunUrls: [String] = [], relayCredentials: [RelayCredential] = []) {
        self.relayCredentials = relayCredentials
        self.name = name
        self.hostName = hostName
        self.publicKey = publicKey
        self.addresses = addresses
        self.pairedAt = pairedAt
        self.lastSeen = lastSeen
        self.rendezvousUrls = rendezvousUrls
        self.relayUrls = relayUrls
        self.stunUrls = stunUrls
    }

    /// All of the host's servers, parsed (they were validated when read).
    public var reachURLs: [ReachURL] {
        (rendezvousUrls + relayUrls + stunUrls).compactMap { try? ReachURL(parsing: $0, expecting: [.mqtt, .turn, .stun]) }
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case name, hostName, publicKey, addresses, pairedAt, lastSeen, rendezvousUrls, relayUrls, stunUrls, relayCredentials, lastPath
    }

    /// One entry of `relayCredentials` in the file.
    struct StoredRelayCredential: Codable {
        var relay: String
        var username: String
        var password: String
        var expiresAt: String
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decodeDeviceName(forKey: .name)
        hostName = try container.decode(String.self, forKey: .hostName)
        // The host's own word for itself: shown in listings, so it must be plain visible text.
        // At most 3 × the wire limit: sanitizing turns each unsafe byte into U+FFFD (3 bytes).
        guard hostName.utf8.count <= 3 * WireLimits.maxStringBytes, TerminalSafeText.isSafe(hostName) else {
            throw DecodingError.dataCorruptedError(
                forKey: .hostName, in: container,
                debugDescription: "must be at most \(3 * WireLimits.maxStringBytes) bytes without control, formatting or invisible characters")
        }
        publicKey = try container.decodePublicKey(forKey: .publicKey)
        addresses = try container.decode([String].self, forKey: .addresses)
        guard !addresses.isEmpty, addresses.count <= 8 else {
            throw DecodingError.dataCorruptedError(forKey: .addresses, in: container,
                                                   debugDescription: "expected 1 to 8 addresses")
        }
        for (index, address) in addresses.enumerated() where HostPort(parsing: address) == nil {
            throw DecodingError.dataCorruptedError(
                forKey: .addresses, in: container,
                debugDescription: "entry \(index) `\(TerminalSafeText.sanitized(address))` is not host:port (IPv6 as [addr]:port)")
        }
        pairedAt = try container.decodeDate(forKey: .pairedAt)
        lastSeen = try container.decodeDateIfPresent(forKey: .lastSeen)
        lastPath = try container.decodeIfPresent(KnownHostPath.self, forKey: .lastPath)
        rendezvousUrls = try container.decodeReachURLs(forKey: .rendezvousUrls, scheme: .mqtt)
        relayUrls = try container.decodeReachURLs(forKey: .relayUrls, scheme: .turn, relayCredentialsRequired: false)
        stunUrls = try container.decodeReachURLs(forKey: .stunUrls, scheme: .stun)
        let stored = try container.decodeIfPresent([StoredRelayCredential].self, forKey: .relayCredentials) ?? []
        guard stored.count <= RelayCredential.maximumCount else {
            throw DecodingError.dataCorruptedError(forKey: .relayCredentials, in: container,
                                                   debugDescription: "at most \(RelayCredential.maximumCount) entries")
        }
        relayCredentials = try stored.enumerated().map { index, entry in
            guard let expiry = InternetDateTime.parse(entry.expiresAt), HostPort(parsing: entry.relay, defaultPort: 3478) != nil,
                  !entry.username.isEmpty, entry.username.utf8.count <= 255, !entry.password.isEmpty, entry.password.utf8.count <= 255 else {
                throw DecodingError.dataCorruptedError(forKey: .relayCredentials, in: container,
                                                       debugDescription: "entry \(index): expected relay host:port, username and password "
                                                           + "of 1…255 bytes, expiresAt as an RFC 3339 date")
            }
            return RelayCredential(relay: entry.relay, username: entry.username, password: entry.password,
                                   expiresAt: UInt64(max(0, expiry.timeIntervalSince1970)))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(hostName, forKey: .hostName)
        try container.encodePublicKey(publicKey, forKey: .publicKey)
        try container.encode(addresses, forKey: .addresses)
        try container.encode(InternetDateTime.format(pairedAt), forKey: .pairedAt)
        try container.encodeIfPresent(lastSeen.map(InternetDateTime.format), forKey: .lastSeen)
        try container.encodeIfPresent(lastPath, forKey: .lastPath)
        if !rendezvousUrls.isEmpty { try container.encode(rendezvousUrls, forKey: .rendezvousUrls) }
        if !relayUrls.isEmpty { try container.encode(relayUrls, forKey: .relayUrls) }
        if !stunUrls.isEmpty { try container.encode(stunUrls, forKey: .stunUrls) }
        if !relayCredentials.isEmpty {
            try container.encode(relayCredentials.map {
                StoredRelayCredential(relay: $0.relay, username: $0.username, password: $0.password,
                                      expiresAt: InternetDateTime.format(Date(timeIntervalSince1970: TimeInterval($0.expiresAt))))
            }, forKey: .relayCredentials)
        }
    }
}

/// How a session last reached a host.
public enum KnownHostPath: String, Codable, Sendable {
    case tcp
    case rendezvous
}

/// `known-hosts.json` (schema: Schemas/known-hosts.schema.json).
public struct KnownHostsDocument: Codable, Sendable, Equatable {
    public static let currentVersion = 1
    public var version: Int
    public var hosts: [KnownHost]

    public init(hosts: [KnownHost] = []) {
        version = Self.currentVersion
        self.hosts = hosts
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case version, hosts }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decodeSupportedVersion(forKey: .version, current: Self.currentVersion)
        hosts = try container.decode([KnownHost].self, forKey: .hosts)
        try container.requireUnique(hosts.map(\.name), what: "host name", forKey: .hosts)
    }
}
