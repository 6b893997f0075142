/// Keeps a text renderer's output down to the rows that changed: given the lines a renderer
/// printed for the whole area (each line self-contained, i.e. starting from reset attributes),
/// returns only the changed lines, each behind a cursor move to its row.
public struct TextFrameDiff: Sendable {
    private var previous: [Substring] = []
    private var previousArea: TerminalArea?

    public init() {}

    /// Forget what is on screen (after a clear or resize): the next call writes every line.
    public mutating func invalidate() {
        previous = []
        previousArea = nil
    }

    public mutating func update(lines text: String, in area: TerminalArea) -> [UInt8] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).prefix(area.rows)
        if previousArea != area { previous = [] }
        var output: [UInt8] = []
        for (index, line) in lines.enumerated() where index >= previous.count || previous[index] != line {
            output += "\u{1B}[\(area.row + index + 1);\(area.column + 1)H\u{1B}[0m".utf8
            output += line.utf8
        }
        if !output.isEmpty { output += "\u{1B}[0m".utf8 }
        previous = Array(lines)
        previousArea = area
        return output
    }
}
