import Testing
import ZRCProtocol
import ZRCViewer

/// The host's copies reach this terminal's clipboard only when asked for (Ctrl+] c) or when the
/// user allowed every copy; anything else is only offered on the status line.
@Suite struct HostClipboardGateTests {
    static let second: UInt64 = 1_000_000

    @Test func anUnrequestedCopyIsOfferedAndDropped() {
        var gate = HostClipboardGate(acceptsEverything: false)
        #expect(gate.receive(.text("ls\nrm -rf ~\n"), now: 5 * Self.second) == .offer("host copied 2 lines — Ctrl+] c to take them"))
        #expect(gate.receive(.text("x"), now: 6 * Self.second) == .offer("host copied 1 character — Ctrl+] c to take it"))
        #expect(gate.receive(.text("a word"), now: 6 * Self.second) == .offer("host copied 6 characters — Ctrl+] c to take them"))
    }

    @Test func aRequestTakesExactlyOneCopyWithinItsLifetime() {
        var gate = HostClipboardGate(acceptsEverything: false)
        gate.requested(now: 10 * Self.second)
        #expect(gate.isAwaitingAnswer(now: 10 * Self.second))
        #expect(gate.receive(.text("answer"), now: 11 * Self.second) == .write(.text("answer")))
        #expect(!gate.isAwaitingAnswer(now: 11 * Self.second))
        #expect(gate.receive(.text("later push"), now: 12 * Self.second) == .offer("host copied 10 characters — Ctrl+] c to take them"),
                "one request, one copy")
    }

    @Test func aRequestExpiresAndAnErrorEndsIt() {
        var gate = HostClipboardGate(acceptsEverything: false)
        gate.requested(now: 0)
        guard case .offer = gate.receive(.text("late"), now: HostClipboardGate.requestLifetime + 1) else {
            Issue.record("a copy after the request's lifetime is not an answer")
            return
        }
        gate.requested(now: 0)
        gate.requestFailed()
        guard case .offer = gate.receive(.text("after the error"), now: 1) else {
            Issue.record("a copy after the host said it had nothing is not an answer")
            return
        }
    }

    @Test func allowedEveryCopyIsWrittenAndNonTextNever() {
        var gate = HostClipboardGate(acceptsEverything: true)
        #expect(gate.receive(.text("push"), now: 0) == .write(.text("push")))
        let binary = ClipboardContent(selection: .clipboard, mimeType: ClipboardContent.utf8Text, data: [0xFF, 0xFE])
        #expect(gate.receive(binary, now: 0) == .drop)
        var asking = HostClipboardGate(acceptsEverything: false)
        asking.requested(now: 0)
        #expect(asking.receive(binary, now: 1) == .drop)
    }

    @Test func ctrlBracketCTakesTheHostsClipboardWhenItIsShared() {
        var mapper = ViewerInputMapper(viewport: Viewport(remoteWidth: 1920, remoteHeight: 1080, areaWidth: 800, areaHeight: 480),
                                       cellWidth: 10, cellHeight: 20)
        let chord: TerminalEvent = .key(keysym: ViewerInputMapper.chordKeysym, modifiers: .control, action: .press)
        let c: TerminalEvent = .key(keysym: UInt32(UInt8(ascii: "c")), modifiers: [], action: .press)
        _ = mapper.handle(chord)
        #expect(mapper.handle(c) == [.notice("the host shares no clipboard with this session")])
        mapper.clipboardAvailable = true
        _ = mapper.handle(chord)
        #expect(mapper.handle(c) == [.takeHostClipboard])
        #expect(mapper.handle(c) == [.send([.key(keysym: 0x63, pressed: true, modifiers: []), .key(keysym: 0x63, pressed: false, modifiers: [])])],
                "without the chord, c is typed")
    }
}
