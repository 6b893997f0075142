/// Collects the peer's first bytes until its preamble can be judged, then hands over the rest.
struct PreambleReader: Sendable {
    let localRole: PeerRole
    private var received: [UInt8] = []
    private(set) var isComplete = false

    init(localRole: PeerRole) {
        self.localRole = localRole
    }

    /// Returns the bytes after the preamble once it is accepted, nil while more are needed.
    mutating func feed(_ bytes: some Collection<UInt8>) throws(SessionError) -> [UInt8]? {
        precondition(!isComplete, "the preamble was already read")
        received.append(contentsOf: bytes)
        switch Preamble.parse(received, localRole: localRole) {
        case .needMoreBytes:
            return nil
        case .ok:
            isComplete = true
            let rest = Array(received.dropFirst(Preamble.length))
            received = []
            return rest
        case .error(let error):
            throw SessionError.from(error)
        }
    }
}
