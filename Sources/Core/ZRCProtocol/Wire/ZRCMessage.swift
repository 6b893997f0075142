/// An application message, carried (fragmented if needed) inside transport records after the
/// handshake. Encoded as u8 `MessageType` followed by the fields in declaration order, big-endian;
/// strings are u16 length + UTF-8 (≤ 4096 bytes). Schemas/wire-protocol.md has every layout.
///
/// Timestamps named `…Micros` are microseconds on the sending machine's monotonic clock; only
/// differences between values from the same clock are meaningful.
public enum ZRCMessage: Sendable, Equatable {
    /// First message of each side after the handshake.
    case hello(protocolVersion: UInt16, capabilities: Capabilities, agent: String)
    /// Either side; the other answers with `pong` echoing `id` and `sentAtMicros`.
    case ping(id: UInt64, sentAtMicros: UInt64)
    case pong(id: UInt64, pingSentAtMicros: UInt64, receivedAtMicros: UInt64)
    /// The sender ends the session; `text` is for people (logs, the controller's status line).
    case close(reason: CloseReason, text: String)
    /// A non-fatal notice, e.g. input refused in a view-only session. The session continues.
    case error(code: NoticeCode, text: String)
    /// Pairing: the controller names itself for the host's authorized list.
    case pairRequest(controllerName: String)
    /// Pairing: the host stored the controller's key; `hostName` is for the controller's known hosts.
    case pairAccepted(hostName: String)
    case frameUpdate(FrameUpdate)
    /// Host → controller (`compactFrames`): a frame update in few bytes, read with the session's
    /// `CompactFrameContext`.
    case compactFrame(CompactFrame)
    /// Controller → host: the update is on screen; `…Micros` on the controller's clock.
    case frameAck(frameID: UInt64, receivedMicros: UInt64, decodedMicros: UInt64)
    case cursorShape(CursorShape)
    /// Host → controller: pointer position in screen pixels and which shape to draw.
    case cursorPosition(x: Int32, y: Int32, visible: Bool, shapeID: UInt32)
    /// Controller → host: the size and region of the picture it shows (`scaledPictures`).
    case pictureRequest(PictureRequest)
    /// Host → controller: how the following frame updates map to the screen (`scaledPictures`).
    case pictureMapping(PictureMapping)
    /// Host → controller (`monitors`): the shared area's monitors, after `hello` and on change.
    case monitorLayout([MonitorArea])
    /// Controller → host.
    case input(InputEvent)
    /// Either side: measurements for display and adaptation. `updatesPerSecondMilli` is frames per
    /// second × 1000; `quality` is the current JPEG quality 0…100.
    case stats(rttMicros: UInt64, updatesPerSecondMilli: UInt32, bytesPerSecond: UInt64, quality: UInt8)
    /// Host → controller: the path as the host's pacing sees it (`linkStats`).
    case linkStats(LinkStats)
    /// Either way (`clipboard`): a selection's new content. Host → controller when an X client
    /// changed it or answering `clipboardRequest`; controller → host to set it.
    case clipboard(ClipboardContent)
    /// Controller → host (`clipboard`): send the selection's current content (answered with
    /// `clipboard`, or a `clipboardUnavailable` notice saying why not).
    case clipboardRequest(ClipboardSelection)
    /// Host → controller: time-limited credentials for the host's relays, for this controller's
    /// own allocations (kept for its next rendezvous offers). Sent in pairings and sessions.
    case relayCredentials([RelayCredential])
    /// Host → controller (`fileTransfer`): what this session may transfer, and the limits.
    case fileTerms(FileTerms)
    /// Controller → host: list the directory at `path` (or, `itself`, describe the path alone),
    /// answered with `fileEntries` or `fileFailed`.
    case fileList(requestID: UInt32, itself: Bool, path: String)
    /// Host → controller: a page of a listing (at most 256 entries); `final` on the last.
    case fileEntries(requestID: UInt32, final: Bool, entries: [FileEntry])
    /// Controller → host: start an upload or a download, answered with `fileReady` or `fileFailed`.
    case fileOpen(FileOpen)
    case fileReady(FileReady)
    /// The sender of a file (controller uploading, host downloading): `data` (≤ the terms'
    /// maxChunkBytes) at `offset`, which is where the previous chunk ended.
    case fileData(requestID: UInt32, offset: UInt64, data: [UInt8])
    /// The receiver: every byte before `offset` is written (the sender paces by these).
    case fileAck(requestID: UInt32, offset: UInt64)
    /// The sender: all data sent; `digest` is the whole file's BLAKE2b-256.
    case fileEnd(requestID: UInt32, digest: [UInt8])
    /// The receiver: the file is checked, synced and in place.
    case fileDone(requestID: UInt32)
    /// Either side: the request ended without success (`cancelled` when a side gives up).
    case fileFailed(requestID: UInt32, code: FileErrorCode, text: String)

