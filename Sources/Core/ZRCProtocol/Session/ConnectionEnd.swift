/// How a connection ended, as seen from one side.
public enum ConnectionEnd: Sendable, Equatable, CustomStringConvertible {
    /// We closed it (sent `close`).
    case local(reason: CloseReason, text: String)
    /// The peer sent `close`; `text` is the peer's and is sanitized whenever it is shown.
    case remote(reason: CloseReason, text: String)
    /// Nothing heard from the peer within the dead-peer timeout.
    case peerTimedOut
    /// The TCP connection went away without a `close`.
    case connectionLost
    /// The peer broke the protocol or a record failed authentication.
    case failed(SessionError)

    public var description: String {
        switch self {
        case .local(let reason, let text): "closed here (\(reason)\(text.isEmpty ? "" : ": \(text)"))"
        case .remote(let reason, let text):
            "closed by the peer (\(reason)\(text.isEmpty ? "" : ": \(TerminalSafeText.sanitized(text))"))"
        case .peerTimedOut: "the peer stopped answering"
        case .connectionLost: "the connection was lost"
        case .failed(let error): "protocol failure: \(TerminalSafeText.sanitized(error.message))"
        }
    }
}
