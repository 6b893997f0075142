import Foundation
import Synchronization
import Testing
import ZRCCommandSupport
import ZRCControllerKit
import ZRCFrames
import ZRCHostKit
import ZRCHostX11
import ZRCProtocol
import ZRCX11
import ZRCXTestSupport
import Logging
import ZRCKitTesting

/// The host's session indicator on a real X server: a window of its own that appears with a
/// session and goes with it, and the key combination that ends every session.
@Suite struct SessionIndicatorTests {
    /// Whether a mapped window with the indicator's title is on `display`.
    static func indicatorVisible(on display: String) async throws -> Bool {
        try await XTool.output("xdotool", ["search", "--onlyvisible", "--name", X11Indicator.title], display: display).status == 0
    }

    /// Waits (60 s at most, looking every 100 ms) until the indicator is or is not shown.
    static func waitForIndicator(on display: String, visible: Bool) async throws -> Bool {
        for _ in 0..<600 {
            if try await indicatorVisible(on: display) == visible { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    @Test func theIndicatorComesWithASessionAndTheKeyEndsEverySession() async throws {
        let server = try await PrivateXServer.start(["-screen", "0", "640x480x24"])
        let source = try X11ScreenSource(displayName: server.display, monitor: nil, logger: .init(label: "test"))
        let indicator = try X11SessionIndicator(displayName: server.display, endKey: "ctrl+alt+shift+End", logger: .init(label: "test"))
        let sharing = ScreenSharing(source: source, input: source, makeEncoder: { try FrameCodec() })
        let harness = try HostHarness(sharing: sharing, indicator: indicator)
        _ = try await harness.start()
        try await harness.stoppingAfter {
            #expect(try await !Self.indicatorVisible(on: server.display), "no indicator without a session")
            let (controller, _) = harness.controller(makeDecoder: try FrameCodec.decoderFactory())
            _ = try await harness.pair(controller, name: "desk")
            let first = try await controller.connect(to: "desk")
            let second = try await controller.connect(to: "desk", viewOnly: true)
            _ = try await first.ping(timeout: .seconds(60))
            _ = try await second.ping(timeout: .seconds(60))
            #expect(try await Self.waitForIndicator(on: server.display, visible: true), "the indicator did not appear")
            // The person at the host presses the combination: both sessions end.
            try await server.run("xdotool", ["key", "ctrl+alt+shift+End"])
            for session in [first, second] {
                var ended = false
                for await event in session.events {
                    if case .ended = event {
                        ended = true
                        break
                    }
                }
                #expect(ended)
            }
            #expect(try await Self.waitForIndicator(on: server.display, visible: false), "the indicator stayed after the sessions ended")
        }
    }

    /// Input that records what reaches it.
    actor RecordingSink: InputSink {
        var events: [InputEvent] = []
        func inject(_ event: InputEvent) async throws { events.append(event) }
        func releaseAll() async {}
    }

    @Test func aControllerNeverPressesTheReservedCombination() async throws {
        let sink = RecordingSink()
        let filter = ReservedKeyFilter(sink, reserved: [try KeyCombo(parsing: "ctrl+alt+shift+End")])
        let end: UInt32 = 0xFF57
        // Held through modifier keys of its own…
        for keysym: UInt32 in [0xFFE3, 0xFFE9, 0xFFE1] { try await filter.inject(.key(keysym: keysym, pressed: true, modifiers: [])) }
        try await filter.inject(.key(keysym: end, pressed: true, modifiers: []))
        try await filter.inject(.key(keysym: end, pressed: false, modifiers: []))
        for keysym: UInt32 in [0xFFE3, 0xFFE9, 0xFFE1] { try await filter.inject(.key(keysym: keysym, pressed: false, modifiers: [])) }
        // …or named in the event's flags.
        try await filter.inject(.key(keysym: end, pressed: true, modifiers: [.control, .alt, .shift]))
        try await filter.inject(.key(keysym: end, pressed: false, modifiers: [.control, .alt, .shift]))
        // End alone, and with fewer modifiers, passes.
        try await filter.inject(.key(keysym: end, pressed: true, modifiers: [.control, .alt]))
        try await filter.inject(.key(keysym: end, pressed: false, modifiers: [.control, .alt]))
        let recorded = await sink.events
        let ends = recorded.filter { if case .key(let keysym, _, _) = $0 { keysym == end } else { false } }
        #expect(ends == [.key(keysym: end, pressed: true, modifiers: [.control, .alt]), .key(keysym: end, pressed: false, modifiers: [.control, .alt])])
        #expect(recorded.count == 8, "the six modifier events and End with two modifiers: \(recorded)")
    }

    @Test(arguments: [
        ([], [String]()),
        ([IndicatedSession(controllerName: "ann@laptop", viewOnly: false)],
         ["ZRC: ann@laptop (in control) is connected to this screen", "Press Ctrl+Alt+Shift+End to end it"]),
        ([IndicatedSession(controllerName: "ann", viewOnly: false), IndicatedSession(controllerName: "bob\u{1B}[2J", viewOnly: true)],
         ["ZRC: 2 sessions on this screen: ann (in control), bob\u{FFFD}[2J (view-only)", "Press Ctrl+Alt+Shift+End to end them all"]),
        ([IndicatedSession(controllerName: "eve\u{7}", viewOnly: false, awaitingApproval: true)],
         ["ZRC: eve\u{FFFD} asks to control this screen", "Press Ctrl+Alt+Shift+Y to accept, Ctrl+Alt+Shift+N to refuse"]),
        ([IndicatedSession(controllerName: "ann", viewOnly: true, awaitingApproval: true),
          IndicatedSession(controllerName: "bob", viewOnly: false, awaitingApproval: true),
          IndicatedSession(controllerName: "cat", viewOnly: false)],
         ["ZRC: ann asks to watch this screen", "Press Ctrl+Alt+Shift+Y to accept, Ctrl+Alt+Shift+N to refuse (1 more waiting)",
          "ZRC: cat (in control) is connected to this screen", "Press Ctrl+Alt+Shift+End to end it"]),
        ([IndicatedSession(controllerName: "ann", viewOnly: false,
                           arriving: [.init(path: "Downloads/report\u{1B}[2J.pdf", size: 3 << 20, written: 1 << 20)])],
         ["ZRC: ann (in control) is connected to this screen", "Receiving: ann sends Downloads/report\u{FFFD}[2J.pdf (33% of 3.0 MiB)",
          "Press Ctrl+Alt+Shift+End to end it"]),
    ])
    func theIndicatorNamesEachControllerAndHowToEndThem(sessions: [IndicatedSession], lines: [String]) {
        let keys = IndicatorKeys(end: "Ctrl+Alt+Shift+End", approval: .init(accept: "Ctrl+Alt+Shift+Y", refuse: "Ctrl+Alt+Shift+N"))
        #expect(IndicatedSession.lines(for: sessions, keys: keys) == lines)
    }
}
