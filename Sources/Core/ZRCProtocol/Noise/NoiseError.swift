/// The one error type of the Noise layer.
///
/// `kind` is for code (a caller switches on it to decide between "close the connection", "tell the
/// user the host key changed" and "fix the configuration"); `message` is for a person. Messages
/// name the step that failed and never contain key bytes: errors end up in logs.
public struct NoiseError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable, CaseIterable {
        /// The protocol name is not of the form `Noise_<pattern>_<dh>_<cipher>_<hash>`.
        case invalidProtocolName
        /// Well-formed, but names a pattern, modifier or primitive this implementation lacks.
        case unsupportedPattern
        /// A key or psk has the wrong length or encoding.
        case invalidKey
        /// A public key is a small-order X25519 point, or a DH produced the all-zero output.
        case lowOrderPoint
        /// The pattern needs a key (local static, remote static, psk) that was not supplied.
        case missingKey
        /// A key was supplied that the pattern never uses; refused so nobody believes it is checked.
        case unexpectedKey
        /// A message or plaintext exceeds the Noise limit of 65535 bytes.
        case messageTooLarge
        /// A message is shorter than the keys and tags its pattern step requires.
        case messageTooShort
        /// Authentication failed: tampered, replayed, reordered, or from the wrong key.
        case decryptFailed
        /// A message was written or read when it is the other side's turn.
        case wrongTurn
        /// The handshake is finished: split it into a transport instead.
        case handshakeComplete
        /// The handshake is not finished yet, so it cannot be split into a transport.
        case handshakeIncomplete
        /// An earlier step failed; the handshake cannot be resumed or retried.
        case handshakeFailed
        /// A one-way pattern (N, K, X) lets only the initiator send.
        case oneWayPattern
        /// The 64-bit nonce is used up; the connection must be closed (or re-handshaken).
        case nonceExhausted
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { "Noise: \(message)" }
}
