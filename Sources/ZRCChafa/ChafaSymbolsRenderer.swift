public import ZRCFrames
public import ZRCViewer

/// The Unicode-symbols renderer: libchafa picks, for each cell, block characters and two 24-bit
/// colours that best match the pixels; only the rows that changed are written.
public struct ChafaSymbolsRenderer: TerminalRenderer {
    public let symbols: TerminalSymbols
    private var canvas: TerminalImageRenderer?
    private var diff = TextFrameDiff()

    public init(symbols: TerminalSymbols = .halfBlocks) {
        self.symbols = symbols
    }

    public var name: String { "symbols" }

    /// Four local pixels across a cell, and as many down as keep the cell's shape: libchafa looks
    /// at a few pixels per cell, so scaling to full terminal resolution first would be wasted.
    public func pixelsPerCell(cellWidth: Int, cellHeight: Int) -> (width: Int, height: Int) {
        (4, max(1, Int((4 * Double(cellHeight) / Double(max(1, cellWidth))).rounded())))
    }

    public mutating func draw(_ image: PixelBuffer, changed: [PixelRect]?, in area: TerminalArea) throws -> [UInt8] {
        if canvas?.columns != area.columns || canvas?.rows != area.rows {
            canvas = try TerminalImageRenderer(columns: area.columns, rows: area.rows, mode: .symbols(symbols))
            diff.invalidate()
        }
        if changed == nil { diff.invalidate() }
        guard let canvas else { return [] }
        let text = try canvas.render(pixels: image.bytes, width: image.width, height: image.height, bytesPerRow: image.bytesPerRow,
                                     format: .bgrx)
        return diff.update(lines: text, in: area)
    }

    public func clear() -> [UInt8] { [] }
}
