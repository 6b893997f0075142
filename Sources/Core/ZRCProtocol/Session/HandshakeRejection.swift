/// Why a host refused a handshake, sent in a reject record (type 0x03) before it closes.
///
/// A reject record is unauthenticated — anyone on the path can send one — so the controller
/// reports it as an unverified claim, may back off, never gives up for good on one, and never
/// changes what it trusts because of it.
public enum HandshakeRejection: UInt16, Sendable, Hashable, CaseIterable {
    case hostKeyMismatch = 1
    case notAuthorized = 2
    case replayedHandshake = 3
    case inviteInvalid = 4
    case refusedByPolicy = 5
    case malformed = 6
    case inviteBusy = 7
    /// The host has too many connections being set up (from this address, or in all).
    case busy = 8
    /// `timestampMicros` is further from the host's clock than it allows.
    case clockSkew = 9
    /// This controller already holds the most sessions the host allows one controller.
    case tooManySessions = 10

    public var body: [UInt8] { [UInt8(rawValue >> 8), UInt8(rawValue & 0xFF)] }

    public static func decode(_ body: [UInt8]) -> HandshakeRejection? {
        guard body.count == 2 else { return nil }
        return HandshakeRejection(rawValue: UInt16(body[0]) << 8 | UInt16(body[1]))
    }

    /// A few words for a status line.
    public var shortName: String {
        switch self {
        case .hostKeyMismatch: "host key mismatch"
        case .notAuthorized: "not authorized"
        case .replayedHandshake: "replayed handshake"
        case .inviteInvalid: "invite invalid"
        case .refusedByPolicy: "refused by policy"
        case .malformed: "malformed handshake"
        case .inviteBusy: "invite busy"
        case .busy: "busy"
        case .clockSkew: "clock skew"
        case .tooManySessions: "too many sessions"
        }
    }

    /// What the controller's user is told.
    public var explanation: String {
        switch self {
        case .hostKeyMismatch:
            "the host could not decrypt our handshake: its identity key is not the one pinned when this controller "
                + "paired with it. This happens when the host was reinstalled or its key was reset — or when someone "
                + "is intercepting the connection. Nothing was sent. If you expected the change, pair again: "
                + "`zrc-ctl forget NAME`, then `zrc-ctl pair --name NAME` with a new invite from `zrc-host pair`"
        case .notAuthorized:
            "the host does not know this controller (it was never paired, or it was revoked); pair again with a new invite from `zrc-host pair`"
        case .replayedHandshake:
            "the host refused the handshake as a replay: it had seen its timestamp before, or the timestamp was more than "
                + "10 s older than the newest it accepted from this controller. Check that this machine's clock did not go back"
        case .inviteInvalid:
            "the host refused the invite: it is unknown, expired or already used. Ask for a new one with `zrc-host pair`"
        case .inviteBusy:
            "another pairing attempt is using this invite right now; try again in a few seconds"
        case .refusedByPolicy:
            "another controller is in control of the host, and the host's policy refuses further sessions until it ends"
        case .malformed:
            "the host could not parse our handshake; are both sides running compatible ZRC versions?"
        case .busy:
            "the host is busy: too many connections are being set up right now (it may be under a connection flood); try again in a few seconds"
        case .clockSkew:
            "the host refused the handshake because this machine's clock differs too much from the host's (2 minutes by default): "
                + "set both clocks right (NTP) and try again"
        case .tooManySessions:
            "this controller already has the most sessions the host allows one controller (4 by default); close one and try again"
        }
    }
}
