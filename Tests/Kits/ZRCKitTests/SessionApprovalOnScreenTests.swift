import Foundation
import Testing
import Logging
import ZRCCommandSupport
import ZRCControllerKit
import ZRCFrames
import ZRCHostKit
import ZRCHostX11
import ZRCProtocol
import ZRCX11
import ZRCXTestSupport
import ZRCKitTesting

/// Session approval on a real X server: a new session waits, named in the indicator, until the
/// person at the host presses the accept or the refuse combination.
@Suite struct SessionApprovalOnScreenTests {
    @Test func thePersonAtTheHostAcceptsOneSessionAndRefusesTheNext() async throws {
        let server = try await PrivateXServer.start(["-screen", "0", "640x480x24"])
        let source = try X11ScreenSource(displayName: server.display, monitor: nil, logger: .init(label: "test"))
        let indicator = try X11SessionIndicator(displayName: server.display, endKey: "ctrl+alt+shift+End",
                                                approvalKeys: .init(accept: "ctrl+alt+shift+y", refuse: "ctrl+alt+shift+n"), logger: .init(label: "test"))
        let sharing = ScreenSharing(source: source, input: source, makeEncoder: { try FrameCodec() })
        // The deadline is far: only the keys answer here.
        let harness = try HostHarness(sharing: sharing, indicator: indicator, approvalTimeout: .seconds(600))
        _ = try await harness.start()
        try await harness.stoppingAfter {
            let (controller, _) = harness.controller(makeDecoder: try FrameCodec.decoderFactory())
            _ = try await harness.pair(controller, name: "desk")

            // A presence probe (view-only, taking no pictures and no clipboard) is not asked about.
            let (prober, _) = harness.controller(name: "prober", capabilities: [])
            _ = try await harness.pair(prober, name: "desk")
            let probe = try await prober.connect(to: "desk", viewOnly: true)
            _ = try await probe.ping(timeout: .seconds(60))
            #expect(await !probe.awaitingApproval)
            await probe.close(text: "probed")

            let first = try await controller.connect(to: "desk")
            #expect(await SessionWaits.notice(.awaitingApproval, from: first), "the host did not say it asks")
            #expect(try await SessionIndicatorTests.waitForIndicator(on: server.display, visible: true), "the request is not shown")
            #expect(await first.pollFrame() == nil, "a frame before the person at the host accepted")
            try await server.run("xdotool", ["key", "ctrl+alt+shift+y"])
            let accepted = await SessionWaits.frame(first, within: .seconds(60)) { _ in true } != nil
            let firstEnd = await first.end
            #expect(accepted, "no frame after the person at the host accepted: \(String(describing: firstEnd))")

            let second = try await controller.connect(to: "desk", viewOnly: true)
            #expect(await SessionWaits.notice(.awaitingApproval, from: second), "the host did not say it asks")
            try await server.run("xdotool", ["key", "ctrl+alt+shift+n"])
            let secondEnd = await SessionWaits.end(of: second)
            #expect(await second.pollFrame() == nil, "a frame after the person at the host refused")
            guard case .remote(.policyRefused, let text)? = secondEnd else {
                Issue.record("expected a refusal, got \(String(describing: secondEnd))")
                return
            }
            #expect(text.contains("refused"))
            #expect(await first.end == nil, "refusing the second session left the first alone")
            await first.close(text: "done")
        }
    }
}
