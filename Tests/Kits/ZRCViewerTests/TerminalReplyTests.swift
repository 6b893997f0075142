import PropertyBased
import Testing
import ZRCViewer
import ZRCProtocol

/// The terminal's answers to the viewer's capability queries, read from the same input stream as
/// the user's keys.
@Suite struct TerminalReplyTests {
    static func parse(_ text: String) -> [TerminalEvent] {
        var parser = TerminalInputParser()
        return parser.feed(Array(text.utf8))
    }

    @Test(arguments: [
        ("\u{1B}[?62;4;22c", TerminalReply.deviceAttributes([62, 4, 22])),
        ("\u{1B}[?1;2c", .deviceAttributes([1, 2])),
        ("\u{1B}[6;20;10t", .cellPixels(width: 10, height: 20)),
        ("\u{1B}[4;980;1600t", .textAreaPixels(width: 1600, height: 980)),
        ("\u{1B}[?1016;1$y", .modeReport(mode: 1016, value: 1)),
        ("\u{1B}[?2026;0$y", .modeReport(mode: 2026, value: 0)),
        ("\u{1B}[?1u", .keyboardFlags(1)),
        ("\u{1B}_Gi=31;OK\u{1B}\\", .graphics(id: 31, message: "OK")),
        ("\u{1B}_Gi=32;ENOENT:Failed to open shared memory\u{1B}\\", .graphics(id: 32, message: "ENOENT:Failed to open shared memory")),
        ("\u{1B}P>|XTerm(379)\u{1B}\\", .terminalVersion("XTerm(379)")),
        ("\u{1B}P>|kitty(0.26.5)\u{7}", .terminalVersion("kitty(0.26.5)")),
    ])
    func repliesDecode(_ input: String, _ expected: TerminalReply) {
        #expect(Self.parse(input) == [.reply(expected)], "\(input.debugDescription)")
    }

    @Test(arguments: ["\u{1B}[6;20t", "\u{1B}[8;24;80t", "\u{1B}[?1016$y", "\u{1B}P+q1b5b\u{1B}\\", "\u{1B}_Xnot-graphics\u{1B}\\"])
    func otherSequencesAreNoReplies(_ input: String) {
        #expect(!Self.parse(input).contains { if case .reply = $0 { true } else { false } }, "\(input.debugDescription)")
    }

