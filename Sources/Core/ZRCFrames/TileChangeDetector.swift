public import ZRCProtocol
/// Finds which tiles of the screen changed since the frame last sent, confirming the X server's
/// damage hints (which over-report: a redraw with identical pixels still counts as damage).
public struct TileChangeDetector: Sendable {
    public static let defaultTileSize = 64

    public let tileSize: Int

    public init(tileSize: Int = Self.defaultTileSize) {
        precondition(tileSize > 0, "tiles need a size")
        self.tileSize = tileSize
    }

    /// Tiles overlapping `hints` (the whole screen when nil) whose pixels differ between the two
    /// images, merged into rectangles clipped to the screen.
    public func changedRegions(previous: PixelBuffer, current: PixelBuffer, hints: [PixelRect]? = nil) -> [PixelRect] {
        changedTiles(previous: previous, current: current, hints: hints).mergedRects()
    }

    /// The changed tiles themselves, for callers that work tile by tile.
    public func changedTiles(previous: PixelBuffer, current: PixelBuffer, hints: [PixelRect]? = nil) -> TileMask {
        let grid = TileGrid(width: current.width, height: current.height, tileSize: tileSize)
        var dirty = TileMask(grid: grid)
        for tile in grid.tiles(overlapping: hints ?? [current.bounds]) {
            let rect = grid.rect(of: tile)
            if !TileComparison.equal(previous, current, in: rect) { dirty.insert(tile) }
        }
        return dirty
    }
}

/// The screen cut into square tiles; the last row and column may be smaller.
public struct TileGrid: Sendable, Hashable {
    public let width: Int
    public let height: Int
    public let tileSize: Int
    public var columns: Int { (width + tileSize - 1) / tileSize }
    public var rows: Int { (height + tileSize - 1) / tileSize }

    public init(width: Int, height: Int, tileSize: Int) {
        self.width = width
        self.height = height
        self.tileSize = tileSize
    }

    public struct Tile: Sendable, Hashable {
        public let column: Int
        public let row: Int
    }

    public func rect(of tile: Tile) -> PixelRect {
        let x = tile.column * tileSize, y = tile.row * tileSize
        return PixelRect(x: x, y: y, width: min(tileSize, width - x), height: min(tileSize, height - y))
    }

    /// Every tile touching any of `rects`, each once, in row-major order.
    public func tiles(overlapping rects: [PixelRect]) -> [Tile] {
        var seen = TileMask(grid: self)
        var result: [Tile] = []
        let screen = PixelRect(x: 0, y: 0, width: width, height: height)
        for rect in rects {
            let area = rect.intersection(screen)
            guard !area.isEmpty else { continue }
            for row in (area.y / tileSize)...((area.maxY - 1) / tileSize) {
                for column in (area.x / tileSize)...((area.maxX - 1) / tileSize) {
                    let tile = Tile(column: column, row: row)
                    if !seen.contains(tile) {
                        seen.insert(tile)
                        result.append(tile)
                    }
                }
            }
        }
        return result
    }
}
