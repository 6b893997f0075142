import Testing
import ZRCXTestSupport
import ZRCX11
import ZRCProtocol

/// XTest injection checked from the receiving side: a test X client on a private Xvfb (so its
/// full-screen window and keymap changes cannot disturb the capture tests on the shared display)
/// records the events and they must be the right ones at the right coordinates.
@Suite("X11 input injection with XTest")
struct X11InputTests {
    /// A private server, the injector's connection and the recording client.
    struct Setup {
        let server: PrivateXServer
        let connection: X11Connection
        let injector: InputInjector
        let client: TestXClient

        init() async throws {
            _ = try TestDisplay.require()
            server = try await PrivateXServer.start(["-screen", "0", "1024x768x24"])
            connection = try X11Connection(displayName: server.display)
            injector = try InputInjector(connection: connection)
            client = try TestXClient(display: server.display)
            _ = client.takeEvents()
        }
    }

    @Test func pointerMovesArriveAtTheirCoordinates() async throws {
        let s = try await Setup()
        // Xvfb starts the pointer at the centre, where a move would produce no event.
        let points = [(10, 20), (1023, 767), (0, 0), (700, 33)]
        for (x, y) in points { try s.injector.movePointer(x: x, y: y) }
        #expect(s.client.takeEvents() == points.map { .motion(x: $0.0, y: $0.1) })
        #expect(throws: X11Error.self) { try s.injector.movePointer(x: 40_000, y: 0) }
    }

    @Test(arguments: 1...7)
    func eachButtonPressesAndReleasesWhereThePointerIs(_ number: Int) async throws {
        let s = try await Setup()
        try s.injector.movePointer(x: 100, y: 50)
        _ = s.client.takeEvents()
        try s.injector.button(number, pressed: true)
        #expect(s.injector.heldButtons == [number])
        try s.injector.button(number, pressed: false)
        #expect(s.injector.heldButtons.isEmpty)
        #expect(s.client.takeEvents() == [.buttonPress(number, x: 100, y: 50), .buttonRelease(number, x: 100, y: 50)])
    }

    @Test func scrollIsClicksOfButtonsFourToSeven() async throws {
        let s = try await Setup()
        try s.injector.movePointer(x: 5, y: 6)
        _ = s.client.takeEvents()
        try s.injector.scroll(down: 2, right: -1)
        try s.injector.scroll(down: -1, right: 1)
        let buttons = s.client.takeEvents().compactMap { if case .buttonPress(let b, 5, 6) = $0 { b } else { nil } }
        #expect(buttons == [5, 5, 6, 4, 7])
        for bad in [0, 10, -1] {
            let error = #expect(throws: X11Error.self) { try s.injector.button(bad, pressed: true) }
            #expect(error?.kind == .invalidInput)
        }
        // Back and forward.
        for button in [8, 9] {
            try s.injector.button(button, pressed: true)
            try s.injector.button(button, pressed: false)
        }
        let extended = s.client.takeEvents().compactMap { if case .buttonPress(let b, _, _) = $0 { b } else { nil } }
        #expect(extended == [8, 9])
    }

    @Test func keyWithShiftAndControlArrivesInTheirState() async throws {
        let s = try await Setup()
        let mapping = try KeyboardMapping.read(from: s.connection)
        try s.injector.tap(0x61 /* a */, modifiers: [.shift, .control])
        let events = s.client.takeEvents()
        let presses = events.compactMap { if case .keyPress(let k, let state) = $0 { (k, state) } else { nil } }
        let keysyms = presses.map { mapping.keysym(of: $0.0, shifted: false) }
        #expect(keysyms == [Keysym.shiftLeft, Keysym.controlLeft, 0x61], "\(events)")
        let aState = try #require(presses.last).1
        #expect(aState & TestXClient.shiftMask != 0 && aState & TestXClient.controlMask != 0, "\(events)")
        // Everything pressed is released, the modifiers after the key.
        let releases = events.compactMap { if case .keyRelease(let k, _) = $0 { mapping.keysym(of: k, shifted: false) } else { nil } }
        #expect(releases == [0x61, Keysym.controlLeft, Keysym.shiftLeft])
        #expect(s.injector.heldKeys.isEmpty)
    }

