import ZRCControllerKit
import ZRCNetworking
import ZRCProtocol
import ZRCViewer
import ZRCViewerKit
import ZRCWebViewer

extension WebViewer {
    /// Keeps a session with the host, as the terminal viewer does: reconnects after 2 s, 4 s, 8 s,
    /// then every 10 s, unless trying again cannot help, in which case the viewer stops and says why.
    func superviseConnection() async {
        var backoff = ReconnectBackoff()
        var policy = ReconnectPolicy()
        while exit == nil, !Task.isCancelled {
            let decision: ReconnectDecision
            do {
                let session = try await openSession(configuration.viewOnly)
                backoff.succeeded()
                policy.succeeded()
                attach(session)
                for await event in session.events {
                    switch event {
                    case .frame:
                        framesReceived += 1
                        await acknowledgeUnshown()
                        await pump()
                    case .message(.error(let code, let text)):
                        logger.notice("the host says: \(code): \(TerminalSafeText.sanitized(text))")
                        if code == .clipboardUnavailable { clipboardGate.requestFailed() }
                        if code == .clipboardRefused || code == .clipboardUnavailable { showNotice(text) }
                    case .message(.hello(_, let capabilities, _)):
                        clipboardAvailable = configuration.clipboard && capabilities.contains(.clipboard) && !isViewOnly
                        page?.send(.hello(PageHello(viewOnly: isViewOnly, clipboard: clipboardAvailable, hostLabel: configuration.hostName)))
                    case .message(.clipboard(let content)):
                        received(content)
                    case .message, .ended:
                        break
                    }
                }
                let end = await session.waitUntilEnded()
                self.session = nil
                guard exit == nil else { return }
                decision = policy.after(end)
                logger.notice("session ended: \(end)")
            } catch {
                decision = policy.after(error)
                logger.notice("could not connect: \(error.message)")
                if case .retry = decision, case .rejected = error.kind { showNotice(error.message) }
            }
            switch decision {
            case .stop(let message):
                state.connection = .ended(message)
                sendStatus()
                stop(.stopped(message))
                return
            case .retry(let reason):
                var remaining = Int(backoff.nextDelay().components.seconds)
                while remaining > 0, exit == nil, !Task.isCancelled {
                    state.connection = .reconnecting(seconds: remaining, reason: reason)
                    sendStatus()
                    try? await Task.sleep(for: .seconds(1))
                    remaining -= 1
                }
                state.connection = .connecting
                sendStatus()
            }
        }
    }

    private func attach(_ session: ControllerSession) {
        self.session = session
        clipboardAvailable = false  // until the host's hello says it shares one
        keyboard = BrowserKeyboard()
        state.sessionStarted(path: session.path.description)
        if let wanted = state.wantedPicture {
            Task { await session.requestPicture(wanted) }
        }
        page?.send(.hello(PageHello(viewOnly: isViewOnly, clipboard: false, hostLabel: configuration.hostName)))
        sendStatus()
    }

    /// A host clipboard message: into the page only as the policy says.
    private func received(_ content: ClipboardContent) {
        guard clipboardAvailable else { return }
        switch clipboardGate.receive(content, now: WireClock.monotonicMicros()) {
        case .write(let content):
            if let text = content.text { page?.send(.clipboard(text)) }
        case .offer(let text):
            showNotice(text)
        case .drop:
            break
        }
    }
}
