import ZRCControllerKit
import ZRCFrames
import ZRCProtocol
import ZRCWebViewer

extension WebViewer {
    /// Sends the page the newest picture while it has fewer than `framesInFlight` undrawn: only
    /// what changed since the last one it was sent, newest wins (frames that came meanwhile are
    /// never sent on their own), the whole picture after a new session, a new page or a new size.
    func pump() async {
        guard !state.pumping else {
            state.pumpAgain = true
            return
        }
        state.pumping = true
        defer { state.pumping = false }
        repeat {
            state.pumpAgain = false
            guard let page, let session, state.inFlight < Self.framesInFlight else { return }
            // A frame the page may never draw is not taken: the session reclaims it before the next.
            let whole = state.needsWholePicture
            guard whole || session.feed.hasNewFrame else { return }
            guard let frame = session.feed.take().frame else { return }
            let mapping = frame.mapping ?? .identity(width: UInt32(frame.pixels.width), height: UInt32(frame.pixels.height))
            // The page repeats the host's moves (a scroll) on its own picture and gets only what is new.
            let plan = whole || mapping != state.sentMapping ? ChangePlan(repaint: [frame.pixels.bounds]) : frame.plan
            let version = state.nextPageVersion()
            page.send(.frame(PageFrame(version: version, mapping: mapping, pixels: frame.pixels, moves: plan.moves, rects: plan.repaint)))
            state.sent(sessionVersion: frame.version, mapping: mapping)
            framesSent += 1
        } while state.pumpAgain
    }

    /// The page drew up to `version`: room for the next frame.
    func pageDrew(_ version: UInt32) async {
        state.settleGeneration &+= 1
        if let shown = state.drawn(version), let session {
            // One of the host's updates acknowledged per drawing: while the screen changes faster
            // than the page paints, the host's window of unacknowledged updates stays full and it
            // sends one update per paint, instead of as fast as it captures (which the page would
            // only fold into fewer paints).
            await session.acknowledgeOldestFrame(through: shown)
            if !session.feed.hasNewFrame, state.inFlight == 0 { settle(session, through: shown) }
        }
        await pump()
    }

    /// Once nothing new has come for `settleDelay` after a drawing, everything shown is
    /// acknowledged: the host's window empties and it refines the still screen.
    private func settle(_ session: ControllerSession, through shown: UInt64) {
        let generation = state.settleGeneration
        Task {
            try? await Task.sleep(for: Self.settleDelay)
            guard generation == self.state.settleGeneration, self.session === session, !session.feed.hasNewFrame,
                  self.state.inFlight == 0 else { return }
            await session.acknowledgeFrames(through: shown)
        }
    }

    /// Longer than the gap between two updates of a moving screen at the rates a page paints.
    static let settleDelay = Duration.milliseconds(150)

    /// With no page to show them, frames are acknowledged as they come (the host must not stall
    /// waiting for a tab that was closed); the next page gets the newest picture.
    func acknowledgeUnshown() async {
        guard page == nil, let session else { return }
        await session.acknowledgeFrames(through: .max)
    }
}
