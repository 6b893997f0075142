import Foundation
import Logging
import NIOCore
import ZRCFrames
import ZRCNetworking
import ZRCProtocol

/// An authenticated controller session.
///
/// Message 1 authenticated the controller's key, but a replayed message 1 does too: a session
/// only becomes real with the controller's `hello`, its first authenticated transport message,
/// which must arrive within the handshake timeout. Only then is it listed, marked seen, given
/// control (if it was granted and nobody took it meanwhile) and streamed to; anything else
/// first is a protocol error.
struct SessionFlow: Sendable {
    let server: HostServer
    let sessionID: UInt64
    let controllerKey: NoisePublicKey
    let controllerName: String
    let agent: String
    let granted: SessionFlags
    /// Where the session came from; once it is real, that address may use the reserved slots.
    let source: AdmissionSource
    let logger: Logger

    static let agentString = "zrc-host/0.1 (linux)"

    /// What this host announces: every rect encoding and the cursor when it shares a screen,
    /// text input when it accepts input, the clipboard when it shares one.
    var hostCapabilities: Capabilities {
        let clipboard: Capabilities = server.configuration.clipboard == nil ? [] : .clipboard
        guard let sharing = server.configuration.sharing else { return clipboard }
        let screen: Capabilities = [.jpegRects, .solidRects, .rawRects, .losslessRects, .copyRects, .losslessFrames, .cursorShape, .scaledPictures,
                                    .linkStats, .monitors]
        return (sharing.input == nil ? screen : screen.union([.textInput, .extendedButtons])).union(clipboard)
    }

    func run(channel: consuming SecureChannel, inbound: inout NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator,
             outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>, nioChannel: any Channel, remote: String) async {
        var logger = logger
        logger[metadataKey: "controller"] = "\(controllerName)"
        logger[metadataKey: "session"] = "\(sessionID)"
        let sharing = server.configuration.sharing
        let runtime = SessionRuntime(viewOnly: granted.contains(.viewOnly))
        let handshakeTimeout = server.configuration.handshakeTimeout
        let end = await SecureConnectionLoop.run(
            channel: channel, inbound: &inbound, outbound: outbound, nioChannel: nioChannel, remoteAddress: remote,
            timings: server.configuration.timings, logger: logger,
            started: { connection in
                try? await connection.send(.hello(protocolVersion: WireLimits.protocolVersion, capabilities: hostCapabilities,
                                                  agent: Self.agentString))
                await runtime.expectHello(within: handshakeTimeout, connection: connection)
            }
        ) { [logger] message, connection in
            if case .hello(_, let capabilities, let agent) = message {
                guard await runtime.helloArrived() else { return }  // a repeated hello changes nothing
                await begin(connection: connection, capabilities: capabilities, agent: agent, runtime: runtime, logger: logger)
                return
            }
            guard await runtime.isEstablished else {
                await connection.close(reason: .protocolError, text: "the controller's first message must be hello, not \(message.type)")
                return
            }
            await handle(message, connection: connection, runtime: runtime, logger: logger)
        }
        await runtime.stop()
        await sharing?.source.viewerLeft(ScreenViewer(id: sessionID))
        // Only the controlling session can have pressed anything; a watcher leaving must not
        // release the keys the controlling session holds.
        if await runtime.hasControl { await sharing?.input?.releaseAll() }
        await server.closeSession(sessionID, controller: controllerKey)
        logger.notice("session ended: \(end)")
    }

