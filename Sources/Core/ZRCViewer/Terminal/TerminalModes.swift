/// The terminal modes the viewer switches on, and the sequence that switches them off again.
public struct TerminalModes: Sendable, Equatable {
    /// SGR-pixels mouse reports (1016): pointer positions in pixels, not cells.
    public var pixelMouse: Bool
    /// The kitty keyboard protocol's "disambiguate" flag: Ctrl/Alt combinations and Escape
    /// reported unambiguously.
    public var kittyKeyboard: Bool

    public init(pixelMouse: Bool, kittyKeyboard: Bool) {
        self.pixelMouse = pixelMouse
        self.kittyKeyboard = kittyKeyboard
    }

    /// Alternate screen, hidden cursor, no line wrap, every mouse event (SGR 1006 encoding, all
    /// motion 1003), bracketed paste, focus reports; the screen cleared.
    public var enter: String {
        var text = "\u{1B}[?1049h\u{1B}[?25l\u{1B}[?7l\u{1B}[?1000h\u{1B}[?1002h\u{1B}[?1003h\u{1B}[?1006h"
        if pixelMouse { text += "\u{1B}[?1016h" }
        text += "\u{1B}[?2004h\u{1B}[?1004h"
        if kittyKeyboard { text += "\u{1B}[>1u" }
        return text + "\u{1B}[0m\u{1B}[2J"
    }

    /// Everything `enter` changed, back to the terminal's defaults, ending on the main screen with
    /// the cursor shown. Harmless to send more than once.
    public var leave: String {
        var text = kittyKeyboard ? "\u{1B}[<u" : ""
        text += "\u{1B}[?1016l\u{1B}[?1003l\u{1B}[?1002l\u{1B}[?1000l\u{1B}[?1006l\u{1B}[?2004l\u{1B}[?1004l"
        text += "\u{1B}[?2026l\u{1B}[0m\u{1B}[?7h\u{1B}[?25h\u{1B}[?1049l"
        return text
    }

    /// Synchronized output (mode 2026): the terminal shows a frame only once it is complete.
    /// Terminals without it ignore the sequences.
    public static let beginFrame = "\u{1B}[?2026h"
    public static let endFrame = "\u{1B}[?2026l"
}
