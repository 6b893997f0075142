/// The associated data of pairing by code: what each side says about itself in its CPace
/// message. CPace's key authenticates both, so the controller pins the host key it reads here and
/// the host authorizes the controller key it reads here, as an invite's pairing does.

/// The controller's AD (ADa): format u8 (1), its static key (32 bytes), its name (u8 length, at
/// most 64 UTF-8 bytes).
public struct ControllerPairingAD: Sendable, Equatable {
    public static let format: UInt8 = 1
    public static let maxNameBytes = 64

    public let controllerKey: NoisePublicKey
    public let name: String

    public init(controllerKey: NoisePublicKey, name: String) throws(WireError) {
        guard name.utf8.count <= Self.maxNameBytes else {
            throw WireError(.invalidValue, "a controller name is at most \(Self.maxNameBytes) bytes, got \(name.utf8.count)")
        }
        self.controllerKey = controllerKey
        self.name = name
    }

    public var bytes: [UInt8] {
        var writer = ByteWriter(reservingCapacity: 1 + 32 + 1 + name.utf8.count)
        writer.write(Self.format)
        writer.write(bytes: controllerKey.bytes)
        writer.write(shortString: name)
        return writer.bytes
    }

    public init(parsing bytes: [UInt8]) throws(WireError) {
        var reader = ByteReader(bytes[...], context: "controller's pairing AD")
        guard try reader.readUInt8("format") == Self.format else { throw reader.invalid("format", "is not \(Self.format)") }
        let key = try reader.readBytes(count: NoisePublicKey.length, "controller key")
        let name = try reader.readShortString("name")
        try reader.expectEnd()
        let controllerKey: NoisePublicKey
        do {
            controllerKey = try NoisePublicKey(bytes: key)
        } catch {
            throw reader.invalid("controller key", error.message)
        }
        try self.init(controllerKey: controllerKey, name: name)
    }
}

/// The host's AD (ADb): everything an invite carries except its ID and secret, which both sides
/// derive from the CPace run (`CodePairingKeys`) — format u8 (1), host key (32 bytes), expiresAt
/// u64, address count u8 (1…8) and per address host (u8 length) and port u16, host name (u8
/// length), server count u8 (0…8) and per server its URL (u8 length).
public struct HostPairingAD: Sendable, Equatable {
    public static let format: UInt8 = 1

    public let hostKey: NoisePublicKey
    public let expiresAt: UInt64
    public let addresses: [InviteAddress]
    public let hostName: String
    public let servers: [ReachURL]

    public init(hostKey: NoisePublicKey, expiresAt: UInt64, addresses: [InviteAddress], hostName: String, servers: [ReachURL]) throws(WireError) {
        // The invite's own limits, checked with a placeholder ID and secret.
        _ = try Invite(hostKey: hostKey, inviteID: try InviteID(bytes: [UInt8](repeating: 0, count: InviteID.length)),
                       secret: SecretBytes.zeros(count: Invite.secretLength), expiresAt: expiresAt, addresses: addresses,
                       hostName: hostName, servers: servers)
        self.hostKey = hostKey
        self.expiresAt = expiresAt
        self.addresses = addresses
        self.hostName = hostName
        self.servers = servers
    }

    public var bytes: [UInt8] {
        var writer = ByteWriter(reservingCapacity: 128)
        writer.write(Self.format)
        writer.write(bytes: hostKey.bytes)
        writer.write(expiresAt)
        Invite.write(addresses: addresses, hostName: hostName, to: &writer)
        Invite.write(servers: servers, to: &writer)
        return writer.bytes
    }

    public init(parsing bytes: [UInt8]) throws(WireError) {
        var reader = ByteReader(bytes[...], context: "host's pairing AD")
        guard try reader.readUInt8("format") == Self.format else { throw reader.invalid("format", "is not \(Self.format)") }
        let keyBytes = try reader.readBytes(count: NoisePublicKey.length, "host key")
        let expiresAt = try reader.readUInt64("expiresAt")
        let (addresses, hostName) = try Invite.readAddresses(&reader)
        let servers = try Invite.readServers(&reader)
        try reader.expectEnd()
        let hostKey: NoisePublicKey
        do {
            hostKey = try NoisePublicKey(bytes: keyBytes)
        } catch {
            throw reader.invalid("host key", error.message)
        }
        try self.init(hostKey: hostKey, expiresAt: expiresAt, addresses: addresses, hostName: hostName, servers: servers)
    }

    /// The invite the ordinary pairing then uses: this AD with the run's invite ID and secret.
    public func invite(keys: CodePairingKeys) throws(WireError) -> Invite {
        try Invite(hostKey: hostKey, inviteID: keys.inviteID, secret: keys.secret, expiresAt: expiresAt, addresses: addresses,
                   hostName: hostName, servers: servers)
    }
}