    /// The controller's hello: the session becomes real.
    private func begin(connection: SecureConnection, capabilities: Capabilities, agent: String, runtime: SessionRuntime,
                       logger: Logger) async {
        if !granted.contains(.viewOnly) {
            if await server.claimControl(session: sessionID, controller: controllerKey) {
                await runtime.tookControl()
            } else {
                // Another controller's hello came first.
                switch server.configuration.policy {
                case .refuse:
                    await connection.close(reason: .policyRefused, text: "another controller took control first")
                    return
                case .viewOnly:
                    await runtime.demote()
                    try? await connection.send(.error(code: .inputRefused,
                                                      text: "another controller took control first: this session is view-only"))
                }
            }
        }
        let link = SessionLink()
        let viewOnly = await runtime.viewOnly
        let clipboard = server.configuration.clipboard.flatMap { !viewOnly || $0.inViewOnlySessions ? $0 : nil }
        await runtime.allowClipboard(clipboard)
        guard await server.register(sessionID: sessionID, controllerKey: controllerKey, name: controllerName,
                                    connection: connection, link: link, viewOnly: viewOnly,
                                    receivesClipboard: clipboard != nil && capabilities.contains(.clipboard))
        else {
            await connection.close(reason: .revoked, text: "this controller's access was revoked on the host")
            return
        }
        logger.notice("session started (\(agent))")
        await server.sourceAuthenticated(source)
        // A day's credentials for the host's relays, renewed at every session.
        if let credentials = server.configuration.reach?.relayCredentials(controllerKey), !credentials.isEmpty {
            try? await connection.send(.relayCredentials(credentials))
        }
        do {
            try await server.controllers.markSeen(publicKey: controllerKey, at: Date())
        } catch {
            logger.warning("could not record when \(controllerName) was last seen: \(error)")
        }
        // Frames go only to controllers that can draw them, in what both sides announced
        // (`zrc-ctl ping` announces no rect encoding and gets none).
        let shared = capabilities.intersection(hostCapabilities)
        guard let sharing = server.configuration.sharing, !shared.intersection(Capabilities.rectEncodings).isEmpty else { return }
        guard !shared.isDisjoint(with: Capabilities.pictureEncodings) else {
            // Solid or copy rects alone cannot show a screen: say so rather than stay silent.
            try? await connection.send(.error(code: .unsupported,
                                              text: "this host sends the screen as JPEG, lossless or raw rectangles; this controller takes none of them"))
            return
        }
        do {
            await runtime.start(try SessionStreamer(viewer: ScreenViewer(id: sessionID), sharing: sharing, capabilities: shared,
                                                    connection: connection, link: link, logger: logger))
        } catch {
            logger.error("cannot stream the screen: \(error)")
            await connection.close(reason: .internalError, text: "the host cannot encode its screen")
        }
    }

    private func handle(_ message: ZRCMessage, connection: SecureConnection, runtime: SessionRuntime, logger: Logger) async {
        /// Notices are replies: a flood of messages that each earn one gets a bounded number.
        @Sendable func notify(_ code: NoticeCode, _ text: String) async {
            guard await runtime.mayNotify() else { return }
            try? await connection.send(.error(code: code, text: text))
        }
        switch message {
        case .frameAck(let frameID, _, _):
            await runtime.acknowledge(frameID)
        case .input(let event):
            guard let input = server.configuration.sharing?.input else {
                await notify(.unsupported, "this host does not accept input")
                return
            }
            guard await !runtime.viewOnly else {
                await notify(.inputRefused, "this session is view-only; input is ignored")
                return
            }
            // Every event is work on the shared X connection: a flood must not starve the
            // other sessions' capture. Far above what hands produce.
            guard await runtime.mayInject() else {
                await notify(.overloaded, "input arrives faster than \(Int(SessionRuntime.inputPerSecond)) events/s; the excess is dropped")
                return
            }
            await runtime.noteInput(event)
            do {
                try await input.inject(event)
            } catch {
                logger.warning("input not injected: \(error)")
                await notify(.untypeable, "the host could not inject that input: \(error)")
            }
        case .pictureRequest(let request):
            await runtime.requestPicture(request)
        case .clipboard(let content):
            guard let clipboard = await clipboardAccess(content.selection, verb: "set", notify: notify) else { return }
            guard content.text != nil else {
                await notify(.clipboardRefused, "clipboard content must be UTF-8 text (\(ClipboardContent.utf8Text)); this was not")
                return
            }
            do {
                try await clipboard.bridge.write(content)
                await server.clipboardChanged(content, source: sessionID)
            } catch {
                logger.warning("the clipboard was not set: \(error)")
                await notify(.clipboardRefused, "the host could not set its \(content.selection): \(error)")
            }
        case .clipboardRequest(let selection):
            guard let clipboard = await clipboardAccess(selection, verb: "read", notify: notify) else { return }
            // Beside the message loop: an application slow to hand over its text must not hold
            // up the session's pings, acks and input. Cancelled when the session ends.
            await runtime.beside {
                do {
                    try await connection.send(.clipboard(try await clipboard.bridge.read(selection)))
                } catch is CancellationError {
                    return
                } catch {
                    await notify(.clipboardUnavailable, "the host's \(selection) has no text to send: \(error)")
                }
            }
        case .pong, .stats, .error:
            break
        case .hello, .ping, .close, .pairRequest, .pairAccepted, .frameUpdate, .cursorShape, .cursorPosition, .pictureMapping, .linkStats,
             .relayCredentials, .monitorLayout:
            await notify(.unsupported, "this host does not handle \(message.type) messages")
        }

        /// The clipboard, when this session may use `selection`; otherwise the notice saying why not.
        func clipboardAccess(_ selection: ClipboardSelection, verb: String, notify: (NoticeCode, String) async -> Void) async
            -> ClipboardSharing? {
            let code: NoticeCode = verb == "read" ? .clipboardUnavailable : .clipboardRefused
            guard let configured = server.configuration.clipboard else {
                await notify(code, "this host does not share its clipboard")
                return nil
            }
            guard let clipboard = await runtime.clipboard else {
                await notify(code, "this session is view-only, and the host does not let watchers \(verb) its clipboard")
                return nil
            }
            // Watchers allowed the clipboard read it only: setting it would let a view-only
            // session put text where the controlling user's next paste types it.
            if verb == "set", await runtime.viewOnly {
                await notify(code, "this session is view-only: watchers may read the host's clipboard, never set it")
                return nil
            }
            guard configured.selections.contains(selection) else {
                await notify(code, "this host does not share its \(selection) selection")
                return nil
            }
            // Each one is X work and up to 1 MiB: far above what hands and scripts do.
            guard await runtime.mayUseClipboard() else {
                await notify(.overloaded, "clipboard requests arrive faster than \(Int(SessionRuntime.clipboardPerSecond))/s; the excess is dropped")
                return nil
            }
            return clipboard
        }
    }
}

