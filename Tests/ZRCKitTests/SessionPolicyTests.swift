import Foundation
import Testing
import ZRCControllerKit
import ZRCHostKit
import ZRCProtocol

/// One controlling session at a time; further controllers per policy; control passes on when the
/// controlling session ends; sessions are listed and can be ended through the control socket.
@Suite struct SessionPolicyTests {
    func pairedControllers(_ harness: HostHarness) async throws -> (ZRCController, ZRCController) {
        let (first, _) = harness.controller(name: "first")
        _ = try await first.pair(inviteText: try await harness.invite(), name: "desk")
        let (second, _) = harness.controller(name: "second")
        _ = try await second.pair(inviteText: try await harness.invite(), name: "desk")
        return (first, second)
    }

    @Test func aSecondControllerWatchesUntilTheFirstLeaves() async throws {
        let screen = FakeScreen(width: 64, height: 64)
        let harness = try HostHarness(sharing: ScreenSharing(source: screen, input: screen, makeEncoder: { RawRegionCodec() }))
        _ = try await harness.start()
        defer { Task { await harness.stop() } }
        let (first, second) = try await pairedControllers(harness)
        let controlling = try await first.connect(to: "desk")
        #expect(!controlling.granted.contains(.viewOnly))
        let watching = try await second.connect(to: "desk")
        #expect(watching.granted.contains(.viewOnly))

        _ = try await watching.ping()  // a keepalive round trip, so the listing has an RTT
        try await Task.sleep(for: .milliseconds(700))
        guard case .sessions(let sessions) = try await harness.request(.listSessions) else { throw HarnessError("no list") }
        #expect(sessions.map(\.controllerName) == ["first", "second"])
        #expect(sessions.map(\.viewOnly) == [false, true])
        #expect(sessions.allSatisfy { $0.bytesPerSecond > 0 })

        #expect(try await harness.request(.endSession(id: sessions[0].id)) == .sessionEnded(id: sessions[0].id))
        #expect(await controlling.waitUntilEnded() == .remote(reason: .normal, text: "the host's user ended this session"))
        await watching.close()
        _ = await watching.waitUntilEnded()
        try await Task.sleep(for: .milliseconds(200))
        let next = try await second.connect(to: "desk")
        #expect(!next.granted.contains(.viewOnly), "control passes on once the controlling session has ended")
        await next.close()
    }

    @Test func theRefusePolicyTurnsAwayASecondController() async throws {
        let screen = FakeScreen(width: 64, height: 64)
        let harness = try HostHarness(sharing: ScreenSharing(source: screen, input: screen, makeEncoder: { RawRegionCodec() }),
                                      policy: .refuse)
        _ = try await harness.start()
        defer { Task { await harness.stop() } }
        let (first, second) = try await pairedControllers(harness)
        let controlling = try await first.connect(to: "desk")
        let error = await #expect(throws: ControllerError.self) { try await second.connect(to: "desk") }
        #expect(error?.kind == .rejected(.refusedByPolicy))
        let watcher = try await second.connect(to: "desk", viewOnly: true)
        #expect(watcher.granted.contains(.viewOnly), "asking for view-only is always allowed")
        await watcher.close()
        await controlling.close()
    }
}