    @Test(arguments: ["héllo ✓", "Hello, World! ~ 5€ ÿ→ü"])
    func unicodeTextArrivesAsThoseCharactersAndTheMappingIsRestored(_ text: String) async throws {
        let s = try await Setup()
        let original = try KeyboardMapping.read(from: s.connection)
        try s.injector.typeText(text)
        #expect(s.injector.spareBindings.values.contains(0x0100_2713) == text.contains("✓"))
        // Decode with the mapping as it is now (spares still bound), as an application would.
        let mapping = try KeyboardMapping.read(from: s.connection)
        let modifierKeysyms: Set<UInt32> = [Keysym.shiftLeft, Keysym.shiftRight]
        var typed = ""
        for case .keyPress(let keycode, let state) in s.client.takeEvents() {
            let keysym = mapping.keysym(of: keycode, shifted: state & TestXClient.shiftMask != 0)
            if modifierKeysyms.contains(keysym) { continue }
            typed.unicodeScalars.append(try #require(Keysym.character(of: keysym), "keycode \(keycode) → keysym 0x\(String(keysym, radix: 16))"))
        }
        #expect(typed == text)
        // Spares just used stay bound until clients have had time to read the keys typed on them.
        #expect(try s.injector.restoreKeyboardMapping(unusedFor: InputInjector.clientCatchUpTime))
        #expect(!s.injector.spareBindings.isEmpty)
        let later = ContinuousClock.now + InputInjector.clientCatchUpTime
        #expect(try !s.injector.restoreKeyboardMapping(unusedFor: InputInjector.clientCatchUpTime, now: later))
        #expect(s.injector.spareBindings.isEmpty)
        #expect(try KeyboardMapping.read(from: s.connection) == original, "keyboard mapping not restored")
    }

    @Test func controlCharactersAreRefusedBeforeTypingAnything() async throws {
        let s = try await Setup()
        let error = #expect(throws: X11Error.self) { try s.injector.typeText("ab\u{1}c") }
        #expect(error?.kind == .invalidInput)
        #expect(s.client.takeEvents().isEmpty)
    }

    @Test func releaseAllLeavesNothingPressedAndRestoresTheMapping() async throws {
        let s = try await Setup()
        let original = try KeyboardMapping.read(from: s.connection)
        try s.injector.movePointer(x: 300, y: 200)
        try s.injector.key(Keysym.shiftLeft, pressed: true)
        try s.injector.key(0x0100_2713 /* ✓, on a spare */, pressed: true)
        try s.injector.button(1, pressed: true)
        try s.injector.button(3, pressed: true)
        #expect(s.injector.heldKeys.count == 2 && s.injector.heldButtons == [1, 3])
        // A held spare is not cleared under the key.
        try s.injector.restoreKeyboardMapping(unusedFor: .zero)
        #expect(!s.injector.spareBindings.isEmpty)
        _ = s.client.takeEvents()

        try s.injector.releaseAll()
        let events = s.client.takeEvents()
        #expect(events.filter { if case .keyRelease = $0 { true } else { false } }.count == 2, "\(events)")
        #expect(Set(events.compactMap { if case .buttonRelease(let b, _, _) = $0 { b } else { nil } }) == [1, 3])
        #expect(s.injector.heldKeys.isEmpty && s.injector.heldButtons.isEmpty && s.injector.spareBindings.isEmpty)
        #expect(try KeyboardMapping.read(from: s.connection) == original)
        // Releasing again sends nothing.
        try s.injector.releaseAll()
        #expect(s.client.takeEvents().isEmpty)
    }

    @Test func sparesAreReusedWhenTheyRunOut() async throws {
        let s = try await Setup()
        let original = try KeyboardMapping.read(from: s.connection)
        let spareCount = original.keysyms.indices.count / original.keysymsPerKeycode
            - (Int(original.minKeycode)...Int(original.maxKeycode)).filter { original.keysyms(of: UInt8($0)).contains { $0 != 0 } }.count
        // More distinct unmapped characters than there are spare keycodes (CJK ideographs).
        let text = String(String.UnicodeScalarView((0..<(spareCount + 3)).map { Unicode.Scalar(0x4E00 + UInt32($0))! }))
        try s.injector.typeText(text)
        #expect(s.injector.spareBindings.count == spareCount)
        try s.injector.releaseAll()
        #expect(try KeyboardMapping.read(from: s.connection) == original)
    }
}
