public import ZRCControllerKit
public import ZRCProtocol

/// Whether the viewer tries again after losing its host, and what it tells the user.
public enum ReconnectDecision: Sendable, Equatable {
    /// Try again after the backoff; `reason` is shown meanwhile.
    case retry(reason: String)
    /// Give up and leave the viewer with this explanation: trying again cannot succeed (this
    /// controller was revoked, inside an authenticated session) or someone chose to end it.
    case stop(String)

    /// After a connection attempt failed. Refusals before the host is authenticated (reject
    /// records, a peer that does not speak ZRC) are unverified: anyone on the path can send one,
    /// so they are retried with backoff and shown as unverified; `ReconnectPolicy` stops only
    /// after a long streak of them.
    public static func after(_ error: ControllerError) -> ReconnectDecision {
        switch error.kind {
        case .unreachable: .retry(reason: "host unreachable")
        case .connectionLost, .handshakeFailed, .closed, .closedByHost: .retry(reason: "connection failed")
        case .rejected(let reason): .retry(reason: "refused: \(reason.shortName) (unverified)")
        case .wrongPeer: .retry(reason: "not a ZRC host there (unverified)")
        case .storage, .invalidInvite, .nameInUse: .stop(error.message)
        }
    }

    /// After an established session ended: the host's words here are authenticated.
    public static func after(_ end: ConnectionEnd) -> ReconnectDecision {
        switch end {
        // Texts from the host are the peer's words: sanitized before any terminal sees them.
        case .remote(.revoked, let text):
            .stop("the host revoked this controller (\(TerminalSafeText.sanitized(text))); pair again with a new invite from `zrc-host pair`")
        case .remote(.replaced, _):
            .stop("another controller took over the session")
        case .remote(.versionMismatch, let text):
            .stop("the host speaks another protocol version: \(TerminalSafeText.sanitized(text))")
        case .remote(.shuttingDown, _): .retry(reason: "the host shut down")
        case .remote: .retry(reason: "the host closed the session")
        case .local(.normal, let text): .stop("closed here (\(text))")
        // This side gave up on the connection (the host stopped reading, a frame did not decode):
        // a fresh session starts clean.
        case .local(_, let text): .retry(reason: text)
        case .peerTimedOut: .retry(reason: "the host stopped answering")
        case .connectionLost: .retry(reason: "connection lost")
        case .failed: .retry(reason: "protocol failure")
        }
    }
}

/// `ReconnectDecision` with memory: an unverified refusal is retried, but after
/// `unverifiedStreakLimit` attempts in a row that all ended in one (about 5 minutes with the
/// backoff: 2, 4, 8, then 10 s) the viewer stops with the last one's full explanation. A session
/// that opens, or any other failure in between, starts the count again.
public struct ReconnectPolicy: Sendable {
    public static let unverifiedStreakLimit = 30
    public private(set) var unverifiedStreak = 0

    public init() {}

    public mutating func after(_ error: ControllerError) -> ReconnectDecision {
        let decision = ReconnectDecision.after(error)
        switch error.kind {
        case .rejected, .wrongPeer:
            unverifiedStreak += 1
            guard unverifiedStreak < Self.unverifiedStreakLimit else {
                return .stop("\(error.message) (refused the same way \(unverifiedStreak) times in a row; stopped trying)")
            }
        case .unreachable, .connectionLost, .handshakeFailed, .closed, .closedByHost, .storage, .invalidInvite, .nameInUse:
            unverifiedStreak = 0
        }
        return decision
    }

    public mutating func after(_ end: ConnectionEnd) -> ReconnectDecision {
        unverifiedStreak = 0
        return ReconnectDecision.after(end)
    }

    /// A session opened.
    public mutating func succeeded() { unverifiedStreak = 0 }
}
