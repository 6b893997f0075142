public import ZRCFrames
public import ZRCViewer
public import ZRCProtocol

/// The sixel renderer: libchafa encodes the picture as DEC sixel graphics, drawn in real terminal
/// pixels. After the first frame only the bands of rows that changed are encoded and drawn again,
/// each starting on a cell boundary that is also a sixel (6-pixel) boundary.
public struct ChafaSixelRenderer: TerminalRenderer {
    private var bands = ChafaBands(mode: .sixel)

    public init() {}

    public var name: String { "sixel" }

    public func pixelsPerCell(cellWidth: Int, cellHeight: Int) -> (width: Int, height: Int) { (cellWidth, cellHeight) }

    public mutating func draw(_ image: PixelBuffer, changed: [PixelRect]?, in area: TerminalArea) throws -> [UInt8] {
        let granule = CellBands.granule(cellHeight: area.cellHeight, band: 6)
        var output: [UInt8] = []
        for band in CellBands.rows(covering: changed, in: area, granule: granule) {
            let sixel = try bands.render(image, band: band, in: area)
            output += "\u{1B}[\(area.row + band.lowerBound + 1);\(area.column + 1)H".utf8
            output += sixel.utf8
        }
        return output
    }

    public func clear() -> [UInt8] { [] }
}
