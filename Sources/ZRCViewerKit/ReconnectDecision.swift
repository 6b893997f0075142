public import ZRCControllerKit
public import ZRCProtocol

/// Whether the viewer tries again after losing its host, and what it tells the user.
public enum ReconnectDecision: Sendable, Equatable {
    /// Try again after the backoff; `reason` is shown meanwhile.
    case retry(reason: String)
    /// Give up and leave the viewer with this explanation: trying again cannot succeed (the host
    /// key changed, this controller was revoked) or someone chose to end it.
    case stop(String)

    /// After a connection attempt failed.
    public static func after(_ error: ControllerError) -> ReconnectDecision {
        switch error.kind {
        case .unreachable: .retry(reason: "host unreachable")
        case .connectionLost, .handshakeFailed, .closed, .closedByHost: .retry(reason: "connection failed")
        case .rejected(.refusedByPolicy): .retry(reason: "the host refuses further controllers now")
        case .rejected(.replayedHandshake), .rejected(.inviteBusy): .retry(reason: "handshake refused")
        case .rejected(.busy): .retry(reason: "the host is busy")
        case .rejected(.tooManySessions): .retry(reason: "this controller has too many sessions open on the host")
        case .rejected(.clockSkew): .stop(error.message)
        case .rejected(.hostKeyMismatch), .rejected(.notAuthorized), .rejected(.inviteInvalid), .rejected(.malformed), .wrongPeer,
             .storage, .invalidInvite, .nameInUse:
            .stop(error.message)
        }
    }

    /// After an established session ended.
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
