import ZRCControllerKit
import ZRCNetworking
import ZRCProtocol
import ZRCViewer
import Logging

extension TerminalViewer {
    /// Drives the viewer core (`ViewerCore`, shared with the browser viewer): opens sessions when
    /// it says, follows each until it ends, counts down each second while it waits, and carries
    /// out its actions.
    func superviseConnection() async {
        await perform(core.start())
        while exit == nil, !Task.isCancelled {
            guard let wake = core.nextWake else { return }
            let now = WireClock.monotonicMicros()
            showWaiting(now: now)
            try? await Task.sleep(for: .microseconds(Int64(min(wake > now ? wake - now : 0, 1_000_000))))
            await perform(core.handle(.tick, now: WireClock.monotonicMicros()))
        }
    }

    /// The status line while the core waits before its next attempt.
    private func showWaiting(now: UInt64) {
        guard case .waiting(let until, let attempt, let reason) = core.connection else { return }
        status.state = .reconnecting(seconds: Int(((until > now ? until - now : 0) + 999_999) / 1_000_000), attempt: attempt, reason: reason)
        requestRender()
    }

    /// Carries out the core's actions, in order.
    func perform(_ actions: [ViewerCore.Action]) async {
        for action in actions {
            switch action {
            case .open(let viewOnly):
                if case .connecting(1) = core.connection {
                    status.state = .connecting
                    requestRender()
                }
                do {
                    let session = try await openSession(viewOnly)
                    guard exit == nil else {
                        await session.close(text: "the viewer was closed")
                        return
                    }
                    attach(session)
                    await perform(core.handle(.opened(viewOnly: session.granted.contains(.viewOnly), path: session.path.description),
                                              now: WireClock.monotonicMicros()))
                    await follow(session)
                    let end = await session.waitUntilEnded()
                    self.session = nil
                    guard exit == nil else { return }
                    logger.notice("session ended: \(end)")
                    await perform(core.handle(.ended(end), now: WireClock.monotonicMicros()))
                } catch {
                    logger.notice("could not connect: \(error.message)")
                    await perform(core.handle(.openFailed(error), now: WireClock.monotonicMicros()))
                }
            case .send(let events):
                await send(events)
            case .requestClipboard:
                guard let session else { break }
                do {
                    try await session.send(.clipboardRequest(.clipboard))
                    showNotice("asking the host for its clipboard…")
                } catch {
                    showNotice("the request did not reach the host: \(error.message)")
                }
            case .writeClipboard(let text):
                await copyToTerminal(.text(text))
            case .notice(let text, let seconds):
                showNotice(text, seconds: UInt64(seconds))
            case .monitors:
                break  // the terminal cycles through them (Ctrl+] m) and names the one shown
            case .show(let area):
                shownArea = area
                showArea()
            case .closeSession:
                await session?.close(text: "the viewer was closed")
            case .finish(let message):
                status.state = .stopped(message)
                sink.yield(.finish(.stopped(message)))
            }
        }
    }

    /// The session's events until it ends.
    private func follow(_ session: ControllerSession) async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.watch(session.feed) }
            await followEvents(session)
        }
    }

    /// Draws again whenever the session pushes a frame, a pointer change or a link measurement.
    private func watch(_ feed: ViewerFeed) async {
        while await feed.changed() { requestRender() }
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
                mapper.clipboardAvailable = core.clipboardAvailable
            case .message(.clipboard(let content)):
                await perform(core.handle(.hostClipboard(content), now: now))
            case .message(.monitorLayout(let layout)):
                await perform(core.handle(.monitorLayout(layout), now: now))
            case .message, .ended:
                break
            }
        }
    }

    /// Confines the view to the monitor chosen (or shows all), from the start.
    func showArea() {
        mapper.viewport.show(region: shownArea.map { (Int($0.x), Int($0.y), Int($0.width), Int($0.height)) })
        status.zoom = 1
        needsFullRedraw = true
        needsClear = true
        requestRender()
    }

    private func attach(_ session: ControllerSession) {
        self.session = session
        let viewOnly = configuration.viewOnly || session.granted.contains(.viewOnly)
        mapper.viewOnly = viewOnly
        mapper.clipboardAvailable = false  // until the host's hello says it shares one
        status.state = .connected(viewOnly: viewOnly)
        status.path = session.path.description
        status.roundTripMillis = nil
        requestedPicture = nil
        picture = ViewerPicture()
        needsFullRedraw = true
        lastReceivedTotal = 0
        requestRender()
    }
}
