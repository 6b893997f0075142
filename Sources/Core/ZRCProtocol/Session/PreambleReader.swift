/// Collects the peer's first bytes until its preamble can be judged, then hands over the rest.
struct PreambleReader: Sendable {
    let localRole: PeerRole
    private var received: [UInt8] = []
    private(set) var isComplete = false
    /// The peer's 8 preamble bytes exactly as received, once complete (they enter the prologue).
    private(set) var preamble: [UInt8] = []

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
            preamble = Array(received.prefix(Preamble.length))
            let rest = Array(received.dropFirst(Preamble.length))
            received = []
            return rest
        case .error(let error):
            throw SessionError.from(error)
        }
    }
}

/// The records a peer sends, behind its preamble: one reader for both handshake sides, whose
/// record decoder then carries on into the secure channel (a record may arrive in the same read
/// as the last handshake message).
struct PeerRecordReader: Sendable {
    private var preamble: PreambleReader
    private(set) var decoder = RecordDecoder()

    init(localRole: PeerRole) {
        preamble = PreambleReader(localRole: localRole)
    }

    var preambleComplete: Bool { preamble.isComplete }

    /// The peer's preamble bytes, once they have arrived.
    var peerPreamble: [UInt8]? { preamble.isComplete ? preamble.preamble : nil }

    /// Every complete record in what has arrived so far.
    mutating func feed(_ bytes: some Collection<UInt8>) throws(SessionError) -> [Record] {
        var data = Array(bytes)
        if !preamble.isComplete {
            guard let rest = try preamble.feed(data) else { return [] }
            data = rest
        }
        do {
            return try decoder.feed(data)
        } catch {
            throw SessionError.from(error)
        }
    }
}
