import Foundation
import Testing
import ZRCControllerKit
import ZRCFrames
import ZRCHostKit
import ZRCProtocol
import ZRCKitTesting
import ZRCTestSupport

/// The host sends only what the controller announced in `hello`, and a controller that announces
/// less still gets a working stream in what it takes — never silence.
@Suite struct CapabilityTests {
    /// Every subset of the four drawing rect encodings, with and without the cursor.
    static let combinations: [Capabilities] = (0..<32).map { bits in
        var set: Capabilities = []
        if bits & 1 != 0 { set.insert(.jpegRects) }
        if bits & 2 != 0 { set.insert(.solidRects) }
        if bits & 4 != 0 { set.insert(.rawRects) }
        if bits & 8 != 0 { set.insert(.cursorShape) }
        if bits & 16 != 0 { set.insert(.losslessRects) }
        return set
    }

    @Test(arguments: combinations)
    func theStreamUsesOnlyWhatTheControllerAnnounced(announced: Capabilities) async throws {
        let screen = FakeScreen(width: 320, height: 200)
        // A solid block, so solid rects are possible, beside the textured pattern.
        screen.draw { $0.fill(PixelRect(x: 0, y: 0, width: 128, height: 64), rgb: 0x3366CC) }
        let harness = try HostHarness(sharing: ScreenSharing(source: screen, input: screen, makeEncoder: { RawRegionCodec() }))
        _ = try await harness.start()
        let (controller, _) = harness.controller(capabilities: announced.union(.textInput))
        _ = try await harness.pair(controller, name: "desk")
        let session = try await controller.connect(to: "desk")
        let canShowPictures = !announced.isDisjoint(with: Capabilities.pictureEncodings)
        if canShowPictures {
            #expect(await SessionWaits.shows(session, screen.pixels, within: .seconds(15)), "the picture arrives in what \(announced) allows")
            // A change, so motion and refinement happen too.
            screen.draw { $0.fill(PixelRect(x: 200, y: 100, width: 30, height: 30), rgb: 0xFF0000) }
            _ = await SessionWaits.settledVersion(session)
            let used = await session.encodingsReceived
            #expect(used.isSubset(of: announced), "used \(used), announced \(announced)")
        } else if announced.contains(.solidRects) {
            // It wants frames but takes no encoding that can carry a picture: it is told so.
            let notified = Task {
                for await event in session.events {
                    if case .message(.error(.unsupported, _)) = event { return true }
                }
                return false
            }
            let timeout = Task {
                try? await Task.sleep(for: .seconds(15))
                notified.cancel()
            }
            #expect(await notified.value, "a controller that can show no picture is told so")
            timeout.cancel()
            #expect(await session.pollFrame() == nil)
        } else {
            // No rect encoding at all (like `zrc-ctl ping`): it asked for no screen.
            _ = try await session.ping(timeout: .seconds(60))
            #expect(await session.pollFrame() == nil)
        }
        _ = try await session.ping(timeout: .seconds(60))
        let shapes = await session.cursorShapesReceived
        if announced.contains(.cursorShape), canShowPictures {
            #expect(shapes > 0, "the pointer's shape comes to a controller that draws it")
        } else {
            #expect(shapes == 0, "no cursor messages for a controller that did not ask")
        }
        await session.close()
        await harness.stop()
    }
}
