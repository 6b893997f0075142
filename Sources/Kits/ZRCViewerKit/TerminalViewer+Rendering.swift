import ZRCControllerKit
import ZRCNetworking
import ZRCTerminal
import ZRCViewer
import ZRCProtocol

extension TerminalViewer {
    /// Draws whenever asked, at most `maximumFramesPerSecond` times a second; requests that arrive
    /// while a frame is being written collapse into one (latest wins).
    func renderLoop() async {
        let interval = Duration.seconds(1) / configuration.maximumFramesPerSecond
        let clock = ContinuousClock()
        for await _ in renderRequests {
            let started = clock.now
            do {
                try await render()
            } catch {
                sink.yield(.finish(.stopped("drawing failed: \(error)")))
                return
            }
            let elapsed = clock.now - started
            if elapsed < interval { try? await Task.sleep(for: interval - elapsed) }
        }
    }

    /// Input → frame latency for the status line: the first new frame after input was sent.
    private func noteInputAnswered() {
        guard let sent = inputSentMicros else { return }
        let millis = Double(WireClock.monotonicMicros() &- sent) / 1000
        status.inputToFrameMillis = status.inputToFrameMillis.map { $0 * 0.7 + millis * 0.3 } ?? millis
        inputSentMicros = nil
    }

    /// One frame: the newest picture (only what changed), the help box if shown, the status line,
    /// inside one synchronized update.
    func render() async throws {
        guard exit == nil, var renderer else { return }
        let area = self.area
        var output = Array(TerminalModes.beginFrame.utf8)
        if needsClear {
            output += "\u{1B}[0m\u{1B}[2J".utf8
            needsClear = false
            needsFullRedraw = true
        }
        var drewFrame = false
        if let session {
            // Pushed by the session, no hop into it; the frame is only borrowed for this render
            // (see ViewerFeed.take).
            let snapshot = session.feed.take()
            let frame = snapshot.frame
            let cursor = snapshot.cursor
            if let besides = configuration.transfersBeside, ContinuousClock.now - transfersRead >= .seconds(1) {
                transfersRead = .now
                status.transfers = besides()
            }
            if let link = snapshot.link, link.deliveryRate > 0 {
                status.pathRate = Double(link.deliveryRate)
                status.queueMillis = Double(link.queueMicros) / 1000
            }
            if let frame, snapshot.frameIsNew {
                noteInputAnswered()
                status.quality = frame.quality
                if frame.screenWidth != mapper.viewport.remoteWidth || frame.screenHeight != mapper.viewport.remoteHeight {
                    mapper.viewport.resizeRemote(width: frame.screenWidth, height: frame.screenHeight)
                    if shownArea != nil { showArea() }
                    status.zoom = 1
                }
            }
            // The host sends what is shown: the visible region, at the image's size in the terminal.
            let request = mapper.viewport.pictureRequest
            if !configuration.fullResolution, frame != nil, request != requestedPicture {
                requestedPicture = request
                await session.requestPicture(request)
            }
            let pointer = cursor.shape.flatMap { cursor.visible ? ViewerPicture.Pointer(shape: $0, x: cursor.x, y: cursor.y) : nil }
            let full = needsFullRedraw
            let changed = picture.update(frame: frame?.pixels, changedRemote: frame?.changedSince ?? [], pointer: pointer,
                                         viewport: mapper.viewport, mapping: frame?.mapping, full: full)
            // No frame: the session is applying the next one and pushes it right after.
            if frame != nil, let image = picture.image, area == self.area {
                if full { needsFullRedraw = false }
                if changed.map({ !$0.isEmpty }) ?? true {
                    output += try renderer.draw(image, changed: full ? nil : changed, in: area)
                    self.renderer = renderer
                    drewFrame = true
                }
            }
        }
        if showHelp { output += HelpOverlay.draw(in: area) }
        output += "\u{1B}[\(layout.statusRow + 1);1H\u{1B}[0;7m".utf8
        output += status.line(width: layout.columns).utf8
        output += "\u{1B}[0m".utf8
        output += TerminalModes.endFrame.utf8
        try await writer.write(output)
        if drewFrame { framesDrawn.record(at: WireClock.monotonicMicros()) }
    }
}
