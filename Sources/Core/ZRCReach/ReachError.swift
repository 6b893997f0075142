public import ZRCProtocol

/// Why reaching a peer through the rendezvous, ICE or a relay failed, in words that name the
/// server or candidates involved (never a credential).
public struct ReachError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// A rendezvous broker could not be reached or refused us.
        case brokerUnavailable
        /// The host did not answer through the rendezvous in time (off, or not subscribed).
        case noAnswer
        /// The host answered that it is busy.
        case busy
        /// Candidate gathering or the connectivity checks failed.
        case iceFailed
        /// Settings that cannot work (a relay URL libnice cannot use, no server configured).
        case misconfigured
        /// The peer sent something malformed or unauthenticated.
        case protocolViolation
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
