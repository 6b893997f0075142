import PropertyBased
import Testing
import ZRCProtocol

@Suite struct TerminalSafeTextTests {
    @Test(arguments: [
        ("desk", "desk"),
        ("héllo ✓", "héllo ✓"),
        ("evil\u{1B}]0;owned\u{07}", "evil\u{FFFD}]0;owned\u{FFFD}"),
        ("a\u{9B}31mb", "a\u{FFFD}31mb"),
        ("tab\there\nnew", "tab\u{FFFD}here\u{FFFD}new"),
        ("abc\u{202E}cba", "abc\u{FFFD}cba"),
        ("del\u{7F}", "del\u{FFFD}"),
        ("isolate\u{2067}x\u{2069}", "isolate\u{FFFD}x\u{FFFD}"),
        ("mark\u{200F}\u{200E}\u{061C}", "mark\u{FFFD}\u{FFFD}\u{FFFD}"),
        ("zero\u{200B}width\u{200D}joiner\u{2060}\u{FEFF}", "zero\u{FFFD}width\u{FFFD}joiner\u{FFFD}\u{FFFD}"),
        ("line\u{2028}para\u{2029}", "line\u{FFFD}para\u{FFFD}"),
        ("日本語 — ok", "日本語 — ok"),
    ])
    func controlCharactersCannotReachTheTerminal(input: String, expected: String) {
        #expect(TerminalSafeText.sanitized(input) == expected)
    }

    @Test func lineBreaksSurviveOnlyWhenAskedFor() {
        #expect(TerminalSafeText.sanitized("a\nb\tc\u{1B}[2J", keepingLineBreaks: true) == "a\nb\tc\u{FFFD}[2J")
        #expect(TerminalSafeText.sanitized("a\nb", keepingLineBreaks: false) == "a\u{FFFD}b")
        #expect(TerminalSafeText.isSafe("héllo ✓") && !TerminalSafeText.isSafe("a\u{202E}b"))
    }

    /// Whatever the input, nothing that can act or hide comes out.
    @Test func property_noEscapeOrInvisibleCharacterSurvives() async {
        let scalars = Gen.uint32(in: 0...0x10FFFF).compactMap { Unicode.Scalar($0) }.array(of: 0...40)
        await propertyCheck(count: 2000, input: scalars) { input in
            let text = String(String.UnicodeScalarView(input))
            let output = TerminalSafeText.sanitized(text)
            #expect(!output.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
            #expect(!output.unicodeScalars.contains { $0.properties.generalCategory == .format })
            #expect(TerminalSafeText.isSafe(output))
            #expect(output.unicodeScalars.count == text.unicodeScalars.count, "one for one, nothing dropped")
        }
    }
}
