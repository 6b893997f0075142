public import ZRCFrames
public import ZRCViewer
public import ZRCProtocol

/// The Unicode-symbols renderer: libchafa picks, for each cell, block characters and two 24-bit
/// colours that best match the pixels. Only the bands of rows that changed are rendered again,
/// and of those only the lines whose text differs are written.
public struct ChafaSymbolsRenderer: TerminalRenderer {
    public let symbols: TerminalSymbols
    private var bands: ChafaBands
    private var diff = TextFrameDiff()

    public init(symbols: TerminalSymbols = .halfBlocks) {
        self.symbols = symbols
        bands = ChafaBands(mode: .symbols(symbols))
    }

    public var name: String { "symbols" }

    /// Four local pixels across a cell, and as many down as keep the cell's shape: libchafa looks
    /// at a few pixels per cell, so scaling to full terminal resolution first would be wasted.
    public func pixelsPerCell(cellWidth: Int, cellHeight: Int) -> (width: Int, height: Int) {
        (4, max(1, Int((4 * Double(cellHeight) / Double(max(1, cellWidth))).rounded())))
    }

    public mutating func draw(_ image: PixelBuffer, changed: [PixelRect]?, in area: TerminalArea) throws -> [UInt8] {
        if changed == nil { diff.invalidate() }
        var output: [UInt8] = []
        for band in CellBands.rows(covering: changed, in: area) {
            let text = try bands.render(image, band: band, in: area)
            output += diff.update(lines: text, firstRow: band.lowerBound, in: area)
        }
        return output
    }

    public func clear() -> [UInt8] { [] }
}
