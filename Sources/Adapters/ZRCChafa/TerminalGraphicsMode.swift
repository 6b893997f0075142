/// How a `TerminalImageRenderer` draws pixels into the terminal.
public enum TerminalGraphicsMode: Sendable, Hashable, CustomStringConvertible {
    /// Unicode block characters with 24-bit foreground and background colours (SGR 38;2 / 48;2):
    /// works in nearly every modern terminal, at a few pixels per cell.
    case symbols(TerminalSymbols)
    /// DEC sixel graphics: real pixels, for terminals that support sixel (xterm -ti vt340, foot,
    /// mlterm, WezTerm, …).
    case sixel

    public var description: String {
        switch self {
        case .symbols(let symbols): "symbols (\(symbols))"
        case .sixel: "sixel"
        }
    }
}

/// Which characters symbol mode may use.
public enum TerminalSymbols: Sendable, Hashable, CustomStringConvertible {
    /// Upper and lower half blocks (▀ ▄) and spaces: two colours stacked in each cell, which
    /// doubles the vertical resolution and looks right in every font.
    case halfBlocks
    /// All block elements (halves, quadrants, eighths): more detail, in fonts that draw them well.
    case blocks

    public var description: String {
        switch self {
        case .halfBlocks: "half blocks"
        case .blocks: "blocks"
        }
    }
}

/// The memory layout of the pixels handed to a `TerminalImageRenderer`.
public enum TerminalPixelFormat: Sendable, Hashable {
    /// Bytes B, G, R, X as captured from X11 and decoded from JPEG; the fourth byte is padding.
    case bgrx
    /// Bytes R, G, B, A with straight (not premultiplied) alpha.
    case rgba
}
