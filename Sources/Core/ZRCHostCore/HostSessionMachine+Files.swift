import ZRCFrames
public import ZRCProtocol

/// The file side of a session: its terms once the role is settled, and the driver's reports on
/// file work, handed to the session's `FileTransferDesk`.
extension HostSessionMachine {
    /// The session's role is settled (after `begin`): the controller hears what it may transfer.
    public mutating func filesBegin() -> [HostSessionAction] {
        withEstablished { established -> [HostSessionAction] in
            guard let desk = established.files else { return [] }
            var terms = desk.policy.terms
            if established.role != Role.controlling { terms.directions = [] }
            return [.send(.fileTerms(terms))]
        } ?? []
    }

    /// Driver reports on file work (see `FileTransferDesk`).
    public mutating func fileReady(_ ready: FileReady) -> [HostSessionAction] { withFiles { desk, _ in desk.fileReady(ready) } ?? [] }

    public mutating func fileFailed(_ id: UInt32, _ code: FileErrorCode, _ text: String, keepPart: Bool) -> [HostSessionAction] {
        withFiles { desk, _ in desk.fileFailed(id, code, text, keepPart: keepPart) } ?? []
    }

    public mutating func listingEnded(_ id: UInt32) { withFiles { desk, _ in desk.listingEnded(id) } }

    public mutating func fileWritten(_ id: UInt32, through offset: UInt64, count: Int) -> [HostSessionAction] {
        withFiles { desk, _ in desk.written(id, through: offset, count: count) } ?? []
    }

    public mutating func fileCommitted(_ id: UInt32) -> [HostSessionAction] { withFiles { desk, _ in desk.committed(id) } ?? [] }

    public mutating func fileChunkSent(_ id: UInt32, end: UInt64, wireBytes: Int, now: UInt64) {
        withFiles { desk, pacer in desk.chunkSent(id, end: end, wireBytes: wireBytes, pacer: &pacer, now: now) }
    }

    /// The connection is gone: what the open file requests leave behind.
    public mutating func filesEnded() -> [HostSessionAction] {
        withEstablished { $0.files?.sessionEnded() ?? [] } ?? []
    }

    @discardableResult
    mutating func withFiles<T>(_ body: (inout FileTransferDesk, inout FramePacer) -> T) -> T? {
        withEstablished { established in established.withFiles { body(&$0, &$1) } } ?? nil
    }
}
