/// Why a peer ends the session (u16 in `close`). Values this version does not know are kept in
/// `unknown` so a newer peer's reason can still be logged by number.
public enum CloseReason: Sendable, Hashable, RawRepresentable {
    case normal
    case shuttingDown
    case protocolError
    case timeout
    /// The controller's key was removed from the host's authorized list.
    case revoked
    /// Another controller took over the single active session.
    case replaced
    /// The host's policy refused the session (e.g. no viewers allowed now).
    case policyRefused
    case versionMismatch
    case internalError
    case unknown(UInt16)

    /// Known numbers always map to their named case, so `unknown` only ever holds unassigned values.
    public init(rawValue: UInt16) {
        switch rawValue {
        case 0: self = .normal
        case 1: self = .shuttingDown
        case 2: self = .protocolError
        case 3: self = .timeout
        case 4: self = .revoked
        case 5: self = .replaced
        case 6: self = .policyRefused
        case 7: self = .versionMismatch
        case 8: self = .internalError
        default: self = .unknown(rawValue)
        }
    }

    public var rawValue: UInt16 {
        switch self {
        case .normal: 0
        case .shuttingDown: 1
        case .protocolError: 2
        case .timeout: 3
        case .revoked: 4
        case .replaced: 5
        case .policyRefused: 6
        case .versionMismatch: 7
        case .internalError: 8
        case .unknown(let value): value
        }
    }

    // By number, so a hand-built `.unknown(0)` still equals `.normal`.
    public static func == (lhs: CloseReason, rhs: CloseReason) -> Bool { lhs.rawValue == rhs.rawValue }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
}
