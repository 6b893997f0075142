import ZRCControllerKit
import ZRCFrames
import ZRCProtocol

/// Bounded waits on a controller session, shared by the screen suites. They wake on the session's
/// `ViewerFeed` (every composed frame, pointer change and link measurement), so they look again
/// when something arrived, never on a timer. The feed has one viewer: one wait per session at a time.
enum SessionWaits {
    /// What woke a wait on the feed.
    enum Wake { case changed, deadline, ended }

    /// Returns when the session publishes something new (at once if it did since the previous
    /// wait), at `deadline`, or when it ends.
    static func next(_ session: ControllerSession, before deadline: ContinuousClock.Instant) async -> Wake {
        await withTaskGroup(of: Wake.self) { group in
            group.addTask { await session.feed.changed() ? .changed : .ended }
            group.addTask {
                try? await Task.sleep(until: deadline, clock: .continuous)
                return .deadline
            }
            let first = await group.next() ?? .deadline
            group.cancelAll()
            return first
        }
    }

    /// Whether `condition` held within `deadline`, looked at now and whenever the session
    /// published something (a frame, the pointer, link figures).
    static func until(_ session: ControllerSession, within deadline: Duration = .seconds(30),
                      _ condition: () async -> Bool) async -> Bool {
        let end = ContinuousClock.now + deadline
        while true {
            if await condition() { return true }
            if await next(session, before: end) != .changed { return await condition() }
        }
    }

    /// The newest frame once it satisfies `condition`, within `deadline`; nil if none did.
    static func frame(_ session: ControllerSession, within deadline: Duration = .seconds(30),
                      where condition: (ComposedFrame) -> Bool) async -> ComposedFrame? {
        var found: ComposedFrame?
        _ = await until(session, within: deadline) {
            guard let frame = await session.pollFrame(), condition(frame) else { return false }
            found = frame
            return true
        }
        return found
    }

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
            // Until the next update, or until the quiet period after a refinement is over.
            let wake = await next(session, before: refined ? min(quietSince + quiet, deadline) : deadline)
            if let newer = await session.pollFrame(newerThan: version) {
                version = newer.version
                refined = isRefinement(newer.quality)
                quietSince = clock.now
            } else if wake == .ended {
                return nil
            }
            if refined, clock.now - quietSince >= quiet { return version }
        }
        return nil
    }

    /// Whether `session` shows exactly `expected` within `deadline` (generous: the suites run in
    /// parallel on two cores).
    static func shows(_ session: ControllerSession, _ expected: PixelBuffer, within deadline: Duration = .seconds(30)) async -> Bool {
        await frame(session, within: deadline) { $0.pixels == expected } != nil
    }

    /// Motion updates stay at or below quality 80; refinements are 92 (JPEG 4:4:4) or 0 (no JPEG:
    /// lossless raw rects, or only solid ones).
    static func isRefinement(_ quality: Int) -> Bool { quality == 0 || quality >= 90 }

    /// Whether the host sends the notice `code` within `deadline`, before the session ends: woken
    /// by the session's events, not by a timer.
    static func notice(_ code: NoticeCode, from session: ControllerSession, within deadline: Duration = .seconds(60)) async -> Bool {
        await first(within: deadline, orElse: false) {
            for await event in session.events {
                switch event {
                case .message(.error(let sent, _)) where sent == code: return true
                case .ended: return false
                case .message: continue
                }
            }
            return false
        }
    }

    /// How the session ended, once it did within `deadline` (nil: still open then).
    static func end(of session: ControllerSession, within deadline: Duration = .seconds(60)) async -> ConnectionEnd? {
        await first(within: deadline, orElse: nil) { await session.waitUntilEnded() }
    }

    /// What `work` returns, or `fallback` when `deadline` comes first (`work` is then cancelled).
    private static func first<T: Sendable>(within deadline: Duration, orElse fallback: T, _ work: @escaping @Sendable () async -> T) async -> T {
        await withTaskGroup(of: T.self) { group in
            group.addTask(operation: work)
            group.addTask {
                try? await Task.sleep(for: deadline)
                return fallback
            }
            let result = await group.next() ?? fallback
            group.cancelAll()
            return result
        }
    }

    /// Whether the host answers the session's input with "input refused" before the session ends.
    static func inputRefused(_ session: ControllerSession) async -> Bool {
        for await event in session.events {
            if case .message(.error(let code, _)) = event, code == .inputRefused { return true }
        }
        return false
    }
}
