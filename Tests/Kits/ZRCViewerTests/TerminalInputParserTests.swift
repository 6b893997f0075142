import PropertyBased
import Testing
import ZRCProtocol
import ZRCViewer

@Suite struct TerminalInputParserTests {
    static func key(_ keysym: UInt32, _ modifiers: KeyModifiers = [], _ action: KeyAction = .press) -> TerminalEvent {
        .key(keysym: keysym, modifiers: modifiers, action: action)
    }

    static func parse(_ text: String) -> [TerminalEvent] {
        var parser = TerminalInputParser()
        return parser.feed(Array(text.utf8)) + parser.flushPendingEscape()
    }

    @Test(arguments: [
        ("a", [key(0x61)]), ("A", [key(0x41)]), ("é", [key(0xE9)]), ("✓", [key(0x0100_2713)]),
        ("\r", [key(TerminalKeysym.returnKey)]), ("\t", [key(TerminalKeysym.tab)]), ("\u{7F}", [key(TerminalKeysym.backSpace)]),
        ("\u{1B}", [key(TerminalKeysym.escape)]), ("\u{01}", [key(0x61, .control)]), ("\u{1A}", [key(0x7A, .control)]),
        ("\u{00}", [key(0x20, .control)]), ("\u{1B}x", [key(0x78, .alt)]), ("\u{1B}\u{01}", [key(0x61, [.alt, .control])]),
        ("\u{1B}[A", [key(TerminalKeysym.up)]), ("\u{1B}OD", [key(TerminalKeysym.left)]),
        ("\u{1B}[1;5C", [key(TerminalKeysym.right, .control)]), ("\u{1B}[1;2H", [key(TerminalKeysym.home, .shift)]),
        ("\u{1B}[5~", [key(TerminalKeysym.pageUp)]), ("\u{1B}[6;3~", [key(TerminalKeysym.pageDown, .alt)]),
        ("\u{1B}[3~", [key(TerminalKeysym.delete)]), ("\u{1B}[2~", [key(TerminalKeysym.insert)]), ("\u{1B}[4~", [key(TerminalKeysym.end)]),
        ("\u{1B}OP", [key(TerminalKeysym.function(1))]), ("\u{1B}[1;2S", [key(TerminalKeysym.function(4), .shift)]),
        ("\u{1B}[15~", [key(TerminalKeysym.function(5))]), ("\u{1B}[24;6~", [key(TerminalKeysym.function(12), [.shift, .control])]),
        ("\u{1B}[Z", [key(TerminalKeysym.tab, .shift)]),
        // kitty keyboard protocol
        ("\u{1B}[97;5u", [key(0x61, .control)]), ("\u{1B}[97;7:3u", [key(0x61, [.alt, .control], .release)]),
        ("\u{1B}[13u", [key(TerminalKeysym.returnKey)]), ("\u{1B}[27;1:2u", [key(TerminalKeysym.escape, [], .repeat)]),
        ("\u{1B}[57441u", []),
        // focus, unknown private sequences
        ("\u{1B}[I", [.focus(true)]), ("\u{1B}[O", [.focus(false)]), ("\u{1B}[?5n", []),
    ] as [(String, [TerminalEvent])])
    func keysDecodeToKeysyms(_ input: String, _ expected: [TerminalEvent]) {
        #expect(Self.parse(input) == expected, "\(input.debugDescription)")
    }

    static func mouse(_ kind: MouseReport.Kind, _ x: Int, _ y: Int, _ modifiers: KeyModifiers = []) -> TerminalEvent {
        .mouse(MouseReport(kind: kind, x: x, y: y, modifiers: modifiers))
    }

