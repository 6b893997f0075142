public import ZRCFrames
public import ZRCProtocol

/// Where the viewer draws: a block of whole cells, and how many local pixels make one cell.
///
/// Pixel renderers (kitty, sixel) draw with the terminal's real cell size, so one local pixel is
/// one terminal pixel. The symbols renderer uses a small virtual cell of the same aspect ratio:
/// each cell shows only a few colours, so scaling to full terminal resolution first would be
/// wasted work.
public struct TerminalArea: Sendable, Equatable {
    /// Top-left cell, 0-based.
    public var column: Int
    public var row: Int
    public var columns: Int
    public var rows: Int
    public var cellWidth: Int
    public var cellHeight: Int

    public init(column: Int, row: Int, columns: Int, rows: Int, cellWidth: Int, cellHeight: Int) {
        self.column = column
        self.row = row
        self.columns = max(1, columns)
        self.rows = max(1, rows)
        self.cellWidth = max(1, cellWidth)
        self.cellHeight = max(1, cellHeight)
    }

    public var pixelWidth: Int { columns * cellWidth }
    public var pixelHeight: Int { rows * cellHeight }
}

/// Turns the viewer's picture of its drawing area into terminal output.
public protocol TerminalRenderer {
    /// For the status line, e.g. "kitty (shm)", "sixel", "symbols".
    var name: String { get }
    /// The local pixels per cell the renderer wants for a terminal whose cells measure
    /// `cellWidth` × `cellHeight` pixels (see `TerminalArea`).
    func pixelsPerCell(cellWidth: Int, cellHeight: Int) -> (width: Int, height: Int)
    /// Output that shows `image` (exactly `area.pixelWidth` × `area.pixelHeight`) in `area`.
    /// `changed` lists the local rectangles that differ from the previous call, nil when
    /// everything must be drawn (first frame, resize, the screen was cleared). Leaves the cursor
    /// anywhere; the caller positions it for whatever it writes next.
    mutating func draw(_ image: PixelBuffer, changed: [PixelRect]?, in area: TerminalArea) throws -> [UInt8]
    /// Output that removes what the renderer left behind (e.g. images kept by the terminal),
    /// written before the terminal is restored.
    func clear() -> [UInt8]
}

/// The renderers the viewer knows, for `--renderer` and the automatic choice.
public enum RendererKind: String, Sendable, CaseIterable, CustomStringConvertible {
    case kitty, sixel, symbols

    public var description: String { rawValue }

    /// The best renderer the terminal showed it supports: kitty graphics, then sixel, then
    /// Unicode symbols (which every terminal with 24-bit colour shows). A terminal that did not
    /// answer the queries at all (too slow, or a link that drops them) is judged by the
    /// environment it set: kitty's `TERM` or window id, WezTerm's or Ghostty's `TERM_PROGRAM`
    /// mean kitty graphics; foot and mlterm mean sixel.
    public static func automatic(for capabilities: TerminalCapabilities, environment: [String: String] = [:]) -> RendererKind {
        if capabilities.kittyGraphics { return .kitty }
        if capabilities.sixel { return .sixel }
        guard !capabilities.answered else { return .symbols }
        let term = environment["TERM"] ?? "", program = environment["TERM_PROGRAM"] ?? ""
        if term == "xterm-kitty" || environment["KITTY_WINDOW_ID"] != nil || ["WezTerm", "ghostty"].contains(program) { return .kitty }
        if term.hasPrefix("foot") || term.hasPrefix("mlterm") { return .sixel }
        return .symbols
    }
}
