import Foundation
import Testing
import ZRCXTestSupport
import ZRCWebTesting

/// Keys from the browser reach a real application on the host as the user's layout produced
/// them: ASCII, Latin-1, AltGr symbols, a dead key's composed letter, input-method text, and
/// control keys. The keys are DevTools key events (headless Chromium has no layout of its own),
/// each as a layout would report it; what arrives is read back from `cat` in an xterm.
@Suite(.serialized) struct ViewerInBrowserKeyboardTests {
    /// One key as a browser reports it: `key` (what the layout produced), `code` (the physical key).
    struct Stroke {
        let key: String, code: String, text: String?, keyCode: Int, modifiers: Int
        init(_ key: String, _ code: String, text: String? = nil, keyCode: Int = 0, modifiers: Int = 0) {
            self.key = key
            self.code = code
            self.text = text ?? (key.count == 1 ? key : nil)
            self.keyCode = keyCode
            self.modifiers = modifiers
        }
    }

    func press(_ stroke: Stroke, in web: WebViewerRig) async throws {
        var down: [String: any Sendable] = ["type": stroke.text == nil ? "rawKeyDown" : "keyDown", "key": stroke.key, "code": stroke.code,
                                            "keyCode": stroke.keyCode, "modifiers": stroke.modifiers]
        if let text = stroke.text { down["text"] = text }
        try await web.browser.call("key", down)
        try await web.browser.call("key", ["type": "keyUp", "key": stroke.key, "code": stroke.code, "keyCode": stroke.keyCode,
                                           "modifiers": stroke.modifiers])
    }

    @Test func keysOfAnyLayoutAndInputMethodTextArriveInXterm() async throws {
        let web = try await WebViewerRig()
        let file = web.rig.env.root.appendingPathComponent("typed.txt")
        let xterm = try XApplication(display: web.rig.display.display,
                                     ["xterm", "-u8", "-geometry", "60x20+0+0", "-e", "sh", "-c", "stty raw -echo; cat > '\(file.path)'"])
        defer { xterm.stop() }
        try await xterm.waitForWindow()
        // The rig's recording window holds the focus; give it to the xterm, as a click would with a window manager.
        try await web.rig.display.run("xdotool", ["search", "--class", "xterm", "windowfocus"])
        // On a loaded machine a key's release can reach the host after the X server's autorepeat
        // delay (660 ms), which then types the key again: this test is about which keys arrive.
        try await web.rig.display.run("xset", ["r", "off"])
        let point = try await web.clientPoint(remoteX: 40, remoteY: 40)
        try await web.browser.call("mouse", ["action": "move", "x": point.x, "y": point.y])
        try await web.browser.call("focus")

        let strokes: [Stroke] = [
            Stroke("a", "KeyQ", keyCode: 65),                 // AZERTY's a, on the key QWERTY calls Q
            Stroke("Z", "KeyY", keyCode: 90, modifiers: 8),   // QWERTZ's Z with Shift
            Stroke("é", "Digit2", keyCode: 50),               // AZERTY's é
            Stroke("€", "KeyE", keyCode: 69),                 // AltGr+E (German), as the browser reports it
            Stroke("ß", "Minus", keyCode: 189),               // German ß
            Stroke("Dead", "BracketLeft", text: nil, keyCode: 219),  // French ^ (dead) …
            Stroke("ê", "KeyE", keyCode: 69),                 // … then e: ê
            Stroke("✓", "KeyV", keyCode: 86),                 // a symbol some layouts put on a key
            Stroke(" ", "Space", keyCode: 32),
        ]
        for stroke in strokes { try await press(stroke, in: web) }
        try await web.browser.call("insertText", ["text": "日本"])
        try await press(Stroke("Enter", "Enter", text: "\r", keyCode: 13), in: web)
        let expected = "aZé€ßê✓ 日本\r"
        var got = ""
        _ = await Wait.until(.seconds(30)) { () -> Bool? in
            got = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
            return got.count >= expected.count ? true : nil
        }
        #expect(got == expected, "xterm's cat received \(got.debugDescription)")
        await web.close()
    }

    @Test func keysHeldWhenThePageLosesFocusAreReleasedOnTheHost() async throws {
        let web = try await WebViewerRig()
        let point = try await web.clientPoint(remoteX: 320, remoteY: 240)
        try await web.browser.call("mouse", ["action": "move", "x": point.x, "y": point.y])
        try await web.browser.call("focus")
        _ = web.rig.client.takeEvents()
        try await web.browser.call("key", ["type": "rawKeyDown", "key": "Shift", "code": "ShiftLeft", "keyCode": 16, "modifiers": 8])
        try await web.browser.call("key", ["type": "keyDown", "key": "x", "code": "KeyX", "text": "x", "keyCode": 88])
        try await web.browser.call("blur")
        var events: [TestXClient.Event] = []
        let released = await Wait.until(.seconds(20)) { () -> Bool? in
            events += web.rig.client.takeEvents()
            let presses = events.filter { if case .keyPress = $0 { true } else { false } }.count
            let releases = events.filter { if case .keyRelease = $0 { true } else { false } }.count
            return presses >= 2 && releases >= presses ? true : nil
        }
        #expect(released == true, "every key pressed was released after the blur: \(events)")
        await web.close()
    }
}
