import ZRCControllerKit
import ZRCProtocol

/// Bounded waits on a controller session, shared by the screen suites.
enum SessionWaits {
    /// The frame version once no update has arrived for `quiet`; nil if updates keep coming for
    /// 10 s. Refinements arrive a moment after a change, later on a loaded machine.
    static func settledVersion(_ session: ControllerSession, quiet: Duration = .milliseconds(400)) async -> UInt64? {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(10)
        var version = await session.pollFrame()?.version ?? 0
        var quietSince = clock.now
        while clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
            if let newer = await session.pollFrame(newerThan: version) {
                version = newer.version
                quietSince = clock.now
            } else if clock.now - quietSince >= quiet {
                return version
            }
        }
        return nil
    }

    /// Whether the host answers the session's input with "input refused" before the session ends.
    static func inputRefused(_ session: ControllerSession) async -> Bool {
        for await event in session.events {
            if case .message(.error(let code, _)) = event, code == .inputRefused { return true }
        }
        return false
    }
}
