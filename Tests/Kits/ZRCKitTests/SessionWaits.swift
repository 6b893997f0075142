import ZRCControllerKit
import ZRCFrames
import ZRCProtocol

/// Bounded waits on a controller session, shared by the screen suites.
enum SessionWaits {
    /// The frame version once the newest update is a refinement (quality 90 or more: still areas
    /// re-sent losslessly or at high quality) and no update has arrived for `quiet` after it; nil
    /// if that does not happen within 15 s. Quiet time alone is not enough: on a loaded machine the
    /// refinement, due 100 ms after a change, can arrive later than any fixed quiet period.
    static func settledVersion(_ session: ControllerSession, quiet: Duration = .milliseconds(400)) async -> UInt64? {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(15)
        let newest = await session.pollFrame()
        var version = newest?.version ?? 0
        var refined = newest.map { isRefinement($0.quality) } ?? false
        var quietSince = clock.now
        while clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
            if let newer = await session.pollFrame(newerThan: version) {
                version = newer.version
                refined = isRefinement(newer.quality)
                quietSince = clock.now
            } else if refined, clock.now - quietSince >= quiet {
                return version
            }
        }
        return nil
    }

    /// Whether `session` shows exactly `expected` within `deadline` (generous: the suites run in
    /// parallel on two cores), looking every 10 ms.
    static func shows(_ session: ControllerSession, _ expected: PixelBuffer, within deadline: Duration = .seconds(30)) async -> Bool {
        let end = ContinuousClock.now + deadline
        while ContinuousClock.now < end {
            if await session.pollFrame()?.pixels == expected { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return await session.pollFrame()?.pixels == expected
    }

    /// Motion updates stay at or below quality 80; refinements are 92 (JPEG 4:4:4) or 0 (no JPEG:
    /// lossless raw rects, or only solid ones).
    static func isRefinement(_ quality: Int) -> Bool { quality == 0 || quality >= 90 }

    /// Whether the host answers the session's input with "input refused" before the session ends.
    static func inputRefused(_ session: ControllerSession) async -> Bool {
        for await event in session.events {
            if case .message(.error(let code, _)) = event, code == .inputRefused { return true }
        }
        return false
    }
}
