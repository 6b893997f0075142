import Foundation
import Testing
import ZRCControllerKit
import ZRCHostKit
import ZRCKitTesting
import ZRCProtocol
import ZRCNetworking
import ZRCFrames
import NIOCore
import ZRCTestSupport

/// One controlling session at a time; further controllers per policy; control passes on when the
/// controlling session ends; sessions are listed and can be ended through the control socket.
@Suite struct SessionPolicyTests {
    /// A host sharing a fake screen with input, under `policy`.
    static func harness(policy: SessionPolicy = .viewOnly) throws -> (HostHarness, FakeScreen) {
        let screen = FakeScreen(width: 64, height: 64)
        return (try HostHarness(sharing: ScreenSharing(source: screen, input: screen, makeEncoder: { RawRegionCodec() }), policy: policy),
                screen)
    }

    @Test func aSecondControllerWatchesUntilTheFirstLeaves() async throws {
        let (harness, _) = try Self.harness()
        _ = try await harness.start()
        try await harness.stoppingAfter {
            let (first, second) = try await harness.pairTwoControllers()
            let controlling = try await first.connect(to: "desk")
            #expect(!controlling.granted.contains(.viewOnly))
            let watching = try await second.connect(to: "desk")
            #expect(watching.granted.contains(.viewOnly))

            _ = try await watching.ping(timeout: .seconds(60))  // a keepalive round trip, so the listing has an RTT
            // The listing is read over the control socket, which announces nothing: look until both
            // sessions show traffic.
            var sessions: [SessionSummary] = []
            _ = try await pollUntil("both sessions listed with traffic", within: .seconds(30)) {
                guard case .sessions(let listed) = try await harness.request(.listSessions) else { throw HarnessError("no list") }
                sessions = listed
                return listed.count == 2 && listed.allSatisfy { $0.bytesPerSecond > 0 }
            }
            #expect(sessions.map(\.controllerName) == ["first", "second"])
            #expect(sessions.map(\.viewOnly) == [false, true])
            #expect(sessions.allSatisfy { $0.bytesPerSecond > 0 })

            #expect(try await harness.request(.endSession(id: sessions[0].id)) == .sessionEnded(id: sessions[0].id))
            #expect(await controlling.waitUntilEnded() == .remote(reason: .normal, text: "the host's user ended this session"))
            await watching.close()
            _ = await watching.waitUntilEnded()
            // The host forgets an ended session asynchronously; a loaded machine may take a moment. It
            // takes a session off the listing and frees its control in one step: wait for the listing.
            #expect(try await pollUntil("the ended sessions off the listing", within: .seconds(30)) {
                guard case .sessions(let listed) = try await harness.request(.listSessions) else { throw HarnessError("no list") }
                return listed.isEmpty
            })
            let next = try await second.connect(to: "desk")
            #expect(!next.granted.contains(.viewOnly), "control passes on once the controlling session has ended")
            await next.close()
        }
    }

    /// One person with a viewer open and a scripted `zrc-ctl input` beside it: both sessions are
    /// the same controller's, so both control; another controller is still only a watcher.
    @Test func aSecondSessionOfTheControllerInControlSharesControl() async throws {
        let (harness, screen) = try Self.harness(policy: .refuse)
        _ = try await harness.start()
        try await harness.stoppingAfter {
            let (first, second) = try await harness.pairTwoControllers()
            let viewer = try await first.connect(to: "desk")
            _ = try await viewer.ping(timeout: .seconds(60))  // its hello has been handled: it holds control
            let script = try await first.connect(to: "desk")
            #expect(!script.granted.contains(.viewOnly), "the controller in control is not refused or demoted")
            try await script.send(.input(.pointerMove(x: 7, y: 9)))
            _ = try await script.ping(timeout: .seconds(60))
            #expect(screen.injected == [.pointerMove(x: 7, y: 9)], "the second session's input is injected")
            let error = await #expect(throws: ControllerError.self) { try await second.connect(to: "desk") }
            #expect(error?.kind == .rejected(.refusedByPolicy), "another controller is still refused")
            await script.close()
            await viewer.close()
        }
    }

    @Test func theRefusePolicyTurnsAwayASecondController() async throws {
        let (harness, _) = try Self.harness(policy: .refuse)
        _ = try await harness.start()
        try await harness.stoppingAfter {
            let (first, second) = try await harness.pairTwoControllers()
            let controlling = try await first.connect(to: "desk")
            let error = await #expect(throws: ControllerError.self) { try await second.connect(to: "desk") }
            #expect(error?.kind == .rejected(.refusedByPolicy))
            let watcher = try await second.connect(to: "desk", viewOnly: true)
            #expect(watcher.granted.contains(.viewOnly), "asking for view-only is always allowed")
            await watcher.close()
            await controlling.close()
        }
    }
}

@Suite struct AbruptControllerTests {
    /// A controller that vanishes mid-stream (no close, socket gone) leaves the host serving the
    /// next one, which gets control.
    @Test func aControllerKilledMidFrameLeavesTheHostServingTheNext() async throws {
        let screen = FakeScreen(width: 256, height: 128)
        let harness = try HostHarness(sharing: ScreenSharing(source: screen, input: screen, makeEncoder: { RawRegionCodec() }))
        let address = try await harness.start()
        try await harness.stoppingAfter {
            let (controller, identity) = harness.controller()
            _ = try await harness.pair(controller, name: "desk")

            let channel = try await TCPEndpoint.connect(host: address.host, port: Int(address.port), timeout: .seconds(2))
            try await channel.executeThenClose { inbound, outbound in
                var iterator = inbound.makeAsyncIterator()
                var secure = try await HandmadeSession.open(
                    requested: [], identity: identity, hostKey: harness.hostIdentity.publicKey, crypto: harness.crypto,
                    agent: "vanishing", capabilities: [.jpegRects, .solidRects], inbound: &iterator, outbound: outbound)
                // Keep the screen busy, read until a frame is on its way, then drop the connection mid-stream.
                screen.draw { $0.fill(PixelRect(x: 0, y: 0, width: 100, height: 100), rgb: 0x00FF00) }
                var sawFrame = false
                while !sawFrame, let buffer = try await iterator.next() {
                    sawFrame = try secure.open(buffer.readableBytesView).contains { if case .frameUpdate = $0 { true } else { false } }
                }
                #expect(sawFrame)
            }
            #expect(await harness.log.waitFor("session ended"))

            screen.draw { $0.fill(PixelRect(x: 100, y: 0, width: 50, height: 50), rgb: 0x0000FF) }
            let next = try await controller.connect(to: "desk")
            #expect(!next.granted.contains(.viewOnly), "control passed on")
            #expect(await SessionWaits.shows(next, screen.pixels, within: .seconds(5)), "the next controller gets the current screen")
            await next.close()
        }
    }
}
