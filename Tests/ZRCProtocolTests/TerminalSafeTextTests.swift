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
    ])
    func controlCharactersCannotReachTheTerminal(input: String, expected: String) {
        #expect(TerminalSafeText.sanitized(input) == expected)
    }
}
