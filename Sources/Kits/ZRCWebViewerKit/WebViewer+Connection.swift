import ZRCControllerKit
import ZRCNetworking
import ZRCProtocol
import ZRCViewer
import ZRCViewerKit
import ZRCWebViewer
import Logging

extension WebViewer {
    /// Drives the viewer core: opens sessions when it says, follows each until it ends, wakes
    /// when it waits (each second, for the countdown in the status bar), and carries out its actions.
    func superviseConnection() async {
        await perform(core.start())
        while exit == nil, !Task.isCancelled {
            guard let wake = core.nextWake else { return }
            let now = WireClock.monotonicMicros()
            // Each second, for the countdown; at the wake time, the next attempt.
            let sleep = min(wake > now ? wake - now : 0, 1_000_000)
            try? await Task.sleep(for: .microseconds(Int64(sleep)))
            await perform(core.handle(.tick, now: WireClock.monotonicMicros()))
            sendStatus()
        }
    }

    /// Carries out the core's actions, in order.
    func perform(_ actions: [ViewerCore.Action]) async {
        for action in actions {
            switch action {
            case .open(let viewOnly):
                sendStatus()
                do {
                    let session = try await openSession(viewOnly)
                    guard exit == nil else {
                        await session.close(text: "the viewer ended")
                        return
                    }
                    attach(session)
                    await perform(core.handle(.opened(viewOnly: session.granted.contains(.viewOnly), path: session.path.description),
                                              now: WireClock.monotonicMicros()))
                    sendHello()
                    sendStatus()
                    await follow(session)
                    let end = await session.waitUntilEnded()
                    self.session = nil
                    logger.notice("session ended: \(end)")
                    await perform(core.handle(.ended(end), now: WireClock.monotonicMicros()))
                } catch {
                    logger.notice("could not connect: \(error.message)")
                    await perform(core.handle(.openFailed(error), now: WireClock.monotonicMicros()))
                }
                sendStatus()
            case .send(let events):
                await send(events)
            case .requestClipboard:
                try? await session?.send(.clipboardRequest(.clipboard))
            case .writeClipboard(let text):
                page?.send(.clipboard(text))
            case .notice(let text, let seconds):
                showNotice(text, seconds: seconds)
            case .monitors(let layout):
                state.monitors = layout
                page?.send(.monitors(layout))
            case .show:
                break  // the page chooses its monitor itself, no round trip (view.js)
            case .closeSession:
                await session?.close(text: "the viewer ended")
            case .finish(let reason):
                sendStatus()
                stop(.stopped(reason))
            }
        }
    }

    /// The session's events until it ends.
    private func follow(_ session: ControllerSession) async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.watch(session) }
            await followEvents(session)
        }
    }

    /// Frames and pointer changes as the session pushes them (newest only).
    private func watch(_ session: ControllerSession) async {
        while await session.feed.changed() {
            guard self.session === session else { return }
            framesReceived = session.feed.framesComposed
            pushCursor(session.feed.cursor, force: false)
            await acknowledgeUnshown()
            await pump()
        }
    }

    private func followEvents(_ session: ControllerSession) async {
        for await event in session.events {
            let now = WireClock.monotonicMicros()
            switch event {
            case .message(.error(let code, let text)):
                logger.notice("the host says: \(code): \(TerminalSafeText.sanitized(text))")
                await perform(core.handle(.hostError(code, text), now: now))
            case .message(.hello(_, let capabilities, _)):
                await perform(core.handle(.hostHello(capabilities), now: now))
                sendHello()
            case .message(.clipboard(let content)):
                await perform(core.handle(.hostClipboard(content), now: now))
            case .message(.monitorLayout(let layout)):
                await perform(core.handle(.monitorLayout(layout), now: now))
            case .message, .ended:
                break
            }
        }
    }

    private func attach(_ session: ControllerSession) {
        self.session = session
        state.sessionStarted(path: session.path.description)
        watchFileTerms(session)
        if let wanted = state.wantedPicture {
            Task { await session.requestPicture(wanted) }
        }
    }

    func sendHello() {
        page?.send(.hello(PageHello(viewOnly: core.isViewOnly, clipboard: core.clipboardShared, hostLabel: configuration.hostName)))
    }
}
