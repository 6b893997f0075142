import Glibc
import ZRCNetworking
import ZRCProtocol
import ZRCViewer
import Logging
import ZRCControllerKit
import ZRCTerminal

extension TerminalViewer {
    func handle(_ event: Event) async {
        switch event {
        case .input(let bytes):
            await handleTerminalEvents(parser.feed(bytes))
            if parser.hasPendingEscape {
                escapeGeneration += 1
                let generation = escapeGeneration
                Task { [sink] in
                    try? await Task.sleep(for: .milliseconds(50))
                    sink.yield(.escapeTimeout(generation: generation))
                }
            }
        case .escapeTimeout(let generation):
            if generation == escapeGeneration { await handleTerminalEvents(parser.flushPendingEscape()) }
        case .signal(SIGWINCH):
            do {
                try relayout()
                requestRender()
            } catch {
                exit = .stopped("the terminal's size cannot be read: \(error)")
            }
        case .signal(let number):
            exit = .signal(number)
        case .inputEnded:
            exit = .terminalClosed
        case .tick:
            await updateRates()
            requestRender()
        case .finish(let reason):
            exit = reason
        case .probeTimeout:
            break
        }
    }

    func handleTerminalEvents(_ events: [TerminalEvent]) async {
        for event in events {
            if case .reply = event { continue }  // a late answer to a capability query
            for action in mapper.handle(event) {
                switch action {
                case .send(let inputs):
                    await send(inputs)
                case .detach:
                    exit = .detached
                    return
                case .viewChanged:
                    status.zoom = mapper.viewport.zoom
                    requestRender()
                case .toggleHelp:
                    showHelp.toggle()
                    needsFullRedraw = true
                    needsClear = true
                    requestRender()
                case .setClipboard(let text):
                    guard let session else { break }
                    do {
                        try await session.send(.clipboard(.text(text)))
                        showNotice("pasted \(text.unicodeScalars.count) characters into the host's clipboard")
                    } catch {
                        showNotice("the paste did not reach the host: \(error.message)")
                    }
                case .notice(let text):
                    showNotice(text)
                case .takeHostClipboard:
                    await perform(core.handle(.takeClipboard, now: WireClock.monotonicMicros()))
                case .nextMonitor:
                    await perform(core.handle(.nextMonitor, now: WireClock.monotonicMicros()))
                }
            }
        }
    }

    /// Into this terminal's clipboard, with OSC 52.
    func copyToTerminal(_ content: ClipboardContent) async {
        guard let sequence = TerminalClipboard.osc52(content) else { return }
        do {
            try await writer.write(sequence)
            showNotice("copied \(content.data.count) bytes from the host's \(content.selection)")
        } catch {
            logger.debug("the clipboard was not written to the terminal: \(error)")
        }
    }

    /// A message on the status line for a few seconds.
    func showNotice(_ text: String, seconds: UInt64 = 4) {
        status.notice = text
        noticeUntilMicros = WireClock.monotonicMicros() + seconds * 1_000_000
        requestRender()
    }

    func send(_ inputs: [InputEvent]) async {
        guard let session else { return }
        do {
            for input in inputs { try await session.send(.input(input)) }
            if inputSentMicros == nil { inputSentMicros = WireClock.monotonicMicros() }
        } catch {
            logger.debug("input not sent: \(error)")
        }
    }

    private func updateRates() async {
        let now = WireClock.monotonicMicros()
        if let session {
            let total = await session.receivedBytes()
            bytesReceived.record(Double(max(0, total - lastReceivedTotal)), at: now)
            lastReceivedTotal = total
            if let roundTrip = await session.roundTrip() {
                status.roundTripMillis = Double(roundTrip.components.attoseconds / 1_000_000_000_000) / 1000
                    + Double(roundTrip.components.seconds) * 1000
            }
        }
        if let until = noticeUntilMicros, now > until {
            status.notice = nil
            noticeUntilMicros = nil
        }
        status.framesPerSecond = framesDrawn.rate(now: now)
        status.bytesPerSecond = bytesReceived.rate(now: now)
        // An input nobody answered with a frame within a second made no visible change.
        if let sent = inputSentMicros, now &- sent > 1_000_000 { inputSentMicros = nil }
    }
}