    public var type: MessageType {
        switch self {
        case .hello: .hello
        case .ping: .ping
        case .pong: .pong
        case .close: .close
        case .error: .error
        case .pairRequest: .pairRequest
        case .pairAccepted: .pairAccepted
        case .frameUpdate: .frameUpdate
        case .compactFrame: .compactFrame
        case .frameAck: .frameAck
        case .cursorShape: .cursorShape
        case .cursorPosition: .cursorPosition
        case .pictureRequest: .pictureRequest
        case .pictureMapping: .pictureMapping
        case .monitorLayout: .monitorLayout
        case .input: .input
        case .stats: .stats
        case .linkStats: .linkStats
        case .clipboard: .clipboard
        case .clipboardRequest: .clipboardRequest
        case .relayCredentials: .relayCredentials
        case .fileTerms: .fileTerms
        case .fileList: .fileList
        case .fileEntries: .fileEntries
        case .fileOpen: .fileOpen
        case .fileReady: .fileReady
        case .fileData: .fileData
        case .fileAck: .fileAck
        case .fileEnd: .fileEnd
        case .fileDone: .fileDone
        case .fileFailed: .fileFailed
        }
    }

    /// Checks the invariants the decoder enforces (rects on screen, pixel counts, ranges). `encode()`
    /// requires them: sending a message the peer must reject is a bug on our side.
    public func validate() throws(WireError) {
        let problem: String? =
            switch self {
            case .frameUpdate(let update): update.problem()
            case .compactFrame(let frame): frame.problem()
            case .cursorShape(let shape): shape.problem()
            case .input(let event): event.problem()
            case .pictureRequest(let request): request.problem()
            case .pictureMapping(let mapping): mapping.problem()
            case .stats(_, _, _, let quality) where quality > 100: "quality is \(quality), must be 0…100"
            case .clipboard(let content): content.problem()
            case .relayCredentials(let list) where list.count > RelayCredential.maximumCount: "more than \(RelayCredential.maximumCount) relays"
            case .relayCredentials(let list): list.lazy.compactMap { $0.problem() }.first
            case .monitorLayout(let list) where !(1...MonitorArea.maximumCount).contains(list.count):
                "\(list.count) monitors, must be 1…\(MonitorArea.maximumCount)"
            case .monitorLayout(let list): list.lazy.compactMap { $0.problem() }.first
            case .fileTerms(let terms): terms.problem()
            case .fileList(_, _, let path) where path.utf8.count > FileTransferLimits.maxPathBytes: "a path longer than \(FileTransferLimits.maxPathBytes) bytes"
            case .fileEntries(_, _, let entries) where entries.count > FileTransferLimits.maxEntriesPerMessage:
                "\(entries.count) entries, limit is \(FileTransferLimits.maxEntriesPerMessage)"
            case .fileEntries(_, _, let entries): entries.lazy.compactMap { $0.problem() }.first
            case .fileOpen(let open): open.problem()
            case .fileReady(let ready): ready.problem()
            case .fileData(_, _, let data) where data.count > FileTransferLimits.maxChunkBytes:
                "\(data.count) bytes of file data, limit is \(FileTransferLimits.maxChunkBytes)"
            case .fileData(_, let offset, let data) where offset > FileTransferLimits.maxFileBytes - UInt64(data.count):
                "data at \(offset) ends beyond the largest file"
            case .fileEnd(_, let digest) where digest.count != FileTransferLimits.digestBytes: "a digest of \(digest.count) bytes"
            case .hello, .ping, .pong, .close, .error, .pairRequest, .pairAccepted, .frameAck, .cursorPosition, .stats, .linkStats,
                 .clipboardRequest, .fileList, .fileData, .fileAck, .fileEnd, .fileDone, .fileFailed:
                nil
            }
        if let problem { throw WireError(.invalidValue, "\(type) message: \(problem)") }
    }
}
