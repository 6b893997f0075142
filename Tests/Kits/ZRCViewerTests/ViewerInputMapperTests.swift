import Testing
import ZRCProtocol
import ZRCViewer

@Suite struct ViewerInputMapperTests {
    /// A 1920×1080 screen in an 80×24-cell area of 10×20-pixel cells (800×480 pixels): the image
    /// is 800×450, with 15-pixel bars above and below.
    static func mapper() -> ViewerInputMapper {
        ViewerInputMapper(viewport: Viewport(remoteWidth: 1920, remoteHeight: 1080, areaWidth: 800, areaHeight: 480),
                          cellWidth: 10, cellHeight: 20)
    }

    static func report(_ kind: MouseReport.Kind, _ x: Int, _ y: Int) -> TerminalEvent {
        .mouse(MouseReport(kind: kind, x: x, y: y, modifiers: []))
    }

    @Test func aClickInACellPressesAndReleasesAtItsCentre() {
        var mapper = Self.mapper()
        // Cell (41, 12): centre at local (405, 230) → remote (972, 516).
        #expect(mapper.handle(Self.report(.press(button: 1), 41, 12)) == [.send([.button(1, pressed: true, x: 972, y: 516)])])
        #expect(mapper.handle(Self.report(.release(button: 1), 41, 12)) == [.send([.button(1, pressed: false, x: 972, y: 516)])])
    }

    @Test func pixelReportsMapPixelCentres() {
        var mapper = Self.mapper()
        mapper.reportsPixels = true
        #expect(mapper.handle(Self.report(.move(button: nil), 1, 16)) == [.send([.pointerMove(x: 1, y: 1)])])
        #expect(mapper.handle(Self.report(.scroll(dx: 0, dy: 1), 800, 465)) == [.send([.scroll(dx: 0, dy: 1, x: 1918, y: 1078)])])
    }

    @Test func theLetterboxSendsNothingButAHeldButtonIsAlwaysReleased() {
        var mapper = Self.mapper()
        #expect(mapper.handle(Self.report(.press(button: 1), 10, 1)).isEmpty, "row 1 is in the top bar")
        #expect(mapper.handle(Self.report(.release(button: 1), 10, 1)).isEmpty, "nothing was pressed")
        #expect(mapper.handle(Self.report(.press(button: 3), 10, 5)) == [.send([.button(3, pressed: true, x: 228, y: 180)])])
        #expect(mapper.handle(Self.report(.move(button: 3), 10, 1)) == [.send([.pointerMove(x: 228, y: 0)])], "a drag leaving the image stays on its edge")
        #expect(mapper.handle(Self.report(.release(button: 3), 10, 1)) == [.send([.button(3, pressed: false, x: 228, y: 0)])])
    }

    @Test func keysBecomePressAndReleaseUnlessTheTerminalReportsReleases() {
        var mapper = Self.mapper()
        let a = TerminalEvent.key(keysym: 0x61, modifiers: .control, action: .press)
        #expect(mapper.handle(a) == [.send([.key(keysym: 0x61, pressed: true, modifiers: .control), .key(keysym: 0x61, pressed: false, modifiers: .control)])])
        mapper.reportsKeyReleases = true
        #expect(mapper.handle(a) == [.send([.key(keysym: 0x61, pressed: true, modifiers: .control)])])
        #expect(mapper.handle(.key(keysym: 0x61, modifiers: .control, action: .release)) == [.send([.key(keysym: 0x61, pressed: false, modifiers: .control)])])
    }

    @Test func theEscapeChordDetachesZoomsPansAndSendsItself() {
        var mapper = Self.mapper()
        let chord = TerminalEvent.key(keysym: ViewerInputMapper.chordKeysym, modifiers: .control, action: .press)
        #expect(mapper.handle(chord).isEmpty)
        #expect(mapper.handle(.key(keysym: 0x2B, modifiers: [], action: .press)) == [.viewChanged])
        #expect(mapper.viewport.zoom == 1.5)
        _ = mapper.handle(chord)
        #expect(mapper.handle(.key(keysym: TerminalKeysym.right, modifiers: [], action: .press)) == [.viewChanged])
        #expect(mapper.viewport.originX > 320)
        _ = mapper.handle(chord)
        #expect(mapper.handle(.key(keysym: 0x30, modifiers: [], action: .press)) == [.viewChanged])
        #expect(mapper.viewport.zoom == 1)
        _ = mapper.handle(chord)
        #expect(mapper.handle(chord) == [.send([.key(keysym: 0x5D, pressed: true, modifiers: .control), .key(keysym: 0x5D, pressed: false, modifiers: .control)])])
        _ = mapper.handle(chord)
        #expect(mapper.handle(.key(keysym: 0x71, modifiers: [], action: .press)) == [.detach])
    }

