/// Failures of a connection's protocol layer (handshake and secure channel), with messages a
/// person can act on. Never contains key material.
public struct SessionError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The peer is not a ZRC peer, or speaks another protocol version.
        case wrongPeer
        /// The host sent a reject record.
        case rejected(HandshakeRejection)
        /// A handshake message failed to decrypt or authenticate.
        case handshakeFailed
        /// A transport record failed to decrypt: tampered, replayed, reordered or corrupted.
        case recordRejected
        /// The peer broke the protocol's rules (record out of place, malformed message, …).
        case protocolViolation
        /// This direction's nonces are exhausted; the connection must close.
        case nonceExhausted
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }

    static func from(_ error: WireError) -> SessionError {
        switch error.kind {
        case .notZRCPeer, .protocolVersionMismatch: SessionError(.wrongPeer, error.message)
        default: SessionError(.protocolViolation, "the peer broke the ZRC protocol: \(error.message)")
        }
    }

    static func from(_ error: NoiseError, during phase: String) -> SessionError {
        switch error.kind {
        case .nonceExhausted: SessionError(.nonceExhausted, "the connection used up its encryption nonces and must be reopened")
        default: SessionError(.handshakeFailed, "\(phase) failed: \(error.message)")
        }
    }
}
