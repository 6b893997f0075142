import Foundation
import Testing
import ZRCControllerKit
import ZRCProtocol
import ZRCXTestSupport

/// Text typed through a session arrives in real applications, read back from what the
/// application itself received (xterm's pty), not from the server's keymap: Latin-1, symbols,
/// CJK and emoji, including when the session ends right after sending the text (as
/// `zrc-ctl input type` does).
@Suite struct X11TypingTests {
    /// What `cat` inside an xterm wrote to `file`, once it holds at least `count` characters or 20 s passed.
    static func received(_ file: URL, count: Int) async -> String {
        let deadline = ContinuousClock.now + .seconds(20)
        var text = ""
        while ContinuousClock.now < deadline {
            text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
            if text.count >= count { return text }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return text
    }

    @Test(arguments: ["héllo àçèñü ß", "✓ € ± ° …", "日本語 中文 한국어", "😀 🚀 x"])
    func textTypedThroughASessionArrivesInXterm(text: String) async throws {
        let setup = try await X11SessionTests.Setup()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("zrc-typed-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        // -u8 and a UTF-8 locale: xterm encodes what it gets as UTF-8 for `cat`. Its window
        // fills the screen, so the pointer (and with no window manager, the focus) is on it.
        let xterm = try XApplication(display: setup.server.display,
                                     ["xterm", "-u8", "-geometry", "80x24+0+0", "-e", "sh", "-c", "stty raw -echo; cat > '\(file.path)'"])
        defer { xterm.stop() }
        try await xterm.waitForWindow()
        let session = try await setup.controller.connect(to: "desk")
        try await session.send(.input(.pointerMove(x: 40, y: 40)))
        try await session.send(.input(.text(text)))
        // The session ends at once, as with `zrc-ctl input type`: the host must not take the
        // keys back before xterm has read them.
        await session.close()
        let got = await Self.received(file, count: text.count)
        #expect(got == text, "xterm received \(got.debugDescription), expected \(text.debugDescription)")
        await setup.stop()
    }
}
