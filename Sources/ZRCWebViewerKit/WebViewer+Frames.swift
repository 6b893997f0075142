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
        if let shown = state.drawn(version) { await session?.acknowledgeFrames(through: shown) }
        await pump()
    }

    /// With no page to show them, frames are acknowledged as they come (the host must not stall
    /// waiting for a tab that was closed); the next page gets the newest picture.
    func acknowledgeUnshown() async {
        guard page == nil, let session else { return }
        await session.acknowledgeFrames(through: .max)
    }
}
