public import Logging
import ZRCControllerKit
import ZRCNetworking
import ZRCFrames
import ZRCProtocol
import ZRCViewer
public import ZRCViewerKit
import ZRCWebViewer

/// `zrc-ctl view NAME --web`: keeps the session with the host exactly as the terminal viewer
/// does (reconnects, view-only, clipboard policy) and shows it in a browser page, which is only a
/// local display: `zrc-ctl` stays the only end of the Noise session.
public actor WebViewer {
    let configuration: WebViewerConfiguration
    let openSession: SessionOpener
    let logger: Logger

    var session: ControllerSession?
    var page: PageLink?
    var exit: ViewerExit?
    var exitWaiters: [CheckedContinuation<ViewerExit, Never>] = []
    var state = WebViewerState()
    /// The page's file tickets and transfers.
    var files = PageFileDesk()
    /// The session logic shared with the terminal viewer.
    var core: ViewerCore
    /// Frames the page has been sent and not yet said it drew.
    static let framesInFlight = 2
    /// Updates the session decoded, and frames sent to pages (for `zrc-bench web`).
    public internal(set) var framesReceived = 0
    public internal(set) var framesSent = 0

    public init(configuration: WebViewerConfiguration, openSession: @escaping SessionOpener, logger: Logger) {
        self.configuration = configuration
        self.openSession = openSession
        self.logger = logger
        core = ViewerCore(viewOnly: configuration.viewOnly, clipboard: configuration.clipboard, clipboardFromHost: configuration.clipboardFromHost,
                          takeHint: "Take host clipboard")
    }

    /// Serves pages from `server` and keeps the session until the page disconnects, `stop` is
    /// called, or the session cannot go on.
    public func run(server: LocalPageServer) async -> ViewerExit {
        await withTaskGroup(of: Void.self) { group in
            server.routeFiles { self }
            group.addTask { try? await server.run { link in await self.adopt(link) } }
            let exit = await runSession()
            await server.close()
            group.cancelAll()
            return exit
        }
    }

    /// Keeps the session until the page disconnects, `stop` is called, or the session cannot go
    /// on, with pages handed over through `adopt` (the app's server routes them here).
    public func runSession() async -> ViewerExit {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.superviseConnection() }
            group.addTask { await self.tickStatus() }
            let exit = await self.waitForExit()
            await self.session?.close(text: "the viewer ended")
            self.page?.send(.end(.ended, reason: Self.describe(exit)))
            self.page?.close()
            group.cancelAll()
            return exit
        }
    }

    /// Ends the viewer (a signal, or the page's Disconnect).
    public func stop(_ exit: ViewerExit) {
        guard self.exit == nil else { return }
        _ = core.handle(.leave(Self.describe(exit)), now: WireClock.monotonicMicros())
        self.exit = exit
        exitWaiters.forEach { $0.resume(returning: exit) }
        exitWaiters = []
    }

    private func waitForExit() async -> ViewerExit {
        if let exit { return exit }
        return await withCheckedContinuation { exitWaiters.append($0) }
    }

    static func describe(_ exit: ViewerExit) -> String {
        switch exit {
        case .detached: "disconnected"
        case .signal: "zrc-ctl was stopped"
        case .stopped(let message): message
        case .terminalClosed: "zrc-ctl's terminal closed"
        }
    }

    // MARK: Pages

    /// A page connected: it takes over from the one before, which is told so.
    public func adopt(_ link: PageLink) {
        if let previous = page {
            previous.send(.end(.takenOver, reason: "another tab opened this viewer"))
            previous.close()
            logger.notice("browser viewer: a new tab took over")
        }
        page = link
        state.pageAdopted()
        sendHello()
        sendStatus()
        if !state.monitors.isEmpty { link.send(.monitors(state.monitors)) }
        sendFileTerms()
        if let session { pushCursor(session.feed.cursor, force: true) }
        Task {
            for await message in link.messages {
                await self.handle(message, from: link)
            }
            self.pageGone(link)
        }
        Task { await self.pump() }
    }

    private func pageGone(_ link: PageLink) {
        guard page === link else { return }
        page = nil
        // Whatever the page held is let go on the host, and frames no longer wait for it.
        Task {
            await self.releaseEverything()
            await self.acknowledgeUnshown()
        }
    }

    var isViewOnly: Bool { core.isViewOnly }

    // MARK: Status

    private func tickStatus() async {
        while !Task.isCancelled, exit == nil {
            try? await Task.sleep(for: .milliseconds(500))
            if let session {
                state.roundTrip = await session.roundTrip()
                state.noteReceived(total: await session.receivedBytes(), now: ContinuousClock.now)
            }
            sendStatus()
        }
    }

    func sendStatus() {
        page?.send(.status(state.statusJSON(host: configuration.hostName, connection: core.connection, viewOnly: core.isViewOnly, now: WireClock.monotonicMicros())))
    }

    func showNotice(_ text: String, seconds: Int = 4) {
        state.notice = (TerminalSafeText.sanitized(text), ContinuousClock.now + .seconds(seconds))
        sendStatus()
    }

    func pushCursor(_ cursor: RemoteCursor, force: Bool) {
        guard let page else { return }
        if force || cursor.shape?.shapeID != state.sentCursorShape || state.sentCursorShape == nil && cursor.shape != nil {
            state.sentCursorShape = cursor.shape?.shapeID
            page.send(.cursor(cursor.shape))
        }
        if force || cursor.visible != state.sentCursorVisible {
            state.sentCursorVisible = cursor.visible
            page.send(.cursorVisible(cursor.visible))
        }
    }
}

/// How `zrc-ctl view --web` runs.
public struct WebViewerConfiguration: Sendable {
    public var hostName: String
    public var viewOnly: Bool
    public var clipboard: Bool
    public var clipboardFromHost: Bool

    public init(hostName: String, viewOnly: Bool = false, clipboard: Bool = true, clipboardFromHost: Bool = false) {
        self.hostName = hostName
        self.viewOnly = viewOnly
        self.clipboard = clipboard
        self.clipboardFromHost = clipboardFromHost
    }
}