    @Test func aReplyStringDoesNotLeakIntoTheKeys() {
        // A kitty answer arriving between two keys: the keys stay keys, nothing else appears.
        #expect(Self.parse("a\u{1B}_Gi=31;OK\u{1B}\\b") == [.key(keysym: 0x61, modifiers: [], action: .press),
                                                               .reply(.graphics(id: 31, message: "OK")),
                                                               .key(keysym: 0x62, modifiers: [], action: .press)])
    }

    @Test func altUnderscoreAndAltShiftPStayKeys() {
        var parser = TerminalInputParser()
        #expect(parser.feed(Array("\u{1B}_x".utf8)) == [.key(keysym: 0x5F, modifiers: .alt, action: .press),
                                                        .key(keysym: 0x78, modifiers: [], action: .press)])
        #expect(parser.feed(Array("\u{1B}P".utf8)).isEmpty)
        #expect(parser.flushPendingEscape() == [.key(keysym: 0x50, modifiers: .alt, action: .press)], "nothing followed: Alt+Shift+P")
        // Alt+_ then G typed quickly looks like the start of a kitty reply until time runs out.
        #expect(parser.feed(Array("\u{1B}_Go".utf8)).isEmpty)
        #expect(parser.hasPendingEscape)
        #expect(parser.flushPendingEscape() == [.key(keysym: 0x5F, modifiers: .alt, action: .press),
                                                .key(keysym: 0x47, modifiers: [], action: .press),
                                                .key(keysym: 0x6F, modifiers: [], action: .press)])
    }

    @Test func anOverlongReplyStringIsSkippedWithBoundedMemory() {
        var parser = TerminalInputParser()
        let body = String(repeating: "A", count: TerminalInputParser.maximumReply * 3)
        #expect(parser.feed(Array("\u{1B}_Gi=1;\(body)".utf8)).isEmpty)
        #expect(parser.bufferedBytes <= TerminalInputParser.maximumReply + 1)
        #expect(parser.feed(Array("\u{1B}\\z".utf8)) == [.key(keysym: 0x7A, modifiers: [], action: .press)])
    }

    /// What xterm (vt340), kitty and tmux answer to the probe's queries.
    static let xterm = "\u{1B}P>|XTerm(379)\u{1B}\\\u{1B}[6;17;9t\u{1B}[4;663;1080t\u{1B}[?1016;2$y\u{1B}[?2026;0$y\u{1B}[?63;1;2;4;6;9;15;16;22;28;29c"
    static let kitty = "\u{1B}_Gi=31;OK\u{1B}\\\u{1B}_Gi=32;OK\u{1B}\\\u{1B}P>|kitty(0.26.5)\u{1B}\\\u{1B}[6;22;11t\u{1B}[4;1034;1980t"
        + "\u{1B}[?1016;2$y\u{1B}[?2026;2$y\u{1B}[?0u\u{1B}[?62;c"
    static let tmux = "\u{1B}P>|tmux 3.3a\u{1B}\\\u{1B}[?1;2c"

    @Test func theProbeLearnsWhatEachTerminalCanDo() {
        func probe(_ replies: String) -> TerminalProbe {
            var probe = TerminalProbe()
            for case .reply(let reply) in Self.parse(replies) { probe.take(reply) }
            return probe
        }
        let xterm = probe(Self.xterm)
        #expect(xterm.isComplete && xterm.capabilities.sixel && !xterm.capabilities.kittyGraphics)
        #expect(xterm.capabilities.cellPixels?.width == 9 && xterm.capabilities.cellPixels?.height == 17)
        #expect(xterm.capabilities.sgrPixelMouse && !xterm.capabilities.synchronizedOutput)
        #expect(RendererKind.automatic(for: xterm.capabilities) == .sixel)

        let kitty = probe(Self.kitty)
        #expect(kitty.capabilities.kittyGraphics && kitty.capabilities.kittySharedMemory && kitty.capabilities.isKitty)
        #expect(kitty.capabilities.kittyKeyboard && kitty.capabilities.synchronizedOutput)
        #expect(RendererKind.automatic(for: kitty.capabilities) == .kitty)

        let tmux = probe(Self.tmux)
        #expect(tmux.isComplete && !tmux.capabilities.sixel && tmux.capabilities.cellPixels == nil)
        #expect(RendererKind.automatic(for: tmux.capabilities) == .symbols)

        #expect(!probe("\u{1B}[6;17;9t").isComplete, "only DA1 ends the probe")
    }

    @Test func repliesSurviveAnyChunking() async {
        let bytes = Array((Self.kitty + "x" + Self.xterm).utf8)
        let expected = Self.parse(Self.kitty + "x" + Self.xterm)
        #expect(expected.count == 16)
        await propertyCheck(count: 300, input: Gen.int(in: 1...bytes.count).array(of: 0...16)) { cuts in
            var parser = TerminalInputParser()
            var events: [TerminalEvent] = []
            var start = 0
            for cut in Set(cuts).sorted() where cut > start {
                events += parser.feed(bytes[start..<cut])
                start = cut
            }
            events += parser.feed(bytes[start...])
            #expect(events == expected, "cuts \(cuts.sorted())")
        }
    }

    @Test func theQueriesEndWithDeviceAttributes() {
        let queries = TerminalProbe.queries(sharedMemoryName: "/zrc-kitty-1-1")
        #expect(queries.hasSuffix("\u{1B}[c"))
        #expect(queries.contains("a=q,t=s,f=24;L3pyYy1raXR0eS0xLTE=\u{1B}\\"), "the object's name in base64")
        #expect(!TerminalProbe.queries(sharedMemoryName: nil).contains("t=s"))
    }
}

@Suite struct RendererChoiceTests {
    static func answered(_ configure: (inout TerminalCapabilities) -> Void = { _ in }) -> TerminalCapabilities {
        var capabilities = TerminalCapabilities()
        capabilities.answered = true
        configure(&capabilities)
        return capabilities
    }

    @Test(arguments: [
        (["TERM": "xterm-kitty"], RendererKind.kitty), (["KITTY_WINDOW_ID": "1"], .kitty), (["TERM_PROGRAM": "WezTerm"], .kitty),
        (["TERM": "foot"], .sixel), (["TERM": "mlterm"], .sixel), (["TERM": "xterm-256color"], .symbols), ([:], .symbols),
    ])
    func aSilentTerminalIsJudgedByItsEnvironment(_ environment: [String: String], _ expected: RendererKind) {
        #expect(RendererKind.automatic(for: TerminalCapabilities(), environment: environment) == expected)
    }

    @Test func answersOutweighTheEnvironment() {
        // tmux inside kitty: tmux answers (no graphics), so symbols, whatever TERM says.
        #expect(RendererKind.automatic(for: Self.answered(), environment: ["TERM": "xterm-kitty"]) == .symbols)
        #expect(RendererKind.automatic(for: Self.answered { $0.sixel = true }) == .sixel)
        #expect(RendererKind.automatic(for: Self.answered { $0.sixel = true; $0.kittyGraphics = true }) == .kitty)
    }
}
