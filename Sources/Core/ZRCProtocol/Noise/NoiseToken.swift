/// One token of a Noise message pattern (Noise spec §7.1).
public enum NoiseToken: String, Sendable, Hashable, CaseIterable {
    /// Send/receive an ephemeral public key.
    case e
    /// Send/receive a static public key (encrypted once a key exists).
    case s
    /// DH between the two ephemeral keys.
    case ee
    /// DH between the initiator's ephemeral and the responder's static key.
    case es
    /// DH between the initiator's static and the responder's ephemeral key.
    case se
    /// DH between the two static keys.
    case ss
    /// Mix in the next pre-shared key.
    case psk

    /// Whether the token is a Diffie-Hellman operation (and therefore a MixKey).
    var isDH: Bool {
        switch self {
        case .ee, .es, .se, .ss: true
        case .e, .s, .psk: false
        }
    }
}