    @Test func viewOnlySendsNothingButTheChordStillWorks() {
        var mapper = Self.mapper()
        mapper.viewOnly = true
        #expect(mapper.handle(.key(keysym: 0x61, modifiers: [], action: .press)).isEmpty)
        #expect(mapper.handle(Self.report(.press(button: 1), 41, 12)).isEmpty)
        #expect(mapper.handle(.paste("x")).isEmpty)
        _ = mapper.handle(.key(keysym: ViewerInputMapper.chordKeysym, modifiers: .control, action: .press))
        #expect(mapper.handle(.key(keysym: 0x71, modifiers: [], action: .press)) == [.detach])
    }

    @Test func pastedTextIsTypedWithReturnAndTabKeys() {
        var mapper = Self.mapper()
        let returnKey: [InputEvent] = [.key(keysym: TerminalKeysym.returnKey, pressed: true, modifiers: []),
                                       .key(keysym: TerminalKeysym.returnKey, pressed: false, modifiers: [])]
        let tab: [InputEvent] = [.key(keysym: TerminalKeysym.tab, pressed: true, modifiers: []), .key(keysym: TerminalKeysym.tab, pressed: false, modifiers: [])]
        #expect(mapper.handle(.paste("héllo\r\nwörld\tok\u{1B}!")) == [.send([.text("héllo")] + returnKey + [.text("wörld")] + tab + [.text("ok!")])])
    }

    static let chord: TerminalEvent = .key(keysym: ViewerInputMapper.chordKeysym, modifiers: .control, action: .press)
    static let p: TerminalEvent = .key(keysym: UInt32(UInt8(ascii: "p")), modifiers: [], action: .press)

    /// Ctrl+] p cycles type → paste → clipboard only → type, and each mode does what it says.
    @Test func pasteModesGoThroughTheHostsClipboard() {
        var mapper = Self.mapper()
        mapper.clipboardAvailable = true
        let ctrlV: [InputEvent] = [.key(keysym: 0x76, pressed: true, modifiers: .control), .key(keysym: 0x76, pressed: false, modifiers: .control)]
        #expect(mapper.handle(.paste("a\r\nb")) == [.send([.text("a"), .key(keysym: TerminalKeysym.returnKey, pressed: true, modifiers: []),
                                                              .key(keysym: TerminalKeysym.returnKey, pressed: false, modifiers: []), .text("b")])])
        #expect(mapper.handle(Self.chord).isEmpty)
        #expect(mapper.handle(Self.p) == [.notice(PasteMode.paste.description)])
        #expect(mapper.handle(.paste("a\r\nb\rc")) == [.setClipboard("a\nb\nc"), .send(ctrlV)], "line ends as LF in a clipboard")
        _ = mapper.handle(Self.chord)
        #expect(mapper.handle(Self.p) == [.notice(PasteMode.setClipboard.description)])
        #expect(mapper.handle(.paste("only")) == [.setClipboard("only")])
        _ = mapper.handle(Self.chord)
        #expect(mapper.handle(Self.p) == [.notice(PasteMode.type.description)])
        #expect(mapper.pasteMode == .type)
    }

    @Test func withoutTheHostsClipboardPastesAreTyped() {
        var mapper = Self.mapper()
        _ = mapper.handle(Self.chord)
        guard case .notice(let text) = mapper.handle(Self.p).first else {
            Issue.record("no notice")
            return
        }
        #expect(text.contains("shares no clipboard"))
        #expect(mapper.pasteMode == .type)
        mapper.viewOnly = true
        mapper.clipboardAvailable = true
        #expect(mapper.handle(.paste("x")).isEmpty, "a view-only viewer pastes nothing")
    }

    /// OSC 52 carries the text base64-encoded: nothing of it can act on the terminal.
    @Test func copiesBecomeOSC52() throws {
        let sequence = try #require(TerminalClipboard.osc52(.text("hi\u{1B}[2J")))
        #expect(String(decoding: sequence, as: UTF8.self) == "\u{1B}]52;c;aGkbWzJK\u{1B}\\")
        #expect(TerminalClipboard.osc52(.text("x", selection: .primary)).map { String(decoding: $0, as: UTF8.self) } == "\u{1B}]52;p;eA==\u{1B}\\")
        #expect(TerminalClipboard.osc52(ClipboardContent(selection: .clipboard, mimeType: ClipboardContent.utf8Text, data: [0xFF])) == nil)
    }
}
