public import ZRCFrames
import ZRCNetworking
public import ZRCProtocol

/// Something that happened on a session, in order.
public enum ControllerEvent: Sendable {
    case message(ZRCMessage)
    case ended(ConnectionEnd)
}

/// An established, authenticated connection to a host, seen from the controller.
public actor ControllerSession {
    public nonisolated let hostName: String
    public nonisolated let sessionID: UInt64
    public nonisolated let granted: SessionFlags
    /// Every message the host sends (except keepalive traffic) and finally the end.
    public nonisolated let events: AsyncStream<ControllerEvent>
    /// Frames, pointer and link measurements for the session's viewer, newest only.
    public nonisolated let feed = ViewerFeed()
    /// The session's file requests (when the controller announced `fileTransfer`).
    public nonisolated let files: FileTransferClient
    private let eventSink: AsyncStream<ControllerEvent>.Continuation
    private(set) var connection: SecureConnection?
    private var pingWaiters: [UInt64: CheckedContinuation<UInt64, any Error>] = [:]
    /// Ping IDs of explicit pings live in the upper half so they never meet keepalive IDs.
    private var nextPingID: UInt64 = 1 << 63
    public private(set) var end: ConnectionEnd?
    /// The host asked the person at it to accept this session and has not sent a frame since
    /// (commands waiting for a picture wait longer meanwhile).
    public private(set) var awaitingApproval = false
    /// The path the session runs over (`direct TCP …`, `ICE direct (srflx)`, `relay via …`).
    public nonisolated let path: TransportPath
    private var endWaiters: [CheckedContinuation<ConnectionEnd, Never>] = []
    private var compositor: FrameCompositor
    private var cursor = RemoteCursor()
    /// How many cursor shapes arrived (each shape is sent once).
    public private(set) var cursorShapesReceived = 0
    /// Which rect encodings the host has used so far (as capability bits).
    public private(set) var encodingsReceived: Capabilities = []
    private var decoder: (any RegionDecoder)?
    /// The path as the host's pacing last measured it (nil until the host reports it).
    public private(set) var linkStats: LinkStats?
    /// What the host announced in its hello (nil until it arrives).
    public private(set) var hostCapabilities: Capabilities?
    /// The picture last asked for, sent again if the host's hello comes after the request.
    private var wantedPicture: PictureRequest?
    private var sentPicture: PictureRequest?
    /// The previous update's frame ID, send time and screen size, which compact frames leave out.
    private var frameContext = CompactFrameContext()
    /// The host's newest credentials for its relays, and who keeps them (the controller's store).
    public private(set) var relayCredentials: [RelayCredential] = []
    private var relayCredentialsKeeper: (@Sendable ([RelayCredential]) async -> Void)?

    /// `keeper` is told of every list of relay credentials the host sends, also one that came
    /// before this call.
    func keepRelayCredentials(_ keeper: @escaping @Sendable ([RelayCredential]) async -> Void) async {
        relayCredentialsKeeper = keeper
        if !relayCredentials.isEmpty { await keeper(relayCredentials) }
    }

    /// Asks the host for pictures of at most this size and region (a host that cannot scale keeps
    /// sending the whole screen; `ComposedFrame.mapping` says what arrived). Repeats are not sent.
    public func requestPicture(_ request: PictureRequest) async {
        wantedPicture = request
        guard let hostCapabilities, hostCapabilities.contains(.scaledPictures), request != sentPicture else { return }
        sentPicture = request
        try? await send(.pictureRequest(request))
    }

    init(response: HandshakeResponsePayload, decoder: (any RegionDecoder)?, path: TransportPath, tracksExactness: Bool = false,
         viewerAcknowledges: Bool = false) {
        compositor = FrameCompositor(tracksExactness: tracksExactness)
        self.viewerAcknowledges = viewerAcknowledges
        self.path = path
        self.decoder = decoder
        hostName = TerminalSafeText.sanitized(response.hostName)
        sessionID = response.sessionID
        granted = response.granted
        (events, eventSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1024))
        let link = FileLink()
        files = FileTransferClient { messages in await link.send(messages) }
        fileLink = link
    }

    /// How the file client reaches the connection without holding the session.
    private let fileLink: FileLink

    func attach(_ connection: SecureConnection) {
        self.connection = connection
        fileLink.attach(connection)
    }

    /// Every message of one read was delivered (the file client acknowledges what arrived).
    func caughtUp() async {
        await files.caughtUp()
    }

    func deliver(_ message: ZRCMessage) async {
        if case .pong(let id, _, _) = message, let waiter = pingWaiters.removeValue(forKey: id) {
            waiter.resume(returning: WireClock.monotonicMicros())
            return
        }
        switch message {
        case .fileTerms, .fileEntries, .fileReady, .fileData, .fileAck, .fileEnd, .fileDone, .fileFailed:
            // Never through the events stream, which keeps only the newest 1024.
            await files.received(message)
            return
        case .error(.awaitingApproval, _):
            awaitingApproval = true
        case .frameUpdate(let update):
            frameContext.note(update)
            await received(update)
            return
        case .compactFrame(let frame):
            do {
                await received(try frameContext.expand(frame))
            } catch {
                await connection?.close(reason: .protocolError, text: error.message)
            }
            return
        case .cursorShape(let shape):
            cursor.shape = shape
            cursorShapesReceived += 1
            feed.publish(cursor: cursor)
            return
        case .cursorPosition(let x, let y, let visible, _):
            cursor.x = x
            cursor.y = y
            cursor.visible = visible
            feed.publish(cursor: cursor)
            return
        case .pictureMapping(let mapping):
            compositor.adopt(mapping)
            return
        case .linkStats(let stats):
            linkStats = stats
            feed.publish(link: stats)
            return
        case .relayCredentials(let list):
            relayCredentials = list
            await relayCredentialsKeeper?(list)
            return
        case .hello(_, let capabilities, _):
            hostCapabilities = capabilities
            await files.hostHello(capabilities)
            if let wantedPicture { await requestPicture(wantedPicture) }
        default:
            break
        }
        eventSink.yield(.message(message))
    }

    /// An update, however it came (full or compact).
    private func received(_ update: FrameUpdate) async {
        awaitingApproval = false
        for rect in update.rects {
            switch rect.content {
            case .jpeg: encodingsReceived.insert(.jpegRects)
            case .solid: encodingsReceived.insert(.solidRects)
            case .raw: encodingsReceived.insert(.rawRects)
            case .lossless: encodingsReceived.insert(.losslessRects)
            case .copy: encodingsReceived.insert(.copyRects)
            case .losslessFrame: encodingsReceived.insert(.losslessFrames)
            case .losslessRestart: encodingsReceived.insert(.sharedLosslessStream)
            }
        }
        await compose(update)
    }

    /// Applies an update and acknowledges it, which lets the host send the next one.
    private func compose(_ update: FrameUpdate) async {
        let received = WireClock.monotonicMicros()
        guard var decoder else {
            await connection?.close(reason: .protocolError, text: "this controller cannot decode frames")
            return
        }
        // A frame the viewer has not taken would make the compositor copy the whole picture.
        feed.reclaim()
        do {
            try compositor.apply(update, decoder: &decoder)
            self.decoder = decoder
            lastReceipt = (received, WireClock.monotonicMicros())
            feed.publish { taken in composedFrame(changedSince: taken) }
        } catch {
            await connection?.close(reason: .protocolError, text: "a frame update could not be applied: \(error)")
            return
        }
        if viewerAcknowledges {
            unacknowledged.append(PendingAck(version: compositor.version, frameID: update.frameID, received: received, decoded: lastReceipt.decoded))
            // A host that ignores its window of unacknowledged updates cannot grow this list.
            if unacknowledged.count > Self.maximumUnacknowledged {
                await acknowledgeFrames(through: unacknowledged[unacknowledged.count - Self.maximumUnacknowledged - 1].version)
            }
        } else {
            try? await connection?.send(.frameAck(frameID: update.frameID, receivedMicros: received, decodedMicros: lastReceipt.decoded))
        }
    }

    /// A decoded update the viewer has not shown yet (`viewerAcknowledges`).
    struct PendingAck {
        let version: UInt64
        let frameID: UInt64
        let received: UInt64
        let decoded: UInt64
    }

    static let maximumUnacknowledged = 64

    /// The viewer has shown the picture up to `version`: acknowledges every update that went into
    /// it, which lets the host send more. Only for sessions whose viewer acknowledges.
    public func acknowledgeFrames(through version: UInt64) async {
        while let first = unacknowledged.first, first.version <= version {
            unacknowledged.removeFirst()
            try? await connection?.send(.frameAck(frameID: first.frameID, receivedMicros: first.received, decodedMicros: first.decoded))
        }
    }

    /// Acknowledges only the oldest update the viewer has shown (if any), so the host may send
    /// one more: for a viewer that is behind and paces the host by its drawing.
    public func acknowledgeOldestFrame(through version: UInt64) async {
        guard let first = unacknowledged.first, first.version <= version else { return }
        unacknowledged.removeFirst()
        try? await connection?.send(.frameAck(frameID: first.frameID, receivedMicros: first.received, decodedMicros: first.decoded))
    }

    /// Bytes received over the connections this session had (kept when one ends).
    var receivedTotal = 0
    private let viewerAcknowledges: Bool
    private var unacknowledged: [PendingAck] = []
    private var lastReceipt: (received: UInt64, decoded: UInt64) = (0, 0)

    /// The remote pointer, for viewers that draw it themselves.
    public func pollCursor() -> RemoteCursor { cursor }

    /// The newest composed frame if it is newer than `version` (latest wins: intermediate frames
    /// a slow viewer did not poll are never shown).
    ///
    /// The pixels are shared with the session until it applies the next update, which then has
    /// to copy them if the caller still holds them: keep a frame only as long as it is needed.
    public func pollFrame(newerThan version: UInt64 = 0) -> ComposedFrame? {
        guard compositor.version > version else { return nil }
        return newestFrame(changedSince: version)
    }

    /// The newest composed frame, even if it is not newer than `version`, with the areas changed
    /// since then (none when it is that version); nil before the first frame.
    public func newestFrame(changedSince version: UInt64) -> ComposedFrame? {
        guard compositor.version > 0 else { return nil }
        return composedFrame(changedSince: version)
    }

    private func composedFrame(changedSince version: UInt64) -> ComposedFrame {
        let (capture, encodeDone, send) = compositor.lastTimestamps
        return ComposedFrame(pixels: compositor.framebuffer, version: compositor.version, frameID: compositor.lastFrameID,
                             captureMicros: capture, encodeDoneMicros: encodeDone, sendMicros: send,
                             receivedMicros: lastReceipt.received, decodedMicros: lastReceipt.decoded, dirty: compositor.lastDirty,
                             changedSince: compositor.changes(since: version), plan: compositor.plan(since: version),
                             quality: compositor.lastQuality,
                             mapping: compositor.mapping, inexactPixels: compositor.lossMask?.inexactPixels)
    }

    func finished(_ end: ConnectionEnd) {
        guard self.end == nil else { return }
        self.end = end
        connection = nil
        fileLink.attach(nil)
        let files = files
        Task { await files.sessionEnded("\(end)") }
        for waiter in pingWaiters.values {
            waiter.resume(throwing: ControllerError(.connectionLost, "the session ended before the host answered: \(end)"))
        }
        pingWaiters = [:]
        eventSink.yield(.ended(end))
        eventSink.finish()
        feed.close()
        endWaiters.forEach { $0.resume(returning: end) }
        endWaiters = []
    }

    public func send(_ message: ZRCMessage) async throws(ControllerError) {
        guard let connection else { throw Self.ended(end) }
        do {
            try await connection.send(message)
        } catch {
            throw Self.ended(await connection.endReason)
        }
    }

    /// Says why the session is gone, e.g. "the session ended: closed by the peer (revoked: …)".
    private static func ended(_ end: ConnectionEnd?) -> ControllerError {
        guard let end else { return ControllerError(.closed, "the session is closed") }
        if case .remote = end { return ControllerError(.closedByHost, "the session ended: \(end)") }
        return ControllerError(.connectionLost, "the session ended: \(end)")
    }

    /// Sends a ping and returns the round-trip time measured on this machine's monotonic clock.
    public func ping(timeout: Duration = .seconds(5)) async throws(ControllerError) -> Duration {
        let id = nextPingID
        nextPingID &+= 1
        guard let connection else { throw Self.ended(end) }
        let sentAt = WireClock.monotonicMicros()
        let timer = Task {
            try? await Task.sleep(for: timeout)
            self.expirePing(id, after: timeout)
        }
        defer { timer.cancel() }
        do {
            // The waiter is registered before the ping leaves, so neither the pong nor the end of
            // the session can slip past it.
            let receivedAt = try await withCheckedThrowingContinuation { continuation in
                pingWaiters[id] = continuation
                Task { await self.sendPing(id: id, sentAt: sentAt, over: connection) }
            }
            return .microseconds(Int64(receivedAt &- sentAt))
        } catch let error as ControllerError {
            throw error
        } catch {
            throw ControllerError(.connectionLost, "\(error)")
        }
    }

    private func sendPing(id: UInt64, sentAt: UInt64, over connection: SecureConnection) async {
        do {
            try await connection.send(.ping(id: id, sentAtMicros: sentAt))
        } catch {
            pingWaiters.removeValue(forKey: id)?.resume(throwing: Self.ended(await connection.endReason))
        }
    }

    private func expirePing(_ id: UInt64, after timeout: Duration) {
        pingWaiters.removeValue(forKey: id)?.resume(
            throwing: ControllerError(.connectionLost, "the host did not answer a ping within \(timeout)"))
    }

    /// Ends the session with `close(normal)`.
    public func close(text: String = "closed by the controller") async {
        await connection?.close(reason: .normal, text: text)
    }

    public func waitUntilEnded() async -> ConnectionEnd {
        if let end { return end }
        return await withCheckedContinuation { endWaiters.append($0) }
    }
}
