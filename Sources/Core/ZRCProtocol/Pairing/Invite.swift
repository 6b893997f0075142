/// A single-use pairing invitation from a host: everything a controller needs to dial the host,
/// pin its key and prove it was given the invite.
///
/// Its text form (`text`, `init(parsing:)`) is "zrc1-" + base32 of a binary layout with a header
/// check and a CRC-32; see Invite+Text.swift and Schemas/wire-protocol.md.
public struct Invite: Sendable, Equatable {
    /// The host's static Noise public key; the controller pins it.
    public let hostKey: NoisePublicKey
    public let inviteID: InviteID
    /// 128-bit psk of the pairing handshake.
    public let secret: SecretBytes
    /// Unix time in seconds after which the host refuses the invite.
    public let expiresAt: UInt64
    /// 1…8 addresses, tried in order.
    public let addresses: [InviteAddress]
    /// The host's display name, at most 255 UTF-8 bytes (invites stay short enough to copy).
    public let hostName: String
    /// The rendezvous brokers, relays and STUN servers the host uses (format 2 only), so the
    /// controller can find it anywhere without configuring anything itself. At most 8.
    public let servers: [ReachURL]

    public static let secretLength = 16
    public static let maxHostNameBytes = 255
    public static let maxServers = 8

    /// Throws `.invalidValue` when a field is outside its limits (secret not 16 bytes, no or more
    /// than 8 addresses, an empty host, port 0, a host name over 255 bytes).
    public init(
        hostKey: NoisePublicKey, inviteID: InviteID, secret: SecretBytes, expiresAt: UInt64,
        addresses: [InviteAddress], hostName: String, servers: [ReachURL] = []
    ) throws(WireError) {
        if let problem = Self.problem(secret: secret, addresses: addresses, hostName: hostName) {
            throw WireError(.invalidValue, "invalid invite: \(problem)")
        }
        guard servers.count <= Self.maxServers, servers.allSatisfy({ $0.text.utf8.count <= 255 }) else {
            throw WireError(.invalidValue, "invalid invite: at most \(Self.maxServers) servers of at most 255 bytes each")
        }
        self.servers = servers
        self.hostKey = hostKey
        self.inviteID = inviteID
        self.secret = secret
        self.expiresAt = expiresAt
        self.addresses = addresses
        self.hostName = hostName
    }

    /// True from `expiresAt` on.
    public func isExpired(atUnixSeconds now: UInt64) -> Bool { now >= expiresAt }

    public static func == (lhs: Invite, rhs: Invite) -> Bool {
        lhs.hostKey == rhs.hostKey && lhs.inviteID == rhs.inviteID && lhs.secret.constantTimeEquals(rhs.secret)
            && lhs.expiresAt == rhs.expiresAt && lhs.addresses == rhs.addresses && lhs.hostName == rhs.hostName
            && lhs.servers == rhs.servers
    }

    static func problem(secret: SecretBytes, addresses: [InviteAddress], hostName: String) -> String? {
        if secret.count != secretLength { return "the secret must be \(secretLength) bytes, got \(secret.count)" }
        if !(1...WireLimits.maxInviteAddresses).contains(addresses.count) {
            return "an invite needs 1…\(WireLimits.maxInviteAddresses) addresses, got \(addresses.count)"
        }
        for address in addresses {
            if let problem = address.problem() { return problem }
        }
        if hostName.utf8.count > maxHostNameBytes {
            return "the host name is \(hostName.utf8.count) bytes, limit is \(maxHostNameBytes)"
        }
        return nil
    }
}
