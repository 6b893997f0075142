import Foundation
import Testing
import ZRCControllerKit
import ZRCFrames
import ZRCHostKit
import ZRCKitTesting

/// Several viewers of one real X server: in step they share updates (`SharedUpdates`) and every
/// picture stays exact; a viewer that comes after all others left sees the screen as it is now
/// (the source let go of its copy of the screen meanwhile).
extension X11SessionTests {
    @Test func viewersOfAScrollingScreenStayExact() async throws {
        let setup = try await Setup()
        let painter = try Self.painter(on: setup.server)
        try Self.show(painter, offset: 0)
        var sessions: [ControllerSession] = []
        for _ in 0..<3 { sessions.append(try await setup.controller.connect(to: "desk")) }
        for session in sessions { #expect(await SessionWaits.shows(session, Self.screen(atOffset: 0)), "the first picture") }
        for offset in stride(from: 5, through: 60, by: 5) {
            try Self.show(painter, offset: offset)
            // Every few steps, let all viewers catch up, so they are in step again.
            if offset % 20 == 0 {
                for session in sessions { #expect(await SessionWaits.shows(session, Self.screen(atOffset: offset)), "offset \(offset)") }
            }
        }
        for session in sessions { #expect(await SessionWaits.shows(session, Self.screen(atOffset: 60)), "exact once the scroll stops") }
        #expect(setup.harness.server.configuration.sharing?.updates.counts.used ?? 0 > 0, "viewers in step share updates")
        for session in sessions { await session.close() }
        await setup.stop()
    }

    @Test func aViewerAfterAllOthersLeftSeesTheScreenAsItIsNow() async throws {
        let setup = try await Setup()
        let painter = try Self.painter(on: setup.server)
        try Self.show(painter, offset: 0)
        let first = try await setup.controller.connect(to: "desk")
        #expect(await SessionWaits.shows(first, Self.screen(atOffset: 0)))
        await first.close()
        // The host notices the session end on its own time; the screen changes meanwhile or after.
        try Self.show(painter, offset: 24)
        try Self.show(painter, offset: 48)
        let second = try await setup.controller.connect(to: "desk")
        #expect(await SessionWaits.shows(second, Self.screen(atOffset: 48)))
        await second.close()
        await setup.stop()
    }
}