/// What one session's flow keeps between messages: whether the hello came, control, and the
/// streamer, so the message handler can reach them and the end can stop them.
private actor SessionRuntime {
    private(set) var viewOnly: Bool
    private(set) var hasControl = false
    private(set) var isEstablished = false
    private var helloDeadline: Task<Void, Never>?
    private var streamer: SessionStreamer?
    private var task: Task<Void, Never>?
    static let inputPerSecond = 2000.0
    private var inputBudget = RequestBudget(perSecond: inputPerSecond, burst: 2 * inputPerSecond)
    private var noticeBudget = RequestBudget(perSecond: 20, burst: 40)
    static let clipboardPerSecond = 10.0
    private var clipboardBudget = RequestBudget(perSecond: clipboardPerSecond, burst: 2 * clipboardPerSecond)
    /// The clipboard, once the session is established and may use it.
    private(set) var clipboard: ClipboardSharing?

    init(viewOnly: Bool) {
        self.viewOnly = viewOnly
    }

    /// Closes the connection unless the controller's hello arrives within `timeout`.
    func expectHello(within timeout: Duration, connection: SecureConnection) {
        guard !isEstablished else { return }
        helloDeadline = Task {
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            await connection.close(reason: .timeout, text: "no hello within \(timeout) of the handshake")
        }
    }

    /// True for the first hello only.
    func helloArrived() -> Bool {
        guard !isEstablished else { return false }
        isEstablished = true
        helloDeadline?.cancel()
        helloDeadline = nil
        return true
    }

    func tookControl() { hasControl = true }

    func mayInject() -> Bool { inputBudget.allow(nowMicros: WireClock.monotonicMicros()) }

    func mayNotify() -> Bool { noticeBudget.allow(nowMicros: WireClock.monotonicMicros()) }

    func mayUseClipboard() -> Bool { clipboardBudget.allow(nowMicros: WireClock.monotonicMicros()) }

    func allowClipboard(_ clipboard: ClipboardSharing?) { self.clipboard = clipboard }

    /// Clipboard reads under way beside the message loop (at most `clipboardPerSecond` start a second).
    private var besideTasks: [UInt64: Task<Void, Never>] = [:]
    private var nextBeside: UInt64 = 0

    /// Runs `work` beside the message loop; `stop` cancels and awaits it.
    func beside(_ work: @escaping @Sendable () async -> Void) {
        let id = nextBeside
        nextBeside += 1
        besideTasks[id] = Task {
            await work()
            self.besideFinished(id)
        }
    }

    private func besideFinished(_ id: UInt64) { besideTasks[id] = nil }

    func demote() { viewOnly = true }

    func start(_ streamer: SessionStreamer) {
        guard self.streamer == nil else { return }
        self.streamer = streamer
        task = Task { await streamer.run() }
    }

    func acknowledge(_ frameID: UInt64) async { await streamer?.acknowledge(frameID) }

    func requestPicture(_ request: PictureRequest) async { await streamer?.requestPicture(request) }

    func noteInput(_ event: InputEvent) async { await streamer?.noteInput(event) }

    /// Cancels the streamer and the hello deadline and waits for the streamer, so nothing
    /// captures for the session after it ended.
    func stop() async {
        helloDeadline?.cancel()
        helloDeadline = nil
        let beside = besideTasks.values
        besideTasks = [:]
        for task in beside { task.cancel() }
        for task in beside { await task.value }
        let running = task
        task = nil
        streamer = nil
        running?.cancel()
        await running?.value
    }
}
