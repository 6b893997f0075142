public import Foundation
public import ZRCProtocol

/// A controller the host has paired with and will accept sessions from.
public struct AuthorizedController: Codable, Sendable, Equatable {
    public var name: String
    public var publicKey: NoisePublicKey
    public var pairedAt: Date
    public var lastSeen: Date?
    /// Highest handshake timestamp accepted from this controller (µs since the Unix epoch); a first
    /// handshake message not newer than this is a replay and is dropped.
    public var lastHandshakeMicros: UInt64
    /// Paired with `zrc-host pair --code --temporary`: authorized for one session, removed when it
    /// ends (and by the next `zrc-host serve`, should the host stop first).
    public var temporary: Bool

    public init(name: String, publicKey: NoisePublicKey, pairedAt: Date, lastSeen: Date? = nil, lastHandshakeMicros: UInt64 = 0,
                temporary: Bool = false) {
        self.temporary = temporary
        self.name = name
        self.publicKey = publicKey
        self.pairedAt = pairedAt
        self.lastSeen = lastSeen
        self.lastHandshakeMicros = lastHandshakeMicros
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case name, publicKey, pairedAt, lastSeen, lastHandshakeMicros, temporary }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        temporary = try container.decodeIfPresent(Bool.self, forKey: .temporary) ?? false
        name = try container.decodeDeviceName(forKey: .name)
        publicKey = try container.decodePublicKey(forKey: .publicKey)
        pairedAt = try container.decodeDate(forKey: .pairedAt)
        lastSeen = try container.decodeDateIfPresent(forKey: .lastSeen)
        lastHandshakeMicros = try container.decodeIfPresent(UInt64.self, forKey: .lastHandshakeMicros) ?? 0
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encodePublicKey(publicKey, forKey: .publicKey)
        try container.encode(InternetDateTime.format(pairedAt), forKey: .pairedAt)
        try container.encodeIfPresent(lastSeen.map(InternetDateTime.format), forKey: .lastSeen)
        try container.encode(lastHandshakeMicros, forKey: .lastHandshakeMicros)
        if temporary { try container.encode(true, forKey: .temporary) }
    }
}

/// `authorized-controllers.json` (schema: Schemas/authorized-controllers.schema.json).
public struct AuthorizedControllersDocument: Codable, Sendable, Equatable {
    public static let currentVersion = 1
    public var version: Int
    public var controllers: [AuthorizedController]

    public init(controllers: [AuthorizedController] = []) {
        version = Self.currentVersion
        self.controllers = controllers
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case version, controllers }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decodeSupportedVersion(forKey: .version, current: Self.currentVersion)
        controllers = try container.decode([AuthorizedController].self, forKey: .controllers)
        try container.requireUnique(controllers.map(\.name), what: "controller name", forKey: .controllers)
        try container.requireUnique(controllers.map(\.publicKey.bytes), what: "public key", forKey: .controllers)
    }
}
