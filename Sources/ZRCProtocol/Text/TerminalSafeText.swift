/// Peer-supplied strings (host names, close reasons, agents) shown in a terminal or written to a
/// log must not carry control characters: an escape sequence from a hostile peer could rewrite
/// the screen, retitle the window or worse.
public enum TerminalSafeText {
    /// `text` with every control character (C0, DEL, C1) and bidirectional override replaced
    /// by U+FFFD, so what is shown is exactly what was sent, minus its ability to act.
    public static func sanitized(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            let value = scalar.value
            let isControl = value < 0x20 || (0x7F...0x9F).contains(value)
            let isBidiOverride = (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
            result.append(isControl || isBidiOverride ? "\u{FFFD}" : scalar)
        }
        return String(result)
    }
}
