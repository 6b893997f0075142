public import ZRCProtocol
/// A set of tiles as a bitmap, and its conversion to few rectangles.
public struct TileMask: Sendable, Hashable {
    public let grid: TileGrid
    private var bits: [Bool]

    public init(grid: TileGrid) {
        self.grid = grid
        bits = [Bool](repeating: false, count: grid.columns * grid.rows)
    }

    public var isEmpty: Bool { !bits.contains(true) }
    public var count: Int { bits.count { $0 } }

    public func contains(_ tile: TileGrid.Tile) -> Bool { bits[tile.row * grid.columns + tile.column] }

    public mutating func insert(_ tile: TileGrid.Tile) { bits[tile.row * grid.columns + tile.column] = true }

    public mutating func remove(_ tile: TileGrid.Tile) { bits[tile.row * grid.columns + tile.column] = false }

    /// Adds every tile touching any of `rects`.
    public mutating func insert(covering rects: [PixelRect]) {
        for tile in grid.tiles(overlapping: rects) { insert(tile) }
    }

    /// The set tiles, row by row.
    public var tiles: [TileGrid.Tile] {
        bits.indices.filter { bits[$0] }.map { TileGrid.Tile(column: $0 % grid.columns, row: $0 / grid.columns) }
    }

    /// The smallest rectangle (clipped to the screen) holding every set tile; nil when none is set.
    public var bounds: PixelRect? {
        tiles.reduce(nil) { (result: PixelRect?, tile) in result.map { $0.union(grid.rect(of: tile)) } ?? grid.rect(of: tile) }
    }

    /// Every tile of the grid.
    public static func all(_ grid: TileGrid) -> TileMask {
        var mask = TileMask(grid: grid)
        mask.bits = [Bool](repeating: true, count: mask.bits.count)
        return mask
    }

    /// Covers exactly the set tiles with rectangles: horizontal runs per row, then runs with the
    /// same columns in consecutive rows stacked into one rectangle. Never covers an unset tile, so
    /// nothing unchanged is re-encoded.
    public func mergedRects() -> [PixelRect] {
        struct Run: Hashable { let first: Int, last: Int }
        var open: [Run: (top: Int, bottom: Int)] = [:]
        var done: [(run: Run, top: Int, bottom: Int)] = []
        for row in 0..<grid.rows {
            var runs: [Run] = []
            var column = 0
            while column < grid.columns {
                guard bits[row * grid.columns + column] else { column += 1; continue }
                let start = column
                while column < grid.columns, bits[row * grid.columns + column] { column += 1 }
                runs.append(Run(first: start, last: column - 1))
            }
            var next: [Run: (top: Int, bottom: Int)] = [:]
            for run in runs {
                if let span = open[run], span.bottom == row - 1 {
                    next[run] = (span.top, row)
                } else {
                    next[run] = (row, row)
                }
            }
            for (run, span) in open where next[run] == nil || next[run]!.top != span.top {
                done.append((run, span.top, span.bottom))
            }
            open = next
        }
        for (run, span) in open { done.append((run, span.top, span.bottom)) }
        let screen = PixelRect(x: 0, y: 0, width: grid.width, height: grid.height)
        return done.map { entry in
            PixelRect(x: entry.run.first * grid.tileSize, y: entry.top * grid.tileSize,
                      width: (entry.run.last - entry.run.first + 1) * grid.tileSize,
                      height: (entry.bottom - entry.top + 1) * grid.tileSize).intersection(screen)
        }.sorted { ($0.y, $0.x) < ($1.y, $1.x) }
    }
}
