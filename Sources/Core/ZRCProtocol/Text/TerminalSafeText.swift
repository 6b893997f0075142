/// Peer-supplied strings (host names, close reasons, agents, addresses) shown in a terminal or
/// written to a log must not carry anything that acts instead of showing: an escape sequence from
/// a hostile peer could rewrite the screen, retitle the window or worse, and invisible or
/// direction-changing characters could make one name look like another.
///
/// This is the one sanitizer every such string passes before a terminal sees it: `Console` (all
/// output of both programs), the log handler, the viewer's status line and the reconnect texts.
public enum TerminalSafeText {
    /// `text` with every character that is not plainly visible replaced by U+FFFD, so what is
    /// shown is exactly what was sent, minus its ability to act or hide:
    /// - control characters (C0, DEL, C1) — escape sequences start here;
    /// - format characters (Unicode category Cf): bidirectional overrides, embeddings, isolates
    ///   and marks, zero-width spaces and joiners, word joiners, the byte-order mark, invisible
    ///   operators, tags;
    /// - line and paragraph separators (U+2028, U+2029).
    /// With `keepingLineBreaks`, "\n" (and "\t") survive, for multi-line output of our own.
    public static func sanitized(_ text: String, keepingLineBreaks: Bool = false) -> String {
        guard !isSafe(text, allowingLineBreaks: keepingLineBreaks) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            result.append(isSafe(scalar, allowingLineBreaks: keepingLineBreaks) ? scalar : "\u{FFFD}")
        }
        return String(result)
    }

    /// Whether `text` would come out of `sanitized` unchanged.
    public static func isSafe(_ text: String, allowingLineBreaks: Bool = false) -> Bool {
        text.unicodeScalars.allSatisfy { isSafe($0, allowingLineBreaks: allowingLineBreaks) }
    }

    static func isSafe(_ scalar: Unicode.Scalar, allowingLineBreaks: Bool) -> Bool {
        if scalar.isASCII { return scalar.value >= 0x20 && scalar.value != 0x7F || allowingLineBreaks && (scalar == "\n" || scalar == "\t") }
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: return false
        default: return true
        }
    }
}