    @Test(arguments: [
        ("\u{1B}[<0;10;20M", [mouse(.press(button: 1), 10, 20)]), ("\u{1B}[<0;10;20m", [mouse(.release(button: 1), 10, 20)]),
        ("\u{1B}[<2;1;1M", [mouse(.press(button: 3), 1, 1)]), ("\u{1B}[<1;5;5M", [mouse(.press(button: 2), 5, 5)]),
        ("\u{1B}[<32;7;8M", [mouse(.move(button: 1), 7, 8)]), ("\u{1B}[<35;7;8M", [mouse(.move(button: nil), 7, 8)]),
        ("\u{1B}[<64;3;4M", [mouse(.scroll(dx: 0, dy: -1), 3, 4)]), ("\u{1B}[<65;3;4M", [mouse(.scroll(dx: 0, dy: 1), 3, 4)]),
        ("\u{1B}[<66;3;4M", [mouse(.scroll(dx: -1, dy: 0), 3, 4)]), ("\u{1B}[<67;3;4M", [mouse(.scroll(dx: 1, dy: 0), 3, 4)]),
        ("\u{1B}[<20;1920;1080M", [mouse(.press(button: 1), 1920, 1080, [.shift, .control])]),
        ("\u{1B}[<8;1;2M", [mouse(.press(button: 1), 1, 2, .alt)]),
        ("\u{1B}[<0;1M", []), ("\u{1B}[<3;1;1m", []),
    ] as [(String, [TerminalEvent])])
    func sgrMouseReportsDecode(_ input: String, _ expected: [TerminalEvent]) {
        #expect(Self.parse(input) == expected, "\(input.debugDescription)")
    }

    @Test func bracketedPasteIsTextNotKeys() {
        #expect(Self.parse("x\u{1B}[200~héllo\n\u{1B}[A ✓\u{1B}[201~y") == [Self.key(0x78), .paste("héllo\n\u{1B}[A ✓"), Self.key(0x79)])
    }

    @Test func aLoneEscapeWaitsForTheNextByteOrTheFlush() {
        var parser = TerminalInputParser()
        #expect(parser.feed([0x1B]).isEmpty)
        #expect(parser.hasPendingEscape)
        #expect(parser.feed(Array("[B".utf8)) == [Self.key(TerminalKeysym.down)])
        #expect(parser.feed([0x1B]).isEmpty)
        #expect(parser.flushPendingEscape() == [Self.key(TerminalKeysym.escape)])
        #expect(!parser.hasPendingEscape)
    }

    /// Terminal input as it arrives: keys, mouse reports, pastes, cut anywhere.
    static let sample = "ab\u{1B}[1;5C✓\u{1B}[<0;10;20M\u{1B}[<0;10;20m\u{1B}[200~pa\u{1B}ste\u{1B}[201~\u{1B}[97;5u\u{1B}OPé\r"

    @Test func anyChunkingGivesTheSameEvents() async {
        let bytes = Array(Self.sample.utf8)
        let expected = Self.parse(Self.sample)
        #expect(expected.count == 11)
        await propertyCheck(count: 300, input: Gen.int(in: 1...bytes.count).array(of: 0...12)) { cuts in
            var parser = TerminalInputParser()
            var events: [TerminalEvent] = []
            var start = 0
            for cut in cuts.sorted() where cut > start {
                events += parser.feed(bytes[start..<cut])
                start = cut
            }
            events += parser.feed(bytes[start...])
            #expect(events == expected, "cuts \(cuts.sorted())")
        }
    }

    @Test func garbageNeverCrashesAndPendingBytesStayBounded() async {
        await propertyCheck(count: 300, input: Gen.uint8(in: 0...255).array(of: 0...400)) { bytes in
            var parser = TerminalInputParser()
            _ = parser.feed(bytes)
            _ = parser.feed(Array(repeating: UInt8(ascii: "1"), count: 100))
            #expect(parser.bufferedBytes <= bytes.count + 100 && parser.bufferedBytes <= TerminalInputParser.maximumPaste)
            _ = parser.flushPendingEscape()
            _ = parser.feed(Array("\u{1B}[201~".utf8))  // ends a paste the garbage may have opened
            #expect(parser.feed(Array("z".utf8)) == [Self.key(0x7A)] || parser.hasPendingEscape, "typing goes on")
        }
        var parser = TerminalInputParser()
        _ = parser.feed(Array("\u{1B}[".utf8) + Array(repeating: UInt8(ascii: "1"), count: 1000))
        #expect(parser.feed(Array("z".utf8)) == [Self.key(0x7A)], "an overlong sequence is dropped, typing goes on")
    }
}
