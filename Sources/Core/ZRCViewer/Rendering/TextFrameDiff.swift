/// Keeps a text renderer's output down to the rows that changed: given lines a renderer printed
/// for some rows of the area (each line self-contained, i.e. starting from reset attributes),
/// returns only the lines that differ from what is on screen, each behind a cursor move to its row.
public struct TextFrameDiff: Sendable {
    private var shown: [Substring?] = []
    private var shownArea: TerminalArea?

    public init() {}

    /// Forget what is on screen (after a clear or resize): the next calls write every line.
    public mutating func invalidate() {
        shown = []
        shownArea = nil
    }

    /// `text` holds the lines of rows `firstRow…` of `area`, separated by newlines.
    public mutating func update(lines text: String, firstRow: Int = 0, in area: TerminalArea) -> [UInt8] {
        if shownArea != area {
            shown = Array(repeating: nil, count: area.rows)
            shownArea = area
        }
        var output: [UInt8] = []
        for (offset, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let row = firstRow + offset
            guard row < area.rows, shown[row] != line else { continue }
            output += "\u{1B}[\(area.row + row + 1);\(area.column + 1)H\u{1B}[0m".utf8
            output += line.utf8
            shown[row] = line
        }
        if !output.isEmpty { output += "\u{1B}[0m".utf8 }
        return output
    }
}
