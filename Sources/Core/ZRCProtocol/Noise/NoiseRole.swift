/// Which side of a Noise handshake we are. The initiator always writes the first message.
public enum NoiseRole: Sendable, Hashable, CaseIterable {
    case initiator
    case responder

    /// The side that writes handshake message `index` (0-based): Noise patterns alternate,
    /// starting with the initiator.
    static func writer(ofMessage index: Int) -> NoiseRole {
        index.isMultiple(of: 2) ? .initiator : .responder
    }
}
