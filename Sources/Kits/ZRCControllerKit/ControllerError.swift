public import ZRCProtocol

/// What can go wrong for a controller, with a message a person can act on and a kind a script
/// (or the reconnect logic) can switch on.
public struct ControllerError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The invite text is not a valid invite, or it expired.
        case invalidInvite
        /// No address of the host accepted a TCP connection.
        case unreachable
        /// The host refused the handshake (reason included).
        case rejected(HandshakeRejection)
        /// The peer is not a ZRC host or speaks another protocol version.
        case wrongPeer
        /// The handshake did not complete: timeout, tampering, or the host closed.
        case handshakeFailed
        /// The host closed an established session (reason in the message).
        case closedByHost
        /// The connection broke after it was established.
        case connectionLost
        /// A local file (trust store, config) could not be used.
        case storage
        /// The chosen name already belongs to another paired host.
        case nameInUse
        /// Misuse of the API, e.g. sending on a closed session.
        case closed
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
