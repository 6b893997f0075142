/// How the viewer divides the terminal: the drawing area (every row but the last) and the status
/// line (the last row), and how big a cell is in terminal pixels.
public struct ViewerLayout: Sendable, Equatable {
    /// Used when the terminal tells nothing about its pixels: a common cell of 10 × 20.
    public static let fallbackCell = (width: 10, height: 20)

    public let columns: Int
    public let rows: Int
    /// One cell in terminal pixels (measured, or the fallback).
    public let cellWidth: Int
    public let cellHeight: Int

    /// - Parameters:
    ///   - reportedCell: the cell size the terminal answered (XTWINOPS 16t), if it did.
    ///   - windowPixels: the window's size in pixels from `TIOCGWINSZ` (0 when unknown).
    public init(columns: Int, rows: Int, reportedCell: (width: Int, height: Int)?, windowPixels: (width: Int, height: Int)) {
        self.columns = max(1, columns)
        self.rows = max(2, rows)
        if let reportedCell, reportedCell.width > 0, reportedCell.height > 0 {
            (cellWidth, cellHeight) = reportedCell
        } else if windowPixels.width >= columns, windowPixels.height >= rows, columns > 0, rows > 0 {
            (cellWidth, cellHeight) = (windowPixels.width / columns, windowPixels.height / rows)
        } else {
            (cellWidth, cellHeight) = Self.fallbackCell
        }
    }

    /// The row of the status line, 0-based.
    public var statusRow: Int { rows - 1 }

    /// The drawing area for a renderer that wants `pixelsPerCell` local pixels per cell.
    public func area(pixelsPerCell: (width: Int, height: Int)) -> TerminalArea {
        TerminalArea(column: 0, row: 0, columns: columns, rows: rows - 1, cellWidth: pixelsPerCell.width, cellHeight: pixelsPerCell.height)
    }
}
