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
            case .hello, .ping, .pong, .close, .error, .pairRequest, .pairAccepted, .frameAck, .cursorPosition, .stats, .linkStats,
                 .clipboardRequest:
                nil
            }
        if let problem { throw WireError(.invalidValue, "\(type) message: \(problem)") }
    }
}
