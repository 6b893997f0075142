public import ZRCFrames
public import ZRCViewer

/// Renders horizontal bands of the viewer's picture with libchafa: one canvas per band height
/// (kept for reuse, a few at most), fed the band's rows of the picture in place.
struct ChafaBands {
    static let cachedCanvases = 6

    let mode: TerminalGraphicsMode
    private var canvases: [Int: TerminalImageRenderer] = [:]
    private var geometry: (columns: Int, cellWidth: Int, cellHeight: Int)?

    init(mode: TerminalGraphicsMode) {
        self.mode = mode
    }

    /// libchafa's output for rows `band` of `area`, drawn from `image`.
    mutating func render(_ image: PixelBuffer, band: Range<Int>, in area: TerminalArea) throws -> String {
        if geometry.map({ $0 != (area.columns, area.cellWidth, area.cellHeight) }) ?? true {
            canvases = [:]
            geometry = (area.columns, area.cellWidth, area.cellHeight)
        }
        let canvas: TerminalImageRenderer
        if let cached = canvases[band.count] {
            canvas = cached
        } else {
            // Evict any but the whole-area canvas, which every full redraw uses.
            if canvases.count >= Self.cachedCanvases, let any = canvases.keys.first(where: { $0 != area.rows }) {
                canvases.removeValue(forKey: any)
            }
            canvas = try TerminalImageRenderer(columns: area.columns, rows: band.count, mode: mode, cellWidth: area.cellWidth,
                                               cellHeight: area.cellHeight)
            canvases[band.count] = canvas
        }
        let top = band.lowerBound * area.cellHeight
        let height = min(image.height - top, band.count * area.cellHeight)
        return try image.bytes.withUnsafeBytes { bytes in
            let start = top * image.bytesPerRow
            let rows = UnsafeRawBufferPointer(rebasing: bytes[start..<(start + height * image.bytesPerRow)])
            return try canvas.render(pixels: rows, width: image.width, height: height, bytesPerRow: image.bytesPerRow, format: .bgrx)
        }
    }
}
