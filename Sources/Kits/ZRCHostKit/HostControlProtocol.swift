public import Foundation

/// Requests `zrc-host` subcommands send to the running `zrc-host serve` over the local control
/// socket (see `LocalControlSocket`).
public enum HostControlRequest: Codable, Sendable, Equatable {
    /// A one-time invite. `addresses` overrides the advertised addresses when non-empty.
    case createInvite(lifetimeSeconds: Int, addresses: [String])
    case listControllers
    case revokeController(name: String)
    case listSessions
    case endSession(id: UInt64)
    case status
    /// A pairing code (`zrc-host pair --code`). The code ends when nobody asks for its status
    /// for a few seconds: the command that showed it has gone.
    case createCode(lifetimeSeconds: Int, temporary: Bool)
    case codeStatus(locator: Int)
    case cancelCode(locator: Int)
}

public enum HostControlResponse: Codable, Sendable, Equatable {
    case invite(InviteSummary)
    case controllers([ControllerSummary])
    case revoked(name: String, endedSessions: Int)
    case sessions([SessionSummary])
    case sessionEnded(id: UInt64)
    case status(ServerStatus)
    case code(CodeSummary)
    case codeStatus(CodeStatus)
    case failure(message: String)
}

public struct CodeSummary: Codable, Sendable, Equatable {
    /// The code to read out, e.g. `42-8317-0946-6`.
    public var code: String
    public var locator: Int
    public var expiresAt: Date
    public var hostName: String
    public var hostFingerprint: String
    /// Where controllers can find it: `LAN` and the brokers it is announced at.
    public var meetingPoints: [String]

    public init(code: String, locator: Int, expiresAt: Date, hostName: String, hostFingerprint: String, meetingPoints: [String]) {
        self.code = code
        self.locator = locator
        self.expiresAt = expiresAt
        self.hostName = hostName
        self.hostFingerprint = hostFingerprint
        self.meetingPoints = meetingPoints
    }
}

/// Where a pairing code stands.
public enum CodeStatus: Codable, Sendable, Equatable {
    /// Open; `wrongTries` CPace runs were answered and not confirmed.
    case waiting(wrongTries: Int)
    /// A controller proved the code; its pairing handshake is under way.
    case proven(controllerName: String, fingerprint: String)
    case paired(controllerName: String, fingerprint: String)
    case ended(reason: String)
}

public struct InviteSummary: Codable, Sendable, Equatable {
    public var invite: String
    public var hostFingerprint: String
    public var hostName: String
    public var addresses: [String]
    public var expiresAt: Date

    public init(invite: String, hostFingerprint: String, hostName: String, addresses: [String], expiresAt: Date) {
        self.invite = invite
        self.hostFingerprint = hostFingerprint
        self.hostName = hostName
        self.addresses = addresses
        self.expiresAt = expiresAt
    }
}

public struct ControllerSummary: Codable, Sendable, Equatable {
    public var name: String
    public var fingerprint: String
    public var pairedAt: Date
    public var lastSeen: Date?
    public var liveSessions: Int

    public init(name: String, fingerprint: String, pairedAt: Date, lastSeen: Date?, liveSessions: Int) {
        self.name = name
        self.fingerprint = fingerprint
        self.pairedAt = pairedAt
        self.lastSeen = lastSeen
        self.liveSessions = liveSessions
    }
}

public struct ServerStatus: Codable, Sendable, Equatable {
    public var hostName: String
    public var fingerprint: String
    public var listening: [String]
    public var liveSessions: Int
    public var openInvites: Int

    public init(hostName: String, fingerprint: String, listening: [String], liveSessions: Int, openInvites: Int) {
        self.hostName = hostName
        self.fingerprint = fingerprint
        self.listening = listening
        self.liveSessions = liveSessions
        self.openInvites = openInvites
    }
}

public struct SessionSummary: Codable, Sendable, Equatable {
    public var id: UInt64
    public var controllerName: String
    public var since: Date
    public var viewOnly: Bool
    /// Averages over the session's life so far.
    public var updatesPerSecond: Double
    public var bytesPerSecond: Double
    public var roundTripMilliseconds: Double?
    /// The path as the host's pacing measures it: delivery rate (bytes/s) and how long frames wait
    /// in queues (ms); nil until frames have shown them.
    public var deliveryRate: Double?
    public var queueMilliseconds: Double?

    public init(id: UInt64, controllerName: String, since: Date, viewOnly: Bool, updatesPerSecond: Double, bytesPerSecond: Double,
                roundTripMilliseconds: Double?, deliveryRate: Double? = nil, queueMilliseconds: Double? = nil) {
        self.deliveryRate = deliveryRate
        self.queueMilliseconds = queueMilliseconds
        self.id = id
        self.controllerName = controllerName
        self.since = since
        self.viewOnly = viewOnly
        self.updatesPerSecond = updatesPerSecond
        self.bytesPerSecond = bytesPerSecond
        self.roundTripMilliseconds = roundTripMilliseconds
    }
}
