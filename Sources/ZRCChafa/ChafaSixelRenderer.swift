public import ZRCFrames
public import ZRCViewer

/// The sixel renderer: libchafa encodes the picture as DEC sixel graphics (palette chosen per
/// frame), drawn at the drawing area's top-left cell in real terminal pixels.
public struct ChafaSixelRenderer: TerminalRenderer {
    private var canvas: TerminalImageRenderer?

    public init() {}

    public var name: String { "sixel" }

    public func pixelsPerCell(cellWidth: Int, cellHeight: Int) -> (width: Int, height: Int) { (cellWidth, cellHeight) }

    public mutating func draw(_ image: PixelBuffer, changed: [PixelRect]?, in area: TerminalArea) throws -> [UInt8] {
        if canvas?.columns != area.columns || canvas?.rows != area.rows || canvas?.cellWidth != area.cellWidth
            || canvas?.cellHeight != area.cellHeight {
            canvas = try TerminalImageRenderer(columns: area.columns, rows: area.rows, mode: .sixel, cellWidth: area.cellWidth,
                                               cellHeight: area.cellHeight)
        }
        guard let canvas else { return [] }
        let sixel = try canvas.render(pixels: image.bytes, width: image.width, height: image.height, bytesPerRow: image.bytesPerRow,
                                      format: .bgrx)
        return Array("\u{1B}[\(area.row + 1);\(area.column + 1)H".utf8) + Array(sixel.utf8)
    }

    public func clear() -> [UInt8] { [] }
}
