import Foundation
import Testing
import ZRCControllerKit
import ZRCFrames
import ZRCHostKit
import ZRCProtocol
import ZRCKitTesting
import ZRCTestSupport

/// The frame pipeline and input path through a real host server and controller over loopback,
/// with a fake screen and a lossless codec so results are exact.
@Suite struct ScreenSessionTests {
    func start(screen: FakeScreen) async throws -> (HostHarness, ZRCController) {
        let sharing = ScreenSharing(source: screen, input: screen, makeEncoder: { RawRegionCodec() })
        let harness = try HostHarness(sharing: sharing)
        _ = try await harness.start()
        let (controller, _) = harness.controller()
        _ = try await harness.pair(controller, name: "desk")
        return (harness, controller)
    }

    /// Waits (5 s at most) for a frame newer than `version` showing `expected`.
    func waitForFrame(_ session: ControllerSession, matching expected: PixelBuffer, after version: UInt64 = 0) async -> ComposedFrame? {
        await SessionWaits.frame(session, within: .seconds(5)) { $0.version > version && $0.pixels == expected }
    }

    /// Waits (generously) for a frame showing `expected` through `mapping`.
    func waitForPicture(_ session: ControllerSession, _ expected: PixelBuffer, mapping: PictureMapping?) async -> ComposedFrame? {
        await SessionWaits.frame(session, within: .seconds(15)) { $0.mapping == mapping && $0.pixels == expected }
    }

    /// The controller asks for the picture it shows; the host sends that, scaled and then only
    /// what changes in it, and full resolution again when asked.
    @Test func aRequestedPictureArrivesScaledAndFollowsChanges() async throws {
        let screen = FakeScreen(width: 320, height: 200)
        let (harness, controller) = try await start(screen: screen)
        try await harness.stoppingAfter {
            let session = try await controller.connect(to: "desk")
            _ = try #require(await waitForFrame(session, matching: screen.pixels))
            let request = PictureRequest(maxWidth: 100, maxHeight: 100, regionX: 20, regionY: 10, regionWidth: 200, regionHeight: 150)
            await session.requestPicture(request)
            let mapping = PictureMapping.fitting(request, screenWidth: 320, screenHeight: 200)
            #expect((mapping.pictureWidth, mapping.pictureHeight) == (100, 75))
            var scaler = PictureScaler(mapping: mapping)
            _ = scaler.update(from: screen.pixels, hints: nil)
            let scaled = try #require(await waitForPicture(session, scaler.picture, mapping: mapping), "the scaled region arrives")
            #expect((scaled.screenWidth, scaled.screenHeight) == (320, 200), "pointer coordinates stay in screen pixels")

            screen.draw { $0.fill(PixelRect(x: 100, y: 100, width: 30, height: 30), rgb: 0x00FF00) }
            _ = scaler.update(from: screen.pixels, hints: nil)
            let changed = try #require(await waitForPicture(session, scaler.picture, mapping: mapping), "a change arrives scaled")
            #expect(changed.dirty.allSatisfy { $0.width <= 20 && $0.height <= 20 }, "only the changed picture area: \(changed.dirty)")

            await session.requestPicture(.fullResolution)
            _ = try #require(await waitForPicture(session, screen.pixels, mapping: nil), "full resolution again")
        }
    }

    @Test func theControllerComposesTheHostScreenAndOnlyChangesFollow() async throws {
        let screen = FakeScreen(width: 320, height: 200)
        let (harness, controller) = try await start(screen: screen)
        try await harness.stoppingAfter {
            let session = try await controller.connect(to: "desk")
            _ = try #require(await waitForFrame(session, matching: screen.pixels))
            // The first picture's photographic areas are refined 100 ms after the last change: let
            // that happen first, or on a loaded machine it arrives after the change below and the
            // silence watched for at the end.
            let first = try #require(await SessionWaits.settledVersion(session), "the first picture never settled")

            screen.draw { $0.fill(PixelRect(x: 70, y: 70, width: 10, height: 10), rgb: 0xFF0000) }
            let second = try #require(await waitForFrame(session, matching: screen.pixels, after: first))
            #expect(second.dirty == [PixelRect(x: 70, y: 70, width: 10, height: 10)], "only the changed pixels travel")
            #expect(second.captureMicros <= second.encodeDoneMicros && second.encodeDoneMicros <= second.sendMicros)

            // Once the still areas have been refined (100 ms after the last change), a static screen sends
            // nothing but keepalives. How long the refinement takes to arrive depends on the machine's
            // load, so wait (bounded) for the stream to settle before watching for silence. The 2 s
            // of silence are the scenario (nothing announces that nothing came).
            let before = try #require(await SessionWaits.settledVersion(session), "the stream never went quiet")
            try await Task.sleep(for: .seconds(2))
            #expect(await session.pollFrame(newerThan: before) == nil)
            await session.close()
        }
    }

    @Test func theCursorShapeTravelsOnceAndItsPositionFollows() async throws {
        let screen = FakeScreen(width: 64, height: 64)
        let (harness, controller) = try await start(screen: screen)
        try await harness.stoppingAfter {
            let session = try await controller.connect(to: "desk")
            #expect(await SessionWaits.until(session, within: .seconds(5)) { await session.pollCursor().x == 5 })
            #expect(await session.pollCursor().shape == FakeScreen.arrow)
            screen.movePointer(x: 40, y: 30)
            #expect(await SessionWaits.until(session, within: .seconds(5)) {
                let cursor = await session.pollCursor()
                return cursor.x == 40 && cursor.y == 30
            })
            #expect(await session.cursorShapesReceived == 1)
            await session.close()
        }
    }

    @Test func inputReachesTheHostUnlessTheSessionIsViewOnly() async throws {
        let screen = FakeScreen(width: 64, height: 64)
        let (harness, controller) = try await start(screen: screen)
        try await harness.stoppingAfter {
            let events: [InputEvent] = [.pointerMove(x: 10, y: 20), .button(1, pressed: true, x: 10, y: 20),
                                        .key(keysym: 0x61, pressed: true, modifiers: [.shift]), .text("héllo ✓")]
            let session = try await controller.connect(to: "desk")
            for event in events { try await session.send(.input(event)) }
            _ = try await session.ping(timeout: .seconds(60))
            #expect(screen.injected == events)
            await session.close()
            _ = await session.waitUntilEnded()
            #expect(await screen.waitUntil(within: .seconds(5)) { $0.releases >= 1 }, "held keys and buttons are released when a session ends")

            let viewer = try await controller.connect(to: "desk", viewOnly: true)
            #expect(viewer.granted.contains(.viewOnly))
            try await viewer.send(.input(.pointerMove(x: 1, y: 1)))
            #expect(await SessionWaits.inputRefused(viewer))
            #expect(screen.injected == events, "nothing from the view-only session was injected")
            await viewer.close()
        }
    }
}
