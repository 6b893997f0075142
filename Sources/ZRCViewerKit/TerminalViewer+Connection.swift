import ZRCControllerKit
import ZRCProtocol
import ZRCViewer

extension TerminalViewer {
    /// Keeps a session with the host: connects, follows it until it ends, and reconnects after
    /// 2 s, 4 s, 8 s, then every 10 s, unless trying again cannot help (a revoked controller, a
    /// long streak of unverified refusals), in which case the viewer stops with the explanation.
    func superviseConnection() async {
        var backoff = ReconnectBackoff()
        var policy = ReconnectPolicy()
        var attempt = 0
        while exit == nil, !Task.isCancelled {
            if attempt == 0 {
                status.state = .connecting
                requestRender()
            }
            let decision: ReconnectDecision
            do {
                let session = try await openSession(configuration.viewOnly)
                backoff.succeeded()
                policy.succeeded()
                attempt = 0
                attach(session)
                for await event in session.events {
                    switch event {
                    case .frame: sink.yield(.frameArrived)
                    case .message(.error(let code, let text)):
                        logger.notice("the host says: \(code): \(TerminalSafeText.sanitized(text))")
                        if code == .clipboardUnavailable { clipboardGate.requestFailed() }
                        if code == .clipboardRefused || code == .clipboardUnavailable { showNotice(text) }
                    case .message(.hello(_, let capabilities, _)):
                        mapper.clipboardAvailable = configuration.clipboard && capabilities.contains(.clipboard) && !mapper.viewOnly
                    case .message(.clipboard(let content)):
                        await received(content)
                    case .message, .ended: break
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
                if case .retry = decision, case .rejected = error.kind { showNotice(error.message, seconds: 8) }
            }
            switch decision {
            case .stop(let message):
                status.state = .stopped(message)
                sink.yield(.finish(.stopped(message)))
                return
            case .retry(let reason):
                attempt += 1
                let delay = backoff.nextDelay()
                var remaining = Int(delay.components.seconds)
                while remaining > 0, exit == nil, !Task.isCancelled {
                    status.state = .reconnecting(seconds: remaining, attempt: attempt, reason: reason)
                    requestRender()
                    try? await Task.sleep(for: .seconds(1))
                    remaining -= 1
                }
            }
        }
    }

    private func attach(_ session: ControllerSession) {
        self.session = session
        let viewOnly = configuration.viewOnly || session.granted.contains(.viewOnly)
        mapper.viewOnly = viewOnly
        mapper.clipboardAvailable = false  // until the host's hello says it shares one
        status.state = .connected(viewOnly: viewOnly)
        status.path = session.path.description
        status.roundTripMillis = nil
        shownVersion = 0
        picture = ViewerPicture()
        needsFullRedraw = true
        lastReceivedTotal = 0
        requestRender()
    }
}
